"""``manage.py tornado REQUEST.json``: savings with each driver at its low and high value."""

from django.utils.translation import gettext_lazy as _

from webapp.planner.management.operation import OperationCommand


class Command(OperationCommand):
    operation = "tornado"
    description = _(
        "Tornado: savings and break-even month with each driver at its low and its high "
        "value, largest swing first. Reads {scenario, drivers} (a file, or - for stdin)."
    )

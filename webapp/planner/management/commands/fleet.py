"""``manage.py fleet REQUEST.json``: how many boxes to own before bursting to the cloud."""

from django.utils.translation import gettext_lazy as _

from webapp.planner.management.operation import OperationCommand


class Command(OperationCommand):
    operation = "fleet"
    description = _(
        "Fleet: the cost of owning 1 to max_boxes boxes and renting the rest, and the best "
        "count. Reads {scenario, max_boxes} (a file, or - for stdin)."
    )

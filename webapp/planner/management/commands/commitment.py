"""``manage.py commitment REQUEST.json``: how many cloud instances to commit to."""

from django.utils.translation import gettext_lazy as _

from webapp.planner.management.operation import OperationCommand


class Command(OperationCommand):
    operation = "commitment"
    description = _(
        "Commitment: the rent cost with 0 to max_instances committed instances, and the "
        "count with the lowest present value. Reads {scenario, max_instances} (a file, or - "
        "for stdin)."
    )

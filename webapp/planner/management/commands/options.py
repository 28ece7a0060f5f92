"""``manage.py options REQUEST.json``: every way to do a scenario's work, by present value."""

from django.utils.translation import gettext_lazy as _

from webapp.planner.management.operation import OperationCommand


class Command(OperationCommand):
    operation = "options"
    description = _(
        "Options: every box (up to 20) and every cloud offering (up to 60) as a plan for the "
        "same work, ranked by present value, with the plans that cannot do it and why. Reads "
        "{scenario, builds, rents} (a file, or - for stdin)."
    )

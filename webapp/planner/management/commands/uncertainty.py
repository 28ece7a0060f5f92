"""``manage.py uncertainty REQUEST.json``: savings and break-even over random draws."""

from django.utils.translation import gettext_lazy as _

from webapp.planner.management.operation import OperationCommand


class Command(OperationCommand):
    operation = "uncertainty"
    description = _(
        "Uncertainty: P10/P50/P90 of savings and break-even month, and the probability that "
        "building is cheaper, over seeded random draws. Reads {scenario, distributions, "
        "draws, seed} (a file, or - for stdin)."
    )

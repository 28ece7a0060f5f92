"""The cost lines: every monthly series a side's cost is the sum of, declared once.

A side's cost of month m (``build.monthly``, ``rent.monthly``) is the sum of
its cost lines. Each :class:`Line` below says, once, what every reader of the
results needs about one of them: its key (the result series' name, which the
methodology fixes), its side, its label, how finance books it (CapEx, OpEx or
financing) and the colour it is charted in. The result schema
(:mod:`costmodel.results`) makes its series from this table; the projection
(:mod:`costmodel.projection`) sums the lines of each side and computes every
fixed monthly fee (:class:`Fee`) from it; the books (:mod:`costmodel.accounting`),
the CSV, the finance zip, the workbook, the results page and its charts read
it. Adding a cost line is one entry here (and, unless it is a fixed monthly
fee, its formula in the projection and the workbook).

Labels are English source text marked for translation with :func:`gettext_noop`
(the engine does not import Django; Django's ``makemessages`` extracts calls by
that name, and the web app translates a label when it shows it).

Examples
--------
>>> [line.key for line in lines_of("rent")]
['compute', 'fixed', 'committed']
>>> BY_KEY["hosting"].fee
Fee(field='hosting_monthly', escalates=True)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

__all__ = [
    "BY_KEY",
    "LINES",
    "SIDES",
    "SIDE_LABELS",
    "Booking",
    "Fee",
    "Line",
    "SideName",
    "colours",
    "fees_of",
    "gettext_noop",
    "lines_of",
]

SideName = Literal["build", "rent"]
SIDES: tuple[SideName, ...] = ("build", "rent")


def gettext_noop(message: str) -> str:
    """``message`` itself, marked for translation (as :func:`django.utils.translation.gettext_noop`
    does: the name is what ``makemessages`` looks for)."""
    return message


SIDE_LABELS: dict[SideName, str] = {"build": gettext_noop("Build"), "rent": gettext_noop("Rent")}
"""Each side's name, marked for translation: what a line's label is prefixed with where both
sides share a table (``Build: Energy``)."""


class Booking(StrEnum):
    """How finance books a cost line (:mod:`costmodel.accounting`)."""

    CAPEX = "capex"
    """Buying an asset: written down over its life, not expensed when paid."""
    OPEX = "opex"
    """An operating expense of the month it is paid in."""
    FINANCING = "financing"
    """Loan payments: interest (an expense) and principal (repaying the debt)."""


@dataclass(frozen=True)
class Fee:
    """A fixed monthly fee: the same amount in every month ``1..H``, escalated or not.

    Notes
    -----
    ``line[m] = fee × e[m]`` for months 1..H, 0 at month 0, with
    ``e[m] = (1 + build.running_cost_annual_change)^((m − 1)/12)`` when the fee
    escalates (as hosting does) and ``e[m] = 1`` otherwise.
    """

    field: str
    """The side's input that holds the fee [currency/month], e.g. ``hosting_monthly``."""
    escalates: bool
    """Follows ``build.running_cost_annual_change`` (a build-side fee only)."""


@dataclass(frozen=True)
class Line:
    """One cost line of the result: a monthly series [currency/month] of one side."""

    key: str
    """The result series' name: ``result[side][key]``."""
    side: SideName
    label: str
    """English, marked for translation; the web app translates it where it shows it."""
    booking: Booking
    colour: str
    """The chart colour, ``#rrggbb``."""
    description: str
    """What the series holds, with its formula: the result schema's field description."""
    fee: Fee | None = None
    """Set when the line is a fixed monthly fee, computed from this declaration alone."""
    always_charted: bool = False
    """Charted even when zero every month (the methodology's six version-1 series), so a
    legend always answers "what about hosting?"; the others only when at work."""

    def __post_init__(self) -> None:
        if self.fee is not None and self.fee.escalates and self.side != "build":
            raise ValueError(f"{self.key}: only a build-side fee follows the running-cost change")


LINES: tuple[Line, ...] = (
    Line(
        "energy",
        "build",
        gettext_noop("Energy"),
        Booking.OPEX,
        "#1f6feb",
        "Electricity: kWh at load and idle × PUE × tariff × escalation.",
        always_charted=True,
    ),
    Line(
        "hosting",
        "build",
        gettext_noop("Hosting"),
        Booking.OPEX,
        "#6e9ef5",
        "Colocation, rack or office fee, escalated.",
        fee=Fee("hosting_monthly", escalates=True),
        always_charted=True,
    ),
    Line(
        "maintenance",
        "build",
        gettext_noop("Maintenance"),
        Booking.OPEX,
        "#9cbcf8",
        "Capex of the box in service × maintenance rate / 12.",
        always_charted=True,
    ),
    Line(
        "ops",
        "build",
        gettext_noop("Administration"),
        Booking.OPEX,
        "#c8daf9",
        "Administration labour, escalated.",
        fee=Fee("ops_monthly", escalates=True),
        always_charted=True,
    ),
    Line(
        "egress",
        "build",
        gettext_noop("Network egress"),
        Booking.OPEX,
        "#3d6fb6",
        "Network egress: data sent out of the box's network, a fixed fee per month.",
        fee=Fee("egress_monthly", escalates=False),
    ),
    Line(
        "burst",
        "build",
        gettext_noop("Cloud burst"),
        Booking.OPEX,
        "#0b3d91",
        "On-demand cloud rented for demand beyond the box (hybrid).",
    ),
    Line(
        "offload",
        "build",
        gettext_noop("Rented jobs"),
        Booking.OPEX,
        "#3b5bdb",
        "Jobs the box cannot hold (memory), rented on demand by the build plan: their "
        "instance-hours × (1 + rework) × rate.",
    ),
    Line(
        "replacement",
        "build",
        gettext_noop("Replacement"),
        Booking.CAPEX,
        "#5a4fcf",
        "New box at the end of a useful life, minus the old one's resale value.",
    ),
    Line(
        "financing",
        "build",
        gettext_noop("Loan payments"),
        Booking.FINANCING,
        "#a99ff0",
        "Loan payments, and the balance still owed at month H.",
    ),
    Line(
        "compute",
        "rent",
        gettext_noop("On-demand compute"),
        Booking.OPEX,
        "#d9730d",
        "On-demand instance-hours beyond the commitment × rate.",
        always_charted=True,
    ),
    Line(
        "fixed",
        "rent",
        gettext_noop("Fixed fees"),
        Booking.OPEX,
        "#f2b274",
        "Storage, addresses, support: every month regardless of use.",
        fee=Fee("fixed_monthly", escalates=False),
        always_charted=True,
    ),
    Line(
        "committed",
        "rent",
        gettext_noop("Committed instances"),
        Booking.OPEX,
        "#8a4b08",
        "Committed instance-hours, used or not, upfront fees, and the rest of a started term "
        "at month H.",
    ),
)
"""Every cost line, build side first, each side in the order tables show them."""

BY_KEY: dict[str, Line] = {line.key: line for line in LINES}


def lines_of(side: SideName) -> tuple[Line, ...]:
    """The cost lines of one side, in table order."""
    return tuple(line for line in LINES if line.side == side)


def fees_of(side: SideName) -> tuple[Line, ...]:
    """The lines of one side that are fixed monthly fees (:class:`Fee`)."""
    return tuple(line for line in lines_of(side) if line.fee is not None)


def colours() -> dict[str, str]:
    """``key → #rrggbb`` of every line: what the charts colour each line with."""
    return {line.key: line.colour for line in LINES}


def _check(lines: tuple[Line, ...]) -> None:
    """Keys are unique and never one of a side's totals; colours are ``#rrggbb``."""
    keys = [line.key for line in lines]
    if len(set(keys)) != len(keys):
        raise ValueError(f"cost line keys repeat: {keys}")
    reserved = {"monthly", "cumulative", "value_if_sold"}
    if reserved & set(keys):
        raise ValueError(f"cost line keys may not be {sorted(reserved & set(keys))}")
    for line in lines:
        colour = line.colour
        if (
            len(colour) != 7
            or colour[0] != "#"
            or not all(c in "0123456789abcdef" for c in colour[1:])
        ):
            raise ValueError(f"{line.key}: colour {colour!r} is not #rrggbb")


_check(LINES)

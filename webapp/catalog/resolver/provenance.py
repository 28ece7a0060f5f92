"""What a rule returns (:class:`Ruling`), the catalog rows behind every figure
(:class:`Provenance`), what was defaulted, and the resolver's answer (:class:`Resolution`)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from costmodel import FieldError, Scenario
from webapp.catalog.resolver.notes import Note, note_text


def decimal_text(value: Decimal) -> str:
    """Exact decimal text, no exponent or trailing zeros: ``Decimal("26703.100")`` → ``26703.1``."""
    return format(value.normalize(), "f")


@dataclass(frozen=True)
class Provenance:
    """One catalog row used, and the scenario fields it feeds.

    ``amount`` and ``currency`` are as stored; ``converted_amount`` is in the
    selection's currency at ``fx_rate`` (``None`` when no conversion happened).
    ``notes`` are the resolver's own notes as codes and figures
    (:mod:`~webapp.catalog.resolver.notes`); ``note`` is a text of the catalog row (or a
    reason in words), and in :meth:`as_dict` the notes in English when there are some.
    """

    role: str
    label: str
    model: str
    natural_key: list[str]
    fields: list[str]
    quantity: int | None = None
    amount: Decimal | None = None
    currency: str | None = None
    effective_date: datetime.date | None = None
    source: str = ""
    estimate: bool = False
    fx_rate: str | None = None
    converted_amount: Decimal | None = None
    note: str = ""
    notes: tuple[Note, ...] = ()

    @classmethod
    def of_price(cls, role: str, label: str, row: Any, fields: list[str], **kw: Any) -> Provenance:
        """A dated, sourced row (price point, rate, tariff, hosting option)."""
        return cls(
            role=role,
            label=label,
            model=row._meta.label_lower,
            natural_key=list(row.natural_key()),
            fields=fields,
            effective_date=getattr(row, "effective_date", None),
            source=row.source,
            estimate=row.estimate,
            **kw,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "label": self.label,
            "model": self.model,
            "natural_key": self.natural_key,
            "fields": self.fields,
            "quantity": self.quantity,
            "amount": None if self.amount is None else decimal_text(self.amount),
            "currency": self.currency,
            "effective_date": None
            if self.effective_date is None
            else self.effective_date.isoformat(),
            "source": self.source,
            "estimate": self.estimate,
            "fx_rate": self.fx_rate,
            "converted_amount": (
                None if self.converted_amount is None else decimal_text(self.converted_amount)
            ),
            "note": note_text(self.notes, translate=False) if self.notes else self.note,
            "notes": [Note(code=n["code"], params=dict(n["params"])) for n in self.notes],
        }


@dataclass(frozen=True)
class Defaulted:
    """A field the resolver filled in because the selection left it out, and why (in words,
    in the language active when it was resolved).

    ``field`` is a selection field (``tariff``, ``hosting``, ``cloud_offering``,
    ``committed_instances``) or, for a custom box's running costs, a scenario path
    (``build.maintenance_rate_per_year``); ``value`` is the slug or figure used.
    """

    field: str
    value: Any
    reason: str

    def as_dict(self) -> dict[str, Any]:
        value = decimal_text(self.value) if isinstance(self.value, Decimal) else self.value
        return {"field": self.field, "value": value, "reason": self.reason}


@dataclass(frozen=True)
class Ruling:
    """What one rule decides: scenario fields (dotted paths) with the rows behind them."""

    values: dict[str, Any]
    provenance: tuple[Provenance, ...] = ()
    defaulted: tuple[Defaulted, ...] = ()


@dataclass
class Resolution:
    """An explicit scenario, the catalog rows every figure came from, and what was defaulted."""

    scenario: Scenario
    provenance: list[dict[str, Any]] = field(default_factory=list)
    defaulted: list[Defaulted] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario.model_dump(mode="json"),
            "provenance": self.provenance,
            "defaulted": [item.as_dict() for item in self.defaulted],
        }


class Unresolvable(Exception):
    """One lookup failed; collected into a :class:`ScenarioError`."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.error = FieldError(field, message)

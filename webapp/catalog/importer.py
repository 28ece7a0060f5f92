"""Add price points from a CSV file: what ``manage.py catalog_import`` does.

Columns (header row required, any order; see ``docs/catalog.md``):

``item_type``      ``part``, ``cloud_offering`` or ``fx_rate``
``item``           the part's or offering's slug; for an FX rate ``BASE/QUOTE`` (``USD/CNY``)
``amount``         unit price, hourly rate, or units of QUOTE per 1 BASE; ≥ 0 (> 0 for FX),
                   written as plain decimal digits: ``1234``, ``1234.5`` (no sign, no
                   grouping, no exponent such as ``1e3``)
``currency``       ``CNY`` or ``USD`` (for an FX rate: the quote currency)
``effective_date`` ``YYYY-MM-DD``
``source``         URL or citation; required unless ``estimate`` is true
``note``           optional
``note_zh``        optional: the note in Simplified Chinese (blank: the English is shown)
``estimate``       optional: ``true``/``false`` (also ``yes``/``no``, ``1``/``0``); default false

All-or-nothing: every row is checked first (its cells, then whether its item
exists and its price is new); if any row is bad, the errors name every bad row
(the header is row 1) and the field, and nothing is written. A cell longer
than the csv module's limit (131 072 characters), a quote that is never
closed, or other broken quoting stops the reading there, with an error naming
its row; a cell holding a NUL character (which PostgreSQL cannot store) is an
error naming its row and column.
Prices are never overwritten: a row for an item and date that already has a
different price is an error; an identical one is reported as unchanged. A new
price that moves too far from the one before it is held for review
(:func:`webapp.catalog.services.review_reasons`), and the report says why.
"""

from __future__ import annotations

import csv
import datetime
import io
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Annotated, Literal, Self

from django.db import IntegrityError, transaction
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from costmodel import field_errors
from webapp.catalog import selectors, services
from webapp.catalog.models import CloudOffering, CloudRate, FxRate, Part, PartPrice, PricePoint

COLUMNS = [
    "item_type",
    "item",
    "amount",
    "currency",
    "effective_date",
    "source",
    "note",
    "note_zh",
    "estimate",
]
REQUIRED_COLUMNS = COLUMNS[:5]
MAX_ROWS = 10_000
NUL_MESSAGE = "contains a NUL character, which the database cannot store"

AMOUNT_FORMAT = re.compile(r"-?[0-9]+(\.[0-9]+)?")
"""The one way to write an amount: digits, optionally ``.`` and more digits (``16999``, ``7.05``).

A leading ``-`` is read too, so that a negative price is refused as negative.

Python's Decimal would also read ``1e3``, ``+5``, ``1_000``, ``NaN`` and echo
``1e3`` back as ``1E+3``; a price list is typed by people and read by
finance, so it takes only what a person means by a plain number.
"""

# (max digits, decimal places) of each item type's amount column in the database
_AMOUNT_DIGITS = {"part": (12, 2), "cloud_offering": (12, 4), "fx_rate": (12, 6)}


class CsvImportError(ValueError):
    """The file cannot be imported; ``errors`` are ``row N: field: message`` lines."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        super().__init__("; ".join(errors))


class PriceRow(BaseModel):
    """One CSV row, validated."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, allow_inf_nan=False)

    item_type: Literal["part", "cloud_offering", "fx_rate"]
    item: Annotated[str, Field(min_length=1, max_length=80)]
    amount: Annotated[Decimal, Field(ge=0, allow_inf_nan=False)]
    currency: Literal["CNY", "USD"]
    effective_date: datetime.date
    source: Annotated[str, Field(max_length=500)] = ""
    note: Annotated[str, Field(max_length=5000)] = ""
    note_zh: Annotated[str, Field(max_length=5000)] = ""
    estimate: bool = False

    @field_validator("amount", mode="before")
    @classmethod
    def _plain_decimal(cls, value: object) -> object:
        if isinstance(value, str) and not AMOUNT_FORMAT.fullmatch(value.strip()):
            raise ValueError(
                "must be written as plain decimal digits with '.' for decimals, such as "
                f"1234 or 1234.56 (no '+', grouping or exponent): {value.strip()[:40]!r}"
            )
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if not self.source and not self.estimate:
            raise ValueError("source: is required unless estimate is true")
        max_digits, places = _AMOUNT_DIGITS[self.item_type]
        exponent = self.amount.as_tuple().exponent
        if isinstance(exponent, int) and -exponent > places:
            raise ValueError(f"amount: at most {places} decimal places")
        if self.amount.adjusted() >= max_digits - places:
            raise ValueError("amount: is too large")
        if self.item_type == "fx_rate":
            base, sep, quote = self.item.partition("/")
            if not sep or base not in ("CNY", "USD") or quote not in ("CNY", "USD"):
                raise ValueError("item: an FX rate is written BASE/QUOTE, e.g. USD/CNY")
            if base == quote:
                raise ValueError("item: base and quote currencies must differ")
            if quote != self.currency:
                raise ValueError(f"currency: must be the quote currency {quote}")
            if self.amount == 0:
                raise ValueError("amount: an FX rate must be greater than 0")
        return self


@dataclass
class ImportReport:
    added: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)


def _row_dict(raw: dict[str, str | None]) -> dict[str, str]:
    # Blank optional cells mean "use the default".
    return {k: v for k, v in raw.items() if k is not None and v is not None and v.strip() != ""}


def _describe(row: PriceRow) -> str:
    return f"{row.item_type} {row.item} {row.amount} {row.currency} from {row.effective_date}"


def _pending(
    row: PriceRow, number: int, errors: list[str]
) -> tuple[PricePoint | FxRate | None, PricePoint | FxRate | None]:
    """The unsaved model instance for ``row``, its existing twin if any, or None on error."""
    common = {
        "source": row.source,
        "note": row.note,
        "note_zh": row.note_zh,
        "estimate": row.estimate,
    }
    if row.item_type == "part":
        part = selectors.by_slug(Part, row.item)
        if part is None:
            errors.append(f"row {number}: item: no part with slug '{row.item}'")
            return None, None
        price = PartPrice(
            part=part,
            amount=row.amount,
            currency=row.currency,
            effective_date=row.effective_date,
            **common,
        )
        return price, selectors.part_price_on_date(part, row.effective_date)
    if row.item_type == "cloud_offering":
        offering = selectors.by_slug(CloudOffering, row.item)
        if offering is None:
            errors.append(f"row {number}: item: no cloud offering with slug '{row.item}'")
            return None, None
        rate = CloudRate(
            offering=offering,
            hourly_rate=row.amount,
            currency=row.currency,
            effective_date=row.effective_date,
            **common,
        )
        return rate, selectors.rate_on_date(offering, row.effective_date)
    base, _, quote = row.item.partition("/")
    fx = FxRate(
        base_currency=base,
        quote_currency=quote,
        rate=row.amount,
        effective_date=row.effective_date,
        **common,
    )
    return fx, selectors.fx_rate_on_date(base, quote, row.effective_date)


def _amount_of(obj: PricePoint | FxRate) -> tuple[Decimal, str]:
    if isinstance(obj, PartPrice):
        return obj.amount, obj.currency
    if isinstance(obj, CloudRate):
        return obj.hourly_rate, obj.currency
    assert isinstance(obj, FxRate)
    return obj.rate, obj.quote_currency


def _read_rows(text: str) -> tuple[list[tuple[int, PriceRow]], list[str]]:
    """The valid rows with their numbers, and an error line for every bad one."""
    # strict: a quote left open is an error, not the rest of the file read into one cell
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    try:
        header = reader.fieldnames
    except csv.Error as exc:
        return [], [csv_error(1, exc)]
    if not header:
        return [], ["row 1: columns: the file is empty (a header row is required)"]
    header = [h.strip() for h in header]
    if any("\x00" in h for h in header):
        return [], [f"row 1: columns: {NUL_MESSAGE}"]
    reader.fieldnames = header
    errors = [f"row 1: columns: missing '{c}'" for c in REQUIRED_COLUMNS if c not in header]
    errors += [f"row 1: columns: unknown '{c}'" for c in header if c not in COLUMNS]
    if len(set(header)) != len(header):
        errors.append("row 1: columns: a column appears twice")
    if errors:
        return [], errors
    rows: list[tuple[int, PriceRow]] = []
    number = 1
    while True:
        number += 1
        try:
            raw = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            errors.append(csv_error(number, exc))
            break  # the reader's position inside a broken cell is unknown: stop here
        if number - 1 > MAX_ROWS:
            errors.append(f"row {number}: the file has more than {MAX_ROWS} rows")
            break
        if None in raw:
            errors.append(f"row {number}: columns: more cells than the header has columns")
            continue
        nul = [column for column, value in raw.items() if value and "\x00" in value]
        if nul:
            errors.append(f"row {number}: {nul[0]}: {NUL_MESSAGE}")
            continue
        if not any((v or "").strip() for v in raw.values()):
            continue  # a blank line
        try:
            rows.append((number, PriceRow.model_validate(_row_dict(raw))))
        except ValidationError as exc:
            errors.extend(f"row {number}: {error}" for error in field_errors(exc))
    return rows, errors


def csv_error(number: int, exc: csv.Error) -> str:
    """The error line for a file the csv module stops reading at row ``number``."""
    if "field larger than field limit" in str(exc):
        limit = f"{csv.field_size_limit():,}".replace(",", " ")
        return (
            f"row {number}: a cell is longer than {limit} characters; "
            "the rest of the file was not read"
        )
    if "unexpected end of data" in str(exc):
        return (
            f"row {number}: a quoted cell is never closed (a '\"' is missing); "
            "the rest of the file was not read"
        )
    return f"row {number}: not readable as CSV ({exc}); the rest of the file was not read"


def parse_csv(text: str) -> list[tuple[int, PriceRow]]:
    """Validate the CSV text; every problem raises together in one :class:`CsvImportError`."""
    rows, errors = _read_rows(text)
    if errors:
        raise CsvImportError(errors)
    return rows


def _row_number(error: str) -> int:
    match = re.match(r"row (\d+):", error)
    return int(match.group(1)) if match else 0


def import_prices(text: str, *, dry_run: bool = False) -> ImportReport:
    """Add the CSV's price points, all or nothing; ``dry_run``: report, write nothing.

    Raises
    ------
    CsvImportError
        Naming every bad row, in row order: cells that do not validate, items
        that do not exist, duplicates, prices that would overwrite another.
    """
    rows, errors = _read_rows(text)
    report = ImportReport()
    to_create = []
    seen: dict[tuple[str, str, datetime.date], int] = {}
    for number, row in rows:
        key = (row.item_type, row.item, row.effective_date)
        if key in seen:
            errors.append(f"row {number}: effective_date: duplicates row {seen[key]}")
            continue
        seen[key] = number
        new, existing = _pending(row, number, errors)
        if new is None:
            continue
        if existing is not None:
            if _amount_of(existing) == (row.amount, row.currency):
                report.unchanged.append(_describe(row))
            else:
                amount, currency = _amount_of(existing)
                errors.append(
                    f"row {number}: effective_date: {row.item} already has {amount} {currency} "
                    f"from {row.effective_date}; prices are never overwritten, use a new date"
                )
            continue
        to_create.append(new)
        held = services.review_reasons(new)
        report.added.append(
            _describe(row) + (f" (held for review: {'; '.join(held)})" if held else "")
        )
    if errors:
        raise CsvImportError(sorted(errors, key=_row_number))
    if not dry_run:
        try:
            with transaction.atomic():
                for obj in to_create:
                    services.record_price(obj)  # held as pending if it moved too far
        except IntegrityError as exc:
            raise CsvImportError([f"(database): {exc}"]) from None
    return report


def decode(data: bytes) -> str:
    """CSV bytes → text (UTF-8, with or without a byte-order mark, as spreadsheets write it)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CsvImportError(["(file): is not UTF-8 text"]) from None

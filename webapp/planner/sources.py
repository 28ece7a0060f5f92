"""Where a results page's inputs come from, rendered once per provenance.

Thousands of permalinks share a few provenances: the same catalog rows at
other utilizations and horizons. Two parts of a results page depend on the
provenance alone (and the language): the "Catalog rows used" table (a row
per catalog item, with its translated role, its source as a link, notes and
the fields it feeds) and the Source cell of each input the catalog feeds.
Rendering them took most of the page's template time (the table 5.6 ms and
the inputs' Source cells about 2 ms of a ~10 ms page on this project's
2-core VM). The permalink carries its provenance, which is all an English
rendering reads; a Chinese one also reads the catalog rows' Chinese names and
texts as they are now. So each provenance and language (and, under Chinese,
catalog version: :func:`~webapp.catalog.selectors.catalog_version`, which
every change of a row replaces) is rendered once and kept in a bounded
per-process memo.
``benchmarks/sources.py`` times it on 200 distinct provenances of the shipped catalog (CPU
time, 2-core VM): rendering without the memo 5.7 ms (English) and 19.8 ms (Chinese) a
page, a memo hit 0.06 ms; so the memo stays.

This is not a page cache: it holds catalog facts that every visitor of any
page with that provenance sees, never a visitor's form, token or message.
"""

from __future__ import annotations

import datetime
import functools
import pickle
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from django.apps import apps
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext, gettext_noop, override

from webapp.catalog.models import TranslatedTextMixin, is_chinese, is_stale_on, months_between
from webapp.catalog.resolver.notes import is_note, note_text
from webapp.catalog.selectors import catalog_version
from webapp.planner.fields import fed_fields, items_by_field, labels

MEMO_SIZE = 256
"""Provenance × language pairs kept per worker (each about 15 KB of HTML)."""


@dataclass(frozen=True)
class Sources:
    table: SafeString
    """The "Catalog rows used" table; empty when nothing came from the catalog."""
    cells: Mapping[str, SafeString]
    """The Source cell's content of each input the catalog feeds, by field path."""
    names: Mapping[str, str] = field(default_factory=dict)
    """The item of each role (the first one) as the table names it: ``"hosting"`` → the
    hosting option's name in the page's language."""


NO_SOURCES = Sources(table=SafeString(""), cells={})


def catalog_sources(provenance: list[dict[str, Any]]) -> Sources:
    """The rendered sources of a scenario resolved from these catalog rows (a permalink's
    provenance: JSON values only)."""
    if not provenance:
        return NO_SOURCES
    # The memo's key is the provenance pickled (14 µs; JSON with sorted keys took 70 µs a
    # page), unpickled only by _rendered: these bytes never come from outside. Equal bytes
    # are equal provenances; equal ones pickled differently (other key order) are simply
    # remembered twice. (marshal is faster but writes an object differently depending on
    # how many references to it exist at that moment.)
    # Under Chinese the names and texts come from the catalog rows as they are now: the
    # catalog's version is part of the key, so a row's new Chinese name or note replaces
    # what was remembered. An English rendering reads the provenance alone (no query).
    version = catalog_version() if is_chinese() and _reads_catalog(provenance) else ""
    return _rendered(get_language(), version, pickle.dumps(provenance))


def provenance_table(provenance: list[dict[str, Any]]) -> SafeString:
    """The rendered table of the catalog rows a scenario was resolved from ('' if none)."""
    return catalog_sources(provenance).table


CATALOG_PHRASES = frozenset({gettext_noop("n/a: no fee; electricity paid at the chosen tariff")})
"""Catalog sources that are a phrase rather than a citation: a source exactly equal to one of
these is shown in the page's language (any other source is a citation, shown as published)."""


NAMED_ROWS: dict[str, tuple[tuple[str, int], ...]] = {
    "catalog.gpumodel": (("catalog.gpumodel", 0),),
    "catalog.part": (("catalog.part", 0),),
    "catalog.partprice": (("catalog.part", 0),),
    "catalog.presetpart": (("catalog.part", 1),),
    "catalog.buildpreset": (("catalog.buildpreset", 0),),
    "catalog.cloudoffering": (("catalog.cloudoffering", 0),),
    "catalog.cloudrate": (("catalog.cloudoffering", 0),),
    "catalog.tariff": (("catalog.tariff", 0),),
    "catalog.tariffperiod": (("catalog.tariff", 0),),
    "catalog.hostingoption": (("catalog.hostingoption", 0),),
    "catalog.benchmark": (("catalog.benchmark", 0),),
    "catalog.gputhroughput": (("catalog.gpumodel", 0), ("catalog.benchmark", 1)),
}
"""The catalog rows with names in two languages that a provenance item's label shows, by the
item's model: each such row's model and the place of its slug in the item's natural key."""

NameBook = Mapping[tuple[str, str], list[tuple[str, str]]]
"""``(model, slug) → [(English name, name in the active language), …]`` (one pair a row)."""


def _named(item: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """``(model, slug)`` of each named row the item's label shows."""
    key = item.get("natural_key") or []
    for model, index in NAMED_ROWS.get(str(item.get("model", "")), ()):
        if index < len(key):
            yield model, str(key[index])


CATALOG_ROWS: dict[str, tuple[str, tuple[str, ...]]] = {
    "catalog.benchmark": ("slug", ()),
    "catalog.gpumodel": ("slug", ()),
    "catalog.gputhroughput": ("gpu_model__slug", ("gpu_model", "benchmark")),
    "catalog.part": ("slug", ()),
    "catalog.partprice": ("part__slug", ("part",)),
    "catalog.fxrate": ("base_currency", ()),
    "catalog.tariff": ("slug", ()),
    "catalog.hostingoption": ("slug", ()),
    "catalog.cloudoffering": ("slug", ()),
    "catalog.cloudrate": ("offering__slug", ("offering",)),
    "catalog.buildpreset": ("slug", ()),
}
"""Catalog rows whose names or texts a table shows in two languages, by model: the lookup of
the first part of the natural key and the rows its ``natural_key()`` reads."""

Rows = Mapping[str, list[Any]]
"""``model → rows``: the catalog rows read for a table's items (:func:`catalog_rows`)."""


def _key(item: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(str(part) for part in item.get("natural_key") or ())


def catalog_rows(items: Iterable[Mapping[str, Any]]) -> Rows:
    """The rows the items name (:data:`NAMED_ROWS`) and the rows they were resolved from (their
    ``model`` and ``natural_key``), read in one query per kind of row."""
    wanted: dict[str, set[str]] = {}
    for item in items:
        for model, slug in _named(item):
            wanted.setdefault(model, set()).add(slug)
        model, key = str(item.get("model", "")), _key(item)
        if model in CATALOG_ROWS and key:
            wanted.setdefault(model, set()).add(key[0])
    rows: dict[str, list[Any]] = {}
    for label, firsts in wanted.items():
        lookup, related = CATALOG_ROWS[label]
        found = apps.get_model(label)._default_manager.filter(**{f"{lookup}__in": firsts})
        rows[label] = list(found.select_related(*related) if related else found)
    return rows


def name_book(items: Iterable[Mapping[str, Any]], rows: Rows | None = None) -> NameBook:
    """The names of every row the items' labels show (``rows``: :func:`catalog_rows` of the
    items, read here when missing)."""
    items = list(items)
    rows = catalog_rows(items) if rows is None else rows
    book: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for label in {model for item in items for model, _slug in _named(item)}:
        for row in rows.get(label, ()):
            local = row.localized_name()
            # the resolver wrote the row's name in the language of its moment: an offering's
            # pricing mode reads "(on-demand)" or "(按需)"; either becomes the local name
            with override("en"):
                english = row.english_name()
            pairs = book.setdefault((label, row.slug), [])
            pairs += [(name, local) for name in dict.fromkeys((english, str(row))) if name]
    return book


def _reads_catalog(items: Iterable[Mapping[str, Any]]) -> bool:
    """Whether showing the items reads catalog rows (under Chinese: their names or texts)."""
    return any(
        str(item.get("model", "")) in CATALOG_ROWS or str(item.get("model", "")) in NAMED_ROWS
        for item in items
    )


TextBook = Mapping[tuple[str, tuple[str, ...]], TranslatedTextMixin]
"""``(model, natural key) → the row as stored now``: the rows whose texts a table shows."""


def text_book(items: Iterable[Mapping[str, Any]], rows: Rows | None = None) -> TextBook:
    """The catalog rows the items were resolved from, by model and natural key (``rows``:
    :func:`catalog_rows` of the items, read here when missing)."""
    items = list(items)
    rows = catalog_rows(items) if rows is None else rows
    keys = {(str(item.get("model", "")), _key(item)) for item in items}
    book: dict[tuple[str, tuple[str, ...]], TranslatedTextMixin] = {}
    for label, found in rows.items():
        for row in found:
            key = (label, tuple(str(part) for part in row.natural_key()))
            if key in keys and isinstance(row, TranslatedTextMixin):
                book[key] = row
    return book


def localized_text(item: Mapping[str, Any], name: str, book: TextBook | None = None) -> str:
    """The item's ``note`` or ``source`` in the active language.

    The resolver's own notes are codes with figures (the item's ``notes``:
    :mod:`webapp.catalog.resolver.notes`), put into words here. Any other text is the
    English the catalog row held when the item was resolved: under Chinese it is shown in
    the row's Chinese (its ``*_zh`` companion) when the row still holds the same English; a
    text the row no longer holds (the row's note was edited since, or the row is gone)
    stays as stored, so an old link never shows the translation of another text. So do the
    notes of permalinks made before the codes existed: their English, as stored. A source
    that is one of the :data:`CATALOG_PHRASES` (the whole text) is shown translated.
    ``book``: the rows read for all the items of a table at once (:func:`text_book`).
    """
    if name == "note":
        notes = item.get("notes")
        if notes and isinstance(notes, list) and all(is_note(n) for n in notes):
            return note_text(notes)
    text = str(item.get(name) or "")
    if not text or not is_chinese():
        return text
    if book is None:
        book = text_book([item])
    row = book.get((str(item.get("model", "")), _key(item)))
    chinese = row.translation_of(text) if row is not None else None
    if chinese is not None:
        return chinese
    return gettext(text) if text in CATALOG_PHRASES else text


def localized_label(item: Mapping[str, Any], book: NameBook | None = None) -> str:
    """The item's label with each catalog name in it in the active language (``name_zh``
    under Chinese; a row without one keeps its English name). ``book``: the names read for
    all the items of a table at once (:func:`name_book`); read for this item when missing."""
    label = str(item.get("label", ""))
    if not is_chinese():
        return label  # the resolver wrote the label with the catalog's English names
    if book is None:
        book = name_book([item])
    for named in _named(item):
        for english, local in book.get(named, ()):
            label = label.replace(english, local)
    return label


def rate_shown(rate: str | None) -> str:
    """An exchange rate to six significant digits (``0.143178``), not the 28 of its division."""
    if not rate:
        return ""
    try:
        return f"{Decimal(rate):.6g}"
    except InvalidOperation:
        return str(rate)


def shown_items(items: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Provenance items as a page shows them (:func:`shown_item`), their catalog names read
    together."""
    items = list(items)
    book: NameBook = {}
    texts: TextBook = {}
    if is_chinese():
        rows = catalog_rows(items)
        book, texts = name_book(items, rows), text_book(items, rows)
    return [shown_item(item, book, texts) for item in items]


def shown_item(
    item: Mapping[str, Any], book: NameBook | None = None, texts: TextBook | None = None
) -> dict[str, Any]:
    """A provenance item as a page shows it: names, notes and the fields it feeds in the page's
    language, the rate rounded."""
    names = labels()
    return {
        **item,
        "label": localized_label(item, book),
        "note": localized_text(item, "note", texts),
        "source": localized_text(item, "source", texts),
        "fx_rate": rate_shown(item.get("fx_rate")),
        "fields": fed_fields(dict(item)),
        "feeds": [names.get(path, path) for path in fed_fields(dict(item))],
    }


@functools.lru_cache(maxsize=MEMO_SIZE)
def _rendered(language: str, version: str, provenance: bytes) -> Sources:
    items = shown_items(pickle.loads(provenance))
    by_field = items_by_field(items)
    return Sources(
        table=SafeString(
            render_to_string("planner/includes/provenance_table.html", {"provenance": items})
        ),
        cells={
            path: SafeString(
                render_to_string("planner/includes/source_cell.html", {"sources": sources})
            )
            for path, sources in by_field.items()
        },
        names={
            str(item["role"]): str(item["label"])
            for item in reversed(items)  # the first of a role wins
            if item.get("role")
        },
    )


@dataclass(frozen=True)
class OldPrice:
    label: str
    """The catalog row, named in the page's language."""
    effective_date: datetime.date
    months: int
    """Whole months from the price's date to the plan's."""


def old_prices(provenance: list[dict[str, Any]], day: datetime.date) -> list[OldPrice]:
    """The dated prices of a plan's catalog rows that were stale on ``day`` (the plan's date;
    :func:`webapp.catalog.models.is_stale_on`), oldest first, each row once."""
    stale: dict[tuple[str, str], tuple[datetime.date, dict[str, Any]]] = {}
    for item in provenance:
        if item.get("amount") is None or not item.get("effective_date"):
            continue
        effective = datetime.date.fromisoformat(item["effective_date"])
        if is_stale_on(effective, day):
            stale.setdefault(
                (str(item.get("model")), repr(item.get("natural_key"))), (effective, item)
            )
    book = name_book(item for _, item in stale.values()) if is_chinese() else {}
    return [
        OldPrice(localized_label(item, book), effective, months_between(effective, day))
        for effective, item in sorted(stale.values(), key=lambda pair: pair[0])
    ]

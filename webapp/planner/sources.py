"""Where a results page's inputs come from, rendered once per provenance.

Thousands of permalinks share a few provenances: the same catalog rows at
other utilizations and horizons. Two parts of a results page depend on the
provenance alone (and the language): the "Catalog rows used" table (a row
per catalog item, with its translated role, its source as a link, notes and
the fields it feeds) and the Source cell of each input the catalog feeds.
Rendering them took most of the page's template time (the table 5.6 ms and
the inputs' Source cells about 2 ms of a ~10 ms page on this project's
2-core VM). The permalink carries its provenance, so a rendering never goes
stale: each provenance and language is rendered once and kept in a bounded
per-process memo.

This is not a page cache: it holds catalog facts that every visitor of any
page with that provenance sees, never a visitor's form, token or message.
"""

from __future__ import annotations

import functools
import pickle
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from webapp.planner.fields import fed_fields, items_by_field

MEMO_SIZE = 256
"""Provenance × language pairs kept per worker (each about 15 KB of HTML)."""


@dataclass(frozen=True)
class Sources:
    table: SafeString
    """The "Catalog rows used" table; empty when nothing came from the catalog."""
    cells: Mapping[str, SafeString]
    """The Source cell's content of each input the catalog feeds, by field path."""


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
    return _rendered(get_language(), pickle.dumps(provenance))


def provenance_table(provenance: list[dict[str, Any]]) -> SafeString:
    """The rendered table of the catalog rows a scenario was resolved from ('' if none)."""
    return catalog_sources(provenance).table


@functools.lru_cache(maxsize=MEMO_SIZE)
def _rendered(language: str, provenance: bytes) -> Sources:
    items = [{**item, "feeds": fed_fields(item)} for item in pickle.loads(provenance)]
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
    )

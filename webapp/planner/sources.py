"""The "Catalog rows used" table of a results page, rendered once per provenance.

Thousands of permalinks share a few provenances: the same catalog rows at
other utilizations and horizons. This table (a row per catalog item, with its
translated role, its source as a link, notes and the fields it feeds) took
about two thirds of the time a results page spent in its templates
(5.6 of 8.3 ms on this project's 2-core VM, with urlize the largest part).
Its HTML depends only on the provenance, which the permalink carries and
which therefore never changes under it, and on the language, so it is
rendered once per pair and kept in a bounded per-process memo.

This is not a page cache: it holds catalog facts that every visitor of any
page with that provenance sees, never a visitor's form, token or message.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from webapp.planner.fields import fed_fields

MEMO_SIZE = 256
"""Provenance × language pairs kept per worker (each about 10 KB of HTML)."""


def provenance_table(provenance: list[dict[str, Any]]) -> SafeString:
    """The rendered table of the catalog rows a scenario was resolved from ('' if none)."""
    if not provenance:
        return SafeString("")
    return _rendered(get_language(), json.dumps(provenance, sort_keys=True, default=str))


@functools.lru_cache(maxsize=MEMO_SIZE)
def _rendered(language: str, provenance: str) -> SafeString:
    items = [{**item, "feeds": fed_fields(item)} for item in json.loads(provenance)]
    return SafeString(
        render_to_string("planner/includes/provenance_table.html", {"provenance": items})
    )

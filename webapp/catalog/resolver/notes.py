"""The notes the resolver writes into the provenance, as codes and parameters.

A rule notes *what* it did (a code of :data:`NOTES`) and *with which figures*
(``params``: JSON values, a decimal as its text); :func:`note_text` puts them into
words in the active language. A provenance item carries the codes under ``notes``
(``[{"code": "scaling", "params": {"efficiency": "0.940", "gpus": 8}}]``), which a
page translates when it renders, and, for readers of the JSON (the API, the CSV),
the same notes in English under ``note``.

Permalinks made before the codes existed carry only the English ``note``: a page
shows it as stored (see :func:`webapp.planner.sources.localized_text`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

from django.utils.translation import gettext, gettext_noop


class Note(TypedDict):
    code: str
    params: dict[str, str | int]


NOTES: dict[str, str] = {
    "gpu_power": gettext_noop("%(count)s × %(load)s W load, %(idle)s W idle"),
    "gpu_power_servers": gettext_noop(
        "%(count)s × %(load)s W load, %(idle)s W idle, in %(servers)s servers"
    ),
    "hosting_fee": gettext_noop("%(per_u)s × %(units)s U + %(per_kw)s × %(kw)s kW; PUE %(pue)s"),
    "power_included": gettext_noop("not used: the hosting fee includes power"),
    "scaling": gettext_noop("× scaling efficiency %(efficiency)s for %(gpus)s GPUs"),
    "multi_node": gettext_noop(
        "× multi-node scaling efficiency %(efficiency)s for %(servers)s servers"
    ),
    "no_rework": gettext_noop("no rework fraction in the catalog: 0 used"),
    "overflow": gettext_noop(
        "on-demand rate of the same instance: pays the hours beyond the committed instances"
    ),
    "overflow_no_sibling": gettext_noop(
        "no on-demand sibling in the catalog: hours beyond the committed instances are billed "
        "at the committed rate"
    ),
    "overflow_no_sibling_rate": gettext_noop(
        "the on-demand sibling %(sibling)s has no rate on %(day)s: hours beyond the committed "
        "instances are billed at the committed rate"
    ),
    "months": gettext_noop("%(months)s months"),
    "count_given": gettext_noop("the count given in the selection"),
}
"""Every note the resolver writes, by code: the English template (translated in the .po)."""


def note(code: str, **params: Any) -> Note:
    """A note of :data:`NOTES` with its figures (a decimal kept as its exact text)."""
    if code not in NOTES:
        raise KeyError(f"no resolver note {code!r}")
    return {
        "code": code,
        "params": {
            name: value if isinstance(value, int) and not isinstance(value, bool) else str(value)
            for name, value in params.items()
        },
    }


def is_note(value: object) -> bool:
    """Whether ``value`` (read from a permalink) is a note this version can put into words."""
    return (
        isinstance(value, Mapping)
        and value.get("code") in NOTES
        and isinstance(value.get("params", {}), Mapping)
    )


def note_text(notes: Iterable[Mapping[str, Any]], translate: bool = True) -> str:
    """The notes in words, joined by ``"; "``: in the active language, or in English (the
    templates as written) with ``translate=False``."""
    words = gettext if translate else str
    return "; ".join(
        words(NOTES[str(item["code"])]) % dict(item.get("params") or {}) for item in notes
    )

"""Permalinks that carry the explicit scenario itself.

A results link holds everything needed to redraw the page: the explicit
scenario, and optionally its provenance and the list of fields the user
overrode. Nothing refers to catalog rows by id, so the figures behind a link
never change when the catalog does.

The payload is compact JSON, zlib-compressed when that is shorter, base64url
encoded and signed (:mod:`django.core.signing`, salted): a link altered by
hand — including its provenance claims — is refused as tampered rather than
shown with figures or sources nobody computed. Links stay valid while
``DJANGO_SECRET_KEY`` (or a key in ``SECRET_KEY_FALLBACKS``) does.

Payload keys: ``s`` the scenario, ``p`` provenance, ``o`` overrides, ``c``
the catalog selection and ``u`` the uncertainty ranges the user changed, as
``[path, low, mode, high]`` lists (absent: every range is the scenario's
default, :func:`costmodel.ranges.default_ranges`).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils.translation import gettext as _

from costmodel import Scenario, ScenarioError, parse_scenario
from costmodel.ranges import Range, check_ranges, customized, with_defaults

SALT = "planner.permalink.v1"

CODE_ROUTES = (
    "planner:results",
    "planner:results-csv",
    "planner:results-analysis",
    "planner:results-scenario",
)
"""The routes whose URL holds a code (and the planner's ``?from=``, see :func:`link_urls`)."""


class PermalinkError(ValueError):
    """The link is not one this app made (damaged, truncated or altered)."""


@dataclass(frozen=True)
class Permalink:
    scenario: Scenario
    provenance: list[dict[str, Any]] = field(default_factory=list)
    overrides: list[str] = field(default_factory=list)
    selection: dict[str, Any] | None = None
    ranges: list[Range] | None = None
    """The uncertainty ranges of the analyses; ``None``: the scenario's defaults
    (read them as ``link.ranges or default_ranges(link.scenario)``)."""


def encode(
    scenario: Scenario,
    provenance: list[dict[str, Any]] | None = None,
    overrides: list[str] | None = None,
    selection: dict[str, Any] | None = None,
    ranges: Sequence[Range] | None = None,
) -> str:
    """The URL-safe code of a scenario (and its provenance, overrides, catalog selection and
    uncertainty ranges; only ranges that differ from the scenario's defaults are written)."""
    payload: dict[str, Any] = {"s": scenario.model_dump(mode="json", exclude_none=True)}
    if provenance:
        # Empty entries (no FX rate, no note…) read back as missing: keep links short.
        payload["p"] = [
            {k: v for k, v in item.items() if v not in (None, "", False, [])} for item in provenance
        ]
    if overrides:
        payload["o"] = sorted(set(overrides))
    if selection:
        payload["c"] = selection
    custom = customized(scenario, ranges or [])
    if custom:
        payload["u"] = [[r.path, r.low, r.mode, r.high] for r in custom]
    return signing.dumps(payload, salt=SALT, compress=True)


def encode_link(link: Permalink) -> str:
    """:func:`encode` of a decoded (or assembled) :class:`Permalink`."""
    return encode(link.scenario, link.provenance, link.overrides, link.selection, link.ranges)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _ranges(scenario: Scenario, entries: Any) -> list[Range] | None:
    """The payload's ``u`` entries as the full list of ranges, checked against the scenario."""
    if entries is None:
        return None
    if not isinstance(entries, list) or not all(
        isinstance(e, list)
        and len(e) == 4
        and isinstance(e[0], str)
        and all(_number(v) for v in e[1:])
        for e in entries
    ):
        raise PermalinkError(_("The link's uncertainty ranges cannot be read."))
    custom = [Range(e[0], float(e[1]), float(e[2]), float(e[3])) for e in entries]
    try:
        check_ranges(scenario, custom)
    except ScenarioError as exc:
        raise PermalinkError(
            _("The link holds invalid uncertainty ranges: %(errors)s") % {"errors": exc}
        ) from None
    return with_defaults(scenario, custom)


def decode(code: str) -> Permalink:
    """Read a code made by :func:`encode`; :class:`PermalinkError` for anything else."""
    if not code or len(code) > settings.MAX_REQUEST_LINE_BYTES:  # no link could hold it
        raise PermalinkError(_("The link is too long or empty."))
    try:
        payload = signing.loads(code, salt=SALT)
    except signing.BadSignature:
        raise PermalinkError(_("The link is damaged or was altered.")) from None
    except (ValueError, UnicodeDecodeError, OverflowError, zlib.error):
        raise PermalinkError(_("The link cannot be read.")) from None
    if not isinstance(payload, dict) or not isinstance(payload.get("s"), dict):
        raise PermalinkError(_("The link does not hold a scenario."))
    try:
        scenario = parse_scenario(payload["s"])
    except ScenarioError as exc:
        raise PermalinkError(
            _("The link holds an invalid scenario: %(errors)s") % {"errors": exc}
        ) from None
    provenance = payload.get("p", [])
    overrides = payload.get("o", [])
    if not isinstance(provenance, list) or not all(isinstance(p, dict) for p in provenance):
        raise PermalinkError(_("The link's provenance cannot be read."))
    if not isinstance(overrides, list) or not all(isinstance(o, str) for o in overrides):
        raise PermalinkError(_("The link's overrides cannot be read."))
    selection = payload.get("c")
    if selection is not None and not isinstance(selection, dict):
        raise PermalinkError(_("The link's catalog selection cannot be read."))
    return Permalink(
        scenario=scenario,
        provenance=provenance,
        overrides=overrides,
        selection=selection,
        ranges=_ranges(scenario, payload.get("u")),
    )


def link_urls(code: str) -> list[str]:
    """Every URL the app makes with ``code`` in it: the results page, its CSV and analysis,
    and the planner reopened on its inputs."""
    return [reverse(name, args=[code]) for name in CODE_ROUTES] + [
        f"{reverse('planner:home')}?from={code}"
    ]


def request_line_bytes(code: str) -> int:
    """Length of the longest request line a browser sends for a URL holding ``code`` [bytes]:
    ``GET <url> HTTP/1.1``."""
    return max(len(f"GET {url} HTTP/1.1".encode()) for url in link_urls(code))


def fits_in_link(code: str) -> bool:
    """Whether every URL holding ``code`` is one the server accepts
    (``settings.MAX_REQUEST_LINE_BYTES``): a code that does not fit is never given out."""
    return request_line_bytes(code) <= settings.MAX_REQUEST_LINE_BYTES

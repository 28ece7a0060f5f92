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

from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_noop, ngettext_lazy, override, pgettext_lazy


class Note(TypedDict):
    code: str
    params: dict[str, str | int]


NOTES: dict[str, str | Promise] = {
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
    "time_of_use": gettext_noop(
        "hour-weighted mean of %(periods)s time-of-use periods over %(hours)s h"
    ),
    "time_of_use_period": gettext_noop("%(period)s %(hours)s h × %(price)s"),
    "resale_fit": gettext_noop(
        "fitted from %(count)s used-price observation(s) of %(gpu)s in %(currency)s (least "
        "squares of ln price on age, newest %(newest)s): %(retention)s a year"
    ),
    "resale_stated": gettext_noop("the preset's stated figure (no fit for %(gpu)s)"),
    "fit_too_few": gettext_noop(
        "%(count)s observation(s) with an age; a fit needs at least %(minimum)s"
    ),
    "fit_not_positive": gettext_noop("a price is not positive"),
    "fit_one_age": gettext_noop("every observation has the same age: no slope to fit"),
    "fit_gains": gettext_noop(
        "the fitted retention %(retention)s a year is above %(maximum)s: the observations say "
        "the card gains value with age"
    ),
    "fit_loses": gettext_noop(
        "the fitted retention %(retention)s a year is below %(minimum)s: the card would lose "
        "more than four fifths of its value a year"
    ),
    "commit_no_work": gettext_noop("nothing committed: the workload asks for no work in any month"),
    "commit_none_cheapest": gettext_noop(
        "nothing committed is the cheapest: renting every hour on demand costs %(cost)s over "
        "%(months)d months in present value, against %(other)s with one committed instance "
        "(0 to %(top)d weighed)"
    ),
    "commit_cheapest": ngettext_lazy(
        "%(count)d committed instance is the cheapest: the rent side costs %(cost)s over "
        "%(months)d months in present value, against %(none)s with none (0 to %(top)d "
        "weighed, the most the busiest month needs)",
        "%(count)d committed instances are the cheapest: the rent side costs %(cost)s "
        "over %(months)d months in present value, against %(none)s with none (0 to "
        "%(top)d weighed, the most the busiest month needs)",
        "count",
    ),
}
"""Every note the resolver writes, by code: the English template (translated in the .po); a
note whose words depend on a count is a plural template, chosen by its ``count``."""

WORDS: dict[str, dict[str, Promise]] = {
    "period": {
        "peak": pgettext_lazy("time-of-use period", "peak"),
        "flat": pgettext_lazy("time-of-use period", "flat"),
        "valley": pgettext_lazy("time-of-use period", "valley"),
    },
}
"""Parameters that are words of the catalog's rather than figures (a time-of-use period's
name), by parameter: those known here are shown in the page's language, any other as
stored."""


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
    if not translate:
        with override(None):
            return "; ".join(_words(item, translate) for item in notes)
    return "; ".join(_words(item, translate) for item in notes)


def _words(item: Mapping[str, Any], translate: bool) -> str:
    template = NOTES[str(item["code"])]
    params = dict(item.get("params") or {})
    for name, words in WORDS.items():
        if translate and str(params.get(name)) in words:
            params[name] = str(words[str(params[name])])
    if isinstance(template, str):
        return (gettext(template) if translate else template) % params
    return str(template % params)  # a plural template: ngettext_lazy, chosen by its count

"""The Jinja2 environment of the pages rendered with Jinja2: the results page.

Every other page uses Django's template language. The results page is the
one visitors open most, at thousands of distinct permalinks, and it is
rendered afresh for each: its tables and sentences took ~5 ms in Django's
template language and take under half of that in Jinja2, which compiles
templates to Python. Its layout (``webapp/jinja2/layout.html``) mirrors
``webapp/templates/base.html``; ``tests/webapp/test_templating.py`` holds the two
to the same header.

What the templates get, and the Django tag each stands for:

- ``_("…")``: ``{% translate "…" %}`` (``django.utils.translation.gettext``, or the
  active language's own, bound once per page: :func:`translations`). Written
  with a literal and no arguments, so that ``makemessages`` extracts it from the
  ``.html`` file; a sentence with values is ``_("… %(x)s …")|format(x=…)``, and a
  sentence with a plural is made in Python (``ngettext``).
- ``url(name, *args)``: ``{% url %}``; ``static(path)``: ``{% static %}``;
  ``code_url(name, code)``: ``{% url name code %}`` for a permalink route, without
  re-quoting the long code (:func:`webapp.planner.permalink.code_url`).
- ``get_language()`` and ``languages()``: the i18n tags of the language switcher.
- the filters ``money``, ``percent`` and ``months`` of ``planner_format``, and
  ``date``, the ``date`` filter with a format name.
- ``csrf_input`` (:func:`csrf`), ``request`` and ``messages``.

Autoescaping is on, as in Django's templates: a translation or a value is
escaped; a ``SafeString`` (a fragment rendered earlier) is not.
"""

from __future__ import annotations

import datetime
import functools
from typing import Any

import jinja2
from django.conf import settings
from django.http import HttpRequest
from django.template.backends.utils import csrf_input
from django.templatetags.static import static as django_static
from django.urls import get_script_prefix, reverse
from django.utils import formats, timezone
from django.utils.functional import SimpleLazyObject
from django.utils.translation import get_language, get_language_info, gettext, trans_real

from webapp.planner import formatting
from webapp.planner.permalink import code_url

ENGINE = "jinja2"
"""The alias of this environment's template engine (Django names it after its backend):
``render(…, using=ENGINE)`` finds a Jinja2 template without first looking for it among
the Django templates (~8 µs a lookup)."""


def url(name: str, *args: Any) -> str:
    """``reverse(name, args)``; a URL without arguments is worked out once per script prefix."""
    if args:
        return reverse(name, args=args)
    return _fixed_url(get_script_prefix(), name)


@functools.lru_cache(maxsize=64)
def _fixed_url(script_prefix: str, name: str) -> str:
    return reverse(name)


@functools.lru_cache(maxsize=64)
def static(path: str) -> str:
    """``{% static path %}``, worked out once: the static files of a running process do not
    change (collectstatic runs before it starts)."""
    return django_static(path)


def translations() -> dict[str, Any]:
    """Context that translates a whole page in the active language: ``_``, that language's
    ``gettext`` looked up once. Django's ``gettext`` finds the active language anew at every
    call (a context-local lookup, ~5 µs); a page of a hundred strings paid half a millisecond
    for it. Pass it with the context of a page rendered for one language."""
    return {"_": trans_real.catalog().gettext}


def languages() -> list[dict[str, Any]]:
    """The languages of the switcher: each with its ``code`` and ``name_local``."""
    return [get_language_info(code) for code, _name in settings.LANGUAGES]


def date(value: datetime.datetime | datetime.date, format_name: str = "DATE_FORMAT") -> str:
    """A date in the active language's format, in the current time zone (as Django's
    templates show aware datetimes)."""
    if isinstance(value, datetime.datetime):
        value = timezone.localtime(value)
    return formats.date_format(value, format_name)


def csrf(request: HttpRequest) -> dict[str, Any]:
    """Context processor: ``csrf_input`` masked once per page, as ``{% csrf_token %}`` is (the
    Jinja2 backend's own ``csrf_input`` masks the token anew at every form)."""
    return {"csrf_input": SimpleLazyObject(lambda: csrf_input(request))}


class Environment(jinja2.Environment):
    """Jinja2, reading ``row.label`` from a dict as Django's templates do: the item first.

    Jinja2 tries the attribute first and takes the item when that raises
    ``AttributeError``: for the dicts a results page is made of (its input rows,
    the engine's figures) every lookup raised and caught an exception, ~2 µs
    each, a third of the inputs table's time. Only plain dicts change: an item
    named like a dict method (``row.items``) is now the item, as in Django.
    """

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


def environment(**options: Any) -> jinja2.Environment:
    env = Environment(**options)
    env.globals.update(
        _=gettext,
        url=url,
        code_url=code_url,
        static=static,
        get_language=get_language,
        languages=languages,
    )
    env.filters.update(
        money=formatting.money,
        percent=formatting.percent,
        months=formatting.months,
        date=date,
    )
    return env

"""Template tags over the cost lines (:mod:`costmodel.lines`): what a page needs of them."""

from __future__ import annotations

from django import template
from django.utils.html import json_script
from django.utils.safestring import SafeString
from django.utils.text import get_text_list
from django.utils.translation import gettext as _

from costmodel.lines import LINES, colours

register = template.Library()


@register.simple_tag
def cost_line_colours() -> SafeString:
    """``<script id="cost-line-colours" type="application/json">``: each line's chart colour
    by key, which the results page's charts read."""
    return json_script(colours(), "cost-line-colours")


@register.simple_tag
def occasional_cost_lines() -> str:
    """The lines charted only when at work, named in the active language: ``Cloud burst,
    Replacement, Loan payments and Committed instances``."""
    return get_text_list([_(line.label) for line in LINES if not line.always_charted], _("and"))

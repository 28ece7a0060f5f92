"""Small helpers shared by the planner's view tests."""

import json
import re

from webapp.planner.permalink import decode


def json_script(html: str, element_id: str) -> object:
    """The data of a ``{{ value|json_script:element_id }}`` element of a page."""
    match = re.search(
        rf'<script id="{element_id}" type="application/json">(.*?)</script>', html, re.S
    )
    assert match, f"no json_script element #{element_id}"
    return json.loads(match.group(1))


def code_of(url: str) -> str:
    """The permalink code of a results URL (``/r/<code>``)."""
    assert url.startswith("/r/"), url
    return url.removeprefix("/r/")


def link_of(url: str):
    return decode(code_of(url))

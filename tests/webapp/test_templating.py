"""The Jinja2 pages (webapp/templating.py): the same frame as the Django-template pages,
translated, escaped and with one CSRF token per page."""

import re

import pytest
from django.urls import reverse

from costmodel import parse_scenario
from webapp.planner.permalink import encode


def frame(page: str) -> str:
    """The page frame up to the end of the site header, with what varies per page or per
    visit left out: the title, the masked CSRF token and the language switcher's return path;
    runs of white space read as one space."""
    head = page[: page.index("</header>")]
    head = re.sub(r"<title>.*?</title>", "<title/>", head, flags=re.S)
    head = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "csrf", head)
    head = re.sub(r'name="next" type="hidden" value="[^"]*"', "next", head)
    return " ".join(head.split())


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_results_page_has_the_frame_of_every_other_page(client, scenario, language):
    results = client.get(
        reverse("planner:results", args=[encode(scenario)]), HTTP_ACCEPT_LANGUAGE=language
    )
    saved_list = client.get(reverse("planner:saved-list"), HTTP_ACCEPT_LANGUAGE=language)
    assert results.status_code == saved_list.status_code == 200
    assert frame(results.content.decode()) == frame(saved_list.content.decode())
    assert f'<html lang="{language}">' in results.content.decode()


def test_a_translation_with_a_percent_sign_is_shown_with_one(client, scenario_data):
    # No break-even utilization: the translated text holds a literal "%".
    scenario_data["rent"]["hourly_rate"] = 0.01
    code = encode(parse_scenario(scenario_data))
    english = client.get(reverse("planner:results", args=[code]), HTTP_ACCEPT_LANGUAGE="en")
    chinese = client.get(reverse("planner:results", args=[code]), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "none between 0 and 100 %<" in english.content.decode()
    assert "0 到 100 % 之间无解" in chinese.content.decode()


def test_values_are_escaped_and_the_page_has_one_csrf_token(client, scenario_data):
    scenario_data["name"] = '<b>"x"</b> & 100 %'
    code = encode(parse_scenario(scenario_data))
    page = client.get(reverse("planner:results", args=[code])).content.decode()
    assert "<b>" not in page
    assert "&lt;b&gt;&#34;x&#34;&lt;/b&gt; &amp; 100 %" in page
    tokens = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert len(tokens) == 2 and len(set(tokens)) == 1


def _jinja(source: str):
    from django.template import engines

    return engines["jinja2"].env.from_string(source)


def test_a_dotted_name_reads_a_dicts_item_first_as_djangos_templates_do():
    from jinja2 import UndefinedError

    row = {"label": "<b>Price</b>", "items": "an item named like a dict method"}
    assert _jinja("{{ row.label }}|{{ row.items }}").render(row=row) == (
        "&lt;b&gt;Price&lt;/b&gt;|an item named like a dict method"
    )

    class Figures:
        savings = 42.0

    assert _jinja("{{ f.savings }}|{{ f['savings'] }}").render(f=Figures()) == "42.0|42.0"
    with pytest.raises(UndefinedError):  # a missing key is still an error, not ""
        _jinja("{{ row.missing }}").render(row=row)

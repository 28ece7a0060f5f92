"""One decision everywhere: one saved scenario, driven through every page, file and API answer
that states a verdict, shows one verdict code (webapp.decided decides it once).

The scenario is the issue's case: building is ahead on the point figures, but in fewer than
half of the Monte Carlo's draws — "uncertain" on its results page, and before this was
decided once, a green "Build" on the saved list and the compare page."""

from __future__ import annotations

import csv
import io
import re
import zipfile

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from costmodel import parse_scenario
from webapp.planner.permalink import encode
from webapp.scenarios.models import SavedScenario

pytestmark = pytest.mark.django_db


def codes_in(html: str) -> set[str]:
    return set(re.findall(r'data-verdict="([a-z_]+)"', html))


def test_one_saved_scenario_states_one_verdict_code_everywhere(client, scenario_data):
    # just past break-even in present value at 8 % (6.05 %; in cash 5.1 %)
    scenario_data["workload"]["utilization"] = 0.062
    other = dict(scenario_data, workload={"kind": "steady", "utilization": 0.8})
    for name, data in (("near break-even", scenario_data), ("busy", other)):
        code = encode(parse_scenario(data))
        response = client.post(reverse("planner:save"), {"code": code, "name": name})
        assert response.status_code == 302
    item = SavedScenario.objects.get(name="near break-even")
    busy = SavedScenario.objects.get(name="busy")
    assert item.decision_savings > 0  # building is ahead on the point figures…
    assert item.decision_probability_agreeing < 0.5  # …in fewer than half of the draws
    expected = "uncertain"
    assert item.decision_code == expected

    found: dict[str, set[str]] = {}
    page = client.get(reverse("planner:saved-detail", args=[item.pk]), HTTP_ACCEPT_LANGUAGE="en")
    found["results page"] = codes_in(page.content.decode())
    found["print view (the results page printed)"] = found["results page"]
    analysis = client.get(reverse("planner:saved-analysis", args=[item.pk])).json()
    found["analysis document"] = {analysis["verdict"]["code"]}

    listed = client.get(reverse("planner:saved-list"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    row = listed.split(f'data-saved="{item.pk}"')[1].split("</tr>")[0]
    found["saved list"] = codes_in(row)

    ids = {"ids": [str(item.pk), str(busy.pk)]}
    compared = client.get(reverse("planner:saved-compare"), ids, HTTP_ACCEPT_LANGUAGE="en")
    entry = compared.content.decode().split(f'<li data-saved="{item.pk}"')[1].split("</li>")[0]
    found["compare page"] = codes_in(entry)

    summary = client.get(reverse("planner:saved-summary-csv"), ids, HTTP_ACCEPT_LANGUAGE="en")
    rows = list(csv.reader(io.StringIO(summary.content.decode("utf-8-sig"))))
    column = rows[0].index("Verdict code")
    found["summary CSV"] = {r[column] for r in rows[1:] if r[0] == "near break-even"}

    zipped = client.get(reverse("planner:saved-zip", args=[item.pk]), HTTP_ACCEPT_LANGUAGE="en")
    with zipfile.ZipFile(io.BytesIO(zipped.content)) as archive:
        decision = archive.read("decision.csv").decode("utf-8-sig")
    found["finance zip"] = {
        r[1] for r in csv.reader(io.StringIO(decision)) if r[:1] == ["Verdict code"]
    }

    book = client.get(reverse("planner:saved-workbook", args=[item.pk]), HTTP_ACCEPT_LANGUAGE="en")
    sheet = load_workbook(io.BytesIO(book.content))["Summary"]
    found["workbook"] = {r[3] for r in sheet.iter_rows(values_only=True) if r[0] == "verdict"}

    api = client.get(f"/api/v1/scenarios/{item.pk}").json()
    found["API"] = {api["decision"]["code"]}

    assert found == {where: {expected} for where in found}, found
    assert busy.decision_code == "build"  # and the other one is decided on its own figures
    # the figures stay, labelled as cash
    assert "Savings of building over 36 months (cash, resale credited)" in page.content.decode()

"""A scenario saved through the API with amounts near float64's limit renders everywhere.

Its fields are within bounds and its headline figures finite, so the save is
accepted (201); then its monthly CSV and analysis document must be served too,
with finite numbers only (JSON has no Infinity).
"""

import json
import math

import pytest

from tests.webapp.api.conftest import post_json

pytestmark = pytest.mark.django_db


def strict_json(text: str) -> object:
    def refuse(constant: str) -> object:
        raise AssertionError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize(
    ("part", "field", "value"),
    [
        ("build", "capex", 1e307),
        ("build", "gpu_throughput", 1e22),
        ("rent", "gpu_throughput", 1e22),
    ],
)
def test_a_saved_scenario_with_a_huge_input_has_its_csv_and_analysis(
    client, scenario_data, part, field, value
):
    scenario_data[part][field] = value
    created = post_json(client, "/api/v1/scenarios", {"name": "huge", "scenario": scenario_data})
    assert created.status_code == 201
    saved = created.json()["id"]

    monthly = client.get(f"/saved/{saved}/projection.csv")
    assert monthly.status_code == 200
    assert "inf" not in monthly.content.decode().lower()

    analysis = client.get(f"/saved/{saved}/analysis.json")
    assert analysis.status_code == 200
    mean = strict_json(analysis.content.decode())["uncertainty"]["savings"]["mean"]
    assert math.isfinite(mean)

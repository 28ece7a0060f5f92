"""The shipped presets' texts explain; the figures they rest on live in dated rows."""

import json
import re
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
RATE = re.compile(r"\d[\d ,.]*\s*(USD|CNY)\s*(per|a)\s*kW|每 kW 每月 \d")


def test_no_preset_rationale_quotes_a_hosting_rate_that_a_dated_row_would_outdate():
    # The US colocation fee moved from 184 to 194.95 USD per kW-month (CBRE H2 2025) while
    # the presets' hosting rationale still said 184: the page showed both.
    presets = [
        row["fields"]
        for row in json.loads((FIXTURES / "07-presets.json").read_text(encoding="utf-8"))
        if row["model"] == "catalog.buildpreset"
    ]
    assert presets
    quoting = [
        (preset["slug"], field)
        for preset in presets
        for field in ("hosting_rationale", "hosting_rationale_zh")
        if RATE.search(preset.get(field) or "")
    ]
    assert not quoting

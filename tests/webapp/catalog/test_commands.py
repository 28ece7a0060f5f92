"""Management commands: thin wrappers, exit status 2 and `field: message` lines on bad input."""

import io
import json

import pytest
from django.core.management import call_command

from costmodel import parse_scenario
from webapp.catalog.fixtures_io import FIXTURE_FILES, FIXTURES_DIR
from webapp.catalog.models import PartPrice


def run(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(*args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exc:
        code = int(exc.code)
    return code, out.getvalue(), err.getvalue()


RESOLVE_MINI = [
    "resolve", "--preset", "duo", "--offering", "cloud-1", "--tariff", "flat", "--hosting",
    "desk", "--benchmark", "bench", "--utilization", "0.5", "--horizon", "24", "--currency",
    "CNY", "--as-of", "2024-06-01",
]  # fmt: skip


def test_load_catalog_loads_the_fixtures_and_can_run_twice(db):
    status, out, err = run("load_catalog")
    assert (status, err) == (0, "")
    assert out.startswith(f"read {len(FIXTURE_FILES)} fixture files: added ")
    count = PartPrice.objects.count()
    assert run("load_catalog") == (
        0,
        f"read {len(FIXTURE_FILES)} fixture files: added 0 rows, "
        "0 shipped values differ from the database (kept)\n",
        "",
    )
    assert PartPrice.objects.count() == count > 0


REPORT_LINES = ("warning: ", "freshness: ", "stale: ", "estimates: ", "sources: ", "unsourced: ")
"""Lines catalog_check prints whatever the outcome: warnings, freshness and sources figures."""


def test_catalog_check_passes_on_the_shipped_catalog(shipped):
    code, out, err = run("catalog_check")
    assert (code, err) == (0, "")
    assert out.splitlines()[-1].startswith("catalog OK")
    assert all(line.startswith(REPORT_LINES) for line in out.splitlines()[:-1])


def test_catalog_check_exits_1_with_a_list_of_problems(mini):
    PartPrice.objects.filter(part__slug="cpu").update(source="")
    code, out, err = run("catalog_check", "--as-of", "2024-06-01")
    assert code == 1
    assert [line for line in out.splitlines() if not line.startswith(REPORT_LINES)] == [
        "catalog.partprice cpu/2024-01-01: no source (give one, or mark the figure an estimate)"
    ]
    assert "1 problem(s) found" in err


def test_catalog_export_writes_the_shipped_files(shipped, tmp_path):
    code, out, _ = run("catalog_export", "--output", str(tmp_path))
    assert code == 0
    assert out.count("wrote ") == len(FIXTURE_FILES)
    for name in FIXTURE_FILES:
        assert (tmp_path / name).read_bytes() == (FIXTURES_DIR / name).read_bytes()
    assert run("catalog_export", "--output", str(tmp_path))[1].count("unchanged ") == 7


def test_catalog_import_adds_rows(mini, tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text(
        "item_type,item,amount,currency,effective_date,source\n"
        "part,cpu,1800,CNY,2025-03-01,https://example.com\n"
    )
    code, out, _ = run("catalog_import", str(path), "--apply")
    assert code == 0
    assert "added part cpu 1800 CNY from 2025-03-01" in out
    assert PartPrice.objects.filter(part__slug="cpu").count() == 2


@pytest.mark.parametrize("flags", [[], ["--dry-run"]])
def test_catalog_import_is_a_dry_run_unless_told_to_apply(mini, tmp_path, flags):
    path = tmp_path / "prices.csv"
    path.write_text(
        "item_type,item,amount,currency,effective_date,source\n"
        "part,cpu,1800,CNY,2025-03-01,https://example.com\n"
    )
    code, out, _ = run("catalog_import", str(path), *flags)
    assert code == 0
    assert "would add part cpu" in out
    assert out.splitlines()[-1].endswith("(dry run: nothing written; --apply writes)")
    assert PartPrice.objects.filter(part__slug="cpu").count() == 1


@pytest.mark.parametrize(
    ("bad_row", "error"),
    [
        ("part,psu,500,CNY,2025-03-01,https://exa\x00mple.com\n",
         "row 3: source: contains a NUL character, which the database cannot store"),
        ('part,psu,500,CNY,2025-03-01,"https://example.com\npart,case,300,CNY,2025-03-01,x\n',
         "row 3: a quoted cell is never closed (a '\"' is missing); the rest of the file was not "
         "read"),
    ],
)  # fmt: skip
def test_catalog_import_names_the_row_of_a_nul_byte_or_an_unclosed_quote(
    mini, tmp_path, bad_row, error
):
    path = tmp_path / "prices.csv"
    path.write_text(
        "item_type,item,amount,currency,effective_date,source\n"
        "part,cpu,1800,CNY,2025-03-01,https://example.com\n" + bad_row
    )
    before = PartPrice.objects.count()
    code, out, err = run("catalog_import", str(path), "--apply")
    assert (code, out) == (2, "")
    assert err.splitlines() == [error, "nothing was written"]
    assert PartPrice.objects.count() == before


def test_catalog_import_of_a_bad_file_exits_2_and_writes_nothing(mini, tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text(
        "item_type,item,amount,currency,effective_date,source\n"
        "part,cpu,1800,CNY,2025-03-01,https://example.com\n"
        "part,psu,lots,CNY,2025-03-01,https://example.com\n"
    )
    before = PartPrice.objects.count()
    code, _, err = run("catalog_import", str(path), "--apply")
    assert code == 2
    assert err.splitlines()[0].startswith("row 3: amount:")
    assert "nothing was written" in err
    assert "Traceback" not in err
    assert PartPrice.objects.count() == before


def test_catalog_import_of_a_missing_file_exits_2(mini, tmp_path):
    code, _, err = run("catalog_import", str(tmp_path / "nope.csv"))
    assert code == 2
    assert err.startswith("csv_file: cannot read")


def test_resolve_prints_a_scenario_the_engine_accepts(mini):
    code, out, err = run(*RESOLVE_MINI)
    assert (code, err) == (0, "")
    scenario = parse_scenario(json.loads(out))
    assert scenario.build.capex == pytest.approx(16_800)
    assert scenario.workload.utilization == 0.5


def test_resolve_with_provenance_prints_both(mini):
    code, out, _ = run(*RESOLVE_MINI, "--provenance")
    data = json.loads(out)
    assert code == 0
    assert set(data) == {"scenario", "provenance", "defaulted"}
    assert any(p["role"] == "fx" for p in data["provenance"])
    assert data["defaulted"] == []  # the command line named every row


def test_resolve_takes_a_custom_parts_list_and_a_workload(mini):
    args = [a for a in RESOLVE_MINI if a not in ("--preset", "duo", "--utilization", "0.5")]
    code, out, err = run(
        *args,
        "--part", "gpu-x:2", "--part", "cpu", "--scaling-efficiency", "0.8",
        "--workload", '{"kind": "tidal", "active_days_per_month": 4}',
    )  # fmt: skip
    assert code == 0
    scenario = parse_scenario(json.loads(out))
    assert scenario.build.capex == pytest.approx(14_000 + 2_000)
    assert scenario.workload.kind == "tidal"
    # A custom box has no preset: the running costs it was given are said, not hidden.
    said = [line.split(":")[0] for line in err.splitlines()]
    assert said == [
        "build.maintenance_rate_per_year defaulted to 0.05",
        "build.residual_value_retention_per_year defaulted to 0.7",
        "build.ops_monthly defaulted to 0",
        "build.useful_life_months defaulted to none",
    ]


def test_resolve_names_the_bad_fields_and_exits_2(mini):
    args = list(RESOLVE_MINI)
    args[args.index("cloud-1")] = "nope"
    args[args.index("CNY")] = "EUR"
    code, out, err = run(*args)
    assert code == 2
    assert out == ""
    assert err.splitlines() == ["currency: must be 'CNY' or 'USD'"]
    args[args.index("EUR")] = "CNY"
    code, out, err = run(*args)
    assert err.splitlines() == ["cloud_offering: no cloud offering with slug 'nope'"]


def test_resolve_reports_missing_fields_without_a_traceback(db):
    code, _, err = run("resolve")
    assert code == 2
    lines = err.splitlines()
    assert "benchmark: is required" not in lines  # it has a default on the command line
    assert "workload: is required" in lines
    assert "currency: is required" in lines
    assert "Traceback" not in err


def test_resolve_names_a_bad_workload_json(mini):
    args = [a for a in RESOLVE_MINI if a not in ("--utilization", "0.5")]
    code, _, err = run(*args, "--workload", "{bad")
    assert code == 2
    assert err.startswith("workload: is not valid JSON")


def test_catalog_import_names_every_bad_row_and_an_oversized_cell_and_exits_2(mini, tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text(
        "item_type,item,amount,currency,effective_date,source\n"
        "part,no-such-part,1800,CNY,2025-03-01,https://example.com\n"
        "part,psu,1e3,CNY,2025-03-01,https://example.com\n"
        "part,cpu,1800,CNY,2025-03-01," + "x" * 200_000 + "\n"
    )
    before = PartPrice.objects.count()
    code, out, err = run("catalog_import", str(path))
    assert code == 2
    assert err.splitlines() == [
        "row 2: item: no part with slug 'no-such-part'",
        "row 3: amount: must be written as plain decimal digits with '.' for decimals, such as "
        "1234 or 1234.56 (no '+', grouping or exponent): '1e3'",
        "row 4: a cell is longer than 131 072 characters; the rest of the file was not read",
        "nothing was written",
    ]
    assert out == ""
    assert PartPrice.objects.count() == before

"""Freshness as a number: the share of current rows older than 180 days, the stale rows listed by
how much they move a default verdict, and catalog_check stating both figures."""

import datetime
from decimal import Decimal

from webapp.catalog.freshness import current_rows, freshness
from webapp.catalog.models import STALE_AFTER_DAYS, CloudOffering, CloudRate

from .test_commands import run

DAY = datetime.date(2026, 12, 4)


def test_the_share_counts_every_current_row_once(shipped):
    report = freshness(DAY, weigh=False)
    rows = current_rows(DAY)
    assert report.total == len(rows)
    old = [r for r in rows if (DAY - r.effective_date).days > STALE_AFTER_DAYS]
    assert len(report.stale) == len(old)
    assert report.fresh_share == (len(rows) - len(old)) / len(rows)
    assert all(r.age_days > STALE_AFTER_DAYS for r in report.stale)


def test_stale_rows_are_listed_by_how_much_they_move_a_default_verdict(shipped):
    report = freshness(DAY)
    swings = [r.swing for r in report.stale]
    assert swings == sorted(swings, reverse=True)
    server = next(r for r in report.stale if r.key.startswith("node-hgx-h100-8gpu/"))
    assert server.swing > 0 and server.preset.startswith("cluster-")
    unused = next(r for r in report.stale if r.key.startswith("us-ca-commercial/"))
    assert unused.swing == 0 and unused.line().endswith("used by no default resolution")


def test_a_new_price_takes_a_row_off_the_stale_list(shipped):
    before = freshness(DAY, weigh=False)
    offering = CloudOffering.objects.get(slug="vastai-rtx-4090")
    assert any(r.key.startswith("vastai-rtx-4090/") for r in before.stale)
    CloudRate.objects.create(
        offering=offering, hourly_rate=Decimal("0.40"), currency="USD",
        effective_date=datetime.date(2026, 12, 1), source="test",
    )  # fmt: skip
    after = freshness(DAY, weigh=False)
    assert not any(r.key.startswith("vastai-rtx-4090/") for r in after.stale)
    assert after.fresh == before.fresh + 1


def test_catalog_check_states_the_share_and_the_estimates(shipped):
    code, out, _ = run("catalog_check", "--as-of", DAY.isoformat())
    assert code == 0
    report = freshness(DAY, weigh=False)
    assert (
        f"freshness: {report.fresh} of {report.total} current rows "
        f"({report.fresh_share:.0%}) took effect within 180 days of 2026-12-04"
    ) in out
    stale_lines = [line for line in out.splitlines() if line.startswith("stale: ")]
    assert len(stale_lines) == len(report.stale)
    assert f"estimates: {report.estimates} of {report.total} current rows" in out


def test_every_shipped_row_is_sourced_or_flagged_with_its_reason(shipped):
    report = freshness(DAY, weigh=False)
    assert report.unvouched == []
    assert report.sourced + report.estimates == report.total
    assert report.vouched_share == 1.0


def test_a_row_without_source_or_flag_is_named(shipped):
    offering = CloudOffering.objects.get(slug="vastai-rtx-4090")
    CloudRate.objects.create(
        offering=offering, hourly_rate=Decimal("0.40"), currency="USD",
        effective_date=datetime.date(2026, 12, 1), source="",
    )  # fmt: skip
    report = freshness(DAY, weigh=False)
    assert report.unvouched == [
        "catalog.cloudrate vastai-rtx-4090/2026-12-01: no source and not flagged as an estimate"
    ]
    assert report.vouched == report.total - 1


def test_a_flag_without_its_reason_is_named(shipped):
    offering = CloudOffering.objects.get(slug="vastai-rtx-4090")
    CloudRate.objects.create(
        offering=offering, hourly_rate=Decimal("0.40"), currency="USD",
        effective_date=datetime.date(2026, 12, 1), source="a page", estimate=True, note="",
    )  # fmt: skip
    report = freshness(DAY, weigh=False)
    assert [line.split(": ", 1)[1] for line in report.unvouched] == [
        "flagged as an estimate without a reason (note)"
    ]


def test_catalog_check_states_the_sourced_or_flagged_share(shipped):
    offering = CloudOffering.objects.get(slug="vastai-rtx-4090")
    CloudRate.objects.create(
        offering=offering, hourly_rate=Decimal("0.40"), currency="USD",
        effective_date=datetime.date(2026, 12, 1), source="",
    )  # fmt: skip
    code, out, _ = run("catalog_check", "--as-of", DAY.isoformat())
    assert code == 1  # a price without a source is also a problem of check_catalog
    report = freshness(DAY, weigh=False)
    assert (
        f"sources: {report.total - 1} of {report.total} current rows "
        f"({(report.total - 1) / report.total:.0%}) within 10 % of their cited public source "
        f"or flagged as estimates: {report.sourced} carry their source's figure, "
        f"{report.estimates} flagged with the reason; 1 neither"
    ) in out
    assert (
        "unsourced: catalog.cloudrate vastai-rtx-4090/2026-12-01: "
        "no source and not flagged as an estimate"
    ) in out

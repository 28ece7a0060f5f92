"""Prices with history (migration 0005) keep today's rows: each stays, as the first revision
of its item, live, with its figures, source and date unchanged (SQLite and PostgreSQL)."""

import datetime
from decimal import Decimal

import pytest

from tests.webapp.migrations import migrate, migrated_to

BEFORE = [("catalog", "0004_shared_cache_table")]
AFTER = [("catalog", "0005_price_history_and_review")]


@pytest.fixture
def before_history(transactional_db):
    with migrated_to(BEFORE) as apps:
        yield apps


def test_the_rows_stored_before_history_are_kept_as_first_revisions(before_history):
    old = before_history
    part = old.get_model("catalog", "Part").objects.create(slug="cpu", kind="cpu", name="CPU")
    old.get_model("catalog", "PartPrice").objects.create(
        part=part, amount=Decimal("1999.00"), currency="CNY",
        effective_date=datetime.date(2025, 1, 1), source="a shop",
    )  # fmt: skip
    tariff = old.get_model("catalog", "Tariff").objects.create(
        slug="tou", name="ToU", region="r", country="CN", kind="tou", currency="CNY",
        effective_date=datetime.date(2024, 1, 1), source="grid",
    )  # fmt: skip
    old.get_model("catalog", "TariffPeriod").objects.create(
        tariff=tariff, name="peak", hours_per_day=24, price_per_kwh=Decimal("1.1")
    )

    new = migrate(AFTER)

    price = new.get_model("catalog", "PartPrice").objects.get()
    assert (price.amount, price.currency, price.effective_date, price.source) == (
        Decimal("1999.00"), "CNY", datetime.date(2025, 1, 1), "a shop",
    )  # fmt: skip
    assert (price.revision, price.supersedes_id, price.pending, price.recorded_by_id) == (
        0, None, False, None,
    )  # fmt: skip
    assert price.recorded_at is not None
    kept = new.get_model("catalog", "Tariff").objects.get()
    assert (kept.slug, kept.effective_date, kept.revision, kept.pending) == (
        "tou", datetime.date(2024, 1, 1), 0, False,
    )  # fmt: skip
    assert [
        p.name for p in new.get_model("catalog", "TariffPeriod").objects.filter(tariff=kept)
    ] == ["peak"]

"""What every cloud-rate import shares: a price that differs from the stored rate by less than
the stored precision is unchanged; a second apply of the same file records nothing; a rate that
moves more than the review share waits for review."""

import datetime
from decimal import Decimal

import pytest

from webapp.catalog.models import CloudRate
from webapp.catalog.rate_import import same_at_precision, stored_amount
from webapp.catalog.skypilot import import_skypilot

AS_OF = datetime.date(2026, 12, 5)
HEADER = "InstanceType,AcceleratorName,AcceleratorCount,GpuInfo,Price,SpotPrice,Region\n"


def p4de(price: str) -> str:
    return HEADER + f"p4de.24xlarge,A100-80GB,8,,{price},,us-east-1\n"


@pytest.mark.parametrize(
    ("stored", "published", "same"),
    [
        ("27.4471", "27.44705", True),  # the provider's 27.44705, rounded half up when stored
        ("27.4470", "27.44705", True),  # ... or half to even by another tool
        ("27.4471", "27.447", False),  # a whole unit of the stored precision: a change
        ("98.3200", "98.32", True),
    ],
)
def test_a_difference_below_the_stored_precision_is_no_difference(stored, published, same):
    assert same_at_precision(Decimal(stored), Decimal(published)) is same


def test_stored_amount_rounds_half_up_to_four_places():
    assert stored_amount(Decimal("27.44705")) == Decimal("27.4471")


def test_a_rounding_only_difference_is_reported_unchanged_and_not_written(shipped):
    before = CloudRate.objects.count()
    report = import_skypilot(p4de("27.44705"), provider="aws", as_of=AS_OF, dry_run=True)
    assert report.unchanged == ["aws-p4de-24xlarge 27.4471 USD (in effect since 2026-09-25)"]
    assert report.changed == []
    import_skypilot(p4de("27.44705"), provider="aws", as_of=AS_OF, dry_run=False)
    assert CloudRate.objects.count() == before


def test_a_change_of_one_unit_of_the_stored_precision_is_a_change(shipped):
    report = import_skypilot(p4de("27.4470"), provider="aws", as_of=AS_OF, dry_run=True)
    assert report.changed == [
        "aws-p4de-24xlarge 27.4471 USD → 27.4470 USD (-0.0 %) from 2026-12-05"
    ]


def test_a_second_apply_of_the_same_file_records_nothing(shipped):
    first = import_skypilot(p4de("30.00"), provider="aws", as_of=AS_OF, dry_run=True)
    assert first.changed == ["aws-p4de-24xlarge 27.4471 USD → 30.0000 USD (+9.3 %) from 2026-12-05"]
    import_skypilot(p4de("30.00"), provider="aws", as_of=AS_OF, dry_run=False)
    count = CloudRate.objects.count()
    second = import_skypilot(p4de("30.00"), provider="aws", as_of=AS_OF, dry_run=False)
    assert second.unchanged == ["aws-p4de-24xlarge 30.0000 USD (already recorded 2026-12-05)"]
    assert (second.changed, second.new_rates) == ([], [])
    assert CloudRate.objects.count() == count


def test_an_import_moving_more_than_the_review_share_waits_for_review(shipped):
    report = import_skypilot(p4de("40.00"), provider="aws", as_of=AS_OF, dry_run=False)
    assert report.changed == [
        "aws-p4de-24xlarge 27.4471 USD → 40.0000 USD (+45.7 %) from 2026-12-05 "
        "(held for review: hourly_rate 27.4471 → 40.0000 (+46%))"
    ]
    row = CloudRate.objects.get(offering__slug="aws-p4de-24xlarge", effective_date=AS_OF)
    assert row.pending
    again = import_skypilot(p4de("40.00"), provider="aws", as_of=AS_OF, dry_run=False)
    assert again.unchanged == [
        "aws-p4de-24xlarge 40.0000 USD (already recorded 2026-12-05, waiting for review)"
    ]

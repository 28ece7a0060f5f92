"""The cloud rates the shipped catalog uses: current where a weekly public dataset exists,
and consistent across an instance's pricing modes."""

import datetime

from webapp.catalog import selectors
from webapp.catalog.models import CloudOffering

DAY = datetime.date(2026, 12, 4)


def test_every_google_cloud_rate_in_effect_is_from_the_last_twelve_months(shipped):
    # Google Cloud's rates come from a public pricing dataset regenerated every week, and its
    # spot prices move every month (the 8 x H100 from 20.39 USD/h in December 2025 to 53.09 in
    # August 2026): a rate older than a year is not the price a buyer would pay on DAY.
    rates = selectors.cloud_rates_on(DAY)
    offerings = CloudOffering.objects.filter(provider="Google Cloud")
    assert offerings.exists()
    for offering in offerings:
        rate = rates[offering.pk]
        assert rate.effective_date >= DAY - datetime.timedelta(days=365), (
            f"{offering.slug}: rate of {rate.effective_date}"
        )
        assert "https://" in rate.source, offering.slug


def test_every_spot_rate_in_effect_is_below_its_on_demand_rate(shipped):
    rates = selectors.cloud_rates_on(DAY)
    spot = CloudOffering.objects.filter(pricing_mode="spot")
    assert spot.exists()
    for offering in spot:
        on_demand = CloudOffering.objects.get(
            provider=offering.provider,
            instance_type=offering.instance_type,
            region=offering.region,
            pricing_mode="on-demand",
        )
        assert rates[offering.pk].currency == rates[on_demand.pk].currency, offering.slug
        assert rates[offering.pk].hourly_rate < rates[on_demand.pk].hourly_rate, offering.slug

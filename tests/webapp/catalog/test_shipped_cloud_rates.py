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


def test_every_aws_on_demand_rate_in_effect_is_from_the_last_twelve_months(shipped):
    # AWS's on-demand rates have not moved since its June 2025 GPU price cut; AWS's own price
    # list files of September 2026 confirm them, so none reads as stale on DAY.
    rates = selectors.cloud_rates_on(DAY)
    offerings = CloudOffering.objects.filter(provider="AWS", pricing_mode="on-demand")
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


def test_every_commitment_in_effect_costs_less_than_its_on_demand_sibling(shipped):
    rates = selectors.cloud_rates_on(DAY)
    commitments = CloudOffering.objects.filter(pricing_mode__in=["commit-1y", "commit-3y"])
    assert commitments.exists()
    for offering in commitments:
        sibling = offering.on_demand_sibling
        assert sibling is not None, offering.slug
        assert rates[offering.pk].hourly_rate < rates[sibling.pk].hourly_rate, offering.slug


def test_the_8_gpu_h100_and_a100_hyperscaler_instances_have_1_and_3_year_commitments(shipped):
    # AWS p5 and p4de (EC2 Instance Savings Plans) and Azure's ND A100 v4 / ND H100 v5
    # (reserved instances), besides GCP's a3: a 3-year term is cheaper per hour than a 1-year one.
    rates = selectors.cloud_rates_on(DAY)
    for on_demand in (
        "aws-p5-48xlarge",
        "aws-p4de-24xlarge",
        "azure-nd96amsr-a100-v4",
        "azure-nd96isr-h100-v5",
    ):
        terms = {
            offering.commitment_term_months: rates[offering.pk].hourly_rate
            for offering in CloudOffering.objects.filter(on_demand_sibling__slug=on_demand)
        }
        assert sorted(terms) == [12, 36], on_demand
        assert terms[36] < terms[12], on_demand

import datetime

from webapp.catalog.models import CloudOffering, CloudRate, FxRate, GpuThroughput, Tariff


def get(client, path, **params):
    response = client.get(f"/api/v1/catalog/{path}", params)
    assert response.status_code == 200, response.content
    return response.json()


def test_gpus_carry_their_throughput_on_each_benchmark(client, catalog):
    gpus = {g["slug"]: g for g in get(client, "gpus")}

    row = GpuThroughput.objects.select_related("gpu_model", "benchmark").first()
    listed = {t["benchmark"]: t for t in gpus[row.gpu_model.slug]["throughputs"]}
    assert listed[row.benchmark.slug]["relative_throughput"] == format(row.relative_throughput, "f")
    assert listed[row.benchmark.slug]["source"] == row.source


def test_cloud_offerings_show_the_rate_in_effect_on_the_day(client, catalog):
    rate = CloudRate.objects.order_by("effective_date").select_related("offering").first()
    day_before = rate.effective_date - datetime.timedelta(days=1)

    today = {o["slug"]: o for o in get(client, "cloud-offerings")}
    before = {o["slug"]: o for o in get(client, "cloud-offerings", as_of=day_before.isoformat())}

    latest = CloudRate.objects.filter(offering=rate.offering).order_by("effective_date").last()
    shown = today[rate.offering.slug]["hourly_rate"]
    assert shown["amount"] == format(latest.hourly_rate, "f")
    assert shown["effective_date"] == latest.effective_date.isoformat()
    assert shown["currency"] == latest.currency
    assert "source" in shown and "estimate" in shown
    assert before[rate.offering.slug]["hourly_rate"] is None


def test_cloud_offerings_filter_by_provider_in_any_case(client, catalog):
    provider = CloudOffering.objects.values_list("provider", flat=True).first()

    listed = get(client, "cloud-offerings", provider=provider.upper())

    assert listed
    assert {o["provider"] for o in listed} == {provider}
    assert len(listed) == CloudOffering.objects.filter(provider=provider).count()


def test_cloud_offerings_filter_by_the_currency_of_their_rate(client, catalog):
    for currency in ("CNY", "USD"):
        listed = get(client, "cloud-offerings", currency=currency)
        assert {o["hourly_rate"]["currency"] for o in listed} <= {currency}
    assert len(get(client, "cloud-offerings", currency="CNY")) + len(
        get(client, "cloud-offerings", currency="USD")
    ) == len(get(client, "cloud-offerings"))


def test_tariffs_and_hosting_filter_by_currency(client, catalog):
    tariffs = get(client, "tariffs", currency="USD")
    assert tariffs
    # one per tariff in effect today: a tariff's price history holds older and corrected rows
    in_effect = {
        t.slug for t in Tariff.objects.effective_on(datetime.date.today()).filter(currency="USD")
    }
    assert {t["slug"] for t in tariffs} == in_effect
    assert {h["currency"] for h in get(client, "hosting", currency="CNY")} == {"CNY"}


def test_fx_rates_show_the_latest_rate_of_each_pair(client, catalog):
    rates = get(client, "fx-rates")

    pairs = {(r["base_currency"], r["quote_currency"]) for r in rates}
    assert len(pairs) == len(rates)
    for r in rates:
        latest = (
            FxRate.objects.filter(
                base_currency=r["base_currency"], quote_currency=r["quote_currency"]
            )
            .order_by("effective_date")
            .last()
        )
        assert r["rate"] == format(latest.rate, "f")


def test_presets_list_their_parts_with_prices(client, catalog):
    presets = get(client, "presets")

    assert presets
    for preset in presets:
        assert preset["parts"]
        # GPU cards, or whole GPU servers (kind "node") in the cluster presets
        assert any(p["kind"] in ("gpu", "node") for p in preset["parts"])
        assert all(p["price"] is None or p["price"]["effective_date"] for p in preset["parts"])


def test_a_bad_filter_is_a_422_naming_it(client, catalog):
    response = client.get("/api/v1/catalog/tariffs", {"currency": "EUR", "as_of": "yesterday"})

    assert response.status_code == 422
    assert {e["field"] for e in response.json()["errors"]} == {"currency", "as_of"}

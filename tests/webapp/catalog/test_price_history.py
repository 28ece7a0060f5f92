"""Prices with history: the audit-trail repros of issue 28, tried through the admin and the
commands as an admin would (Django test client as a staff user, real commands)."""

import datetime
import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from webapp.catalog import selectors
from webapp.catalog.fixtures_io import export_catalog
from webapp.catalog.importer import import_prices
from webapp.catalog.models import CloudOffering, CloudRate, FxRate, PartPrice, Tariff

D = datetime.date
RUNPOD = "runpod-a100-80gb-community"
HEADER = "item_type,item,amount,currency,effective_date,source,note,estimate\n"


@pytest.fixture
def admin_user(django_user_model):
    return django_user_model.objects.create_superuser("finance", "finance@example.com", "pw")


@pytest.fixture
def staff_client(client, admin_user):
    client.force_login(admin_user)
    return client


def add_url(model) -> str:
    return reverse(f"admin:catalog_{model._meta.model_name}_add")


def change_url(row) -> str:
    return reverse(f"admin:catalog_{row._meta.model_name}_change", args=[row.pk])


def runpod_rate() -> CloudRate:
    return CloudRate.objects.live().get(offering__slug=RUNPOD, effective_date=D(2026, 11, 1))


def rate_form(rate: CloudRate, **changes) -> dict:
    form = {
        "offering": rate.offering_id,
        "hourly_rate": str(rate.hourly_rate),
        "currency": rate.currency,
        "effective_date": rate.effective_date.isoformat(),
        "source": rate.source,
        "note": rate.note,
    }
    return {**form, **changes}


def supersede_runpod(client) -> CloudRate:
    """Repro 1 done as it should be: a correction of the 1.19 rate to 1.29."""
    rate = runpod_rate()
    response = client.post(
        add_url(CloudRate) + f"?supersedes={rate.pk}",
        rate_form(rate, hourly_rate="1.29", supersedes=rate.pk),
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    return CloudRate.objects.get(supersedes=rate)


def tariff_form(tariff: Tariff, **changes) -> dict:
    form = {
        field: getattr(tariff, field)
        for field in ["slug", "name", "name_zh", "region", "country", "kind", "currency"]
    }
    form.update(
        price_per_kwh=str(tariff.price_per_kwh),
        effective_date=tariff.effective_date.isoformat(),
        source=tariff.source,
        note=tariff.note,
        **{"periods-TOTAL_FORMS": "0", "periods-INITIAL_FORMS": "0"},
    )
    return {**form, **changes}


def record_california_tariff(client) -> Tariff:
    """Repro 2: California at 0.30 USD/kWh from 2026-12-04, recorded as a new price."""
    old = Tariff.objects.live().get(slug="us-ca-commercial")
    response = client.post(
        add_url(Tariff) + f"?record_from={old.pk}",
        tariff_form(old, price_per_kwh="0.30", effective_date="2026-12-04", source="utility bill"),
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    return Tariff.objects.get(slug="us-ca-commercial", effective_date=D(2026, 12, 4))


def resolve_electricity(as_of: str) -> float:
    out = StringIO()
    call_command(
        "resolve",
        "--preset=entry-rtx4090",
        f"--offering={RUNPOD}",
        "--tariff=us-ca-commercial",
        "--hosting=office-deskside",
        "--utilization=1",
        "--horizon=36",
        "--currency=USD",
        f"--as-of={as_of}",
        stdout=out,
    )
    return json.loads(out.getvalue())["build"]["electricity_price_per_kwh"]


# --- repro 1: a recorded price is never changed -------------------------------------------


def test_the_admin_does_not_change_a_stored_rate_in_place(staff_client, shipped):
    rate = runpod_rate()
    response = staff_client.post(change_url(rate), rate_form(rate, hourly_rate="1.29"))
    assert response.status_code in (200, 302)
    rate.refresh_from_db()
    assert rate.hourly_rate == Decimal("1.19")
    assert 'name="hourly_rate"' not in staff_client.get(change_url(rate)).content.decode()


def test_a_stored_rate_cannot_be_deleted_in_the_admin(staff_client, shipped):
    rate = runpod_rate()
    url = reverse("admin:catalog_cloudrate_delete", args=[rate.pk])
    assert staff_client.post(url, {"post": "yes"}).status_code == 403
    assert CloudRate.objects.filter(pk=rate.pk).exists()


def test_the_change_page_offers_a_new_price_and_a_correction(staff_client, shipped):
    rate = runpod_rate()
    content = staff_client.get(change_url(rate)).content.decode()
    assert f"?record_from={rate.pk}" in content
    assert f"?supersedes={rate.pk}" in content
    prefilled = staff_client.get(add_url(CloudRate), {"supersedes": rate.pk})
    form = prefilled.context["adminform"].form
    assert (form.initial["hourly_rate"], form.initial["supersedes"]) == (rate.hourly_rate, rate.pk)


def test_a_correction_supersedes_the_rate_and_both_stay_in_the_history(
    staff_client, shipped, admin_user, tmp_path
):
    old = runpod_rate()
    new = supersede_runpod(staff_client)
    old.refresh_from_db()
    # the live 1.19 row is the shipped correction (revision 1) that flags it as a spot price
    assert (old.hourly_rate, old.revision, old.recorded_by) == (Decimal("1.19"), 1, None)
    assert (new.hourly_rate, new.revision, new.pending) == (Decimal("1.29"), 2, False)
    assert new.recorded_by == admin_user
    assert new.recorded_at is not None
    offering = CloudOffering.objects.get(slug=RUNPOD)
    assert selectors.rate_on(offering, D(2026, 12, 1)).hourly_rate == Decimal("1.29")
    # The export keeps the old price under its own source and date, and the correction.
    export_catalog(tmp_path)
    rows = [
        row["fields"]
        for row in json.loads((tmp_path / "06-cloud.json").read_text())
        if row["model"] == "catalog.cloudrate" and row["fields"]["offering"] == [RUNPOD]
    ]
    assert [(r["hourly_rate"], r["effective_date"], r.get("revision")) for r in rows] == [
        ("1.1900", "2026-11-01", None),
        ("1.1900", "2026-11-01", 1),
        ("1.2900", "2026-11-01", 2),
    ]
    assert rows[1]["supersedes"] == [RUNPOD, "2026-11-01"]
    assert rows[2]["supersedes"] == [RUNPOD, "2026-11-01", "1"]


def test_a_new_price_through_the_item_page_records_who_entered_it(
    staff_client, shipped, admin_user
):
    offering = CloudOffering.objects.get(slug=RUNPOD)
    page = staff_client.get(change_url(offering))
    form = page.context["adminform"].form
    data = {
        name: ("" if value is None else value)
        for name, value in form.initial.items()
        if name in form.fields
    }
    data["on_demand_sibling"] = ""
    formset = page.context["inline_admin_formsets"][0].formset
    prefix = formset.prefix
    data.update(
        {
            f"{prefix}-TOTAL_FORMS": str(formset.initial_form_count() + 1),
            f"{prefix}-INITIAL_FORMS": str(formset.initial_form_count()),
            f"{prefix}-MIN_NUM_FORMS": "0",
            f"{prefix}-MAX_NUM_FORMS": "1000",
        }
    )
    for number, stored in enumerate(formset.initial_forms):
        data[f"{prefix}-{number}-id"] = stored.instance.pk
        data[f"{prefix}-{number}-offering"] = offering.pk
        data[f"{prefix}-{number}-hourly_rate"] = "9.99"  # read-only: must be ignored
    new = formset.initial_form_count()
    data.update(
        {
            f"{prefix}-{new}-offering": offering.pk,
            f"{prefix}-{new}-hourly_rate": "1.25",
            f"{prefix}-{new}-currency": "USD",
            f"{prefix}-{new}-effective_date": "2026-12-04",
            f"{prefix}-{new}-source": "https://www.runpod.io/pricing",
        }
    )
    response = staff_client.post(change_url(offering), data)
    assert response.status_code == 302, response.context["errors"]
    assert runpod_rate().hourly_rate == Decimal("1.19")
    added = CloudRate.objects.get(offering=offering, effective_date=D(2026, 12, 4))
    assert (added.hourly_rate, added.recorded_by, added.pending) == (
        Decimal("1.25"),
        admin_user,
        False,
    )


# --- repro 2: tariffs (and hosting, FX) have dated history ------------------------------------


def test_resolve_as_of_answers_with_the_tariff_in_effect_then(staff_client, shipped):
    record_california_tariff(staff_client)
    assert resolve_electricity("2026-11-15") == pytest.approx(0.2391)
    assert resolve_electricity("2026-12-05") == pytest.approx(0.30)


def test_a_new_tariff_version_starts_from_the_periods_of_the_one_it_follows(staff_client, shipped):
    tou = Tariff.objects.get(kind="tou")
    page = staff_client.get(add_url(Tariff), {"record_from": tou.pk})
    formset = next(
        f.formset for f in page.context["inline_admin_formsets"] if f.formset.prefix == "periods"
    )
    shipped_periods = {(p.name, p.hours_per_day, p.price_per_kwh) for p in tou.periods.all()}
    assert {
        (f.initial["name"], f.initial["hours_per_day"], f.initial["price_per_kwh"])
        for f in formset.forms
    } == shipped_periods


def test_hosting_and_fx_rates_resolve_as_of_their_dates(mini):
    from webapp.catalog.models import HostingOption
    from webapp.catalog.resolver import resolve_data

    colo = HostingOption.objects.get(slug="colo-metered")
    colo.pk = None
    colo.per_kw_monthly = Decimal(120)
    colo.effective_date = D(2025, 3, 1)
    colo._state.adding = True
    colo.save()
    selection = {
        "preset": "duo",
        "cloud_offering": "cloud-1",
        "tariff": "flat",
        "hosting": "colo-metered",
        "benchmark": "bench",
        "workload": {"kind": "steady", "utilization": 1},
        "horizon_months": 12,
        "currency": "CNY",
    }

    def hosting_fee(as_of):
        provenance = resolve_data({**selection, "as_of": as_of}).provenance
        return next(p for p in provenance if p["role"] == "hosting")["amount"]

    # 50 × 4 U + fee per kW × 0.75 kW load (2 × 300 + 100 + 40 + 10 W)
    assert hosting_fee("2025-02-28") == "275"
    assert hosting_fee("2025-03-01") == "290"
    # A correction of the 7.5 rate of 2025-01-01: the right rate was 8, from 2025-03-01.
    FxRate.objects.create(
        base_currency="USD", quote_currency="CNY", rate=Decimal(8), effective_date=D(2025, 3, 1),
        supersedes=FxRate.objects.get(effective_date=D(2025, 1, 1)), revision=1, source="fix",
    )  # fmt: skip

    def fx_rate(as_of):
        provenance = resolve_data({**selection, "as_of": as_of}).provenance
        return next(p for p in provenance if p["role"] == "fx")["amount"]

    assert fx_rate("2025-02-01") == "7"
    assert fx_rate("2025-03-01") == "8"


# --- repro 3: starting the app never reverts the admin ----------------------------------------


def test_reloading_the_fixtures_keeps_what_the_admin_recorded(staff_client, shipped):
    supersede_runpod(staff_client)
    record_california_tariff(staff_client)
    out = StringIO()
    call_command("load_catalog", stdout=out)  # what `make run` and `make serve` do
    assert out.getvalue().endswith(
        "added 0 rows, 0 shipped values differ from the database (kept)\n"
    )
    offering = CloudOffering.objects.get(slug=RUNPOD)
    assert selectors.rate_on(offering, D(2026, 12, 1)).hourly_rate == Decimal("1.29")
    assert resolve_electricity("2026-12-05") == pytest.approx(0.30)


def test_reloading_reports_a_shipped_value_that_differs_and_keeps_the_stored_one(shipped):
    CloudRate.objects.filter(pk=runpod_rate().pk).update(note="as stored")
    out = StringIO()
    call_command("load_catalog", stdout=out)
    differs = [
        line
        for line in out.getvalue().splitlines()
        if line.startswith(
            f"differs: catalog.cloudrate {RUNPOD}/2026-11-01/1: note: shipped "
            "'Not a Community Cloud on-demand rate"
        )
    ]
    assert len(differs) == 1 and differs[0].endswith("stored 'as stored' (kept)")
    assert runpod_rate().note == "as stored"


# --- repro 4 and review: a suspicious price waits for a staff user ----------------------------


def test_an_import_that_changes_currency_is_held_until_approved(staff_client, shipped):
    offering = CloudOffering.objects.get(slug="aws-p4de-24xlarge")
    before = selectors.rate_on(offering, D(2026, 12, 10))
    report = import_prices(HEADER + "cloud_offering,aws-p4de-24xlarge,25.00,CNY,2026-12-04,x,,\n")
    assert "held for review: currency USD → CNY" in report.added[0]
    held = CloudRate.objects.get(offering=offering, effective_date=D(2026, 12, 4))
    assert held.pending
    assert selectors.rate_on(offering, D(2026, 12, 10)) == before
    changelist = reverse("admin:catalog_cloudrate_changelist")
    assert (
        "pending review" in staff_client.get(changelist, {"pending__exact": "1"}).content.decode()
    )
    staff_client.post(changelist, {"action": "approve_selected", "_selected_action": [held.pk]})
    held.refresh_from_db()
    assert not held.pending
    assert held.approved_by is not None
    assert selectors.rate_on(offering, D(2026, 12, 10)) == held


def test_the_import_command_says_which_rows_are_held(shipped, tmp_path):
    path = tmp_path / "prices.csv"
    path.write_text(
        HEADER
        + "cloud_offering,aws-p4de-24xlarge,25.00,USD,2026-12-04,x,,\n"
        + "part,gpu-rtx-4090,18500,CNY,2026-12-04,x,,\n"
    )
    out = StringIO()
    call_command("catalog_import", str(path), "--apply", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "added cloud_offering aws-p4de-24xlarge 25.00 USD from 2026-12-04"
    assert lines[1] == "added part gpu-rtx-4090 18500 CNY from 2026-12-04"
    assert not CloudRate.objects.filter(pending=True).exists()


def test_an_admin_price_that_moves_more_than_the_share_is_held(staff_client, shipped, settings):
    settings.CATALOG_REVIEW_SHARE = Decimal("0.05")
    new = supersede_runpod(staff_client)  # 1.19 → 1.29 is +8 %
    assert new.pending
    offering = CloudOffering.objects.get(slug=RUNPOD)
    assert selectors.rate_on(offering, D(2026, 12, 1)).hourly_rate == Decimal("1.19")


def test_a_part_price_within_the_share_goes_live_at_once(shipped):
    report = import_prices(HEADER + "part,gpu-rtx-4090,20000,CNY,2026-12-04,x,,\n")
    assert "held" not in report.added[0]
    assert not PartPrice.objects.get(
        part__slug="gpu-rtx-4090", effective_date=D(2026, 12, 4)
    ).pending


def test_approving_needs_the_change_permission(client, shipped, django_user_model):
    from django.contrib.auth.models import Permission

    import_prices(HEADER + "cloud_offering,aws-p4de-24xlarge,25.00,CNY,2026-12-04,x,,\n")
    held = CloudRate.objects.get(pending=True)
    viewer = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_cloudrate"))
    client.force_login(viewer)
    changelist = reverse("admin:catalog_cloudrate_changelist")
    client.post(changelist, {"action": "approve_selected", "_selected_action": [held.pk]})
    held.refresh_from_db()
    assert held.pending


def test_a_correction_of_another_items_row_is_refused(staff_client, shipped):
    rate = runpod_rate()
    other = CloudRate.objects.exclude(offering=rate.offering).first()
    response = staff_client.post(
        add_url(CloudRate), rate_form(rate, hourly_rate="1.29", supersedes=other.pk)
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["supersedes"] == [
        "A correction replaces a row of the same item."
    ]
    assert not CloudRate.objects.filter(supersedes=other).exists()


def test_a_price_typed_as_text_is_reviewed_like_a_number(shipped):
    from webapp.catalog import services

    rate = runpod_rate()
    correction = CloudRate(
        offering=rate.offering, hourly_rate="2.50", currency="USD",
        effective_date=rate.effective_date, source=rate.source, supersedes=rate,
    )  # fmt: skip
    assert services.record_price(correction) == ["hourly_rate 1.1900 → 2.50 (+110%)"]
    assert correction.pending


def test_catalog_check_warns_about_rows_pending_review(shipped):
    import_prices(HEADER + "cloud_offering,aws-p4de-24xlarge,25.00,CNY,2026-12-04,x,,\n")
    out = StringIO()
    call_command("catalog_check", stdout=out)
    assert (
        "warning: catalog.cloudrate aws-p4de-24xlarge/2026-12-04: pending review "
        "(not used until a staff user approves it)"
    ) in out.getvalue().splitlines()


# --- issue 40: the review gate compares with the price in effect ----------------------------

CASE = "case-corsair-4000d-airflow"  # 94.99 USD from 2025-07-23


def part_form(price: PartPrice, **changes) -> dict:
    form = {
        "part": price.part_id,
        "amount": str(price.amount),
        "currency": price.currency,
        "effective_date": price.effective_date.isoformat(),
        "source": price.source,
        "note": price.note,
    }
    return {**form, **changes}


@pytest.fixture
def clerk_client(client, django_user_model):
    """A staff user who may add and view part prices but not approve them (no change)."""
    from django.contrib.auth.models import Permission

    clerk = django_user_model.objects.create_user("clerk", password="pw", is_staff=True)
    clerk.user_permissions.add(
        *Permission.objects.filter(codename__in=["add_partprice", "view_partprice", "view_part"])
    )
    client.force_login(clerk)
    return client


def case_price_in_effect() -> PartPrice:
    return selectors.part_prices_on(D(2026, 12, 20))[PartPrice.objects.get(
        part__slug=CASE, effective_date=D(2025, 7, 23)).part_id]  # fmt: skip


def test_a_correction_of_a_held_price_with_the_same_figures_is_held_too(clerk_client, shipped):
    """The probe's sequence: 500.00 USD for the 94.99 USD case is held; "Supersede
    (correction)" of the held row with the same figures must not put it live."""
    live = PartPrice.objects.get(part__slug=CASE, effective_date=D(2025, 7, 23))
    response = clerk_client.post(
        add_url(PartPrice) + f"?record_from={live.pk}",
        part_form(live, amount="500.00", effective_date="2026-12-04", source="shop"),
    )
    assert response.status_code == 302
    held = PartPrice.objects.get(part__slug=CASE, effective_date=D(2026, 12, 4))
    assert held.pending
    response = clerk_client.post(
        add_url(PartPrice) + f"?supersedes={held.pk}",
        part_form(held, supersedes=held.pk),
    )
    assert response.status_code == 302
    correction = PartPrice.objects.get(supersedes=held)
    assert correction.pending
    assert case_price_in_effect().amount == Decimal("94.99")


def test_a_correction_is_compared_with_the_price_in_effect_not_the_row_it_corrects(shipped):
    """A held 500.00 corrected to 520.00 (+4 % on the held row) moves +447 % on the price
    in effect; the reasons say both."""
    from webapp.catalog import services

    live = PartPrice.objects.get(part__slug=CASE, effective_date=D(2025, 7, 23))
    held = PartPrice(part=live.part, amount="500.00", currency="USD",
                     effective_date=D(2026, 12, 4), source="shop")  # fmt: skip
    assert services.record_price(held) == ["amount 94.99 → 500.00 (+426%)"]
    correction = PartPrice(
        part=live.part, amount="520.00", currency="USD",
        effective_date=D(2026, 12, 4), source="shop", supersedes=held,
    )  # fmt: skip
    assert services.record_price(correction) == [
        f"corrects a row held for review ({held})",
        "amount 94.99 → 520.00 (+447%)",
    ]
    assert correction.pending
    assert case_price_in_effect().amount == Decimal("94.99")

"""Catalog admin: staff only; every model's list renders with its filters; prices show their age."""

import datetime
from decimal import Decimal

import pytest
from django.urls import reverse

from webapp.catalog.fixtures_io import catalog_models
from webapp.catalog.models import Part, PartPrice


@pytest.fixture
def staff_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("admin", "admin@example.com", "pw")
    client.force_login(user)
    return client


def changelist(model) -> str:
    return reverse(f"admin:catalog_{model._meta.model_name}_changelist")


def test_the_admin_requires_a_staff_login(client, mini):
    response = client.get(changelist(Part))
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_a_logged_in_non_staff_user_is_refused(client, mini, django_user_model):
    client.force_login(django_user_model.objects.create_user("someone", password="pw"))
    assert client.get(changelist(Part)).status_code == 302


def test_every_catalog_model_has_a_searchable_changelist(staff_client, shipped):
    for model in catalog_models():
        response = staff_client.get(changelist(model), {"q": "a"})
        assert response.status_code == 200, model


def test_every_catalog_object_has_a_change_page(staff_client, mini):
    for model in catalog_models():
        obj = model._default_manager.first()
        url = reverse(f"admin:catalog_{model._meta.model_name}_change", args=[obj.pk])
        assert staff_client.get(url).status_code == 200, model


def test_parts_show_their_effective_price_and_a_stale_marker(staff_client, mini):
    content = staff_client.get(changelist(Part)).content.decode()
    assert "800.00 USD (2025-06-01)" in content
    assert "stale" in content


def test_the_stale_filter_separates_old_and_recent_prices(staff_client, mini):
    part = Part.objects.get(slug="cpu")
    PartPrice.objects.create(
        part=part, amount=Decimal(1), currency="CNY", effective_date=datetime.date.today()
    )
    stale = staff_client.get(changelist(PartPrice), {"stale": "yes"}).context["cl"].result_list
    current = staff_client.get(changelist(PartPrice), {"stale": "no"}).context["cl"].result_list
    assert [p.effective_date for p in current] == [datetime.date.today()]
    assert len(stale) == PartPrice.objects.count() - 1
    parts = staff_client.get(changelist(Part), {"stale": "no"}).context["cl"].result_list
    assert [p.slug for p in parts] == ["cpu"]


@pytest.mark.parametrize(
    ("model_name", "params"),
    [
        ("cloudoffering", {"provider": "Q"}),
        ("cloudrate", {"currency": "CNY"}),
        ("buildpreset", {"tier": "multi"}),
    ],
)
def test_it_filters_by_provider_currency_and_tier(staff_client, mini, model_name, params):
    url = reverse(f"admin:catalog_{model_name}_changelist")
    results = staff_client.get(url, params).context["cl"].result_list
    assert len(results) == 1


def test_the_chinese_admin_index_has_no_english_column_headers(staff_client, mini):
    page = staff_client.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    content = page.content.decode()
    assert page.status_code == 200 and 'lang="zh-hans"' in content
    for english in ("Model name", "Add link", "Change or view list link"):
        assert english not in content, english
    assert "模型名称" in content and "添加链接" in content

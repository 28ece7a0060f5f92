"""The catalog version the checked guide is cached under: it changes with every catalog edit."""

import pytest
from django.core.cache import cache
from django.core.management import call_command

from webapp.catalog import selectors
from webapp.catalog.models import CloudOffering, PartPrice

pytestmark = pytest.mark.django_db


def test_the_version_is_stable_while_nothing_changes():
    assert selectors.catalog_version() == selectors.catalog_version()


def test_loading_the_catalog_changes_the_version():
    before = selectors.catalog_version()
    call_command("load_catalog", verbosity=0)
    assert selectors.catalog_version() != before


def test_saving_or_deleting_a_catalog_row_changes_the_version(catalog):
    first = selectors.catalog_version()
    price = PartPrice.objects.first()
    price.amount += 1
    price.save()
    second = selectors.catalog_version()
    assert second != first
    CloudOffering.objects.filter(slug="vastai-rtx-4090").delete()
    assert selectors.catalog_version() != second


def test_a_lost_version_is_replaced_by_a_new_one():
    before = selectors.catalog_version()
    cache.delete(selectors.CATALOG_VERSION_KEY)
    assert selectors.catalog_version() != before


def test_the_version_changes_again_when_the_edit_commits(
    catalog, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        price = PartPrice.objects.first()
        price.save()
        during = selectors.catalog_version()
    assert selectors.catalog_version() != during

"""The catalog's version: a new token whenever the catalog changes, the same one otherwise."""

import pytest
from django.core.cache import caches
from django.db import transaction

from webapp.catalog import selectors
from webapp.catalog.fixtures_io import load_catalog
from webapp.catalog.importer import import_prices
from webapp.catalog.models import CloudRate, Part
from webapp.catalog.selectors import VERSION_CACHE, VERSION_KEY, VERSION_SECONDS, catalog_version

HEADER = "item_type,item,amount,currency,effective_date,source,note,estimate\n"


def test_it_stays_the_same_while_nothing_changes(mini):
    assert catalog_version() == catalog_version()


def test_saving_a_row_as_the_admin_does_gives_a_new_version(mini):
    before = catalog_version()
    part = Part.objects.get(slug="cpu")
    part.name = "Another CPU"
    part.save()
    assert catalog_version() != before


def test_deleting_a_row_gives_a_new_version(mini):
    before = catalog_version()
    CloudRate.objects.order_by("effective_date").first().delete()
    assert catalog_version() != before


def test_loading_the_catalog_gives_a_new_version_only_when_it_adds_rows(db):
    before = catalog_version()
    load_catalog()
    after = catalog_version()
    assert after != before
    load_catalog()  # nothing to add: the catalog, and so its version, is unchanged
    assert catalog_version() == after


def test_importing_prices_gives_a_new_version_and_a_dry_run_does_not(mini):
    before = catalog_version()
    import_prices(HEADER + "part,cpu,1800,CNY,2025-03-01,src,,\n", dry_run=True)
    assert catalog_version() == before
    import_prices(HEADER + "part,cpu,1800,CNY,2025-03-01,src,,\n")
    assert catalog_version() != before


@pytest.mark.django_db(transaction=True)
def test_a_change_rolled_back_keeps_the_old_version(mini):
    before = catalog_version()
    with pytest.raises(RuntimeError), transaction.atomic():
        part = Part.objects.get(slug="cpu")
        part.name = "Never saved"
        part.save()
        raise RuntimeError("abort")
    assert catalog_version() == before


def test_another_process_change_is_seen_within_the_trusted_seconds(mini, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(selectors.time, "monotonic", lambda: clock[0])
    before = catalog_version()
    caches[VERSION_CACHE].set(VERSION_KEY, "bumped-elsewhere", timeout=None)  # another process

    clock[0] += VERSION_SECONDS - 0.01
    assert catalog_version() == before
    clock[0] += 0.01
    assert catalog_version() == "bumped-elsewhere"


def test_the_version_is_read_once_per_trusted_period(mini, django_assert_num_queries):
    catalog_version()
    with django_assert_num_queries(0):
        catalog_version()

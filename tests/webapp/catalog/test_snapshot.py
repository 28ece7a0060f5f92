"""The catalog snapshot answers what the one-off queries answer, from the rows it holds; the
reference GPU's rule is the snapshot's alone."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from webapp.catalog import selectors
from webapp.catalog.models import Benchmark, CloudOffering, GpuModel, GpuThroughput

pytestmark = pytest.mark.django_db


def test_the_reference_gpu_of_every_shipped_benchmark_is_its_figure_1_without_a_query(
    shipped_catalog,
):
    catalog = selectors.CatalogSnapshot(datetime.date.today()).read_all()
    benchmarks = list(Benchmark.objects.all())
    assert benchmarks
    for benchmark in benchmarks:
        with CaptureQueriesContext(connection) as queries:
            found = catalog.reference_gpu(benchmark)
        assert len(queries) == 0
        assert found is not None, benchmark.slug
        ones = GpuThroughput.objects.filter(benchmark=benchmark, relative_throughput=Decimal(1))
        assert found.pk in {row.gpu_model_id for row in ones}, benchmark.slug


def test_an_estimated_reference_gives_way_to_a_measured_one(shipped_catalog):
    benchmark = Benchmark.objects.first()
    assert benchmark is not None
    reference = selectors.CatalogSnapshot(datetime.date.today()).reference_gpu(benchmark)
    assert reference is not None
    other = GpuModel.objects.exclude(pk=reference.pk).order_by("slug").first()
    assert other is not None
    row = GpuThroughput.objects.get(gpu_model=other, benchmark=benchmark)
    row.relative_throughput = Decimal(1)
    row.estimate = False
    row.save()
    GpuThroughput.objects.filter(gpu_model=reference, benchmark=benchmark).update(estimate=True)
    catalog = selectors.CatalogSnapshot(datetime.date.today())
    found = catalog.reference_gpu(benchmark)
    assert found is not None and found.slug == other.slug


def test_the_snapshot_holds_every_gpu_an_offering_or_figure_names(shipped_catalog):
    catalog = selectors.CatalogSnapshot(datetime.date.today()).read_all()
    named = {o.gpu_model.slug for o in CloudOffering.objects.select_related("gpu_model")}
    named |= set(GpuThroughput.objects.values_list("gpu_model__slug", flat=True))
    with CaptureQueriesContext(connection) as queries:
        held = catalog.gpu_models
    assert named <= held.keys()
    assert all(gpu.slug == slug for slug, gpu in held.items())
    assert len(queries) == 0


def test_offerings_siblings_are_rows_of_the_snapshot(shipped_catalog):
    catalog = selectors.CatalogSnapshot(datetime.date.today())
    with_sibling = [o for o in catalog.offerings.values() if o.on_demand_sibling_id is not None]
    assert with_sibling
    for offering in with_sibling:
        sibling = offering.on_demand_sibling
        assert sibling is catalog.offerings[sibling.slug]
        assert sibling.pk == CloudOffering.objects.get(pk=offering.pk).on_demand_sibling_id


def test_part_prices_parts_are_rows_of_the_snapshot(shipped_catalog):
    catalog = selectors.CatalogSnapshot(datetime.date.today())
    assert catalog.part_prices
    for part_id, price in catalog.part_prices.items():
        assert price.part is catalog.parts[price.part.slug]
        assert price.part.pk == part_id

"""The planner form read once into one typed plan input, and a plan projected once a request."""

import copy
import datetime
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.urls import reverse

import costmodel.projection
from webapp.planner import plan_input, services
from webapp.planner.choices import catalog_choices
from webapp.planner.forms import PlannerForm
from webapp.planner.permalink import decode
from webapp.planner.results import results_context

from .helpers import code_of, link_of
from .test_jobs import ADAPTER_7B, IMAGENET, jobs_data
from .test_planner_form import form_data

# Pages built from the shipped catalog, checked for their figures and words: these tests read
# the database and write nothing (tests/conftest.py fails one that writes), so they run once, in
# the SQLite pass; the few that save or cache are marked database and run on PostgreSQL too.
pytestmark = pytest.mark.reads_only

HOME = reverse("planner:home")

OTHER_SCENARIOS = ("costmodel/options.py", "costmodel/operations.py")
"""Engine modules that project other scenarios than the plan: the options operation's
candidates (the ranking) and the Monte Carlo's draws."""


@contextmanager
def plan_projections() -> Iterator[list[str]]:
    """The engine's projections of the plan itself made inside the block: each call of
    :func:`costmodel.projection.project_columns` (every projection of the engine goes through
    it), by the function that called it, apart from those of :data:`OTHER_SCENARIOS`."""
    calls: list[str] = []
    target = costmodel.projection.project_columns.__code__

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is target:
            caller = frame.f_back.f_code
            if not caller.co_filename.endswith(OTHER_SCENARIOS):
                calls.append(caller.co_name)

    sys.setprofile(profile)
    try:
        yield calls
    finally:
        sys.setprofile(None)


def _bound(data: dict) -> PlannerForm:
    form = PlannerForm(data, catalog=catalog_choices())
    assert form.is_valid(), form.errors
    return form


@pytest.mark.parametrize(
    "changes",
    [{}, {"cloud_offering": "aws-p4de-24xlarge"}, {"use_catalog": None}, {"box": "custom"}],
    ids=["offering-left-to-the-catalog", "offering-chosen", "typed", "custom-box"],
)
def test_a_form_is_read_once_and_its_cleaned_data_is_left_as_cleaned(
    client, shipped_catalog, monkeypatch, changes
):
    data = form_data(client, **changes)
    if changes.get("box") == "custom":
        data.pop("preset")
        parts = {"part__gpu-rtx-4090": "2", "part__cpu-desktop-16c": "1"}
        data.update({**parts, "part__psu-silverstone-hela-2050": "1", "scaling_efficiency": "90"})
    form = _bound(data)
    cleaned = copy.deepcopy(form.cleaned_data)
    reads = []
    real = plan_input.read_plan_input
    monkeypatch.setattr(
        plan_input, "read_plan_input", lambda *a, **k: reads.append(1) or real(*a, **k)
    )
    plan = services.plan_from_form(form)
    assert plan is not None, form.errors
    assert len(reads) == 1
    assert form.cleaned_data == cleaned  # nothing was written into the form's data


def test_the_input_is_typed_the_selection_for_a_catalog_plan_the_scenario_for_a_typed_one(
    client, shipped_catalog
):
    catalog = plan_input.plan_input(_bound(form_data(client)))
    assert catalog.use_catalog and catalog.scenario is None
    assert catalog.selection is not None and catalog.selection.preset == "budget-rtx3060"
    typed = plan_input.plan_input(_bound(form_data(client, use_catalog=None)))
    assert not typed.use_catalog and typed.selection is None
    assert typed.scenario is not None and typed.scenario.build.capex > 0


def test_described_jobs_are_converted_once_at_the_reference_gpu(
    client, shipped_catalog, monkeypatch
):
    form = _bound(jobs_data(client, ADAPTER_7B, IMAGENET))
    looked_up = []
    real = plan_input.reference_for
    monkeypatch.setattr(
        plan_input,
        "reference_for",
        lambda slug, day: looked_up.append((slug, day)) or real(slug, day),
    )
    plan = services.plan_from_form(form)
    assert plan is not None, form.errors
    assert looked_up == [("resnet50-fp16", datetime.date.today())]
    assert [job.name for job in plan.scenario.workload.jobs] == [
        ADAPTER_7B["name"],
        IMAGENET["name"],
    ]
    assert [item.get("role") for item in plan.provenance].count("training job") == 2


@pytest.mark.parametrize(
    "changes", [{}, {"cloud_offering": "aws-p4de-24xlarge"}, {"use_catalog": None}]
)
def test_the_plan_is_projected_once_when_the_form_is_posted(client, shipped_catalog, changes):
    data = form_data(client, **changes)
    with plan_projections() as posted:
        response = client.post(HOME, data)
    assert response.status_code == 302
    assert posted == ["project"]  # does it compute? (webapp.scenarios.services)


@pytest.mark.parametrize(
    "changes", [{}, {"cloud_offering": "aws-p4de-24xlarge"}, {"use_catalog": None}]
)
def test_the_results_page_projects_the_plan_once(client, shipped_catalog, changes):
    response = client.post(HOME, form_data(client, **changes))
    with plan_projections() as shown:
        page = client.get(response["Location"])
    assert page.status_code == 200
    # the verdict's projection, whose row 0 is the plan, is also what the books read
    assert shown == ["_with_sweep"]
    assert page.context["finance"]["table"]  # the books are on the page


def test_a_ranking_row_reopens_as_a_plan_of_its_own(client, shipped_catalog):
    response = client.post(HOME, form_data(client))
    code = code_of(response["Location"])
    row = client.get(
        reverse("planner:results-option"), {"from": code, "offering": "aws-p4de-24xlarge"}
    )
    assert row.status_code == 302
    plan, other = decode(code), link_of(row["Location"])
    assert other.selection["cloud_offering"] == "aws-p4de-24xlarge"
    assert other.selection["preset"] == plan.selection["preset"]
    assert other.scenario.workload == plan.scenario.workload  # the same work
    assert other.overrides == [] and other.ranges is None


def test_the_page_of_a_plan_with_its_own_ranges_links_to_them(client, shipped_catalog):
    data = form_data(client, range_utilization_low="5")
    plan = link_of(client.post(HOME, data)["Location"])
    utilization = next(r for r in plan.ranges if r.path == "workload.utilization")
    assert utilization.low == pytest.approx(0.05)
    page = results_context(plan)  # no code given: the page makes the plan's own
    assert decode(page["permalink"]).ranges == plan.ranges

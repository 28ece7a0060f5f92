"""The options operation's build plans on random requests, against every pair compared.

A build plan is the box with the offering that gives it the lowest build present value
(ties: the first name in code-point order) among the offerings that may rent the jobs
the box cannot hold. The reference here compares the box with each such offering, one
``compare`` per pair, and takes the cheapest, first name on a tie: the operation must
name the same offering and give the same figures, whether the box rents (burst, jobs it
cannot hold) or not.
"""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import every_scenario, v2_builds, v2_rents

from costmodel import ScenarioError, compare
from costmodel.options import OptionsRequest, options, parse_options, with_box
from costmodel.scenario import JobsWorkload, memory_of

NAMES = ["a", "B", "b", "Zeta", "zeta", "é", "offering 10", "offering 9"]
"""Offering names whose code-point order is not their alphabetical one."""


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    """An options request: any scenario (up to 60 months), 1..4 boxes, 1..5 offerings, some
    offerings twice under two names (a tie the name must break)."""
    scenario = draw(every_scenario())
    scenario["horizon_months"] = min(scenario["horizon_months"], 60)
    boxes = draw(st.lists(v2_builds(), min_size=1, max_size=4))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=5, unique=True))
    offerings = [draw(v2_rents()) for _ in names]
    for k in range(1, len(names)):
        if draw(st.booleans()):
            offerings[k] = offerings[draw(st.integers(0, k - 1))]  # the same offering
    return {
        "scenario": scenario,
        "builds": [{"name": f"box {i}", "build": b} for i, b in enumerate(boxes)],
        "rents": [{"name": n, "rent": r} for n, r in zip(names, offerings, strict=True)],
    }


def cheapest_pair(request: OptionsRequest, i: int) -> dict[str, Any] | None:
    """Box ``i`` compared with every offering that may rent what it cannot hold: the
    cheapest build side (the first name on a tie), as a build plan; None if none may."""
    scenario = request.scenario
    build = request.builds[i].build
    jobs = scenario.workload.jobs if isinstance(scenario.workload, JobsWorkload) else []
    box = memory_of(build.gpu_count, build.gpu_memory_gb)
    rented = [job.memory_gb for job in jobs if (job.memory_gb or 0.0) > box]
    best: dict[str, Any] | None = None
    for option in sorted(request.rents, key=lambda r: r.name):
        if any(m > memory_of(option.rent.gpu_count, option.rent.gpu_memory_gb) for m in rented):
            continue
        pair = with_box(scenario, build).model_copy(update={"rent": option.rent})
        side = compare(pair)["build"]
        if best is None or side["present_value"] < best["present_value"]:
            best = {
                "kind": "build",
                "build": request.builds[i].name,
                "rent": option.name,
                "present_value": side["present_value"],
                "total": side["total_net"],
            }
    return best


@settings(max_examples=60, deadline=None)
@given(requests())
def test_each_build_plan_is_its_boxs_cheapest_pair(data: dict[str, Any]) -> None:
    request = parse_options(data)
    try:
        answer = options(request)
    except ScenarioError:
        assume(False)  # inputs too large for finite figures: refused, nothing to compare
        raise
    builds = {plan["build"]: plan for plan in answer["plans"] if plan["kind"] == "build"}
    infeasible = {i["build"] for i in answer["infeasible"] if i["kind"] == "build"}
    for i, option in enumerate(request.builds):
        assert (option.name in builds) != (option.name in infeasible)
        if option.name in builds:
            assert builds[option.name] == cheapest_pair(request, i)
        elif cheapest_pair(request, i) is not None:  # it may rent its jobs: too much work
            assert {"kind": "build", "build": option.name, "reason": "capacity"} in (
                answer["infeasible"]
            )

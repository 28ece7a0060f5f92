"""The test strategies draw every numeric field of the scenario, read from its pydantic models.

A field added to the scenario without a strategy would leave every property test
blind to it (the review that found this added a cost line that no property test
ever set). Here each numeric field of :class:`costmodel.Scenario`, found by walking
its models, must be drawn non-zero by :func:`strategies.every_scenario`, and every
input of :func:`strategies.nonzero_scenarios` is non-zero in every draw.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from typing import Annotated, Any, Union, get_args, get_origin

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from pydantic import BaseModel
from strategies import every_scenario, nonzero_scenarios

from costmodel import Scenario, ScenarioError, parse_scenario
from costmodel.lines import LINES

Path = tuple[str, ...]
EACH = "*"
"""A path step into every item of a list."""


def leaves(annotation: Any) -> Iterator[Any]:
    """The types a field's annotation allows: unions, optionals and ``Annotated`` unwrapped."""
    origin = get_origin(annotation)
    if origin is Annotated:
        yield from leaves(get_args(annotation)[0])
    elif origin in (Union, types.UnionType):
        for arg in get_args(annotation):
            yield from leaves(arg)
    else:
        yield annotation


def numeric_paths(model: type[BaseModel], prefix: Path = ()) -> Iterator[Path]:
    """Every path to a number in ``model``: ``("build", "capex")``, a list's items as ``*``,
    and the fields of each member of a union of models (the workload kinds) under one prefix."""
    for name, info in model.model_fields.items():
        path = (*prefix, name)
        for leaf in leaves(info.annotation):
            yield from _paths_of(leaf, path)


def _paths_of(leaf: Any, path: Path) -> Iterator[Path]:
    if leaf is bool or leaf is type(None) or leaf is str or get_origin(leaf) is typing.Literal:
        return
    if leaf in (int, float):
        yield path
    elif get_origin(leaf) is list:
        for item in leaves(get_args(leaf)[0]):
            yield from _paths_of(item, (*path, EACH))
    elif isinstance(leaf, type) and issubclass(leaf, BaseModel):
        yield from numeric_paths(leaf, path)
    else:
        raise AssertionError(f"{'.'.join(path)}: a field of type {leaf!r} the walk cannot read")


SCENARIO_PATHS = sorted(set(numeric_paths(Scenario)))


def values_at(data: Any, path: Path) -> Iterator[Any]:
    """The values at ``path`` in a drawn scenario (none when a part is left out)."""
    if not path:
        yield data
    elif path[0] == EACH:
        for item in data if isinstance(data, list) else []:
            yield from values_at(item, path[1:])
    elif isinstance(data, dict) and path[0] in data:
        yield from values_at(data[path[0]], path[1:])


def numbers_at(data: Any, path: Path) -> list[float]:
    """The numbers at ``path``, a number-or-list field (runs per month) read as both."""
    found: list[float] = []
    for value in values_at(data, path):
        found += value if isinstance(value, list) else [value]
    if path[-1] != EACH:
        for value in values_at(data, (*path, EACH)):
            found.append(value)
    return [v for v in found if isinstance(v, int | float) and not isinstance(v, bool)]


def valid(data: dict[str, Any]) -> bool:
    """A scenario the engine takes (a jobs workload may ask for more than 8 boxes)."""
    try:
        parse_scenario(data)
    except ScenarioError:
        return False
    return True


def test_the_walk_finds_the_fields_a_reader_knows() -> None:
    dotted = {".".join(p) for p in SCENARIO_PATHS}
    assert {
        "horizon_months",
        "build.capex",
        "build.financing.term_months",
        "rent.committed_instances",
        "workload.utilization",
        "workload.monthly_utilization.*",
        "workload.jobs.*.reference_gpu_hours",
    } <= dotted
    # Every fixed monthly fee's input is a scenario field (costmodel.lines).
    assert {f"{line.side}.{line.fee.field}" for line in LINES if line.fee} <= dotted


@pytest.mark.parametrize("path", SCENARIO_PATHS, ids=".".join)
def test_every_numeric_field_is_drawn_and_not_only_as_zero(path: Path) -> None:
    find(  # a valid scenario that gives the field a value other than zero
        every_scenario(),
        lambda data: any(v != 0 for v in numbers_at(data, path)) and valid(data),
        settings=settings(
            max_examples=2000,
            database=None,
            phases=[Phase.generate],  # found is enough: no shrinking to the smallest
            suppress_health_check=list(HealthCheck),
        ),
    )


NONZERO_EXEMPT = {("workload", "jobs", EACH, "reference_gpu_hours"),
                  ("workload", "jobs", EACH, "runs_per_month"),
                  ("workload", "jobs", EACH, "memory_gb")}  # fmt: skip
"""Jobs are not drawn by :func:`nonzero_scenarios` (the workbook tests read them elsewhere)."""


@settings(max_examples=40, deadline=None)
@given(nonzero_scenarios())
def test_a_nonzero_scenario_gives_every_numeric_field_a_nonzero_value(data: dict[str, Any]) -> None:
    parse_scenario(data)
    kind = data["workload"]["kind"]
    for path in SCENARIO_PATHS:
        if path in NONZERO_EXEMPT or (path[0] == "workload" and not numbers_at(data, path)):
            continue  # another workload kind's field
        numbers = numbers_at(data, path)
        assert numbers and all(v != 0 for v in numbers), (kind, ".".join(path), numbers)

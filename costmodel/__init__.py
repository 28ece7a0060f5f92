"""Cost engine: build-vs-rent projections for GPU training capacity.

Pure numpy + pydantic; never imports Django. See ``docs/methodology.md``.

>>> from costmodel import Scenario, project
>>> result = project([Scenario.model_validate(data)]).result(0)  # doctest: +SKIP
"""

from costmodel.errors import (
    FieldError,
    ScenarioError,
    UnreadableInput,
    field_errors,
    parse_scenario,
    parse_scenario_json,
)
from costmodel.projection import Projection, compare, project
from costmodel.scenario import (
    HOURS_PER_MONTH,
    Build,
    Financing,
    ProfileWorkload,
    Rent,
    Scenario,
    SteadyWorkload,
    TidalWorkload,
    Workload,
)

__all__ = [
    "HOURS_PER_MONTH",
    "Build",
    "FieldError",
    "Financing",
    "ProfileWorkload",
    "Projection",
    "Rent",
    "Scenario",
    "ScenarioError",
    "SteadyWorkload",
    "TidalWorkload",
    "UnreadableInput",
    "Workload",
    "compare",
    "field_errors",
    "parse_scenario",
    "parse_scenario_json",
    "project",
]

"""Cost engine: build-vs-rent projections for GPU training capacity.

Pure numpy + pydantic; never imports Django. See ``docs/methodology.md``.

>>> from costmodel import compare, parse_scenario
>>> result = compare(parse_scenario(data))  # doctest: +SKIP

Layout: ``scenario`` (the validated input), ``columns`` (N scenarios as
arrays), ``projection`` (the methodology on columns), ``results`` (the result
schema), ``operations`` (tornado, uncertainty, fleet, commitment),
``sensitivity`` (the planner's sweeps), ``decision`` (the verdict as codes),
``training`` (training runs as reference GPU-hours), ``sizing`` (the
advisor's rules).
"""

from costmodel.columns import Columns, columns_from, variants
from costmodel.errors import (
    FieldError,
    ScenarioError,
    UnreadableInput,
    field_errors,
    parse_scenario,
    parse_scenario_json,
)
from costmodel.projection import (
    Projection,
    ProjectionOverflowError,
    compare,
    project,
    project_columns,
)
from costmodel.scenario import (
    HOURS_PER_MONTH,
    Build,
    Financing,
    Job,
    JobsWorkload,
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
    "Columns",
    "FieldError",
    "Financing",
    "Job",
    "JobsWorkload",
    "ProfileWorkload",
    "Projection",
    "ProjectionOverflowError",
    "Rent",
    "Scenario",
    "ScenarioError",
    "SteadyWorkload",
    "TidalWorkload",
    "UnreadableInput",
    "Workload",
    "columns_from",
    "compare",
    "field_errors",
    "parse_scenario",
    "parse_scenario_json",
    "project",
    "project_columns",
    "variants",
]

"""Validation errors that name the field: ``build.capex: must be greater than or equal to 0``.

Every edge (CLI, API, form, CSV import) turns pydantic's errors into this one
shape so that a user reads the same message wherever the input came from.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from costmodel.paths import with_path
from costmodel.scenario import Scenario

_WORKLOAD_KINDS = {"steady", "tidal", "profile", "jobs"}
_RUNS_KINDS = {"number", "list"}
_DISTRIBUTION_KINDS = {"triangular", "uniform"}
_TAGS = {
    "workload": "'steady', 'tidal', 'profile', 'jobs'",
    "distributions": "'triangular', 'uniform'",
}


@dataclass(frozen=True)
class FieldError:
    """One problem with the input: a dotted field path and a message."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"

    def as_dict(self) -> dict[str, str]:
        return {"field": self.field, "message": self.message}


class ScenarioError(ValueError):
    """Raised when input is not a valid explicit scenario; carries every problem found."""

    def __init__(self, errors: list[FieldError]) -> None:
        self.errors = errors
        super().__init__("; ".join(str(e) for e in errors))


class UnreadableInput(ScenarioError):
    """Raised when the input is not a JSON document at all (its one error names ``(input)``)."""


def _path(loc: tuple[int | str, ...]) -> list[str]:
    parts = [str(p) for p in loc]
    # Pydantic puts the discriminator's tag into the location of a tagged-union
    # member ("workload.steady.utilization"); the user wrote "workload.utilization".
    # The same holds for a distribution's kind in an uncertainty request, and for
    # a job's runs per month (one number, or a list).
    return [
        p
        for i, p in enumerate(parts)
        if not (i > 0 and parts[i - 1] == "workload" and p in _WORKLOAD_KINDS)
        and not (i > 1 and parts[i - 2] == "distributions" and p in _DISTRIBUTION_KINDS)
        and not (i > 0 and parts[i - 1] == "runs_per_month" and p in _RUNS_KINDS)
    ]


def _message(error: Any) -> tuple[list[str], str]:
    kind = error["type"]
    parts = _path(error["loc"])
    msg: str = error["msg"]
    ctx = error.get("ctx") or {}
    if "path" in ctx:  # a rule of the whole scenario that names the field it is about
        return [*parts, *str(ctx["path"]).split(".")], msg
    if kind == "missing":
        return parts, "is required"
    if kind == "extra_forbidden":
        return parts, "is not a known field"
    tags = _TAGS["distributions" if "distributions" in parts[:-1] else "workload"]
    if kind == "union_tag_invalid":
        return [*parts, "kind"], f"must be one of {tags}"
    if kind == "union_tag_not_found":
        return [*parts, "kind"], f"is required (one of {tags})"
    if kind == "string_pattern_mismatch" and parts[-1:] == ["currency"]:
        return parts, "must be three upper-case letters (an ISO 4217 code such as CNY or USD)"
    if kind in {"model_type", "dict_type", "model_attributes_type"}:
        return parts, "must be an object"
    if kind == "value_error":
        text = str(ctx.get("error", msg.removeprefix("Value error, ")))
        field, sep, rest = text.partition(": ")
        if sep and field.isidentifier():
            return [*parts, field], rest
        return parts, text
    for prefix in (
        "Input should be",
        "String should",
        "List should",
        "Dictionary should",
        "Value should",
    ):
        if msg.startswith(prefix):
            verb = "must be" if prefix == "Input should be" else "must"
            msg = verb + msg[len(prefix) :]
            break
    return parts, msg


def field_errors(exc: ValidationError, prefix: tuple[str, ...] = ()) -> list[FieldError]:
    """Translate a pydantic ``ValidationError`` into errors that name the field path."""
    out = []
    for error in exc.errors(include_url=False):
        parts, message = _message(error)
        path = ".".join([*prefix, *parts]) or "(scenario)"
        out.append(FieldError(path, message))
    return out


def parse_scenario(data: object) -> Scenario:
    """Validate already-decoded JSON data as a :class:`Scenario` or raise :class:`ScenarioError`."""
    if not isinstance(data, dict):
        raise ScenarioError([FieldError("(scenario)", "must be a JSON object")])
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(field_errors(exc)) from None


def with_fields(scenario: Scenario, values: Mapping[str, Any]) -> Scenario:
    """``scenario`` with each dotted field of ``values`` set, validated once as a whole.

    Raises :class:`ScenarioError` naming the field when a value (or the
    combination, such as idle power above load power) is not valid.

    >>> with_fields(scenario, {"build.capex": 12_000.0}).build.capex  # doctest: +SKIP
    12000.0
    """
    data = scenario.model_dump(mode="json")
    for path, value in values.items():
        data = with_path(data, path, value)
    return parse_scenario(data)


def load_json(text: str | bytes) -> object:
    """Decode JSON text, turning every decoding failure into :class:`UnreadableInput`."""
    try:
        return json.loads(text)
    except UnicodeDecodeError:
        raise UnreadableInput([FieldError("(input)", "is not UTF-8 text")]) from None
    except json.JSONDecodeError as exc:
        detail = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
        raise UnreadableInput([FieldError("(input)", f"is not valid JSON: {detail}")]) from None
    except RecursionError:
        raise UnreadableInput([FieldError("(input)", "is nested too deeply")]) from None
    except ValueError:
        # json raises a plain ValueError for an integer beyond Python's 4300-digit limit.
        raise UnreadableInput(
            [FieldError("(input)", "holds a number too long to read (over 4300 digits)")]
        ) from None


def parse_scenario_json(text: str | bytes) -> Scenario:
    """Decode and validate JSON text as a :class:`Scenario`, or raise :class:`ScenarioError`.

    A valid document is validated by pydantic-core in one pass over the text
    (no intermediate Python objects). Anything that pass refuses is decoded
    and validated again by :func:`load_json` and :func:`parse_scenario`, so the
    errors (and :class:`UnreadableInput` for text that is not JSON) are exactly
    those of every other edge. Both passes apply the same strict rules; a test
    checks that they accept the same documents and build equal scenarios.
    """
    try:
        return Scenario.model_validate_json(text)
    except ValidationError:
        pass
    return parse_scenario(load_json(text))

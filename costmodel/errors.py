"""Validation errors that name the field: ``build.capex: must be greater than or equal to 0``.

Every edge (CLI, API, form, CSV import) turns pydantic's errors into this one
shape so that a user reads the same message wherever the input came from.

Each error also carries a stable ``code`` and its ``params`` (the figures the
message quotes), so that an edge can word it in the user's language without
reading the English message. For pydantic's own checks the code is
pydantic's error ``type`` (``greater_than_equal``, ``missing``,
``extra_forbidden``, …, https://docs.pydantic.dev/latest/errors/validation_errors/)
and the params its ``ctx`` (``{"ge": 0.0}``); the engine's own rules have the
codes of :data:`ENGINE_CODES`.
"""

from __future__ import annotations

import dataclasses
import json
import re
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


ENGINE_CODES: dict[str, str] = {
    "invalid": "a problem without a more precise code (the message says what)",
    "idle_above_load": "idle power above load power; params: none",
    "jobs_month_above_limit": "a month of jobs above 8 boxes' work; params: month, "
    "utilization, limit",
    "memory": "a job whose memory fits neither the box nor the instance (version 4); params: "
    "memory_gb, box_memory_gb, instance_memory_gb",
    "rent_memory": "a job the box holds and the instance does not: renting could not do the "
    "work (version 4); params: memory_gb, box_memory_gb (null: no limit), instance_memory_gb",
    "duplicate_name": "an options request naming two boxes, or two offerings, alike; params: name",
    "low_above_high": "a range's low above its high",
    "mode_outside_range": "a triangular mode outside low..high",
    "workload_not_shareable": "a fleet of a workload that cannot be shared among boxes",
    "not_a_numeric_field": "a path that names no numeric field of the scenario",
    "whole_number_required": "a fractional value for a whole-number field",
    "not_drawable": "a whole-number field in an uncertainty request",
    "idle_drawn_above_load": "idle and load power ranges that could cross",
    "committed_rate_required": "a commitment analysis without a committed hourly rate",
    "overflow": "inputs so large that a result is not a finite number",
    "not_an_object": "a document that is not a JSON object",
    "unreadable": "input that cannot be read, decoded or written; params: reason",
    "given_twice": "the same range given twice",
    "not_an_uncertain_input": "a range over an input the planner does not range over",
}
"""The engine's own error codes (pydantic's checks use pydantic's error types)."""


@dataclass(frozen=True)
class FieldError:
    """One problem with the input: a dotted field path, a message, and its code and params.

    ``code`` and ``params`` say the same as ``message`` as data (see the
    module's docstring); they take no part in comparing errors.
    """

    field: str
    message: str
    code: str = dataclasses.field(default="invalid", compare=False)
    params: dict[str, Any] = dataclasses.field(default_factory=dict, compare=False, hash=False)

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


def _json_safe(value: Any) -> Any:
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return str(value)


def _params(ctx: Mapping[str, Any]) -> dict[str, Any]:
    """An error's ``ctx`` as JSON-safe params (without the ``path`` our own rules add)."""
    return {k: _json_safe(v) for k, v in ctx.items() if k not in {"path", "error"}}


def _message(error: Any) -> tuple[list[str], str]:
    kind = error["type"]
    parts = _path(error["loc"])
    msg: str = error["msg"]
    ctx = error.get("ctx") or {}
    if "path" in ctx:  # a rule of the whole model that names the field it is about
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
        params = _params(error.get("ctx") or {})
        out.append(FieldError(path, message, code=error["type"], params=params))
    return out


def parse_scenario(data: object) -> Scenario:
    """Validate already-decoded JSON data as a :class:`Scenario` or raise :class:`ScenarioError`."""
    if not isinstance(data, dict):
        raise ScenarioError([FieldError("(scenario)", "must be a JSON object", "not_an_object")])
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


_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")
"""An escape of a UTF-16 surrogate in JSON text (or one already decoded in a str)."""


def load_json(text: str | bytes) -> object:
    """Decode JSON text, turning every decoding failure into :class:`UnreadableInput`.

    JSON may escape a lone UTF-16 surrogate (``"\\ud800"``), which is no
    character: no UTF-8 encoder, database or JSON answer can carry it, so a
    string or key holding one is refused here, by its path.
    """

    def unreadable(message: str, reason: str, **params: Any) -> UnreadableInput:
        error = FieldError("(input)", message, "unreadable", {"reason": reason, **params})
        return UnreadableInput([error])

    try:
        data = json.loads(text)
    except UnicodeDecodeError:
        raise unreadable("is not UTF-8 text", "not_utf8") from None
    except json.JSONDecodeError as exc:
        detail = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
        raise unreadable(
            f"is not valid JSON: {detail}", "not_json", line=exc.lineno, column=exc.colno
        ) from None
    except RecursionError:
        raise unreadable("is nested too deeply", "too_deep") from None
    except ValueError:
        # json raises a plain ValueError for an integer beyond Python's 4300-digit limit.
        raise unreadable(
            "holds a number too long to read (over 4300 digits)", "number_too_long"
        ) from None
    raw = text.decode("utf-8", "ignore") if isinstance(text, bytes) else text
    if _SURROGATE.search(raw):  # valid pairs match too; json.loads joined those
        where = _surrogate_path(data, [])
        if where is not None:
            raise UnreadableInput(
                [
                    FieldError(
                        where or "(input)",
                        "holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is no character",
                        "unreadable",
                        {"reason": "lone_surrogate"},
                    )
                ]
            )
    return data


def _surrogate_path(value: object, path: list[str]) -> str | None:
    """Dotted path of the first string (value or key) holding a lone surrogate; a key that
    holds one is written with the surrogate escaped."""
    if isinstance(value, str):
        return ".".join(path) if _has_surrogate(value) else None
    items: Any
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        if isinstance(key, str) and _has_surrogate(key):
            return ".".join([*path, key.encode("utf-8", "backslashreplace").decode("ascii")])
        found = _surrogate_path(item, [*path, str(key)])
        if found is not None:
            return found
    return None


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)


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

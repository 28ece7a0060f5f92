"""Dotted paths into scenario JSON: ``build.capex``, ``workload.monthly_utilization.0``.

Field errors, overrides and the planner's Advanced fields all name a field by
its dotted path; these two functions are the only code that walks one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def get_path(data: Mapping[str, Any], path: str) -> Any:
    """The value at ``path`` in ``data``, or ``None`` if any part of it is absent.

    >>> get_path({"build": {"capex": 10.0}}, "build.capex")
    10.0
    """
    node: Any = data
    for part in path.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, Mapping) and part in node:
            node = node[part]
        else:
            return None
    return node


def with_path(data: Mapping[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of ``data`` with ``path`` set to ``value`` (missing objects on the way created).

    Only the objects along the path are copied; ``data`` is never changed.

    >>> with_path({"build": {"capex": 10.0}}, "build.capex", 12.0)
    {'build': {'capex': 12.0}}
    """
    head, _, rest = path.partition(".")
    copy = dict(data)
    if not rest:
        copy[head] = value
        return copy
    child = copy.get(head)
    copy[head] = with_path(child if isinstance(child, Mapping) else {}, rest, value)
    return copy

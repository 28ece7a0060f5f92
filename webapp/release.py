"""A digest of the running release: the code and the compiled translations.

Everything in the shared (database) cache is derived from the code: analysis
documents, the checked guide, the catalog's version token. A worker of a new
release must not serve a document an older release computed (with older
formulas, wording or translations), and the database outlives a restart, so
the shared cache's key prefix is this digest: a new release starts with empty
keys, and the old entries age out.

A decision a saved scenario stores at today's prices is made again by a new release of
the code that decides it alone (:data:`DECIDING`), not of the pages around it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

SOURCES = ("costmodel/**/*.py", "webapp/**/*.py", "webapp/**/*.html", "locale/**/*.mo")
"""What a release is made of, relative to the repository root (static files are not:
they carry content hashes of their own)."""

DECIDING = ("costmodel/**/*.py", "webapp/decided.py", "webapp/scenarios/decisions.py")
"""The code that makes the decision a saved scenario stores at today's prices
(:func:`webapp.scenarios.decisions.decide_today`): the engine, the one decision of a plan
and what a saved scenario keeps of it. A decision stored by other code than this is made
again (:func:`webapp.scenarios.services.inputs_digest`); a new template, translation or
page leaves it standing, since it holds no words (a verdict code and figures)."""


def files(root: Path, sources: Sequence[str] = SOURCES) -> list[Path]:
    """The files of ``sources`` (glob patterns relative to ``root``), in digest order."""
    return [path for pattern in sources for path in sorted(root.glob(pattern))]


def release_digest(root: Path, sources: Sequence[str] = SOURCES) -> str:
    """16 hex digits identifying the files of ``sources`` under ``root``, by content."""
    digest = hashlib.blake2b(digest_size=8)
    for path in files(root, sources):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()

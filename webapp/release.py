"""A digest of the running release: the code and the compiled translations.

Everything in the shared (database) cache is derived from the code: analysis
documents, the checked guide, the catalog's version token. A worker of a new
release must not serve a document an older release computed (with older
formulas, wording or translations), and the database outlives a restart, so
the shared cache's key prefix is this digest: a new release starts with empty
keys, and the old entries age out.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

SOURCES = ("costmodel/**/*.py", "webapp/**/*.py", "webapp/**/*.html", "locale/**/*.mo")
"""What a release is made of, relative to the repository root (static files are not:
they carry content hashes of their own)."""


def release_digest(root: Path) -> str:
    """16 hex digits identifying the files of :data:`SOURCES` under ``root``, by content."""
    digest = hashlib.blake2b(digest_size=8)
    for pattern in SOURCES:
        for path in sorted(root.glob(pattern)):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()

"""The shared cache's key prefix follows the release: code and translations, by content."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import caches

from webapp.release import DECIDING, files, release_digest


def _release(root):
    (root / "costmodel").mkdir()
    (root / "costmodel" / "projection.py").write_text("SAVINGS = 1\n")
    (root / "webapp" / "planner" / "templates").mkdir(parents=True)
    (root / "webapp" / "planner" / "templates" / "page.html").write_text("<p>hi</p>")
    (root / "locale" / "zh_Hans" / "LC_MESSAGES").mkdir(parents=True)
    (root / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.mo").write_bytes(b"\x00mo")
    (root / "static").mkdir()
    (root / "static" / "app.css").write_text("p {}")


def test_a_new_formula_template_or_translation_is_a_new_release(tmp_path):
    _release(tmp_path)
    first = release_digest(tmp_path)
    assert release_digest(tmp_path) == first  # by content: the same files, the same digest
    for path, content in (
        ("costmodel/projection.py", "SAVINGS = 2\n"),
        ("webapp/planner/templates/page.html", "<p>hello</p>"),
        ("locale/zh_Hans/LC_MESSAGES/django.mo", "\x00mo2"),
    ):
        before = release_digest(tmp_path)
        (tmp_path / path).write_text(content)
        assert release_digest(tmp_path) != before, path


def test_static_files_are_not_part_of_it(tmp_path):
    # They carry content hashes in their names already.
    _release(tmp_path)
    before = release_digest(tmp_path)
    (tmp_path / "static" / "app.css").write_text("p { color: red }")
    assert release_digest(tmp_path) == before


def _shared_key(root: Path) -> str:
    """The shared cache's key for "k" in a fresh process running the code under ``root``."""
    program = (
        "import django; django.setup(); from django.core.cache import caches; "
        "print(caches['shared'].make_key('k'))"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env = {
        **clean,
        "PYTHONPATH": str(root),
        "DJANGO_SETTINGS_MODULE": "webapp.settings",
        "DJANGO_SECRET_KEY": "release-test",
    }
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=root, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _copy_of_this_release(root: Path) -> Path:
    for part in ("costmodel", "webapp", "locale"):
        shutil.copytree(settings.BASE_DIR / part, root / part)
    return root


def test_the_shared_cache_keys_change_with_the_release_and_only_with_it(tmp_path):
    here = caches["shared"].make_key("k")
    copy = _copy_of_this_release(tmp_path)
    assert _shared_key(copy) == here  # the same files elsewhere: the same release, same keys
    with (copy / "costmodel" / "projection.py").open("a") as source:
        source.write("\n# a new formula\n")
    changed = _shared_key(copy)
    assert changed != here
    assert changed.endswith(":k") and here.endswith(":k")


def test_a_stored_decision_follows_the_code_that_decides_not_the_pages(tmp_path):
    # a saved scenario's decision at today's prices is a verdict code and figures, no words:
    # a new template or translation must not make every one of them be decided again
    _release(tmp_path)
    (tmp_path / "webapp" / "decided.py").write_text("SEED = 0\n")
    (tmp_path / "webapp" / "planner" / "views.py").write_text("VIEW = 1\n")
    for path, content in (
        ("webapp/planner/templates/page.html", "<p>hello</p>"),
        ("locale/zh_Hans/LC_MESSAGES/django.mo", "\x00mo2"),
        ("webapp/planner/views.py", "VIEW = 2\n"),
    ):
        before = release_digest(tmp_path, DECIDING)
        (tmp_path / path).write_text(content)
        assert release_digest(tmp_path, DECIDING) == before, path
    for path, content in (
        ("costmodel/projection.py", "SAVINGS = 2\n"),
        ("webapp/decided.py", "SEED = 1\n"),
    ):
        before = release_digest(tmp_path, DECIDING)
        (tmp_path / path).write_text(content)
        assert release_digest(tmp_path, DECIDING) != before, path


@pytest.mark.parametrize("rate", [2.0, 1e308])  # decided, and too large to be priced
def test_every_project_file_a_stored_decision_runs_is_code_that_decides(scenario, rate):
    from webapp.decided import CACHE
    from webapp.scenarios.decisions import decide_today

    root = Path(settings.BASE_DIR).resolve()
    ran: set[Path] = set()

    def record(frame, event, arg):
        if event == "call":
            ran.add(Path(frame.f_code.co_filename))

    plan = scenario.model_copy(
        update={"rent": scenario.rent.model_copy(update={"hourly_rate": rate})}
    )
    caches[CACHE].clear()  # the Monte Carlo runs, not a cached answer
    sys.setprofile(record)
    try:
        today, problem = decide_today(plan)
    finally:
        sys.setprofile(None)
    assert (today is None) == (rate > 1e300) and (problem != "") == (rate > 1e300)
    ours = {
        path.resolve()
        for path in ran
        if path.is_absolute()
        and path.resolve().is_relative_to(root)
        and not path.resolve().is_relative_to(root / ".venv")
    }
    deciding = {path.resolve() for path in files(root, DECIDING)}
    assert root / "costmodel" / "projection.py" in ours
    assert ours <= deciding, sorted(str(p.relative_to(root)) for p in ours - deciding)

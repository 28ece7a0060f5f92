"""The committed translation catalogues cover every string the source marks for translation.

The catalogue check re-extracts the messages the way `docs/translating.md` says
(`makemessages`) into a temporary copy of the source tree, merges them with the
committed catalogue, and fails on any message that is new (untranslated), that
gettext could only match approximately (fuzzy), or whose translation lost a
placeholder. The page checks compile the committed catalogue with `msgfmt`, so
they test the `.po` file itself, not a stale `.mo` left in the working tree.
"""

from __future__ import annotations

import ast
import gettext
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation
from django.utils.translation import to_locale

# The extraction (makemessages over a copy of the tree, ``merged_catalogues``) is made once per
# module: one xdist worker runs the module, so that the other never makes it a second time.
pytestmark = pytest.mark.xdist_group("translations")

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale"
SOURCE_SUFFIXES = {".py", ".html", ".txt", ".js"}
"""What makemessages reads (django domain: html, txt, py; djangojs domain: js)."""
SKIPPED_DIRS = {".git", ".venv", "locale", "staticfiles", "tests", "node_modules", "__pycache__"}
SKIPPED_PATHS = {Path("static/vendor")}
"""The same exclusions as the documented makemessages command (--ignore=...)."""

TRANSLATED_LANGUAGES = [
    code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE
]

PERCENT_PLACEHOLDER = re.compile(r"%(?:\(\w+\))?[#0 +\-]*(?:\d+|\*)?(?:\.\d+)?[diouxXeEfFgGcrsa%]")
BRACE_PLACEHOLDER = re.compile(r"\{[A-Za-z_]\w*\}")


@dataclass
class Entry:
    msgid: str = ""
    msgid_plural: str | None = None
    msgstrs: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    references: list[str] = field(default_factory=list)

    def where(self) -> str:
        return " ".join(self.references) or "(no reference)"


def parse_po(path: Path) -> list[Entry]:
    """Read the live (non-obsolete) entries of a .po file, header excluded."""
    entries: list[Entry] = []
    for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
        entry = Entry()
        target: str | None = None
        strings: dict[str, str] = {}
        for line in block.splitlines():
            if line.startswith("#~") or not line.strip():
                continue
            if line.startswith("#,"):
                entry.flags |= {flag.strip() for flag in line[2:].split(",")}
            elif line.startswith("#:"):
                entry.references += line[2:].split()
            elif line.startswith("#"):
                continue
            elif line.startswith('"'):
                assert target is not None, f"{path}: continuation line without a keyword: {line}"
                strings[target] += ast.literal_eval(line)
            else:
                keyword, _space, value = line.partition(" ")
                target = keyword
                strings[target] = ast.literal_eval(value)
        if "msgid" not in strings or strings["msgid"] == "":
            continue
        entry.msgid = strings["msgid"]
        entry.msgid_plural = strings.get("msgid_plural")
        if entry.msgid_plural is None:
            entry.msgstrs = [strings.get("msgstr", "")]
        else:
            entry.msgstrs = [v for k, v in sorted(strings.items()) if k.startswith("msgstr[")]
        entries.append(entry)
    return entries


def placeholders(text: str, flags: set[str]) -> set[str]:
    found = set(BRACE_PLACEHOLDER.findall(text))
    if "python-format" in flags:
        found |= set(PERCENT_PLACEHOLDER.findall(text))
    return found


def _copy_sources(destination: Path) -> None:
    for directory, subdirs, files in os.walk(ROOT):
        relative = Path(directory).relative_to(ROOT)
        subdirs[:] = [
            d for d in subdirs if d not in SKIPPED_DIRS and relative / d not in SKIPPED_PATHS
        ]
        for name in files:
            if Path(name).suffix in SOURCE_SUFFIXES:
                target = destination / relative / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(directory) / name, target)


def _require_gettext_tools() -> None:
    missing = [tool for tool in ("xgettext", "msgmerge", "msgfmt") if shutil.which(tool) is None]
    assert not missing, f"GNU gettext tools missing: {missing} (Debian package 'gettext')"


@pytest.fixture(scope="module")
def merged_catalogues(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, list[Entry]]:
    """A fresh extraction of the source merged into a copy of every committed catalogue."""
    _require_gettext_tools()
    tree = tmp_path_factory.mktemp("i18n-tree")
    _copy_sources(tree)
    shutil.copytree(LOCALE, tree / "locale")
    locales = [to_locale(code) for code in TRANSLATED_LANGUAGES]
    script = (
        "import django\n"
        "from django.core.management import call_command\n"
        "django.setup()\n"
        "for domain in ('django', 'djangojs'):\n"
        f"    call_command('makemessages', locale={locales!r}, domain=domain,\n"
        "                 no_obsolete=True, verbosity=0)\n"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "webapp.settings",
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or "translation-check",
        "PYTHONPATH": str(tree),
    }
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=tree, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    return {
        path.relative_to(tree / "locale"): parse_po(path)
        for path in sorted((tree / "locale").glob("*/LC_MESSAGES/*.po"))
    }


@pytest.mark.parametrize("language", TRANSLATED_LANGUAGES)
def test_every_translated_language_has_a_committed_catalogue(language):
    catalogue = LOCALE / to_locale(language) / "LC_MESSAGES" / "django.po"
    assert catalogue.is_file(), f"{catalogue} is missing; see docs/translating.md"


def test_the_extraction_finds_the_messages_the_source_marks(merged_catalogues):
    chinese = merged_catalogues[Path("zh_Hans/LC_MESSAGES/django.po")]
    msgids = {entry.msgid for entry in chinese}
    assert len(msgids) > 100
    assert "Break-even utilization" in msgids


def test_no_message_is_left_untranslated(merged_catalogues):
    untranslated = [
        f"{catalogue}: {entry.where()}: {entry.msgid!r}"
        for catalogue, entries in merged_catalogues.items()
        for entry in entries
        if not all(entry.msgstrs)
    ]
    assert not untranslated, "untranslated (run makemessages and translate):\n" + "\n".join(
        untranslated
    )


def test_no_translation_is_fuzzy(merged_catalogues):
    fuzzy = [
        f"{catalogue}: {entry.where()}: {entry.msgid!r}"
        for catalogue, entries in merged_catalogues.items()
        for entry in entries
        if "fuzzy" in entry.flags
    ]
    assert not fuzzy, "fuzzy (check the translation, then drop the flag):\n" + "\n".join(fuzzy)


def test_every_placeholder_survives_translation(merged_catalogues):
    broken = []
    for catalogue, entries in merged_catalogues.items():
        for entry in entries:
            expected = placeholders(entry.msgid, entry.flags)
            if entry.msgid_plural is not None:
                expected |= placeholders(entry.msgid_plural, entry.flags)
            for msgstr in entry.msgstrs:
                if msgstr and placeholders(msgstr, entry.flags) != expected:
                    broken.append(f"{catalogue}: {entry.where()}: {entry.msgid!r} -> {msgstr!r}")
    assert not broken, "placeholders differ:\n" + "\n".join(broken)


@pytest.mark.parametrize("catalogue", sorted(LOCALE.glob("*/LC_MESSAGES/*.po")), ids=str)
def test_the_committed_catalogue_compiles_with_format_checks(catalogue, tmp_path):
    _require_gettext_tools()
    run = subprocess.run(
        ["msgfmt", "--check", "-o", str(tmp_path / "out.mo"), str(catalogue)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr


def test_the_chinese_catalogue_declares_one_plural_form():
    header = (LOCALE / "zh_Hans" / "LC_MESSAGES" / "django.po").read_text(encoding="utf-8")
    assert '"Plural-Forms: nplurals=1; plural=0;\\n"' in header


@pytest.fixture
def compiled_locale(tmp_path, settings):
    """The committed catalogues compiled into a temporary LOCALE_PATHS entry."""
    _require_gettext_tools()
    for po in LOCALE.glob("*/LC_MESSAGES/*.po"):
        mo = tmp_path / po.relative_to(LOCALE).with_suffix(".mo")
        mo.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["msgfmt", "-o", str(mo), str(po)], check=True)
    settings.LOCALE_PATHS = [tmp_path]
    yield tmp_path
    translation.activate(settings.LANGUAGE_CODE)


CJK = re.compile(r"[\u4e00-\u9fff]")


def _title(html: str) -> str:
    match = re.search(r"<title>(.*?)</title>", html, re.S)
    assert match, "the page has no <title>"
    return match.group(1).strip()


@pytest.mark.django_db
def test_the_home_page_speaks_chinese_to_a_chinese_browser(client, compiled_locale):
    catalogue = compiled_locale / "zh_Hans" / "LC_MESSAGES" / "django.mo"
    with catalogue.open("rb") as handle:
        chinese = gettext.GNUTranslations(handle)
    heading = chinese.gettext("Should we build our own GPU training box, or rent cloud GPUs?")
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9,en;q=0.5")
    html = response.content.decode()
    assert response.status_code == 200
    assert '<html lang="zh-hans">' in html
    assert _title(html) == chinese.gettext("Build or rent GPUs")
    assert CJK.search(_title(html))
    assert heading in html and CJK.search(heading)
    assert "Should we build our own GPU training box" not in html


@pytest.mark.django_db
def test_the_home_page_speaks_english_to_an_english_browser(client, compiled_locale):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    html = response.content.decode()
    assert response.status_code == 200
    assert '<html lang="en">' in html
    assert _title(html) == "Build or rent GPUs"
    assert "Should we build our own GPU training box, or rent cloud GPUs?" in html
    assert not CJK.search(_title(html))

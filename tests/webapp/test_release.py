"""The shared cache's key prefix follows the release: code and translations, by content."""

from django.conf import settings

from webapp.release import release_digest


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


def test_the_shared_cache_keys_start_with_this_release():
    assert settings.CACHES["shared"]["KEY_PREFIX"] == release_digest(settings.BASE_DIR)

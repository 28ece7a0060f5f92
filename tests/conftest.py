"""Fixtures for the whole suite."""

import pytest
from django.utils import translation


@pytest.fixture(autouse=True)
def _english_unless_a_test_says_otherwise():
    """Every test starts in the default language.

    A request in Chinese leaves zh-hans active in the worker's thread; without
    this, whichever test runs next on that worker would see Chinese messages.
    """
    translation.activate("en")
    yield
    translation.activate("en")

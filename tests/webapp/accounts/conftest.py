import pytest

from .factories import people


@pytest.fixture
def team(db):
    return people()

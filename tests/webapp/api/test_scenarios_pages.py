"""GET /api/v1/scenarios in pages: django-ninja's pagination over Django's Paginator."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.webapp.accounts.factories import people
from tests.webapp.api.conftest import script_of
from webapp.scenarios.models import SavedScenario
from webapp.scenarios.services import create_saved_scenario

pytestmark = pytest.mark.django_db

URL = "/api/v1/scenarios"


@pytest.fixture
def team(db):
    return people()


def saved_rows(owner, team, scenario, count: int) -> list[str]:
    """``count`` saved scenarios of ``owner`` shared with ``team``, one created per minute
    (the first saved through the service, its copies in one INSERT); their ids, newest first."""
    first = create_saved_scenario(name="row 0", scenario=scenario, user=owner, team=team)
    start = timezone.now() - datetime.timedelta(days=1)
    copies = [
        SavedScenario(
            name=f"row {i}",
            scenario=first.scenario,
            owner=owner,
            team=team,
            decision_code=first.decision_code,
            decision_savings=first.decision_savings,
        )
        for i in range(1, count)
    ]
    SavedScenario.objects.bulk_create(copies)
    for i, row in enumerate([first, *copies]):
        SavedScenario.objects.filter(pk=row.pk).update(
            created_at=start + datetime.timedelta(minutes=i)
        )
    newest_first = SavedScenario.objects.order_by("-created_at").values_list("pk", flat=True)
    return [str(pk) for pk in newest_first]


def test_pages_of_fifty_newest_first_cover_every_row_once(team, scenario):
    ids = saved_rows(team.alice, team.vision, scenario, 120)
    bob = script_of(team.bob)  # a member of the team sees them all

    answers = [bob.get(URL, {"page": n}).json() for n in (1, 2, 3)]

    assert [(a["count"], a["page"], a["pages"]) for a in answers] == [
        (120, 1, 3),
        (120, 2, 3),
        (120, 3, 3),
    ]
    assert [len(a["items"]) for a in answers] == [50, 50, 20]
    assert [item["id"] for a in answers for item in a["items"]] == ids
    first = answers[0]["items"][0]
    assert first == bob.get(f"{URL}/{first['id']}").json()  # the same fields as by id


def test_a_page_past_the_last_answers_the_last_page(team, scenario):
    saved_rows(team.alice, team.vision, scenario, 120)
    alice = script_of(team.alice)

    for page in ("4", "99", str(10**30)):
        answer = alice.get(URL, {"page": page})
        assert answer.status_code == 200
        assert (answer.json()["page"], len(answer.json()["items"])) == (3, 20)


def test_page_size_is_the_callers_up_to_the_limit(team, scenario):
    saved_rows(team.alice, team.vision, scenario, 250)
    alice = script_of(team.alice)

    small = alice.get(URL, {"page_size": 7, "page": 2}).json()
    assert (len(small["items"]), small["page"], small["pages"]) == (7, 2, 36)
    large = alice.get(URL, {"page_size": 100_000}).json()
    assert (len(large["items"]), large["pages"]) == (200, 2)  # at most 200 a page


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"page": "0"}, "page"),
        ({"page": "-3"}, "page"),
        ({"page": "two"}, "page"),
        ({"page_size": "0"}, "page_size"),
        ({"page_size": "many"}, "page_size"),
    ],
)
def test_a_page_or_size_that_is_not_a_positive_number_is_a_422_naming_it(team, params, field):
    answer = script_of(team.alice).get(URL, params)

    assert answer.status_code == 422
    assert [e["field"] for e in answer.json()["errors"]] == [field]


def test_a_page_takes_the_same_queries_for_ten_rows_as_for_a_thousand(team, scenario):
    alice = script_of(team.alice)
    counts = []
    for total in (10, 1000):
        SavedScenario.objects.all().delete()
        saved_rows(team.alice, team.vision, scenario, total)
        with CaptureQueriesContext(connection) as queries:
            assert alice.get(URL).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 6

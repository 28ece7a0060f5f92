"""The saved list (and its compare picker) does not grow with the data: 50 rows a page,
filtered and ordered in the database, each row showing the decision stored with it."""

import datetime
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.webapp.accounts.factories import people, signed_in
from webapp.planner.views import SAVED_PAGE_SIZE
from webapp.scenarios.decisions import decision_of, saved_fields, stored
from webapp.scenarios.models import SavedScenario

pytestmark = pytest.mark.django_db

ROW = re.compile(r'<tr data-saved="([0-9a-f-]+)">')


@pytest.fixture
def cast():
    return people()


def rows(owner, team, scenario, count, *, start=0, **fields):
    """``count`` saved rows as a save makes them (decision stored), written in one batch."""
    decision = saved_fields(stored(decision_of(scenario)))
    data = scenario.model_dump(mode="json")
    now = timezone.now()
    made = SavedScenario.objects.bulk_create(
        SavedScenario(
            name=f"box {start + i:04d}",
            scenario=data,
            owner=owner,
            team=team,
            **{**decision, **fields},
        )
        for i in range(count)
    )
    for i, item in enumerate(made):  # distinct dates, oldest first
        item.created_at = now - datetime.timedelta(minutes=count - i)
    SavedScenario.objects.bulk_update(made, ["created_at"])
    return made


def listed(client, **params):
    response = client.get(reverse("planner:saved-list"), params, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    return response, ROW.findall(response.content.decode())


def page_queries(client) -> int:
    with CaptureQueriesContext(connection) as queries:
        _, shown = listed(client)
    assert len(shown) == min(SavedScenario.objects.count(), SAVED_PAGE_SIZE)
    return len(queries)


def test_a_page_costs_the_same_queries_for_10_and_1000_rows(cast, scenario):
    client = signed_in(cast.bob)
    rows(cast.alice, cast.vision, scenario, 10)
    listed(client)  # the first request of a session does a little more, once
    ten = page_queries(client)
    rows(cast.alice, cast.vision, scenario, 990, start=10)
    assert page_queries(client) == ten <= 15
    # a filtered, ordered, later page too
    with CaptureQueriesContext(connection) as queries:
        listed(client, team=cast.vision.pk, changed="", sort="name", page=7)
    assert len(queries) <= 15


def test_a_member_of_many_teams_costs_the_same_queries_as_of_one(cast, scenario):
    from webapp.accounts.services import add_member, create_team

    client = signed_in(cast.bob)
    rows(cast.alice, cast.vision, scenario, 60)
    listed(client)
    one_team = page_queries(client)
    for i in range(40):
        add_member(create_team(f"team {i:02d}", cast.alice), cast.bob)
    response, _ = listed(client)
    assert len(response.context["filters"].fields["team"].choices) == 1 + 41  # "Any" + teams
    assert page_queries(client) == one_team


def test_each_row_shows_the_stored_decision_not_an_engine_run(cast, scenario, monkeypatch):
    rows(cast.alice, None, scenario, 3, decision_code="close_call", decision_savings=-12.5)
    import costmodel.sensitivity

    def no_engine(*args, **kwargs):
        raise AssertionError("the list ran the engine")

    monkeypatch.setattr(costmodel.sensitivity, "summary_and_sweep", no_engine)
    monkeypatch.setattr("webapp.scenarios.decisions.decided", no_engine)
    response, shown = listed(signed_in(cast.alice))
    html = response.content.decode()
    assert len(shown) == 3
    assert html.count('data-verdict="close_call"') == 3
    assert "A close call" in html
    assert "-¥12.50" in html or "−¥12.50" in html


def test_pages_hold_fifty_and_an_out_of_range_page_shows_the_last(cast, scenario):
    rows(cast.alice, None, scenario, 120)
    client = signed_in(cast.alice)
    first = listed(client)[1]
    second = listed(client, page=2)[1]
    last = listed(client, page=3)[1]
    assert (len(first), len(second), len(last)) == (50, 50, 20)
    assert not set(first) & set(second)
    assert listed(client, page=999)[1] == last
    assert listed(client, page="-1")[1] == last
    assert listed(client, page="nonsense")[1] == first
    html = listed(client, page=2)[0].content.decode()
    assert 'rel="next"' in html and 'rel="prev"' in html and "Page 2 of 3" in html


def test_mine_a_team_and_changed_at_todays_prices_narrow_the_list(cast, scenario):
    own = rows(cast.bob, None, scenario, 2, start=0)
    shared = rows(cast.alice, cast.vision, scenario, 3, start=10)
    changed = rows(cast.alice, cast.vision, scenario, 1, start=20, changed_today=True)
    rows(cast.carol, cast.speech, scenario, 4, start=30)  # another team: never listed to bob
    client = signed_in(cast.bob)
    ids = lambda items: {str(i.pk) for i in items}  # noqa: E731
    assert set(listed(client)[1]) == ids(own + shared + changed)
    assert set(listed(client, mine="on")[1]) == ids(own)
    assert set(listed(client, team=cast.vision.pk)[1]) == ids(shared + changed)
    assert set(listed(client, changed="on")[1]) == ids(changed)
    # a team bob is not in is refused as a choice (an error on the form), never shown
    response, shown = listed(client, team=cast.speech.pk)
    assert "Select a valid choice" in response.content.decode()
    assert set(shown) == ids(own + shared + changed)


def test_the_list_is_ordered_by_name_or_date_either_way(cast, scenario):
    made = rows(cast.alice, None, scenario, 5)
    client = signed_in(cast.alice)
    names = {str(i.pk): i.name for i in made}
    newest = [names[pk] for pk in listed(client)[1]]
    assert newest == sorted(names.values(), reverse=True)  # "box 0004" is the newest
    assert [names[pk] for pk in listed(client, sort="date")[1]] == sorted(names.values())
    assert [names[pk] for pk in listed(client, sort="name")[1]] == sorted(names.values())
    assert [names[pk] for pk in listed(client, sort="-name")[1]] == newest
    assert [names[pk] for pk in listed(client, sort="sideways")[1]] == newest  # not 500


def test_an_anonymous_browser_pages_through_its_own_saves_only(client, scenario, cast):
    rows(cast.alice, None, scenario, 3)
    assert listed(client)[1] == []
    assert "Nothing saved yet" in listed(client)[0].content.decode()

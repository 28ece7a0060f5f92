"""Schemathesis fuzzes every operation of the OpenAPI document through the WSGI app.

Zero server errors and zero schema violations: every response, for any input
the schema allows or almost allows, has a documented status, content type and
shape. The shipped catalog is loaded so that the catalog lists and /resolve
answer with real rows.

The operations that compute from the request alone (the engine's) are fuzzed without a
database: pytest-django refuses them one, so a query from any of them would be a server error
and fail the test. What they answer cannot depend on the database, so the PostgreSQL pass of
`make test` (``-m database``) leaves them out; the operations that read the catalog, the
usage's GPUs or the saved scenarios are fuzzed on both databases.
"""

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from webapp.wsgi import application


@pytest.fixture
def api_schema(keep_test_transaction):
    """The OpenAPI document, read from the app when a fuzzing test runs (reading it is a request
    of its own, which would close the test's connection)."""
    return schemathesis.openapi.from_wsgi("/api/v1/openapi.json", application)


# The operations' tests are built when a test below runs, not when pytest collects: their
# explicit and coverage cases take seconds of CPU to prepare, which every collecting process
# (each xdist worker of both passes) paid, though only one of them runs the tests. Each
# operation is still a test of its own (a subtest, reported by its method and path).
schema = schemathesis.pytest.from_fixture("api_schema")

COMPUTED_FROM_THE_REQUEST = ["compare", "operations"]
"""The API's tags (its routers) whose operations read nothing but the request: /compare,
/compare/batch, /tornado, /uncertainty, /fleet, /commitment and /options. The others read or
write the database: ``catalog`` (the lists and /resolve), ``usage`` (the catalog's GPUs per
instance), ``saved scenarios``."""

# All the fuzzing tests in one xdist worker, handed out among the first: together they run
# every operation, for a minute or more of one worker.
pytestmark = pytest.mark.xdist_group("fuzzing")


@pytest.fixture
def keep_test_transaction():
    """Keep the connection (and its test transaction) open across requests.

    Schemathesis calls the WSGI application directly, which closes database
    connections at the end of each request, as in production; Django's test
    client switches that off, and so does this fixture.
    """
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


FUZZING = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)

# "Schema-valid data must be accepted" cannot hold: JSON Schema cannot say that idle power is
# at most load power, nor that amounts must not overflow float64; those are rejected with a
# 422 that names the field, which the remaining checks (status, content type, response schema)
# do verify. Schemathesis calls the WSGI app directly and does not undo the gzip that
# GZipMiddleware applies when asked: ask for the plain body.
EXCLUDED = [positive_data_acceptance]


@schema.include(tag=COMPUTED_FROM_THE_REQUEST).parametrize()
@FUZZING
def test_every_operation_that_computes_from_the_request_answers_within_its_schema(case):
    """No database here: an operation of these tags that queried one would answer 500."""
    case.call_and_validate(headers={"Accept-Encoding": "identity"}, excluded_checks=EXCLUDED)


# The test database is asked for at run time (schemathesis requests the fixtures then), so
# pytest-django, which sets up only the databases the collected tests declare, is told by
# the mark.
@pytest.mark.django_db
@schema.exclude(tag=COMPUTED_FROM_THE_REQUEST).parametrize()
@FUZZING
def test_every_operation_that_reads_the_database_answers_within_its_schema(
    case, catalog, keep_test_transaction
):
    case.call_and_validate(headers={"Accept-Encoding": "identity"}, excluded_checks=EXCLUDED)


@pytest.fixture
def token(db):
    """A user's API token, so that the operations that need one run past the 401."""
    from django.contrib.auth.models import User

    from webapp.accounts.services import create_token

    user = User.objects.create_user("fuzzer", "fuzzer@example.com")
    return create_token(user, "schemathesis")[1]


def takes_a_token(context) -> bool:
    """The operations whose OpenAPI definition names an authentication (the scenarios').

    The others declare none, and nothing reads their Authorization header (no global auth on
    the API, no middleware reads it): signed in, they run the very code the signed-out tests
    above run, so fuzzing them twice would only double its time."""
    return "security" in context.operation.definition.raw


@pytest.mark.django_db
@schema.include(takes_a_token).parametrize()
@FUZZING
def test_every_operation_that_takes_a_token_answers_within_its_schema_with_one(
    case, catalog, keep_test_transaction, token
):
    """As above, signed in with a bearer token, as the security probe ran it."""
    case.call_and_validate(
        headers={"Accept-Encoding": "identity", "Authorization": f"Bearer {token}"},
        excluded_checks=EXCLUDED,
    )

"""Background work (webapp.planner.tasks) queued by what happens on the site and run by the real
worker (django-tasks' db_worker, through `manage.py worker --batch`, in this process)."""

import datetime
from decimal import Decimal

import pytest
from django.core import mail
from django.core.cache import caches
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django_tasks_db.models import DBTaskResult

from tests.webapp.scenarios.test_decisions_changed import OFFERING, flip, save
from webapp.catalog.models import CloudOffering, CloudRate
from webapp.planner import analysis, tasks
from webapp.planner.services import saved_link
from webapp.scenarios.models import SavedScenario

pytestmark = pytest.mark.django_db

REPRICE = "webapp.planner.tasks.reprice_saved_scenarios"
ANALYSES = "webapp.planner.tasks.run_saved_analyses"


@pytest.fixture
def lead(shipped_catalog, django_user_model):
    return django_user_model.objects.create_superuser("lead", "lead@example.com", "pw")


def queued(path: str) -> int:
    return DBTaskResult.objects.filter(task_path=path, status="READY").count()


# The worker closes the database connection between tasks (django-tasks-db calls
# close_old_connections), which ends a test's enclosing transaction on PostgreSQL: the tests
# that run it commit for real instead.
RUNS_THE_WORKER = pytest.mark.django_db(transaction=True)


def work() -> None:
    """The real worker: runs everything queued, then stops (at the test's own CPU priority:
    `manage.py worker` lowers its process's, which here is the test run's)."""
    call_command("worker", batch=True, niceness=0, verbosity=0)


def test_each_catalog_transaction_queues_one_repricing(lead, django_capture_on_commit_callbacks):
    saved = save(lead)
    DBTaskResult.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        flip(lead, saved)  # a price recorded (held) and approved
    assert queued(REPRICE) == 1


def test_an_import_of_many_rows_in_one_transaction_queues_one_repricing(
    lead, django_capture_on_commit_callbacks
):
    offering = CloudOffering.objects.get(slug=OFFERING)
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        for days in (3, 4, 5):  # an import: many rows in one transaction
            CloudRate.objects.create(
                offering=offering,
                hourly_rate=Decimal("1.5"),
                currency="USD",
                effective_date=datetime.date.today() - datetime.timedelta(days=days),
                source="test",
            )
    assert queued(REPRICE) == 1


def test_load_catalog_queues_a_repricing_only_when_it_added_rows(
    db, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_catalog", verbosity=0, stdout=open("/dev/null", "w"))
    assert queued(REPRICE) == 1
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_catalog", verbosity=0, stdout=open("/dev/null", "w"))
    assert queued(REPRICE) == 1  # nothing added: nothing to re-price


@RUNS_THE_WORKER
def test_the_worker_reprices_after_a_catalog_change_and_the_list_shows_it(
    lead, client, django_capture_on_commit_callbacks
):
    saved = save(lead)
    with django_capture_on_commit_callbacks(execute=True):
        flip(lead, saved)
    work()
    saved.refresh_from_db()
    assert saved.changed_today and saved.today_computed_at is not None
    assert DBTaskResult.objects.filter(task_path=REPRICE, status="SUCCESSFUL").exists()
    client.force_login(lead)
    html = client.get(reverse("planner:saved-list"), {"changed": "on"}).content.decode()
    assert f'data-saved="{saved.pk}"' in html


@RUNS_THE_WORKER
def test_a_new_save_gets_its_analyses_from_the_worker(lead):
    saved = save(lead)
    assert saved.analysed_at is None  # the save decided (its Monte Carlo included), no more
    assert queued(ANALYSES) == 1
    work()
    saved.refresh_from_db()
    assert saved.analysed_at is not None
    assert 0 <= saved.decision_probability_agreeing <= 1
    link = saved_link(saved)
    for language in ("en", "zh-hans"):  # the results page's document waits in the cache
        with translation.override(language):
            assert caches[analysis.CACHE].get(analysis._cache_key(link)) is not None


@RUNS_THE_WORKER
def test_a_failing_task_is_shown_failed_and_queued_again_until_its_last_attempt(
    lead, client, monkeypatch
):
    def broken(**kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(tasks.saved_services, "reprice_due", broken)
    tasks.reprice_saved_scenarios.enqueue()
    work()
    failed = DBTaskResult.objects.get(task_path=REPRICE, status="FAILED")
    assert "the database went away" in failed.traceback
    again = DBTaskResult.objects.get(task_path=REPRICE, status="READY")
    assert again.args_kwargs["kwargs"] == {"attempt": 2}
    assert again.run_after > timezone.now()  # retried later, not in a tight loop
    client.force_login(lead)
    admin = client.get(
        reverse("admin:django_tasks_database_dbtaskresult_changelist"), {"status": "FAILED"}
    )
    assert admin.status_code == 200 and str(failed.pk) in admin.content.decode()
    # the retries come due and fail too, until the last attempt: then nothing more is queued
    while DBTaskResult.objects.filter(task_path=REPRICE, status="READY").exists():
        DBTaskResult.objects.filter(status="READY").update(run_after=timezone.now())
        work()
    assert DBTaskResult.objects.filter(task_path=REPRICE, status="FAILED").count() == (
        tasks.MAX_ATTEMPTS
    )


@RUNS_THE_WORKER
def test_the_catch_up_queues_what_a_stopped_worker_left_undone(lead):
    saved = save(lead)
    DBTaskResult.objects.all().delete()  # as if the worker had been killed holding them
    old = save(lead, name="old")
    SavedScenario.objects.filter(pk=old.pk).update(
        created_at=timezone.now() - datetime.timedelta(days=tasks.CATCH_UP_DAYS + 1)
    )
    DBTaskResult.objects.all().delete()
    work()  # `manage.py worker` queues the catch-up first
    saved.refresh_from_db()
    assert saved.today_computed_at is not None  # re-priced at the current catalog
    assert saved.analysed_at is not None
    old.refresh_from_db()
    assert old.analysed_at is None  # too old to run its analyses again unasked


@RUNS_THE_WORKER
def test_mail_is_sent_by_the_worker_so_a_reset_answers_alike_for_any_address(
    lead, client, settings
):
    settings.EMAIL_BACKEND = "webapp.planner.tasks.QueuedEmailBackend"
    settings.SENT_EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    url = reverse("password_reset")
    known = client.post(url, {"email": "lead@example.com"})
    unknown = client.post(url, {"email": "nobody@example.com"})
    assert known.status_code == unknown.status_code == 302
    assert known["Location"] == unknown["Location"]
    assert mail.outbox == []  # the page only queued it
    assert DBTaskResult.objects.filter(task_path="webapp.planner.tasks.send_email").count() == 1
    work()
    assert [m.to for m in mail.outbox] == [["lead@example.com"]]
    assert "/accounts/reset/" in mail.outbox[0].body


def test_an_email_survives_the_queue_with_its_alternative_and_attachment():
    from django.core.mail import EmailMultiAlternatives

    message = EmailMultiAlternatives("Subject ✓", "body", "a@example.com", ["b@example.com"])
    message.attach_alternative("<p>body</p>", "text/html")
    message.attach("report.csv", b"a,b\n1,2\n", "text/csv")
    again = tasks.message_from(tasks.message_data(message))
    assert again.message().as_bytes().count(b"report.csv") == message.message().as_bytes().count(
        b"report.csv"
    )
    assert again.alternatives[0].content == "<p>body</p>"
    assert (again.subject, again.to, again.attachments[0][1]) == (
        "Subject ✓",
        ["b@example.com"],
        message.attachments[0][1],
    )

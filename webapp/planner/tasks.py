"""Background work on Django's tasks framework (``django-tasks``, the backport of ``django.tasks``).

Work that takes longer than a request, or that should not make a request wait,
is a task here; a worker runs it (``manage.py db_worker`` with the default
database backend, which ``make run`` and ``make serve`` start beside the server;
``manage.py rqworker`` with ``DJANGO_TASKS_BACKEND=rq``; settings ``TASKS``):

- :func:`reprice_saved_scenarios`: after the catalog changes (a price recorded
  or approved, ``catalog_import --apply``, ``load_catalog`` adding rows), every
  saved scenario resolved from the catalog is priced again and today's decision
  stored beside the saved one (:func:`webapp.scenarios.services.reprice_due`);
- :func:`run_saved_analyses`: the analyses of a newly saved scenario (the
  Monte Carlo, tornado, fleet and grid of its results page), cached for its page
  in every language, and its stored decision completed with the share of draws
  that agree;
- :func:`send_email`: every email the site sends (password reset, …), handed
  over by :class:`QueuedEmailBackend`, so a page never waits for the mail server
  and a reset answers in the same time for a known and an unknown address.

**Failures.** A task that raises is recorded as failed with its traceback (the
admin's "Task results" with the database backend) and enqueued again, up to
:data:`MAX_ATTEMPTS` runs, :data:`RETRY_DELAYS` apart. **A killed worker.**
The work is kept in the rows, not in the task: re-pricing marks each row with
the catalog version it was priced at and commits every chunk, so the next run
(the next catalog change, or :func:`catch_up`, which ``make run`` / ``make serve``
enqueue when the worker starts) takes up the rows still due; a saved scenario
without ``analysed_at`` gets its analyses then too.
"""

from __future__ import annotations

import base64
import datetime
import logging
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.core.mail import EmailMessage, EmailMultiAlternatives, get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.db import transaction
from django.db.models import Model
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils import timezone, translation
from django_tasks import task
from django_tasks.base import Task
from django_tasks_db import DatabaseBackend

from costmodel.projection import ProjectionOverflowError
from webapp.catalog.signals import catalog_loaded
from webapp.planner import analysis
from webapp.planner.services import saved_link
from webapp.scenarios import decisions
from webapp.scenarios import services as saved_services
from webapp.scenarios.models import SavedScenario

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
"""Runs of a task before it is left failed (its first run included)."""
RETRY_DELAYS = (30, 300)
"""Seconds before the second and the third run of a failed task (where the backend defers)."""
CATCH_UP_DAYS = 7
"""Saved scenarios this recent whose analyses never ran get them when a worker starts."""


def _again(retried: Task[..., Any], attempt: int, *args: Any, **kwargs: Any) -> None:
    """Enqueue ``retried`` once more after a failure of its run ``attempt``, if any remain."""
    if attempt >= MAX_ATTEMPTS:
        logger.error("%s failed %s times: left failed", retried.name, attempt)
        return
    delay = RETRY_DELAYS[min(attempt, len(RETRY_DELAYS)) - 1]
    later = retried
    if retried.get_backend().supports_defer:
        later = retried.using(run_after=timezone.now() + datetime.timedelta(seconds=delay))
    later.enqueue(*args, attempt=attempt + 1, **kwargs)


def enqueue(work: Task[..., Any], *args: Any, **kwargs: Any) -> None:
    """Enqueue ``work`` once the current transaction commits (at once outside of one).

    With the database backend the task row is written in the same transaction (it
    is rolled back with it); another backend (Redis) is told after the commit, so a
    worker never looks for rows that are not there yet. Should Redis be unreachable then,
    the error is logged and what was committed stands (the request is answered as done):
    the work is kept in the rows, and :func:`catch_up` queues it when a worker starts.
    """
    if isinstance(work.get_backend(), DatabaseBackend):
        work.enqueue(*args, **kwargs)
    else:
        transaction.on_commit(lambda: work.enqueue(*args, **kwargs), robust=True)


# --------------------------------------------------------------------------
# Re-pricing after the catalog changes
# --------------------------------------------------------------------------


@task()
def reprice_saved_scenarios(attempt: int = 1) -> int:
    """Re-price every saved scenario from the catalog that the current catalog has not
    priced yet; return how many (:func:`webapp.scenarios.services.reprice_due`)."""
    try:
        return saved_services.reprice_due()
    except Exception:
        _again(reprice_saved_scenarios, attempt)
        raise


def after_catalog_change() -> None:
    """Queue the re-pricing once for the current transaction (a catalog import saves many
    rows in one): at once outside of a transaction."""
    connection = transaction.get_connection()
    pending = getattr(connection, "run_on_commit", [])
    if any(getattr(entry[1], "__name__", "") == "_queue_repricing" for entry in pending):
        return
    # robust: with Redis unreachable the change stands; the rows stay due for catch_up.
    transaction.on_commit(_queue_repricing, robust=True)


def _queue_repricing() -> None:
    reprice_saved_scenarios.enqueue()


@receiver(post_save, dispatch_uid="tasks-reprice-on-catalog-save")
@receiver(post_delete, dispatch_uid="tasks-reprice-on-catalog-delete")
def catalog_row_changed(sender: type[Model], raw: bool = False, **kwargs: Any) -> None:
    """A catalog row saved or deleted (a price recorded or approved, an import, the admin):
    queue the re-pricing. ``load_catalog`` saves raw rows and sends
    :data:`~webapp.catalog.signals.catalog_loaded` instead (:func:`catalog_loaded_rows`)."""
    if sender._meta.app_label == "catalog" and not raw:
        after_catalog_change()


@receiver(catalog_loaded, dispatch_uid="tasks-reprice-on-catalog-load")
def catalog_loaded_rows(sender: Any, **kwargs: Any) -> None:
    """``load_catalog`` added shipped rows: queue the re-pricing."""
    after_catalog_change()


# --------------------------------------------------------------------------
# The analyses of a newly saved scenario
# --------------------------------------------------------------------------


@task()
def run_saved_analyses(saved_id: str, attempt: int = 1) -> str | None:
    """Run the analyses of the saved scenario ``saved_id`` once, store its decision with the
    share of draws that agree, and cache its results page's analysis document in every
    language; return the verdict code (``None``: deleted meanwhile, or too large to run)."""
    item = SavedScenario.objects.filter(pk=saved_id).first()
    if item is None:
        return None
    try:
        link = saved_link(item)
        done = analysis.run_analyses(link)
        saved_services.store_analysed_decision(item, decisions.stored(done.decision))
        for language, _name in settings.LANGUAGES:
            with translation.override(language):
                caches[analysis.CACHE].set(
                    analysis._cache_key(link),
                    analysis.build_document(link, done),
                    analysis.CACHE_SECONDS,
                )
    except ProjectionOverflowError:  # a row saved before saves were checked: nothing to run
        return None
    except Exception:
        _again(run_saved_analyses, attempt, saved_id)
        raise
    return done.decision.verdict


@receiver(post_save, sender=SavedScenario, dispatch_uid="tasks-analyses-of-a-new-save")
def after_save(
    sender: Any, instance: SavedScenario, created: bool, raw: bool = False, **kwargs: Any
) -> None:
    """Queue the analyses of a scenario just saved (a new row; once it is committed)."""
    if created and not raw:
        enqueue(run_saved_analyses, str(instance.pk))


# --------------------------------------------------------------------------
# Catching up after a worker was stopped
# --------------------------------------------------------------------------


@task()
def catch_up() -> dict[str, int]:
    """Queue whatever a stopped worker left undone: the re-pricing (if any row is due) and
    the analyses of recent saves that never got them."""
    due = saved_services.due_count()
    if due:
        reprice_saved_scenarios.enqueue()
    since = timezone.now() - datetime.timedelta(days=CATCH_UP_DAYS)
    missing = list(
        SavedScenario.objects.filter(analysed_at__isnull=True, created_at__gte=since)
        .order_by("-created_at")
        .values_list("pk", flat=True)[:1000]
    )
    for pk in missing:
        run_saved_analyses.enqueue(str(pk))
    return {"due_for_repricing": due, "analyses_queued": len(missing)}


# --------------------------------------------------------------------------
# Email from the queue
# --------------------------------------------------------------------------


def message_data(message: EmailMessage) -> dict[str, Any]:
    """An email as JSON-safe data for a task's arguments (attachments base64-encoded)."""
    alternatives = getattr(message, "alternatives", [])
    attachments = []
    for item in message.attachments:
        filename, content, mimetype = item  # a MIMEBase part is not sent by this site
        raw = content.encode() if isinstance(content, str) else bytes(content)
        attachments.append([filename, base64.b64encode(raw).decode("ascii"), mimetype])
    return {
        "subject": str(message.subject),
        "body": str(message.body),
        "from_email": message.from_email,
        "to": list(message.to),
        "cc": list(message.cc),
        "bcc": list(message.bcc),
        "reply_to": list(message.reply_to),
        "headers": dict(message.extra_headers),
        "alternatives": [[str(content), mimetype] for content, mimetype in alternatives],
        "attachments": attachments,
    }


def message_from(data: dict[str, Any]) -> EmailMultiAlternatives:
    """The email of :func:`message_data`."""
    message = EmailMultiAlternatives(
        subject=data["subject"],
        body=data["body"],
        from_email=data["from_email"],
        to=data["to"],
        cc=data["cc"],
        bcc=data["bcc"],
        reply_to=data["reply_to"],
        headers=data["headers"],
    )
    for content, mimetype in data["alternatives"]:
        message.attach_alternative(content, mimetype)
    for filename, encoded, mimetype in data["attachments"]:
        message.attach(filename, base64.b64decode(encoded), mimetype)
    return message


@task()
def send_email(data: dict[str, Any], attempt: int = 1) -> int:
    """Send one email through ``settings.SENT_EMAIL_BACKEND`` (SMTP, or the console)."""
    try:
        with get_connection(settings.SENT_EMAIL_BACKEND) as connection:
            return int(connection.send_messages([message_from(data)]) or 0)
    except Exception:
        _again(send_email, attempt, data)
        raise


class QueuedEmailBackend(BaseEmailBackend):
    """Django's email backend that hands each message to :func:`send_email` (the queue)."""

    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        for message in email_messages:
            enqueue(send_email, message_data(message))
        return len(email_messages)

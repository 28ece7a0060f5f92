"""Run the background worker of webapp.planner.tasks: queue what a stopped worker left undone,
then work.

With the database backend (the default) this is django-tasks' ``db_worker``; with
``DJANGO_TASKS_BACKEND=rq`` it is django-rq's ``rqworker`` on the default queue, its
scheduler included (a failed task's retry waits there). ``make run`` and ``make serve``
start one beside the server.

The worker lowers its own CPU priority first (``--niceness``, 10 unless told: the
operating system's ``nice``), so that on a machine it shares with the web server a
long re-pricing takes the CPU the pages leave and a page does not wait behind it.
"""

import argparse
import os
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

NICENESS = 10
"""Added to the worker's nice value: the web server's processes come first for the CPU."""


def niceness(value: str) -> int:
    """A nice value to add, 0 to 19 (raising one's priority needs privileges a worker lacks)."""
    try:
        number = int(value)
    except ValueError:
        number = -1
    if not 0 <= number <= 19:
        raise argparse.ArgumentTypeError(f"must be a whole number from 0 to 19, not {value!r}")
    return number


class Command(BaseCommand):
    help = "Run the background worker (re-pricing, analyses, email); queue leftovers first."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--batch",
            action="store_true",
            help="run what is queued, then stop (database backend only)",
        )
        parser.add_argument(
            "--niceness",
            type=niceness,
            default=NICENESS,
            help=f"add this to the process's nice value: a lower CPU priority (default {NICENESS})",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        from webapp.planner.tasks import catch_up

        if options["niceness"]:
            os.nice(options["niceness"])
        catch_up.enqueue()
        if settings.TASKS_BACKEND == "rq":
            # django-tasks-rq's Job runs a django.tasks Task; RQ's own Job cannot call one.
            call_command(
                "rqworker", "default", with_scheduler=True, job_class="django_tasks_rq.Job"
            )
            return
        worker_options: dict[str, Any] = {"reload": False, "startup_delay": False}
        if options["batch"]:
            worker_options["batch"] = True
        call_command("db_worker", verbosity=options["verbosity"], **worker_options)

"""Saved scenarios in bulk, as a team would have after a year of use: for the scale
benchmark (`make bench-scale`) and the worker tests.

Each row is what a save makes — a scenario resolved from the shipped catalog, its
selection and provenance, and the decision its results page states, computed once
per distinct selection — written in batches (``bulk_create``: no signal, no task).
Owners are spread over ``teams`` teams of five people each; every row is shared with
its owner's team.

    DATABASE_URL=... .venv/bin/python -m benchmarks.scale_data --count 10000 --teams 200
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
os.environ.setdefault("DJANGO_STATIC_MANIFEST", "false")

MEMBERS_PER_TEAM = 5
BASE_SELECTION: dict[str, Any] = {
    "preset": "entry-rtx4090",
    "tariff": "us-ca-commercial",
    "hosting": "office-deskside",
    "benchmark": "resnet50-fp16",
    "horizon_months": 36,
    "currency": "USD",
}
UTILIZATIONS = (0.2, 0.5, 0.8, 1.0)


def selections(limit: int = 24) -> list[tuple[dict[str, Any], Any]]:
    """Up to ``limit`` catalog selections that resolve today (cloud offerings × utilizations),
    each with its resolution."""
    from webapp.catalog.models import CloudOffering
    from webapp.catalog.resolver import resolve_data

    found: list[tuple[dict[str, Any], Any]] = []
    for slug in CloudOffering.objects.order_by("slug").values_list("slug", flat=True):
        for utilization in UTILIZATIONS:
            selection = {
                **BASE_SELECTION,
                "cloud_offering": slug,
                "workload": {"kind": "steady", "utilization": utilization},
            }
            try:
                found.append((selection, resolve_data(selection)))
            except ValueError:  # ScenarioError: this offering does not fit the box
                break
            if len(found) >= limit:
                return found
    return found


def populate(count: int, teams: int, *, batch: int = 1000) -> int:
    """Write ``count`` saved scenarios over ``teams`` teams; return how many rows exist."""
    from django.contrib.auth.models import Group, User

    from webapp.accounts.models import Team
    from webapp.scenarios.decisions import decision_of, saved_fields, stored
    from webapp.scenarios.models import SavedScenario

    made = selections()
    if not made:
        raise SystemExit("no catalog selection resolves: run load_catalog first")
    rows = []
    for selection, resolution in made:
        rows.append(
            {
                "selection": selection,
                "scenario": resolution.scenario.model_dump(mode="json"),
                "provenance": resolution.provenance,
                "decision": saved_fields(stored(decision_of(resolution.scenario))),
            }
        )
    start = User.objects.count()
    User.objects.bulk_create(
        User(username=f"scale-user-{start + i}", email=f"user{start + i}@example.com")
        for i in range(teams * MEMBERS_PER_TEAM)
    )
    users = list(User.objects.filter(username__startswith="scale-user-").order_by("pk"))[
        -teams * MEMBERS_PER_TEAM :
    ]
    Group.objects.bulk_create(Group(name=f"scale-team-{start + i}") for i in range(teams))
    groups = list(Group.objects.filter(name__startswith="scale-team-").order_by("pk"))[-teams:]
    Team.objects.bulk_create(Team(group=group) for group in groups)
    team_rows = list(Team.objects.filter(group__in=groups).order_by("group_id"))
    Membership = User.groups.through
    Membership.objects.bulk_create(
        Membership(user_id=user.pk, group_id=groups[i // MEMBERS_PER_TEAM].pk)
        for i, user in enumerate(users)
    )
    pending = []
    for i in range(count):
        row = rows[i % len(rows)]
        owner = users[i % len(users)]
        team = team_rows[(i % len(users)) // MEMBERS_PER_TEAM]
        pending.append(
            SavedScenario(
                name=f"{row['selection']['cloud_offering']} at "
                f"{row['selection']['workload']['utilization']:.0%} #{i}",
                scenario=row["scenario"],
                provenance=row["provenance"],
                selection=row["selection"],
                owner=owner,
                team=team,
                **row["decision"],
            )
        )
        if len(pending) >= batch:
            SavedScenario.objects.bulk_create(pending)
            pending = []
    SavedScenario.objects.bulk_create(pending)
    return SavedScenario.objects.count()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--teams", type=int, default=200)
    args = parser.parse_args()
    import django

    django.setup()
    print(populate(args.count, args.teams))


if __name__ == "__main__":
    main()

"""Buy vs rent for the 4-node H100 cluster, from the shipped catalog, through the resolver.

    DJANGO_SECRET_KEY=x .venv/bin/python scripts/cluster_report.py [--as-of YYYY-MM-DD] [--json]

Loads ``fixtures/`` into a throw-away in-memory database, resolves the preset
``cluster-4x-hgx-h100`` (US wholesale colocation per kW, Virginia commercial
electricity, BERT-large) against Google Cloud's 8 × H100 ``a3-highgpu-8g`` on
demand and with 1- and 3-year commitments (their on-demand sibling pays the
overflow), at 50 % and 90 % steady use over 36 and 60 months, and prints what
``costmodel.compare`` says. The figures follow whatever engine is installed:
re-run it once the version-2 engine bills commitments.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["DATABASE_URL"] = "sqlite:///:memory:"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")

PRESET = "cluster-4x-hgx-h100"
OFFERINGS = {
    "on-demand": "gcp-a3-highgpu-8g-on-demand",
    "1-year commitment": "gcp-a3-highgpu-8g-commit-1y",
    "3-year commitment": "gcp-a3-highgpu-8g-commit-3y",
}
UTILIZATIONS = (0.5, 0.9)
HORIZONS = (36, 60)


def rows(as_of: str | None) -> list[dict]:
    from costmodel import compare
    from webapp.catalog.resolver import resolve_data

    out = []
    for label, offering in OFFERINGS.items():
        for utilization in UTILIZATIONS:
            for horizon in HORIZONS:
                resolution = resolve_data(
                    {
                        "preset": PRESET,
                        "cloud_offering": offering,
                        "tariff": "us-va-commercial",
                        "hosting": "us-colo-wholesale",
                        "benchmark": "bert-large-fp16",
                        "workload": {"kind": "steady", "utilization": utilization},
                        "horizon_months": horizon,
                        "currency": "USD",
                        "as_of": as_of,
                    }
                )
                scenario = resolution.scenario
                result = compare(scenario)
                out.append(
                    {
                        "rent": label,
                        "offering": offering,
                        "utilization": utilization,
                        "horizon_months": horizon,
                        "capex": scenario.build.capex,
                        "committed_instances": scenario.rent.committed_instances,
                        "build_total_net": result["build"]["total_net"],
                        "rent_total": result["rent"]["total"],
                        "savings": result["savings"],
                        "break_even_month": result["break_even_month"],
                    }
                )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--as-of", default=None, help="prices in effect on this date")
    parser.add_argument("--json", action="store_true", help="print JSON rows")
    args = parser.parse_args()

    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    from webapp.catalog.fixtures_io import load_catalog

    load_catalog()
    table = rows(args.as_of)
    if args.json:
        print(json.dumps(table, indent=2))
        return
    print(f"{PRESET} vs Google Cloud a3-highgpu-8g, USD, steady use")
    print(
        f"{'rent':<18} {'use':>4} {'months':>6} {'committed':>9} {'build net':>14} "
        f"{'rent total':>14} {'savings':>14} {'break-even':>10}"
    )
    for row in table:
        be = row["break_even_month"]
        print(
            f"{row['rent']:<18} {row['utilization']:>4.0%} {row['horizon_months']:>6} "
            f"{row['committed_instances']:>9} {row['build_total_net']:>14,.0f} "
            f"{row['rent_total']:>14,.0f} {row['savings']:>14,.0f} "
            f"{'—' if be is None else f'{be:.1f}':>10}"
        )


if __name__ == "__main__":
    main()

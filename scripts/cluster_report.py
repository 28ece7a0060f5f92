"""Buy vs rent for the 4-node H100 cluster, from the shipped catalog, through the resolver.

    DJANGO_SECRET_KEY=x .venv/bin/python scripts/cluster_report.py [--as-of YYYY-MM-DD] [--json]

Loads ``fixtures/`` into a throw-away in-memory database, resolves the preset
``cluster-4x-hgx-h100`` (BERT-large) against Google Cloud's 8 × H100
``a3-highgpu-8g`` on demand and with 1- and 3-year commitments (their on-demand
sibling pays the overflow), at 30 % and 90 % steady use over 36 and 60 months,
leaving to the resolver what a planner user leaves untouched: the hosting and
tariff of the preset and currency (colocation billed per kW, a US tariff) and the
committed count (the cheapest, from the engine's commitment operation). It prints
what the results page states: the committed count used, the verdict code, the
savings and the median of the uncertainty draws (``run_analyses``, the page's
own path).
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
UTILIZATIONS = (0.3, 0.9)
HORIZONS = (36, 60)


def rows(as_of: str | None) -> list[dict]:
    from webapp.catalog.resolver import resolve_data
    from webapp.planner.analysis import run_analyses
    from webapp.planner.permalink import Permalink

    out = []
    for label, offering in OFFERINGS.items():
        for utilization in UTILIZATIONS:
            for horizon in HORIZONS:
                resolution = resolve_data(
                    {
                        "preset": PRESET,
                        "cloud_offering": offering,
                        "benchmark": "bert-large-fp16",
                        "workload": {"kind": "steady", "utilization": utilization},
                        "horizon_months": horizon,
                        "currency": "USD",
                        "as_of": as_of,
                    }
                )
                scenario = resolution.scenario
                analyses = run_analyses(Permalink(scenario))
                result, decision = analyses.result, analyses.decision
                out.append(
                    {
                        "rent": label,
                        "offering": offering,
                        "utilization": utilization,
                        "horizon_months": horizon,
                        "capex": scenario.build.capex,
                        "committed_instances": scenario.rent.committed_instances,
                        "hosting_monthly": scenario.build.hosting_monthly,
                        "pue": scenario.build.pue,
                        "verdict": decision.verdict,
                        "savings_p50": decision.savings_p50,
                        "share_holding": decision.probability_recommendation_holds,
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
    first = table[0]
    print(
        f"{PRESET} vs Google Cloud a3-highgpu-8g, USD, steady use; hosting "
        f"{first['hosting_monthly']:,.0f} USD a month at PUE {first['pue']}"
    )
    print(
        f"{'rent':<18} {'use':>4} {'months':>6} {'committed':>9} {'verdict':>14} "
        f"{'savings':>14} {'P50 of draws':>14} {'holds':>6} {'break-even':>10}"
    )
    for row in table:
        be = row["break_even_month"]
        p50 = row["savings_p50"]
        print(
            f"{row['rent']:<18} {row['utilization']:>4.0%} {row['horizon_months']:>6} "
            f"{row['committed_instances'] or 0:>9} {row['verdict']:>14} "
            f"{row['savings']:>14,.0f} {'—' if p50 is None else f'{p50:,.0f}':>14} "
            f"{row['share_holding'] or 0:>6.0%} {'—' if be is None else f'{be:.1f}':>10}"
        )


if __name__ == "__main__":
    main()

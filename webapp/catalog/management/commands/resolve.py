"""Resolve a catalog selection into an explicit scenario (JSON on stdout, ready for `compare -`).

    python manage.py resolve --preset entry-rtx4090 --offering aliyun-gn7e-c16g1-4xlarge \
        --tariff cn-business-average --hosting office-deskside --utilization 0.8 \
        --horizon 36 --currency CNY | python manage.py compare -
"""

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext as _

from costmodel import FieldError, ScenarioError
from costmodel.errors import load_json
from webapp.catalog.resolver import resolve_data


def _part_line(text: str) -> dict[str, Any]:
    slug, _, quantity = text.partition(":")
    return {"part": slug, "quantity": int(quantity) if quantity.isdigit() else quantity or 1}


class Command(BaseCommand):
    @property
    def help(self) -> str:  # type: ignore[override]
        # argparse needs a real str; a property translates when the parser is built.
        return str(_("Turn catalog slugs into an explicit scenario JSON (the engine's input)."))

    def add_arguments(self, parser: CommandParser) -> None:
        box = parser.add_argument_group("the box: a preset, or a custom parts list")
        box.add_argument("--preset", help=_("build preset slug, e.g. entry-rtx4090"))
        box.add_argument(
            "--part",
            action="append",
            dest="parts",
            metavar="SLUG[:QTY]",
            help=_("a part of a custom box (repeat; include the GPU cards)"),
        )
        box.add_argument("--gpu-model", help=_("GPU model slug (custom box; checked)"))
        box.add_argument("--gpu-count", type=int, help=_("GPU count (custom box; checked)"))
        box.add_argument("--scaling-efficiency", type=float, help=_("multi-GPU efficiency, 0..1"))
        parser.add_argument(
            "--offering",
            dest="cloud_offering",
            help=_("cloud offering slug (default: one of the currency's market)"),
        )
        parser.add_argument(
            "--committed-instances",
            type=int,
            help=_("instances a commitment reserves (default: the cheapest count)"),
        )
        parser.add_argument(
            "--tariff", help=_("electricity tariff slug (default: the currency's region's)")
        )
        parser.add_argument(
            "--hosting",
            help=_("hosting option slug (default: the box's kind, in the currency's region)"),
        )
        parser.add_argument("--benchmark", default="resnet50-fp16", help=_("benchmark slug"))
        load = parser.add_mutually_exclusive_group()
        load.add_argument("--utilization", type=float, help=_("steady utilization, 0..1"))
        load.add_argument(
            "--workload",
            help=_('workload JSON, e.g. {"kind": "tidal", "active_days_per_month": 4}'),
        )
        parser.add_argument("--horizon", dest="horizon_months", type=int, help=_("months"))
        parser.add_argument("--currency", help=_("CNY or USD"))
        parser.add_argument("--discount-rate", dest="discount_rate_per_year", type=float)
        parser.add_argument("--as-of", help=_("date of the prices, YYYY-MM-DD (default: today)"))
        parser.add_argument(
            "--provenance",
            action="store_true",
            help=_('print {"scenario": …, "provenance": […]} instead of the bare scenario'),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            resolution = resolve_data(self._selection(options))
        except ScenarioError as exc:
            for error in exc.errors:
                self.stderr.write(str(error))
            sys.exit(2)
        for item in resolution.defaulted:
            # On stderr, so that the scenario on stdout still pipes into `compare -`.
            value = item.as_dict()["value"]
            self.stderr.write(
                _("%(field)s defaulted to %(value)s: %(reason)s")
                % {
                    "field": item.field,
                    "value": _("none") if value is None else value,
                    "reason": item.reason,
                }
            )
        data = resolution.as_dict()
        out = data if options["provenance"] else data["scenario"]
        self.stdout.write(json.dumps(out, indent=2, ensure_ascii=False))

    def _selection(self, options: dict[str, Any]) -> dict[str, Any]:
        names = [
            "preset", "gpu_model", "gpu_count", "scaling_efficiency", "cloud_offering",
            "committed_instances", "tariff", "hosting", "benchmark", "horizon_months", "currency",
            "discount_rate_per_year", "as_of",
        ]  # fmt: skip
        data = {name: options[name] for name in names if options.get(name) is not None}
        if options["parts"]:
            data["parts"] = [_part_line(text) for text in options["parts"]]
        if options["workload"] is not None:
            try:
                data["workload"] = load_json(options["workload"])
            except ScenarioError as exc:
                raise ScenarioError(
                    [FieldError("workload", e.message) for e in exc.errors]
                ) from None
        elif options["utilization"] is not None:
            data["workload"] = {"kind": "steady", "utilization": options["utilization"]}
        return data

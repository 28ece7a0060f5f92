"""Write the measured-usage test fixtures: one file per format the usage readers take.

    .venv/bin/python scripts/make_usage_fixtures.py [DIRECTORY]

DIRECTORY defaults to ``tests/costmodel/usage_fixtures``. The files are small
but shaped like the real thing, and chosen so that each reader's result can
be computed by hand (the tests in ``tests/costmodel/test_usage.py`` do):

- ``nvidia-smi.csv``: two hosts' logs concatenated (``cat a.csv b.csv``, each
  with its header), two RTX 4090s each, a sample every 10 minutes from
  2026-10-31 22:00 to 2026-11-01 01:50 (UTC), so across a month boundary;
  host b's GPU 1 stops answering from 00:10 to 00:50 (a gap), and one row
  reads ``[N/A]`` (skipped). Utilization is constant per GPU: 50, 100, 20, 80 %.
- ``dcgm-prometheus.json``: Prometheus' ``query_range`` answer for
  ``DCGM_FI_DEV_GPU_UTIL`` on an 8 × A100 node, step 5 minutes from
  2026-11-30 23:00 to 2026-12-01 00:55 UTC; GPU k at (k + 1) × 10 %.
- ``slurm-sacct.txt``: ``sacct -a -X -P --format=JobID,Start,End,AllocTRES``
  with a job spanning September–October, one spanning October–November, a
  typed ``gres/gpu:a100``, a CPU-only job, a job step and a running job.
- ``aws-cur.csv``: a Cost and Usage Report extract with hourly p4d.24xlarge
  usage across 2026-10-31/11-01, an m5.xlarge (no GPU), storage and tax rows.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import sys
from pathlib import Path

UTC = dt.UTC
DEFAULT_DIRECTORY = Path(__file__).resolve().parent.parent / "tests/costmodel/usage_fixtures"


def nvidia_smi() -> str:
    header = "timestamp, index, name, utilization.gpu [%]\n"
    start = dt.datetime(2026, 10, 31, 22, 0, tzinfo=UTC)
    times = [start + dt.timedelta(minutes=10 * k) for k in range(24)]  # 22:00 .. 01:50
    gap = {start + dt.timedelta(hours=2, minutes=10 * k) for k in range(1, 6)}  # 00:10 .. 00:50
    out = io.StringIO()
    for host, utilization in (("a", (50, 100)), ("b", (20, 80))):
        out.write(header)
        for t in times:
            for index, value in enumerate(utilization):
                if host == "b" and index == 1 and t in gap:
                    continue
                stamp = t.strftime("%Y/%m/%d %H:%M:%S.000")
                out.write(f"{stamp}, {index}, NVIDIA GeForce RTX 4090, {value} %\n")
            if host == "a" and t == start + dt.timedelta(hours=1):
                out.write(f"{t:%Y/%m/%d %H:%M:%S}.500, 0, NVIDIA GeForce RTX 4090, [N/A]\n")
    return out.getvalue()


def dcgm_prometheus() -> str:
    start = int(dt.datetime(2026, 11, 30, 23, 0, tzinfo=UTC).timestamp())
    result = [
        {
            "metric": {
                "__name__": "DCGM_FI_DEV_GPU_UTIL",
                "Hostname": "dgx-01",
                "UUID": f"GPU-0000000{gpu}-5a1e-4c2b-9d7e-3f00000000{gpu}",
                "device": f"nvidia{gpu}",
                "gpu": str(gpu),
                "instance": "10.0.0.11:9400",
                "job": "dcgm-exporter",
                "modelName": "NVIDIA A100-SXM4-80GB",
            },
            "values": [[start + 300 * k, str((gpu + 1) * 10)] for k in range(24)],
        }
        for gpu in range(8)
    ]
    answer = {"status": "success", "data": {"resultType": "matrix", "result": result}}
    return json.dumps(answer, indent=1) + "\n"


def slurm_sacct() -> str:
    return (
        "JobID|Start|End|AllocTRES\n"
        "1001|2026-09-28T10:00:00|2026-10-02T10:00:00|"
        "billing=16,cpu=16,gres/gpu=2,mem=128G,node=1\n"
        "1001.batch|2026-09-28T10:00:00|2026-10-02T10:00:00|cpu=16,gres/gpu=2,mem=128G,node=1\n"
        "1002|2026-10-05T08:00:00|2026-10-05T20:00:00|"
        "billing=8,cpu=8,gres/gpu:a100=4,gres/gpu=4,mem=64G,node=1\n"
        "1003|2026-10-10T00:00:00|2026-10-10T06:00:00|billing=4,cpu=4,mem=16G,node=1\n"
        "1004|2026-10-30T12:00:00|Unknown|billing=8,cpu=8,gres/gpu=1,mem=32G,node=1\n"
        "1005|2026-10-20T00:00:00|2026-11-03T00:00:00|"
        "billing=8,cpu=8,gres/gpu=1,mem=32G,node=1\n"
    )


def aws_cur() -> str:
    header = [
        "identity/LineItemId",
        "bill/BillingPeriodStartDate",
        "lineItem/LineItemType",
        "lineItem/UsageStartDate",
        "lineItem/UsageEndDate",
        "lineItem/ProductCode",
        "lineItem/UsageType",
        "lineItem/UsageAmount",
        "lineItem/UnblendedCost",
        "product/instanceType",
    ]
    rows = [
        ("p4d", "2026-10-31T22:00:00Z", "2026-10-31T23:00:00Z", "USE1-BoxUsage:p4d.24xlarge", 1),
        ("p4d", "2026-10-31T23:00:00Z", "2026-11-01T00:00:00Z", "USE1-BoxUsage:p4d.24xlarge", 1),
        ("p4d", "2026-11-01T00:00:00Z", "2026-11-01T01:00:00Z", "USE1-BoxUsage:p4d.24xlarge", 0.5),
        ("m5", "2026-10-31T22:00:00Z", "2026-10-31T23:00:00Z", "USE1-BoxUsage:m5.xlarge", 1),
        ("m5", "2026-10-31T23:00:00Z", "2026-11-01T00:00:00Z", "USE1-BoxUsage:m5.xlarge", 1),
        ("ebs", "2026-10-31T22:00:00Z", "2026-10-31T23:00:00Z", "USE1-EBS:VolumeUsage.gp3", 0.1),
    ]
    prices = {"p4d.24xlarge": 32.7726, "m5.xlarge": 0.192}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for n, (kind, start, end, usage_type, amount) in enumerate(rows, start=1):
        instance = usage_type.split(":", 1)[1] if "BoxUsage" in usage_type else ""
        cost = round(amount * prices.get(instance, 0.08), 6)
        product = "AmazonEC2"
        writer.writerow(
            [
                *(f"li{n:04d}{kind}", "2026-10-01T00:00:00Z", "Usage", start, end, product),
                *(usage_type, amount, cost, instance),
            ]
        )
    writer.writerow(
        [
            *("li9999tax", "2026-10-01T00:00:00Z", "Tax", "2026-10-01T00:00:00Z"),
            *("2026-11-01T00:00:00Z", "AmazonEC2", "", 1, 5.32, ""),
        ]
    )
    return out.getvalue()


FIXTURES = {
    "nvidia-smi.csv": nvidia_smi,
    "dcgm-prometheus.json": dcgm_prometheus,
    "slurm-sacct.txt": slurm_sacct,
    "aws-cur.csv": aws_cur,
}


def main(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, make in FIXTURES.items():
        (directory / name).write_text(make(), encoding="utf-8")
        print(directory / name)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DIRECTORY)

"""Time to read a month of 5-minute nvidia-smi samples from 16 GPUs through the API.

Builds the log a two-host, 8-GPU-per-host team would collect in November
2026 (``nvidia-smi --query-gpu=timestamp,index,name,utilization.gpu
--format=csv -l 300`` on each host, the two files concatenated): 16 GPUs ×
30 days × 288 samples = 138 240 rows, about 8 MB. Each round posts it to
``POST /api/v1/usage`` through Django's test client (JSON body in, the whole
middleware stack, reader, JSON out) and checks the answer; the figure is the
median of the rounds. Target (issue 30): under 2 s on the project's machine.

    DJANGO_SECRET_KEY=x DJANGO_STATIC_MANIFEST=false .venv/bin/python benchmarks/usage.py
    .venv/bin/python benchmarks/usage.py --rounds 3
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only")
os.environ.setdefault("DJANGO_STATIC_MANIFEST", "false")
os.environ.setdefault("DATABASE_URL", "sqlite://:memory:")

import django

django.setup()

from django.test import Client  # noqa: E402

HOSTS, GPUS_PER_HOST, DAYS, INTERVAL_S = 2, 8, 30, 300


def month_of_samples(seed: int = 0) -> str:
    """The concatenated log: for each host a header, then every 5 minutes one row per GPU."""
    rng = np.random.default_rng(seed)
    start = dt.datetime(2026, 11, 1)
    steps = DAYS * 24 * 3600 // INTERVAL_S
    parts = []
    for _host in range(HOSTS):
        parts.append("timestamp, index, name, utilization.gpu [%]\n")
        busy = rng.integers(0, 101, size=(steps, GPUS_PER_HOST))
        for k in range(steps):
            t = start + dt.timedelta(seconds=k * INTERVAL_S, milliseconds=int(rng.integers(0, 999)))
            stamp = t.strftime("%Y/%m/%d %H:%M:%S.") + f"{t.microsecond // 1000:03d}"
            parts.extend(
                f"{stamp}, {gpu}, NVIDIA GeForce RTX 4090, {busy[k, gpu]} %\n"
                for gpu in range(GPUS_PER_HOST)
            )
    return "".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    log = month_of_samples()
    body = json.dumps({"format": "nvidia-smi", "content": log})
    lines = log.count("\n")
    print(f"log: {lines} lines, {len(log) / 1e6:.1f} MB; body {len(body) / 1e6:.1f} MB")
    client = Client(HTTP_HOST="localhost")
    seconds = []
    for _ in range(args.rounds):
        begin = time.perf_counter()
        response = client.post("/api/v1/usage", body, content_type="application/json")
        seconds.append(time.perf_counter() - begin)
        assert response.status_code == 200, response.content[:500]
        answer = response.json()
        assert answer["gpus"] == HOSTS * GPUS_PER_HOST and answer["months"][0] == "2026-11"
    print(
        f"POST /api/v1/usage: median {statistics.median(seconds):.3f} s, "
        f"min {min(seconds):.3f} s over {args.rounds} rounds "
        f"(GPU-hours {answer['gpu_hours'][0]:.1f}, observed {answer['observed_hours'][0]:.1f} h)"
    )


if __name__ == "__main__":
    main()

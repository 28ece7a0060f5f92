"""Time and peak memory of reading a large file: ``manage.py usage`` and a page upload.

1. A 50 MB nvidia-smi log of 8 GPUs (``nvidia-smi --query-gpu=timestamp,index,name,
   utilization.gpu,utilization.memory,memory.used,temperature.gpu --format=csv -l 5``
   for about 5 weeks) through ``manage.py usage nvidia-smi FILE`` in a child process:
   wall time and the child's peak resident memory (``ru_maxrss``). Target (issue 39):
   at most 5 s and 300 MB on the project's 2-core machine.
2. The same kind of log at the upload limit (16 MB by default) posted to the
   "Use measured usage" page through Django's test client in a child process: the
   peak of the memory allocated during the request (``tracemalloc``, numpy's
   arrays included), per file size. Target: at most 4 × the file size + 100 MB.

    DJANGO_SECRET_KEY=x .venv/bin/python benchmarks/usage_files.py
    .venv/bin/python benchmarks/usage_files.py --megabytes 50 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
GPUS, INTERVAL_S = 8, 5
HEADER = (
    "timestamp, index, name, utilization.gpu [%], utilization.memory [%], "
    "memory.used [MiB], temperature.gpu\n"
)


def nvidia_log(megabytes: float, seed: int = 0) -> bytes:
    """An 8-GPU log of about ``megabytes`` MB, a row per GPU every 5 s (vectorized)."""
    rng = np.random.default_rng(seed)
    row_bytes = 77
    steps = int(megabytes * 1e6 / row_bytes / GPUS)
    start = np.datetime64("2026-11-01T00:00:00.000")
    times = start + (np.arange(steps) * INTERVAL_S * 1000).astype("timedelta64[ms]")
    stamps = np.char.replace(np.datetime_as_string(times, unit="ms"), "T", " ")
    stamps = np.char.replace(stamps, "-", "/")
    util = rng.integers(0, 101, size=(steps, GPUS))
    memory = rng.integers(0, 81920, size=(steps, GPUS))
    lines = [HEADER]
    for k in range(steps):
        stamp = stamps[k]
        lines.extend(
            f"{stamp}, {g}, NVIDIA A100-SXM4-80GB, {util[k, g]} %, {util[k, g] // 2} %, "
            f"{memory[k, g]} MiB, {40 + g}\n"
            for g in range(GPUS)
        )
    return "".join(lines).encode()


def run_command(path: Path) -> tuple[float, float, float]:
    """Wall time [s], peak RSS [MB] and CPU time [s] of ``manage.py usage nvidia-smi path``."""
    env = {**os.environ, "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY", "bench")}
    code = (
        "import resource, subprocess, sys, time\n"
        "t = time.perf_counter()\n"
        "done = subprocess.run([sys.executable, 'manage.py', 'usage', 'nvidia-smi', sys.argv[1]],"
        " stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)\n"
        "wall = time.perf_counter() - t\n"
        "assert done.returncode == 0, done.stderr[-2000:]\n"
        "use = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(wall, use.ru_maxrss / 1024, use.ru_utime + use.ru_stime)\n"
    )
    # A fresh parent per round: RUSAGE_CHILDREN is the largest child it ever waited for.
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return float(out[0]), float(out[1]), float(out[2])


UPLOAD = """
import os, resource, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webapp.settings")
os.environ.setdefault("DATABASE_URL", "sqlite://:memory:")
import django
django.setup()
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.test.utils import setup_test_environment
setup_test_environment()
from django.core.management import call_command
call_command("migrate", verbosity=0)
data = open(sys.argv[1], "rb").read()
client = Client(HTTP_HOST="localhost")
client.get("/usage/")
import tracemalloc
tracemalloc.start()
upload = SimpleUploadedFile("gpu.csv", data)
del data
response = client.post("/usage/", {"format": "nvidia-smi", "file": upload})
peak = tracemalloc.get_traced_memory()[1] / 1e6
assert response.status_code in (200,), response.status_code
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, peak)
"""


def run_upload(path: Path) -> tuple[float, float]:
    """Peak RSS [MB] of a process posting ``path`` to the page, and the peak of the memory
    allocated during the request [MB] (``tracemalloc``: Python's and numpy's allocations,
    the file's bytes included, the rest of the process not)."""
    env = {
        **os.environ,
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY", "bench"),
        "DJANGO_STATIC_MANIFEST": "false",
    }
    out = subprocess.run(
        [sys.executable, "-c", UPLOAD, str(path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    rss, peak = (float(v) for v in out.stdout.split()[-2:])
    return rss, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--megabytes", type=float, default=50.0)
    parser.add_argument("--upload-megabytes", type=float, default=15.5)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        big = Path(folder) / "gpu.csv"
        big.write_bytes(nvidia_log(args.megabytes))
        size = big.stat().st_size / 1e6
        rounds = [run_command(big) for _ in range(args.rounds)]
        seconds = [r[0] for r in rounds]
        cpu = [r[2] for r in rounds]
        peak = max(r[1] for r in rounds)
        print(
            f"manage.py usage nvidia-smi, {size:.1f} MB, {GPUS} GPUs: wall median "
            f"{statistics.median(seconds):.2f} s (min {min(seconds):.2f} s), CPU (user + "
            f"system) median {statistics.median(cpu):.2f} s over {args.rounds} rounds, peak "
            f"RSS {peak:.0f} MB (target 5 s, 300 MB); load average "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
        )
        small = Path(folder) / "upload.csv"
        small.write_bytes(nvidia_log(args.upload_megabytes, seed=1))
        upload_size = small.stat().st_size / 1e6
        rss, peak = run_upload(small)
        print(
            f"page upload, {upload_size:.1f} MB: {peak:.0f} MB allocated at the peak of the "
            f"request = {peak / upload_size:.1f} × the file (limit 4 × + 100 MB = "
            f"{4 * upload_size + 100:.0f} MB); the process's peak RSS {rss:.0f} MB"
        )


if __name__ == "__main__":
    main()

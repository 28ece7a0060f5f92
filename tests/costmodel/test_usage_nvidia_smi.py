"""nvidia-smi logs of any --query-gpu field list, with or without a header; GPUs that report
no utilization (MIG, [N/A]) in one notice each; short stalls not listed as gaps.

Real sample: ``omniopt-nvidia-smi-noheader.csv`` is the headerless 13-field nvidia-smi
log OmniOpt2 writes on a Slurm node, as its documentation shows it (repository
NormanTUD/OmniOpt, path .gui/_tutorials/folder_structure.md, commit
53753555bce9efebe747c9fe1d421313f27e2d69): three A100s told apart by ``pci.bus_id``,
values with units (``3 %``, ``40960 MiB``). The field list, given once:
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_allclose

from costmodel.usage import (
    Gap,
    GpuRef,
    GpusWithoutUtilization,
    RowSkipped,
    UsageError,
    read_nvidia_smi,
    read_usage,
)

FIXTURES = Path(__file__).resolve().parent / "usage_fixtures"
OMNIOPT_FIELDS = (
    "timestamp, name, pci.bus_id, driver_version, pstate, pcie.link.gen.max, "
    "pcie.link.gen.current, temperature.gpu, utilization.gpu [%], utilization.memory [%], "
    "memory.total [MiB], memory.free [MiB], memory.used [MiB]"
)


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def error_of(caught: pytest.ExceptionInfo[UsageError]) -> tuple[str, str, str, dict]:
    [problem] = caught.value.errors
    return problem.field, problem.code, problem.message, problem.params


class TestOmniOptLog:
    """Hand computation, per GPU (bus id), times in seconds after 11:27:00:

    8B: 05.188 (0 %), 15.309 (3 %), 25.361 (3 %): steps 10.121, 10.052, median 10.0865;
        busy 0.03 × 10.052 + 0.03 × 10.0865 (last sample) = 0.604155 s.
    0B: 05.192 (0 %), 15.311 (3 %): step and median 10.119; busy 0.03 × 10.119 = 0.30357 s.
    3B: 05.177 (0 %), 15.311 (3 %), 25.376 (1 %): steps 10.134, 10.065, median 10.0995;
        busy 0.03 × 10.065 + 0.01 × 10.0995 = 0.402945 s.
    Sum 1.31067 s = 1.31067 / 3600 GPU-h. Observed: 05.177 to 3B's last span end,
    25.376 + 10.0995 = 35.4755: 30.2985 s.
    """

    usage = read_nvidia_smi(fixture("omniopt-nvidia-smi-noheader.csv"), OMNIOPT_FIELDS)

    def test_its_gpu_hours(self):
        # Unix times in float64 resolve about 0.2 µs at 1.7e9 s: agreement to 1e-6
        assert self.usage.months == ["2024-06"]
        assert_allclose(self.usage.gpu_hours, [1.31067 / 3600], rtol=1e-6)
        assert_allclose(self.usage.observed_hours, [30.2985 / 3600], rtol=1e-6)

    def test_its_gpus_are_told_apart_by_bus_id(self):
        assert self.usage.gpus == 3
        assert self.usage.gpu_models == ["NVIDIA A100-SXM4-40GB"]

    def test_with_the_header_line_it_reads_the_same(self):
        text = OMNIOPT_FIELDS + "\n" + fixture("omniopt-nvidia-smi-noheader.csv")
        assert read_nvidia_smi(text) == self.usage

    def test_without_the_field_list_it_is_refused_saying_how_to_give_it(self):
        with pytest.raises(UsageError) as caught:
            read_usage("nvidia-smi", fixture("omniopt-nvidia-smi-noheader.csv"))
        field, code, message, params = error_of(caught)
        assert (field, code, params) == ("content", "not_nvidia_smi", {"line": 1, "count": 13})
        assert "--columns" in message

    def test_a_field_list_without_utilization_is_refused_on_columns(self):
        with pytest.raises(UsageError) as caught:
            read_usage("nvidia-smi", "x\n", columns="timestamp,index,memory.used")
        field, code, _message, params = error_of(caught)
        assert (field, code, params) == (
            "columns",
            "query_fields_missing",
            {"columns": "utilization.gpu"},
        )


HEADER = "timestamp, index, name, mig.mode.current, utilization.gpu [%]\n"


def log(rows: list[tuple[str, int, str, str]]) -> str:
    return HEADER + "".join(f"{t}, {i}, NVIDIA A100, {m}, {u}\n" for t, i, m, u in rows)


def test_mig_and_silent_gpus_are_one_notice_each_not_a_line_per_row():
    times = [f"2026/11/02 10:{m:02d}:00" for m in range(0, 60, 10)]
    rows = []
    for t in times:
        rows += [(t, 0, "Disabled", "50 %"), (t, 1, "Enabled", "[N/A]")]
        rows += [(t, 2, "Enabled", "[N/A]"), (t, 3, "Disabled", "[N/A]")]
    usage = read_nvidia_smi(log(rows))
    # GPU 0 alone: 6 samples × 600 s × 50 % = 0.5 GPU-h
    assert_allclose(usage.gpu_hours, [0.5], rtol=1e-12)
    assert usage.gpus == 1
    assert not [n for n in usage.notices if isinstance(n, RowSkipped)]
    assert [n for n in usage.notices if isinstance(n, GpusWithoutUtilization)] == [
        GpusWithoutUtilization(
            count=2, mig=True, gpus=[GpuRef(log=1, index="1"), GpuRef(log=1, index="2")]
        ),
        GpusWithoutUtilization(count=1, mig=False, gpus=[GpuRef(log=1, index="3")]),
    ]


def test_a_log_where_no_gpu_reports_a_utilization_is_refused():
    rows = [(f"2026/11/02 10:{m:02d}:00", 0, "Enabled", "[N/A]") for m in (0, 10)]
    with pytest.raises(UsageError) as caught:
        read_nvidia_smi(log(rows))
    assert error_of(caught)[1] == "no_utilization"


def test_a_stall_shorter_than_twice_the_median_beyond_the_cap_is_not_listed():
    # -l 1 with stalls: 1 s samples, a 4 s step (2 s unobserved) and a 5 s step (3 s)
    seconds = np.concatenate([np.arange(0, 10), np.arange(14, 24), np.arange(29, 40)])
    stamps = np.datetime64("2026-11-02T10:00:00") + seconds.astype("timedelta64[s]")
    text = "".join(f"{t}, 0, 100\n" for t in np.datetime_as_string(stamps))
    usage = read_nvidia_smi(text)
    gaps = [n for n in usage.notices if isinstance(n, Gap)]
    # median 1 s, cap 2 s: the 4 s step leaves 2 s unobserved (not < 2: listed), the
    # 5 s step 3 s (listed); all samples count their capped span: 31 samples, the two
    # before a stall 2 s, the other 29 1 s → (29 + 4) s at 100 %
    assert [g.line for g in gaps] == [10, 20]
    assert_allclose(usage.gpu_hours, [33 / 3600], rtol=1e-12)
    one_second_stalls = "".join(
        f"{t}, 0, 100\n"
        for t in np.datetime_as_string(
            np.datetime64("2026-11-02T10:00:00")
            + np.array([0, 1, 2, 5, 6, 7, 8]).astype("timedelta64[s]")
        )
    )
    # a 3 s step leaves 1 s beyond the 2 s cap: unobserved, not listed
    assert not [n for n in read_nvidia_smi(one_second_stalls).notices if isinstance(n, Gap)]

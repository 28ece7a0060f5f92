"""DCGM through Prometheus: series merged per GPU, glitch samples skipped, the metric read.

Real sample: the label sets are those dcgm-exporter prints, from the project's README
(repository NVIDIA/dcgm-exporter, path README.md, commit
dcbb9276f0a5f380030dc129f043e5d9c25c3045): ``gpu="0"``,
``UUID="GPU-604ac76c-d9cf-fef3-62e9-d92044ab6e52"``, and under Kubernetes
``container``, ``namespace`` and ``pod``, empty while no workload holds the GPU.
``dcgm-exporter-relabelled.json`` is the ``query_range`` answer Prometheus gives
for that GPU across the October/November boundary while a pod held it from
23:55 to 00:05: two series (idle labels first, as Prometheus sorts them), the
idle one with a hole where the pod's series runs, and the exporter's two known
glitches in the pod's series: ``4294967295`` (DCGM's blank) at 00:00 and ``NaN``
at 00:01.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest
from numpy.testing import assert_allclose

from costmodel.usage import (
    QUERY_RANGE_HINT,
    Gap,
    GpuRef,
    MigGpusSkipped,
    SamplesSkipped,
    UsageError,
    read_dcgm_prometheus,
)

FIXTURES = Path(__file__).resolve().parent / "usage_fixtures"


def answer() -> dict:
    return json.loads((FIXTURES / "dcgm-exporter-relabelled.json").read_text(encoding="utf-8"))


def error_of(caught: pytest.ExceptionInfo[UsageError]) -> tuple[str, str, dict]:
    [problem] = caught.value.errors
    return problem.code, problem.message, problem.params


class TestRelabelledGpu:
    """Hand computation. Samples every 60 s from 23:50 to 00:10 (21 instants); 00:00 and
    00:01 skipped, so 19 samples of one GPU: 0 % at 23:50–23:54 and 00:06–00:10, 100 % at
    23:55–23:59 and 00:02–00:05. Median interval 60 s, cap 120 s: the 23:59 sample is 180 s
    before the next, so it counts 120 s (23:59–00:01) and 00:01–00:02 is a gap.

    October: 23:55–23:59 at 100 % = 4 × 60 s + the 23:59 sample's 60 s before midnight
    = 300 s = 1/12 GPU-h; observed 23:50–24:00 = 600 s = 1/6 h.
    November: the 23:59 sample's 60 s after midnight + 00:02–00:05 (4 × 60 s) = 300 s
    = 1/12 GPU-h; observed 00:00–00:01 and 00:02–00:11 = 600 s = 1/6 h.
    """

    usage = read_dcgm_prometheus(json.dumps(answer()))

    def test_the_two_label_sets_are_one_gpu_in_time_order(self):
        assert self.usage.gpus == 1
        assert self.usage.months == ["2026-10", "2026-11"]
        assert_allclose(self.usage.gpu_hours, [1 / 12, 1 / 12], rtol=1e-12)
        assert_allclose(self.usage.observed_hours, [1 / 6, 1 / 6], rtol=1e-12)

    def test_the_glitches_are_skipped_in_one_notice_counting_them(self):
        skipped = [n for n in self.usage.notices if isinstance(n, SamplesSkipped)]
        assert skipped == [
            SamplesSkipped(count=2, path="data.result[1].values[5]", value="4294967295")
        ]

    def test_the_hole_they_leave_is_unobserved_but_too_short_to_list(self):
        # 00:01-00:02 is unobserved (observed_hours above); 60 s < 2 × 60 s: not listed
        assert not [n for n in self.usage.notices if isinstance(n, Gap)]

    def test_a_hole_of_twice_the_median_interval_beyond_the_cap_is_listed(self):
        document = answer()
        del document["data"]["result"][1]["values"][7]  # 00:02 too: 23:59 → 00:03 = 240 s
        [gap] = [
            n for n in read_dcgm_prometheus(json.dumps(document)).notices if isinstance(n, Gap)
        ]
        assert gap.gpu == GpuRef(host="gpu-node-1", index="0")
        assert gap.path == "data.result[1].values[4]"
        assert_allclose(gap.hours, 240 / 3600, rtol=1e-12)

    def test_the_series_order_does_not_matter(self):
        reordered = answer()
        reordered["data"]["result"].reverse()
        usage = read_dcgm_prometheus(json.dumps(reordered))
        assert_allclose(usage.gpu_hours, self.usage.gpu_hours, rtol=1e-12)

    def test_without_a_uuid_hostname_and_gpu_name_the_gpu(self):
        document = answer()
        for series in document["data"]["result"]:
            del series["metric"]["UUID"]
        usage = read_dcgm_prometheus(json.dumps(document))
        assert usage.gpus == 1
        assert_allclose(usage.gpu_hours, self.usage.gpu_hours, rtol=1e-12)


@pytest.mark.parametrize("metric", ["DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_SM_ACTIVE"])
def test_a_profiling_metric_is_a_ratio_not_a_percentage(metric):
    # the same samples as ratios (1.0 for 100 %): the same 1/12 + 1/12 GPU-h, not 100 × less
    document = answer()
    for series in document["data"]["result"]:
        series["metric"]["__name__"] = metric
        for sample in series["values"]:
            if sample[1] == "100":
                sample[1] = "1"
    usage = read_dcgm_prometheus(json.dumps(document))
    assert_allclose(usage.gpu_hours, [1 / 12, 1 / 12], rtol=1e-12)


def test_a_ratio_above_1_is_skipped_as_out_of_range():
    document = answer()
    document["data"]["result"][0]["metric"]["__name__"] = "DCGM_FI_PROF_SM_ACTIVE"
    document["data"]["result"][1]["metric"]["__name__"] = "DCGM_FI_PROF_SM_ACTIVE"
    # the pod's 100s read as 100 × 100 % : all out of range, with the two glitches
    usage = read_dcgm_prometheus(json.dumps(document))
    [skipped] = [n for n in usage.notices if isinstance(n, SamplesSkipped)]
    assert skipped.count == 11
    assert skipped.path == "data.result[1].values[0]"


def test_another_metric_is_refused_naming_it():
    document = answer()
    document["data"]["result"][1]["metric"]["__name__"] = "DCGM_FI_DEV_FB_USED"
    with pytest.raises(UsageError) as caught:
        read_dcgm_prometheus(json.dumps(document))
    code, message, params = error_of(caught)
    assert code == "metric_not_read"
    assert params == {"path": "data.result[1].metric.__name__", "metric": "DCGM_FI_DEV_FB_USED"}
    assert message.startswith(
        "data.result[1].metric.__name__: DCGM_FI_DEV_FB_USED is not a utilization metric"
    )


def test_two_utilization_metrics_are_refused():
    document = answer()
    document["data"]["result"][1]["metric"]["__name__"] = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
    with pytest.raises(UsageError) as caught:
        read_dcgm_prometheus(json.dumps(document))
    assert error_of(caught)[0] == "two_metrics"


def test_an_expression_without_a_metric_name_is_refused():
    document = answer()
    del document["data"]["result"][0]["metric"]["__name__"]
    with pytest.raises(UsageError) as caught:
        read_dcgm_prometheus(json.dumps(document))
    assert error_of(caught)[2] == {"path": "data.result[0].metric"}


def test_an_instant_query_answer_is_refused_with_the_query_range_call():
    instant = {
        "status": "success",
        "data": {
            "resultType": "vector",
            "result": [
                {
                    "metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", "gpu": "0"},
                    "value": [1796079600, "42"],
                }
            ],
        },
    }
    with pytest.raises(UsageError) as caught:
        read_dcgm_prometheus(json.dumps(instant))
    code, message, params = error_of(caught)
    assert code == "instant_query"
    assert "/api/v1/query_range" in QUERY_RANGE_HINT
    assert message.endswith(QUERY_RANGE_HINT)
    assert params == {"path": "data.resultType", "kind": "vector", "hint": QUERY_RANGE_HINT}


def test_the_call_to_make_is_one_prometheus_answers():
    # Prometheus refuses a range of more than 11 000 steps per series ("exceeded maximum
    # resolution of 11,000 points per timeseries", web/api/v1/api.go of
    # prometheus/prometheus): the hint's month at 300 s is 8 928 steps; at 60 s, 44 640
    given = dict(re.findall(r"--data-urlencode (\w+)=(\S+)", QUERY_RANGE_HINT))
    start, end = (datetime.fromisoformat(given[k]) for k in ("start", "end"))
    step = int(given["step"].removesuffix("s"))
    assert (end - start).total_seconds() / step == 8_928
    assert (end - start).total_seconds() / step <= 11_000


def test_prometheus_error_answer_is_refused_quoting_it_with_the_call_to_make():
    # the body curl saves for a month asked at step=60s (the error as web/api/v1/api.go of
    # prometheus/prometheus words it)
    answer = (
        '{"status":"error","errorType":"bad_data","error":"exceeded maximum resolution of '
        '11,000 points per timeseries. Try decreasing the query resolution (?step=XX)"}'
    )
    with pytest.raises(UsageError) as caught:
        read_dcgm_prometheus(answer)
    code, message, params = error_of(caught)
    assert code == "prometheus_error"
    assert params["path"] == "status"
    assert params["kind"] == "bad_data"
    assert params["error"].startswith("exceeded maximum resolution of 11,000 points")
    assert message.startswith(
        "status: Prometheus answered an error, not samples (bad_data: exceeded maximum "
    )
    assert message.endswith(f"ask again, for instance {QUERY_RANGE_HINT}")


def test_a_long_prometheus_error_is_quoted_in_part():
    answer = json.dumps({"status": "error", "errorType": "execution", "error": "x" * 5000})
    with pytest.raises(UsageError) as caught:
        read_dcgm_prometheus(answer)
    assert error_of(caught)[2]["error"] == "x" * 200


def test_a_real_instant_answer_is_refused_naming_the_key_and_the_call_to_make():
    """Real sample: ``dcgm-instant-aicr.json`` is the answer a Prometheus of two H100 nodes
    gave to ``/api/v1/query?query=DCGM_FI_DEV_GPU_UTIL``, as NVIDIA's AI Cluster Runtime
    shipped it in its CNCF conformance evidence (repository NVIDIA/aicr, path
    docs/conformance/cncf/evidence/accelerator-metrics.md, commit
    bc05c6be7859cee7ce6680b93333ed03ba795f88, Apache-2.0): lines 126–501 of that page,
    the JSON block under "GPU Utilization", unchanged. 16 GPUs; the exporter's own labels
    (pod, namespace) on 15, a workload's on the one a pod held. An instant answer holds
    one sample per GPU, no hours: the reader refuses it with the range query to run."""
    text = (FIXTURES / "dcgm-instant-aicr.json").read_text(encoding="utf-8")
    assert len(json.loads(text)["data"]["result"]) == 16
    with pytest.raises(UsageError) as caught:
        read_dcgm_prometheus(text)
    code, message, params = error_of(caught)
    assert code == "instant_query"
    assert params == {"path": "data.resultType", "kind": "vector", "hint": QUERY_RANGE_HINT}
    assert message.startswith('data.resultType: is "vector", the answer of an instant query')
    assert message.endswith(QUERY_RANGE_HINT)


def mig_answer(*series: dict) -> str:
    return json.dumps({"status": "success", "data": {"resultType": "matrix", "result": series}})


def gr_series(labels: dict, value: str, start: int = 1_790_000_040) -> dict:
    """``DCGM_FI_PROF_GR_ENGINE_ACTIVE`` every 60 s for an hour: 61 samples at ``value``."""
    metric = {"__name__": "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Hostname": "node-4", **labels}
    return {"metric": metric, "values": [[start + 60 * i, value] for i in range(61)]}


class TestMigGpus:
    """An A100 in MIG mode is two series under one UUID, one per instance (dcgm-exporter's
    ``GPU_I_ID`` and ``GPU_I_PROFILE``): 3g.40gb instance 1 idle, 3g.40gb instance 2 busy.
    Their activity is of a part of the GPU each, so it does not add up to the GPU's; read
    as one GPU, the answer depended on which series came first (0 or 1.02 GPU-h). A whole
    GPU beside it, gpu 1, 50 % busy for the hour: hand computation 61 samples × 60 s
    (the last one counted for the median interval, 60 s) × 0.5 = 0.5083 GPU-h."""

    a100 = {"UUID": "GPU-a", "gpu": "0", "GPU_I_PROFILE": "3g.40gb"}
    idle = gr_series({**a100, "GPU_I_ID": "1"}, "0")
    busy = gr_series({**a100, "GPU_I_ID": "2"}, "1")
    whole = gr_series({"UUID": "GPU-b", "gpu": "1"}, "0.5")

    @pytest.mark.parametrize("order", [(0, 1, 2), (1, 0, 2), (2, 1, 0)])
    def test_its_instances_are_not_counted_whatever_their_order(self, order):
        series = [self.idle, self.busy, self.whole]
        usage = read_dcgm_prometheus(mig_answer(*(series[i] for i in order)))
        assert usage.gpus == 1
        assert_allclose(sum(usage.gpu_hours), 61 * 60 * 0.5 / 3600, rtol=1e-12)
        assert (
            MigGpusSkipped(count=1, instances=2, gpus=[GpuRef(host="node-4", index="0")])
            in usage.notices
        )

    def test_an_answer_of_mig_instances_only_is_refused_naming_the_label(self):
        with pytest.raises(UsageError) as caught:
            read_dcgm_prometheus(mig_answer(self.idle, self.busy))
        code, message, params = error_of(caught)
        assert code == "only_mig_gpus"
        assert params == {"path": "data.result[0].metric.GPU_I_ID"}
        assert message.startswith("data.result[0].metric.GPU_I_ID: every GPU of the answer")
        assert message.endswith("by their allocation (Slurm's sacct, the cloud bill)")

    def test_an_empty_instance_label_is_a_whole_gpu(self):
        # dcgm-exporter leaves GPU_I_ID out, or empty, on a GPU not in MIG mode
        whole = gr_series({"UUID": "GPU-b", "gpu": "1", "GPU_I_ID": ""}, "0.5")
        usage = read_dcgm_prometheus(mig_answer(whole))
        assert_allclose(sum(usage.gpu_hours), 61 * 60 * 0.5 / 3600, rtol=1e-12)
        assert not [n for n in usage.notices if isinstance(n, MigGpusSkipped)]


def test_a_file_of_glitches_only_is_refused():
    document = answer()
    for series in document["data"]["result"]:
        for sample in series["values"]:
            sample[1] = "NaN"
    with pytest.raises(UsageError) as caught:
        read_dcgm_prometheus(json.dumps(document))
    assert error_of(caught)[0] == "no_samples"

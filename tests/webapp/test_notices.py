"""The readers' notices in words: English as the readers wrote them before, Chinese in full.

The English sentences below are what ``MeasuredUsage.warnings`` held before the
readers returned notices (copied from the readers' output at that commit);
``POST /api/v1/usage`` keeps giving them as ``warnings``.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import numpy as np
import pytest
from django.utils import translation

from costmodel import FieldError
from costmodel.usage import (
    NOTICE_TYPES,
    READER_CODES,
    Gap,
    GpuRef,
    GpusWithoutUtilization,
    InstanceTypeUnknown,
    JobStepsSkipped,
    JobsWithoutGpu,
    MigGpusSkipped,
    MonthNotObserved,
    MonthPartlyObserved,
    MoreGaps,
    MoreRowsSkipped,
    RowSkipped,
    SamplesSkipped,
    SingleSampleGpus,
    UnfinishedJobsSkipped,
    UsageError,
    decode_text,
    read_usage,
)
from webapp.notices import (
    READER_MESSAGES,
    english_warnings,
    notice_text,
    notice_texts,
    reader_error_text,
)

FIXTURES = Path(__file__).resolve().parents[1] / "costmodel" / "usage_fixtures"
P4D = {"p4d.24xlarge": (8, "NVIDIA A100 40GB SXM4")}


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def many_skipped_rows() -> str:
    rows = (
        ["2026/11/02 10:00:00, 0, 10"]
        + [f"2026/11/02 10:{m:02d}:00, 0" for m in range(1, 12)]
        + [f"bad{m}, 0, 10" for m in range(12, 24)]
        + ["2026/11/02 10:30:00, 0, 10", "2026/11/02 10:40:00, 0, 10"]
    )
    return "\n".join(rows) + "\n"


def many_gaps() -> str:
    times = np.datetime64("2026-11-02T00:00") + np.arange(50) * np.timedelta64(1, "m")
    times[1::2] += np.arange(25) * np.timedelta64(10, "m")
    times[2::2] += np.arange(1, 25) * np.timedelta64(10, "m")
    stamps = np.datetime_as_string(times.astype("datetime64[s]"))
    return "".join(f"{t}, 0, 10\n" for t in stamps)


def dcgm_with_a_gap() -> str:
    answer = json.loads(fixture("dcgm-prometheus.json"))
    del answer["data"]["result"][2]["values"][3:9]
    return json.dumps(answer)


def bill_with_a_bad_date() -> str:
    lines = fixture("aws-cur.csv").splitlines()
    bad = lines[1].replace("2026-10-31", "2026-13-31")
    return "\n".join([*lines[:2], bad, *lines[2:]]) + "\n"


def sacct_with_a_short_row() -> str:
    lines = fixture("slurm-sacct.txt").splitlines()
    return "\n".join([*lines[:2], "1009|2026-10-01T00:00:00", *lines[2:]]) + "\n"


MONTH_GAP_AND_LONE_GPU = (
    "2026/09/30 20:00:00, 0, 50\n2026/09/30 20:30:00, 0, 50\n"
    "2026/11/01 00:00:00, 0, 50\n2026/11/01 00:30:00, 0, 50\n"
    "2026/11/01 00:10:00, 1, 70\n"
)

OLD_WARNINGS = [
    (
        "nvidia-smi",
        lambda: fixture("nvidia-smi.csv"),
        [
            "line 16: skipped, unreadable utilization",
            "gap of 1.00 h without samples of log 2 GPU 1 after line 77 (not observed)",
            "2026-10: partly observed, 2.0 of 744 hours",
            "2026-11: partly observed, 2.0 of 720 hours",
        ],
    ),
    (
        "dcgm-prometheus",
        lambda: fixture("dcgm-prometheus.json"),
        [
            "2026-11: partly observed, 1.0 of 720 hours",
            "2026-12: partly observed, 1.0 of 744 hours",
        ],
    ),
    (
        "slurm-sacct",
        lambda: fixture("slurm-sacct.txt"),
        [
            "1 job steps skipped (only whole jobs count; use sacct -X)",
            "1 jobs without a start or an end skipped (still running?)",
            "1 jobs without a GPU (no gres/gpu in AllocTRES): they count no GPU-hours",
            "2026-09: partly observed, 62.0 of 720 hours",
            "2026-11: partly observed, 48.0 of 720 hours",
        ],
    ),
    (
        "aws-cur",
        lambda: fixture("aws-cur.csv"),
        [
            "m5.xlarge: 2 instance-hours not counted, the catalog has no GPU count for it",
            "2026-10: partly observed, 2.0 of 744 hours",
            "2026-11: partly observed, 1.0 of 720 hours",
        ],
    ),
    (
        "nvidia-smi",
        many_skipped_rows,
        # one line per kind (issue 39): 11 rows of 2 fields (lines 2-12), 9 unreadable
        # timestamps listed (13-21), 3 more beyond the 20 listed one by one in the data
        [
            "11 rows skipped, wrong number of fields: lines 2, 3, 4 and 8 more",
            "9 rows skipped, unreadable timestamp: lines 13, 14, 15 and 6 more",
            "… and 3 more rows skipped",
            "2026-11: partly observed, 1.0 of 720 hours",
        ],
    ),
    (
        "nvidia-smi",
        many_gaps,
        # one line (issue 39): 20 gaps listed in the data and 4 counted
        [
            "24 gaps without samples (not observed), the longest listed 0.18 h: log 1 GPU 0 "
            "after line 2, log 1 GPU 0 after line 4, log 1 GPU 0 after line 6 and 21 more",
            "2026-11: partly observed, 1.2 of 720 hours",
        ],
    ),
    (
        "nvidia-smi",
        lambda: MONTH_GAP_AND_LONE_GPU,
        [
            # was "1800 s": figures of 1 000 and more are now grouped, as everywhere else
            "1 GPU(s) with one sample (or one instant) only: counted with the median interval "
            "of the others, 1,800 s",
            "gap of 747.50 h without samples of log 1 GPU 0 after line 2 (not observed)",
            "2026-09: partly observed, 1.5 of 720 hours",
            "2026-10: not observed",
            "2026-11: partly observed, 1.0 of 720 hours",
        ],
    ),
    (
        "dcgm-prometheus",
        dcgm_with_a_gap,
        [
            "gap of 0.58 h without samples of dgx-01 GPU 2 after data.result[2].values[2] "
            "(not observed)",
            "2026-11: partly observed, 1.0 of 720 hours",
            "2026-12: partly observed, 1.0 of 744 hours",
        ],
    ),
    (
        "aws-cur",
        bill_with_a_bad_date,
        [
            "line 3: skipped, unreadable date or amount",
            "m5.xlarge: 2 instance-hours not counted, the catalog has no GPU count for it",
            "2026-10: partly observed, 2.0 of 744 hours",
            "2026-11: partly observed, 1.0 of 720 hours",
        ],
    ),
    (
        "slurm-sacct",
        sacct_with_a_short_row,
        [
            "line 3: skipped, 2 fields, not 4",
            "1 job steps skipped (only whole jobs count; use sacct -X)",
            "1 jobs without a start or an end skipped (still running?)",
            "1 jobs without a GPU (no gres/gpu in AllocTRES): they count no GPU-hours",
            "2026-09: partly observed, 62.0 of 720 hours",
            "2026-11: partly observed, 48.0 of 720 hours",
        ],
    ),
]


@pytest.mark.parametrize(("format", "content", "expected"), OLD_WARNINGS)
def test_the_english_sentences_are_the_readers_old_warnings(format, content, expected):
    usage = read_usage(format, content(), P4D)

    assert english_warnings(usage.notices) == expected


def test_the_english_sentences_do_not_follow_the_active_language():
    usage = read_usage("slurm-sacct", fixture("slurm-sacct.txt"))

    with translation.override("zh-hans"):
        warnings = english_warnings(usage.notices)

    assert warnings[0] == "1 job steps skipped (only whole jobs count; use sacct -X)"


EXAMPLES = {
    RowSkipped: RowSkipped(line=1234, reason="unreadable_timestamp"),
    MoreRowsSkipped: MoreRowsSkipped(count=40),
    Gap: Gap(hours=1.5, gpu=GpuRef(host="node-3", index="1"), line=77),
    MoreGaps: MoreGaps(count=4),
    SingleSampleGpus: SingleSampleGpus(count=2, seconds=300.0),
    SamplesSkipped: SamplesSkipped(count=2, path="data.result[1].values[5]", value="NaN"),
    JobStepsSkipped: JobStepsSkipped(count=3),
    JobsWithoutGpu: JobsWithoutGpu(count=4),
    GpusWithoutUtilization: GpusWithoutUtilization(
        count=4, mig=True, gpus=[GpuRef(host="dgx-1", index=str(i)) for i in range(3)]
    ),
    MigGpusSkipped: MigGpusSkipped(
        count=2, instances=7, gpus=[GpuRef(host="node-4", index=str(i)) for i in range(2)]
    ),
    UnfinishedJobsSkipped: UnfinishedJobsSkipped(count=2),
    InstanceTypeUnknown: InstanceTypeUnknown(instance_type="m5.xlarge", hours=2.5),
    MonthNotObserved: MonthNotObserved(month="2026-03"),
    MonthPartlyObserved: MonthPartlyObserved(
        month="2026-10", observed_hours=2.0, month_hours=744.0
    ),
}


def test_every_kind_of_notice_has_a_chinese_sentence():
    assert set(EXAMPLES) == set(NOTICE_TYPES)
    for notice in EXAMPLES.values():
        english = english_warnings([notice])[0]
        with translation.override("zh-hans"):
            chinese = notice_text(notice)
        assert chinese != english
        assert re.search(r"[\u4e00-\u9fff]", chinese), chinese


def test_chinese_sentences_carry_the_figures_formatted():
    with translation.override("zh-hans"):
        texts = [notice_text(n) for n in EXAMPLES.values()]

    assert texts == [
        "第 1,234 行：已跳过，时间戳无法读取",
        "……另有 40 行已跳过",
        "node-3 的 GPU 1 在第 77 行之后有 1.50 小时没有采样（未观测）",
        "……另有 4 处采样间断",
        "2 块 GPU 只有一个采样（或只在同一时刻采样）：按其他 GPU 的采样间隔中位数 300 秒计算",
        "跳过 2 个样本：不是 0–100 % 范围内的利用率（第一个：data.result[1].values[5] 处的 NaN）；"
        "其时间计为未观测",
        "已跳过 3 个作业步骤（只计整个作业；请使用 sacct -X）",
        "4 个作业没有 GPU（AllocTRES 中没有 gres/gpu）：不计 GPU 小时",
        "4 块处于 MIG 模式的 GPU 不报告利用率，未计入：dgx-1 的 GPU 0, dgx-1 的 GPU 1, "
        "dgx-1 的 GPU 2，另有 1 处（请按其分配量测量：Slurm 的 sacct、云账单）",
        "2 块处于 MIG 模式的 GPU 未计入：其 7 个 MIG 实例的活动率不能相加为整块 GPU 的活动率："
        "node-4 的 GPU 0, node-4 的 GPU 1（请按其分配量测量：Slurm 的 sacct、云账单）",
        "已跳过 2 个没有开始或结束时间的作业（仍在运行？）",
        "m5.xlarge：2.5 实例小时未计入，价格目录中没有它的 GPU 数量",
        "2026-03：未观测",
        "2026-10：部分观测，744 小时中观测了 2.0 小时",
    ]


def test_each_reason_a_row_was_skipped_has_its_own_chinese_sentence():
    reasons = ["field_count", "unreadable_timestamp", "unreadable_utilization"]
    rows = [RowSkipped(line=5, reason=r, field_count=2, expected_field_count=3) for r in reasons]
    rows.append(RowSkipped(line=5, reason="unreadable_date_or_amount"))

    with translation.override("zh-hans"):
        texts = notice_texts(rows)

    assert texts == [
        "第 5 行：已跳过，有 2 个字段，应为 3 个",
        "第 5 行：已跳过，时间戳无法读取",
        "第 5 行：已跳过，利用率无法读取",
        "第 5 行：已跳过，日期或用量无法读取",
    ]


def test_a_gpu_of_a_log_without_host_names_is_named_by_its_log_in_chinese():
    gap = Gap(hours=1.0, gpu=GpuRef(log=2, index="1"), path="data.result[2].values[2]")

    with translation.override("zh-hans"):
        text = notice_text(gap)

    assert (
        text == "第 2 段日志的 GPU 1 在 data.result[2].values[2] 之后有 1.00 小时没有采样（未观测）"
    )


def dcgm_answer(edit) -> str:
    answer = json.loads(fixture("dcgm-prometheus.json"))
    edit(answer["data"]["result"])
    return json.dumps(answer)


def _set_sample(result, series, sample, value):
    result[series]["values"][sample] = value


SACCT = "JobID|Start|End|AllocTRES\n"
CUR = "lineItem/UsageStartDate,lineItem/UsageType,lineItem/UsageAmount\n"
FOCUS = (
    "ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ConsumedQuantity,ConsumedUnit,"
    "ChargeDescription\n"
)
BAD_FILES = {
    "empty": ("nvidia-smi", " \n"),
    "holds_nul": ("nvidia-smi", "2026/11/02 10:00:00, 0, 5\n\x00\n"),
    "too_many_months": ("nvidia-smi", "2000/01/01 00:00:00, 0, 10\n2026/11/02 10:00:00, 0, 10\n"),
    "utilization_out_of_range": (
        "nvidia-smi",
        "2026/11/02 10:00:00, 0, 10\n2026/11/02 10:05:00, 0, 140\n",
    ),
    "timestamp_out_of_order": (
        "nvidia-smi",
        "2026/11/02 10:05:00, 0, 10\n2026/11/02 10:00:00, 0, 10\n",
    ),
    "too_few_samples": ("nvidia-smi", "2026/11/02 10:00:00, 0, 10\n"),
    "not_nvidia_smi": ("nvidia-smi", "JobID|Start\n1|2026-10-01\n"),
    "no_row_with_columns": ("nvidia-smi", "timestamp, index, utilization.gpu\n2026/11/02, 0\n"),
    "no_readable_row": ("nvidia-smi", "timestamp, index, utilization.gpu\nsoon, 0, 10\n"),
    "no_utilization": (
        "nvidia-smi",
        "timestamp, index, utilization.gpu\n2026/11/02 10:00:00, 0, [N/A]\n",
    ),
    "not_json": ("dcgm-prometheus", "{\n"),
    "not_query_range": ("dcgm-prometheus", "{}"),
    "no_series": ("dcgm-prometheus", '{"data": {"resultType": "matrix", "result": []}}'),
    "bad_series": ("dcgm-prometheus", '{"data": {"resultType": "matrix", "result": [1]}}'),
    "bad_sample": ("dcgm-prometheus", dcgm_answer(lambda r: _set_sample(r, 2, 4, [1.0]))),
    "instant_query": (
        "dcgm-prometheus",
        '{"data": {"resultType": "vector", "result": [{"metric": {}, "value": [1, "5"]}]}}',
    ),
    "prometheus_error": (
        "dcgm-prometheus",
        '{"status": "error", "errorType": "bad_data", "error": "exceeded maximum resolution"}',
    ),
    "only_mig_gpus": (
        "dcgm-prometheus",
        '{"data": {"resultType": "matrix", "result": [{"metric": {"__name__": '
        '"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "UUID": "GPU-1", "GPU_I_ID": "3"}, '
        '"values": [[1790000000, "0.5"], [1790000060, "0.5"]]}]}}',
    ),
    "metric_name_missing": ("dcgm-prometheus", dcgm_answer(lambda r: r[1]["metric"].clear())),
    "metric_not_read": (
        "dcgm-prometheus",
        dcgm_answer(lambda r: r[1]["metric"].update(__name__="DCGM_FI_DEV_FB_USED")),
    ),
    "two_metrics": (
        "dcgm-prometheus",
        dcgm_answer(lambda r: r[1]["metric"].update(__name__="DCGM_FI_PROF_SM_ACTIVE")),
    ),
    "too_many_keys": ("dcgm-prometheus", "[" + ",".join(['{"k": 1}'] * 50_001) + "]"),
    "nested_too_deep": ("dcgm-prometheus", "[" * 100),
    "number_too_long": (
        "dcgm-prometheus",
        dcgm_answer(lambda r: _set_sample(r, 1, 0, [1796079600, 10**400])),
    ),
    "not_unix_seconds": (
        "dcgm-prometheus",
        dcgm_answer(lambda r: _set_sample(r, 1, 0, [1.7e12, "5"])),
    ),
    "no_samples": (
        "dcgm-prometheus",
        '{"data": {"resultType": "matrix", "result": [{"metric": {"__name__": '
        '"DCGM_FI_DEV_GPU_UTIL"}, "values": []}]}}',
    ),
    "missing_columns": ("slurm-sacct", "JobID|Start|End|AllocCPUS\n1|2026-10-01T00:00:00|x|4\n"),
    "not_sacct": ("slurm-sacct", "hello|world\n"),
    "no_gpu_job": ("slurm-sacct", SACCT + "1|2026-10-01T00:00:00|2026-10-01T01:00:00|cpu=4\n"),
    "no_finished_job": ("slurm-sacct", SACCT + "1|2026-10-01T00:00:00|Unknown|gres/gpu=1\n"),
    "unreadable_job_time": ("slurm-sacct", SACCT + "1|2026-10-01T00:00:00|soon|gres/gpu=1\n"),
    "end_before_start": (
        "slurm-sacct",
        SACCT + "1|2026-10-02T00:00:00|2026-10-01T00:00:00|gres/gpu=1\n",
    ),
    "not_cur": ("aws-cur", "a,b\n1,2\n"),
    "no_instance_usage": ("aws-cur", CUR + "2026-10-01T00:00:00Z,USE1-DataTransfer-Out-Bytes,3\n"),
    "negative_amount": ("aws-cur", CUR + "2026-10-01T00:00:00Z,USE1-BoxUsage:p4d.24xlarge,-3\n"),
    "no_known_gpu_instance": ("aws-cur", CUR + "2026-10-01T00:00:00Z,USE1-BoxUsage:m5.xlarge,3\n"),
    "unreadable_bill_dates": ("aws-cur", CUR + "soon,USE1-BoxUsage:p4d.24xlarge,3\n"),
    "not_focus": ("focus", "a,b\n1,2\n"),
    "time_too_early": ("nvidia-smi", "1970/01/01 00:00:00, 0, 10\n1970/01/01 00:05:00, 0, 10\n"),
    "time_in_future": (
        "slurm-sacct",
        SACCT + "1|9999-10-01T00:00:00|9999-10-01T01:00:00|gres/gpu=1\n",
    ),
    "gpus_above_limit": (
        "slurm-sacct",
        SACCT + "1|2026-10-01T00:00:00|2026-10-01T01:00:00|gres/gpu=99999999999999999999999\n",
    ),
    "usage_above_limit": (
        "aws-cur",
        CUR + "2026-10-01T00:00:00Z,USE1-BoxUsage:p4d.24xlarge,1e23\n",
    ),
    "no_focus_usage": (
        "focus",
        FOCUS + "2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,Usage,3,GB-Months,S3 storage\n",
    ),
}


def reader_error(format: str, content: str) -> FieldError:
    with pytest.raises(UsageError) as caught:
        read_usage(format, content, P4D)
    [error] = caught.value.errors
    return error


@pytest.mark.parametrize("code", sorted(BAD_FILES))
def test_a_refused_file_is_explained_in_english_as_the_reader_says_and_in_chinese(code):
    error = reader_error(*BAD_FILES[code])

    assert error.field == "content"
    assert error.code == code
    with translation.override("en"):
        assert reader_error_text(error) == error.message
    with translation.override("zh-hans"):
        chinese = reader_error_text(error)
    assert re.search(r"[\u4e00-\u9fff]", chinese), chinese
    assert "line " not in chinese


def test_every_reader_error_has_a_bad_file_here_and_words():
    from_bytes = {"not_text", "bad_gzip", "inflates_too_far"}  # decode_text's
    on_columns = {"columns_missing", "query_fields_missing"}  # tests/costmodel/test_usage_*
    assert set(BAD_FILES) | from_bytes | on_columns == set(READER_CODES) == set(READER_MESSAGES)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"\x1f\x8b\x08\x00", "是无法解压的 gzip 压缩包（不完整或已损坏）"),
        (
            gzip.compress(b"0" * 2000, mtime=0),
            "该 gzip 压缩包解压后超过 1,000 字节的上限：请发送更短时段的数据",
        ),
    ],
    ids=["damaged", "inflates_too_far"],  # the same on every xdist worker (no timestamp)
)
def test_a_gzip_file_that_cannot_be_read_is_explained_in_chinese(data, expected):
    with pytest.raises(UsageError) as caught:
        decode_text(data, max_bytes=1000)
    [error] = caught.value.errors

    with translation.override("zh-hans"):
        assert reader_error_text(error) == expected


def test_bytes_that_are_not_text_are_explained_in_chinese():
    with pytest.raises(UsageError) as caught:
        decode_text(b"timestamp\nPK\x03\x04\x00\x00garbage")
    [error] = caught.value.errors

    with translation.override("zh-hans"):
        text = reader_error_text(error)

    assert error.code == "not_text"
    assert text == (
        "第 2 行：不是文本（二进制内容或非 UTF-8 编码）：请上传日志本身，而不是压缩包或电子表格"
    )


def test_the_place_and_the_gpu_of_an_error_are_worded_in_chinese():
    disorder = reader_error(*BAD_FILES["timestamp_out_of_order"])
    outside = reader_error(*BAD_FILES["metric_not_read"])

    with translation.override("zh-hans"):
        texts = [reader_error_text(disorder), reader_error_text(outside)]

    assert texts == [
        "第 2 行：时间戳早于 第 1 段日志的 GPU 0 的上一个采样；日志必须按时间顺序排列",
        "data.result[1].metric.__name__：DCGM_FI_DEV_FB_USED 不是利用率指标；请查询 "
        "DCGM_FI_DEV_GPU_UTIL、DCGM_FI_PROF_GR_ENGINE_ACTIVE 或 DCGM_FI_PROF_SM_ACTIVE",
    ]


def test_notices_of_one_kind_are_one_line_with_a_count_and_three_places_in_chinese():
    gaps = [Gap(hours=h, gpu=GpuRef(host="n1", index="0"), line=10 * h) for h in (1, 2, 3, 4)]
    rows = [RowSkipped(line=n, reason="unreadable_utilization") for n in (5, 6)]

    with translation.override("zh-hans"):
        texts = notice_texts([*rows, *gaps, MoreGaps(count=6)])

    assert texts == [
        "已跳过 2 行，利用率无法读取：第 5, 6 行",
        "10 处采样间断（未观测），所列最长 4.00 小时：n1 的 GPU 0 在第 10 行之后, "
        "n1 的 GPU 0 在第 20 行之后, n1 的 GPU 0 在第 30 行之后，另有 7 处",
    ]

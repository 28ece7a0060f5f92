"""Measured usage readers and the profile they imply, against hand computations.

The fixtures are written by ``scripts/make_usage_fixtures.py`` (its docstring
describes each); every expected figure below is worked out in the comment
above it from what the fixture holds, not from the code.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from costmodel.usage import (
    MAX_NOTICES_LISTED,
    READER_CODES,
    Gap,
    GpuRef,
    InstanceTypeUnknown,
    JobStepsSkipped,
    MeasuredUsage,
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
    profile_from_usage,
    read_aws_cur,
    read_dcgm_prometheus,
    read_nvidia_smi,
    read_slurm_sacct,
    read_usage,
)

FIXTURES = Path(__file__).resolve().parent / "usage_fixtures"
P4D = {"p4d.24xlarge": (8, "NVIDIA A100 40GB SXM4")}


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def message(caught: pytest.ExceptionInfo[UsageError]) -> str:
    return "; ".join(str(e) for e in caught.value.errors)


class TestNvidiaSmiFixture:
    """Two hosts × two GPUs, a sample every 600 s from 10-31 22:00 to 11-01 01:50 (24 samples).

    Median interval 600 s, the last sample counts 600 s: each GPU is observed
    22:00–02:00, two hours in October and two in November. Host b's GPU 1 has
    no samples 00:10–00:50: its 00:00 sample is 3 600 s before the next, capped
    at 2 × 600 s, so in November it is observed 00:00–00:20 and 01:00–02:00 (80 min).
    """

    usage = read_nvidia_smi(fixture("nvidia-smi.csv"))

    def test_it_counts_busy_gpu_hours_per_month(self):
        # October: a0 2 h × 50 % + a1 2 h × 100 % + b0 2 h × 20 % + b1 2 h × 80 % = 5.0
        # November: 1 + 2 + 0.4 + (80 / 60) h × 80 % = 3.4 + 1.0667 = 4.4667
        assert self.usage.months == ["2026-10", "2026-11"]
        assert_allclose(self.usage.gpu_hours, [5.0, 3.4 + 0.8 * 80 / 60], rtol=1e-12)

    def test_it_counts_the_hours_observed(self):
        assert_allclose(self.usage.observed_hours, [2.0, 2.0], rtol=1e-12)

    def test_it_tells_the_gpus_of_two_concatenated_logs_apart(self):
        assert self.usage.gpus == 4
        assert self.usage.gpu_models == ["NVIDIA GeForce RTX 4090"]

    def test_it_reports_the_skipped_row_the_gap_and_the_partial_months(self):
        # host b is the second concatenated log (no host column); its GPU 1's last sample
        # before the gap, 00:00, is on line 77
        assert self.usage.notices == [
            RowSkipped(line=16, reason="unreadable_utilization"),
            Gap(hours=1.0, gpu=GpuRef(log=2, index="1"), line=77),
            MonthPartlyObserved(month="2026-10", observed_hours=2.0, month_hours=744.0),
            MonthPartlyObserved(month="2026-11", observed_hours=2.0, month_hours=720.0),
        ]

    def test_its_notices_are_codes_and_figures_in_json(self):
        dumped = self.usage.model_dump(mode="json")["notices"]
        assert dumped[0] == {
            "code": "row_skipped",
            "line": 16,
            "reason": "unreadable_utilization",
            "field_count": None,
            "expected_field_count": None,
        }
        assert dumped[1]["gpu"] == {"host": None, "log": 2, "index": "1"}
        assert MeasuredUsage.model_validate(self.usage.model_dump(mode="json")) == self.usage


class TestNvidiaSmiLayouts:
    def test_it_reads_noheader_nounits_with_a_host_column_and_no_name(self):
        text = (
            "node1, 2026/11/02 10:00:00.000, 0, 30\n"
            "node2, 2026/11/02 10:00:00.000, 0, 90\n"
            "node1, 2026/11/02 10:01:00.000, 0, 30\n"
            "node2, 2026/11/02 10:01:00.000, 0, 90\n"
        )
        usage = read_nvidia_smi(text)
        # each GPU: two samples 60 s apart, the last counting 60 s: 120 s busy at its rate
        assert_allclose(usage.gpu_hours, [(0.3 + 0.9) * 120 / 3600], rtol=1e-12)
        assert usage.gpus == 2
        assert usage.gpu_models == []

    def test_a_header_with_a_host_column_is_read_by_name(self):
        text = (
            "host, timestamp, index, utilization.gpu [%]\n"
            "a, 2026/11/02 10:00:00.000, 0, 50 %\n"
            "a, 2026/11/02 10:00:30.000, 0, 50 %\n"
        )
        assert_allclose(read_nvidia_smi(text).gpu_hours, [0.5 * 60 / 3600], rtol=1e-12)

    def test_padded_fields_and_unreadable_rows_are_handled_row_by_row(self):
        text = (
            "2026/11/02 10:00:00 , 0, 40 % \n"
            "garbage, 0, 40\n"
            "2026/11/02 10:10:00, 0, [N/A]\n"
            "2026/11/02 10:10:00, 0, 40\n"
        )
        usage = read_nvidia_smi(text)
        # two readable samples 600 s apart, the last counting 600 s: 1 200 s at 40 %
        assert_allclose(usage.gpu_hours, [0.4 * 1200 / 3600], rtol=1e-12)
        assert usage.notices[:2] == [
            RowSkipped(line=2, reason="unreadable_timestamp"),
            RowSkipped(line=3, reason="unreadable_utilization"),
        ]

    def test_rows_beyond_the_listed_ones_are_counted(self):
        # 11 rows of two fields (lines 2-12), 12 rows whose timestamp is not a time (13-24)
        rows = (
            ["2026/11/02 10:00:00, 0, 10"]
            + [f"2026/11/02 10:{m:02d}:00, 0" for m in range(1, 12)]
            + [f"bad{m}, 0, 10" for m in range(12, 24)]
            + ["2026/11/02 10:30:00, 0, 10", "2026/11/02 10:40:00, 0, 10"]
        )
        notices = read_nvidia_smi("\n".join(rows) + "\n").notices
        listed = [
            *(
                RowSkipped(line=n, reason="field_count", field_count=2, expected_field_count=3)
                for n in range(2, 13)
            ),
            *(RowSkipped(line=n, reason="unreadable_timestamp") for n in range(13, 22)),
        ]
        assert len(listed) == MAX_NOTICES_LISTED
        assert notices[:MAX_NOTICES_LISTED] == listed
        assert notices[MAX_NOTICES_LISTED] == MoreRowsSkipped(count=3)

    def test_a_month_without_samples_and_a_gpu_with_one_sample_are_reported(self):
        # GPU 0: 20:00 and 20:30 on 09-30, then 00:00 and 00:30 on 11-01 (median 30 min,
        # the 747.5 h between is a gap); GPU 1: one sample, counted 30 min
        text = (
            "2026/09/30 20:00:00, 0, 50\n2026/09/30 20:30:00, 0, 50\n"
            "2026/11/01 00:00:00, 0, 50\n2026/11/01 00:30:00, 0, 50\n"
            "2026/11/01 00:10:00, 1, 70\n"
        )
        assert read_nvidia_smi(text).notices == [
            SingleSampleGpus(count=1, seconds=1800.0),
            Gap(hours=747.5, gpu=GpuRef(log=1, index="0"), line=2),
            MonthPartlyObserved(month="2026-09", observed_hours=1.5, month_hours=720.0),
            MonthNotObserved(month="2026-10"),
            MonthPartlyObserved(month="2026-11", observed_hours=1.0, month_hours=720.0),
        ]

    def test_gaps_beyond_the_listed_ones_are_counted(self):
        # one GPU: 50 samples a minute apart, every second step 10 minutes longer: 25 steps
        # of 1 min (the median) and 24 of 11 min, each a gap (over 2 × 1 min)
        times = np.datetime64("2026-11-02T00:00") + np.arange(50) * np.timedelta64(1, "m")
        times[1::2] += np.arange(25) * np.timedelta64(10, "m")
        times[2::2] += np.arange(1, 25) * np.timedelta64(10, "m")
        stamps = np.datetime_as_string(times.astype("datetime64[s]"))
        notices = read_nvidia_smi("".join(f"{t}, 0, 10\n" for t in stamps)).notices
        gaps = [n for n in notices if isinstance(n, Gap)]
        assert len(gaps) == MAX_NOTICES_LISTED
        assert gaps[0] == Gap(hours=11 / 60, gpu=GpuRef(log=1, index="0"), line=2)
        assert MoreGaps(count=24 - MAX_NOTICES_LISTED) in notices

    def test_a_log_spanning_more_than_240_months_is_refused(self):
        text = "2000/01/01 00:00:00, 0, 10\n2026/11/02 10:00:00, 0, 10\n"
        with pytest.raises(UsageError) as caught:
            read_nvidia_smi(text)
        # the last sample counts one median interval, the 26.8 years between the two
        assert message(caught).startswith("content: covers 645 months, 2000-01 to 2053-09")

    def test_a_log_without_an_index_column_is_one_gpu(self):
        text = (
            "timestamp, utilization.gpu [%]\n"
            "2026/11/02 10:00:00.000, 25 %\n"
            "2026/11/02 10:01:00.000, 25 %\n"
        )
        usage = read_nvidia_smi(text)
        assert usage.gpus == 1
        assert_allclose(usage.gpu_hours, [0.25 * 120 / 3600], rtol=1e-12)

    def test_a_span_across_midnight_of_a_month_is_split(self):
        text = "2026/11/30 23:50:00, 0, 100\n2026/12/01 00:10:00, 0, 100\n"
        # median 20 min; the first sample 23:50–00:10, the last 00:10–00:30
        usage = read_nvidia_smi(text)
        assert usage.months == ["2026-11", "2026-12"]
        assert_allclose(usage.gpu_hours, [10 / 60, 30 / 60], rtol=1e-12)


class TestDcgmPrometheusFixture:
    """8 GPUs, a sample every 300 s from 11-30 23:00 to 12-01 00:55 UTC; GPU k at 10(k+1) %.

    Each GPU is observed 23:00–01:00; the eight together are 360 % busy: 3.6
    GPU-hours in each hour, one hour in November and one in December.
    """

    usage = read_dcgm_prometheus(fixture("dcgm-prometheus.json"))

    def test_it_counts_busy_gpu_hours_per_month(self):
        assert self.usage.months == ["2026-11", "2026-12"]
        assert_allclose(self.usage.gpu_hours, [3.6, 3.6], rtol=1e-12)
        assert_allclose(self.usage.observed_hours, [1.0, 1.0], rtol=1e-12)

    def test_a_sample_that_is_not_a_pair_is_refused_naming_the_series(self):
        answer = json.loads(fixture("dcgm-prometheus.json"))
        answer["data"]["result"][2]["values"][4] = [1.0]
        with pytest.raises(UsageError) as caught:
            read_dcgm_prometheus(json.dumps(answer))
        assert message(caught) == (
            'content: data.result[2].values: every sample must be [time, "number"]'
        )

    def test_sample_times_that_are_not_unix_seconds_are_refused(self):
        answer = json.loads(fixture("dcgm-prometheus.json"))
        answer["data"]["result"][1]["values"][0][0] = 1.7e12  # milliseconds
        with pytest.raises(UsageError) as caught:
            read_dcgm_prometheus(json.dumps(answer))
        assert message(caught) == (
            "content: data.result[1].values: times must be Unix seconds (1970 to 2100)"
        )

    def test_a_gap_names_the_sample_before_it_by_its_json_path(self):
        # GPU 2 (dgx-01) loses its samples 3-8 (23:15 to 23:40): 35 min from 23:10 to 23:45
        answer = json.loads(fixture("dcgm-prometheus.json"))
        del answer["data"]["result"][2]["values"][3:9]
        gap, *_months = read_dcgm_prometheus(json.dumps(answer)).notices
        assert isinstance(gap, Gap)
        assert gap.gpu == GpuRef(host="dgx-01", index="2")
        assert gap.path == "data.result[2].values[2]"
        assert gap.line is None
        assert_allclose(gap.hours, 35 / 60, rtol=1e-12)

    def test_it_names_the_gpus_from_the_labels(self):
        assert self.usage.gpus == 8
        assert self.usage.gpu_models == ["NVIDIA A100-SXM4-80GB"]


class TestSlurmSacctFixture:
    """Job 1001: 2 GPUs 09-28 10:00 → 10-02 10:00 (62 h in Sep, 34 h in Oct).
    Job 1002: 4 GPUs for 12 h on 10-05. Job 1003: no GPU. Job 1004: still running.
    Job 1005: 1 GPU 10-20 → 11-03 (288 h in Oct, 48 h in Nov). 1001.batch is a step."""

    usage = read_slurm_sacct(fixture("slurm-sacct.txt"))

    def test_it_counts_gpus_times_duration_split_at_month_ends(self):
        # Sep: 2 × 62 = 124; Oct: 2 × 34 + 4 × 12 + 1 × 288 = 404; Nov: 1 × 48 = 48
        assert self.usage.months == ["2026-09", "2026-10", "2026-11"]
        assert_allclose(self.usage.gpu_hours, [124.0, 404.0, 48.0], rtol=1e-12)

    def test_it_observes_from_the_first_start_to_the_last_end(self):
        # 09-28 10:00 → 10-01: 62 h; all of October: 744 h; 11-01 → 11-03: 48 h
        assert_allclose(self.usage.observed_hours, [62.0, 744.0, 48.0], rtol=1e-12)

    def test_gpus_is_the_most_in_use_at_once_and_typed_gres_names_the_model(self):
        assert self.usage.gpus == 4
        assert self.usage.gpu_models == ["a100"]

    def test_it_reports_the_step_and_the_running_job(self):
        assert self.usage.notices[:2] == [JobStepsSkipped(count=1), UnfinishedJobsSkipped(count=1)]

    def test_a_row_with_too_few_fields_is_skipped_naming_its_line(self):
        lines = fixture("slurm-sacct.txt").splitlines()
        text = "\n".join([*lines[:2], "1009|2026-10-01T00:00:00", *lines[2:]]) + "\n"
        assert read_slurm_sacct(text).notices[0] == RowSkipped(
            line=3, reason="field_count", field_count=2, expected_field_count=4
        )


class TestAwsCurFixture:
    """p4d.24xlarge (8 GPUs): 1 h at 22:00 and 23:00 on 10-31, 0.5 h at 00:00 on 11-01.
    m5.xlarge 2 h (no GPU); an EBS row and a tax row (not instance usage)."""

    usage = read_aws_cur(fixture("aws-cur.csv"), P4D)

    def test_it_counts_instance_hours_times_gpus(self):
        # Oct: 2 × 8 = 16; Nov: 0.5 × 8 = 4
        assert self.usage.months == ["2026-10", "2026-11"]
        assert_allclose(self.usage.gpu_hours, [16.0, 4.0], rtol=1e-12)
        assert_allclose(self.usage.observed_hours, [2.0, 1.0], rtol=1e-12)
        assert self.usage.gpus == 8
        assert self.usage.gpu_models == ["NVIDIA A100 40GB SXM4"]

    def test_it_reports_an_instance_type_it_does_not_know(self):
        assert self.usage.notices[0] == InstanceTypeUnknown(instance_type="m5.xlarge", hours=2.0)

    def test_a_row_with_an_unreadable_date_is_skipped_naming_its_line(self):
        lines = fixture("aws-cur.csv").splitlines()
        bad = lines[1].replace("2026-10-31", "2026-13-31")
        text = "\n".join([*lines[:2], bad, *lines[2:]]) + "\n"
        assert read_aws_cur(text, P4D).notices[0] == RowSkipped(
            line=3, reason="unreadable_date_or_amount"
        )

    def test_the_usage_type_names_the_instance_when_the_product_column_is_absent(self):
        text = (
            "lineItem/UsageStartDate,lineItem/UsageType,lineItem/UsageAmount\n"
            "2026-10-03T00:00:00Z,USE1-BoxUsage:p4d.24xlarge,3\n"
        )
        assert_allclose(read_aws_cur(text, P4D).gpu_hours, [24.0], rtol=1e-12)

    def test_it_reads_the_column_names_of_the_cur_2_export(self):
        text = (
            "line_item_line_item_type,line_item_usage_start_date,line_item_usage_end_date,"
            "line_item_usage_amount,product_instance_type\n"
            "Usage,2026-10-03T00:00:00Z,2026-10-03T01:00:00Z,1,p4d.24xlarge\n"
            "Tax,2026-10-01T00:00:00Z,2026-11-01T00:00:00Z,1,\n"
        )
        assert_allclose(read_aws_cur(text, P4D).gpu_hours, [8.0], rtol=1e-12)

    def test_it_refuses_a_bill_without_a_known_gpu_instance(self):
        with pytest.raises(UsageError) as caught:
            read_aws_cur(fixture("aws-cur.csv"), {})
        assert "no usage of a GPU instance type the catalog knows" in message(caught)


class TestBadInput:
    @pytest.mark.parametrize("format", ["nvidia-smi", "dcgm-prometheus", "slurm-sacct", "aws-cur"])
    def test_an_empty_file_is_refused(self, format):
        with pytest.raises(UsageError) as caught:
            read_usage(format, " \n", P4D)
        assert message(caught) == "content: is empty"

    def test_zero_bytes_are_refused(self):
        with pytest.raises(UsageError) as caught:
            decode_text(b"")
        assert message(caught) == "content: is empty"

    def test_a_binary_upload_is_refused_naming_the_line(self):
        with pytest.raises(UsageError) as caught:
            decode_text(b"timestamp\nPK\x03\x04\x00\x00garbage")
        assert message(caught).startswith("content: line 2: is not text")

    def test_text_that_is_not_utf8_is_refused(self):
        with pytest.raises(UsageError) as caught:
            decode_text("2026/11/01 10:00:00, 0, 50\n\xe9t\xe9".encode("latin-1"))
        assert message(caught).startswith("content: line 2: is not text")

    @pytest.mark.parametrize(
        ("format", "name"),
        [
            ("nvidia-smi", "slurm-sacct.txt"),
            ("slurm-sacct", "nvidia-smi.csv"),
            ("dcgm-prometheus", "aws-cur.csv"),
            ("aws-cur", "dcgm-prometheus.json"),
        ],
    )
    def test_a_file_in_another_format_is_refused_naming_the_line(self, format, name):
        with pytest.raises(UsageError) as caught:
            read_usage(format, fixture(name), P4D)
        assert re.match(r"content: line \d+: is not ", message(caught))

    def test_timestamps_out_of_order_name_the_line(self):
        text = (
            "timestamp, index, utilization.gpu [%]\n"
            "2026/11/02 10:00:00, 0, 10 %\n"
            "2026/11/02 10:05:00, 0, 10 %\n"
            "2026/11/02 10:01:00, 0, 10 %\n"
        )
        with pytest.raises(UsageError) as caught:
            read_nvidia_smi(text)
        assert message(caught) == (
            "content: line 4: timestamp is earlier than the previous sample of log 1 GPU 0; "
            "the log must be in time order"
        )

    def test_utilization_outside_0_to_100_names_the_line(self):
        text = "2026/11/02 10:00:00, 0, 10\n2026/11/02 10:05:00, 0, 140\n"
        with pytest.raises(UsageError) as caught:
            read_nvidia_smi(text)
        assert message(caught) == "content: line 2: utilization 140 % is outside 0–100"

    def test_dcgm_utilization_outside_0_to_100_is_skipped_naming_the_sample(self):
        # a DCGM glitch is one sample, not a reason to refuse the month (issue 39)
        answer = json.loads(fixture("dcgm-prometheus.json"))
        answer["data"]["result"][3]["values"][5][1] = "-3"
        notices = read_dcgm_prometheus(json.dumps(answer)).notices
        assert SamplesSkipped(count=1, path="data.result[3].values[5]", value="-3") in notices

    def test_sacct_without_alloctres_is_refused_naming_the_line(self):
        text = "JobID|Start|End|AllocCPUS\n1|2026-10-01T00:00:00|2026-10-01T01:00:00|4\n"
        with pytest.raises(UsageError) as caught:
            read_slurm_sacct(text)
        assert message(caught) == (
            "content: line 1: the header has no alloctres column; run "
            "sacct -a -X -P --format=JobID,Start,End,AllocTRES"
        )

    def test_an_unknown_format_names_the_format_field(self):
        with pytest.raises(UsageError) as caught:
            read_usage("csv", "a,b\n")
        assert caught.value.errors[0].field == "format"


def usage(months, gpu_hours, observed_hours) -> MeasuredUsage:
    return MeasuredUsage(
        months=months,
        gpu_hours=gpu_hours,
        observed_hours=observed_hours,
        gpus=1,
        gpu_models=[],
        notices=[],
    )


class TestProfileFromUsage:
    def test_a_fully_observed_month_is_gpu_hours_over_the_box_capacity(self):
        # November fully observed (720 h): 1 460 GPU-h of a GPU at 0.6 of the reference,
        # on a box of 2 GPUs at 1.2: u = 1460 × 0.6 / (2 × 1.2 × 730) = 0.5
        measured = usage(["2026-11"], [1460.0], [720.0])
        profile = profile_from_usage(
            measured, measured_gpu_throughput=0.6, box_gpu_count=2, box_gpu_throughput=1.2
        )
        assert profile.months[0] == "2026-12"
        assert profile.months[-1] == "2027-11"
        assert profile.filled == [True] * 11 + [False]
        assert profile.measured_months[-1] == "2026-11"
        # every other month is filled with the observed average, the same 0.5
        assert_allclose(profile.monthly_utilization, [0.5] * 12, rtol=1e-12)

    def test_a_partly_observed_month_is_scaled_to_its_whole_length(self):
        # 10 GPU-h in 24 of September's 720 h: 300 GPU-h over the month; 1 GPU at 1.0
        # measured, box of 1 GPU at 1.0: u = 300 / 730
        measured = usage(["2026-09"], [10.0], [24.0])
        profile = profile_from_usage(
            measured, measured_gpu_throughput=1.0, box_gpu_count=1, box_gpu_throughput=1.0
        )
        assert_allclose(profile.monthly_utilization[-1], 300 / 730, rtol=1e-12)

    def test_months_are_calendar_aligned_and_growth_compounds_from_the_measured_month(self):
        # Jan 2026 and Jul 2026 measured (31 days each, fully observed), 365 and 730 GPU-h.
        measured = usage(
            [f"2026-{m:02d}" for m in range(1, 8)],
            [365.0, 0, 0, 0, 0, 0, 730.0],
            [744.0, 0, 0, 0, 0, 0, 744.0],
        )
        profile = profile_from_usage(
            measured,
            measured_gpu_throughput=1.0,
            box_gpu_count=1,
            box_gpu_throughput=1.0,
            growth_per_year=0.2,
            start_month="2027-01",
        )
        assert profile.months[0] == "2027-01"
        # January 2027 takes January 2026's 0.5, grown for 12 months: 0.6
        assert_allclose(profile.monthly_utilization[0], 0.5 * 1.2, rtol=1e-12)
        # July 2027 takes July 2026's 1.0, grown for 12 months: 1.2
        assert_allclose(profile.monthly_utilization[6], 1.2, rtol=1e-12)
        # March 2027 was never observed: the average 0.75 grown from April 2026 (the mean
        # of months 0 and 6 of 2026) to March 2027, 11 months
        assert profile.filled[2] and profile.measured_months[2] is None
        assert_allclose(profile.monthly_utilization[2], 0.75 * 1.2 ** (11 / 12), rtol=1e-12)

    def test_more_than_eight_boxes_of_work_is_refused_naming_the_month(self):
        measured = usage(["2026-11"], [9 * 730.0], [720.0])
        with pytest.raises(UsageError) as caught:
            profile_from_usage(
                measured, measured_gpu_throughput=1, box_gpu_count=1, box_gpu_throughput=1
            )
        assert caught.value.errors[0].field == "workload.monthly_utilization.0"
        assert "choose a bigger box" in caught.value.errors[0].message

    def test_bad_parameters_name_their_field(self):
        measured = usage(["2026-11"], [1.0], [720.0])
        with pytest.raises(UsageError) as caught:
            profile_from_usage(
                measured,
                measured_gpu_throughput=0,
                box_gpu_count=1,
                box_gpu_throughput=1,
                growth_per_year=5,
            )
        assert [e.field for e in caught.value.errors] == [
            "measured_gpu_throughput",
            "growth_per_year",
        ]


class TestProperties:
    """Splitting at month boundaries moves busy hours between months, never creates or loses
    them: on a regularly sampled log without gaps the months sum to Σ p / 100 × interval."""

    @settings(max_examples=60, deadline=None)
    @given(
        start=st.integers(
            min_value=int(np.datetime64("2025-01-01T00:00:00", "s").astype(int)),
            max_value=int(np.datetime64("2027-01-01T00:00:00", "s").astype(int)),
        ),
        interval=st.sampled_from([1, 15, 60, 300, 3600, 86_400]),
        utilization=st.lists(st.integers(0, 100), min_size=2, max_size=400),
    )
    def test_busy_and_observed_hours_are_conserved(self, start, interval, utilization):
        times = start + interval * np.arange(len(utilization))
        stamps = np.datetime_as_string(times.astype("datetime64[s]"))
        text = "".join(
            f"{stamp}, 0, {value}\n" for stamp, value in zip(stamps, utilization, strict=True)
        )

        # read as of 2029 (the last sample is at most 400 days after 2027-01-01): the bound
        # on future times is tested in test_usage_bounds.py
        usage = read_nvidia_smi(
            text, now=float(np.datetime64("2029-01-01T00:00:00", "s").astype(int))
        )

        busy = sum(utilization) / 100 * interval / 3600
        assert_allclose(sum(usage.gpu_hours), busy, rtol=1e-9, atol=1e-9)
        assert_allclose(sum(usage.observed_hours), len(utilization) * interval / 3600, rtol=1e-9)
        # one GPU is never busier than the hours it was observed
        assert (np.array(usage.gpu_hours) <= np.array(usage.observed_hours) + 1e-9).all()

    @settings(max_examples=200, deadline=None)
    @given(
        format=st.sampled_from(
            ["nvidia-smi", "dcgm-prometheus", "slurm-sacct", "aws-cur", "focus"]
        ),
        name=st.sampled_from(sorted(p.name for p in FIXTURES.iterdir())),
        edits=st.lists(
            st.tuples(
                st.floats(0, 1, exclude_max=True),
                st.sampled_from(["replace", "delete", "insert"]),
                st.sampled_from(list('0123456789,|:-/ .TZ%\n"[]{}aN\x00é')),
            ),
            min_size=1,
            max_size=8,
        ),
    )
    def test_any_damaged_file_is_read_or_refused_with_a_message(self, format, name, edits):
        text = list(fixture(name))
        for where, edit, char in edits:
            i = int(where * len(text))
            if edit == "replace" and text:
                text[i] = char
            elif edit == "delete" and text:
                del text[i]
            else:
                text.insert(i, char)
        try:
            read_usage(format, "".join(text), P4D)
        except UsageError as exc:
            assert exc.errors and all(e.field == "content" and e.message for e in exc.errors)
            # and says what as a code the edge can word in another language
            assert all(e.code in READER_CODES for e in exc.errors)

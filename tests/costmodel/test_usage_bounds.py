"""Bounded reading: gzip inflated within a limit, JSON content within key, depth and number
bounds, each refusal naming the place (line and column) and the bound; and bounds on what
the file says (times from 2000 to the time of reading, GPUs per job and at once on a bill),
each refusal naming the line (or JSON path) and the field."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from numpy.testing import assert_allclose

from costmodel.usage import (
    MAX_GPUS,
    UsageError,
    decode_text,
    read_aws_cur,
    read_dcgm_prometheus,
    read_focus,
    read_nvidia_smi,
    read_slurm_sacct,
)
from costmodel.usage.jsontext import MAX_CONTENT_KEYS, MAX_DEPTH, load_json_bounded

LOG = "2026/11/02 10:00:00, 0, 50\n2026/11/02 10:10:00, 0, 50\n"


def error_of(caught: pytest.ExceptionInfo[UsageError]) -> tuple[str, str, dict]:
    [problem] = caught.value.errors
    return problem.code, problem.message, problem.params


class TestGzip:
    def test_a_gzip_file_reads_as_its_text(self):
        assert decode_text(gzip.compress(LOG.encode())) == LOG
        # two 600 s samples at 50 %: 2 × 600 s × 0.5 = 600 s = 1/6 GPU-h
        usage = read_nvidia_smi(decode_text(gzip.compress(LOG.encode()), 1000))
        assert_allclose(sum(usage.gpu_hours), 1 / 6, rtol=1e-12)

    def test_concatenated_members_are_joined_as_gunzip_does(self):
        data = gzip.compress(LOG[:27].encode()) + gzip.compress(LOG[27:].encode())
        assert decode_text(data) == LOG

    def test_an_archive_inflating_past_the_limit_is_refused_naming_it(self):
        bomb = gzip.compress(b"0" * 5_000_000)  # 5 MB of zeros in about 5 kB
        with pytest.raises(UsageError) as caught:
            decode_text(bomb, max_bytes=1_000_000)
        code, message, params = error_of(caught)
        assert code == "inflates_too_far"
        assert params == {"limit": 1_000_000}
        assert "more than the limit of 1,000,000 bytes" in message

    def test_an_archive_exactly_at_the_limit_is_read(self):
        assert len(decode_text(gzip.compress(b"1" * 1000), max_bytes=1000)) == 1000

    def test_a_damaged_archive_is_refused(self):
        with pytest.raises(UsageError) as caught:
            decode_text(gzip.compress(LOG.encode())[:-12])
        assert error_of(caught)[0] == "bad_gzip"


class TestJsonBounds:
    def test_nesting_100_000_deep_names_the_first_bracket_past_the_limit(self):
        with pytest.raises(UsageError) as caught:
            read_dcgm_prometheus("[" * 100_000)
        code, message, params = error_of(caught)
        assert code == "nested_too_deep"
        # the 33rd bracket is the first past 32 levels: line 1, column 33
        assert params == {"line": 1, "column": MAX_DEPTH + 1, "limit": MAX_DEPTH}
        assert message.startswith("line 1 column 33: nested more than 32 levels deep")

    def test_nesting_just_past_the_limit_is_refused_though_the_parser_could_read_it(self):
        text = '{"a":\n' * 33 + "1" + "}" * 33
        with pytest.raises(UsageError) as caught:
            load_json_bounded(text)
        assert error_of(caught)[2] == {"line": 33, "column": 1, "limit": MAX_DEPTH}

    def test_brackets_inside_strings_do_not_count(self):
        text = json.dumps({"status": "[" * 100, "x": ["]" * 100, {"y": 1}]})
        assert load_json_bounded(text) == json.loads(text)

    def test_a_400_digit_sample_value_names_its_line_and_column(self):
        text = (
            '{"status": "success", "data": {"resultType": "matrix", "result": [\n'
            '{"metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL"}, "values": [[1730419200, '
            + "9" * 400
            + "]]}]}}"
        )
        with pytest.raises(UsageError) as caught:
            read_dcgm_prometheus(text)
        code, message, params = error_of(caught)
        assert code == "number_too_long"
        # the number starts after the 73 characters before it on line 2: column 74
        assert params == {"line": 2, "column": 74, "limit": 32}
        assert message.startswith("line 2 column 74: a number too long or too large to read")

    def test_an_integer_past_pythons_digit_limit_is_refused_not_raised(self):
        with pytest.raises(UsageError) as caught:
            load_json_bounded('{"x": ' + "1" * 5000 + "}")
        assert error_of(caught)[2] == {"line": 1, "column": 7, "limit": 32}

    def test_more_keys_than_the_limit_in_the_content_are_refused_before_parsing(self):
        text = "[" + ",".join(['{"k": 1}'] * (MAX_CONTENT_KEYS + 1)) + "]"
        with pytest.raises(UsageError) as caught:
            read_dcgm_prometheus(text)
        code, _message, params = error_of(caught)
        assert code == "too_many_keys"
        assert params == {"keys": MAX_CONTENT_KEYS + 1, "limit": MAX_CONTENT_KEYS}

    def test_colons_inside_strings_are_not_keys(self):
        text = json.dumps(["10:00:00"] * (MAX_CONTENT_KEYS + 1))
        assert len(load_json_bounded(text)) == MAX_CONTENT_KEYS + 1  # type: ignore[arg-type]


# Bounds on what a file says (costmodel/usage/bounds.py): figures no machine, account or
# clock writes are refused naming the line (or path) and field; the largest figure within
# a bound is read, and its GPU-hours are checked by hand.

NOW = float(np.datetime64("2026-12-07T12:00:00", "s").astype(int))
"""The time of reading these tests give the readers."""
SACCT = "JobID|Start|End|AllocTRES\n"
CUR = "lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/UsageType,lineItem/UsageAmount\n"
CUR_2 = (
    "line_item_usage_start_date,line_item_usage_end_date,line_item_usage_type,"
    "line_item_usage_amount\n"
)
FOCUS = (
    "ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ConsumedQuantity,ConsumedUnit,"
    "ChargeDescription\n"
)
P4D_HOUR = "$32.77 per On Demand Linux p4d.24xlarge Instance Hour"
P4D = {"p4d.24xlarge": (8, "NVIDIA A100 40GB SXM4")}


def iso(seconds: float) -> str:
    return str(np.datetime64(int(seconds), "s"))


def job(number: int, start: str, end: str, tres: str) -> str:
    return f"{number}|{start}|{end}|billing=8,cpu=8,{tres},node=1\n"


class TestSlurmGpus:
    def test_the_issues_job_of_1e23_gpus_is_refused_naming_line_and_field(self):
        text = SACCT + job(1, "2026-10-01T00:00:00", "2026-10-01T01:00:00", "gres/gpu=4")
        text += job(2, "2026-10-01T00:00:00", "2026-10-01T01:00:00", "gres/gpu=" + "9" * 23)
        with pytest.raises(UsageError) as caught:
            read_slurm_sacct(text, now=NOW)
        code, message, params = error_of(caught)
        assert code == "gpus_above_limit"
        assert params == {
            "line": 3,
            "field": "AllocTRES",
            "gpus": "9" * 23,
            "limit": MAX_GPUS,
        }
        assert message == (
            f"line 3: AllocTRES gres/gpu={'9' * 23} is more GPUs than any machine holds (at "
            "most 1,000,000 per job): correct the export or leave the job out"
        )

    def test_a_count_past_pythons_digit_limit_is_refused_not_raised(self):
        text = SACCT + job(
            1, "2026-10-01T00:00:00", "2026-10-01T01:00:00", "gres/gpu=" + "7" * 5000
        )
        with pytest.raises(UsageError) as caught:
            read_slurm_sacct(text, now=NOW)
        code, _message, params = error_of(caught)
        assert code == "gpus_above_limit"
        assert params["gpus"] == "777777777777…(5000 digits)"

    def test_a_typed_gres_one_past_the_limit_is_refused(self):
        tres = f"gres/gpu:h100={MAX_GPUS + 1}"
        text = SACCT + job(7, "2026-10-01T00:00:00", "2026-10-01T01:00:00", tres)
        with pytest.raises(UsageError) as caught:
            read_slurm_sacct(text, now=NOW)
        assert error_of(caught)[2]["gpus"] == "1000001"

    def test_a_job_at_the_limit_is_read(self):
        # hand computation: 1 000 000 GPUs for 30 min = 500 000 GPU-h; 2 GPUs (written with
        # leading zeros) for 2 h = 4 GPU-h, all in October 2026
        text = SACCT + job(1, "2026-10-01T00:00:00", "2026-10-01T00:30:00", "gres/gpu=1000000")
        text += job(2, "2026-10-02T00:00:00", "2026-10-02T02:00:00", "gres/gpu=0002")
        usage = read_slurm_sacct(text, now=NOW)
        assert usage.months == ["2026-10"]
        assert_allclose(usage.gpu_hours, [500_004.0], rtol=1e-12)
        assert usage.gpus == MAX_GPUS


class TestSlurmTimes:
    def test_the_issues_job_in_the_year_9999_is_refused_naming_line_and_field(self):
        text = SACCT + job(1, "2026-10-01T00:00:00", "2026-10-01T01:00:00", "gres/gpu=1")
        text += job(2, "9999-10-01T00:00:00", "9999-10-01T01:00:00", "gres/gpu=1")
        with pytest.raises(UsageError) as caught:
            read_slurm_sacct(text)  # the clock's time of reading
        code, message, params = error_of(caught)
        assert code == "time_in_future"
        assert {k: params[k] for k in ("line", "field", "time")} == {
            "line": 3,
            "field": "Start",
            "time": "9999-10-01T00:00:00",
        }
        assert message.startswith("line 3: Start 9999-10-01T00:00:00 is later than the time of")
        assert message.endswith(
            "UTC): is the clock of the machine that wrote it right? Correct the date or "
            "leave the record out"
        )

    def test_an_end_past_a_days_leeway_is_refused_and_within_it_read(self):
        # ends 23 h after the time of reading (a log in local time east of UTC): read,
        # 2 GPUs × 25 h = 50 GPU-h; 25 h after it: refused naming End
        start = iso(NOW - 2 * 3600)
        text = SACCT + job(1, start, iso(NOW + 23 * 3600), "gres/gpu=2")
        assert_allclose(sum(read_slurm_sacct(text, now=NOW).gpu_hours), 50.0, rtol=1e-12)
        late = SACCT + job(1, start, iso(NOW + 25 * 3600), "gres/gpu=2")
        with pytest.raises(UsageError) as caught:
            read_slurm_sacct(late, now=NOW)
        code, _message, params = error_of(caught)
        assert code == "time_in_future"
        assert params == {
            "line": 2,
            "field": "End",
            "time": "2026-12-08T13:00:00",
            "now": "2026-12-07T12:00:00",
        }

    def test_a_job_before_2000_is_refused_and_from_2000_read(self):
        text = SACCT + job(1, "1999-12-31T23:00:00", "2000-01-01T01:00:00", "gres/gpu=1")
        with pytest.raises(UsageError) as caught:
            read_slurm_sacct(text, now=NOW)
        code, message, params = error_of(caught)
        assert code == "time_too_early"
        assert params == {"line": 2, "field": "Start", "time": "1999-12-31T23:00:00"}
        assert message.startswith("line 2: Start 1999-12-31T23:00:00 is before 2000")
        fine = SACCT + job(1, "2000-01-01T00:00:00", "2000-01-01T01:00:00", "gres/gpu=3")
        assert read_slurm_sacct(fine, now=NOW).gpu_hours == [3.0]


class TestSampledTimes:
    def test_an_unset_clocks_1970_timestamp_names_its_line(self):
        text = (
            "timestamp, index, utilization.gpu\n"
            "2026/11/02 10:00:00, 0, 50\n"
            "1970/01/01 00:00:07, 1, 50\n"
        )
        with pytest.raises(UsageError) as caught:
            read_nvidia_smi(text, now=NOW)
        code, _message, params = error_of(caught)
        assert code == "time_too_early"
        assert params == {"line": 3, "field": "timestamp", "time": "1970-01-01T00:00:07"}

    def test_a_log_ahead_of_the_time_of_reading_by_a_time_zone_is_read(self):
        # local time at UTC+12 read as UTC: 12 h ahead. Two samples 10 min apart at 60 %:
        # 2 × 600 s × 0.6 = 720 s = 0.2 GPU-h
        first, second = NOW + 12 * 3600, NOW + 12 * 3600 + 600
        text = f"{iso(first)}, 0, 60\n{iso(second)}, 0, 60\n"
        assert_allclose(sum(read_nvidia_smi(text, now=NOW).gpu_hours), 0.2, rtol=1e-12)

    def test_a_timestamp_two_days_ahead_is_refused(self):
        text = f"{iso(NOW)}, 0, 60\n{iso(NOW + 2 * 86_400)}, 0, 60\n"
        with pytest.raises(UsageError) as caught:
            read_nvidia_smi(text, now=NOW)
        code, _message, params = error_of(caught)
        assert code == "time_in_future"
        assert params["line"] == 2
        assert params["time"] == "2026-12-09T12:00:00"

    def test_a_dcgm_sample_in_2099_names_its_path(self):
        # 4 070 908 800 s is 2099-01-01: Unix seconds (below 2100), but not yet written
        answer = {
            "status": "success",
            "data": {
                "resultType": "matrix",
                "result": [
                    {
                        "metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", "UUID": "GPU-1"},
                        "values": [[NOW - 600, "50"], [NOW - 300, "50"], [4_070_908_800, "50"]],
                    }
                ],
            },
        }
        with pytest.raises(UsageError) as caught:
            read_dcgm_prometheus(json.dumps(answer), now=NOW)
        code, message, params = error_of(caught)
        assert code == "time_in_future"
        assert params["path"] == "data.result[0].values[2]"
        assert params["field"] == "time"
        assert message.startswith("data.result[0].values[2]: time 2099-01-01T00:00:00 is later")
        # without it: two samples 300 s apart at 50 % = 2 × 300 s × 0.5 = 300 s = 1/12 GPU-h
        answer["data"]["result"][0]["values"].pop()
        usage = read_dcgm_prometheus(json.dumps(answer), now=NOW)
        assert_allclose(sum(usage.gpu_hours), 1 / 12, rtol=1e-12)

    def test_a_dcgm_sample_in_1999_is_refused(self):
        answer = {
            "data": {
                "resultType": "matrix",
                "result": [
                    {
                        "metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", "gpu": "0"},
                        "values": [[946_684_799, "5"], [946_685_099, "5"]],
                    }
                ],
            }
        }
        with pytest.raises(UsageError) as caught:
            read_dcgm_prometheus(json.dumps(answer), now=NOW)
        code, _message, params = error_of(caught)
        assert code == "time_too_early"
        assert params == {
            "path": "data.result[0].values[0]",
            "field": "time",
            "time": "1999-12-31T23:59:59",
        }


class TestBills:
    def test_an_amount_of_1e23_hours_is_refused_naming_line_and_field(self):
        text = CUR + "2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,USE1-BoxUsage:p4d.24xlarge,2\n"
        text += "2026-10-01T01:00:00Z,2026-10-01T02:00:00Z,USE1-BoxUsage:p4d.24xlarge,1e23\n"
        with pytest.raises(UsageError) as caught:
            read_aws_cur(text, P4D, now=NOW)
        code, message, params = error_of(caught)
        assert code == "usage_above_limit"
        assert params == {
            "line": 3,
            "field": "lineItem/UsageAmount",
            "amount": "1e+23",
            "instance_type": "p4d.24xlarge",
            "hours": "1",
            "gpus": "8e+23",
            "limit": MAX_GPUS,
        }
        assert message == (
            "line 3: lineItem/UsageAmount 1e+23 hours of p4d.24xlarge in 1 h is 8e+23 GPUs at "
            "once, more than any account runs (at most 1,000,000): correct the bill or leave "
            "the row out"
        )

    def test_an_amount_that_would_overflow_names_the_cur_2_column(self):
        text = (
            CUR_2 + "2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,USE1-BoxUsage:p4d.24xlarge,1e308\n"
        )
        with pytest.raises(UsageError) as caught:
            read_aws_cur(text, P4D, now=NOW)
        code, _message, params = error_of(caught)
        assert code == "usage_above_limit"
        assert params["field"] == "line_item_usage_amount"
        assert params["gpus"] == "inf"

    def test_an_aggregated_row_at_the_limit_is_read(self):
        # hand computation: 125 000 p4d instance-h in one hour = 1 000 000 GPUs at once,
        # 1 000 000 GPU-h; and 100 instance-h over a day, 800 GPU-h: 1 000 800 GPU-h
        text = CUR + "2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,USE1-BoxUsage:p4d.24xlarge,125000\n"
        text += "2026-10-02T00:00:00Z,2026-10-03T00:00:00Z,USE1-BoxUsage:p4d.24xlarge,100\n"
        usage = read_aws_cur(text, P4D, now=NOW)
        assert_allclose(usage.gpu_hours, [1_000_800.0], rtol=1e-12)
        assert usage.gpus == MAX_GPUS
        over = text.replace(",125000\n", ",125001\n")
        with pytest.raises(UsageError) as caught:
            read_aws_cur(over, P4D, now=NOW)
        assert error_of(caught)[0] == "usage_above_limit"

    def test_a_type_the_catalog_lacks_counts_as_one_gpu_for_the_bound(self):
        text = CUR + "2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,USE1-BoxUsage:m5.xlarge,2e6\n"
        with pytest.raises(UsageError) as caught:
            read_aws_cur(text, P4D, now=NOW)
        code, _message, params = error_of(caught)
        assert code == "usage_above_limit"
        assert (params["instance_type"], params["gpus"]) == ("m5.xlarge", "2e+06")

    def test_a_row_of_the_current_month_may_end_after_the_time_of_reading(self):
        # December 2026, read on the 7th: 24 p4d instance-h over the month = 192 GPU-h
        text = FOCUS + f"2026-12-01T00:00:00Z,2027-01-01T00:00:00Z,Usage,24,Hours,{P4D_HOUR}\n"
        usage = read_focus(text, P4D, now=NOW)
        assert usage.months == ["2026-12"]
        assert_allclose(usage.gpu_hours, [192.0], rtol=1e-12)

    def test_a_period_ending_past_32_days_after_reading_is_refused(self):
        text = FOCUS + f"2026-12-01T00:00:00Z,2027-02-01T00:00:00Z,Usage,24,Hours,{P4D_HOUR}\n"
        with pytest.raises(UsageError) as caught:
            read_focus(text, P4D, now=NOW)
        code, _message, params = error_of(caught)
        assert code == "time_in_future"
        assert (params["line"], params["field"]) == (2, "ChargePeriodEnd")

    def test_a_focus_charge_in_the_year_9999_is_refused(self):
        text = FOCUS + f"2026-10-01T00:00:00Z,2026-10-01T01:00:00Z,Usage,1,Hours,{P4D_HOUR}\n"
        text += f"9999-10-01T00:00:00Z,9999-10-01T01:00:00Z,Usage,1,Hours,{P4D_HOUR}\n"
        with pytest.raises(UsageError) as caught:
            read_focus(text, P4D, now=NOW)
        code, _message, params = error_of(caught)
        assert code == "time_in_future"
        assert params == {
            "line": 3,
            "field": "ChargePeriodStart",
            "time": "9999-10-01T00:00:00",
            "now": "2026-12-07T12:00:00",
        }

    def test_a_focus_quantity_past_the_limit_names_its_column(self):
        text = FOCUS + f"2026-10-01T00:00:00Z,2026-10-02T00:00:00Z,Usage,4e6,Hours,{P4D_HOUR}\n"
        with pytest.raises(UsageError) as caught:
            read_focus(text, P4D, now=NOW)
        code, _message, params = error_of(caught)
        # 4 000 000 instance-h over 24 h × 8 GPUs = 1 333 333 GPUs at once
        assert code == "usage_above_limit"
        assert (params["field"], params["hours"], params["gpus"]) == (
            "ConsumedQuantity",
            "24",
            "1.33e+06",
        )

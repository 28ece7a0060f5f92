"""Bounded reading: gzip inflated within a limit, JSON content within key, depth and number
bounds, each refusal naming the place (line and column) and the bound."""

from __future__ import annotations

import gzip
import json

import pytest
from numpy.testing import assert_allclose

from costmodel.usage import UsageError, decode_text, read_dcgm_prometheus, read_nvidia_smi
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

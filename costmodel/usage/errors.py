"""The error a reader raises: its codes, each naming the place in the file."""

from __future__ import annotations

from costmodel.errors import FieldError, ScenarioError


class UsageError(ScenarioError):
    """The content cannot be read as the format named; each error names the line."""


READER_CODES: dict[str, str] = {
    "empty": "the file is empty or only blanks",
    "holds_nul": "the text holds NUL bytes; params: line",
    "not_text": "the bytes are binary or not UTF-8; params: line",
    "too_many_months": "the file covers more than MAX_MONTHS months; params: months, first, "
    "last, limit",
    "bad_gzip": "a gzip archive cut short or damaged",
    "inflates_too_far": "a gzip archive that inflates past the limit; params: limit",
    "too_many_keys": "JSON content with more keys than MAX_CONTENT_KEYS; params: keys, limit",
    "nested_too_deep": "JSON nested deeper than MAX_DEPTH; params: line, column, limit",
    "number_too_long": "a JSON number too long or too large to read; params: line, column, limit",
    "utilization_out_of_range": "a utilization outside 0-100; params: line or path, value",
    "timestamp_out_of_order": "a sample earlier than the GPU's previous one; params: line or "
    "path, gpu (host, log, index)",
    "too_few_samples": "no GPU has two samples at different times",
    "not_nvidia_smi": "no nvidia-smi header, no field list given and no row shaped like a "
    "short form; params: line, count (fields)",
    "no_row_with_columns": "no row has as many fields as the header; params: line, count, columns",
    "no_utilization": "no GPU reports a utilization (all [N/A], MIG); params: line",
    "query_fields_missing": "(on columns, not content) the --query-gpu list lacks timestamp "
    "or utilization.gpu; params: columns",
    "no_readable_row": "no row has a readable timestamp and utilization; params: line",
    "not_json": "the text is not JSON; params: line",
    "instant_query": "an instant query's answer (vector); params: path, kind, hint (the "
    "query_range call)",
    "prometheus_error": "Prometheus' answer to a failed query (status error); params: path, "
    "kind (errorType), error (its text, at most 200 characters), hint (the query_range call)",
    "only_mig_gpus": "every series is of a MIG instance (GPU_I_ID); params: path",
    "metric_name_missing": "a series without __name__; params: path",
    "metric_not_read": "a metric that is no utilization; params: path, metric",
    "two_metrics": "series of two metrics; params: path, metric, other",
    "not_query_range": "JSON, but not a Prometheus query_range answer of type matrix",
    "no_series": "the answer holds no series",
    "bad_series": "a series without a metric object or a values list; params: path",
    "bad_sample": "a sample that is not a [time, value] pair; params: path",
    "not_unix_seconds": "sample times outside 1970-2100 in Unix seconds; params: path",
    "no_samples": "the series hold no samples",
    "missing_columns": "a sacct header without a needed column; params: line, columns",
    "not_sacct": "neither a sacct header nor a row shaped like one, and no columns given; "
    "params: line, count (fields)",
    "no_gpu_job": "no finished job allocated a GPU; params: jobs",
    "columns_missing": "(on columns, not content) the field order lacks a needed field; "
    "params: columns",
    "no_finished_job": "no job with a start and an end; params: line",
    "unreadable_job_time": "a job's Start or End is not a time; params: line",
    "end_before_start": "a job ends before it starts; params: line",
    "not_cur": "the header lacks the Cost and Usage Report's columns; params: line",
    "no_instance_usage": "the bill holds no instance usage; params: line",
    "negative_amount": "a negative UsageAmount; params: line",
    "no_known_gpu_instance": "no usage of an instance type the catalog gives GPUs for; "
    "params: count, listed (the first ten with their hours), types (instance_type, hours "
    "of each seen)",
    "no_focus_usage": "no Usage row in hours of an instance type; params: line",
    "not_focus": "the header lacks FOCUS columns; params: line, columns",
    "unreadable_bill_dates": "no line item's dates can be read; params: line, date",
    "time_too_early": "a time before 2000 (EARLIEST_TIME); params: line or path, field, time",
    "time_in_future": "a time later than the time of reading plus its leeway; params: line "
    "or path, field, time, now (the time of reading, UTC)",
    "gpus_above_limit": "a Slurm job of more than MAX_GPUS GPUs; params: line, field, gpus "
    "(as written, shortened), limit",
    "usage_above_limit": "a bill row of more than MAX_GPUS GPUs at once; params: line, "
    "field, amount, instance_type, hours, gpus, limit",
}
"""Codes of the errors a reader raises on ``content`` (each :class:`FieldError`'s ``code``;
its ``params`` hold the figures the message quotes)."""


def fail(message: str, code: str, **params: object) -> UsageError:
    return UsageError([FieldError("content", message, code, dict(params))])

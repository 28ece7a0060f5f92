"""Cloud bills: FOCUS 1.x of any provider, the CUR with offsets, CUR 2.0 names and gzip, and
the instance types a bill holds listed even when none is a GPU type the catalog knows.

Real sample: ``focus-sample.csv`` holds rows of the FinOps Foundation's anonymized FOCUS
1.0 sample data (repository maxjahn/FOCUS-Sample-Data, path FOCUS-1.0/focus_sample.csv,
commit 8ac5ea6cbc3a8af74f517052f4c2ff3ad33d91cd; AWS, Microsoft and Oracle rows, header
and rows unchanged): every AWS g5.4xlarge and g3.4xlarge row, three c5.2xlarge rows, a
NAT gateway hour, a storage row, the Microsoft rows measured in hours and two Oracle rows.
The sample names AWS instance types only in ChargeDescription and Azure VM sizes only in
its meter description, as an export without the providers' x_ columns does.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from numpy.testing import assert_allclose

from costmodel.usage import (
    InstanceTypeUnknown,
    UsageError,
    decode_text,
    read_aws_cur,
    read_focus,
    read_usage,
)
from costmodel.usage.focus import instance_type

FIXTURES = Path(__file__).resolve().parent / "usage_fixtures"
AWS_GPUS = {"g5.4xlarge": (1, "NVIDIA A10G"), "g3.4xlarge": (1, "NVIDIA Tesla M60")}
P4D = {"p4d.24xlarge": (8, "NVIDIA A100 40GB SXM4")}


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def error_of(caught: pytest.ExceptionInfo[UsageError]) -> tuple[str, str, dict]:
    [problem] = caught.value.errors
    return problem.code, problem.message, problem.params


class TestFocusSample:
    """Hand computation, September 2024 (one GPU per instance of both types, as AWS sells
    them): g5.4xlarge 1 + 0.683889 + 0.303056 + 0.296111 + 1 + 1 + 1 + 1 = 6.283056
    instance-h; g3.4xlarge 1 + 0.686667 = 1.686667 → 7.969723 GPU-h. Not counted, listed:
    c5.2xlarge 3 h; Azure's D11 v2 (a correction of −1 h). The NAT gateway, IP address,
    storage and Oracle rows are no instance-hours."""

    usage = read_focus(fixture("focus-sample.csv"), AWS_GPUS)

    def test_gpu_hours(self):
        assert self.usage.months == ["2024-09"]
        assert_allclose(self.usage.gpu_hours, [6.283056 + 1.686667], rtol=1e-12)
        assert self.usage.gpus == 1
        assert self.usage.gpu_models == ["NVIDIA A10G", "NVIDIA Tesla M60"]

    def test_the_types_the_catalog_lacks_are_listed_with_their_hours(self):
        unknown = [n for n in self.usage.notices if isinstance(n, InstanceTypeUnknown)]
        assert unknown == [
            InstanceTypeUnknown(instance_type="Standard_D11_v2", hours=-1.0),
            InstanceTypeUnknown(instance_type="c5.2xlarge", hours=3.0),
        ]

    def test_with_no_type_the_catalog_knows_it_lists_them_in_the_refusal(self):
        with pytest.raises(UsageError) as caught:
            read_focus(fixture("focus-sample.csv"), {})
        code, message, params = error_of(caught)
        assert code == "no_known_gpu_instance"
        assert message.endswith(
            "it holds 4 instance types: g5.4xlarge (6.28306 h), c5.2xlarge (3 h), "
            "g3.4xlarge (1.68667 h), Standard_D11_v2 (-1 h)"
        )
        assert params["types"][0] == {
            "instance_type": "g5.4xlarge",
            "hours": pytest.approx(6.283056),
        }

    def test_a_gzip_export_reads_the_same(self):
        data = gzip.compress(fixture("focus-sample.csv").encode())
        assert read_usage("focus", decode_text(data), AWS_GPUS) == self.usage


FOCUS_HEADER = (
    "ProviderName,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ConsumedQuantity,"
    "ConsumedUnit,ChargeDescription,SkuPriceDetails,x_UsageType,x_SkuMeterName\n"
)


def test_each_provider_names_its_instance_type_in_its_own_place():
    # derived rows in the columns each provider's FOCUS export fills
    rows = [
        {"SkuPriceDetails": '{"InstanceType": "p5.48xlarge"}'},
        {"x_UsageType": "USE1-BoxUsage:p4d.24xlarge"},
        {"x_SkuMeterName": "NC24ads A100 v4"},
        {"ChargeDescription": "Virtual Machines NCads A100 v4 Series - NC24ads A100 v4 - US East"},
        {"ChargeDescription": "$32.77 per On Demand Linux p4d.24xlarge Instance Hour"},
        {"ChargeDescription": "Nvidia Tesla A100 GPU running in Americas"},
    ]
    assert [instance_type(r) for r in rows] == [
        "p5.48xlarge",
        "p4d.24xlarge",
        "Standard_NC24ads_A100_v4",
        "Standard_NC24ads_A100_v4",
        "p4d.24xlarge",
        "gpu:Nvidia Tesla A100",
    ]


def test_azure_and_google_cloud_bills_read_with_offsets_in_their_dates():
    # Azure: 24 h of NC24ads A100 v4 (1 GPU) on 10-01, in its +00:00 form; Google Cloud:
    # 10 h of its A100 GPU SKU (GPU-hours themselves) from 10-31 22:00 -02:00 = 11-01 00:00
    text = FOCUS_HEADER + (
        "Microsoft,2026-10-01T00:00:00+00:00,2026-10-02T00:00:00+00:00,Usage,24,Hours,"
        '"Virtual Machines NCads A100 v4 Series - NC24ads A100 v4 - US East",,,\n'
        "Google Cloud,2026-10-31T22:00:00-02:00,2026-11-01T08:00:00-02:00,Usage,10,hour,"
        "Nvidia Tesla A100 GPU running in Americas,,,\n"
    )
    usage = read_focus(text, {"Standard_NC24ads_A100_v4": (1, "NVIDIA A100 80GB PCIe")})
    # October: 24 GPU-h; November (00:00-10:00 UTC): 10 GPU-h
    assert usage.months == ["2026-10", "2026-11"]
    assert_allclose(usage.gpu_hours, [24.0, 10.0], rtol=1e-12)
    assert usage.gpu_models == ["NVIDIA A100 80GB PCIe", "Nvidia Tesla A100"]


def test_a_header_without_focus_columns_names_them():
    with pytest.raises(UsageError) as caught:
        read_focus("Date,Cost\n2026-10-01,3\n", {})
    code, _message, params = error_of(caught)
    assert code == "not_focus"
    assert params["columns"] == (
        "ChargePeriodStart, ChargePeriodEnd, ChargeCategory, PricingQuantity, PricingUnit"
    )


class TestCur:
    def test_dates_with_an_offset_are_read_as_utc(self):
        # the derived CUR fixture with +00:00 instead of Z: the same 16 + 4 GPU-h
        text = fixture("aws-cur.csv").replace("Z,", "+00:00,")
        assert_allclose(read_aws_cur(text, P4D).gpu_hours, [16.0, 4.0], rtol=1e-12)

    def test_an_offset_other_than_utc_moves_the_hours_to_utc(self):
        # 2026-11-01T00:00+05:30 is 2026-10-31T18:30Z: the November hour falls in October,
        # all 16 + 4 GPU-h in October
        text = fixture("aws-cur.csv").replace("Z,", "+05:30,")
        usage = read_aws_cur(text, P4D)
        assert usage.months == ["2026-10"]
        assert_allclose(usage.gpu_hours, [20.0], rtol=1e-12)

    @pytest.mark.parametrize("offset", ["+99:00", "+24:00", "-05:60"])
    def test_an_offset_no_clock_has_is_named_not_moved_by(self, offset):
        with pytest.raises(UsageError) as caught:
            read_aws_cur(fixture("aws-cur.csv").replace("Z,", f"{offset},"), P4D)
        code, message, _params = error_of(caught)
        assert code == "unreadable_bill_dates"
        assert message.startswith(f"line 2: the start 2026-10-31T22:00:00{offset} is not a date")

    def test_dates_that_cannot_be_read_are_named_not_blamed_on_the_catalog(self):
        text = fixture("aws-cur.csv").replace("T22:00:00Z", " at ten")
        text = text.replace("2026-10-31T", "31.10.2026 ").replace("2026-11-01T", "1.11.2026 ")
        with pytest.raises(UsageError) as caught:
            read_aws_cur(text, P4D)
        code, message, _params = error_of(caught)
        assert code == "unreadable_bill_dates"
        assert message.startswith("line 2: the start 2026-10-31 at ten is not a date and time")

    def test_a_cur_2_export_in_gzip_is_read(self):
        text = (
            "line_item_line_item_type,line_item_usage_start_date,line_item_usage_end_date,"
            "line_item_usage_amount,product_instance_type\n"
            "Usage,2026-10-03T00:00:00+00:00,2026-10-03T01:00:00+00:00,1,p4d.24xlarge\n"
        )
        # 1 instance-h × 8 GPUs
        assert_allclose(
            read_usage("aws-cur", decode_text(gzip.compress(text.encode())), P4D).gpu_hours,
            [8.0],
            rtol=1e-12,
        )

    def test_a_bill_without_a_known_type_lists_the_types_it_holds(self):
        with pytest.raises(UsageError) as caught:
            read_aws_cur(fixture("aws-cur.csv"), {})
        code, message, params = error_of(caught)
        assert code == "no_known_gpu_instance"
        # p4d.24xlarge 1 + 1 + 0.5 h, m5.xlarge 2 h
        assert message.endswith("it holds 2 instance types: p4d.24xlarge (2.5 h), m5.xlarge (2 h)")
        assert params["count"] == 2

import copy
import json

import pytest
from django.test import Client

from webapp.accounts.services import create_token

SELECTION = {
    "preset": "entry-rtx4090",
    "cloud_offering": "aliyun-gn7e-c16g1-4xlarge",
    "tariff": "cn-business-average",
    "hosting": "office-deskside",
    "benchmark": "resnet50-fp16",
    "workload": {"kind": "steady", "utilization": 0.6},
    "horizon_months": 36,
    "currency": "CNY",
}


@pytest.fixture
def catalog(db):
    """The shipped price catalog, as `make run` loads it."""
    from tests import catalog_once

    catalog_once.restore()  # as load_catalog writes it (read once per session)


@pytest.fixture
def selection_data() -> dict:
    return copy.deepcopy(SELECTION)


def post_json(client, url: str, data, **extra):
    """POST ``data`` encoded as JSON (a str/bytes body is sent as it is)."""
    body = data if isinstance(data, str | bytes) else json.dumps(data)
    return client.post(url, body, content_type="application/json", **extra)


def assert_same_result(got, expected, rtol: float = 1e-12) -> None:
    """Results equal up to float rounding (a batch sums in a different order)."""
    if isinstance(expected, dict):
        assert isinstance(got, dict)
        assert got.keys() == expected.keys()
        for key in expected:
            assert_same_result(got[key], expected[key], rtol)
    elif isinstance(expected, list):
        assert isinstance(got, list)
        assert len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            assert_same_result(g, e, rtol)
    elif isinstance(expected, float) and not isinstance(got, bool):
        assert got == pytest.approx(expected, rel=rtol, abs=1e-9)
    else:
        assert got == expected


def script_of(user) -> Client:
    """A client that authenticates as ``user`` with a personal API token only (no session)."""
    _, secret = create_token(user, "test script")
    return Client(HTTP_AUTHORIZATION=f"Bearer {secret}")

"""Presets stored before they had a default hosting get the one their tier needs."""

import pytest

from tests.webapp.migrations import migrate, migrated_to

BEFORE = [("catalog", "0006_pricing_modes_from_one_table")]
AFTER = [("catalog", "0007_preset_hosting_default")]


@pytest.fixture
def before_hosting_defaults(transactional_db):
    with migrated_to(BEFORE) as apps:
        yield apps


def test_stored_multi_gpu_and_cluster_presets_move_to_colocation(before_hosting_defaults):
    old_apps = before_hosting_defaults
    gpu = old_apps.get_model("catalog", "GpuModel").objects.create(
        slug="g", vendor="V", name="G", vram_gb=80, board_power_watts=700, idle_power_watts=70
    )
    presets = old_apps.get_model("catalog", "BuildPreset").objects
    for slug, tier, count in (
        ("desk", "entry", 1),
        ("server", "multi", 4),
        ("nodes", "cluster", 8),
    ):
        presets.create(
            slug=slug, name=slug, tier=tier, gpu_model=gpu, gpu_count=count,
            scaling_efficiency="0.9" if count > 1 else "1", maintenance_rate_per_year="0.05",
            residual_value_retention_per_year="0.7",
        )  # fmt: skip

    new_apps = migrate(AFTER)

    stored = new_apps.get_model("catalog", "BuildPreset").objects
    kinds = dict(stored.values_list("slug", "hosting_kind"))
    assert kinds == {"desk": "office", "server": "colocation", "nodes": "colocation"}
    assert "per kW" in stored.get(slug="nodes").hosting_rationale

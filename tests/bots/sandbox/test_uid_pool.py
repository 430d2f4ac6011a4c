"""Which host uids bots get when the platform is root: a fresh one each, in any namespace."""

from __future__ import annotations

import pytest

from bots.sandbox import SandboxUnavailable
from bots.sandbox.isolation import HOST_UID_BASE, HOST_UID_SPAN, _uid_map, uid_pool


def test_the_host_or_an_unremapped_container_uses_the_high_pool():
    assert uid_pool([(0, 4294967295)]) == (HOST_UID_BASE, HOST_UID_SPAN)  # 0 0 4294967295
    assert uid_pool([]) == (HOST_UID_BASE, HOST_UID_SPAN)


def test_a_remapped_container_draws_from_its_own_ids_above_the_image_users():
    """Docker's userns-remap maps 65,536 ids: bots get ids the namespace has, never
    root, the image's own users (below 10,000) or nobody (65534)."""
    low, span = uid_pool([(0, 65536)])
    assert low == 10_000 and low + span == 65534
    low, span = uid_pool([(0, 1000), (0, 200000)])  # the largest range is used
    assert (low, low + span) == (10_000, 199998)


def test_a_namespace_too_small_for_bots_is_refused_with_the_reason():
    with pytest.raises(SandboxUnavailable, match="too few ids"):
        uid_pool([(0, 10500)])


def test_this_hosts_map_is_read(tmp_path):
    path = tmp_path / "uid_map"
    path.write_text("         0     100000      65536\n")
    assert _uid_map(str(path)) == [(0, 65536)]
    assert _uid_map(str(tmp_path / "missing")) == []

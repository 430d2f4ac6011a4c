"""The live benchmark's clients find every match.finished in the frames the server sends."""

from __future__ import annotations

from bench.live import finished_ids
from tournaments.live.events import MATCH_FINISHED, STANDINGS_UPDATED, event, relay_message
from tournaments.sockets.fanout import join_frames


def encoded(kind: str, **payload) -> str:
    return relay_message(event(kind, 3, **payload))["text"]


def test_match_ids_are_found_in_single_events_and_in_arrays():
    first = encoded(MATCH_FINISHED, match={"id": 17, "seats": [{"rank": 1}]})
    second = encoded(MATCH_FINISHED, match={"id": 18, "seats": []})
    table = encoded(STANDINGS_UPDATED, standings=[{"name": "match.finished"}], progress={})

    assert finished_ids(first) == [17]
    assert finished_ids(table) == []
    assert finished_ids(join_frames([first, table, second])) == [17, 18]


def test_a_frame_spaced_otherwise_is_parsed_after_all():
    assert finished_ids('{"type": "match.finished", "competition": 3, "match": {"id": 5}}') == [5]

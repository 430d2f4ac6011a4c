"""The referee's quick reading of ``{"action": ...}`` replies agrees with ``parse_reply``."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bots import protocol
from bots.referee.players import _quick_action

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)


def agrees(line: bytes) -> None:
    quick = _quick_action(line)
    try:
        expected = protocol.parse_reply(line, "action")
    except (protocol.ProtocolError, UnicodeEncodeError):
        expected = None
    assert quick is None or quick == expected


@settings(max_examples=300, deadline=None)
@given(message=st.dictionaries(st.sampled_from(["action", "x", "ready"]), values), dup=st.text())
def test_json_replies(message, dup):
    line = json.dumps(message, ensure_ascii=False).encode("utf-8", "surrogatepass")
    agrees(line)
    agrees(line[:-1] + b',"action":' + json.dumps(dup).encode() + b"}" if message else line)


@settings(max_examples=300, deadline=None)
@given(line=st.binary(max_size=40))
def test_arbitrary_bytes(line):
    agrees(b'{"action":' + line)
    agrees(line)


def test_the_common_replies_are_read_quickly():
    assert _quick_action(b'{"action":"play 7S"}') == "play 7S"
    assert _quick_action(b'{"action":"play 7S","note":[1,2]}') == "play 7S"
    for line in (b'{"action":7}', b"[]", b'{"action":"a","x":NaN}', b'{"action":"\\ud800"}', b""):
        assert _quick_action(line) is None  # left to parse_reply
    assert _quick_action(b'{"action":"' + b"a" * protocol.MAX_LINE_BYTES + b'"}') is None

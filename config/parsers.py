"""A guard of the JSON parser: how deeply a body nests, found without parsing it.

Python's ``json`` recurses once per array or object level, so a body of ten
thousand ``[`` ends in a ``RecursionError``; :func:`json_depth` measures the
nesting first (``api.defaults.JSONParser`` refuses what is too deep with a 400).
"""

from __future__ import annotations

import re
from itertools import accumulate

#: The strings of a JSON text (their brackets do not nest anything).
_JSON_STRING = re.compile(rb'"(?:[^"\\]+|\\.)*"', re.DOTALL)
_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def json_depth(body: bytes) -> int:
    """How deeply the arrays and objects of a JSON text nest (0 for a scalar).

    A scan of the brackets outside strings: linear, without recursion, whatever
    the text holds (it need not be valid JSON).
    """
    brackets = _JSON_STRING.sub(b"", body).translate(None, _BRACKETS)
    return max(0, max(accumulate(_STEP[c] for c in brackets), default=0))


def json_nests_deeper_than(body: bytes, limit: int) -> bool:
    """Whether :func:`json_depth` of ``body`` exceeds ``limit``; most bodies are
    answered by counting their opening brackets."""
    return body.count(b"[") + body.count(b"{") > limit and json_depth(body) > limit

"""Legal purchase lists against a brute-force reading of the rules.

The reference below enumerates every money set by counts (itertools.product)
and writes labels directly from RULES.md; it shares no code with the engine.
"""

from __future__ import annotations

from itertools import product

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.games.money.support import NUMERALS, position

VALUES = {
    "money-jordan": {"K": 5, "J": 10, "Q": 15},
    "money-syria": {"X": 5, "J": 10, "Q": 15, "K": 20},
    "money-egypt": {"Q": 5, "K": 10, "J": 15, "A": 30},
}
TOTALS = {"X": 2, "J": 4, "Q": 4, "K": 4, "A": 4}


def _label(counts: dict[str, int], values: dict[str, int]) -> str:
    letters = sorted(values, key=lambda x: (-values[x], x))
    parts = [x for x in letters for _ in range(counts.get(x, 0))]
    return "+".join(parts) or "none"


def _subsets(counts: dict[str, int]):
    letters = sorted(counts)
    for combo in product(*(range(counts[x] + 1) for x in letters)):
        yield {x: c for x, c in zip(letters, combo, strict=True) if c}


def _worth(counts, values):
    return sum(values[x] * c for x, c in counts.items())


def _minus(a, b):
    return {x: a.get(x, 0) - b.get(x, 0) for x in set(a) | set(b)}


def _plus(a, b):
    return {x: a.get(x, 0) + b.get(x, 0) for x in set(a) | set(b)}


def reference_buys(values, bank, other, under, g, s, source):
    out = []
    for c in (x for x in bank if bank[x]):
        v = values[c]
        if source in ("ground", "any"):
            for m in _subsets(under):
                n = v - _worth(m, values)
                if 1 <= n <= g:
                    out.append(f"buy {c} at ground change {_label(m, values)}")
        sells = any(1 <= v - _worth(m, values) <= s for m in _subsets(other))
        if source in ("opponent", "any") and sells:
            out.append(f"buy {c} at opponent")
    return out


def reference_exchanges(values, bank, other, under, g, s, source, compulsory):
    out = []
    for place, money in (("opponent", other), ("ground", under)):
        for give in _subsets(bank):
            for take in _subsets(money):
                if not give or not take or set(give) & set(take):
                    continue
                if _worth(give, values) != _worth(take, values):
                    continue
                if compulsory:
                    b2 = _plus(_minus(bank, give), take)
                    m2 = _plus(_minus(money, take), give)
                    o2, u2 = (m2, under) if place == "opponent" else (other, m2)
                    if not reference_buys(values, b2, o2, u2, g, s, source):
                        continue
                out.append(
                    f"exchange {_label(give, values)} for {_label(take, values)} " f"at {place}"
                )
    return out


def reference_legal(variant, values, bank, other, under, g, s, mine):
    """MONEY-JO-8..14, MONEY-JO-19, MONEY-EG-2, MONEY-EG-3 read literally."""
    compulsory = mine == 0
    if variant == "money-egypt":
        plans = reference_buys(values, bank, other, under, g, s, "any") + reference_exchanges(
            values, bank, other, under, g, s, "any", compulsory
        )
        if compulsory:
            return set(plans) or None
        return {"turn", *plans}
    if not compulsory:
        return {"turn"}
    for source in ("ground", "opponent"):
        if source == "ground" and g < 5:
            continue
        plans = reference_buys(values, bank, other, under, g, s, source) + reference_exchanges(
            values, bank, other, under, g, s, source, True
        )
        if plans:
            return set(plans)
    return None  # stuck


def _money(draw, letters):
    """Random banks and under-pile money within the pack's totals."""
    parts = [{}, {}, {}]
    for x in letters:
        left = TOTALS[x]
        for part in parts:
            c = draw(st.integers(0, left))
            part[x] = c
            left -= c
    return parts


@st.composite
def positions(draw, variant):
    values = dict(VALUES[variant])
    if variant == "money-egypt" and not draw(st.booleans()):
        del values["A"]
    bank, other, under = _money(draw, list(values))
    g = draw(st.integers(0, 16))
    s = draw(st.integers(0, 33 - g))
    mine = draw(st.sampled_from([0, 0, 3]))
    return values, bank, other, under, g, s, mine


def _check(variant, data):
    values, bank, other, under, g, s, mine = data
    options = {"money.eg_aces_money": "A" in values} if variant == "money-egypt" else {}
    cards = [c for c in NUMERALS if not ("A" in values and c[0] == "A")]
    pile = cards[:g]
    theirs = cards[g : g + s]
    stack = cards[g + s : g + s + mine]
    if not any(bank.values()) and not mine:
        return  # MONEY-JO-16: the game is already over
    if not (pile or theirs or stack):
        return
    state = position(
        variant,
        options,
        stacks=[stack, theirs],
        pile=pile,
        banks=[_label(bank, values), _label(other, values)],
        under=_label(under, values),
        to_move=0,
    )
    want = reference_legal(variant, values, bank, other, under, g, s, mine)
    got = state.legal_actions()
    ids = state.legal_ids()
    assert ids == sorted(set(ids))
    if want is None:  # MONEY-JO-14: lowest card, source with more numerals (ground on a tie)
        low = min((x for x in bank if bank[x]), key=values.get)
        assert got == [f"buy {low} at ground change none" if g >= s else f"buy {low} at opponent"]
        return
    assert set(got) == want
    assert len(got) == len(want)
    # After each exchange only buys remain (LIMIT-2), still complete.
    for label in [x for x in got if x.startswith("exchange ")][:3]:
        after = state.clone()
        after.apply(label)
        assert not any(x.startswith("exchange ") for x in after.legal_actions())
        assert after.legal_actions()


@settings(max_examples=150, deadline=None)
@given(positions("money-jordan"))
def test_jordan_purchase_lists_match_reference(data):
    """MONEY-JO-8, MONEY-JO-9, MONEY-JO-10, MONEY-JO-11, MONEY-JO-12, MONEY-JO-13,
    MONEY-JO-19, ACTION-6, ACTION-7: complete, nothing illegal."""
    _check("money-jordan", data)


@settings(max_examples=150, deadline=None)
@given(positions("money-egypt"))
def test_egypt_purchase_lists_match_reference(data):
    """MONEY-EG-2, MONEY-EG-3, MONEY-EG-5, MONEY-EG-6, MONEY-EG-8, LIMIT-2, ACTION-6."""
    _check("money-egypt", data)


@settings(max_examples=100, deadline=None)
@given(positions("money-syria"))
def test_syria_purchase_lists_match_reference(data):
    """MONEY-SY-1, MONEY-JO-9, MONEY-JO-13, ACTION-6: Syrian money, Jordanian sources."""
    _check("money-syria", data)


@settings(max_examples=100, deadline=None)
@given(positions("money-jordan"), st.data())
def test_seller_change_lists_match_reference(data, more):
    """MONEY-JO-12, MONEY-JO-19: the seller's changes leave N within his stack."""
    values, bank, other, under, g, s, _ = data
    if not any(bank.values()) or s == 0:
        return
    state = position(
        "money-jordan",
        stacks=[[], NUMERALS[g : g + s]],
        pile=NUMERALS[:g],
        banks=[_label(bank, values), _label(other, values)],
        under=_label(under, values),
        to_move=0,
    )
    buys = [x for x in state.legal_actions() if x.startswith("buy ") and x.endswith(" at opponent")]
    if not buys or state.observation(0)["purchase"]["source"] == "stuck":
        return
    label = more.draw(st.sampled_from(buys))
    state.apply(label)
    v = values[label.split()[1]]
    want = {
        f"change {_label(m, values)}" for m in _subsets(other) if 1 <= v - _worth(m, values) <= s
    }
    assert set(state.legal_actions()) == want and want

"""The built-ins are one table (bots/builtin/__init__.py): names, strengths, refusals."""

from __future__ import annotations

import pytest

from bots import builtin
from bots.builtin.greedy import GreedyBot
from bots.builtin.ismcts import DEFAULT_ITERATIONS, IsmctsBot
from bots.builtin.random_bot import RandomBot


def test_every_builtin_is_listed_by_name_and_builds_its_own_player():
    assert builtin.names() == ["greedy", "ismcts", "random"]
    kinds = {name: type(builtin.make(name, seed=3)) for name in builtin.names()}
    assert kinds == {"greedy": GreedyBot, "ismcts": IsmctsBot, "random": RandomBot}


def test_the_named_strengths_are_ismcts_with_their_budgets_and_not_kept_as_bots():
    assert builtin.strengths() == ["ismcts-quick", "ismcts-strong"]
    assert not set(builtin.strengths()) & set(builtin.names())
    quick = builtin.make("ismcts-quick")
    assert isinstance(quick, IsmctsBot) and quick.iterations == DEFAULT_ITERATIONS // 4


def test_an_unknown_or_taken_name_is_refused_by_name():
    with pytest.raises(ValueError, match=r"unknown built-in bot 'nobody' \(known: greedy, "):
        builtin.make("nobody")
    with pytest.raises(ValueError, match="built-in bot 'greedy' registered twice"):
        builtin.register("greedy", RandomBot)

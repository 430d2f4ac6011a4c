"""One bot per owner a table: the pure relation in the formats, and the competitions."""

from __future__ import annotations

import itertools

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from hypothesis import given, settings
from hypothesis import strategies as st

from bots.models import Bot
from tournaments import pairing, services
from tournaments.formats import ladder_tables, round_robin, swiss_pair
from tournaments.formats.apart import CannotSeparate, clashes, separate
from tournaments.formats.ladder import LadderEntry
from tournaments.models import Competition, Match, OwnerLink

# -- pure -----------------------------------------------------------------------------


def test_separate_moves_one_of_a_pair_to_another_table():
    tables = [(1, 2, 3), (4, 5, 6)]
    out = separate(tables, {frozenset((1, 2))})
    assert sorted(e for t in out for e in t) == [1, 2, 3, 4, 5, 6]
    assert not any(clashes(t, {frozenset((1, 2))}) for t in out)


def test_separate_lets_partners_share_a_table():
    teams = ((0, 2), (1, 3))
    out = separate([(1, 2, 3, 4)], {frozenset((1, 2))}, teams=teams)
    (table,) = out
    assert {table[0], table[2]} == {1, 2} or {table[1], table[3]} == {1, 2}


def test_separate_says_why_when_no_seating_keeps_them_apart():
    with pytest.raises(CannotSeparate, match="1 and 2 may not share a table"):
        separate([(1, 2, 3)], {frozenset((1, 2))})


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(6, 14),
    k=st.integers(3, 5),
    seed=st.integers(0, 2**32),
    same=st.integers(2, 4),
)
def test_round_robin_and_swiss_never_seat_a_pair_apart(n, k, seed, same):
    if same > n // k + (n % k):
        return
    apart = {frozenset(p) for p in itertools.combinations(range(same), 2)}
    for round_ in round_robin(list(range(n)), k, seed=seed, apart=apart, steps=2000):
        assert not any(clashes(t, apart) for t in round_.tables)
        assert sorted(round_.entries()) == list(range(n))
    chosen = swiss_pair(list(range(n)), k, apart=apart)
    assert not any(clashes(t, apart) for t in chosen.tables)


def test_a_ladder_batch_never_seats_a_pair_apart():
    apart = {frozenset((0, 1)), frozenset((0, 2)), frozenset((1, 2))}
    candidates = [LadderEntry(i, mu=25.0 - i * 0.01) for i in range(9)]
    for seed in range(20):
        tables = ladder_tables(candidates, 3, seed=seed, apart=apart)
        assert tables and not any(clashes(t, apart) for t in tables)


# -- competitions ---------------------------------------------------------------------


@pytest.fixture
def people():
    users = get_user_model().objects
    return users.create_user("org", password="pw-123456"), users.create_user("ann", password="x")


def _bot(name, owner=None):
    return Bot.objects.create(name=name, builtin="random", owner=owner)


def _competition(organiser, bots, **extra):
    comp = services.competition_create(
        created_by=organiser,
        name="Club night",
        kind="tournament",
        variant="manni-basic",
        format=extra.pop("format", "round-robin"),
        games_per_match=3,
        **extra,
    )
    entries = [services.entry_create(competition=comp, bot=bot) for bot in bots]
    return comp, entries


def _play_all(comp: Competition) -> list[tuple[int, ...]]:
    tables = []
    for _ in range(200):
        match = (
            comp.matches.filter(status__in=[Match.Status.PENDING, Match.Status.QUEUED])
            .order_by("id")
            .first()
        )
        if match is None:
            break
        tables.append(tuple(match.seats.order_by("seat").values_list("entry_id", flat=True)))
        services.match_record(match=match, played=services.match_play(match=match))
    return tables


@pytest.mark.django_db
@pytest.mark.parametrize("format", ["round-robin", "double-round-robin"])
def test_two_bots_of_one_author_never_meet_in_a_competition(people, format):
    organiser, ann = people
    bots = [_bot("a1", ann), _bot("a2", ann), _bot("other-1"), _bot("other-2")]
    comp, (a1, a2, o1, o2) = _competition(organiser, bots, format=format)
    services.competition_start(competition=comp, by=organiser)
    tables = _play_all(comp)
    comp.refresh_from_db()
    assert comp.status == Competition.Status.FINISHED
    met = {frozenset(p) for t in tables for p in itertools.combinations(t, 2)}
    assert frozenset((a1.pk, a2.pk)) not in met  # the author's two bots never met
    assert frozenset((a1.pk, o1.pk)) in met and frozenset((a2.pk, o2.pk)) in met


@pytest.mark.django_db
def test_swiss_keeps_linked_owners_apart(people):
    organiser, ann = people
    bob = get_user_model().objects.create_user("bob", password="x")
    OwnerLink.objects.create(user=ann, other=bob, note="one person")
    bots = [_bot("ann-1", ann), _bot("bob-1", bob)] + [_bot(f"o{i}") for i in range(4)]
    comp, (a, b, *_) = _competition(organiser, bots, format="swiss", rounds_planned=3)
    services.competition_start(competition=comp, by=organiser)
    tables = _play_all(comp)
    assert len(tables) == 6
    assert not any(a.pk in t and b.pk in t for t in tables)


@pytest.mark.django_db
def test_a_field_that_cannot_keep_them_apart_is_refused_at_the_start(people):
    organiser, ann = people
    bots = [_bot("a1", ann), _bot("a2", ann), _bot("a3", ann), _bot("other")]
    comp, _ = _competition(organiser, bots)
    assert "ann/a1, ann/a2, ann/a3 may not share a table" in pairing.fair_play_problem(comp)
    with pytest.raises(ValidationError, match="cannot keep bots of one owner apart"):
        services.competition_start(competition=comp, by=organiser)
    comp.refresh_from_db()
    assert comp.status == Competition.Status.DRAFT


@pytest.mark.django_db
def test_a_private_competition_may_waive_the_rule_and_a_public_one_may_not(people):
    organiser, ann = people
    bots = [_bot("a1", ann), _bot("a2", ann), _bot("a3", ann)]
    with pytest.raises(ValidationError, match="only a private competition"):
        _competition(organiser, bots, same_owner_tables=True)
    comp, entries = _competition(organiser, bots, same_owner_tables=True, is_public=False)
    assert pairing.fair_play_problem(comp) is None
    services.competition_start(competition=comp, by=organiser)
    assert comp.matches.count() == 1
    with pytest.raises(ValidationError, match="stays private"):
        services.competition_update(competition=comp, by=organiser, is_public=True)


@pytest.mark.django_db
def test_built_in_bots_are_nobodys_and_may_share_tables(people):
    bots = [_bot("r1"), _bot("r2"), _bot("r3")]
    assert pairing.may_not_share_table(bots) == frozenset()


@pytest.mark.django_db
def test_may_not_share_table_follows_links_through_other_accounts(people):
    _, ann = people
    users = get_user_model().objects
    bob, cat = users.create_user("bob", password="x"), users.create_user("cat", password="x")
    OwnerLink.objects.create(user=ann, other=bob)
    OwnerLink.objects.create(user=cat, other=bob)
    a, c, d = _bot("a", ann), _bot("c", cat), _bot("d")
    assert pairing.may_not_share_table([a, c, d]) == {frozenset((a.pk, c.pk))}

"""The competition page says how sure its standings are and answers "is A better than B?"."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.browser import deliver, open_page
from tests.factories import make_competition, play_all, snapshot_of
from tournaments.selectors import standings_for_competition

pytestmark = pytest.mark.django_db


def test_the_standings_carry_the_interval_and_the_chance_to_be_above_the_next(organiser):
    competition = make_competition(organiser, entries=4, start=True)
    play_all(competition)
    rows = standings_for_competition(competition=competition)

    page = Client().get(f"/dashboard/competitions/{competition.pk}/").content.decode()

    drawn = snapshot_of(page)["standings"]
    for key in ("rating_low", "rating_high", "p_above_next"):
        assert [r[key] for r in drawn] == pytest.approx([r[key] for r in rows])
    assert drawn[-1]["p_above_next"] is None
    assert "μ 95 %" in page and "P(&gt; next)" in page  # the legend explains both


def test_the_compare_form_answers_with_the_model_and_the_head_to_head(organiser):
    competition = make_competition(organiser, entries=4, start=True)
    play_all(competition)
    a, b = competition.entries.order_by("id")[:2]
    url = f"/dashboard/competitions/{competition.pk}/"

    blank = Client().get(url).content.decode()
    page = Client().get(f"{url}?a={a.pk}&b={b.pk}").content.decode()

    assert '<form method="get" action="#compare"' in blank and 'id="compare-answer"' not in blank
    answer = re.search(r'<p id="compare-answer"><b>([^<]*)</b>', page).group(1)
    assert "probability (rating model)" in answer and "head-to-head" in answer and "p = " in answer
    assert (
        f'<option value="{a.pk}" selected>' in page and f'<option value="{b.pk}" selected>' in page
    )


def test_the_compare_form_names_the_problem_with_another_competitions_entry(organiser):
    competition = make_competition(organiser, start=True, entries=3)
    other = make_competition(organiser, name="Other night", start=True, entries=3)
    mine, theirs = competition.entries.first(), other.entries.first()

    page = (
        Client()
        .get(f"/dashboard/competitions/{competition.pk}/?a={mine.pk}&b={theirs.pk}")
        .content.decode()
    )

    assert f"entry {theirs.pk} is in competition {other.pk}, not in competition" in page
    bad = Client().get(f"/dashboard/competitions/{competition.pk}/?a=x&b=1").content.decode()
    assert "a must be an entry id, got &#x27;x&#x27;" in bad


def interval_text(row: dict) -> str:
    return f"{row['rating_low']:.1f}\N{EN DASH}{row['rating_high']:.1f}"


def chance_text(p: float | None) -> str:
    if p is None:
        return "\N{EN DASH}"
    return ">99 %" if p > 0.99 else "<1 %" if p < 0.01 else f"{round(p * 100)} %"


@pytest.mark.slow
def test_the_standings_draw_the_interval_and_the_chance_at_first_paint_and_live(live, browser):
    page = open_page(browser, live.html)
    rows = live.snapshot["standings"]

    assert page.locator("#standings td.interval").all_inner_texts() == [
        interval_text(r) for r in rows
    ]
    assert page.locator("#standings td.p-next").all_inner_texts() == [
        chance_text(r["p_above_next"]) for r in rows
    ]
    event = {
        "type": "standings.updated",
        "competition": live.competition.pk,
        "standings": rows,
        "progress": live.snapshot["progress"],
    }
    changed = [
        {**row, "p_above_next": p} for row, p in zip(rows, [0.734, 0.995, 0.004], strict=False)
    ]
    deliver(page, {**event, "standings": changed + rows[3:]})
    assert page.locator("#standings td.p-next").all_inner_texts()[:3] == ["73 %", ">99 %", "<1 %"]

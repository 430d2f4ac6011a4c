"""Every page of the site fits a 390 px phone and a 1366 px screen: no page is wider
than its window (``document.documentElement.scrollWidth > innerWidth``), for a visitor,
a new account with nothing, an author, an organiser and staff, on an empty site and on
one with something on every page (:mod:`tests.site_world`).

The pages are the URLconf's: a page added later that nobody here visits fails the test
until it is visited or set aside in :data:`NOT_VISITED` with the reason. A page too wide
is named with the width and the widest element that sticks out of the window.

Debian's chromium through Playwright, one browser and pytest-django's live server.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, resolve

from tests.browser import chromium_browser, in_thread, log_in
from tests.site_world import people, world

#: A phone and a common laptop screen.
WIDTHS = (390, 1366)

#: Routes of the URLconf that are no page to look at, each with why.
NOT_VISITED = {
    "site:logout": "a POST (the Log out button), answered with a redirect",
    "site:confirm-resend": "a POST (My bots' resend button), answered with a redirect",
    "bots-web:token-regenerate": "a POST (My bots' token form), answered with a redirect",
    "bots-web:version-upload": "a POST (the upload form), answered with a redirect",
    "bots-web:version-validate": "a POST (validate in more variants), answered with a redirect",
    "bots-web:bot-enter": "a POST (enter a competition), answered with a redirect",
    "bots-web:bot-play": "a POST (which version plays), answered with a redirect",
    "bots-web:version-test-start": "a POST (start a version test), answered with a redirect",
    "bots-web:version-test-cancel": "a POST (cancel a version test), answered with a redirect",
    "bots-web:challenge-start": "a POST (ask for a challenge), answered with a redirect",
    "bots-web:quick-game": "a POST (play a quick game), answered with a redirect",
    "bots-web:bot-challengeable": "a POST (may others challenge it), answered with a redirect",
    "bots-web:challenge-cancel": "a POST (cancel a challenge), answered with a redirect",
    "bots-web:invitation-answer": "a POST (accept or decline a team), answered with a redirect",
    "bots-web:version-status": "JSON the bot page's script polls while a version is validated",
    "bots-web:version-test-status": "JSON the bot page's script polls while a test plays",
    "bots-web:challenge-status": "JSON the challenge page's script polls while it plays",
    "dashboard:competition-download": "the standings or results as a CSV or JSON file",
    "dashboard:match-transcripts": "a zip of the owner's transcripts of a match",
    "dashboard:match-stderr": "a gzip file of a bot's whole stderr in a match",
    "organise:entry-add": "a POST (the entry form), answered with a redirect",
    "organise:entry-remove": "a POST (remove an entry), answered with a redirect",
    "organise:entry-division": "a POST (move an entry to a division), answered with a redirect",
    "organise:entry-seed": "a POST (move an entry up or down the seeding), then a redirect",
    "organise:collusion-action": "a POST (answer a flagged pair), answered with a redirect",
    "organise:match-retry": "a POST (retry a failed match), answered with a redirect",
    "organise:next-season": "a POST (make a league's next season), answered with a redirect",
    "organise:competition-action": "a POST (start, pause, close...), answered with a redirect",
    "metrics": "Prometheus' text for the monitoring, no page",
}
#: Whole branches of the URLconf set aside, by their prefix, each with why.
NOT_VISITED_BRANCHES = {
    "admin/": "Django's admin, drawn by Django's own templates and stylesheet",
    "api/": "the REST API's JSON, and its schema's docs drawn by Swagger UI and ReDoc",
}

#: The page's overflow, or null: how wide the page is, and the widest element sticking
#: out of the window (not counting those inside a box that scrolls or clips), else the
#: innermost one whose content does.
OVERFLOW = """() => {
  const width = window.innerWidth, doc = document.documentElement;
  if (doc.scrollWidth <= width) return null;
  const boxed = (el) => {
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== "visible") return true;
    }
    return false;
  };
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    [...el.classList].map((c) => "." + c).join("");
  const path = (el) => {
    const names = [];
    for (; el && el !== document.body && names.length < 5; el = el.parentElement)
      names.unshift(name(el));
    return names.join(" > ");
  };
  const all = [...document.body.querySelectorAll("*")].filter((el) => !boxed(el));
  let widest = null;
  for (const el of all) {
    const box = el.getBoundingClientRect();
    if (box.right > width && (!widest || box.width > widest.box.width)) widest = {el, box};
  }
  if (widest) {
    const {el, box} = widest;
    return {page: doc.scrollWidth, element: `${path(el)} (${Math.round(box.width)} px wide, ` +
      `its right edge at ${Math.round(box.right)} px)`};
  }
  // No box sticks out: some content does (a long word, a ::before or ::after), from
  // the innermost element whose content reaches past the window.
  const spills = all.filter((el) => el.scrollWidth > el.clientWidth &&
    el.getBoundingClientRect().left + el.scrollWidth > width);
  const inner = spills.filter((el) => !spills.some((other) => other !== el && el.contains(other)));
  const el = inner[0];
  return {page: doc.scrollWidth, element: el ? `the content of ${path(el)} (reaching ` +
    `${Math.round(el.getBoundingClientRect().left + el.scrollWidth)} px)` : "none found"};
}"""
#: Resolves once the page has painted what its scripts drew at load.
PAINTED = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


@dataclass(frozen=True)
class Visit:
    """``path`` seen by ``role`` (``visitor``: logged out), answered with ``status``."""

    role: str
    path: str
    what: str
    status: int = 200


def routes() -> dict[str, str]:
    """Every route of the URLconf outside :data:`NOT_VISITED_BRANCHES`: name -> pattern."""
    found: dict[str, str] = {}

    def walk(patterns, prefix: str, namespace: str) -> None:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                if route not in NOT_VISITED_BRANCHES:
                    inner = pattern.namespace or ""
                    spaced = ":".join(n for n in (namespace, inner) if n)
                    walk(pattern.url_patterns, route, spaced)
            elif isinstance(pattern, URLPattern):
                name = pattern.name or route
                found[f"{namespace}:{name}" if namespace else name] = route

    walk(get_resolver().url_patterns, "", "")
    return found


def answers_to_get(page, base: str, names: list[str]) -> dict[str, int]:
    """What GET answers at each route of ``names`` (ids 1, words ``start``), for the user
    of ``page``: a POST-only address says 405."""
    found = routes()
    answers = {}
    for name in names:
        path = re.sub(r"<int:\w+>", "1", re.sub(r"<str:\w+>", "start", found[name]))
        answers[name] = page.request.get(f"{base}/{path}", max_redirects=0).status
    return answers


def empty_visits(token: str) -> list[Visit]:
    """The pages of an empty site: no bot, no competition."""
    return [
        Visit("visitor", "/", "the home page of an empty site"),
        Visit("visitor", "/help/", "the help"),
        Visit("visitor", "/accounts/login/", "the login form"),
        Visit("visitor", "/accounts/signup/", "the sign-up form"),
        Visit("visitor", f"/accounts/confirm/{token}/", "a confirmation link opened"),
        Visit("visitor", "/accounts/confirm/not-a-token/", "a broken confirmation link", 400),
        Visit("visitor", "/dashboard/", "no competition yet"),
        Visit("newbie", "/", "the home page of a new account"),
        Visit("newbie", "/bots/", "my bots of an unconfirmed account with nothing"),
        Visit("newbie", "/help/", "the help with one's own allowances"),
        Visit("ada", "/bots/", "my bots, none yet"),
        Visit("orin", "/organise/", "an organiser with no competition"),
        Visit("orin", "/organise/new/", "the new competition form"),
        Visit("stan", "/organise/", "staff on an empty site"),
    ]


def full_visits(ids: dict) -> list[Visit]:
    """The pages of a site with something on every one of them."""
    competitions = ("round-robin", "knockout", "league", "league-next", "teams", "ladder")
    competitions += ("three-seat-ladder", "live", "swiss", "double-elimination")
    shown = [Visit("visitor", f"/dashboard/competitions/{ids[c]}/", c) for c in competitions]
    organised = [Visit("olga", f"/organise/{ids[c]}/", c) for c in (*competitions, "draft")]
    bots = [f"/bots/{ids[b]}/" for b in ("learner", "uploaded", "player")]
    challenges = [f"/bots/challenges/{ids[c]}/" for c in ("challenge-done", "challenge-playing")]
    return [
        Visit("visitor", "/", "the home page"),
        Visit("visitor", "/dashboard/", "the competitions"),
        *shown,
        Visit("visitor", f"/dashboard/matches/{ids['match']}/", "a match"),
        Visit("visitor", f"/dashboard/matches/{ids['failed-match']}/", "a failed match"),
        Visit(
            "visitor",
            f"/dashboard/competitions/{ids['round-robin']}/{ids['compared']}",
            "two entries compared",
        ),
        Visit("visitor", f"/dashboard/games/{ids['game']}/", "a game's replay"),
        Visit("visitor", f"/dashboard/games/{ids['game']}/?view=full", "a full view refused", 403),
        Visit("visitor", f"/dashboard/matches/{ids['live-match']}/", "a match being played"),
        Visit("visitor", f"/dashboard/matches/{ids['live-match']}/games/1/", "a live game"),
        Visit("visitor", f"/bots/{ids['player']}/", "an author's bot seen by others"),
        Visit("visitor", f"/bots/{ids['house-bot']}/", "a built-in bot"),
        Visit("ada", "/", "the home page of an author"),
        Visit("ada", "/bots/", "my bots and allowances"),
        *[Visit("ada", path, "one's own bot") for path in bots],
        Visit("ada", f"/bots/{ids['fresh']}/", "one's bot with no version yet"),
        *[Visit("ada", path, "a challenge") for path in challenges],
        Visit("ada", f"/dashboard/matches/{ids['challenge-match']}/", "a challenge's match"),
        Visit("olga", "/organise/", "an organiser's competitions"),
        Visit("olga", "/organise/new/", "the new competition form"),
        *organised,
        *[
            Visit("olga", f"/organise/{ids[c]}/collusion/", c)
            for c in ("ladder", "three-seat-ladder")
        ],
        Visit("olga", f"/dashboard/competitions/{ids['ladder']}/", "a ladder its organiser sees"),
        Visit("stan", "/", "the home page of staff"),
        Visit("stan", "/help/", "the help for staff"),
        Visit("stan", "/bots/", "my bots of staff"),
        *[Visit("stan", path, "a bot staff look at") for path in bots],
        Visit("stan", "/organise/", "every competition"),
        Visit("stan", f"/organise/{ids['round-robin']}/", "a competition staff manage"),
        Visit("stan", f"/dashboard/competitions/{ids['round-robin']}/", "staff's view"),
        Visit("stan", f"/dashboard/matches/{ids['match']}/", "a match with its logs"),
        Visit("stan", f"/dashboard/matches/{ids['failed-match']}/", "why a match failed"),
        Visit("stan", f"/organise/{ids['three-seat-ladder']}/collusion/", "staff's report"),
    ]


def too_wide(pages: dict, base: str, visits: list[Visit], shots: Path) -> list[str]:
    """Each visit at each width: what is wrong (a page too wide, an unexpected answer); a
    screenshot of each page too wide goes to ``shots``."""
    wrong = []
    for visit in visits:
        page = pages[visit.role]
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 900})
            response = page.goto(base + visit.path)
            if response.status != visit.status:
                wrong.append(f"{visit.path} ({visit.what}, {visit.role}): {response.status}")
                break
            page.evaluate(PAINTED)
            found = page.evaluate(OVERFLOW)
            if found:
                slug = "".join(c if c.isalnum() else "-" for c in visit.path).strip("-")
                shot = shots / f"{visit.role}-{slug or 'home'}-{width}.png"
                page.screenshot(path=str(shot), full_page=True)
                wrong.append(
                    f"{visit.path} ({visit.what}, as {visit.role}) is {found['page']} px wide "
                    f"at {width} px; widest element out of the window: {found['element']} "
                    f"[{shot}]"
                )
    return wrong


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_every_page_fits_a_phone_and_a_screen(live_server, settings, tmp_path):
    settings.CARDROOM_LIVE_AFTER_S = 0.0  # the live match publishes its moves at once
    settings.CARDROOM_LIVE_MOVES_S = settings.CARDROOM_LIVE_GAMES_S = 0.0
    base = live_server.url
    known = in_thread(people)
    empty = empty_visits(known["token"])
    with chromium_browser() as chromium:
        pages = {"visitor": chromium.new_page()}
        for role in ("newbie", "ada", "orin", "olga", "stan"):
            pages[role] = log_in(chromium, base, role)
        wrong = too_wide(pages, base, empty, tmp_path)
        full = full_visits(in_thread(world))
        wrong += too_wide(pages, base, full, tmp_path)
        posts = [name for name, why in NOT_VISITED.items() if why.startswith("a POST")]
        answers = answers_to_get(pages["stan"], base, posts)

    visited = {resolve(urlsplit(visit.path).path).view_name for visit in empty + full}
    unvisited = set(routes()) - visited - set(NOT_VISITED)
    assert not unvisited, f"pages no role visits here (visit them, or say why not): {unvisited}"
    assert not visited & set(NOT_VISITED), "visited, yet set aside in NOT_VISITED"
    assert answers == dict.fromkeys(posts, 405), "set aside as a POST, yet GET is answered"
    assert not wrong, "pages wider than their window:\n" + "\n".join(wrong)


def test_the_pages_are_read_from_the_urlconf():
    """A page added to the URLconf is a route here: the sweep's list cannot miss it."""
    found = routes()
    assert found["site:help"] == "help/"
    assert found["bots-web:bot-detail"] == "bots/<int:bot_id>/"
    assert found["dashboard:live-game"] == "dashboard/matches/<int:match_id>/games/<int:number>/"
    assert not [name for name in found if name.startswith("admin:")]
    assert set(NOT_VISITED) <= set(found), "a reason for a page that is gone"

"""What a validation plays, under which limits, and how its report reads.

A version is validated by a match in each variant it declares (every variant when it
declares none). Each match is the match a real competition of that variant plays, so
that a bot cannot tell a validation from a real match (docs/fair-play.md,
"Validation looks like a match"):

- **Deals** follow from a seed no bot can know (:func:`validation_seed`): an HMAC of a
  server secret and a nonce drawn afresh for each validation, never from anything the
  bot can read (its own bytes, their hash, the variant alone). Two validations of the
  same upload deal different games.
- **The table**: the built-ins a standing ladder seats as its house bots
  (:data:`OPPONENTS`), one drawn per other seat, and the bot at a seat drawn as well;
  duplicate deals, each seat rotation a fresh process of the bot, as in a new
  competition.
- **The match**: the games a match of the variant's standing ladder plays
  (:func:`match_games`), the variant's default options, the time control of a
  new competition and the wall-clock budget a real match of that many seats gives
  each player (:data:`TIME_CONTROL`, :func:`match_wall_ms`).
- **Limits**: those of a real match (``bots.sandbox.Limits``' defaults: CPU seconds,
  memory and the rest), which a bot reads from inside as it would in any match. The
  whole validation task gets the sum of its matches' wall-clock bounds
  (:func:`task_limit_s`).

Pure Python: the services (on a worker) and ``manage.py validate`` (locally) plan
and word it alike.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import games
from bots.referee import OPEN_LADDER_PACE_MS, MatchResult, Player, TimeControl, play_match
from bots.referee.seating import seat_player
from bots.sandbox import Limits

#: The built-ins the other seats are drawn from: a standing ladder's house bots
#: (``tournaments.services.ladders.HOUSE_BUILTINS``), whom a bot meets in real matches too.
OPPONENTS = ("random", "greedy")
#: The time control of a new competition (``tournaments.models.Competition``'s defaults);
#: paced as new standing ladders are (``CARDROOM_LADDER_PACE_MS``, 5 ms by default:
#: :func:`plan`), so that a bot's turns come as they do there (one uploaded bot among
#: house bots is held at neither: ``bots.referee.match.Referee.pacing``).
TIME_CONTROL = TimeControl(move_ms=2_000, bank_ms=20_000, start_ms=10_000)
#: A real match's games: the fewest whole rotations of the seats that make at least
#: this many, as a variant's standing ladder plays (``tournaments.selectors.ladders.MIN_GAMES``).
MIN_GAMES = 4
#: A validation seed keeps as many bits as a match seed
#: (``tournaments.integrity.deals.SEED_BYTES``).
SEED_BYTES = 7
#: Random bytes drawn for each validation, which its seeds follow from with the secret.
NONCE_BYTES = 16
#: How much of the bot's stderr the report keeps per variant (the end of it).
STDERR_TAIL_CHARS = 4_000
#: Room for the engine, the opponents and process start-up, per game and per match.
SLACK_PER_GAME_S = 20
SLACK_PER_MATCH_S = 30


@dataclass(frozen=True)
class VariantPlan:
    """One validation match: ``games`` games of ``variant`` (``duplicate`` deals), the
    bot at place ``player`` of the table (its seat in the first rotation), the built-ins
    ``opponents`` at the other places in order."""

    variant: str
    games: int
    seed: int
    opponents: tuple[str, ...]
    time_control: TimeControl
    limits: Limits
    player: int
    duplicate: bool

    @property
    def wall_limit_s(self) -> int:
        """The longest this match can last: the bot's start-ups (one a seat rotation) and
        decision budget, and room for the rest."""
        tc = self.time_control
        starts = games.variant_info(self.variant).players if self.duplicate else 1
        return math.ceil(
            (tc.start_ms * starts + tc.match_wall_ms) / 1000
            + SLACK_PER_GAME_S * self.games
            + SLACK_PER_MATCH_S
        )

    def describe(self) -> dict[str, Any]:
        """JSON-ready: what the report keeps of the plan."""
        tc, limits = self.time_control, self.limits
        return {
            "variant": self.variant,
            "games": self.games,
            "seed": self.seed,
            "player": self.player,
            "opponents": [f"builtin:{name}" for name in self.opponents],
            "time_control": {
                "move_ms": tc.move_ms,
                "bank_ms": tc.bank_ms,
                "start_ms": tc.start_ms,
                "match_wall_ms": tc.match_wall_ms,
            },
            "limits": {
                "cpu_seconds": limits.cpu_seconds,
                "memory_mb": limits.memory_mb,
                "wall_s": self.wall_limit_s,
            },
        }


def match_wall_ms(players: int, match_time_limit_s: int) -> int:
    """A player's wall-clock budget for its decisions in one match, as a real match
    gives it: half the match's time limit shared by the seats."""
    return match_time_limit_s * 1000 // (2 * max(1, players))


def variants_to_validate(declared: Sequence[str]) -> list[str]:
    """The variants a declaration asks for: the declared ones, or every variant."""
    return sorted(declared) if declared else list(games.variants())


def match_games(variant: str) -> int:
    """The games of a real match of ``variant``, as its standing ladder plays them: the
    fewest whole rotations of its seats that make :data:`MIN_GAMES` (every deal played
    once from each seat). Raises ``ValueError`` for an unknown variant."""
    seats = games.variant_info(variant).players
    return math.ceil(MIN_GAMES / seats) * seats


def new_nonce() -> bytes:
    """Fresh random bytes for one validation (the operating system's generator)."""
    return secrets.token_bytes(NONCE_BYTES)


def validation_seed(*, secret: bytes, nonce: bytes, variant: str) -> int:
    """The seed of a validation match of ``variant``: HMAC-SHA-256 of ``secret`` over
    the validation's ``nonce`` and the variant, cut to :data:`SEED_BYTES`. Without the
    secret nobody can compute it, even knowing the nonce; without a fresh nonce the
    same secret never deals the same games twice."""
    message = b"cardroom-validation:" + nonce.hex().encode() + b":" + variant.encode()
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:SEED_BYTES], "big")


def plans(
    variants: Sequence[str], *, secret: bytes, match_time_limit_s: int, **overrides: Any
) -> list[VariantPlan]:
    """One validation's matches, one per variant of ``variants``, seeded by
    :func:`validation_seed` from ``secret`` and one nonce drawn now (a new one at every
    call). ``overrides`` go to :func:`plan`. Raises ``ValueError`` for an unknown
    variant."""
    nonce = new_nonce()
    return [
        plan(
            name,
            seed=validation_seed(secret=secret, nonce=nonce, variant=name),
            match_time_limit_s=match_time_limit_s,
            **overrides,
        )
        for name in variants
    ]


def ladder_pace_ms() -> int:
    """The pacing quantum of new standing ladders (``CARDROOM_LADDER_PACE_MS``; 0: off)."""
    from django.conf import settings

    return int(getattr(settings, "CARDROOM_LADDER_PACE_MS", OPEN_LADDER_PACE_MS))


def plan(
    variant: str,
    *,
    seed: int,
    match_time_limit_s: int,
    games_count: int | None = None,
    time_control: TimeControl | None = None,
    limits: Limits | None = None,
) -> VariantPlan:
    """The validation match of ``variant`` dealt from ``seed`` (:func:`validation_seed`).

    The bot's place at the table and the built-in at each other place are drawn from
    the seed. The match is a real match's (:func:`match_games` duplicate games, the
    default time control and limits); ``games_count``, ``time_control`` and ``limits``
    replace them (tests), a ``games_count`` that is no multiple of the seats played
    without duplicate deals. Raises ``ValueError`` for an unknown variant.
    """
    seats = games.variant_info(variant).players
    draw = random.Random(seed)
    player = draw.randrange(seats)
    opponents = tuple(draw.choice(OPPONENTS) for _ in range(seats - 1))
    if games_count is None:
        games_count = match_games(variant)
    if time_control is None:
        time_control = replace(
            TIME_CONTROL,
            match_wall_ms=match_wall_ms(seats, match_time_limit_s),
            pace_ms=ladder_pace_ms(),
        )
    duplicate = games_count % seats == 0
    return VariantPlan(
        variant, games_count, seed, opponents, time_control, limits or Limits(), player, duplicate
    )


def task_limit_s(plans: Sequence[VariantPlan]) -> int:
    """The wall-clock limit of a whole validation: the sum of its matches' bounds."""
    return sum(p.wall_limit_s for p in plans) + SLACK_PER_MATCH_S


def play(plan: VariantPlan, bot: Player, *, options: dict[str, Any] | None = None) -> dict:
    """Play ``plan``'s match with ``bot`` at its place and say what it found: ``ok``
    (every game ended ``ok`` for the bot), ``statuses`` (the bot's, per game),
    ``reasons`` (in words, :func:`game_reason`), ``budget`` (how close it came to its
    time budgets, :func:`budget_use`), ``stderr_tail``, ``duration_s`` and ``options``.
    The opponents are seated as in any match (``bots.referee.seating.seat_player``)."""
    result = play_match(
        plan.variant,
        _table(plan, bot),
        games_count=plan.games,
        seed=plan.seed,
        options=options,
        duplicate=plan.duplicate,
        time_control=plan.time_control,
    )
    statuses = [game.statuses[game.seats.index(plan.player)] for game in result.games]
    reasons = [
        game_reason(i, status)
        for i, status in enumerate(statuses, start=1)
        if status["status"] != "ok"
    ]
    log = result.logs[plan.player] if result.logs else ""
    return {
        "options": result.options,
        "ok": bool(statuses) and not reasons,
        "statuses": statuses,
        "reasons": reasons,
        "budget": budget_use(result, plan.time_control, plan.player),
        "stderr_tail": log[-STDERR_TAIL_CHARS:],
        "duration_s": round(result.seconds, 3),
    }


def _table(plan: VariantPlan, bot: Player) -> list[Player]:
    """The players of ``plan``'s match in order: ``bot`` at its place, the built-ins at
    the others, each seeded from the match's seed and its place as in any match."""
    others = iter(plan.opponents)
    players = []
    for place in range(len(plan.opponents) + 1):
        if place == plan.player:
            players.append(bot)
            continue
        name = next(others)
        players.append(
            seat_player(builtin=name, seed=plan.seed, seat=place, name=f"builtin:{name}")
        )
    return players


def summary(findings: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """A report over the findings of each variant (:func:`play`, plus the plan's
    ``describe()``): ``ok`` (all passed), ``variant`` (the first one), ``variants``
    (the findings), and ``statuses``, ``reasons`` (each prefixed by its variant),
    ``stderr_tail`` and ``duration_s`` over them all."""
    tails = [
        f"--- {name} ---\n{found['stderr_tail']}"
        for name, found in findings.items()
        if found["stderr_tail"]
    ]
    return {
        "ok": all(found["ok"] for found in findings.values()),
        "variant": next(iter(findings)),
        "variants": findings,
        "statuses": [status for found in findings.values() for status in found["statuses"]],
        "reasons": [
            f"{name}: {reason}" for name, found in findings.items() for reason in found["reasons"]
        ],
        "stderr_tail": "\n".join(tails)[-STDERR_TAIL_CHARS:],
        "duration_s": round(sum(found["duration_s"] for found in findings.values()), 3),
    }


def validate_program(
    path: str,
    *,
    variants: Sequence[str],
    match_time_limit_s: int,
    sandboxed: bool = True,
    **overrides: Any,
) -> dict[str, Any]:
    """Validate the bot program at ``path`` (a directory or file ``ProcessPlayer.from_path``
    takes) as a worker validates an upload, and return the same report (without the
    upload's summary): what ``manage.py validate`` prints. The seeds follow from a
    secret drawn for this run alone and a fresh nonce, as unknowable as the platform's.
    Raises ``ValueError`` for an unknown variant or a path that cannot be run, and
    ``bots.sandbox.SandboxUnavailable`` when sandboxed without a sandbox."""
    planned = plans(
        variants_to_validate(variants),
        secret=secrets.token_bytes(32),
        match_time_limit_s=match_time_limit_s,
        **overrides,
    )
    findings = {}
    for each in planned:
        bot = seat_player(
            path=path, seed=each.seed, seat=each.player, limits=each.limits, sandboxed=sandboxed
        )
        findings[each.variant] = {**each.describe(), **play(each, bot)}
    return {**summary(findings), "passed": [n for n, f in findings.items() if f["ok"]]}


# --- the report, in words ------------------------------------------------------------------

#: A budget used beyond this share is reported "close to its limit".
CLOSE_SHARE = 0.8
#: The time budgets :func:`budget_use` measures, in the order the report names them.
BUDGETS = ("move", "bank", "match_wall")
#: How the warning words each budget used beyond :data:`CLOSE_SHARE`.
CLOSE_WORDS = {
    "move": "its slowest decision used {} of the move",
    "bank": "it used {} of its bank",
    "match_wall": "its decisions used {} of the match's wall-clock budget",
}


def budget_use(result: MatchResult, time_control: TimeControl, player: int) -> dict[str, Any]:
    """How close ``player`` came to each of its time budgets in ``result``, from the
    games' decision traces (``bots.referee.traces``), JSON-ready:

    - ``slowest``: its slowest decision (the most charged), ``{"game", "move",
      "charged_ms"}`` with game and move counted from 1, or None if it made none;
    - per budget, ``{"used_ms", "limit_ms", "share"}``: ``move``, the slowest
      decision's charge against ``move_ms`` (a share above 1 drew on the bank);
      ``bank``, what it drew from its bank over the match; ``match_wall``, the
      wall-clock time of its decisions against ``match_wall_ms`` (absent without one);
    - ``close``: the budgets used beyond :data:`CLOSE_SHARE`, in :data:`BUDGETS` order.
    """
    tc = time_control
    slowest, lowest_bank, wall_ms = None, tc.bank_ms, 0
    for number, game in enumerate(result.games, start=1):
        seat = game.seats.index(player)
        for trace in game.record.get("traces") or []:
            if trace["seat"] != seat:
                continue
            wall_ms += trace["wall_ms"]
            lowest_bank = min(lowest_bank, trace["bank_ms"])
            if slowest is None or trace["charged_ms"] > slowest["charged_ms"]:
                slowest = {
                    "game": number,
                    "move": trace["ply"] + 1,
                    "charged_ms": trace["charged_ms"],
                }
    used = {
        "move": (slowest["charged_ms"] if slowest else 0, tc.move_ms),
        "bank": (tc.bank_ms - lowest_bank, tc.bank_ms),
        "match_wall": (wall_ms, tc.match_wall_ms),
    }
    found: dict[str, Any] = {"slowest": slowest}
    for name, (used_ms, limit_ms) in used.items():
        if limit_ms:
            share = round(used_ms / limit_ms, 3)
            found[name] = {"used_ms": used_ms, "limit_ms": limit_ms, "share": share}
    found["close"] = [n for n in BUDGETS if n in found and found[n]["share"] > CLOSE_SHARE]
    return found


def report_lines(report: dict[str, Any]) -> list[str]:
    """A validation report (``BotVersion.validation_report``) in words, one line each:
    the outcome per variant, then the limits it played under. The site and
    ``manage.py validate`` show these lines."""
    variants = report.get("variants")
    if not isinstance(variants, dict) or not variants:
        reasons = report.get("reasons") or []
        if report.get("ok"):
            return ["Passed."]
        return [f"Failed: {reason}" for reason in reasons] or ["Not validated yet."]
    lines = []
    for name, found in variants.items():
        lines += [_variant_line(name, found), *_budget_lines(name, found.get("budget"))]
    limits = _limits_line(next(iter(variants.values())))
    return [*lines, limits] if limits else lines


def report_warnings(report: dict[str, Any]) -> list[str]:
    """The lines of :func:`report_lines` that warn of a budget used beyond
    :data:`CLOSE_SHARE` ("close to its limit"), for a page to set apart."""
    variants = report.get("variants")
    if not isinstance(variants, dict):
        return []
    return [
        line
        for name, found in variants.items()
        for line in _budget_lines(name, found.get("budget"))[1:]
    ]


def _variant_line(name: str, found: dict[str, Any]) -> str:
    opponents = ", ".join(o.removeprefix("builtin:") for o in found.get("opponents") or [])
    games_count = found.get("games", 0)
    played = f"{games_count} game{'s' if games_count != 1 else ''} against {opponents}"
    seconds = f"{found.get('duration_s', 0):.1f} s"
    limits, tc = found.get("limits"), found.get("time_control")
    if isinstance(limits, dict) and isinstance(tc, dict):
        played += (
            f"; limits {limits['cpu_seconds']} CPU seconds, {tc['match_wall_ms'] / 1000:g} s of "
            f"wall clock for its decisions, {limits['wall_s']} s for the match"
        )
    if found.get("ok"):
        return f"{name}: passed ({played}; took {seconds})."
    reasons = "; ".join(found.get("reasons") or ["it did not finish"])
    return f"{name}: failed: {reasons} ({played}; took {seconds})."


def _budget_lines(name: str, budget: Any) -> list[str]:
    """How close the bot came to its time budgets in a variant (:func:`budget_use`), then
    a warning naming each it used beyond :data:`CLOSE_SHARE`; nothing for a report
    without them (older ones, a bot that made no decision)."""
    if not isinstance(budget, dict) or not budget.get("slowest"):
        return []
    slowest, parts = budget["slowest"], []
    if "move" in budget:
        parts.append(
            f"slowest decision {slowest['charged_ms']:,} ms (game {slowest['game']}, move "
            f"{slowest['move']}), {_percent(budget['move'])} of the "
            f"{budget['move']['limit_ms']:,} ms move"
        )
    if "bank" in budget:
        bank = budget["bank"]
        parts.append(f"bank {bank['used_ms']:,} of {bank['limit_ms']:,} ms used ({_percent(bank)})")
    if "match_wall" in budget:
        wall = budget["match_wall"]
        parts.append(
            f"decisions {wall['used_ms'] / 1000:.1f} s of its {wall['limit_ms'] / 1000:g} s of "
            f"wall clock ({_percent(wall)})"
        )
    lines = [f"{name}: {'; '.join(parts)}."]
    close = [n for n in BUDGETS if n in (budget.get("close") or []) and n in budget]
    if close:
        said = [CLOSE_WORDS[n].format(_percent(budget[n])) for n in close]
        lines.append(f"{name}: close to its limit: {', '.join(said)}.")
    return lines


def _percent(used: dict[str, Any]) -> str:
    return f"{used['share'] * 100:.0f} %"


def _limits_line(found: dict[str, Any]) -> str:
    tc, limits = found.get("time_control"), found.get("limits")
    if not isinstance(tc, dict) or not isinstance(limits, dict):
        return ""
    return (
        f"Time control: {tc['move_ms']:,} ms a move and a bank of {tc['bank_ms']:,} ms for the "
        f"match, {tc['start_ms'] / 1000:g} s to start; memory: {limits['memory_mb']} MiB."
    )


def game_reason(index: int, status: dict[str, Any]) -> str:
    """One game's fault in words: ``game 1: killed: over its CPU limit of 460 CPU
    seconds`` for a bot a limit killed, ``game 2: timeout: no answer ...`` otherwise."""
    reason = str(status.get("reason") or "")
    if reason.startswith("killed:") or status.get("status") == "memory":
        return f"game {index}: {reason}"
    return f"game {index}: {status.get('status')}: {reason}"

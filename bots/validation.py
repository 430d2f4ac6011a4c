"""What a validation plays, under which limits, and how its report reads.

A version is validated by a short match in each variant it declares (every variant
when it declares none). Each match is one a real competition could hold: the time
control of a new competition, the built-in players as opponents, the wall-clock
budget a real match of that many seats gives each player; so a bot cannot tell a
validation from a real match. The limits follow from that time control:

- **CPU seconds** (``Limits.cpu_seconds``): the most a bot could be charged in the
  match, its start-up plus its whole wall-clock budget for decisions, on its share of
  cores; a bot that uses them up is killed ("killed: over its CPU limit of ...").
- **Memory** and the other limits: those of a real match (``bots.sandbox.Limits``).
- **Wall clock**: each decision's ceiling and the match's budget of the time control
  (``bots.referee.TimeControl``); the whole validation task gets the sum of its
  matches' bounds (:func:`task_limit_s`).

Pure Python: the services (on a worker) and ``manage.py validate`` (locally) plan
and word it alike.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import games
from bots.referee import Player, TimeControl, play_match
from bots.referee.seating import seat_player
from bots.sandbox import Limits

#: Games per variant.
GAMES = 2
#: The opponents are drawn from these built-ins (one per other seat).
OPPONENTS = ("random", "greedy")
#: The time control of a new competition (``tournaments.models.Competition``'s defaults).
TIME_CONTROL = TimeControl(move_ms=2_000, bank_ms=20_000, start_ms=10_000)
#: How much of the bot's stderr the report keeps per variant (the end of it).
STDERR_TAIL_CHARS = 4_000
#: Room for the engine, the opponents and process start-up, per game and per match.
SLACK_PER_GAME_S = 20
SLACK_PER_MATCH_S = 30


@dataclass(frozen=True)
class VariantPlan:
    """One validation match: ``games`` games of ``variant``, the bot at seat 0."""

    variant: str
    games: int
    seed: int
    opponents: tuple[str, ...]
    time_control: TimeControl
    limits: Limits

    @property
    def wall_limit_s(self) -> int:
        """The longest this match can last: the bot's start-up and decision budget, and
        room for the rest."""
        tc = self.time_control
        return math.ceil(
            (tc.start_ms + tc.match_wall_ms) / 1000
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


def plan(
    variant: str,
    *,
    sha256: str,
    match_time_limit_s: int,
    games_count: int = GAMES,
    time_control: TimeControl | None = None,
    limits: Limits | None = None,
) -> VariantPlan:
    """The validation match of ``variant`` for the upload of hash ``sha256``.

    The seed and the opponents derive from the hash and the variant (the same upload
    meets the same deals). ``time_control`` and ``limits`` replace the derived ones
    (tests). Raises ``ValueError`` for an unknown variant.
    """
    seats = games.variant_info(variant).players
    seed = _seed(sha256, variant)
    opponents = tuple(OPPONENTS[(seed >> i) % len(OPPONENTS)] for i in range(1, seats))
    if time_control is None:
        time_control = replace(TIME_CONTROL, match_wall_ms=match_wall_ms(seats, match_time_limit_s))
    if limits is None:
        limits = cpu_limits(time_control)
    return VariantPlan(variant, games_count, seed, opponents, time_control, limits)


def cpu_limits(time_control: TimeControl, base: Limits | None = None) -> Limits:
    """``base`` with the CPU seconds a bot may use under ``time_control``: its start-up
    plus its wall-clock budget for the match (or, without one, a full bank and a
    hundred moves), at its ``cpu_cores``."""
    tc, base = time_control, base or Limits()
    budget_ms = tc.match_wall_ms or tc.bank_ms + 100 * tc.move_ms
    seconds = math.ceil((tc.start_ms + budget_ms) / 1000 * base.cpu_cores)
    return replace(base, cpu_seconds=max(1, seconds))


def task_limit_s(plans: Sequence[VariantPlan]) -> int:
    """The wall-clock limit of a whole validation: the sum of its matches' bounds."""
    return sum(p.wall_limit_s for p in plans) + SLACK_PER_MATCH_S


def play(plan: VariantPlan, bot: Player, *, options: dict[str, Any] | None = None) -> dict:
    """Play ``plan``'s match with ``bot`` at seat 0 and say what it found: ``ok`` (every
    game ended ``ok`` for the bot), ``statuses`` (the bot's, per game), ``reasons`` (in
    words, :func:`game_reason`), ``stderr_tail``, ``duration_s`` and ``options``. The
    opponents are seated as in any match (``bots.referee.seating.seat_player``)."""
    others = [
        seat_player(builtin=name, seed=plan.seed, seat=seat, name=f"builtin:{name}")
        for seat, name in enumerate(plan.opponents, start=1)
    ]
    result = play_match(
        plan.variant,
        [bot, *others],
        games_count=plan.games,
        seed=plan.seed,
        options=options,
        time_control=plan.time_control,
    )
    statuses = [game.statuses[game.seats.index(0)] for game in result.games]
    reasons = [
        game_reason(i, status)
        for i, status in enumerate(statuses, start=1)
        if status["status"] != "ok"
    ]
    return {
        "options": result.options,
        "ok": bool(statuses) and not reasons,
        "statuses": statuses,
        "reasons": reasons,
        "stderr_tail": result.logs[0][-STDERR_TAIL_CHARS:] if result.logs else "",
        "duration_s": round(result.seconds, 3),
    }


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
    upload's summary): what ``manage.py validate`` prints. The seeds derive from the
    hash of the files under ``path``. Raises ``ValueError`` for an unknown variant or a
    path that cannot be run, and ``bots.sandbox.SandboxUnavailable`` when sandboxed
    without a sandbox."""
    digest = _tree_hash(path)
    plans = [
        plan(name, sha256=digest, match_time_limit_s=match_time_limit_s, **overrides)
        for name in variants_to_validate(variants)
    ]
    findings = {}
    for each in plans:
        bot = seat_player(
            path=path, seed=each.seed, seat=0, limits=each.limits, sandboxed=sandboxed
        )
        findings[each.variant] = {**each.describe(), **play(each, bot)}
    return {**summary(findings), "passed": [n for n, f in findings.items() if f["ok"]]}


def _tree_hash(path: str) -> str:
    root = Path(path)
    digest = hashlib.sha256()
    files = sorted(root.rglob("*")) if root.is_dir() else [root]
    for file in files:
        if file.is_file():
            digest.update(str(file.relative_to(root) if root.is_dir() else file.name).encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()


def _seed(sha256: str, variant: str) -> int:
    digest = hashlib.sha256(f"cardroom-validation:{sha256}:{variant}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


# --- the report, in words ------------------------------------------------------------------


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
    lines = [_variant_line(name, found) for name, found in variants.items()]
    limits = _limits_line(next(iter(variants.values())))
    return [*lines, limits] if limits else lines


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

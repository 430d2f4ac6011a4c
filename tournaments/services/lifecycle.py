"""A competition's life: start, pause, resume, close, a failed match played again, and
a challenge closed once none of its matches is open."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from tournaments import pairing
from tournaments.live import events
from tournaments.models import Challenge, Competition, Match, Round
from tournaments.permissions import require_manager
from tournaments.selectors import entries_without_games
from tournaments.services.leagues import league_divisions_at_start
from tournaments.services.notify import notify_on_commit
from tournaments.services.queue import Sender, matches_enqueue, send_match_tasks
from tournaments.services.rounds import RoundClosing, close_round, pair_next

Format = Competition.Format


@transaction.atomic
def competition_start(
    *, competition: Competition, by=None, send: Sender | None = send_match_tasks
) -> list[Match]:
    """Draft to running, and the first matches paired and queued: their tasks go out
    (``send``) when the start commits. With ``send=None`` they stay pending, for a
    caller that plays them itself. Raises if it cannot start."""
    competition = Competition.objects.select_for_update().get(pk=competition.pk)
    require_manager(competition, by)
    if competition.status != Competition.Status.DRAFT:
        raise ValidationError(f"the competition is {competition.status}, not a draft")
    entries = list(
        competition.entries.filter(withdrawn=False).select_related("bot__owner", "partner__owner")
    )
    if competition.fixed_teams and len(entries) < len(pairing.seat_teams(competition)):
        raise ValidationError(
            f"{competition.variant} with fixed teams needs at least "
            f"{len(pairing.seat_teams(competition))} teams, got {len(entries)}"
        )
    if not competition.fixed_teams and len(entries) < competition.seats_per_table:
        raise ValidationError(
            f"{competition.variant} needs at least "
            f"{competition.seats_per_table} entries, got {len(entries)}"
        )
    invited = [e.name for e in entries if e.partner_pending]
    if invited:
        raise ValidationError(
            f"teams waiting for their partner's owner to accept: {', '.join(invited)} (they "
            "play once accepted; or remove them)"
        )
    if competition.format != Format.LADDER:  # a ladder pairs an entry once it can play
        waiting = competition.entries.filter(withdrawn=False).exclude(
            pairing.playable(competition.variant)
        )
        names = [entry.name for entry in waiting.select_related("bot__owner", "partner__owner")]
        if names:
            raise ValidationError(
                f"no ready version to play yet: {', '.join(names)} (wait for the validation"
                " of their upload, or withdraw them)"
            )
    if competition.kind == Competition.Kind.LEAGUE_SEASON:
        league_divisions_at_start(competition)
    problem = pairing.fair_play_problem(competition)
    if problem:
        raise ValidationError(f"cannot keep bots of one owner apart: {problem}")
    competition.status = Competition.Status.RUNNING
    competition.save(update_fields=["status"])
    try:
        matches = pair_next(competition)
    except ValueError as exc:  # e.g. a bracket these entries cannot fill
        raise ValidationError(f"cannot pair the first round: {exc}") from None
    notify_on_commit(competition.pk, events.COMPETITION_STARTED)
    if send is not None:
        matches_enqueue(competition=competition, send=send)
    return matches


def challenge_close_if_settled(*, competition_id: int) -> bool:
    """Mark the challenge of ``competition_id`` done, and its hidden competition finished,
    once none of its matches waits or plays any more (each is done or failed); True if
    this call closed it. A no-op for other competitions and for a challenge already over
    (done or cancelled). Called after a challenge's match is recorded or failed, and by
    the reaper."""
    with transaction.atomic():
        challenge = (
            Challenge.objects.select_for_update()
            .filter(competition_id=competition_id, status=Challenge.Status.RUNNING)
            .first()
        )
        if challenge is None:
            return False
        open_ = (Match.Status.PENDING, Match.Status.QUEUED, Match.Status.RUNNING)
        if Match.objects.filter(competition_id=competition_id, status__in=open_).exists():
            return False
        now = timezone.now()
        challenge.status, challenge.finished_at = Challenge.Status.DONE, now
        challenge.save(update_fields=["status", "finished_at"])
        Competition.objects.filter(pk=competition_id).update(status=Competition.Status.FINISHED)
        notify_on_commit(competition_id, events.COMPETITION_FINISHED)
    return True


@transaction.atomic
def competition_close(
    *, competition: Competition, by=None, apply_promotion: bool | None = None
) -> Competition:
    """End a competition now (a ladder or a cancelled event); pending matches are dropped.

    A league season closed before its schedule ended needs ``apply_promotion``: whether
    its standings so far move entries up and down into the next season (False: nobody
    moves, ``Competition.promotion_applies``). Left out there, a ``ValidationError``
    naming ``apply_promotion`` and the entries that have played no game; given for any
    other kind, one naming it too."""
    competition = Competition.objects.select_for_update().get(pk=competition.pk)
    require_manager(competition, by)
    if competition.status in (Competition.Status.FINISHED, Competition.Status.CANCELLED):
        raise ValidationError(f"the competition is already {competition.status}")
    in_play = competition.status in (Competition.Status.RUNNING, Competition.Status.PAUSED)
    _check_apply_promotion(competition, apply_promotion, in_play)
    competition.matches.filter(status__in=[Match.Status.PENDING, Match.Status.QUEUED]).delete()
    competition.status = Competition.Status.FINISHED if in_play else Competition.Status.CANCELLED
    finished = competition.status == Competition.Status.FINISHED
    # A tournament closed before its schedule ended; a ladder's close is its end.
    competition.closed_early = finished and competition.format != Format.LADDER
    fields = ["status", "closed_early"]
    if finished and competition.kind == Competition.Kind.LEAGUE_SEASON:
        competition.promotion_applies = bool(apply_promotion)
        fields.append("promotion_applies")
    competition.save(update_fields=fields)
    notify_on_commit(
        competition.pk, events.COMPETITION_FINISHED if finished else events.COMPETITION_STATUS
    )
    return competition


def _check_apply_promotion(
    competition: Competition, apply_promotion: bool | None, in_play: bool
) -> None:
    """``apply_promotion`` must be given to close a league season in play, and only there
    (a draft's close cancels it: nothing to apply)."""
    if competition.kind != Competition.Kind.LEAGUE_SEASON:
        if apply_promotion is not None:
            raise ValidationError(
                {"apply_promotion": "promotion and relegation are for league seasons"}
            )
        return
    if not in_play or apply_promotion is not None:
        return
    unplayed = entries_without_games(competition=competition)
    idle = f"; no game played yet by {', '.join(unplayed)}" if unplayed else ""
    raise ValidationError(
        {
            "apply_promotion": f"{competition.name} has not finished: say whether its "
            f"standings so far promote and relegate into the next season (apply_promotion "
            f"true or false){idle}"
        }
    )


@transaction.atomic
def match_retry(*, match: Match, by=None, send: Sender | None = send_match_tasks) -> Match:
    """Give a failed match another go: pending again, with its attempts and error
    cleared, and queued as after a start if its competition runs (``send``; None leaves
    it pending).

    A failed match holds up its round (a ladder's batch excepted), so this is how an
    organiser lets a round robin, Swiss or knockout go on once the cause is mended (a
    bot with a ready version again, a platform fault gone); its round, which waited
    for it, closes once it is recorded. Raises ``ValidationError`` unless the match
    failed and its competition is a running or paused tournament (a ladder's next
    batches never wait for a failed match), ``PermissionDenied`` for a non-organiser.
    """
    match = Match.objects.select_for_update().select_related("competition").get(pk=match.pk)
    require_manager(match.competition, by)
    if match.status != Match.Status.FAILED:
        raise ValidationError(
            f"only a failed match can be played again; this one is {match.status}"
        )
    live = (Competition.Status.RUNNING, Competition.Status.PAUSED)
    if match.competition.status not in live:
        raise ValidationError(f"the competition is {match.competition.status}")
    if match.competition.format == Format.LADDER:
        raise ValidationError("a ladder plays on without its failed matches: nothing waits")
    match.status, match.attempts, match.error = Match.Status.PENDING, 0, ""
    match.claimed_by, match.lease_until, match.finished_at = "", None, None
    match.save(
        update_fields=["status", "attempts", "error", "claimed_by", "lease_until", "finished_at"]
    )
    notify_on_commit(match.competition_id, events.QUEUE_CHANGED)
    if send is not None:  # a paused competition's matches wait (matches_enqueue)
        matches_enqueue(competition=match.competition, send=send)
    return match


@transaction.atomic
def competition_pause(*, competition: Competition, by=None) -> Competition:
    """Running to paused; its queued matches go back to pending.

    A paused competition queues nothing: the reaper and
    ``services.queue.matches_enqueue`` take only running competitions' matches, a
    ladder schedules no batch, and a worker that receives a task of a paused
    competition's match does not claim it (``execution.match_claim``). Matches
    already being played finish and count. Raises ``ValidationError`` unless it
    is running, ``PermissionDenied`` for a non-organiser.
    """
    locked = Competition.objects.select_for_update().get(pk=competition.pk)
    require_manager(locked, by)
    if locked.status != Competition.Status.RUNNING:
        raise ValidationError(
            f"only a running competition can be paused; this one is {locked.status}"
        )
    locked.matches.filter(status=Match.Status.QUEUED).update(
        status=Match.Status.PENDING, lease_until=None, claimed_by=""
    )
    locked.status = Competition.Status.PAUSED
    locked.save(update_fields=["status"])
    competition.status = locked.status
    notify_on_commit(locked.pk, events.COMPETITION_STATUS)
    return locked


@transaction.atomic
def competition_resume(
    *, competition: Competition, by=None, send: Sender | None = send_match_tasks
) -> Competition:
    """Paused to running, and its pending matches queued as after a start (``send``;
    None leaves them pending). Raises ``ValidationError`` unless it is paused,
    ``PermissionDenied`` for a non-organiser.

    A round whose last result came in while the competition was paused was closed
    then, but its closing paired nothing (a paused competition pairs nothing): with
    no round running any more, resuming pairs the next round, or finishes the
    competition if there is none, as that closing would have."""
    locked = Competition.objects.select_for_update().get(pk=competition.pk)
    require_manager(locked, by)
    if locked.status != Competition.Status.PAUSED:
        raise ValidationError(
            f"only a paused competition can be resumed; this one is {locked.status}"
        )
    locked.status = Competition.Status.RUNNING
    locked.save(update_fields=["status"])
    competition.status = locked.status
    notify_on_commit(locked.pk, events.COMPETITION_STATUS)
    last = locked.rounds.order_by("-number").values_list("number", "status").first()
    if (
        last is not None
        and last[1] == Round.Status.FINISHED
        and not locked.rounds.filter(status=Round.Status.RUNNING).exists()
    ):
        closing = RoundClosing(last[0])
        close_round(locked, closing)
        if closing.competition_finished:
            competition.status = locked.status = Competition.Status.FINISHED
            notify_on_commit(locked.pk, events.COMPETITION_FINISHED, round_=last[0])
    if send is not None:
        matches_enqueue(competition=locked, send=send)
    return locked

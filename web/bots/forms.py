"""The forms of the bot authors' pages; the services check what the forms pass on."""

from __future__ import annotations

import json

from django import forms
from django.core.exceptions import ValidationError

import games
from bots import builtin
from bots.archive import DEFAULT_LIMITS
from bots.models import Bot, BotVersion
from bots.selectors import variants_passed
from tournaments.models import Competition
from tournaments.selectors import visibility
from tournaments.selectors.ladders import variants_in_ladder_order
from tournaments.services import challenge_requests, version_tests


class BotCreateForm(forms.Form):
    name = forms.CharField(
        max_length=64,
        help_text="Unique among your bots: letters, digits, hyphens and underscores.",
    )
    description = forms.CharField(
        required=False, max_length=4000, widget=forms.Textarea(attrs={"rows": 3})
    )


class VersionUploadForm(forms.Form):
    file = forms.FileField(
        allow_empty_file=False,
        help_text="One source file (bot.py, bot.js, an executable) or a zip/tar archive "
        f"with its entry point; at most {DEFAULT_LIMITS.max_upload_bytes // 2**20} MiB.",
    )

    variants = forms.MultipleChoiceField(
        required=False,
        choices=[(name, name) for name in games.variants()],
        widget=forms.CheckboxSelectMultiple,
        label="Variants it plays",
        help_text="It is validated in each and enters only competitions of those it passes. "
        'None ticked: the "variants" of its bot.json, else every variant.',
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        limit = DEFAULT_LIMITS.max_upload_bytes
        if upload.size > limit:
            raise ValidationError(f"The file is {upload.size} bytes; at most {limit} are accepted.")
        return upload


class VersionValidateForm(forms.Form):
    """Validate a ready version in more variants."""

    variants = forms.MultipleChoiceField(
        choices=[], widget=forms.CheckboxSelectMultiple, label="Validate it in"
    )

    def __init__(self, *args, missing: list[str], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["variants"].choices = [(name, name) for name in missing]


class PlayForm(forms.Form):
    """Which version plays: the newest ready one or a pinned one, and whether it plays."""

    pinned_version = forms.TypedChoiceField(
        coerce=int, empty_value=None, required=False, label="Version that plays"
    )
    active = forms.BooleanField(
        required=False, label="Active (unticked: its entries are skipped, not forfeited)"
    )

    def __init__(self, *args, bot, **kwargs) -> None:
        """Offers every version of ``bot`` (the service refuses one not ready, in words)."""
        kwargs.setdefault(
            "initial",
            {
                "pinned_version": bot.pinned_version.number if bot.pinned_version else "",
                "active": bot.active,
            },
        )
        super().__init__(*args, **kwargs)
        numbers = bot.versions.order_by("-number").values_list("number", "status")
        self.fields["pinned_version"].choices = [
            ("", "the newest ready version"),
            *((n, f"version {n} ({status})") for n, status in numbers),
        ]


class EntryForm(forms.Form):
    """Enter a bot into one of the competitions still taking entries; into one of fixed
    teams, with a partner (a bot of the user's, or another member's, who is invited)."""

    competition = forms.ModelChoiceField(queryset=Competition.objects.none())
    partner = forms.CharField(
        required=False,
        max_length=200,
        label="Partner (fixed teams)",
        help_text="Competitions of fixed teams: the team's second bot, as its pages name it "
        "(owner/name, e.g. bob/ace; one of yours by its name alone). Another member's bot "
        "is invited: the team plays once its owner accepts. Empty: this bot plays both "
        "seats of its side.",
    )

    def __init__(self, *args, competitions, offered=None, user=None, **kwargs) -> None:
        """``competitions`` are those it accepts, ``offered`` (default: the same) those
        it lists: one accepted but not listed gets the service's error, in words;
        ``user`` (the one entering) names their own partner bots by name alone."""
        super().__init__(*args, **kwargs)
        self.user = user
        field = self.fields["competition"]
        field.queryset = competitions
        field.label_from_instance = _competition_label
        if offered is not None:
            listed = [(c.pk, _competition_label(c)) for c in offered]
            field.widget.choices = [("", field.empty_label), *listed]

    def clean_partner(self) -> Bot | None:
        """The bot named ``owner/name`` (or a built-in's ``name``; the user's own bot by
        its name alone), else an error naming what was typed."""
        text = self.cleaned_data["partner"].strip()
        if not text:
            return None
        owner, _, name = text.rpartition("/")
        bots = Bot.objects.select_related("owner")
        if owner:
            found = bots.filter(owner__username=owner, name=name).first()
        else:
            found = bots.filter(owner=self.user, name=name).first() if self.user else None
            found = found or bots.filter(owner__isnull=True, name=name).first()
        if found is None:
            raise ValidationError(f"no bot named {text}: give it as owner/name, e.g. bob/ace")
        return found


def _competition_label(competition: Competition) -> str:
    kind = competition.get_kind_display().lower()
    return f"{competition.name} ({kind}, {competition.variant})"


class VersionTestForm(forms.Form):
    """Is a new version better than an old one? The parameters of a version test
    (``tournaments.services.version_tests.version_test_create``, which checks them all: a version
    or variant typed in by hand gets its refusal in words, not the form's)."""

    new = forms.IntegerField(label="New version", widget=forms.Select)
    old = forms.IntegerField(label="Old version", widget=forms.Select)
    variant = forms.CharField(max_length=40, widget=forms.Select)
    elo1 = forms.FloatField(
        label="Better by at least (elo1, Elo)",
        help_text='"Better": the new version wins as if rated this many Elo above the old.',
    )
    elo0 = forms.FloatField(
        label="Or no better than (elo0, Elo)",
        help_text='"No better": it wins as if rated at most this many Elo above the old.',
    )
    alpha = forms.FloatField(
        label="Chance of a wrong \u201cbetter\u201d (alpha)",
        help_text="How often it may say better when the new version is only elo0 better.",
    )
    beta = forms.FloatField(
        label="Chance of a wrong \u201cno better\u201d (beta)",
        help_text="How often it may say no better when the new version is elo1 better.",
    )
    max_games = forms.IntegerField(
        label="At most this many games",
        help_text="Undecided by then, it stops without an answer.",
    )

    def __init__(self, *args, bot, **kwargs) -> None:
        """Offers the ready versions of ``bot``, newest first (the newest against the one
        before it by default), and the variants at least two of them passed."""
        ready = list(
            bot.versions.filter(status=BotVersion.Status.READY)
            .order_by("-number")
            .prefetch_related("passes")
        )
        passed = {v.number: set(variants_passed(version=v)) for v in ready}
        self.ready = len(ready)
        new = ready[0].number if ready else None
        old = ready[1].number if len(ready) > 1 else None
        both = passed.get(new, set()) & passed.get(old, set())
        offered = [(name, [n for n in passed if name in passed[n]]) for name in games.variants()]
        offered = [(name, numbers) for name, numbers in offered if len(numbers) > 1]
        initial = {
            **version_tests.defaults(),
            "new": new,
            "old": old,
            "variant": next((name for name, _ in offered if name in both), ""),
        }
        kwargs.setdefault("initial", initial)
        super().__init__(*args, **kwargs)
        versions = [(v.number, f"v{v.number} ({v.created_at:%Y-%m-%d})") for v in ready]
        self.fields["new"].widget.choices = versions
        self.fields["old"].widget.choices = versions
        self.fields["variant"].widget.choices = [
            (name, f"{name} (passed by {', '.join(f'v{n}' for n in numbers)})")
            for name, numbers in offered
        ]


#: The most opponents a challenge form offers (the largest table seats five).
CHALLENGE_OPPONENTS = 4


class ChallengeForm(forms.Form):
    """Ask for unrated games of one of the bot's ready versions against chosen bots
    (``tournaments.services.challenges.challenge_create``, which checks the table, the variant and
    the allowances: its refusals are shown in words)."""

    version = forms.TypedChoiceField(coerce=int, label="Version that plays")
    variant = forms.ChoiceField(
        choices=[],
        error_messages={
            "invalid_choice": "%(value)s is not a variant a ready version of this bot passed"
        },
    )
    games = forms.IntegerField(
        min_value=1,
        max_value=challenge_requests.GAMES_MAX,
        initial=12,
        error_messages={
            "min_value": challenge_requests.GAMES_CAP_WORDS,
            "max_value": challenge_requests.GAMES_CAP_WORDS,
        },
        help_text=f"From 1 to {challenge_requests.GAMES_MAX:,} games a challenge; "
        "duplicate games: a multiple of the seats. Counted against your challenge games a day.",
    )
    duplicate = forms.BooleanField(
        required=False, initial=True, label="Duplicate (each deal once per seat rotation)"
    )
    options = forms.CharField(
        required=False,
        max_length=400,
        label="Options",
        help_text="The variant's options as name=value, comma-separated (e.g. "
        "money.jokers=true); empty: its defaults.",
    )

    def __init__(self, *args, bot, user, **kwargs) -> None:
        """Offers the bot's ready versions, newest first, the variants they passed (the
        usual game of each family first) and as opponents the built-ins, the ready
        versions of ``user``'s bots and the bots ``user`` may challenge. It starts from the
        newest version in the first variant it passed, a built-in greedy in each other
        seat."""
        super().__init__(*args, **kwargs)
        ready = list(
            bot.versions.filter(status=BotVersion.Status.READY)
            .order_by("-number")
            .prefetch_related("passes")
        )
        self.ready = len(ready)
        self.fields["version"].choices = [(v.number, f"v{v.number}") for v in ready]
        passed = {v.number: set(variants_passed(version=v)) for v in ready}
        offered = [
            (name, [n for n in passed if name in passed[n]]) for name in variants_in_ladder_order()
        ]
        offered = [(name, numbers) for name, numbers in offered if numbers]
        self.fields["variant"].choices = [
            (
                name,
                f"{name} ({games.variant_info(name).players} seats; passed by "
                f"{', '.join(f'v{n}' for n in numbers)})",
            )
            for name, numbers in offered
        ]
        #: Each variant's seats, for the page's script that names an opponent per other seat.
        self.seats_json = json.dumps(
            {name: games.variant_info(name).players for name, _ in offered}
        )
        newest = passed[ready[0].number] if ready else set()
        variant = next((name for name, _ in offered if name in newest), None)
        offered = [("", "(no one: the variant seats fewer)")]
        offered += [
            (f"builtin:{name}", f"built-in {name}")
            for name in [*builtin.names(), *builtin.strengths()]
        ]
        for other in visibility.challengeable_bots(user=user).order_by("name", "id")[:200]:
            if other.owner_id == user.pk:
                numbers = other.versions.filter(status=BotVersion.Status.READY)
                offered += [
                    (f"bot:{other.pk}@{v.number}", f"{other.name} v{v.number} (yours)")
                    for v in numbers.order_by("-number")
                ]
            else:
                offered.append((f"bot:{other.pk}", f"{other} (the version it plays)"))
        for index in range(1, CHALLENGE_OPPONENTS + 1):
            self.fields[f"opponent_{index}"] = forms.ChoiceField(
                choices=offered, required=index == 1, label=f"Opponent {index}"
            )
        if "initial" not in kwargs and variant is not None:
            self.initial.setdefault("version", ready[0].number)
            self.initial.setdefault("variant", variant)
            for index in range(1, games.variant_info(variant).players):
                self.initial.setdefault(f"opponent_{index}", "builtin:greedy")

    def clean_options(self) -> dict[str, str]:
        pairs = [part.strip() for part in self.cleaned_data["options"].split(",") if part.strip()]
        options = {}
        for pair in pairs:
            name, sep, value = pair.partition("=")
            if not sep or not name.strip():
                raise ValidationError(f"{pair!r} is not name=value")
            options[name.strip()] = value.strip()
        return options

    def clean(self) -> dict:
        data = super().clean()
        data["opponents"] = [
            data.pop(f"opponent_{index}")
            for index in range(1, CHALLENGE_OPPONENTS + 1)
            if data.get(f"opponent_{index}")
        ]
        for index in range(1, CHALLENGE_OPPONENTS + 1):
            data.pop(f"opponent_{index}", None)
        return data


class QuickGameForm(forms.Form):
    """One unrated game of the version the bot plays against a built-in in every other seat
    (``tournaments.services.challenges.challenge_create`` with ``games=1``), played now."""

    variant = forms.ChoiceField(choices=[])
    opponent = forms.ChoiceField(
        choices=[], initial="greedy", help_text="The built-in in every other seat."
    )

    def __init__(self, *args, bot, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        version = bot.versions.filter(status=BotVersion.Status.READY).order_by("-number").first()
        passed = variants_passed(version=version) if version is not None else []
        self.ready = version is not None
        order = variants_in_ladder_order()
        self.fields["variant"].choices = [(name, name) for name in order if name in passed] or [
            (name, name) for name in order
        ]
        self.fields["opponent"].choices = [
            (name, f"built-in {name}") for name in [*builtin.names(), *builtin.strengths()]
        ]

    def clean(self) -> dict:
        data = super().clean()
        variant, opponent = data.get("variant"), data.pop("opponent", None)
        if variant and opponent:
            seats = games.variant_info(variant).players
            data["opponents"] = [f"builtin:{opponent}"] * (seats - 1)
        return data

"""The organisers' forms: a new competition (with each variant's options), an entry.

The fields bound what the API's ``CompetitionCreateSerializer`` bounds; everything
else (formats per kind, seats, duplicate game counts, option values) is checked by
``tournaments.services.competition_create``, whose errors land next to their field.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError

import games
from games.core import Option
from games.registry import variant_info
from tournaments.models import ORGANISED_FORMATS, ORGANISED_KINDS
from tournaments.services import PLAYOFF_GAMES_MAX

BIGINT_MAX = 2**63 - 1
YES_NO = [("true", "yes"), ("false", "no")]


def option_field_name(variant: str, option: str) -> str:
    """The form field of ``option`` of ``variant`` (every variant's options are in the form;
    only the chosen variant's are used)."""
    return f"opt:{variant}:{option}"


def _option_field(option: Option) -> forms.Field:
    help_text = option.doc
    if option.choices:
        choices = [(str(c), str(c)) for c in option.choices]
        return forms.ChoiceField(
            choices=choices, initial=str(option.default), required=False, help_text=help_text
        )
    if isinstance(option.default, bool):
        initial = "true" if option.default else "false"
        return forms.ChoiceField(
            choices=YES_NO, initial=initial, required=False, help_text=help_text
        )
    default = "none" if option.default is None else str(option.default)
    return forms.CharField(
        required=False,
        max_length=40,
        initial=default,
        help_text=f"{help_text} Default: {default}.",
    )


class CompetitionForm(forms.Form):
    name = forms.CharField(max_length=120)
    kind = forms.ChoiceField(
        choices=ORGANISED_KINDS,
        help_text="A league season and a tournament end; a ladder plays until it is closed.",
    )
    variant = forms.ChoiceField(choices=[(v, v) for v in games.variants()])
    format = forms.ChoiceField(
        choices=ORGANISED_FORMATS,
        help_text="League seasons: round robins; tournaments: round robins, Swiss or "
        "knockouts; ladders: the ladder format.",
    )
    games_per_match = forms.IntegerField(
        min_value=1,
        max_value=1000,
        initial=6,
        help_text="Duplicate matches need a multiple of the number of seats.",
    )
    duplicate = forms.BooleanField(
        required=False,
        initial=True,
        help_text="Play every deal once per seat rotation, so nobody profits from the luck "
        "of the deal.",
    )
    move_ms = forms.IntegerField(
        min_value=1,
        max_value=600_000,
        initial=2_000,
        label="Time per move (ms)",
        help_text="The limit of one decision.",
    )
    bank_ms = forms.IntegerField(
        min_value=0,
        max_value=3_600_000,
        initial=20_000,
        label="Time bank (ms)",
        help_text="Extra time a bot may spend over the match when a move takes longer.",
    )
    pace_ms = forms.IntegerField(
        min_value=0,
        max_value=1_000,
        initial=0,
        required=False,
        label="Pacing (ms)",
        help_text="0: off. Every turn comes a whole number of these after the one before "
        "it, so no bot can read another's thinking time (collusion by timing); costs up "
        "to this much a decision.",
    )
    rounds_planned = forms.IntegerField(
        min_value=1,
        max_value=1000,
        required=False,
        label="Rounds",
        help_text="Swiss: how many rounds (the other formats know their own).",
    )
    playoff_games_cap = forms.IntegerField(
        min_value=0,
        max_value=PLAYOFF_GAMES_MAX,
        initial=4,
        label="Play-off games",
        help_text="Knockouts: the most play-off games a level match may take before it is "
        "decided by lot.",
    )
    division_size = forms.IntegerField(
        min_value=1,
        max_value=1000,
        required=False,
        label="Division size",
        help_text="League seasons: the most entries a division holds, at least one table "
        "(the seats, or two teams with fixed teams); at the start the entries, in the order "
        "of the seeding, are cut into divisions of near-equal sizes. Empty: one division.",
    )
    promote = forms.IntegerField(
        min_value=0,
        max_value=1000,
        initial=0,
        required=False,
        label="Promoted and relegated",
        help_text="League seasons with divisions: how many of each division go up, and of "
        "the one above go down, into the next season.",
    )
    seeding = forms.ChoiceField(
        choices=[
            ("rating", "By rating: strongest first (entries of equal rating in entry order)"),
            ("manual", "By hand: in the order you give on the draft's page"),
            ("random", "At random: shuffled from a seed, recorded on the page"),
        ],
        required=False,
        initial="rating",
        label="Seeding of the divisions",
        help_text="League seasons: the order a first season's entries are cut into divisions "
        "in, the first into Division 1. Later seasons keep the divisions their previous "
        "season's end gave them.",
    )
    seeding_seed = forms.IntegerField(
        min_value=0,
        max_value=BIGINT_MAX,
        required=False,
        label="Seed of the random seeding",
        help_text="Random seeding only. Empty: drawn at the start and recorded; the same "
        "entries with the same seed give the same divisions.",
    )
    is_public = forms.BooleanField(
        required=False,
        initial=True,
        label="Public",
        help_text="Anyone may watch it; a private one is seen only by its organisers.",
    )
    full_replays_after_end = forms.BooleanField(
        required=False,
        label="Full replays after the end",
        help_text="Once it has ended, everyone who may watch it sees every hand.",
    )
    same_owner_tables = forms.BooleanField(
        required=False,
        label="Let bots of one owner share a table",
        help_text="Private competitions only. By default no table seats two bots of one "
        "owner (or of owners linked as one person).",
    )
    seed = forms.IntegerField(
        min_value=0,
        max_value=BIGINT_MAX,
        required=False,
        help_text="Leave empty to draw the deals from a secret published at the end. A "
        "chosen seed makes every deal reproducible, and predictable to whoever knows it.",
    )
    partnerships = forms.ChoiceField(
        choices=[
            ("", "(rotating partners where the variant has partnerships)"),
            ("rotating", "Rotating partners: an entry is a bot; each table makes new partners"),
            ("fixed", "Fixed teams: an entry is a team of two bots (or one bot at both seats)"),
        ],
        required=False,
        help_text="Partnership variants only. Fixed teams play round robins, league seasons "
        "and Swiss tournaments; their standings rank teams (docs/round-robin.md).",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        budget_s = settings.CARDROOM_MATCH_TIME_LIMIT_S / 2
        self.fields["bank_ms"].help_text += (
            f" The bank and one move in each game must fit in what a bot may spend deciding"
            f" in a match: {budget_s / 60:g} minutes here, shared by the seats."
        )
        self.option_groups: list[tuple[str, str, list[str]]] = []
        for variant in games.variants():
            info = variant_info(variant)
            names = []
            for option in info.options:
                name = option_field_name(variant, option.name)
                self.fields[name] = _option_field(option)
                self.fields[name].label = option.name
                names.append(name)
            self.option_groups.append((variant, info.summary, names))

    @staticmethod
    def partnership_variants() -> list[str]:
        """The variants whose seats play in teams (``Variant.teams``): the partnerships
        choice is theirs."""
        return [v for v in games.variants() if variant_info(v).partnership]

    def option_groups_bound(self) -> list[dict[str, Any]]:
        """Per variant: its id, summary and bound option fields (for the template)."""
        return [
            {"variant": v, "summary": summary, "fields": [self[n] for n in names]}
            for v, summary, names in self.option_groups
        ]

    def chosen_options(self) -> dict[str, Any]:
        """The chosen variant's options as the engine reads them (``name -> value``)."""
        variant = self.cleaned_data["variant"]
        options: dict[str, Any] = {}
        for option in variant_info(variant).options:
            raw = self.cleaned_data.get(option_field_name(variant, option.name))
            if raw in (None, ""):
                continue
            options[option.name] = _typed(option, raw)
        return options

    def service_arguments(self) -> dict[str, Any]:
        """Keyword arguments of ``competition_create`` (without ``created_by``)."""
        data = self.cleaned_data
        plain = [
            "name",
            "kind",
            "variant",
            "format",
            "games_per_match",
            "duplicate",
            "move_ms",
            "bank_ms",
            "pace_ms",
            "rounds_planned",
            "playoff_games_cap",
            "is_public",
            "full_replays_after_end",
            "same_owner_tables",
            "seed",
            "division_size",
            "promote",
            "partnerships",
            "seeding",
            "seeding_seed",
        ]
        arguments = {k: data[k] for k in plain}
        arguments["seeding"] = arguments["seeding"] or None  # left empty: by rating
        arguments["pace_ms"] = arguments["pace_ms"] or 0  # left empty: off
        arguments["promote"] = arguments["promote"] or 0  # left empty: nobody moves
        return {**arguments, "options": self.chosen_options()}

    def add_variant_error(self, error: ValidationError) -> None:
        """Put a ``variant`` error of the service next to the option it names, if any."""
        variant = self.cleaned_data["variant"]
        for message in error.messages:
            target = "variant"
            for option in variant_info(variant).options:
                if f"option {option.name} " in message or f"'{option.name}'" in message:
                    target = option_field_name(variant, option.name)
            self.add_error(target, message)


def _typed(option: Option, raw: str) -> Any:
    """The form's text as the option's type: choices keep their type, yes/no are booleans;
    other text goes to the option's own parser (which names what is wrong)."""
    for choice in option.choices:
        if str(choice) == raw:
            return choice
    if isinstance(option.default, bool) and raw in ("true", "false"):
        return raw == "true"
    return raw.strip()


class NextSeasonForm(forms.Form):
    """The next season of a finished league season (``services.league_next_season``)."""

    name = forms.CharField(
        max_length=120,
        required=False,
        help_text="Empty: the league's name with the season's number.",
    )


class EntryAddForm(forms.Form):
    """An organiser adds a bot: their own, a built-in one (any bot, for staff); in a
    competition of fixed teams, a team: the bot and its partner."""

    bot = forms.ModelChoiceField(queryset=None)
    partner = forms.ModelChoiceField(
        queryset=None,
        required=False,
        empty_label="(the same bot at both seats)",
        help_text="The team's second bot, at the second seat of its side.",
    )

    def __init__(self, *args: Any, bots, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["bot"].queryset = bots
        self.fields["partner"].queryset = bots

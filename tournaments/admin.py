from django.contrib import admin

from tournaments.models import (
    Competition,
    Entry,
    GameRecord,
    Match,
    MatchSeat,
    RatingEvent,
    Round,
)


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    fields = [
        "bot",
        "pinned_version",
        "seed_order",
        "division",
        "mu",
        "sigma",
        "games",
        "points",
        "withdrawn",
    ]
    readonly_fields = ["mu", "sigma", "games", "points"]


@admin.register(Competition)
class CompetitionAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "variant", "format", "status", "is_public", "created_at"]
    list_filter = ["kind", "format", "status", "variant", "is_public", "full_replays_after_end"]
    search_fields = ["name"]
    filter_horizontal = ["organisers"]
    inlines = [EntryInline]


class MatchSeatInline(admin.TabularInline):
    model = MatchSeat
    extra = 0
    readonly_fields = ["seat", "entry", "version", "score", "points", "rank", "wins", "statuses"]


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ["id", "competition", "round", "table", "status", "attempts", "finished_at"]
    list_filter = ["status"]
    readonly_fields = ["decided_by"]
    inlines = [MatchSeatInline]


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ["competition", "number", "status"]


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    list_display = ["bot", "competition", "mu", "sigma", "games", "points", "withdrawn"]
    list_filter = ["competition"]


@admin.register(GameRecord)
class GameRecordAdmin(admin.ModelAdmin):
    list_display = ["match", "index", "playoff", "scores", "ranking"]
    readonly_fields = ["match", "index", "playoff", "scores", "ranking", "statuses"]
    exclude = ["data"]


@admin.register(RatingEvent)
class RatingEventAdmin(admin.ModelAdmin):
    list_display = ["entry", "match", "sequence", "mu_after", "sigma_after"]
    readonly_fields = [f.name for f in RatingEvent._meta.fields]

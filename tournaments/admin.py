from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.core.exceptions import ValidationError
from django.db.models import Q

from tournaments.models import (
    Challenge,
    Competition,
    Entry,
    GameRecord,
    Match,
    MatchSeat,
    OwnerLink,
    RatingEvent,
    Round,
    TableExclusion,
    VersionTest,
)
from tournaments.permissions import ORGANISE_CODENAME, is_organiser, organiser_right_set
from tournaments.services.challenges import challenge_cancel
from tournaments.services.version_tests import version_test_cancel


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    fields = [
        "bot",
        "partner",
        "partner_pending",
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
    list_display = [
        "bot",
        "partner",
        "partner_pending",
        "competition",
        "mu",
        "sigma",
        "games",
        "points",
        "withdrawn",
    ]
    list_filter = ["competition", "disqualified"]


@admin.register(OwnerLink)
class OwnerLinkAdmin(admin.ModelAdmin):
    """Accounts staff judge to be one person: their bots never share a table
    (docs/fair-play.md). Links chain: a = b and b = c keep a's and c's bots apart too."""

    list_display = ["user", "other", "note", "created_at"]
    search_fields = ["user__username", "other__username", "note"]
    autocomplete_fields = ["user", "other"]


@admin.register(TableExclusion)
class TableExclusionAdmin(admin.ModelAdmin):
    list_display = ["competition", "entry", "other", "created_at"]
    list_filter = ["competition"]
    raw_id_fields = ["entry", "other"]


@admin.register(GameRecord)
class GameRecordAdmin(admin.ModelAdmin):
    list_display = ["match", "index", "playoff", "scores", "ranking"]
    readonly_fields = ["match", "index", "playoff", "scores", "ranking", "statuses"]
    exclude = ["data"]


@admin.register(RatingEvent)
class RatingEventAdmin(admin.ModelAdmin):
    list_display = ["entry", "match", "sequence", "mu_after", "sigma_after"]
    readonly_fields = [f.name for f in RatingEvent._meta.fields]


@admin.register(VersionTest)
class VersionTestAdmin(admin.ModelAdmin):
    """Version tests (SPRTs): staff see every one and may cancel those still going."""

    list_display = ["id", "bot", "new", "old", "variant", "status", "trials", "decision"]
    list_filter = ["status"]
    readonly_fields = [f.name for f in VersionTest._meta.fields]
    actions = ["cancel_tests"]

    def has_add_permission(self, request) -> bool:
        return False  # started from the API, where the parameters are checked

    @admin.action(description="Cancel the selected version tests (no more deals are played)")
    def cancel_tests(self, request, queryset) -> None:
        cancelled = 0
        for test in queryset.select_related("bot"):
            try:
                version_test_cancel(test=test, by=request.user)
                cancelled += 1
            except ValidationError:
                pass  # already over
        self.message_user(request, f"{cancelled} version test(s) cancelled.")


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):
    """Challenges: staff see every one and may cancel those still playing."""

    list_display = ["id", "bot", "version", "games", "status", "created_by", "created_at"]
    list_filter = ["status"]
    readonly_fields = [f.name for f in Challenge._meta.fields]
    actions = ["cancel_challenges"]

    def has_add_permission(self, request) -> bool:
        return False  # asked for on the site or the API, where the request is checked

    @admin.action(description="Cancel the selected challenges (games not yet played are dropped)")
    def cancel_challenges(self, request, queryset) -> None:
        cancelled = 0
        for challenge in queryset:
            try:
                challenge_cancel(challenge=challenge, by=request.user)
                cancelled += 1
            except ValidationError:
                pass  # already over
        self.message_user(request, f"{cancelled} challenge(s) cancelled.")


# --- the organiser right, on the users' pages ----------------------------------------------

User = get_user_model()


@admin.display(boolean=True, description="Organiser")
def _is_organiser(user) -> bool:
    return is_organiser(user)


class OrganiserFilter(admin.SimpleListFilter):
    title = "organiser right"
    parameter_name = "organiser"

    def lookups(self, request, model_admin):
        return [("yes", "May create competitions"), ("no", "May not")]

    def queryset(self, request, queryset):
        holders = Q(is_staff=True) | Q(
            user_permissions__codename=ORGANISE_CODENAME,
            user_permissions__content_type__app_label="tournaments",
        )
        if self.value() == "yes":
            return queryset.filter(holders).distinct()
        if self.value() == "no":
            return queryset.exclude(pk__in=queryset.filter(holders).values("pk"))
        return queryset


class CardroomUserAdmin(UserAdmin):
    """Django's user admin, with the organiser right (``tournaments.organise_competitions``:
    create and run competitions) as a column, a filter and two actions."""

    list_display = [*UserAdmin.list_display, _is_organiser]
    list_filter = [OrganiserFilter, *UserAdmin.list_filter]
    actions = ["grant_organiser_right", "revoke_organiser_right"]

    @admin.action(description="Grant the organiser right (create and run competitions)")
    def grant_organiser_right(self, request, queryset):
        for user in queryset:
            organiser_right_set(user=user, granted=True)
        self.message_user(request, f"{queryset.count()} user(s) may now organise competitions.")

    @admin.action(description="Revoke the organiser right")
    def revoke_organiser_right(self, request, queryset):
        for user in queryset:
            organiser_right_set(user=user, granted=False)
        self.message_user(request, f"{queryset.count()} user(s) may no longer create competitions.")


if admin.site.is_registered(User):
    admin.site.unregister(User)
admin.site.register(User, CardroomUserAdmin)

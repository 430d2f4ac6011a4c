from django.contrib import admin
from django.db.models import QuerySet

from bots.models import (
    AccountConfirmation,
    AccountLink,
    Bot,
    BotBlob,
    BotVersion,
    UserAllowance,
)
from bots.selectors import near_identical_uploads, uploads_shared_across_accounts


class LookAlikeFilter(admin.SimpleListFilter):
    """Uploads another account also made, byte for byte or near-identical
    (docs/fair-play.md): a sign of one person behind several accounts."""

    title = "look-alikes of other accounts"
    parameter_name = "lookalike"

    def lookups(self, request, model_admin):
        return [
            ("bytes", "Same bytes as another account's upload"),
            ("near", "Near-identical archive contents to another account's"),
        ]

    def queryset(self, request, queryset: QuerySet[BotVersion]) -> QuerySet[BotVersion]:
        if self.value() == "bytes":
            return queryset.filter(pk__in=uploads_shared_across_accounts().values("pk"))
        if self.value() == "near":
            pks = {v.pk for pair in near_identical_uploads() for v in pair[:2]}
            return queryset.filter(pk__in=pks)
        return queryset


class BotVersionInline(admin.TabularInline):
    model = BotVersion
    extra = 0
    fields = ["number", "status", "runtime", "size", "sha256", "created_at"]
    readonly_fields = fields
    can_delete = False
    show_change_link = True


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "builtin", "created_at"]
    search_fields = ["name", "owner__username", "builtin"]
    inlines = [BotVersionInline]


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin):
    list_display = ["bot", "number", "status", "runtime", "size", "created_at"]
    list_filter = ["status", "runtime", LookAlikeFilter]
    search_fields = ["bot__name", "sha256"]
    readonly_fields = [
        "look_alikes",
        "bot",
        "number",
        "sha256",
        "runtime",
        "entry_point",
        "size",
        "upload_name",
        "archive",
        "created_at",
    ]

    @admin.display(description="Look-alikes of other accounts")
    def look_alikes(self, obj: BotVersion) -> str:
        same = uploads_shared_across_accounts().filter(sha256=obj.sha256)
        same = same.exclude(bot__owner=obj.bot.owner_id)
        rows = [f"{v.bot} v{v.number}: same bytes" for v in same.select_related("bot__owner")]
        for a, b, score in near_identical_uploads():
            if obj.pk in (a.pk, b.pk):
                other = b if a.pk == obj.pk else a
                rows.append(f"{other.bot} v{other.number}: {score:.0%} alike")
        return "; ".join(rows) or "none"


@admin.register(BotBlob)
class BotBlobAdmin(admin.ModelAdmin):
    """The database bot store, to look at: blobs are written by uploads only, never edited."""

    list_display = ["sha256", "size", "created_at"]
    search_fields = ["sha256"]
    fields = ["sha256", "size", "created_at"]
    readonly_fields = fields

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(UserAllowance)
class UserAllowanceAdmin(admin.ModelAdmin):
    """Raise (or lower) one user's allowance above the settings' default
    (``bots.allowances``; deploy/README.md "Allowances")."""

    list_display = ["user", "allowance", "value", "note", "updated_at"]
    list_filter = ["allowance"]
    search_fields = ["user__username", "note"]
    autocomplete_fields = ["user"]


@admin.register(AccountConfirmation)
class AccountConfirmationAdmin(admin.ModelAdmin):
    """Accounts made while sign-up asks for a confirmed address (``bots.accounts``):
    staff may confirm one by hand (set "Confirmed at")."""

    list_display = ["user", "email", "created_at", "sent_at", "confirmed_at"]
    list_filter = [("confirmed_at", admin.EmptyFieldListFilter)]
    search_fields = ["user__username", "email"]
    autocomplete_fields = ["user"]


@admin.register(AccountLink)
class AccountLinkAdmin(admin.ModelAdmin):
    """Accounts linked automatically as one person (``bots.links``): signed up from one
    address, or near-identical uploads, with the evidence. While not dismissed, a link
    keeps the two accounts' bots apart in public ladders; dismiss one that is two people
    (it is not made again), or add an owner link (*Tournaments > Owner links*) to keep
    them apart everywhere."""

    list_display = ["user", "other", "reason", "evidence", "dismissed", "created_at"]
    list_filter = ["reason", "dismissed"]
    list_editable = ["dismissed"]
    search_fields = ["user__username", "other__username", "evidence"]
    fields = ["user", "other", "reason", "evidence", "dismissed", "created_at"]
    readonly_fields = ["user", "other", "reason", "evidence", "created_at"]

    def has_add_permission(self, request) -> bool:
        return False  # made from the signals; staff's own judgement is an owner link

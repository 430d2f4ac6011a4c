from django.contrib import admin

from bots.models import Bot, BotBlob, BotVersion


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
    list_filter = ["status", "runtime"]
    search_fields = ["bot__name", "sha256"]
    readonly_fields = [
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

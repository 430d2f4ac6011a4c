from django.contrib import admin

from bots.models import Bot, BotVersion


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
        "archive",
        "created_at",
    ]

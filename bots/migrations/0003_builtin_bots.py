"""The platform's built-in bots exist from the first migration on (entries can use them)."""

import hashlib

from django.db import migrations

BUILTINS = ("greedy", "random")


def create_builtins(apps, schema_editor):
    Bot = apps.get_model("bots", "Bot")
    BotVersion = apps.get_model("bots", "BotVersion")
    for name in BUILTINS:
        bot = Bot.objects.filter(builtin=name, owner=None, name=name).first()
        if bot is None:
            bot = Bot.objects.create(
                builtin=name, name=name, description=f"The platform's built-in {name} bot."
            )
        BotVersion.objects.get_or_create(
            bot=bot,
            number=1,
            defaults={
                "runtime": "builtin",
                "status": "ready",
                "entry_point": f"builtin:{name}",
                "sha256": hashlib.sha256(f"builtin:{name}".encode()).hexdigest(),
            },
        )


class Migration(migrations.Migration):
    dependencies = [("bots", "0002_builtin_not_unique")]

    operations = [migrations.RunPython(create_builtins, migrations.RunPython.noop)]

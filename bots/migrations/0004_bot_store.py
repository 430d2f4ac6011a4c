"""The bot store: uploads by SHA-256 (BotBlob rows by default), no files shared by workers.

Versions uploaded before it kept their upload under ``MEDIA_ROOT`` (the ``archive``
field). This copies each such file into the configured store (``CARDROOM_BOT_STORE``)
when it is there and still matches its hash, and records the upload's file name. A
file missing here is left alone: a worker falls back to reading it
(``bots.services.bot_version_path``).
"""

import hashlib
import logging
from pathlib import PurePosixPath

from django.db import migrations, models

log = logging.getLogger(__name__)


def copy_uploads_into_store(apps, schema_editor):
    from bots import store

    BotVersion = apps.get_model("bots", "BotVersion")
    target = store.bot_store()
    if target.kind == "db":
        target = store.DatabaseStore(apps.get_model("bots", "BotBlob"))
    for version in BotVersion.objects.exclude(runtime="builtin").exclude(archive=""):
        upload = (version.validation_report or {}).get("upload") or {}
        name = upload.get("filename") or PurePosixPath(version.archive.name).name
        version.upload_name = PurePosixPath(name.replace("\\", "/")).name[-255:] or "upload"
        version.save(update_fields=["upload_name"])
        try:
            with version.archive.open("rb") as handle:
                content = handle.read()
        except OSError as error:
            log.warning(
                "bot version %s: upload file unreadable (%s), not copied", version.pk, error
            )
            continue
        if hashlib.sha256(content).hexdigest() != version.sha256:
            log.warning(
                "bot version %s: upload file does not match its hash, not copied", version.pk
            )
            continue
        target.put(version.sha256, content)


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0003_builtin_bots"),
    ]

    operations = [
        migrations.CreateModel(
            name="BotBlob",
            fields=[
                ("sha256", models.CharField(max_length=64, primary_key=True, serialize=False)),
                ("content", models.BinaryField()),
                ("size", models.PositiveIntegerField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
        ),
        migrations.AddField(
            model_name="botversion",
            name="upload_name",
            field=models.CharField(blank=True, max_length=255),
        ),
        migrations.RunPython(copy_uploads_into_store, migrations.RunPython.noop),
    ]

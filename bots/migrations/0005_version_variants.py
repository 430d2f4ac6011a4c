"""The variants a version declares and the ones it passed validation in.

Versions validated before a version declared its variants were validated in
``manni-basic`` only: each ready uploaded version gets a pass for it, and no other
(its owner may ask for more: ``bots.services.bot_version_validate_more``).
"""

import django.db.models.deletion
from django.db import migrations, models

LEGACY_VARIANT = "manni-basic"


def passes_for_validated_versions(apps, schema_editor):
    BotVersion = apps.get_model("bots", "BotVersion")
    VersionVariantPass = apps.get_model("bots", "VersionVariantPass")
    ready = BotVersion.objects.filter(status="ready").exclude(runtime="builtin")
    VersionVariantPass.objects.bulk_create(
        [
            VersionVariantPass(version_id=pk, variant=LEGACY_VARIANT)
            for pk in ready.values_list("pk", flat=True)
        ],
        ignore_conflicts=True,
    )


class Migration(migrations.Migration):
    dependencies = [("bots", "0004_bot_store")]

    operations = [
        migrations.AddField(
            model_name="botversion",
            name="variants",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.CreateModel(
            name="VersionVariantPass",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("variant", models.CharField(max_length=64)),
                ("passed_at", models.DateTimeField(auto_now_add=True)),
                (
                    "version",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="passes",
                        to="bots.botversion",
                    ),
                ),
            ],
            options={"ordering": ["version_id", "variant"]},
        ),
        migrations.AddConstraint(
            model_name="versionvariantpass",
            constraint=models.UniqueConstraint(
                fields=("version", "variant"), name="versionvariantpass_unique_variant"
            ),
        ),
        migrations.RunPython(passes_for_validated_versions, migrations.RunPython.noop),
    ]

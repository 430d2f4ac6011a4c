"""Fixed teams in partnership variants: Competition.partnerships, Entry.partner; a team
sits at two seats of a match."""

import django.db.models.deletion
from django.db import migrations, models

import games


def rotating_where_partnered(apps, schema_editor):
    """Competitions of a partnership variant so far rotated partners: say so."""
    partnered = [v for v in games.variants() if games.variant_info(v).partnership]
    Competition = apps.get_model("tournaments", "Competition")
    Competition.objects.filter(variant__in=partnered).update(partnerships="rotating")


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0009_account_confirmation"),
        ("tournaments", "0015_competition_seasons"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="matchseat",
            name="matchseat_unique_entry",
        ),
        migrations.AddField(
            model_name="competition",
            name="partnerships",
            field=models.CharField(
                blank=True,
                choices=[("rotating", "Rotating"), ("fixed", "Fixed")],
                default="",
                max_length=8,
            ),
        ),
        migrations.AddField(
            model_name="entry",
            name="partner",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="partnered_entries",
                to="bots.bot",
            ),
        ),
        migrations.AddConstraint(
            model_name="entry",
            constraint=models.UniqueConstraint(
                fields=("competition", "partner"), name="entry_unique_partner"
            ),
        ),
        migrations.RunPython(rotating_where_partnered, migrations.RunPython.noop),
    ]

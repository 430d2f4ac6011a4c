from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0013_competition_pace_ms"),
    ]

    operations = [
        migrations.AddField(
            model_name="competition",
            name="division_size",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="competition",
            name="promote",
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="competition",
            name="previous_season",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=models.deletion.SET_NULL,
                related_name="next_season",
                to="tournaments.competition",
            ),
        ),
        migrations.AddField(
            model_name="competition",
            name="season",
            field=models.PositiveSmallIntegerField(default=1),
        ),
    ]

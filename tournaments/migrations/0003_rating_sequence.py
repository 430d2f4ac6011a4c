from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0002_match_node"),
    ]

    operations = [
        migrations.AddField(
            model_name="competition",
            name="rating_sequence",
            field=models.PositiveBigIntegerField(default=0),
        ),
    ]

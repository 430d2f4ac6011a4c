from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0011_account_signup_and_links"),
    ]

    operations = [
        migrations.AddField(
            model_name="accountconfirmation",
            name="required",
            field=models.BooleanField(
                default=True,
                help_text="No allowance at all until confirmed (sign-up asked for a confirmed "
                "address); otherwise only the smaller stored-bytes allowance of unconfirmed "
                "accounts.",
            ),
        ),
        migrations.AlterField(
            model_name="accountconfirmation",
            name="email",
            field=models.EmailField(blank=True, max_length=254),
        ),
        migrations.AlterField(
            model_name="userallowance",
            name="allowance",
            field=models.CharField(
                choices=[
                    ("bots", "Bots"),
                    ("versions_per_day", "Versions a day"),
                    ("upload_bytes_per_day", "Upload bytes a day"),
                    ("version_test_games_per_day", "Version-test games a day"),
                    ("open_version_tests", "Open version tests"),
                    ("challenge_games_per_day", "Challenge games a day"),
                    ("open_challenges", "Open challenges"),
                    ("ladder_entries", "Entries in open ladders"),
                    ("stored_bytes", "Stored bytes"),
                ],
                max_length=40,
            ),
        ),
    ]

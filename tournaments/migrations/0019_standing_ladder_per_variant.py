"""Standing ladders are keyed by their variant, no longer by their game family.

There was one standing ladder per family ("manni", "maniglia", "money"); now there is
one per variant (``tournaments.ladders``). Each family-keyed ladder, open or ended, is
kept as the ladder of the variant it plays, so ``ladders ensure`` after the upgrade
keeps it rather than making a second one beside it.
"""

from django.db import migrations
from django.db.models import F

#: The family keys and the variant each family's ladder played.
FAMILY_VARIANTS = {
    "manni": "manni-basic",
    "maniglia": "maniglia-4-partners",
    "money": "money-jordan",
}


def standing_by_variant(apps, schema_editor):
    Competition = apps.get_model("tournaments", "Competition")
    Competition.objects.filter(standing__in=FAMILY_VARIANTS).update(standing=F("variant"))


def standing_by_family(apps, schema_editor):
    """Back: the three families' own ladders take their family keys again; the other
    variants' ladders keep their keys (the older code lists them and never adds one)."""
    Competition = apps.get_model("tournaments", "Competition")
    for family, variant in FAMILY_VARIANTS.items():
        Competition.objects.filter(standing=variant).update(standing=family)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0018_gamerecord_chances"),
    ]

    operations = [
        migrations.RunPython(standing_by_variant, standing_by_family),
    ]

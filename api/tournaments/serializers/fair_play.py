"""Serializers of the fair-play reports: collusion pairs and soft play."""

from __future__ import annotations

from rest_framework import serializers


class CollusionEntrySerializer(serializers.Serializer):
    entry = serializers.IntegerField()
    name = serializers.CharField()


class SoftPlaySerializer(serializers.Serializer):
    """One direction of a pair's soft play (``tournaments.ratings.soft_play``): the
    chances the giver had to take a trick the other was winning, and how many it let go,
    against its chances with the other seats at the same tables."""

    chances = serializers.IntegerField()
    let_go = serializers.IntegerField()
    rate = serializers.FloatField(allow_null=True)
    chances_others = serializers.IntegerField()
    let_go_others = serializers.IntegerField()
    rate_others = serializers.FloatField(allow_null=True)
    p_value = serializers.FloatField(help_text="One-sided, uncorrected.")


class SoftPlayPairSerializer(serializers.Serializer):
    a_to_b = SoftPlaySerializer(allow_null=True, help_text="a's chances against b.")
    b_to_a = SoftPlaySerializer(allow_null=True, help_text="b's chances against a.")


class CollusionPairSerializer(serializers.Serializer):
    """One pair of the collusion report (docs/fair-play.md): scores are shares of the
    comparisons with opponents won (0..1)."""

    a = CollusionEntrySerializer()
    b = CollusionEntrySerializer()
    tables_together = serializers.IntegerField()
    a_together = serializers.FloatField()
    a_apart = serializers.FloatField()
    b_together = serializers.FloatField()
    b_apart = serializers.FloatField()
    others_together = serializers.FloatField(
        help_text="The other seats' score at the pair's tables."
    )
    others_elsewhere = serializers.FloatField(help_text="The same seats' usual score.")
    together = serializers.FloatField(help_text="The pair's share of comparisons with the others.")
    expected = serializers.FloatField(help_text="The mean of the two scores apart.")
    effect = serializers.FloatField()
    se = serializers.FloatField()
    z = serializers.FloatField()
    p = serializers.FloatField()
    p_adjusted = serializers.FloatField(help_text="Holm-corrected for the pairs tested.")
    flagged = serializers.BooleanField()
    kept_apart = serializers.BooleanField()
    disqualified = serializers.ListField(child=serializers.IntegerField())
    soft_play = SoftPlayPairSerializer(
        help_text="Tricks each let the other take (null for games without tricks)."
    )


class CollusionReportSerializer(serializers.Serializer):
    competition = serializers.IntegerField()
    tables = serializers.IntegerField()
    min_tables = serializers.IntegerField()
    alpha = serializers.FloatField()
    same_owner_tables = serializers.BooleanField()
    flagged = serializers.IntegerField()
    pairs = CollusionPairSerializer(many=True)

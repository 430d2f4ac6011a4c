"""``GET /api/competitions/{competition_pk}/compare/?a=<entry>&b=<entry>``: is A better than B?

The answer of ``tournaments.selectors.comparison.compare_entries``: the rating model's
probability that A is stronger, the head-to-head record with its sign test, and
one plain sentence. Entries of another competition, unknown entries or the same
entry twice are a 400 naming the parameter; a competition the user may not see
is a 404. It only reads.
"""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from api.defaults import ApiDefaults
from config.filters import INT64_MAX
from tournaments import selectors
from tournaments.selectors import comparison


class CompareQuerySerializer(serializers.Serializer):
    a = serializers.IntegerField(min_value=1, max_value=INT64_MAX, help_text="An entry id.")
    b = serializers.IntegerField(
        min_value=1, max_value=INT64_MAX, help_text="Another entry of the same competition."
    )


class CompareSideSerializer(serializers.Serializer):
    entry = serializers.IntegerField()
    name = serializers.CharField()
    rating = serializers.FloatField(help_text="mu - 3 sigma.")
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    rating_low = serializers.FloatField(help_text="mu - 1.96 sigma: the 95 % interval of mu.")
    rating_high = serializers.FloatField(help_text="mu + 1.96 sigma.")


class CompareRecordSerializer(serializers.Serializer):
    games = serializers.IntegerField(help_text="Games A and B played at one table.")
    score = serializers.FloatField(help_text="A's points over them: 1 ahead, 1/2 level, 0 behind.")
    opponent_score = serializers.FloatField()
    trial = serializers.CharField(help_text="A deal at every seat rotation, or a match.")
    trials = serializers.IntegerField()
    trials_won = serializers.IntegerField()
    trials_lost = serializers.IntegerField()
    trials_level = serializers.IntegerField()
    p_value = serializers.FloatField(help_text="Two-sided sign test over the decided trials.")


class CompareSerializer(serializers.Serializer):
    a = CompareSideSerializer()
    b = CompareSideSerializer()
    p_stronger = serializers.FloatField(
        help_text="The rating model's probability that A's skill is above B's: "
        "Phi((mu_A - mu_B) / sqrt(sigma_A^2 + sigma_B^2))."
    )
    p_wins = serializers.FloatField(
        help_text="The model's probability that A finishes ahead of B in one two-player game "
        "(openskill's predict_win: 2 beta^2 more under the root)."
    )
    head_to_head = CompareRecordSerializer(help_text="A's record against B.")
    answer = serializers.CharField(help_text="All of it in one sentence.")


@extend_schema(tags=["competitions"])
class CompetitionCompareViewSet(ApiDefaults, viewsets.ViewSet):
    """Is entry A better than entry B? The model's probability and the head-to-head test."""

    permission_classes = [permissions.AllowAny]  # reads a competition the user may see

    @extend_schema(
        parameters=[CompareQuerySerializer],
        responses={200: CompareSerializer},
        filters=False,
    )
    def list(self, request: Request, competition_pk: str) -> Response:
        """How sure is it that A is better than B? See docs/ratings.md."""
        if int(competition_pk) > INT64_MAX:
            raise Http404
        competition = get_object_or_404(
            selectors.competitions_visible_to(user=request.user), pk=int(competition_pk)
        )
        query = CompareQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        answer = comparison.compare_entries(competition=competition, **query.validated_data)
        return Response(CompareSerializer(answer).data)

"""Query filters of the API whose integers fit the database's columns.

django-filter reads a number into a ``Decimal`` of any size; an id beyond 64
bits then fails inside the database driver (a 500 on SQLite). Here an integer
parameter is an integer of a 64-bit signed column, ids are positive, and
anything else is a 400 naming the parameter (``{"bot": ["Ensure this value
is less than or equal to 9223372036854775807."]}``).
"""

from __future__ import annotations

import django_filters
from django import forms
from django.db import models
from django_filters.filterset import FILTER_FOR_DBFIELD_DEFAULTS

#: The largest value of a 64-bit signed column (PostgreSQL ``bigint``, SQLite ``INTEGER``).
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


class IntegerFilter(django_filters.NumberFilter):
    """A whole number between ``min_value`` and ``max_value`` (default: 64-bit signed)."""

    field_class = forms.IntegerField

    def __init__(self, *args, min_value: int = INT64_MIN, max_value: int = INT64_MAX, **kwargs):
        super().__init__(*args, min_value=min_value, max_value=max_value, **kwargs)


def id_filter(**kwargs) -> IntegerFilter:
    """A filter on an id: a positive 64-bit integer."""
    return IntegerFilter(min_value=1, **kwargs)


def _bounded(min_value: int) -> dict:
    return {"filter_class": IntegerFilter, "extra": lambda field: {"min_value": min_value}}


class FilterSet(django_filters.FilterSet):
    """django-filter's FilterSet with the bounded integer filters for integer columns."""

    FILTER_DEFAULTS = {
        **FILTER_FOR_DBFIELD_DEFAULTS,
        models.AutoField: _bounded(1),
        models.BigAutoField: _bounded(1),
        models.SmallAutoField: _bounded(1),
        models.IntegerField: _bounded(INT64_MIN),
        models.BigIntegerField: _bounded(INT64_MIN),
        models.SmallIntegerField: _bounded(INT64_MIN),
        models.PositiveIntegerField: _bounded(0),
        models.PositiveBigIntegerField: _bounded(0),
        models.PositiveSmallIntegerField: _bounded(0),
    }

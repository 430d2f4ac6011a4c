"""What the forms of every page share: a service's errors put next to their fields."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError


def add_service_errors(form: forms.Form, error: ValidationError, default: str | None = None):
    """Put a service's ``ValidationError`` next to the fields it names; what names no
    field of the form goes next to ``default`` (on top of the form if None)."""
    if hasattr(error, "error_dict"):
        for name, errors in error.error_dict.items():
            form.add_error(name if name in form.fields else default, errors)
    else:
        form.add_error(default, error.messages)

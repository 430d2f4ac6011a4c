"""The forms of the bot authors' pages; the services check what the forms pass on."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from bots.archive import DEFAULT_LIMITS
from tournaments.models import Competition


def add_service_errors(form: forms.Form, error: ValidationError, default: str | None = None):
    """Put a service's ``ValidationError`` next to the fields it names; what names no
    field of the form goes next to ``default`` (on top of the form if None)."""
    if hasattr(error, "error_dict"):
        for name, errors in error.error_dict.items():
            form.add_error(name if name in form.fields else default, errors)
    else:
        form.add_error(default, error.messages)


class BotCreateForm(forms.Form):
    name = forms.CharField(
        max_length=64,
        help_text="Unique among your bots: letters, digits, hyphens and underscores.",
    )
    description = forms.CharField(
        required=False, max_length=4000, widget=forms.Textarea(attrs={"rows": 3})
    )


class VersionUploadForm(forms.Form):
    file = forms.FileField(
        allow_empty_file=False,
        help_text="One source file (bot.py, bot.js, an executable) or a zip/tar archive "
        f"with its entry point; at most {DEFAULT_LIMITS.max_upload_bytes // 2**20} MiB.",
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        limit = DEFAULT_LIMITS.max_upload_bytes
        if upload.size > limit:
            raise ValidationError(f"The file is {upload.size} bytes; at most {limit} are accepted.")
        return upload


class EntryForm(forms.Form):
    """Enter a bot into one of the competitions still taking entries."""

    competition = forms.ModelChoiceField(queryset=Competition.objects.none())

    def __init__(self, *args, competitions, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["competition"].queryset = competitions
        self.fields["competition"].label_from_instance = _competition_label


def _competition_label(competition: Competition) -> str:
    kind = competition.get_kind_display().lower()
    return f"{competition.name} ({kind}, {competition.variant})"

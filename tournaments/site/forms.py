"""Forms of the site's account pages."""

from __future__ import annotations

from typing import Any

from django import forms

from bots.accounts import confirmation_required
from bots.api.accounts import RegistrationSerializer


class SignupForm(forms.Form):
    """A new account: the same checks and messages as ``POST /api/auth/register/``
    (its serializer decides), plus the password typed twice."""

    username = forms.CharField(max_length=150, help_text="Letters, digits and @/./+/-/_ only.")
    email = forms.EmailField(required=False, help_text="Optional.")
    password = forms.CharField(widget=forms.PasswordInput, strip=False, max_length=128)
    password_again = forms.CharField(
        widget=forms.PasswordInput, strip=False, max_length=128, label="Password (again)"
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if confirmation_required():
            self.fields["email"].required = True
            self.fields["email"].help_text = "A link to confirm it is sent there."

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if self.errors:
            return data
        if data["password"] != data["password_again"]:
            self.add_error("password_again", "The two passwords differ.")
            return data
        serializer = RegistrationSerializer(
            data={k: data[k] for k in ("username", "email", "password")}
        )
        if not serializer.is_valid():
            for field, messages in serializer.errors.items():
                target = field if field in self.fields else None
                for message in messages:
                    self.add_error(target, str(message))
            return data
        self.validated = serializer.validated_data
        return data

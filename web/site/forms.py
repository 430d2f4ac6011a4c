"""Forms of the site's account pages."""

from __future__ import annotations

from typing import Any

from django import forms

from bots.accounts import confirmation_required, registration_errors


class SignupForm(forms.Form):
    """A new account: the same checks and messages as ``POST /api/auth/register/``
    (``bots.accounts.registration_errors``), plus the password typed twice."""

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
        details = {k: data[k] for k in ("username", "email", "password")}
        errors = registration_errors(**details)
        for field, messages in errors.items():
            for message in messages:
                self.add_error(field if field in self.fields else None, message)
        if not errors:
            self.validated = details
        return data

"""Middleware of the site: limits on the admin login, security headers.

- :class:`AdminLoginLimitMiddleware` counts the failed ``POST``\\ s of the Django
  admin's login page per client address and per (username, address) (``config.throttles``)
  and answers 429, with ``Retry-After``, once either limit is reached.
- :class:`ContentSecurityPolicyMiddleware` sets ``Content-Security-Policy`` (Django
  5.2 has none of its own) to ``CARDROOM_CSP`` on every response that has none.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import NoReverseMatch, reverse

from config.throttles import login_blocked_for, login_failed

Handler = Callable[[HttpRequest], HttpResponse]


class AdminLoginLimitMiddleware:
    """429 for the admin login once this client or this username failed too often."""

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method != "POST" or request.path_info != _admin_login_path():
            return self.get_response(request)
        username = request.POST.get("username", "")
        wait = login_blocked_for(request, username)
        if wait is not None:
            response = HttpResponse(
                f"Too many failed logins from here or for this user: "
                f"try again in {wait} seconds.\n",
                status=429,
                content_type="text/plain; charset=utf-8",
            )
            response["Retry-After"] = str(wait)
            return response
        response = self.get_response(request)
        if response.status_code == 200:  # the form again, with its error: a failed login
            login_failed(request, username)
        return response


def _admin_login_path() -> str | None:
    try:
        return reverse("admin:login")
    except NoReverseMatch:
        return None


class ContentSecurityPolicyMiddleware:
    """``Content-Security-Policy: CARDROOM_CSP`` unless the response set its own."""

    def __init__(self, get_response: Handler) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        policy = getattr(settings, "CARDROOM_CSP", "")
        if policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy
        return response

"""The home page and the account pages (sign up, confirm, log in, log out)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import IntegrityError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from bots import accounts
from config.throttles import RegisterThrottle, client_address, login_blocked_for, login_failed
from web.dashboard.pages import help_page, home_page
from web.site.forms import SignupForm


def home(request: HttpRequest) -> HttpResponse:
    """Public competitions (live first), a ladder's top ten, recent upsets."""
    return render(request, "cardroom/home.html", home_page(user=request.user))


def help_(request: HttpRequest) -> HttpResponse:
    """How to bring a bot and how to run a competition, with this installation's figures
    (the variants, the built-ins, the reader's own allowances)."""
    return render(request, "cardroom/help.html", help_page(user=request.user))


def _next_url(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    safe = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if safe else "/"


def signup(request: HttpRequest) -> HttpResponse:
    """A sign-up form; a new account is logged in at once and sent on to ``next``."""
    if request.user.is_authenticated:
        return redirect(_next_url(request))
    if request.method == "POST":
        throttle = RegisterThrottle()
        if not throttle.allow_request(request, None):  # the API's limit per address
            wait = int(throttle.wait() or 1) + 1
            context = {"form": SignupForm(), "next": _next_url(request), "blocked": wait}
            response = render(request, "registration/signup.html", context, status=429)
            response["Retry-After"] = str(wait)
            return response
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = accounts.account_register(
                **form.validated, link_for=_confirm_link(request), address=client_address(request)
            )
        except IntegrityError:  # the same name sent twice at once
            form.add_error("username", "That username is taken.")
        except accounts.SignupsExceeded as error:  # this client's accounts of the window
            form.add_error(None, error.messages[0])
            context = {"form": form, "next": _next_url(request)}
            response = render(request, "registration/signup.html", context, status=429)
            response["Retry-After"] = str(error.wait)
            return response
        except ValidationError as error:
            for field, errors in error.message_dict.items():
                for message in errors:
                    form.add_error(field if field in form.fields else None, message)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            email = accounts.pending_email(user=user)
            if email is None:
                messages.success(request, f"Welcome, {user.username}: your account is ready.")
            else:
                messages.success(
                    request,
                    f"Welcome, {user.username}: we sent a link to {email}. Open it to confirm "
                    "your address before you create or upload a bot.",
                )
            return redirect(_next_url(request))
    context = {"form": form, "next": _next_url(request)}
    return render(request, "registration/signup.html", context, status=400 if form.errors else 200)


def _confirm_link(request: HttpRequest):
    return lambda token: request.build_absolute_uri(reverse("site:confirm", args=[token]))


def confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The page of a mailed link: the account's address is confirmed, or why not."""
    try:
        user = accounts.account_confirm(token=token)
    except ValidationError as error:
        context = {"error": error.messages[0]}
        return render(request, "registration/confirm.html", context, status=400)
    if request.user.is_authenticated and request.user.pk == user.pk:
        messages.success(request, "Your e-mail address is confirmed: your allowances are open.")
        return redirect("bots-web:my-bots")
    return render(request, "registration/confirm.html", {"confirmed": user})


@login_required
@require_POST
def confirm_resend(request: HttpRequest) -> HttpResponse:
    """Mail the signed-in account's link again; back to "My bots" with what happened."""
    try:
        accounts.confirmation_send(user=request.user, link_for=_confirm_link(request))
    except ValidationError as error:
        messages.error(request, error.messages[0])
    else:
        email = accounts.pending_email(user=request.user)
        messages.success(request, f"A new link went to {email}.")
    return redirect("bots-web:my-bots")


class LoginView(auth_views.LoginView):
    """Django's login page, with the same failed-login limits as the admin's and the API's."""

    template_name = "registration/login.html"
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        username = request.POST.get("username", "")
        wait = login_blocked_for(request, username)
        if wait is not None:
            response = render(request, "registration/login.html", {"blocked": wait}, status=429)
            response["Retry-After"] = str(wait)
            return response
        response = super().post(request, *args, **kwargs)
        if response.status_code == 200:  # the form again, with its error
            login_failed(request, username)
        return response


class LogoutView(auth_views.LogoutView):
    """Log out (a POST, as Django requires), then home with a word that it is done."""

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = super().post(request, *args, **kwargs)
        messages.info(request, "You are logged out.")
        return response

"""The accounts' endpoints of the API: ``/api/auth/`` (register, confirm, token, me).

Parsing and shaping only: the accounts' writes are ``bots.accounts``'s services
(the site's sign-up pages call the same ones), the tokens' are
``bots.services.tokens``'s, their expiry is ``config.authentication``'s and the limits
on logins are ``config.throttles``'s.
The routes are put together with the rest of ``/api/`` in ``api.urls``.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.urls import URLPattern, path, reverse
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, permissions, serializers, status
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from api.defaults import ApiDefaults
from bots.accounts import (
    USERNAME_INVALID,
    USERNAME_PATTERN,
    USERNAME_TAKEN,
    account_confirm,
    account_register,
    confirmation_send,
    password_problems,
    pending_email,
    username_taken,
)
from bots.services.tokens import api_token_create, api_token_delete, api_token_obtain
from config.authentication import token_expires_at
from config.throttles import (
    RegisterThrottle,
    TokenThrottle,
    client_address,
    login_blocked_for,
    login_failed,
)
from tournaments.permissions import is_organiser


class UserSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    username = serializers.CharField(read_only=True)
    email = serializers.EmailField(read_only=True)
    is_staff = serializers.BooleanField(read_only=True)
    can_organise = serializers.SerializerMethodField()

    confirmed = serializers.SerializerMethodField(
        help_text="False while the e-mail address awaits its link (no allowance until then)."
    )

    def get_can_organise(self, user: AbstractBaseUser) -> bool:
        return is_organiser(user)

    def get_confirmed(self, user: AbstractBaseUser) -> bool:
        return pending_email(user=user) is None


class RegistrationSerializer(serializers.Serializer):
    """A new account's details, checked as ``bots.accounts.registration_errors`` says."""

    username = serializers.RegexField(
        USERNAME_PATTERN, max_length=150, error_messages={"invalid": USERNAME_INVALID}
    )
    email = serializers.EmailField(required=False, allow_blank=True, default="")
    password = serializers.CharField(write_only=True, max_length=128, trim_whitespace=False)

    def validate_username(self, value: str) -> str:
        if username_taken(value):
            raise serializers.ValidationError(USERNAME_TAKEN)
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        problems = password_problems(
            username=attrs["username"], email=attrs["email"], password=attrs["password"]
        )
        if problems:
            raise serializers.ValidationError({"password": problems})
        return attrs


class RegisteredUserSerializer(UserSerializer):
    token = serializers.CharField(read_only=True)


def _confirm_link(request: Request):
    """How a confirmation link is made for the site's page of ``request``'s host."""
    return lambda token: request.build_absolute_uri(reverse("site:confirm", args=[token]))


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(read_only=True)
    expires_at = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="When the token stops working (null: never)."
    )


class RegisterView(ApiDefaults, APIView):
    """Create an account; the answer carries an API token for it.

    At most ``CARDROOM_THROTTLE_RATES["register"]`` requests and
    ``CARDROOM_THROTTLE_RATES["signup"]`` accounts per client address, an IPv6 /64
    counting as one (then 429).
    """

    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]
    throttle_classes = [RegisterThrottle]

    @extend_schema(
        request=RegistrationSerializer,
        responses={201: RegisteredUserSerializer},
        tags=["auth"],
        auth=[],
    )
    def post(self, request: Request) -> Response:
        serializer = RegistrationSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = account_register(
            **serializer.validated_data,
            link_for=_confirm_link(request),
            address=client_address(request),
        )
        token = api_token_create(user=user)
        data = dict(UserSerializer(user).data, token=token.key)
        return Response(data, status=status.HTTP_201_CREATED)


class ConfirmSerializer(serializers.Serializer):
    token = serializers.CharField(max_length=500, help_text="The token of the mailed link.")


class ConfirmView(ApiDefaults, APIView):
    """Confirm an account's e-mail address with the token of the link mailed to it
    (``CARDROOM_SIGNUP_CONFIRMATION = email``); the account's allowances start then."""

    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]
    throttle_classes = [RegisterThrottle]

    @extend_schema(
        request=ConfirmSerializer, responses={200: UserSerializer}, tags=["auth"], auth=[]
    )
    def post(self, request: Request) -> Response:
        serializer = ConfirmSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = account_confirm(token=serializer.validated_data["token"])
        return Response(UserSerializer(user).data)


class ConfirmResendView(ApiDefaults, APIView):
    """Mail the signed-in account's confirmation link again (at most once a minute)."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={202: None}, tags=["auth"])
    def post(self, request: Request) -> Response:
        confirmation_send(user=request.user, link_for=_confirm_link(request))
        return Response(status=status.HTTP_202_ACCEPTED)


#: The 429 of a login tried too often (DRF adds when it may be tried again).
TOO_MANY_FAILURES = "Too many failed logins from here or for this user."


def _username_of(data: Any) -> str:
    value = data.get("username", "") if hasattr(data, "get") else ""
    return value if isinstance(value, str) else ""


class TokenView(ApiDefaults, APIView):
    """``POST``: the API token of a username and password, with when it expires
    (``CARDROOM_TOKEN_TTL_HOURS`` after it was issued; an expired token is replaced by
    a new one). ``DELETE``: revoke your token.

    Attempts are limited per client address (``CARDROOM_THROTTLE_RATES["token"]``) and
    failed ones per address and per (username, address) (``login-ip``, ``login-user``): then 429.
    """

    throttle_classes = [TokenThrottle]

    def get_authenticators(self):
        # Obtaining a token needs no session (and so no CSRF token); revoking one does.
        if getattr(self, "request", None) is not None and self.request.method == "POST":
            return []
        return super().get_authenticators()

    def get_permissions(self):
        if getattr(self, "request", None) is not None and self.request.method == "POST":
            return [permissions.AllowAny()]
        return [permissions.IsAuthenticated()]

    @extend_schema(
        request=AuthTokenSerializer, responses={200: TokenSerializer}, tags=["auth"], auth=[]
    )
    def post(self, request: Request) -> Response:
        username = _username_of(request.data)
        wait = login_blocked_for(request, username)
        if wait is not None:
            raise exceptions.Throttled(wait, detail=TOO_MANY_FAILURES)
        serializer = AuthTokenSerializer(data=request.data, context={"request": request})
        if not serializer.is_valid():
            if api_settings.NON_FIELD_ERRORS_KEY in serializer.errors:  # wrong credentials
                login_failed(request, username)
            raise exceptions.ValidationError(serializer.errors)
        token = api_token_obtain(user=serializer.validated_data["user"])
        return Response({"token": token.key, "expires_at": token_expires_at(token)})

    @extend_schema(request=None, responses={204: None}, tags=["auth"])
    def delete(self, request: Request) -> Response:
        api_token_delete(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(ApiDefaults, APIView):
    """The signed-in user."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: UserSerializer}, tags=["auth"])
    def get(self, request: Request) -> Response:
        return Response(UserSerializer(request.user).data)


def account_urls() -> list[URLPattern]:
    """The ``/api/auth/`` routes (``api.urls`` puts them under ``/api/``)."""
    return [
        path("auth/register/", RegisterView.as_view(), name="auth-register"),
        path("auth/token/", TokenView.as_view(), name="auth-token"),
        path("auth/me/", MeView.as_view(), name="auth-me"),
        path("auth/confirm/", ConfirmView.as_view(), name="auth-confirm"),
        path("auth/confirm/resend/", ConfirmResendView.as_view(), name="auth-confirm-resend"),
    ]

"""The REST API's shared pieces: pagination, parsing limits, errors, accounts, the root router.

Every list endpoint pages with ``?page=`` and ``?page_size=`` (at most 100).
Every error is a JSON body with a 4xx status: DRF's own errors as DRF writes
them, ``django.core.exceptions.ValidationError`` from the services as a 400
in the same shape as a serializer's errors, oversized bodies as a 413 and
database conflicts as a 409, and a request beyond one of the user's allowances
(``bots.allowances.AllowanceExceeded``) as a 429 naming the allowance.

The API's views take their pagination and parsers from :class:`ApiDefaults`
(DRF reads its default classes while importing its own views, so they cannot
name classes of a module that imports DRF's views). ``api_urls`` imports the
apps' routes only when the URL configuration is built, so the apps' views may
import this module.
"""

from __future__ import annotations

from io import BytesIO
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import (
    NON_FIELD_ERRORS,
    ObjectDoesNotExist,
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from django.urls import URLPattern, URLResolver, include, path
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, parsers, permissions, serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import DefaultRouter
from rest_framework.settings import api_settings
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from config.authentication import token_expires_at, token_for_user
from config.parsers import json_nests_deeper_than
from config.throttles import RegisterThrottle, TokenThrottle, login_blocked_for, login_failed

# --- pagination and parsing -------------------------------------------------------------


class Pagination(PageNumberPagination):
    """Numbered pages; ``page_size`` may be chosen up to 100."""

    page_size_query_param = "page_size"
    max_page_size = 100


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "payload_too_large"


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with existing data."
    default_code = "conflict"


def _too_large(limit: int) -> str:
    return f"The request body is too large: at most {limit} bytes are accepted."


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, refusing bodies over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` and
    bodies nested deeper than ``CARDROOM_JSON_MAX_DEPTH`` (a 413 and a 400).

    DRF streams a JSON body past Django's own size check, so the limit is
    applied here, reading at most one byte more than allowed. The depth is
    checked before parsing: the parser recurses once per level.
    """

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if stream is None:
            return super().parse(stream, media_type, parser_context)
        body = stream.read(limit + 1)
        if len(body) > limit:
            raise PayloadTooLarge(_too_large(limit))
        max_depth = settings.CARDROOM_JSON_MAX_DEPTH
        if json_nests_deeper_than(body, max_depth):
            raise exceptions.ParseError(
                f"JSON parse error - the body nests arrays and objects more than "
                f"{max_depth} levels deep."
            )
        return super().parse(BytesIO(body), media_type, parser_context)


#: Parsers of every API view: JSON (size-limited), forms and multipart uploads.
PARSER_CLASSES = [JSONParser, parsers.FormParser, parsers.MultiPartParser]


class ApiDefaults:
    """Mixed into every API view: pagination and parsers."""

    pagination_class = Pagination
    parser_classes = PARSER_CLASSES


# --- errors -----------------------------------------------------------------------------


def _validation_detail(exc: DjangoValidationError) -> Any:
    """A Django ValidationError in the shape DRF gives serializer errors."""
    if hasattr(exc, "error_dict"):
        return {
            (api_settings.NON_FIELD_ERRORS_KEY if field == NON_FIELD_ERRORS else field): messages
            for field, messages in exc.message_dict.items()
        }
    return {api_settings.NON_FIELD_ERRORS_KEY: exc.messages}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, after turning the exceptions services and Django raise into 4xx ones."""
    if isinstance(exc, DjangoValidationError) and hasattr(exc, "allowance"):
        return _allowance_exceeded(exc)
    if isinstance(exc, DjangoValidationError) and getattr(exc, "code", None) == "unconfirmed":
        exc = exceptions.PermissionDenied(exc.messages[0], code="unconfirmed")
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(_validation_detail(exc))
    elif isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge(_too_large(settings.DATA_UPLOAD_MAX_MEMORY_SIZE))
    elif isinstance(exc, TooManyFieldsSent | TooManyFilesSent):
        exc = exceptions.ParseError(str(exc) or "The request has too many fields or files.")
    elif isinstance(exc, ObjectDoesNotExist):
        exc = exceptions.NotFound()
    elif isinstance(exc, IntegrityError):
        exc = Conflict()
    return drf_exception_handler(exc, context)


def _allowance_exceeded(exc: DjangoValidationError) -> Response:
    """A 429 for ``bots.allowances.AllowanceExceeded``: ``detail`` in words, and the
    ``allowance``, its ``limit``, what is ``used`` and ``renews_at`` (None: when one of
    the things it counts closes); ``Retry-After`` when it renews at a known time."""
    body = {"detail": exc.messages[0], **exc.as_data()}
    response = Response(body, status=status.HTTP_429_TOO_MANY_REQUESTS)
    if exc.renews_at is not None:
        seconds = (exc.renews_at - timezone.now()).total_seconds()
        response["Retry-After"] = str(max(int(seconds) + 1, 1))
    return response


# --- accounts ---------------------------------------------------------------------------


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
        return bool(user.is_staff or user.has_perm("tournaments.organise_competitions"))

    def get_confirmed(self, user: AbstractBaseUser) -> bool:
        from bots.accounts import pending_email

        return pending_email(user=user) is None


class RegistrationSerializer(serializers.Serializer):
    username = serializers.RegexField(
        r"^[\w.@+-]+\Z",
        max_length=150,
        error_messages={"invalid": "Letters, digits and @/./+/-/_ only."},
    )
    email = serializers.EmailField(required=False, allow_blank=True, default="")
    password = serializers.CharField(write_only=True, max_length=128, trim_whitespace=False)

    def validate_username(self, value: str) -> str:
        if get_user_model().objects.filter(username__iexact=value).exists():
            raise serializers.ValidationError("That username is taken.")
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        user = get_user_model()(username=attrs["username"], email=attrs["email"])
        try:
            password_validation.validate_password(attrs["password"], user)
        except DjangoValidationError as exc:
            raise serializers.ValidationError({"password": exc.messages}) from None
        return attrs


class RegisteredUserSerializer(UserSerializer):
    token = serializers.CharField(read_only=True)


def _confirm_link(request: Request):
    """How a confirmation link is made for the site's page of ``request``'s host."""
    from django.urls import reverse

    return lambda token: request.build_absolute_uri(reverse("site:confirm", args=[token]))


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(read_only=True)
    expires_at = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="When the token stops working (null: never)."
    )


class RegisterView(ApiDefaults, APIView):
    """Create an account; the answer carries an API token for it.

    At most ``CARDROOM_THROTTLE_RATES["register"]`` per client address (then 429).
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
        from bots.accounts import account_register

        serializer = RegistrationSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = account_register(**serializer.validated_data, link_for=_confirm_link(request))
        token = Token.objects.create(user=user)
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
        from bots.accounts import account_confirm

        serializer = ConfirmSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = account_confirm(token=serializer.validated_data["token"])
        return Response(UserSerializer(user).data)


class ConfirmResendView(ApiDefaults, APIView):
    """Mail the signed-in account's confirmation link again (at most once a minute)."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=None, responses={202: None}, tags=["auth"])
    def post(self, request: Request) -> Response:
        from bots.accounts import confirmation_send

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
        token = _token_for(serializer.validated_data["user"])
        return Response({"token": token.key, "expires_at": token_expires_at(token)})

    @extend_schema(request=None, responses={204: None}, tags=["auth"])
    def delete(self, request: Request) -> Response:
        Token.objects.filter(user=request.user).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


def _token_for(user: AbstractBaseUser) -> Token:
    """The user's token; an expired one is replaced by a new key (rotated)."""
    return token_for_user(user)


class MeView(ApiDefaults, APIView):
    """The signed-in user."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(responses={200: UserSerializer}, tags=["auth"])
    def get(self, request: Request) -> Response:
        return Response(UserSerializer(request.user).data)


# --- routes -----------------------------------------------------------------------------


class Router(DefaultRouter):
    """The root router; its index lists every resource of the API."""

    include_format_suffixes = False


def api_urls() -> list[URLPattern | URLResolver]:
    """The ``/api/`` routes: resources, accounts, the OpenAPI schema and its docs."""
    from drf_spectacular.views import (
        SpectacularAPIView,
        SpectacularRedocView,
        SpectacularSwaggerSplitView,
    )

    from bots.api.urls import register as register_bots
    from tournaments.api.urls import register as register_tournaments

    router = Router()
    register_bots(router)
    register_tournaments(router)
    return [
        path("auth/register/", RegisterView.as_view(), name="auth-register"),
        path("auth/token/", TokenView.as_view(), name="auth-token"),
        path("auth/me/", MeView.as_view(), name="auth-me"),
        path("auth/confirm/", ConfirmView.as_view(), name="auth-confirm"),
        path("auth/confirm/resend/", ConfirmResendView.as_view(), name="auth-confirm-resend"),
        path("schema/", SpectacularAPIView.as_view(), name="schema"),
        # The split view serves its script as a file: the page needs no inline script (CSP).
        path("docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
        path("redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
        path("", include(router.urls)),
    ]


__all__ = [
    "ApiDefaults",
    "Conflict",
    "JSONParser",
    "Pagination",
    "PayloadTooLarge",
    "api_urls",
    "exception_handler",
]

"""The REST API's shared pieces: pagination, parsing limits, errors.

Every list endpoint pages with ``?page=`` and ``?page_size=`` (at most 100).
Every error is a JSON body with a 4xx status: DRF's own errors as DRF writes
them, ``django.core.exceptions.ValidationError`` from the services as a 400
in the same shape as a serializer's errors, oversized bodies as a 413 and
database conflicts as a 409, a request beyond one of the user's allowances
(``bots.allowances.AllowanceExceeded``) as a 429 naming the allowance, a sign-up beyond
its client's (``bots.accounts.SignupsExceeded``) as a 429, and public play asked of an
account too new or unconfirmed (``bots.accounts.PublicPlayRefused``) as a 403 saying
from when.

The API's views take their pagination and parsers from :class:`ApiDefaults`
(DRF reads its default classes while importing its own views, so they cannot
name classes of a module that imports DRF's views). This module imports no
view: the API's views import it, and the routes of ``/api/`` (the accounts'
endpoints in ``api.accounts``, the apps' resources on the root router) are put
together in ``api.urls``.
"""

from __future__ import annotations

from io import BytesIO
from typing import Any

from django.conf import settings
from django.core.exceptions import (
    NON_FIELD_ERRORS,
    ObjectDoesNotExist,
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from django.utils import timezone
from rest_framework import exceptions, parsers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from config.parsers import json_nests_deeper_than

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
    if isinstance(exc, DjangoValidationError) and getattr(exc, "code", None) == "public_play":
        return _public_play_refused(exc)
    if isinstance(exc, DjangoValidationError) and getattr(exc, "code", None) == "signups":
        exc = exceptions.Throttled(wait=exc.wait, detail=exc.messages[0])
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


def _public_play_refused(exc: DjangoValidationError) -> Response:
    """A 403 for ``bots.accounts.PublicPlayRefused``: ``detail`` in words (why, and from
    when), ``reason`` (``unconfirmed``, ``too-new``) and ``allowed_at``."""
    body = {"detail": exc.messages[0], "reason": exc.reason, "allowed_at": exc.allowed_at}
    return Response(body, status=status.HTTP_403_FORBIDDEN)


__all__ = [
    "ApiDefaults",
    "Conflict",
    "JSONParser",
    "Pagination",
    "PayloadTooLarge",
    "exception_handler",
]

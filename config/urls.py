"""The URL configuration: the admin, ``/api/`` (accounts, the apps' resources on one root
router, the OpenAPI schema and its docs), the pages and the metrics.

Nothing imports this module but Django (``ROOT_URLCONF``): it is the one place that
knows every app's routes, so the apps' views never import it back.
"""

from django.contrib import admin
from django.http import JsonResponse
from django.urls import URLPattern, URLResolver, include, path
from django.views import defaults
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)
from rest_framework.routers import DefaultRouter

from bots.api.accounts import account_urls
from bots.api.urls import register as register_bots
from config.metrics import metrics_view
from tournaments.api.urls import register as register_tournaments


class Router(DefaultRouter):
    """The root router; its index lists every resource of the API."""

    include_format_suffixes = False


def api_urls() -> list[URLPattern | URLResolver]:
    """The ``/api/`` routes: accounts, resources, the OpenAPI schema and its docs."""
    router = Router()
    register_bots(router)
    register_tournaments(router)
    return [
        *account_urls(),
        path("schema/", SpectacularAPIView.as_view(), name="schema"),
        # The split view serves its script as a file: the page needs no inline script (CSP).
        path("docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
        path("redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
        path("", include(router.urls)),
    ]


urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include(api_urls())),
    path("dashboard/", include("tournaments.dashboard.urls")),
    path("bots/", include("bots.web.urls")),
    path("organise/", include("tournaments.organise.urls")),
    path("metrics", metrics_view, name="metrics"),
    path("", include("tournaments.site.urls")),
]


def not_found(request, exception):
    """A 404 in the API's JSON (``{"detail": ...}``, as DRF writes it) under ``/api/``;
    Django's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": f"no such endpoint: {request.path}"}, status=404)
    return defaults.page_not_found(request, exception)


handler404 = not_found

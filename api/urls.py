"""The ``/api/`` routes: the accounts' endpoints, the apps' resources on one root
router, the OpenAPI schema and its docs (mounted by ``config.urls``)."""

from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)
from rest_framework.routers import DefaultRouter

from api.accounts import account_urls
from api.bots.urls import register as register_bots
from api.tournaments.urls import register as register_tournaments


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


urlpatterns = api_urls()

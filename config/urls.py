"""The URL configuration: the admin, ``/api/`` (:mod:`api.urls`: accounts, the apps'
resources on one root router, the OpenAPI schema and its docs), the pages (:mod:`web`)
and the metrics.

Nothing imports this module but Django (``ROOT_URLCONF``): it is the one place that
knows every app's routes, so the apps' views never import it back.
"""

from django.contrib import admin
from django.http import JsonResponse
from django.urls import include, path
from django.views import defaults

from config.metrics import metrics_view

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include("api.urls")),
    path("dashboard/", include("web.dashboard.urls")),
    path("bots/", include("web.bots.urls")),
    path("organise/", include("web.organise.urls")),
    path("metrics", metrics_view, name="metrics"),
    path("", include("web.site.urls")),
]


def not_found(request, exception):
    """A 404 in the API's JSON (``{"detail": ...}``, as DRF writes it) under ``/api/``;
    Django's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": f"no such endpoint: {request.path}"}, status=404)
    return defaults.page_not_found(request, exception)


handler404 = not_found

from django.contrib import admin
from django.http import JsonResponse
from django.urls import include, path
from django.views import defaults

from config.api import api_urls
from config.metrics import metrics_view

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

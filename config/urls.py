from django.contrib import admin
from django.urls import include, path

from config.api import api_urls

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", include(api_urls())),
    path("dashboard/", include("tournaments.dashboard.urls")),
    path("bots/", include("bots.web.urls")),
    path("organise/", include("tournaments.organise.urls")),
    path("", include("tournaments.site.urls")),
]

"""URLs of the site: the home page at ``/``, the help at ``/help/`` and the account pages
under ``/accounts/``."""

from __future__ import annotations

from django.urls import path

from web.site import views

app_name = "site"

urlpatterns = [
    path("", views.home, name="home"),
    path("help/", views.help_, name="help"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/confirm/resend/", views.confirm_resend, name="confirm-resend"),
    path("accounts/confirm/<str:token>/", views.confirm, name="confirm"),
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", views.LogoutView.as_view(), name="logout"),
]

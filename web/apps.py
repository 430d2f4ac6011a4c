from django.apps import AppConfig


class WebConfig(AppConfig):
    """The HTML pages: an app without models, for its templates and static files."""

    name = "web"

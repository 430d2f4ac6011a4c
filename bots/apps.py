from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "bots"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the Celery tasks with the app, in every process: bots.services sends
        # the validation task by name from the app's registry, also from the web server,
        # which never imports the tasks module otherwise.
        from bots import tasks  # noqa: F401

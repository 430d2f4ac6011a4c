from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Registers the Celery tasks with the app, in every process: execution and
        # version_tests send them by name from the app's registry, also from the web
        # server and the demo, which never import the tasks module otherwise.
        from tournaments.worker import tasks  # noqa: F401

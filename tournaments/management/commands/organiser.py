"""``manage.py organiser <username>``: let a user create and run competitions."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Grant (or with --revoke take back) the right to create and run competitions."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--revoke", action="store_true")

    def handle(self, *args, **opts):
        user = get_user_model().objects.filter(username=opts["username"]).first()
        if user is None:
            raise CommandError(f"no user named {opts['username']!r}")
        permission = Permission.objects.get(
            codename="organise_competitions", content_type__app_label="tournaments"
        )
        if opts["revoke"]:
            user.user_permissions.remove(permission)
            self.stdout.write(f"{user.username} may no longer organise competitions")
        else:
            user.user_permissions.add(permission)
            self.stdout.write(f"{user.username} may now create and run competitions")

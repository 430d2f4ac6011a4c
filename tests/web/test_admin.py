"""The admin grants the organiser right plainly and names its models in good English."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.factories import logged_in, make_user
from tournaments.permissions import is_organiser

pytestmark = pytest.mark.django_db


def test_staff_grant_and_revoke_the_organiser_right_from_the_users_list():
    staff = make_user("stan")
    staff.is_staff = staff.is_superuser = True
    staff.save()
    ada = make_user("ada")
    admin = logged_in(staff)
    users = reverse("admin:auth_user_changelist")

    listed = admin.get(users).content.decode()
    granted = admin.post(
        users, {"action": "grant_organiser_right", "_selected_action": [ada.pk]}, follow=True
    )

    assert "Grant the organiser right" in listed and "Organiser" in listed
    assert "may now organise competitions" in granted.content.decode()
    assert is_organiser(get_user_model().objects.get(pk=ada.pk))
    organisers = admin.get(users + "?organiser=yes").content.decode()
    assert ">ada<" in organisers
    page = logged_in(get_user_model().objects.get(pk=ada.pk)).get(reverse("organise:home"))
    assert page.status_code == 200

    admin.post(users, {"action": "revoke_organiser_right", "_selected_action": [ada.pk]})
    assert not is_organiser(get_user_model().objects.get(pk=ada.pk))
    assert ">ada<" in admin.get(users + "?organiser=no").content.decode()


def test_the_admin_says_entries_and_matches():
    staff = make_user("stan")
    staff.is_staff = staff.is_superuser = True
    staff.save()

    index = logged_in(staff).get(reverse("admin:index")).content.decode()

    assert ">Entries<" in index and ">Matches<" in index
    assert "Entrys" not in index and "Matchs" not in index

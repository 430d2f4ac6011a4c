"""Whose address a request is counted against: its peer's, unless the peer is a proxy of
``CARDROOM_TRUSTED_PROXIES`` (none by default, as in the demo).

A client that writes ``X-Forwarded-For`` itself gets no new address from it: the
failed-login limit and the sign-up limit still count it, through the site's, the
API's and the admin's doors. From a configured proxy the header is believed, and the
client is the right-most address in it that is not a proxy.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.test import Client

from config.proxies import client_address, trusted_networks
from tests.factories import PASSWORD, make_user
from tests.workers import database_url
from tournaments.demo.processes import asgi_server_argv, free_port, port_in_use, wait_until

ROOT = Path(__file__).resolve().parents[2]

#: The demo's server is reached by local clients: the peer is 127.0.0.1.
LOCAL = "127.0.0.1"


@pytest.fixture
def rates(settings):
    settings.CARDROOM_THROTTLE_RATES = {
        **settings.CARDROOM_THROTTLE_RATES,
        "register": "3/min",
        "token": "100/min",
        "login-ip": "4/min",
        "login-user": "100/hour",
    }


def forged(i: int) -> str:
    return f"198.51.100.{i + 1}"


def site_login(client: Client, username: str, password: str, **headers):
    return client.post(
        "/accounts/login/", {"username": username, "password": password}, headers=headers
    )


def admin_login(client: Client, username: str, password: str, **headers):
    data = {"username": username, "password": password}
    return client.post("/admin/login/?next=/admin/", data, headers=headers)


def api_token(client: Client, username: str, password: str, **headers):
    data = {"username": username, "password": password}
    return client.post("/api/auth/token/", data, headers=headers)


#: Each door with a failed login: (the attempt, the status of a wrong password).
LOGIN_DOORS = {"site": (site_login, 200), "admin": (admin_login, 200), "API": (api_token, 400)}


def site_signup(client: Client, name: str, **headers):
    data = {"username": name, "password": "a long passphrase 7"}
    data["password_again"] = data["password"]
    return client.post("/accounts/signup/", data, headers=headers)


def api_register(client: Client, name: str, **headers):
    data = {"username": name, "password": "a long passphrase 7"}
    return client.post("/api/auth/register/", data, headers=headers)


SIGNUP_DOORS = {"site": (site_signup, 302), "API": (api_register, 201)}


# --- a forged header from a client ------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("door", list(LOGIN_DOORS))
def test_a_forged_forwarded_for_does_not_escape_the_failed_login_limit(door, rates):
    attempt, wrong_status = LOGIN_DOORS[door]
    make_user("stan", is_staff=True)
    client = Client(REMOTE_ADDR=LOCAL)

    wrong = [
        attempt(client, f"guess{i}", "nope", x_forwarded_for=forged(i)).status_code
        for i in range(4)
    ]
    blocked = attempt(client, "stan", PASSWORD, x_forwarded_for=forged(99))

    assert wrong == [wrong_status] * 4
    assert blocked.status_code == 429, blocked.content[:200]
    assert int(blocked.headers["Retry-After"]) > 0


@pytest.mark.django_db
@pytest.mark.parametrize("door", list(SIGNUP_DOORS))
def test_a_forged_forwarded_for_does_not_escape_the_sign_up_limit(door, rates):
    sign_up, made_status = SIGNUP_DOORS[door]

    # A new client (no session) each time, as a script making accounts would be.
    made = [
        sign_up(Client(REMOTE_ADDR=LOCAL), f"user{i}", x_forwarded_for=forged(i)).status_code
        for i in range(3)
    ]
    refused = sign_up(Client(REMOTE_ADDR=LOCAL), "user9", x_forwarded_for=forged(9))

    assert made == [made_status] * 3
    assert refused.status_code == 429


# --- a configured proxy -----------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(("proxies", "proxy"), [("10.0.0.5", "10.0.0.5"), ("fd00::/8", "fd00::7")])
def test_from_a_configured_proxy_each_forwarded_client_is_counted_apart(
    proxies, proxy, rates, settings
):
    settings.CARDROOM_TRUSTED_PROXIES = proxies
    make_user("stan")
    through = Client(REMOTE_ADDR=proxy)

    # Four wrong guesses by one client behind the proxy use its allowance up...
    wrong = [
        site_login(through, f"guess{i}", "nope", x_forwarded_for="203.0.113.1").status_code
        for i in range(4)
    ]
    blocked = site_login(through, "stan", PASSWORD, x_forwarded_for="203.0.113.1")
    # ...not that of another client of the same proxy.
    other = site_login(through, "stan", PASSWORD, x_forwarded_for="203.0.113.2")

    assert wrong == [200] * 4
    assert blocked.status_code == 429
    assert other.status_code == 302


@pytest.mark.django_db
def test_behind_a_configured_proxy_the_client_cannot_forge_the_hops_before_it(rates, settings):
    settings.CARDROOM_TRUSTED_PROXIES = "10.0.0.5"
    through = Client(REMOTE_ADDR="10.0.0.5")

    # The client writes an address of its choice; the proxy appends the one it saw.
    made = [
        api_register(through, f"user{i}", x_forwarded_for=f"{forged(i)}, 203.0.113.1")
        for i in range(3)
    ]
    refused = api_register(through, "user9", x_forwarded_for=f"{forged(9)}, 203.0.113.1")

    assert [r.status_code for r in made] == [201] * 3
    assert refused.status_code == 429


# --- the rule, alone --------------------------------------------------------------------


def test_the_client_is_the_peer_unless_the_peer_is_a_trusted_proxy():
    nginx = trusted_networks("127.0.0.1, ::1")

    assert client_address("192.0.2.7", "198.51.100.1", nginx) == "192.0.2.7"
    assert client_address("127.0.0.1", "198.51.100.1", trusted_networks("")) == "127.0.0.1"
    assert client_address("127.0.0.1", "198.51.100.1", nginx) == "198.51.100.1"
    assert client_address("::1", "2001:db8::9", nginx) == "2001:db8::9"
    assert client_address("127.0.0.1", "", nginx) == "127.0.0.1"


def test_from_a_chain_of_proxies_the_client_is_the_right_most_untrusted_hop():
    chain = trusted_networks("10.0.0.0/8,127.0.0.1")

    assert client_address("127.0.0.1", "6.6.6.6, 203.0.113.1, 10.1.2.3", chain) == "203.0.113.1"
    assert client_address("127.0.0.1", "10.9.9.9, 10.1.2.3", chain) == "10.9.9.9"
    assert client_address("::ffff:127.0.0.1", "203.0.113.1", chain) == "203.0.113.1"
    assert client_address("127.0.0.1", "203.0.113.1:5050", chain) == "203.0.113.1"
    assert client_address("127.0.0.1", "[2001:db8::1]:443", chain) == "2001:db8::1"


@pytest.mark.parametrize("entry", ["nginx", "10.0.0.0/33", "127.0.0.1:80", "::1/200"])
def test_a_proxy_that_is_no_address_or_network_is_refused_naming_it(entry):
    with pytest.raises(ValueError, match=f"CARDROOM_TRUSTED_PROXIES: {entry!r} is not"):
        trusted_networks(f"127.0.0.1,{entry}")


def test_a_wrong_trusted_proxy_stops_the_start():
    env = dict(os.environ, CARDROOM_TRUSTED_PROXIES="127.0.0.1,the-proxy")

    done = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True
    )

    assert done.returncode != 0
    assert "CARDROOM_TRUSTED_PROXIES: 'the-proxy' is not an IPv4 or IPv6 address" in done.stderr


# --- the demo's web server --------------------------------------------------------------


def test_the_demo_server_believes_no_forwarded_headers_unless_proxies_are_set(monkeypatch):
    monkeypatch.delenv("CARDROOM_TRUSTED_PROXIES", raising=False)
    argv = asgi_server_argv(host="127.0.0.1", port=8000)
    assert "--no-proxy-headers" in argv and "--forwarded-allow-ips" not in argv

    monkeypatch.setenv("CARDROOM_TRUSTED_PROXIES", "10.0.0.5,fd00::/8")
    argv = asgi_server_argv(host="127.0.0.1", port=8000)
    assert argv[argv.index("--forwarded-allow-ips") + 1] == "10.0.0.5,fd00::/8"
    assert "--no-proxy-headers" not in argv


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_demo_server_counts_local_sign_ups_with_forged_headers_as_one_client(tmp_path):
    """The demo's uvicorn, on the test database: a local client forging a new
    ``X-Forwarded-For`` for every sign-up still meets the limit (it made 30 in 30)."""
    if connection.vendor != "postgresql":
        pytest.skip("the server shares a PostgreSQL test database with the test")
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CARDROOM_SECRET_KEY": django_settings.SECRET_KEY,
        "CARDROOM_CACHE_PREFIX": f"test-{uuid.uuid4().hex[:10]}",
        "CARDROOM_THROTTLE_REGISTER": "3/min",
    }
    env.pop("CARDROOM_TRUSTED_PROXIES", None)
    log = (tmp_path / "server.log").open("wb")
    server = subprocess.Popen(
        asgi_server_argv(host=LOCAL, port=port), cwd=ROOT, env=env, stdout=log, stderr=log
    )
    try:
        assert wait_until(lambda: port_in_use(LOCAL, port), timeout=30), (
            tmp_path / "server.log"
        ).read_text()
        statuses = [sign_up_over_http(port, f"forger{i}", forged(i)) for i in range(5)]
    finally:
        server.terminate()
        server.wait(timeout=10)
        log.close()

    assert statuses == [201, 201, 201, 429, 429], (tmp_path / "server.log").read_text()


def sign_up_over_http(port: int, name: str, forwarded_for: str) -> int:
    request = urllib.request.Request(
        f"http://{LOCAL}:{port}/api/auth/register/",
        data=json.dumps({"username": name, "password": "a long passphrase 7"}).encode(),
        headers={"Content-Type": "application/json", "X-Forwarded-For": forwarded_for},
    )
    deadline = time.monotonic() + 10
    while True:
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status
        except urllib.error.HTTPError as error:
            return error.code
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_a_websocket_from_a_configured_proxy_counts_against_the_forwarded_client(settings):
    from config.websocket_limits import client_key

    scope = {
        "type": "websocket",
        "client": ("127.0.0.1", 50123),
        "headers": [(b"x-forwarded-for", b"6.6.6.6, 203.0.113.1")],
    }

    settings.CARDROOM_TRUSTED_PROXIES = ""
    assert client_key(scope) == "address:127.0.0.1"
    settings.CARDROOM_TRUSTED_PROXIES = "127.0.0.1"
    assert client_key(scope) == "address:203.0.113.1"


# --- deploy/ ----------------------------------------------------------------------------


def test_the_deployed_servers_believe_forwarded_headers_from_their_proxy_only():
    """nginx shares the web server's machine (systemd) or network (compose): uvicorn and
    the rate limits trust 127.0.0.1 from the same variable; the deploy check, with no
    proxy, trusts nobody."""
    import yaml

    deploy = ROOT / "deploy"
    unit = (deploy / "systemd" / "cardroom-web.service").read_text()
    assert "Environment=CARDROOM_TRUSTED_PROXIES=127.0.0.1\n" in unit
    assert "--proxy-headers --forwarded-allow-ips ${CARDROOM_TRUSTED_PROXIES} " in unit

    web = yaml.safe_load((deploy / "compose.yaml").read_text())["services"]["web"]
    assert web["environment"]["CARDROOM_TRUSTED_PROXIES"] == "127.0.0.1"
    assert '--forwarded-allow-ips "$$CARDROOM_TRUSTED_PROXIES" ' in web["command"][2]

    check = yaml.safe_load((deploy / "check" / "compose.yaml").read_text())["services"]["web"]
    assert "--no-proxy-headers" in check["command"][2]

    image = (deploy / "Dockerfile").read_text()
    (command,) = [line for line in image.splitlines() if line.startswith("CMD ")]
    assert '--forwarded-allow-ips \\"$CARDROOM_TRUSTED_PROXIES\\"' in command

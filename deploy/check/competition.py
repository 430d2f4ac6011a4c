"""Play a competition through Cardroom's REST API to its end (for `make deploy-check`).

Standard library only: it runs on the host against the web container.

    python3 deploy/check/competition.py http://127.0.0.1:18000 --organiser-command "podman exec ..."

Registers a user, makes it an organiser (the given command, run with the user name
appended: ``manage.py organiser`` in the web container), creates a double round robin
of the built-in bots, enters them, starts it, waits until it is finished and checks
that every match is done and the standings rank every entry. Prints the standings and
the matches' workers; exits 1 with the reason on any failure.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid


class Api:
    def __init__(self, base: str) -> None:
        self.base, self.token = base.rstrip("/"), None

    def call(self, method: str, path: str, body: dict | None = None) -> dict | list:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        request.add_header("Accept", "application/json")
        if self.token:
            request.add_header("Authorization", f"Token {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as error:
            raise SystemExit(
                f"{method} {path}: {error.code} {error.read().decode()[:500]}"
            ) from None
        return json.loads(text) if text else {}

    def items(self, path: str) -> list:
        page = self.call("GET", path)
        return page["results"] if isinstance(page, dict) and "results" in page else page


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("--organiser-command", required=True)
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args()
    api = Api(args.base)

    username = f"checker-{uuid.uuid4().hex[:6]}"
    password = uuid.uuid4().hex
    account = {"username": username, "password": password}
    api.token = api.call("POST", "/api/auth/register/", account)["token"]
    subprocess.run([*shlex.split(args.organiser_command), username], check=True)
    bots = [b for b in api.items("/api/bots/?page_size=100") if b.get("builtin")]
    if len(bots) < 2:
        raise SystemExit(f"expected the built-in bots, got {bots}")
    competition = api.call(
        "POST",
        "/api/competitions/",
        {
            "name": "Deploy check",
            "kind": "tournament",
            "variant": "money-jordan",
            "format": "double-round-robin",
            "games_per_match": 2,
            "seats_per_table": 2,
        },
    )
    cid = competition["id"]
    for bot in bots:
        api.call("POST", "/api/entries/", {"competition": cid, "bot": bot["id"]})
    api.call("POST", f"/api/competitions/{cid}/start/")
    started = time.monotonic()
    while True:
        status = api.call("GET", f"/api/competitions/{cid}/")["status"]
        if status == "finished":
            break
        if time.monotonic() - started > args.timeout:
            raise SystemExit(f"competition {cid} is still {status} after {args.timeout:.0f} s")
        time.sleep(1)
    matches = api.items(f"/api/matches/?competition={cid}&page_size=100")
    standings = api.call("GET", f"/api/competitions/{cid}/standings/")
    rows = standings["results"] if isinstance(standings, dict) else standings
    not_done = [m for m in matches if m["status"] != "done"]
    expected = len(bots) * (len(bots) - 1)  # a double round robin at two seats
    print(f"competition {cid} finished in {time.monotonic() - started:.1f} s")
    for row in rows:
        print(f"  {row['rank']:>2}  {row['name']}")
    print(f"{len(matches)} matches, {len(not_done)} not done")
    if not_done or len(matches) != expected or len(rows) != len(bots):
        raise SystemExit(f"expected {expected} done matches and {len(bots)} standings rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())

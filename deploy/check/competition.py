"""Play a competition through Cardroom's REST API to its end (for `make deploy-check`).

Standard library only: it runs on the host against the web container.

    python3 deploy/check/competition.py http://127.0.0.1:18000 --organiser-command "podman exec ..."

Registers a user, makes it an organiser (the given command, run with the user name
appended: ``manage.py organiser`` in the web container), uploads ``--uploads`` copies
of the example Python bot and waits until a worker has validated them (in its
sandbox, from the bot store), creates a round robin of those and the built-in bots,
starts it, waits until it is finished and checks that every match is done and the
standings rank every entry. Prints the standings; exits 1 with the reason on any failure.
"""

from __future__ import annotations

import argparse
import json
import pathlib
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

    def upload(self, path: str, filename: str, content: bytes) -> dict:
        boundary = uuid.uuid4().hex
        body = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
                f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
            ).encode()
            + content
            + f"\r\n--{boundary}--\r\n".encode()
        )
        request = urllib.request.Request(self.base + path, data=body, method="POST")
        request.add_header("Content-Type", f"multipart/form-data; boundary={boundary}")
        request.add_header("Authorization", f"Token {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read().decode())
        except urllib.error.HTTPError as error:
            raise SystemExit(f"upload {path}: {error.code} {error.read().decode()[:500]}") from None

    def items(self, path: str) -> list:
        page = self.call("GET", path)
        return page["results"] if isinstance(page, dict) and "results" in page else page


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("--organiser-command", required=True)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--uploads", type=int, default=4)
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
    bots += upload_bots(api, args.uploads, args.timeout)
    competition = api.call(
        "POST",
        "/api/competitions/",
        {
            "name": "Deploy check",
            "kind": "tournament",
            "variant": "money-jordan",
            "format": "round-robin",
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
    expected = len(bots) * (len(bots) - 1) // 2  # a round robin at two seats
    print(f"competition {cid} finished in {time.monotonic() - started:.1f} s")
    for row in rows:
        print(f"  {row['rank']:>2}  {row['name']}")
    print(f"{len(matches)} matches, {len(not_done)} not done")
    if not_done or len(matches) != expected or len(rows) != len(bots):
        raise SystemExit(f"expected {expected} done matches and {len(bots)} standings rows")
    return 0


def upload_bots(api: Api, count: int, timeout: float) -> list[dict]:
    """``count`` uploads of bots/examples/python/bot.py (each a little different), once
    a worker has validated them all (ready)."""
    source = (
        pathlib.Path(__file__).parents[2] / "bots" / "examples" / "python" / "bot.py"
    ).read_bytes()
    bots = []
    for i in range(count):
        bot = api.call("POST", "/api/bots/", {"name": f"example-{i}"})
        api.upload(
            f"/api/bots/{bot['id']}/versions/", "bot.py", source + f"\n# copy {i}\n".encode()
        )
        bots.append(bot)
    started = time.monotonic()
    for bot in bots:
        while True:
            version = api.items(f"/api/bots/{bot['id']}/versions/")[0]
            if version["status"] == "ready":
                break
            if version["status"] == "rejected" or time.monotonic() - started > timeout:
                report = api.call("GET", f"/api/bots/{bot['id']}/versions/{version['number']}/")
                raise SystemExit(f"{bot['name']} not validated: {report}")
            time.sleep(1)
    print(f"{count} uploaded bots validated by the workers in {time.monotonic() - started:.1f} s")
    return bots


if __name__ == "__main__":
    sys.exit(main())

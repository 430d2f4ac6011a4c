"""Hostile bot: on ``act`` tries to reach the network and reports every attempt.

Targets: the host's Redis and PostgreSQL ports, a port given in the hello
``options`` (a listener the test opened on the host), and 192.0.2.1 (TEST-NET-1,
never routed) with a 1 s timeout. Also lists its network interfaces.
"""

import json
import socket
import sys


def attempt(host, port):
    try:
        with socket.create_connection((host, port), timeout=1):
            return "connected"
    except OSError as error:
        return "failed: " + error.__class__.__name__ + ": " + str(error)


def probe(options):
    targets = [("127.0.0.1", 6379), ("127.0.0.1", 5432), ("192.0.2.1", 80)]
    targets += [("127.0.0.1", port) for port in options.get("ports", [])]
    report = {f"{host}:{port}": attempt(host, port) for host, port in targets}
    # From the kernel (netlink), not /proc/net/dev, which the sandbox does not let it read.
    report["interfaces"] = sorted(name for _, name in socket.if_nameindex())
    return report


options = {}
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        options = message.get("options", {})
        print(json.dumps({"ready": True, "name": "network"}), flush=True)
    elif message["type"] == "act":
        report = probe(options)
        print(json.dumps({"action": message["legal"][0], "report": report}), flush=True)

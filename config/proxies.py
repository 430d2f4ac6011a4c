"""Which address a request comes from, given the proxies this installation trusts.

``CARDROOM_TRUSTED_PROXIES`` names the reverse proxies in front of the web server:
comma-separated IPv4 or IPv6 addresses and networks (``127.0.0.1``, ``10.0.0.0/8``,
``::1``, ``fd00::/8``), none by default. A request whose peer (``REMOTE_ADDR``, the
ASGI ``client``) is one of them comes from the right-most address of its
``X-Forwarded-For`` that is not one of them: each proxy appends the address it was
reached from, so everything to the left of that hop was written by the client and
proves nothing. Any other request comes from its peer, whatever its headers say.

The ASGI server is given the same list (``tournaments.demo.processes.asgi_server_argv``, the
units of deploy/): uvicorn trusts ``X-Forwarded-*`` from 127.0.0.1 unless told
otherwise. Where it has already put the client's address in the peer, the rule
gives that address again: it is not a trusted proxy.

Rate limits count an IPv6 client by its /64 network (:func:`client_block`): one
subscriber or one LAN is given a /64 and may write any of its 2**64 addresses.

Plain Python: no Django here.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

#: The prefix length of the IPv6 network that counts as one client.
IPV6_CLIENT_PREFIX = 64


@functools.lru_cache(maxsize=16)
def trusted_networks(text: str) -> tuple[Network, ...]:
    """The networks of a ``CARDROOM_TRUSTED_PROXIES`` value (an address is a network of
    one). Raises ``ValueError`` naming the entry that is neither."""
    networks = []
    for entry in (part.strip() for part in text.split(",")):
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(
                f"CARDROOM_TRUSTED_PROXIES: {entry!r} is not an IPv4 or IPv6 address or "
                "network (such as 127.0.0.1, 10.0.0.0/8 or fd00::/8)"
            ) from None
    return tuple(networks)


def _address(text: str) -> Address | None:
    """The IP address ``text`` names (an IPv4-mapped IPv6 address as IPv4), else None."""
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _host(hop: str) -> str:
    """A hop of ``X-Forwarded-For`` without the port some proxies add (``1.2.3.4:5678``,
    ``[2001:db8::1]:443``): one client, whatever port it came from."""
    hop = hop.strip()
    if hop.startswith("[") and "]" in hop:
        return hop[1 : hop.index("]")]
    if hop.count(":") == 1:
        return hop.partition(":")[0]
    return hop


def is_trusted(text: str, networks: Iterable[Network]) -> bool:
    """True if ``text`` is the address of one of the trusted ``networks``."""
    address = _address(text)
    return address is not None and any(address in network for network in networks)


def client_address(peer: str, forwarded_for: str, networks: Iterable[Network]) -> str:
    """The address a request comes from: ``peer`` itself unless it is a trusted proxy;
    then the right-most hop of ``forwarded_for`` (``X-Forwarded-For``, hops separated by
    commas) that is not trusted, or the left-most hop when every one is (the client is a
    proxy of ours itself), or ``peer`` when the header names none."""
    networks = tuple(networks)
    if not networks or not is_trusted(peer, networks):
        return peer
    hops = [_host(hop) for hop in forwarded_for.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not is_trusted(hop, networks):
            return hop
    return hops[0] if hops else peer


def client_block(text: str) -> str:
    """What counts as one client of the address ``text``: an IPv4 address itself (an
    IPv4-mapped IPv6 address as IPv4), an IPv6 address's /:data:`IPV6_CLIENT_PREFIX`
    network (``2001:db8:1:2::/64``); text that is no address, as it is."""
    address = _address(text)
    if address is None:
        return text.strip()
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, IPV6_CLIENT_PREFIX), strict=False))
    return str(address)

"""Which peers may name the client: ``synthenv serve --forwarded-allow-ips``.

uvicorn replaces a request's client address (``scope["client"]``) with the one in
``X-Forwarded-For`` when the connection comes from a trusted address, before any of the app
runs (its ``proxy_headers``, on in every server :func:`pipeline.server.runner.make_server`
builds), so everything that goes by the client address sees the same one: the OpenEnv
server's ``--max-sessions-per-client`` and, in synthenv's own server (which has no per-client
limit), the trainer's stateless MCP calls, which find their connection's session by address
and port (a forwarded address has port 0 unless the proxy sends one, so behind a trusted proxy
that is one session per client address; name the session instead). Without a trusted proxy
every client behind one has the proxy's address.

uvicorn's default is ``$FORWARDED_ALLOW_IPS``, else ``127.0.0.1,::1``. It turns an entry it
cannot parse into a literal that never equals a TCP peer, so a typo (``localhost``,
``10.0.0.1/8``) would trust nobody without a word: :func:`trusted_proxies` refuses it instead.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

FORWARDED_ALLOW_IPS_ENV = "FORWARDED_ALLOW_IPS"
UVICORN_DEFAULT = "127.0.0.1,::1"
"""What uvicorn trusts when neither ``forwarded_allow_ips`` nor ``$FORWARDED_ALLOW_IPS`` is given."""


def trusted_proxies(value: str | Sequence[str]) -> list[str]:
    """``value`` (comma-separated, or a list) as uvicorn's ``forwarded_allow_ips``: IP addresses and
    networks (``10.0.0.0/8``), or ``*`` alone for any peer; nothing trusts no peer. ValueError names
    an entry that is neither."""
    raw = value.split(",") if isinstance(value, str) else [part for item in value for part in item.split(",")]
    entries = [entry.strip() for entry in raw if entry.strip()]
    if entries == ["*"]:
        return ["*"]
    trusted = []
    for entry in entries:
        if entry == "*":
            raise ValueError("'*' (any peer) stands alone, not in a list of addresses")
        try:
            trusted.append(str(ipaddress.ip_network(entry) if "/" in entry else ipaddress.ip_address(entry)))
        except ValueError:
            try:
                network = ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(
                    f"{entry!r} is not an IP address or network (such as 10.0.0.1 or 10.0.0.0/8)"
                ) from None
            raise ValueError(f"{entry!r} has host bits set; the network is {network}") from None
    return trusted

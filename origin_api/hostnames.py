"""A Host header's name, as the hub's endpoints and the admin UI's guard compare it with the
names they answer to (a DNS-rebinding page never reaches either)."""

from __future__ import annotations


def bare_host(host: str) -> str:
    """A Host header's name without its port; IPv6 literals lose their brackets."""
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        return host.split(":", 1)[0]
    return host

"""The privacy lint: fixtures ship forever, so they hold placeholder identities only.

Every string in a fixture (keys included) is scanned for what looks like a real person, secret
or host:

- `privacy.email`: an e-mail address outside the example domains;
- `privacy.credential`: a credential as `harness.credentials` knows it, the same shapes that
  reports redact (the value after a secret-looking key such as `api_key=`, `password:` or
  `DB_PASSWORD=`, whatever its length, or under one in the JSON itself, an `Authorization:`
  header of any scheme, `Bearer`/`Basic` credentials, cookies, a password in a URL, `sk-…`,
  `ghp_…`, `AKIA…`, `xox…-`, `AIza…`, a JWT, a PEM or PGP private key block), or a long
  high-entropy token. Prose about secrets passes (`reset my password`, `the next token: a
  word`), and so does a value that only stands in for one (`password: <your password>`,
  `NPM_TOKEN=${NPM_TOKEN}`, `api_key: ***`);
- `privacy.ip`: an IP address outside the documentation ranges (192.0.2.0/24,
  198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32) and loopback;
- `privacy.url`: a URL to a host that is not an example or reserved name.

Allowed without configuration: example.com, example.org, example.net and their subdomains, and
the reserved top-level names .example, .test, .invalid and .localhost (RFC 2606), plus
`localhost`. `privacy_allow` in `[tool.harness]` adds domains (suffix match), IP addresses or
networks, and exact strings. Findings never print a secret in full.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from harness import credentials
from harness.authoring.randomness import random_tokens

__all__ = ["Finding", "PrivacyLint"]

EXAMPLE_DOMAINS = ("example.com", "example.org", "example.net")
RESERVED_TLDS = ("example", "test", "invalid", "localhost")
DOCUMENTATION_NETWORKS = tuple(
    ipaddress.ip_network(net)
    for net in (
        "192.0.2.0/24",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "2001:db8::/32",
        "127.0.0.0/8",
        "::1/128",
    )
)

_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})"
)
_URL = re.compile(
    r"\b[a-zA-Z][a-zA-Z0-9+.-]{0,31}://(?:[^@/\s]+@)?(\[[0-9A-Fa-f:.]+\]|[^/\s:?#\"']+)"
)
_IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")
_IPV6 = re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])")


class Finding(msgspec.Struct, frozen=True, kw_only=True):
    """One string that looks like it should not be in a fixture."""

    rule: str
    """`privacy.email`, `privacy.credential`, `privacy.ip` or `privacy.url`."""
    location: str
    """The JSON path of the string."""
    message: str
    """What it looks like, with the value masked."""


class PrivacyLint:
    """Scans decoded JSON for real-looking identities, with a configurable allow-list."""

    def __init__(self, allow: Iterable[str] = ()) -> None:
        self.allowed_strings: set[str] = set()
        self.allowed_domains: list[str] = []
        self.allowed_networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        for entry in allow:
            try:
                self.allowed_networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                self.allowed_strings.add(entry)
                self.allowed_domains.append(entry.lower().lstrip("."))

    def scan(self, document: Any) -> list[Finding]:
        """Every finding in a decoded JSON document, in document order.

        A string under a secret-looking key (`"api_key": "…"`) is a secret whatever it looks
        like, as redaction treats it.
        """
        findings: list[Finding] = []
        for path, text, key in _strings(document, "$"):
            found = list(self.check(path, text))
            findings += found
            if key is not None and self._secret_under(key, text, found):
                findings.append(
                    Finding(
                        rule="privacy.credential",
                        location=path,
                        message=f"looks like a secret under {key!r}: {_mask(text)}",
                    )
                )
        return findings

    def _secret_under(self, key: str, text: str, found: list[Finding]) -> bool:
        if text in self.allowed_strings or any(f.rule == "privacy.credential" for f in found):
            return False  # allowed, or already flagged for what it looks like
        return credentials.secret_value(key, text)

    def check(self, path: str, text: str) -> Iterator[Finding]:
        """The findings in one string."""
        if text in self.allowed_strings:
            return
        for match in _EMAIL.finditer(text):
            if not self._allowed_host(match[1]):
                yield Finding(
                    rule="privacy.email",
                    location=path,
                    message=f"looks like a real e-mail address: {_mask_email(match[0])}",
                )
        for match in _URL.finditer(text):
            host = match[1].strip("[]").lower()
            if not self._allowed_host(host):
                yield Finding(
                    rule="privacy.url",
                    location=path,
                    message=f"links to a non-example host: {host}",
                )
        yield from self._ips(path, text)
        yield from self._credentials(path, text)

    def _ips(self, path: str, text: str) -> Iterator[Finding]:
        for match in (*_IPV4.finditer(text), *_IPV6.finditer(text)):
            try:
                address = ipaddress.ip_address(match[0])
            except ValueError:
                continue  # a version number, a time of day: not an address
            if not self._allowed_ip(address):
                yield Finding(
                    rule="privacy.ip",
                    location=path,
                    message=f"IP address outside the documentation ranges: {address}",
                )

    def _credentials(self, path: str, text: str) -> Iterator[Finding]:
        found = credentials.find(text)
        for credential in found:
            yield Finding(
                rule="privacy.credential",
                location=path,
                message=f"looks like a {credential.kind}: {_mask(credential.secret)}",
            )
        if found:
            return
        for token in random_tokens(text):
            if token not in self.allowed_strings:
                yield Finding(
                    rule="privacy.credential",
                    location=path,
                    message=f"looks like a secret token (high entropy): {_mask(token)}",
                )

    def _allowed_host(self, host: str) -> bool:
        host = host.lower().rstrip(".")
        try:
            return self._allowed_ip(ipaddress.ip_address(host))
        except ValueError:
            pass
        if host == "localhost" or host.rsplit(".", 1)[-1] in RESERVED_TLDS:
            return True
        domains = (*EXAMPLE_DOMAINS, *self.allowed_domains)
        return any(host == domain or host.endswith(f".{domain}") for domain in domains)

    def _allowed_ip(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        networks = (*DOCUMENTATION_NETWORKS, *self.allowed_networks)
        return address.is_unspecified or any(address in network for network in networks)


def _strings(
    value: Any, path: str, key: str | None = None
) -> Iterator[tuple[str, str, str | None]]:
    """Each string in `value` with its JSON path and, for an object's value, its key."""
    if isinstance(value, str):
        yield path, value, key
    elif isinstance(value, dict):
        for name, item in value.items():
            child = (
                f"{path}.{name}"
                if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name)
                else f"{path}[{name!r}]"
            )
            yield child, name, None
            yield from _strings(item, child, name)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]")


def _mask(secret: str) -> str:
    return f"{secret[: credentials.KEEP]}…({len(secret)} chars)"


def _mask_email(address: str) -> str:
    local, _, domain = address.partition("@")
    return f"{local[:1]}***@{domain}"

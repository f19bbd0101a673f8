"""Domain lists for include/exclude filters: normalised, wildcard-aware, fast on long lists.

A pattern is a host name (``docs.rs``: that host and its subdomains) or a glob with ``*``
(``*.gov``, ``docs.*.org``, ``example.*``). Plain names are kept in a set and a host is
checked by walking its suffixes (``a.b.docs.rs`` → ``b.docs.rs`` → ``docs.rs`` → ``rs``), so
a list of 10,000 names costs a handful of set lookups per result, not 10,000 comparisons.
Globs compile into one regular expression.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from unifind.errors import InputError

#: More patterns than this are refused: a list this long is a mistake, not a filter.
MAX_PATTERNS = 10_000
_LABEL = re.compile(r"^(\*|[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?|xn--[a-z0-9-]+)$")


def normalise(raw: str, *, field_name: str = "sites") -> str:
    """``https://Docs.RS/x`` → ``docs.rs``; ``*.GOV`` → ``*.gov``; junk raises InputError."""
    text = raw.strip().lower()
    if "://" in text:
        text = urlsplit(text).hostname or ""
    text = text.split("/", 1)[0].rstrip(".")
    if text.startswith("."):  # ".gov" is how people write "the .gov TLD"
        text = "*" + text
    if not text or any(not _LABEL.match(label) for label in text.split(".")):
        raise InputError(
            f"{field_name}: {raw!r} is not a domain; give a host name like docs.python.org "
            "or a wildcard like *.gov"
        )
    return text


def matches_everything(pattern: str) -> bool:
    return set(pattern) <= {"*", "."}


@dataclass(frozen=True)
class DomainSet:
    """Patterns to test hosts against (``docs.rs`` also matches ``api.docs.rs``)."""

    patterns: tuple[str, ...] = ()
    _names: frozenset[str] = field(default=frozenset(), repr=False)
    _glob: re.Pattern[str] | None = field(default=None, repr=False)

    @classmethod
    def parse(cls, raw: tuple[str, ...] | list[str] | None, *, field_name: str) -> DomainSet:
        """Validate and normalise; duplicates dropped, order kept."""
        items = list(raw or ())
        if len(items) > MAX_PATTERNS:
            raise InputError(
                f"{field_name}: {len(items):,} domains given; at most {MAX_PATTERNS:,} are accepted"
            )
        patterns = tuple(dict.fromkeys(normalise(p, field_name=field_name) for p in items))
        names = frozenset(p for p in patterns if "*" not in p)
        globs = [p for p in patterns if "*" in p]
        # "*.gov" should also match "gov.uk"? No: fnmatch on the whole host, plus the bare
        # suffix itself ("*.example.com" matches example.com too, as site: does).
        regex = None
        if globs:
            alts = [fnmatch.translate(g) for g in globs]
            alts += [fnmatch.translate(g[2:]) for g in globs if g.startswith("*.")]
            regex = re.compile("|".join(f"(?:{a})" for a in alts))
        return cls(patterns, names, regex)

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def __len__(self) -> int:
        return len(self.patterns)

    @property
    def everything(self) -> bool:
        """A pattern like ``*`` that matches every host."""
        return any(matches_everything(p) for p in self.patterns)

    def match_host(self, host: str) -> bool:
        host = host.lower().rstrip(".")
        if not host:
            return False
        if self._names:
            labels = host.split(".")
            for i in range(len(labels)):
                if ".".join(labels[i:]) in self._names:
                    return True
        return bool(self._glob and self._glob.match(host))

    def match_url(self, url: str) -> bool:
        return self.match_host(urlsplit(url).hostname or "")

    def operator_sites(self) -> tuple[str, ...] | None:
        """The patterns as ``site:`` operands, or None when one can't be written so.

        ``*.gov`` → ``gov`` (site: takes a suffix); ``example.*`` has no operator form.
        """
        out: list[str] = []
        for p in self.patterns:
            bare = p[2:] if p.startswith("*.") else p
            if "*" in bare:
                return None
            out.append(bare)
        return tuple(dict.fromkeys(out))

    def native_domains(self) -> tuple[str, ...] | None:
        """The patterns as a provider's domain-list parameter takes them (plain names and
        ``*.suffix``, which providers read as "this domain and its subdomains"), or None."""
        return self.operator_sites()

"""Microversion negotiation for the compute API (2.1 – 2.104).

The client names a version in ``OpenStack-API-Version: compute X.Y`` or the
legacy ``X-OpenStack-Nova-API-Version: X.Y``; microversion-parse reads both.
No header means 2.1, ``latest`` means the maximum. A malformed string is a 400,
a well-formed one outside the range a 406, both with Nova's messages.
"""
import functools
import re

import microversion_parse

SERVICE_TYPE = "compute"
HEADER = "OpenStack-API-Version"
LEGACY_HEADER = "X-OpenStack-Nova-API-Version"
VARY = f"{HEADER}, {LEGACY_HEADER}"

_VERSION_RE = re.compile(r"^([1-9]\d*)\.([1-9]\d*|0)$")


@functools.total_ordering
class Version:
    """A microversion; compares as (major, minor)."""

    __slots__ = ("major", "minor")

    def __init__(self, major, minor):
        self.major = major
        self.minor = minor

    @classmethod
    def parse(cls, text):
        match = _VERSION_RE.match(text or "")
        if not match:
            raise InvalidVersionString(text)
        return cls(int(match.group(1)), int(match.group(2)))

    def _key(self):
        return (self.major, self.minor)

    def __eq__(self, other):
        return isinstance(other, Version) and self._key() == other._key()

    def __lt__(self, other):
        return self._key() < other._key()

    def __hash__(self):
        return hash(self._key())

    def __str__(self):
        return f"{self.major}.{self.minor}"

    __repr__ = __str__

    def matches(self, min_version=None, max_version=None):
        """True when ``min_version <= self <= max_version`` (None = open)."""
        if min_version is not None and self < as_version(min_version):
            return False
        if max_version is not None and self > as_version(max_version):
            return False
        return True


class InvalidVersionString(ValueError):
    def __init__(self, text):
        self.text = text
        super().__init__(
            f"API Version String {text} is of invalid format. Must be of "
            f"format MajorNum.MinorNum.")


class VersionNotSupported(ValueError):
    def __init__(self, version):
        self.version = version
        super().__init__(
            f"Version {version} is not supported by the API. Minimum is "
            f"{MIN_VERSION} and maximum is {MAX_VERSION}.")


MIN_VERSION = Version(2, 1)
MAX_VERSION = Version(2, 104)
DEFAULT_VERSION = MIN_VERSION


@functools.lru_cache(maxsize=256)
def as_version(value):
    """A Version from a Version or an "X.Y" string (cached: hot path)."""
    if isinstance(value, Version):
        return value
    return Version.parse(value)


def from_headers(headers):
    """The requested Version; raises InvalidVersionString/VersionNotSupported.

    ``headers`` is any case-insensitive mapping (webob's request headers).
    """
    text = microversion_parse.get_version(
        headers, service_type=SERVICE_TYPE, legacy_headers=[LEGACY_HEADER])
    if text is None:
        return DEFAULT_VERSION
    text = text.strip()
    if text == "latest":
        return MAX_VERSION
    version = _parse_cached(text)
    if not version.matches(MIN_VERSION, MAX_VERSION):
        raise VersionNotSupported(version)
    return version


@functools.lru_cache(maxsize=256)
def _parse_cached(text):
    return Version.parse(text)


def response_headers(version):
    """The headers every versioned response carries."""
    return [(HEADER, f"{SERVICE_TYPE} {version}"),
            (LEGACY_HEADER, str(version)),
            ("Vary", VARY)]

"""Request validation: JSON Schema per handler and microversion range.

Bodies and query strings are checked before the handler runs. Validators are
built once, when the handler module is imported. Error messages follow
Nova's wording (``Invalid input for field/attribute <field>. Value: <v>.
<reason>``) so that clients and tests matching on them keep working.

The decorators also record each schema on the handler (``__keel_schemas__``)
so the schema-parity test and the OpenAPI document can find them.
"""
import base64
import functools
import ipaddress
import re
import unicodedata
import urllib.parse
import uuid

import jsonschema
from jsonschema import validators as js_validators
from oslo_utils import timeutils

from keel import exception

BASE_VALIDATOR = js_validators.Draft202012Validator
FORMAT_CHECKER = jsonschema.FormatChecker(formats=())


class InvalidName(exception.Invalid):
    msg_fmt = ("An invalid 'name' value was provided. The name must be: "
               "%(reason)s")


class InvalidAZName(exception.Invalid):
    msg_fmt = ("An invalid 'availability_zone' value was provided. The name "
               "must be: %(reason)s")


_NAME_REASON = ("printable characters. Can not start or end with "
                "whitespace.")
_NAME_WS_REASON = "printable characters with at least one non space character"
_AZ_REASON = ("printable characters except :. Can not start or end with "
              "whitespace.")


def _printable(text):
    return all(not unicodedata.category(ch).startswith("C") for ch in text)


@FORMAT_CHECKER.checks("name", raises=InvalidName)
def _check_name(instance):
    if (isinstance(instance, str) and _printable(instance)
            and instance == instance.strip()):
        return True
    raise InvalidName(reason=_NAME_REASON)


@FORMAT_CHECKER.checks("name_with_leading_trailing_spaces",
                       raises=InvalidName)
def _check_name_spaces(instance):
    if isinstance(instance, str) and _printable(instance) and instance.strip():
        return True
    raise InvalidName(reason=_NAME_WS_REASON)


@FORMAT_CHECKER.checks("az_name", raises=InvalidAZName)
def _check_az_name(instance):
    if (isinstance(instance, str) and _printable(instance)
            and ":" not in instance and instance == instance.strip()):
        return True
    raise InvalidAZName(reason=_AZ_REASON)


@FORMAT_CHECKER.checks("az_name_with_leading_trailing_spaces",
                       raises=InvalidAZName)
def _check_az_name_spaces(instance):
    if (isinstance(instance, str) and _printable(instance)
            and ":" not in instance and instance.strip()):
        return True
    raise InvalidAZName(reason=_AZ_REASON)


@FORMAT_CHECKER.checks("uuid")
def _check_uuid(instance):
    if not isinstance(instance, str):
        return True  # type mismatches are the "type" keyword's business
    try:
        uuid.UUID(instance)
    except ValueError:
        return False
    return True


@FORMAT_CHECKER.checks("date-time")
def _check_datetime(instance):
    if not isinstance(instance, str):
        return True
    try:
        timeutils.parse_isotime(instance)
    except ValueError:
        return False
    return True


@FORMAT_CHECKER.checks("base64")
def _check_base64(instance):
    if not isinstance(instance, str):
        return True
    try:
        # Nova's check is lenient: characters outside the alphabet (the
        # samples' spaces) are skipped, only bad padding fails.
        base64.decodebytes(instance.encode("utf-8"))
    except ValueError:
        return False
    return True


@FORMAT_CHECKER.checks("cidr")
def _check_cidr(instance):
    if not isinstance(instance, str):
        return True
    if "/" not in instance:
        return False
    try:
        ipaddress.ip_network(instance, strict=False)
    except ValueError:
        return False
    return True


def _ip_checker(cls):
    def check(instance):
        if not isinstance(instance, str):
            return True
        try:
            cls(instance)
        except ValueError:
            return False
        return True
    return check


FORMAT_CHECKER.checks("ipv4")(_ip_checker(ipaddress.IPv4Address))
FORMAT_CHECKER.checks("ipv6")(_ip_checker(ipaddress.IPv6Address))


@FORMAT_CHECKER.checks("uri")
def _check_uri(instance):
    if not isinstance(instance, str):
        return True
    try:
        parts = urllib.parse.urlsplit(instance)
    except ValueError:
        return False
    return bool(parts.scheme and parts.netloc) and " " not in instance


@FORMAT_CHECKER.checks("regex")
def _check_regex(instance):
    if not isinstance(instance, str):
        return True
    try:
        re.compile(instance)
    except re.error:
        return False
    return True


_MAC_RE = re.compile(r"^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$")


@FORMAT_CHECKER.checks("mac-address")
def _check_mac(instance):
    return not isinstance(instance, str) or bool(_MAC_RE.match(instance))


def _number_or_none(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    try:
        return int(value)
    except (TypeError, ValueError):
        try:
            return float(value)
        except (TypeError, ValueError):
            return None


def _bound(keyword):
    # Nova compares numeric strings ("10" in query strings and some bodies)
    # as numbers for minimum/maximum; anything not numeric is left to "type".
    original = BASE_VALIDATOR.VALIDATORS[keyword]

    def check(validator, bound, instance, schema):
        number = _number_or_none(instance)
        if number is None:
            return
        yield from original(validator, bound, number, schema) or ()
    return check


def _soft_additional_properties(validator, aP, instance, schema):
    """Legacy /v2 requests: unknown properties are dropped, not refused."""
    if not validator.is_type(instance, "object") or aP is not False:
        yield from (BASE_VALIDATOR.VALIDATORS["additionalProperties"](
            validator, aP, instance, schema) or ())
        return
    props = set(schema.get("properties", {}))
    patterns = [re.compile(p) for p in schema.get("patternProperties", {})]
    for key in list(instance):
        if key not in props and not any(p.search(key) for p in patterns):
            del instance[key]


StrictValidator = js_validators.extend(BASE_VALIDATOR, {
    "minimum": _bound("minimum"), "maximum": _bound("maximum")})
LegacyValidator = js_validators.extend(StrictValidator, {
    "additionalProperties": _soft_additional_properties})


class SchemaValidator:
    """A compiled schema raising keel.exception.ValidationError like Nova."""

    def __init__(self, schema, is_body=True):
        self.schema = schema
        self.is_body = is_body
        self._strict = StrictValidator(schema, format_checker=FORMAT_CHECKER)
        self._legacy = None

    def errors(self, document):
        """All errors (for tests and tools); empty when valid."""
        return list(self._strict.iter_errors(document))

    def is_valid(self, document):
        try:
            self.validate(document)
        except exception.ValidationError:
            return False
        return True

    def validate(self, document, legacy=False):
        validator = self._strict
        if legacy:
            if self._legacy is None:
                self._legacy = LegacyValidator(
                    self.schema, format_checker=FORMAT_CHECKER)
            validator = self._legacy
        try:
            error = next(validator.iter_errors(document), None)
        except TypeError as exc:  # non-string patternProperties keys
            raise exception.ValidationError(detail=str(exc))
        if error is not None:
            raise exception.ValidationError(detail=self._detail(error))

    def _detail(self, error):
        if isinstance(error.cause, exception.NovaException):
            return error.cause.format_message()
        path = list(error.path)
        if not path:
            return error.message
        if self.is_body:
            return (f"Invalid input for field/attribute {path[-1]}. "
                    f"Value: {error.instance}. {error.message}")
        return (f"Invalid input for query parameters {path[0]}. "
                f"Value: {error.instance}. {error.message}")


def _in_range(req, min_version, max_version):
    return req.version_matches(min_version, max_version)


def _record(func, kind, schema, min_version, max_version):
    records = list(getattr(func, "__keel_schemas__", ()))
    records.append({"kind": kind, "schema": schema,
                    "min_version": min_version, "max_version": max_version})
    return records


def schema(body_schema, min_version=None, max_version=None):
    """Validate the JSON body against ``body_schema`` in the version range."""
    validator = SchemaValidator(body_schema, is_body=True)

    def decorator(func):
        @functools.wraps(func)
        def wrapper(req, **kwargs):
            if _in_range(req, min_version, max_version):
                validator.validate(req.json_body, legacy=req.is_legacy_v2)
            return func(req, **kwargs)
        wrapper.__keel_schemas__ = _record(func, "body", body_schema,
                                           min_version, max_version)
        return wrapper
    return decorator


def schemas(by_version):
    """``schema`` for each ``(body_schema, min_version, max_version)`` of an
    action whose body changes with the microversion."""
    def decorator(func):
        for body_schema, low, high in by_version:
            func = schema(body_schema, low, high)(func)
        return func
    return decorator


def query_schema(params_schema, min_version=None, max_version=None):
    """Validate the query string (``{name: [values]}``) in the range.

    As Nova does, parameters the schema does not name are dropped from the
    request when it allows additional properties.
    """
    validator = SchemaValidator(params_schema, is_body=False)
    known = set(params_schema.get("properties", {}))
    patterns = [re.compile(p)
                for p in params_schema.get("patternProperties", {})]
    strip = params_schema.get("additionalProperties", True) is not False

    def decorator(func):
        @functools.wraps(func)
        def wrapper(req, **kwargs):
            if _in_range(req, min_version, max_version):
                validator.validate(req.GET.dict_of_lists())
                if strip:
                    for name in set(req.GET.keys()) - known:
                        if not any(p.match(name) for p in patterns):
                            del req.GET[name]
            return func(req, **kwargs)
        wrapper.__keel_schemas__ = _record(func, "query", params_schema,
                                           min_version, max_version)
        return wrapper
    return decorator

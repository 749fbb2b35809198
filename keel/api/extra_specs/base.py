"""One known extra spec: its name (maybe with ``{param}`` parts) and what
its value may be (``str`` with an enum or pattern, ``int`` with bounds, or
``bool``-like)."""
import re

from oslo_utils import strutils

from keel import exception


def _fail(text):
    return exception.ValidationError(detail=f"Validation failed; {text}")


class Spec:
    def __init__(self, name, value_type=str, enum=None, pattern=None,
                 minimum=None, maximum=None, parameters=None):
        self.name = name
        self.value_type = value_type
        self.enum = enum
        self.pattern = pattern
        self.minimum = minimum
        self.maximum = maximum
        regex = name
        for pname, ppattern in (parameters or {}).items():
            regex = regex.replace("{%s}" % pname,
                                  f"(?P<{pname}>{ppattern})")
        self.name_regex = regex

    def validate(self, name, value):
        if not re.fullmatch(self.name_regex, name):
            raise _fail(f"expected a name of format '{self.name}' but got "
                        f"'{name}'.")
        value = str(value)
        if self.value_type is int:
            self._check_int(value)
        elif self.value_type is bool:
            try:
                strutils.bool_from_string(value, strict=True)
            except ValueError:
                raise _fail(f"'{value}' is not a valid boolean-like value.")
        elif self.pattern is not None:
            if not re.fullmatch(self.pattern, value):
                raise _fail(f"'{value}' is not of the format "
                            f"'{self.pattern}'.")
        elif self.enum is not None and value not in self.enum:
            raise _fail(f"'{value}' is not one of: "
                        f"{', '.join(str(x) for x in self.enum)}.")

    def _check_int(self, value):
        try:
            number = int(value)
        except ValueError:
            raise _fail(f"'{value}' is not a valid integer value.")
        if self.maximum is not None and number > self.maximum:
            raise _fail(f"'{number}' is greater than the max value of "
                        f"'{self.maximum}'.")
        if self.minimum is not None and number < self.minimum:
            raise _fail(f"'{number}' is less than the min value of "
                        f"'{self.minimum}'.")

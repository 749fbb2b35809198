"""Flavor extra spec validation (microversion 2.86+).

A key some registered validator's name pattern matches must carry a value
that validator accepts; a key in a namespace we own (``hw:``, ``quota:``,
...) that no validator matches is refused; anything else (no namespace, or
a namespace of someone else's, such as a scheduler filter of a third
party) is let through, as Nova does.
"""
import re

from keel.api.extra_specs import base
from keel.api.extra_specs import hw
from keel.api.extra_specs import namespaces
from keel import exception

VALIDATORS = {}
NAMESPACES = set()

for _validator in hw.register() + namespaces.register():
    VALIDATORS[_validator.name] = _validator
    if ":" in _validator.name_regex:
        NAMESPACES.add(_validator.name_regex.split(":", 1)[0])


def validate(name, value):
    """Raise ValidationError (400) if ``name``/``value`` is not valid."""
    validator = VALIDATORS.get(name)
    if validator is None:
        validator = next((v for v in VALIDATORS.values()
                          if re.fullmatch(v.name_regex, name)), None)
    if validator is not None:
        validator.validate(name, value)
        return
    if ":" not in name:
        return
    prefix = name.split(":", 1)[0]
    if any(re.fullmatch(ns, prefix) for ns in NAMESPACES):
        raise exception.ValidationError(detail=(
            f"Validation failed; extra spec '{name}' does not appear to be "
            f"a valid extra spec."))


__all__ = ["base", "validate", "VALIDATORS", "NAMESPACES"]

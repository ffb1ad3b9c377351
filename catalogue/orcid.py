"""ORCID iDs: sixteen characters in four groups, the last a check character
by ISO 7064 MOD 11-2 (``0000-0002-1825-0097``; ``X`` stands for ten).

ORCID's own description of the check: https://support.orcid.org/hc/en-us/
articles/360006897674-Structure-of-the-ORCID-Identifier
"""

import re

from django.core.exceptions import ValidationError

ORCID_RE = re.compile(r"^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$")
# An iD as readers paste it: bare, or as its https://orcid.org/ address.
_ADDRESS_RE = re.compile(r"^(?:https?://(?:www\.)?orcid\.org/)?(?P<id>\S+?)/?$", re.I)


def check_character(digits):
    """The ISO 7064 MOD 11-2 check character of the fifteen ``digits``."""
    total = 0
    for digit in digits:
        total = (total + int(digit)) * 2
    result = (12 - total % 11) % 11
    return "X" if result == 10 else str(result)


def normalise_orcid(value):
    """``value`` as the record stores an iD (``0000-0002-1825-0097``): its
    address part dropped, an ``x`` check character upper-cased. What is not
    an iD's shape is returned as given, for the validator to name."""
    match = _ADDRESS_RE.match(value.strip())
    if not match:
        return value
    candidate = match["id"]
    if len(candidate) == 16 and candidate[:15].isdigit():
        candidate = "-".join(candidate[i : i + 4] for i in range(0, 16, 4))
    return candidate[:-1] + candidate[-1:].upper()


def validate_orcid(value):
    """Refuse a value that is not an ORCID iD, saying why."""
    if not ORCID_RE.match(value):
        raise ValidationError(
            "An ORCID iD reads 0000-0002-1825-0097: four groups of four digits, "
            "the last character a digit or X.",
            code="orcid_form",
        )
    digits = value.replace("-", "")
    expected = check_character(digits[:15])
    if digits[15] != expected:
        raise ValidationError(
            f"{value} is not an ORCID iD: its check character should be "
            f"{expected}, not {digits[15]} (ISO 7064 MOD 11-2).",
            code="orcid_checksum",
        )


def orcid_url(value):
    return f"https://orcid.org/{value}" if value else ""

"""The characters no text of the record may hold, told once.

XML 1.0 cannot carry the C0 control characters other than tab, line feed and
carriage return, the surrogates, U+FFFE or U+FFFF, not even as character
references: one of them in a title makes every feed, sitemap and OAI-PMH
answer that carries it unreadable. The record refuses them, and with them the
other control characters (DEL and the C1 controls, U+007F-U+009F) and every
noncharacter (U+FDD0-U+FDEF and the last two code points of each plane),
which Unicode keeps for a program's own use, never for text: none of them is
anything a reader can read. Everything else (typographic quotes, dashes,
symbols, emoji, combining marks) is text, kept byte for byte.

Every way text comes in refuses these with ``validate_record_text`` (the
models do, for every field); what a service sends, which nobody typed, is
``cleaned``; every XML writer writes ``xml_safe`` text, for rows stored
before the rule.
"""

import re

from django.core.exceptions import ValidationError
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext_lazy as _

# Characters of the Basic Multilingual Plane the record refuses, or any
# character beyond it: of those, the last two of each plane (U+1FFFE,
# U+1FFFF, ... U+10FFFF) are noncharacters, and are told apart in Python: a
# class listing each of them is searched far more slowly, on every text.
CANDIDATE_RE = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]"
    r"|[\U00010000-\U0010ffff]"
)
REPLACEMENT = "\ufffd"


def describe(character):
    """``character`` as a message names it: ``a control character (U+000B)``."""
    code = ord(character)
    if code == 0:
        kind = "a NUL character"
    elif 0xD800 <= code <= 0xDFFF:
        kind = "a lone surrogate"
    elif 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE:
        kind = "a noncharacter"
    else:
        kind = "a control character"
    return f"{kind} (U+{code:04X})"


def _is_unsafe(character):
    code = ord(character)
    return code < 0x10000 or code & 0xFFFE == 0xFFFE


def _first(text):
    for found in CANDIDATE_RE.finditer(text):
        if _is_unsafe(found[0]):
            return found[0]
    return ""


def unsafe_character(value):
    """The first character of ``value`` no text of the record may hold, or
    "". ``value`` is text, or JSON (its keys and strings are read)."""
    if isinstance(value, str):
        return _first(value)
    if isinstance(value, dict):
        items = [item for pair in value.items() for item in pair]
    elif isinstance(value, list | tuple):
        items = value
    else:
        return ""
    for item in items:
        if character := unsafe_character(item):
            return character
    return ""


def written(text, by):
    """``text`` with each character no text of the record may hold written
    as ``by(character)``."""
    return CANDIDATE_RE.sub(
        lambda found: by(found[0]) if _is_unsafe(found[0]) else found[0], text
    )


def refusal(character):
    return _("holds %(character)s, which no text of the record may hold; remove it") % {
        "character": describe(character)
    }


@deconstructible
class RecordTextValidator:
    """Refuse text (or JSON) holding a character no text of the record may
    hold, naming it; code ``unsafe_character`` (``nul`` for a NUL)."""

    def __call__(self, value):
        if character := unsafe_character(value):
            code = "nul" if character == "\x00" else "unsafe_character"
            raise ValidationError(refusal(character), code=code)

    def __eq__(self, other):
        return isinstance(other, RecordTextValidator)

    def __hash__(self):
        return hash(RecordTextValidator)


validate_record_text = RecordTextValidator()


def replaced(value, by=REPLACEMENT):
    """``value`` (text, or JSON) with each character no text of the record may
    hold replaced ``by`` U+FFFD (or "", dropped); everything else as it is."""
    if isinstance(value, str):
        return written(value, lambda character: by) if _first(value) else value
    if isinstance(value, dict):
        return {
            replaced(str(key), by): replaced(item, by) for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [replaced(item, by) for item in value]
    return value


def cleaned(value):
    """What a service sent, without the characters no text of the record may
    hold: nobody typed them, so nobody is asked to remove them."""
    return replaced(value, "")


def xml_safe(text):
    """``text`` as an XML writer writes it: each character XML cannot carry,
    or the record would refuse, as U+FFFD, so that a row stored before the
    rule still makes a well-formed answer."""
    if isinstance(text, str) and _first(text):
        return written(text, lambda character: REPLACEMENT)
    return text


class RecordTextForm:
    """A form each of whose fields (its own, the model's, and those added as
    it is made) refuses, by ``validate_record_text``, what no text of the
    record may hold, on the field it was typed in: for fields the model does
    not check (a change note, a withdrawal reason, a tag, a reader's note)."""

    def full_clean(self):
        for field in self.fields.values():
            if validate_record_text not in field.validators:
                field.validators.append(validate_record_text)
        super().full_clean()

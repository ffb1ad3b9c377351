"""The protocol itself: verbs and their arguments, errors, datestamps and
resumption tokens, as OAI-PMH 2.0 defines them; no database here."""

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.core import signing

from catalogue.text import describe, unsafe_character, written


# The protocol's arguments of each verb; a resumable verb also takes a
# resumptionToken, alone.
@dataclass(frozen=True)
class Verb:
    required: frozenset = field(default_factory=frozenset)
    optional: frozenset = field(default_factory=frozenset)
    resumable: bool = False

    @property
    def arguments(self):
        token = {"resumptionToken"} if self.resumable else set()
        return self.required | self.optional | token


LIST_ARGUMENTS = frozenset({"from", "until", "set"})
VERBS = {
    "Identify": Verb(),
    "ListMetadataFormats": Verb(optional=frozenset({"identifier"})),
    "ListSets": Verb(resumable=True),
    "GetRecord": Verb(required=frozenset({"identifier", "metadataPrefix"})),
    "ListIdentifiers": Verb(
        required=frozenset({"metadataPrefix"}), optional=LIST_ARGUMENTS, resumable=True
    ),
    "ListRecords": Verb(
        required=frozenset({"metadataPrefix"}), optional=LIST_ARGUMENTS, resumable=True
    ),
}

# The protocol's pattern of a set's name (setSpecType of OAI-PMH.xsd) and of
# a metadata prefix (metadataPrefixType).
SET_SPEC_RE = re.compile(r"[A-Za-z0-9\-_.!~*'()]+(:[A-Za-z0-9\-_.!~*'()]+)*")
METADATA_PREFIX_RE = re.compile(r"[A-Za-z0-9\-_.!~*'()]+")
# A URI reference (RFC 3986) with no authority: its characters, each escape
# two hex digits, one fragment at most. An identifier is an xs:anyURI; the
# record's own (oai:anthology.example.org:LIT-004) have this shape.
URI_PART = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*"
URI_RE = re.compile(rf"{URI_PART}(?:#{URI_PART})?")
URI_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
# A repository identifier: a domain name whose every part begins with a letter
# (repositoryIdentifierType of oai-identifier.xsd).
REPOSITORY_IDENTIFIER_RE = re.compile(
    r"[A-Za-z][A-Za-z0-9\-]*(\.[A-Za-z][A-Za-z0-9\-]*)+"
)
DAY_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
SECOND_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")
DATESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
TOKEN_SALT = "oai.resumption-token"


class OAIError(Exception):
    """A request the protocol answers with an error: ``code`` is one of its
    error codes, the message says what was wrong and where."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def is_bad_request(self):
        """badVerb and badArgument: the answer echoes no argument back."""
        return self.code in {"badVerb", "badArgument"}


def read_request(query):
    """``(verb, {argument: value})`` of a request's parameters (a QueryDict).

    Raise OAIError: badVerb for a missing, repeated or unknown verb;
    badArgument for an argument the verb does not take, a repeated one, a
    missing required one, or a resumptionToken with anything beside it.
    """
    _check_characters(query)
    verbs = query.getlist("verb")
    if len(verbs) != 1 or verbs[0] not in VERBS:
        given = f"verb={', '.join(verbs)}" if verbs else "No verb"
        raise OAIError(
            "badVerb",
            f"{given} is given: the verb must be one of {', '.join(VERBS)}, once.",
        )
    name = verbs[0]
    arguments = {}
    for argument in query:
        if argument == "verb":
            continue
        values = query.getlist(argument)
        if len(values) > 1:
            raise OAIError(
                "badArgument", f"The argument {argument} is given {len(values)} times."
            )
        arguments[argument] = values[0]
    _check_arguments(name, VERBS[name], arguments)
    _check_values(arguments)
    return name, arguments


def _check_characters(query):
    """Refuse a name or value holding a character XML cannot carry (or no
    text of the record may hold): badVerb in the verb, badArgument elsewhere;
    the message shows it as its code point, and the answer echoes nothing."""
    for argument, values in query.lists():
        for text in (argument, *values):
            if character := unsafe_character(text):
                code = "badVerb" if argument == "verb" else "badArgument"
                raise OAIError(
                    code,
                    f"The argument {shown(argument)} holds {describe(character)} "
                    f"({shown(text)!r}): no argument may hold one.",
                )


def shown(text):
    """``text`` with each character XML cannot carry written as its code
    point, in brackets: ``oai[U+0001]dc``."""
    return written(text, lambda character: f"[U+{ord(character):04X}]")


def _check_arguments(name, verb, arguments):
    unknown = sorted(set(arguments) - verb.arguments)
    if unknown:
        raise OAIError("badArgument", f"{name} takes no argument {', '.join(unknown)}.")
    if "resumptionToken" in arguments:
        if len(arguments) > 1:
            raise OAIError(
                "badArgument",
                "resumptionToken is an exclusive argument: give it alone.",
            )
        return
    missing = sorted(verb.required - set(arguments))
    if missing:
        raise OAIError(
            "badArgument", f"{name} needs the argument {', '.join(missing)}."
        )


def _check_values(arguments):
    """Refuse (badArgument) a value the answer could not echo: the protocol's
    schema types each argument of the request element, and a value not of
    its type (``metadataPrefix=bad prefix``, ``from=yesterday``) is a
    malformed request, answered with the base URL alone. A well-formed value
    the repository does not know (``metadataPrefix=marc21``) is another
    error, and is echoed."""
    if "metadataPrefix" in arguments:
        prefix = arguments["metadataPrefix"]
        if not METADATA_PREFIX_RE.fullmatch(prefix):
            raise OAIError(
                "badArgument",
                f"metadataPrefix={prefix!r} is not a metadata prefix: letters, "
                "digits and - _ . ! ~ * ' ( ), at least one.",
            )
    if "set" in arguments:
        check_set_spec(arguments["set"])
    if "identifier" in arguments and not is_uri(arguments["identifier"]):
        raise OAIError(
            "badArgument",
            f"identifier={arguments['identifier']!r} is not a URI; the records' "
            "identifiers read oai:<repository>:LIT-004.",
        )
    read_bounds(arguments)


def is_uri(text):
    """Whether ``text`` is a URI reference without an authority (URI_RE), its
    scheme, if it names one, a scheme's letters."""
    if not text or not URI_RE.fullmatch(text) or text.startswith("//"):
        return False
    head = re.split(r"[/?#]", text, maxsplit=1)[0]
    if ":" not in head:
        return True
    scheme, rest = text.split(":", 1)
    return bool(URI_SCHEME_RE.fullmatch(scheme)) and not rest.startswith("//")


# Datestamps


def datestamp(moment):
    """A time as the protocol writes it, to the second: 2026-12-01T21:12:33Z."""
    return moment.astimezone(UTC).strftime(DATESTAMP_FORMAT)


@dataclass(frozen=True)
class Bounds:
    """The times a list's ``from`` and ``until`` select: ``start`` <= t <
    ``end``, either open (None)."""

    start: datetime | None = None
    end: datetime | None = None


def read_bounds(arguments):
    """The Bounds of ``from`` and ``until``, each a day (YYYY-MM-DD, the day
    whole) or a second (YYYY-MM-DDThh:mm:ssZ, that second whole), both of
    the same granularity. Raise OAIError(badArgument) otherwise."""
    start = _read_time(arguments, "from")
    until = _read_time(arguments, "until")
    if start and until:
        if start[1] != until[1]:
            raise OAIError(
                "badArgument",
                "from and until must have the same granularity: both days or "
                "both seconds.",
            )
        if start[0] > until[0]:
            raise OAIError(
                "badArgument",
                f"from ({arguments['from']}) is later than until "
                f"({arguments['until']}).",
            )
    return Bounds(
        start=start[0] if start else None,
        end=_after(arguments["until"], *until) if until else None,
    )


def _read_time(arguments, name):
    """``(time, step)`` of the argument ``name``, or None when not given."""
    text = arguments.get(name)
    if text is None:
        return None
    if SECOND_RE.fullmatch(text):
        text_format, step = DATESTAMP_FORMAT, timedelta(seconds=1)
    elif DAY_RE.fullmatch(text):
        text_format, step = "%Y-%m-%d", timedelta(days=1)
    else:
        raise OAIError(
            "badArgument",
            f"{name}={text!r} is not a datestamp: YYYY-MM-DD or "
            "YYYY-MM-DDThh:mm:ssZ (UTC).",
        )
    try:
        moment = datetime.strptime(text, text_format).replace(tzinfo=UTC)
    except ValueError:
        raise OAIError("badArgument", f"{name}={text!r} is no such date.") from None
    return moment, step


def _after(text, moment, step):
    """The first time after the day or second ``until`` names."""
    try:
        return moment + step
    except OverflowError:
        raise OAIError("badArgument", f"until={text!r} is beyond any date.") from None


def check_set_spec(spec):
    if not SET_SPEC_RE.fullmatch(spec):
        raise OAIError(
            "badArgument",
            f"set={spec!r} is not a set's name: letters, digits and - _ . ! ~ * ' "
            "( ), in parts joined by colons.",
        )


# Resumption tokens


@dataclass(frozen=True)
class Resumption:
    """Where an incomplete list goes on: its verb and original arguments,
    the (datestamp, id) of the last record given, how many were given and
    how long the list was when it began.

    The list is walked in (datestamp, id) order from that key, so a record
    changed between two pages is never skipped: it moves after the key (its
    datestamp is newer) and comes in a later page.
    """

    verb: str
    arguments: dict
    after: tuple
    cursor: int
    size: int

    def token(self):
        payload = {
            "v": self.verb,
            "a": self.arguments,
            "k": [self.after[0].isoformat(), self.after[1]],
            "c": self.cursor,
            "n": self.size,
        }
        return signing.dumps(payload, salt=TOKEN_SALT, compress=True)

    @classmethod
    def read(cls, verb, token):
        """The Resumption ``token`` holds, for ``verb``; OAIError
        (badResumptionToken) for a token this repository did not issue for it."""
        try:
            payload = signing.loads(token, salt=TOKEN_SALT)
            if payload["v"] != verb:
                raise ValueError(verb)
            at, pk = payload["k"]
            return cls(
                verb=verb,
                arguments=dict(payload["a"]),
                after=(datetime.fromisoformat(at), int(pk)),
                cursor=int(payload["c"]),
                size=int(payload["n"]),
            )
        except (signing.BadSignature, ValueError, KeyError, TypeError):
            raise OAIError(
                "badResumptionToken",
                f"The resumptionToken is not one this repository issued for {verb}, "
                "or has been altered; start the list again.",
            ) from None

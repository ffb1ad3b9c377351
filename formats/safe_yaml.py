"""YAML from files people upload, read with bounded work.

YAML's aliases (``*name``) repeat a node wherever they are written, so a
few hundred bytes of nested aliases stand for gigabytes once constructed;
nesting (``[[[[…``) costs one Python frame per level. The loader here reads
YAML's safe types and refuses aliases, nesting deeper than ``MAX_DEPTH`` and
text longer than ``MAX_CHARACTERS``. Every way the text can fail, an error of
YAML's or of a value it writes (an integer of more digits than Python reads),
is a ``YAMLRefused`` with the line it was found on.
"""

import yaml
from yaml.composer import ComposerError

# Front matter is a handful of keys: status, date, deciders, a few links.
MAX_CHARACTERS = 64 * 1024
MAX_DEPTH = 16


class YAMLRefused(Exception):
    """Text that is not YAML we read; ``line`` counts from 1 within it."""

    def __init__(self, line, reason):
        super().__init__(reason)
        self.line = line
        self.reason = reason


class BoundedLoader(yaml.SafeLoader):
    """YAML's safe loader, without aliases and with nesting bounded.

    A timestamp naming no real day (``2025-13-01``) is the text it is written
    as, for a date to be read as any other unreadable date.
    """

    def __init__(self, stream):
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise ComposerError(
                None,
                None,
                f"aliases (*{event.anchor}) are not read; write the value out",
                event.start_mark,
            )
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise ComposerError(
                    None,
                    None,
                    f"values nest deeper than {MAX_DEPTH} levels",
                    self.peek_event().start_mark,
                )
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _timestamp_or_text(loader, node):
    try:
        return loader.construct_yaml_timestamp(node)
    except (ValueError, AttributeError):
        return loader.construct_scalar(node)


def _as_text(loader, node):
    return loader.construct_scalar(node)


def _set_as_list(loader, node):
    return list(loader.construct_mapping(node))


BoundedLoader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_or_text)
# Values are kept as JSON holds them: binary stays the text it is written as,
# a set is the list of its members.
BoundedLoader.add_constructor("tag:yaml.org,2002:binary", _as_text)
BoundedLoader.add_constructor("tag:yaml.org,2002:set", _set_as_list)


def load(text):
    """The value ``text`` writes in YAML, or ``YAMLRefused`` saying why not."""
    if len(text) > MAX_CHARACTERS:
        raise YAMLRefused(
            1, f"it is {len(text):,} characters long; we read up to {MAX_CHARACTERS:,}"
        )
    try:
        return yaml.load(text, Loader=BoundedLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        raise YAMLRefused(line, getattr(error, "problem", None) or str(error)) from None
    except (
        ValueError,
        TypeError,
        AttributeError,
        OverflowError,
        RecursionError,
    ) as error:
        # A value YAML reads but Python cannot hold (an integer of 5,000 digits).
        raise YAMLRefused(1, f"a value cannot be read ({error})") from None

"""Trigram similarity of two texts, as PostgreSQL's pg_trgm computes it.

PostgreSQL has ``similarity()`` from pg_trgm (migration 0007); SQLite is
given the same function, computed here, so both find the same titles alike.
"""

import re

WORD_RE = re.compile(r"[^\W_]+")


def trigrams(text):
    """pg_trgm's trigrams of ``text``: each word lowercased, padded with two
    spaces before and one after, cut into runs of three characters."""
    found = set()
    for word in WORD_RE.findall(text.lower()):
        padded = f"  {word} "
        found.update(padded[i : i + 3] for i in range(len(padded) - 2))
    return found


def similarity(first, second):
    """pg_trgm's ``similarity()``: shared trigrams over all trigrams, 0 to 1."""
    a, b = trigrams(first or ""), trigrams(second or "")
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def add_similarity(sender, connection, **kwargs):
    """Give an SQLite connection the ``similarity()`` PostgreSQL has."""
    if connection.vendor == "sqlite":
        connection.connection.create_function(
            "similarity", 2, similarity, deterministic=True
        )

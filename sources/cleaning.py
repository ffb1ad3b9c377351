"""Titles and names as sources send them, made plain text.

Crossref sends titles and container titles with the JATS face markup their
publishers deposit (``Sparse <i>k</i>-means``, ``<scp>GPU</scp>``,
``H<sub>2</sub>``, ``<jats:italic>``, MathML) and with HTML entities
(``Knowledge Discovery &amp; Data Mining``); arXiv sends titles wrapped over
several lines. The record keeps the text a reader reads: tags dropped, their
text kept, entities decoded, runs of white space one space.
"""

from html.parser import HTMLParser

# Where a subtitle is joined with a space rather than a colon: the title
# already ends a clause ("Is attention all you need? A study").
CLAUSE_ENDS = (":", "?", "!", ".")


class _TextOnly(HTMLParser):
    """The text of a fragment of markup; entities decoded, tags dropped."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []

    def handle_data(self, data):
        self.parts.append(data)


def plain_text(text):
    """``text`` without markup, entities decoded, white space normalised:
    ``Sparse <i>k</i>-means &amp; H<sub>2</sub>`` is ``Sparse k-means & H2``."""
    if not text:
        return ""
    parser = _TextOnly()
    parser.feed(text)
    parser.close()
    return " ".join("".join(parser.parts).split())


def with_subtitle(title, subtitle):
    """The title a reader cites: ``title: subtitle``, unless the title
    already ends with the subtitle, or with punctuation of its own."""
    title, subtitle = plain_text(title), plain_text(subtitle)
    if not subtitle or title.casefold().endswith(subtitle.casefold()):
        return title
    if not title:
        return subtitle
    if title.endswith(CLAUSE_ENDS):
        return f"{title} {subtitle}"
    return f"{title}: {subtitle}"

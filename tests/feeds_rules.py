"""The W3C Feed Validator's rules for Atom, as one assertion: what a feed
must hold for the strictest feed reader to read it, each rule named by the
section of RFC 4287 (or RFC 3339, RFC 3987) that states it.

The validator itself (w3c/feedvalidator) is no package on PyPI; these are its
errors for Atom 1.0, and the warnings that stop a reader following a feed
(a self link that is not the feed's address, relative addresses in HTML, an
entry id given twice). Use ``atom_problems(content, location)`` for the
list of what is wrong, ``assert_valid_atom`` to fail a test on any."""

import re
from urllib.parse import urlsplit

import lxml.html
from lxml import etree

ATOM_NS = "http://www.w3.org/2005/Atom"
ATOM = f"{{{ATOM_NS}}}"
XHTML = "{http://www.w3.org/1999/xhtml}"
XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
STRICT = etree.XMLParser(recover=False, resolve_entities=False, no_network=True)

# RFC 3339, section 5.6: date-time, with the "T" and "Z" in capitals (RFC
# 4287, section 3.3).
DATE_TIME_RE = re.compile(
    r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"
    r"T([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?"
    r"(Z|[+-]([01]\d|2[0-3]):[0-5]\d)"
)
TEXT_TYPES = {"text", "html", "xhtml"}
# The link relations RFC 4287 (section 4.2.7.2) and the IANA registry name
# that feeds use; any other must be an absolute IRI.
RELATIONS = {
    "alternate", "related", "self", "enclosure", "via",
    "first", "last", "next", "previous", "hub", "license", "replies",
}  # fmt: skip


def absolute_iri(value):
    """An absolute IRI (RFC 3987, section 2.2): a scheme, and for http(s) a
    host. ``tag:`` and ``urn:`` ids are absolute too."""
    parts = urlsplit(value or "")
    if not parts.scheme or value != value.strip() or " " in value:
        return False
    if parts.scheme in {"http", "https"}:
        return bool(parts.netloc)
    return bool(parts.path)


def atom_problems(content, location):
    """Where the Atom document ``content`` (bytes), fetched from
    ``location`` (its absolute address), breaks the validator's rules."""
    problems = []
    try:
        feed = etree.fromstring(content, STRICT)
    except etree.XMLSyntaxError as error:
        return [f"not well-formed XML: {error}"]
    if feed.tag != f"{ATOM}feed":
        return [f"RFC 4287 §4.1.1: the root is {feed.tag}, not atom:feed"]

    def once(element, where, name, section):
        found = element.findall(f"{ATOM}{name}")
        if len(found) != 1:
            problems.append(
                f"{where}: RFC 4287 §{section}: {len(found)} atom:{name}, needs one"
            )
        return found[0] if found else None

    def at_most_once(element, where, name, section):
        found = element.findall(f"{ATOM}{name}")
        if len(found) > 1:
            problems.append(f"{where}: RFC 4287 §{section}: atom:{name} twice")
        return found[0] if found else None

    def check_id(element, where, section):
        ident = once(element, where, "id", section)
        if ident is not None and not absolute_iri(ident.text):
            problems.append(
                f"{where}: RFC 4287 §4.2.6: id {ident.text!r} is not an absolute IRI"
            )
        return None if ident is None else ident.text

    def check_date(date, where):
        if date is not None and not DATE_TIME_RE.fullmatch(date.text or ""):
            problems.append(
                f"{where}: RFC 4287 §3.3 (RFC 3339): {date.text!r} is not a date-time"
            )

    def check_text(construct, where):
        if construct is None:
            return
        kind = construct.get("type", "text")
        name = etree.QName(construct).localname
        if kind not in TEXT_TYPES:
            problems.append(f"{where}: RFC 4287 §3.1.1: atom:{name} of type {kind!r}")
        if kind in {"text", "html"} and len(construct):
            problems.append(
                f"{where}: RFC 4287 §3.1.1.{1 if kind == 'text' else 2}: "
                f"atom:{name} of type {kind} holds child elements"
            )
        if kind == "xhtml" and construct.find(f"{XHTML}div") is None:
            problems.append(f"{where}: RFC 4287 §3.1.1.3: xhtml without its div")
        if kind == "html":
            check_html(construct, where, name)

    def check_html(construct, where, name):
        """Escaped HTML whose addresses a reader resolves: absolute, or under
        an xml:base (RFC 4287 §3.1.1.2 and the validator's ContainsRelRef)."""
        text = construct.text or ""
        if not text.strip():
            return
        base = construct.get(XML_BASE) or construct.getparent().get(XML_BASE)
        fragment = lxml.html.fragment_fromstring(text, create_parent="div")
        for element, attribute, link, _ in fragment.iterlinks():
            if not base and not link.startswith("#") and not absolute_iri(link):
                problems.append(
                    f"{where}: RFC 4287 §3.1.1.2: atom:{name} links "
                    f"{link!r} ({element.tag} {attribute}), a relative address"
                )

    def check_people(element, where):
        for person in element.findall(f"{ATOM}author") + element.findall(
            f"{ATOM}contributor"
        ):
            names = person.findall(f"{ATOM}name")
            if len(names) != 1:
                problems.append(f"{where}: RFC 4287 §3.2.1: a person needs one name")
            elif not (names[0].text or "").strip():
                problems.append(f"{where}: RFC 4287 §3.2.1: a person's name is blank")
            uri = person.find(f"{ATOM}uri")
            if uri is not None and not absolute_iri(uri.text):
                problems.append(f"{where}: RFC 4287 §3.2.2: uri {uri.text!r}")

    def check_links(element, where):
        alternates = set()
        for link in element.findall(f"{ATOM}link"):
            href = link.get("href")
            if not href:
                problems.append(f"{where}: RFC 4287 §4.2.7.1: a link without href")
                continue
            if not absolute_iri(href):
                problems.append(
                    f"{where}: RFC 4287 §4.2.7.1: link {href!r} is relative "
                    "and no xml:base is given"
                )
            rel = link.get("rel", "alternate")
            if rel not in RELATIONS and not absolute_iri(rel):
                problems.append(f"{where}: RFC 4287 §4.2.7.2: relation {rel!r}")
            if rel == "alternate":
                key = (link.get("type"), link.get("hreflang"))
                if key in alternates:
                    problems.append(
                        f"{where}: RFC 4287 §4.1.1: two alternate links of one "
                        "type and language"
                    )
                alternates.add(key)
        for category in element.findall(f"{ATOM}category"):
            if not category.get("term"):
                problems.append(f"{where}: RFC 4287 §4.2.2.1: a category needs a term")

    # The feed (RFC 4287, section 4.1.1).
    check_id(feed, "feed", "4.1.1")
    check_text(once(feed, "feed", "title", "4.1.1"), "feed")
    check_text(at_most_once(feed, "feed", "subtitle", "4.1.1"), "feed")
    check_text(at_most_once(feed, "feed", "rights", "4.1.1"), "feed")
    check_date(once(feed, "feed", "updated", "4.1.1"), "feed")
    check_people(feed, "feed")
    check_links(feed, "feed")
    selves = [link.get("href") for link in feed.findall(f"{ATOM}link[@rel='self']")]
    if selves != [location]:
        problems.append(
            f"feed: RFC 4287 §4.1.1 (the validator's SelfDoesntMatchLocation): "
            f"self links {selves}, not [{location!r}]"
        )
    feed_has_author = feed.find(f"{ATOM}author") is not None

    ids = []
    for n, entry in enumerate(feed.iterfind(f"{ATOM}entry")):
        where = f"entry {n}"
        ids.append(check_id(entry, where, "4.1.2"))
        check_text(once(entry, where, "title", "4.1.2"), where)
        check_date(once(entry, where, "updated", "4.1.2"), where)
        check_date(at_most_once(entry, where, "published", "4.1.2"), where)
        check_people(entry, where)
        check_links(entry, where)
        summary = at_most_once(entry, where, "summary", "4.1.2")
        check_text(summary, where)
        content = at_most_once(entry, where, "content", "4.1.2")
        if not feed_has_author and entry.find(f"{ATOM}author") is None:
            problems.append(
                f"{where}: RFC 4287 §4.1.1: no atom:author here nor on the feed"
            )
        has_alternate = any(
            link.get("rel", "alternate") == "alternate"
            for link in entry.findall(f"{ATOM}link")
        )
        if content is None and not has_alternate:
            problems.append(
                f"{where}: RFC 4287 §4.1.2: no content and no alternate link"
            )
        if content is not None:
            kind = content.get("type", "text")
            if kind in TEXT_TYPES:
                check_text(content, where)
            elif "/" not in kind:
                problems.append(f"{where}: RFC 4287 §4.1.3.1: content type {kind!r}")
            if content.get("src") is not None and summary is None:
                problems.append(
                    f"{where}: RFC 4287 §4.1.2: content by src and no summary"
                )
    repeated = sorted({i for i in ids if i is not None and ids.count(i) > 1})
    if repeated:
        problems.append(
            f"feed: RFC 4287 §4.2.6 (the validator's DuplicateEntries): "
            f"entry ids {repeated} given twice"
        )
    return problems


def assert_valid_atom(content, location):
    """Fail with every rule the feed breaks."""
    problems = atom_problems(content, location)
    assert problems == [], "\n".join(problems)

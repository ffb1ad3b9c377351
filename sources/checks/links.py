"""Dead links in summaries and published decision records.

Every http(s) address written in a public document's summary or a published
decision record's body (found as the site's Markdown finds bare links,
linkify-it) is asked once a run (a GET whose body is not read), and what it
answered is kept in ``catalogue.LinkCheck`` (``actions.link_checks``): a
link is dead once two checks at least a day apart both answered 404 or 410.
403, 401 and 429, a 5xx or no answer at all say nothing either way: they
neither start nor end a failing run. A dead link is proposed as a note on
each document or record naming it (finding ``link:<url>:dead``).

The addresses are anyone's, so the check is no probe of the internal
network: a host that resolves to a private, loopback, link-local or other
non-global address is not asked, nor followed to by a redirect, unless
``SOURCES_LINKS_PRIVATE`` allows it. (The address is resolved again when
the request connects: a name that changes its answer between the two can
still lead there. Run the worker where the internal network is not
reachable if that matters.) One host is asked at most once every
``SOURCES_LINKS_INTERVAL`` seconds.
"""

import ipaddress
import socket
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from linkify_it import LinkifyIt

import actions.link_checks
from catalogue.models import LinkCheck
from sources import transport
from sources.checks.base import VIA, finding_key, in_chunks, known_findings
from sources.checks.base import propose as propose_finding
from sources.checks.pacing import Pace
from sources.metadata import user_agent
from sources.transport import LookupFailed

SERVICE = "links"
SCHEMES = {"http:", "https:"}
# Addresses read from one text: far more than a summary or a record cites,
# so a text of nothing but links costs a bounded number of requests.
MAX_LINKS = 50
URL_MAX = LinkCheck._meta.get_field("url").max_length
CHUNK = 200
REFUSED = object()
_linkify = LinkifyIt()


def links_in(text):
    """The distinct http(s) addresses written in ``text``, in order, without
    their fragment (never sent), ``MAX_LINKS`` at most."""
    found = []
    for match in _linkify.match(text) or []:
        if match.schema.lower() not in SCHEMES:
            continue
        url = urlunsplit(urlsplit(match.url)._replace(fragment=""))
        if len(url) <= URL_MAX and url not in found:
            found.append(url)
            if len(found) == MAX_LINKS:
                break
    return found


def check(run):
    paces = {}
    documents = run.documents.filter(summary__contains="http").only(
        "pk", "number", "status", "registry", "summary"
    )
    for chunk in in_chunks(documents, CHUNK):
        _check_texts(run, paces, [(d, links_in(d.summary)) for d in chunk])
    decisions = run.decisions.filter(body__contains="http").only(
        "pk", "number", "twin", "published_at", "log", "body"
    )
    for chunk in in_chunks(decisions, CHUNK):
        _check_texts(run, paces, [(d, links_in(d.body)) for d in chunk])


def _check_texts(run, paces, texts):
    urls = sorted({url for _, links in texts for url in links})
    if not urls:
        return
    heard = {check.url: check for check in LinkCheck.objects.filter(url__in=urls)}
    answers, refused = {}, set()
    for url in urls:
        check = heard.get(url)
        if check is not None and check.checked_at >= run.started_at:
            continue  # Asked already in this run, for another text.
        status_code = _ask(run, paces, url)
        if status_code is REFUSED:
            refused.add(url)
        else:
            answers[url] = status_code
    if answers:
        heard.update(
            actions.link_checks.record_link_checks(
                answers=answers, checked_at=run.clock.wall(), via=VIA
            )
        )
    known = known_findings([target for target, _ in texts], "link:")
    for target, links in texts:
        for url in links:
            check = heard.get(url)
            if (
                url in refused
                or check is None
                or not actions.link_checks.is_dead(check)
            ):
                continue
            propose_finding(
                run,
                SERVICE,
                target,
                note=(
                    f"The link {url} is dead: it answered {check.status_code} on "
                    f"{check.failing_since:%Y-%m-%d} and again on "
                    f"{check.checked_at:%Y-%m-%d}."
                ),
                finding=finding_key("link", url, "dead"),
                known=known.get(target.pk, set()),
            )


def _ask(run, paces, url):
    """The status ``url`` answered, None for no answer, or REFUSED when its
    host is not to be asked."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        if not may_ask(host, parts.port):
            run.report.refused += 1
            return REFUSED
    except OSError:
        return None  # Its name does not resolve: no answer.
    pace = paces.setdefault(host, Pace(settings.SOURCES_LINKS_INTERVAL, run.clock))
    pace.wait()
    run.report.requests[SERVICE] += 1
    try:
        answer = transport.get(
            "The link", url, user_agent=user_agent(), follows=_follows, body=False
        )
    except LookupFailed as error:
        return 429 if error.code == "rate_limited" else None
    except ValueError:
        return None  # An address httpx cannot ask (an invalid port, say).
    return answer.status_code


def _follows(target):
    """A redirect is followed only where the link itself may go."""
    try:
        allowed = may_ask(target.host, target.port)
    except OSError:
        allowed = False
    if not allowed:
        raise LookupFailed(
            "The link redirects to a private address; it was not followed.",
            code="redirect",
        )


def may_ask(host, port=None):
    """Whether ``host`` may be asked: every address it resolves to is a
    global one, or ``SOURCES_LINKS_PRIVATE`` allows any. OSError when it
    does not resolve."""
    if settings.SOURCES_LINKS_PRIVATE:
        return True
    if not host:
        return False
    try:
        found = socket.getaddrinfo(host, port or 443, type=socket.SOCK_STREAM)
    except UnicodeError as error:
        raise OSError(str(error)) from None
    for *_, address in found:
        ip = ipaddress.ip_address(address[0].split("%", 1)[0])
        if ip.version == 6 and ip.ipv4_mapped:
            ip = ip.ipv4_mapped
        if not ip.is_global or ip.is_multicast:
            return False
    return True

from django import template
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html

from catalogue.addresses import absolute_url
from formats.citations import bibtex_entry, meta_tags, plain_reference
from formats.madr import place_status, unlinked
from public.links import link_names, link_names_in_html
from public.markdown import render_inline, render_markdown

register = template.Library()


@register.filter
def citation_meta_tags(document):
    """The document's ``citation_*`` meta tags, as (name, content) pairs."""
    return meta_tags(document)


@register.filter
def linked(text, targets):
    """``text`` escaped, with every name of a public record linked.

    ``targets`` comes from ``references.resolve()`` in the view, so rendering
    makes no queries.
    """
    return link_names(text, targets or {})


@register.filter
def markdown_linked(text, targets):
    """Markdown rendered safely, with every name of a public record linked."""
    return link_names_in_html(render_markdown(text), targets or {})


@register.filter
def markdown_inline(text):
    """One line of Markdown (a decision's title) rendered safely: `code` and
    emphasis show as they do on GitHub."""
    return render_inline(text)


@register.simple_tag
def decision_status(decision):
    """A decision's status as its team wrote it; a word of theirs that we read
    as one of ours says which; no status at all says it was not stated."""
    if not decision.status_text:
        return decision.get_status_display()
    written = render_inline(decision.status_text)
    if not decision.status or place_status(unlinked(decision.status_text))[1]:
        return written
    return format_html(
        '{} <span class="status-read-as">(read as {})</span>',
        written,
        decision.get_status_display().lower(),
    )


@register.simple_tag
def absolute_static(path):
    """The absolute address of a static file, as OpenGraph asks."""
    return absolute_url(static(path))


@register.filter
def as_bibtex(document):
    """The document's BibTeX entry, as the download gives it."""
    return bibtex_entry(document)


@register.filter
def as_reference(document):
    """The document as a plain reference: authors, year, title, source."""
    return plain_reference(document)


CITATION_FORMATS = [("bib", "BibTeX"), ("ris", "RIS"), ("json", "CSL-JSON")]


@register.inclusion_tag("catalogue/_cite_links.html")
def cite_links(label, url_name, *args, query_string=""):
    """Links to the BibTeX, RIS and CSL-JSON files of a document or a list."""
    suffix = f"?{query_string}" if query_string else ""
    return {
        "label": label,
        "links": [
            (reverse(url_name, args=[*args, fmt]) + suffix, name)
            for fmt, name in CITATION_FORMATS
        ],
    }

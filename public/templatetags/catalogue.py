from django import template
from django.urls import reverse

from public.links import link_names, link_names_in_html
from public.markdown import render_markdown

register = template.Library()


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

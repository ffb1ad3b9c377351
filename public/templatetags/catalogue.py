from urllib.parse import quote_plus

from django import template
from django.forms.models import ModelChoiceIterator
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from catalogue.addresses import absolute_url
from catalogue.citations import identifier_display as identifier_as_written
from catalogue.names import display_name
from formats.citations import bibtex_entry, meta_tags, plain_reference
from formats.madr import place_status, unlinked
from public import structured
from public.links import link_names
from public.widgets import FilterFieldsRenderer

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
def rendered(html):
    """HTML stored with a record, rendered from its Markdown and sanitised
    when it was saved (``catalogue.markdown``): shown as it is."""
    return mark_safe(html)  # Sanitised by nh3 when the record was saved.


@register.simple_tag
def decision_status(decision):
    """A decision's status as its team wrote it (its links placed, where the
    view placed them: ``placed_status``); a word of theirs that we read as
    one of ours says which; no status at all says it was not stated."""
    if not decision.status_text:
        return decision.get_status_display()
    html = getattr(decision, "placed_status", decision.status_html)
    written = mark_safe(html)  # Sanitised when saved; links placed since.
    if not decision.status or place_status(unlinked(decision.status_text))[1]:
        return written
    return format_html(
        '{} <span class="status-read-as">(read as {})</span>',
        written,
        decision.get_status_display().lower(),
    )


@register.simple_tag(takes_context=True)
def page_query(context, number):
    """The query of page ``number`` of the list the request shows: its other
    parameters as they came, then the page, each spelled as the page cache
    keeps it (``pagecache.queries``), so following the link is no redirect."""
    query = context["request"].GET.copy()
    query.pop("page", None)
    query["page"] = number
    return query.urlencode()


@register.filter
def query_value(value):
    """``value`` percent-encoded as forms write a query's values (a space
    is ``+``), the one spelling the page cache keeps."""
    return quote_plus(str(value))


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


class CaptureNode(template.Node):
    def __init__(self, nodelist, name):
        self.nodelist = nodelist
        self.name = name

    def render(self, context):
        # What the nodes rendered is escaped already: it is printed as it is.
        context[self.name] = mark_safe(self.nodelist.render(context).strip())
        return ""


@register.tag
def capture(parser, token):
    """``{% capture as name %}…{% endcapture %}``: what the enclosed template
    renders (blocks a child page fills included), kept in ``name`` so that a
    page's description is written once and printed in each tag that says it."""
    words = token.split_contents()
    if len(words) != 3 or words[1] != "as":
        raise template.TemplateSyntaxError("capture reads {% capture as name %}")
    name = words[2]
    nodelist = parser.parse(("endcapture",))
    parser.delete_first_token()
    return CaptureNode(nodelist, name)


@register.simple_tag(takes_context=True)
def structured_data(context, name):
    """The page's schema.org JSON-LD, chosen by what the page shows."""
    page_url = context.get("canonical_url", "")
    request = context.get("request")
    document, topic = context.get("document"), context.get("topic")
    person = context.get("person")
    if document is not None and context.get("version") is not None:
        data = structured.version_graph(document, context["version"], page_url)
    elif document is not None:
        data = structured.document_graph(document, page_url)
    elif person is not None:
        data = structured.person_graph(person, page_url)
    elif topic is not None and context.get("documents") is not None:
        data = structured.topic_graph(topic, context["documents"], page_url)
    elif request and request.path == reverse("catalogue:index"):
        data = structured.index_graph(page_url)
    else:
        data = structured.page_graph(name, request.path if request else "/")
    return structured.json_ld(data)


@register.filter
def written_name(name):
    """A CSL name as an author position writes it: ``Yang Liu``."""
    return display_name(name)


@register.filter
def identifier_display(identifier):
    """An identifier as its community writes it: ``arXiv:1604.06174``."""
    return identifier_as_written(identifier)


# How a table is sorted by a column, as its header shows it.
SORT_ARROWS = {"ascending": "▲", "descending": "▼"}


@register.filter
def sort_arrow(header):
    """The arrow a sortable column's header (a ``views.SortHeader``) shows
    when the table is sorted by it, or nothing. Unseen by screen readers: the
    header's ``aria-sort`` tells them."""
    arrow = SORT_ARROWS.get(header.sort) if header else None
    if arrow is None:
        return ""
    return format_html('<span class="sort-arrow" aria-hidden="true">{}</span>', arrow)


# The filter fields' widgets and labels, written without their templates.
FILTER_FIELDS_RENDERER = FilterFieldsRenderer()


@register.simple_tag
def filter_fields(form):
    """A list's filter fields (``_filter_fields.html``), their widgets and
    labels written by ``widgets.FilterFieldsRenderer``: the bytes Django's
    templates write, at a fraction of their cost.

    Each field's choices are read once (one query for a field of a model's),
    then rendered from what was read.
    """
    for field in form.fields.values():
        widget = field.widget
        if hasattr(widget, "choices") and not widget.is_hidden:
            widget.choices = _listed_choices(widget.choices)
    form.renderer = FILTER_FIELDS_RENDERER
    html = render_to_string("catalogue/_filter_fields.html", {"form": form})
    return mark_safe(html.strip())


def _listed_choices(choices):
    """A widget's ``choices`` as a list, a model's read in one plain query:
    their iterator would read them through ``iterator()``, on PostgreSQL a
    server-side cursor (declare, fetch, close) for a few dozen rows."""
    if not isinstance(choices, ModelChoiceIterator):
        return list(choices)
    field = choices.field
    labels = [("", field.empty_label)] if field.empty_label is not None else []
    if getattr(field, "null_label", None) is not None:
        # django-filter's choice of none ("Unfiled") follows the empty label.
        labels.append((field.null_value, field.null_label))
    return labels + [choices.choice(obj) for obj in choices.queryset]

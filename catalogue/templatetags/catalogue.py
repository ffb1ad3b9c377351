from django import template

from catalogue.references import link_names

register = template.Library()


@register.filter
def linked(text, targets):
    """``text`` escaped, with every name of a public record linked.

    ``targets`` comes from ``references.resolve()`` in the view, so rendering
    makes no queries.
    """
    return link_names(text, targets or {})

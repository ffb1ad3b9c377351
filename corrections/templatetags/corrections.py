from django import template
from django.urls import reverse

from catalogue.models import DecisionRecord

register = template.Library()


@register.filter
def correction_url(target):
    """The address of the correction form of a document or decision record."""
    if isinstance(target, DecisionRecord):
        name = (
            "corrections:decision" if target.log.is_own else "corrections:log-decision"
        )
        return reverse(name, kwargs=target.url_kwargs())
    return reverse("corrections:document", kwargs={"identifier": target.identifier})

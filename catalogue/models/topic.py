from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from catalogue.models.choices import TopicFlavour
from catalogue.models.fields import RecordTextChecked, one_of, search_vector_field


class Topic(RecordTextChecked, models.Model):
    """One of the topics documents are filed against, in editorial order."""

    Flavour = TopicFlavour

    name = models.CharField(max_length=200, unique=True)
    slug = models.SlugField(max_length=200, unique=True)
    scope = models.CharField(
        max_length=500,
        blank=True,
        help_text=_("One line, without a closing full stop: what the topic covers."),
    )
    flavour = models.CharField(
        max_length=10,
        choices=Flavour,
        default=Flavour.KIND,
        help_text=_(
            "A document takes a domain topic only when its claim is about that "
            "domain; a claim merely discovered in a domain takes its kind."
        ),
    )
    position = models.PositiveIntegerField(
        unique=True, help_text=_("Editorial order on the full index.")
    )
    search_vector = search_vector_field()

    class Meta:
        ordering = ["position"]
        constraints = [
            one_of("flavour", TopicFlavour, "topic_flavour_valid"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("catalogue:topic-detail", kwargs={"slug": self.slug})


class Preface(RecordTextChecked, models.Model):
    """The paragraph that opens the full index and every topic page.

    There is one: its primary key is fixed.
    """

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    heading = models.CharField(max_length=200, default="Topics")
    text = models.TextField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(id=1), name="single_preface"),
        ]

    def __str__(self):
        return self.heading

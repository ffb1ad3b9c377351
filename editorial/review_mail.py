"""Each person's choice of review mail: a page of the site, where an
editor or publisher turns off the mail ``actions.review`` sends them."""

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

import actions.review
from catalogue.text import RecordTextForm


class ReviewMailForm(RecordTextForm, forms.Form):
    wants_review_mail = forms.BooleanField(
        required=False,
        label="Mail me about reviews",
        help_text=(
            "When you are asked to review a draft, and when someone comments "
            "on, sends back or resubmits a draft you write or review."
        ),
    )


class ReviewMailAdminMixin:
    """The site's page where each person turns review mail on or off."""

    def get_urls(self):
        return [
            path(
                "review-mail/",
                self.admin_view(self.review_mail_view),
                name="review_mail",
            ),
            *super().get_urls(),
        ]

    def review_mail_view(self, request):
        """One's own choice of review mail. Template: ``admin/review_mail.html``."""
        if not request.user.has_perm("catalogue.view_document"):
            raise PermissionDenied
        wants = actions.review.wants_review_mail(request.user)
        # An unticked box posts nothing: a POST is bound even when empty.
        posted = request.POST if request.method == "POST" else None
        form = ReviewMailForm(posted, initial={"wants_review_mail": wants})
        if form.is_valid():
            chosen = form.cleaned_data["wants_review_mail"]
            actions.review.set_review_mail(user=request.user, wants=chosen)
            messages.success(
                request,
                "You get review mail." if chosen else "You get no review mail.",
            )
            return HttpResponseRedirect(reverse("admin:review_mail"))
        context = {
            **self.each_context(request),
            "title": "Review mail",
            "form": form,
            "has_address": bool(request.user.email),
        }
        return TemplateResponse(request, "admin/review_mail.html", context)

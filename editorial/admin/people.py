"""The people's admin: the list, a person's corrections, merging and
splitting people, and the desk's proposals that two people are one.

Every change goes through its verb in ``actions.people`` (``edit_person``,
``merge_people``, ``split_person``, ``accept_proposal``,
``reject_proposal``), which checks the editor's rights, keeps a person's old
address as a redirect and expires the pages that show them. People are
never added here (linking makes them from documents' authors) nor deleted
(a person no position names any more is forgotten by linking).
"""

from dataclasses import dataclass, field

from auditlog.mixins import AuditlogHistoryAdminMixin
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db import transaction
from django.db.models import Count, F, OuterRef, Subquery
from django.http import Http404, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.defaultfilters import pluralize
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.text import get_text_list
from django.views.decorators.http import require_POST

from actions import people
from catalogue.citations import author_line
from catalogue.models import Authorship, Person, PersonAddress, PersonProposal
from catalogue.names import display_name
from editorial import desk
from editorial.admin.forms import PersonForm, PersonMergeForm, PersonSplitForm

# Positions in document order: a document's text now, then its versions.
DOCUMENT_ORDER = [
    "document__registry__prefix",
    "document__number",
    F("version__number").asc(nulls_first=True),
    "position",
]
# How many open proposals a page of "People to check" lists.
PROPOSALS_PER_PAGE = 50
# How many people a split offers at first; the page offers more.
SPLIT_INTO = 2


def current_positions():
    """Positions in documents' texts now, not in their earlier versions."""
    return Authorship.objects.filter(version__isnull=True)


def with_documents(queryset):
    """``queryset`` of people, each with the number of documents whose text
    now names them (``documents``)."""
    named = (
        current_positions()
        .filter(person=OuterRef("pk"))
        .values("person")
        .annotate(n=Count("document", distinct=True))
        .values("n")
    )
    return queryset.annotate(documents=Subquery(named))


def positions_of(persons):
    """``{person pk: [their positions in documents' texts now]}``, in
    document order, each with its document and registry."""
    held = {person.pk: [] for person in persons}
    for authorship in (
        current_positions()
        .filter(person__in=persons)
        .select_related("document__registry")
        .order_by("document__registry__prefix", "document__number", "position")
    ):
        held[authorship.person_id].append(authorship)
    return held


@admin.register(Person)
class PersonAdmin(AuditlogHistoryAdminMixin, admin.ModelAdmin):
    """People, corrected through ``edit_person``; merged (from the list) and
    split (from a person's page) by whoever may merge people."""

    form = PersonForm
    change_form_template = "admin/catalogue/person/change_form.html"
    fields = ["name_line", "slug", "orcid", "affiliation", "homepage", "state"]
    list_display = [
        "display_name",
        "slug",
        "state",
        "orcid",
        "affiliation",
        "documents_named",
    ]
    list_filter = ["state"]
    search_fields = ["display_name", "orcid", "slug"]
    actions = ["merge_people_action"]

    def get_urls(self):
        return [
            path(
                "<path:object_id>/split/",
                self.admin_site.admin_view(self.split_view),
                name="catalogue_person_split",
            ),
            *super().get_urls(),
        ]

    def get_queryset(self, request):
        return with_documents(super().get_queryset(request))

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        return type(form.__name__, (form,), {"user": request.user})

    @admin.display(description="Name")
    def name_line(self, person):
        """The name as the form writes it, for whoever may only read it."""
        return author_line(person.name)

    @admin.display(description="Documents", ordering="documents")
    def documents_named(self, person):
        return person.documents or 0

    def has_add_permission(self, request):
        # People come from the documents' authors, linked as they are saved.
        return False

    def has_delete_permission(self, request, obj=None):
        # A person goes by being merged into another, never by deletion.
        return False

    def has_merge_permission(self, request, obj=None):
        return request.user.has_perm(people.MERGE[0])

    def view_on_site(self, person):
        # Readers meet only the people a public document names.
        if not Person.objects.public().filter(pk=person.pk).exists():
            return None
        content_type = ContentType.objects.get_for_model(Person)
        return reverse(
            "admin:view_on_site",
            kwargs={"content_type_id": content_type.pk, "object_id": person.pk},
        )

    # Saving: the form has ``edit_person`` check and save (see PersonForm).

    def save_form(self, request, form, change):
        return form.person

    def save_model(self, request, obj, form, change):
        """Saved already, by ``edit_person``, when the form was checked."""

    def save_related(self, request, form, formsets, change):
        """A person's form holds no related rows to save."""

    def render_change_form(self, request, context, add=False, change=False, **kw):
        person = context.get("original")
        if person is not None:
            context["positions"] = [
                (authorship, author_line(authorship.name))
                for authorship in person.authorships.select_related(
                    "document__registry", "version"
                ).order_by(*DOCUMENT_ORDER)
            ]
            context["may_split"] = self.has_merge_permission(request)
        return super().render_change_form(request, context, add, change, **kw)

    # Merging, from the list.

    @admin.action(description="Merge selected people…", permissions=["merge"])
    def merge_people_action(self, request, queryset):
        """The people and what each holds, which one to keep, then Confirm;
        the others merge into the one kept.

        Template: ``admin/catalogue/person/merge.html``.
        """
        chosen = list(queryset.order_by("sort_key", "slug"))
        if len(chosen) < 2:
            self.message_user(
                request, "Select two people or more to merge.", messages.WARNING
            )
            return None
        form = PersonMergeForm(
            request.POST if "confirm" in request.POST else None,
            people=chosen,
            initial={"keep": str(likely_kept(chosen).pk)},
        )
        if form.is_valid():
            try:
                return self._merge(request, chosen, form.kept())
            except ValidationError as error:
                form.add_error(None, error)
        held = positions_of(chosen)
        return TemplateResponse(
            request,
            "admin/catalogue/person/merge.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": "Merge these people?",
                "rows": [
                    (person, held[person.pk], radio)
                    for person, radio in zip(chosen, form["keep"], strict=True)
                ],
                "form": form,
                "cancel_url": reverse("admin:catalogue_person_changelist"),
                "action_checkbox_name": ACTION_CHECKBOX_NAME,
            },
        )

    def _merge(self, request, chosen, kept):
        sources = [person for person in chosen if person.pk != kept.pk]
        addresses = sorted(
            {person.slug for person in sources}
            | set(
                PersonAddress.objects.filter(persons__in=sources).values_list(
                    "slug", flat=True
                )
            )
        )
        with transaction.atomic():
            for source in sources:
                people.merge_people(source=source, target=kept, user=request.user)
        self.message_user(
            request,
            f"Merged {get_text_list([str(p) for p in sources], 'and')} into "
            f"{kept} ({kept.slug}): the old address"
            f"{pluralize(len(addresses), 'es')} {get_text_list(addresses, 'and')} "
            f"now redirect{pluralize(len(addresses), 's,')} to {kept.slug}.",
            messages.SUCCESS,
        )
        return None

    # Splitting, from a person's page.

    def split_view(self, request, object_id):
        """Every position of the person (document, name as written,
        co-authors, topic, year), each given to person 1, 2, …, with an
        affiliation for each new person; Split makes them.

        Template: ``admin/catalogue/person/split.html``.
        """
        if not self.has_merge_permission(request):
            raise PermissionDenied
        person = self.get_object(request, object_id)
        if person is None:
            raise Http404(f"There is no person {object_id}.")
        rows = split_rows(person)
        wanted = request.POST.get("groups") or request.GET.get("groups") or ""
        groups = int(wanted) if wanted.isdigit() else SPLIT_INTO
        groups = max(1, min(groups, len(rows)))
        form = PersonSplitForm(
            request.POST if request.method == "POST" else None,
            rows=rows,
            groups=groups,
        )
        if form.is_valid():
            try:
                made = people.split_person(
                    person=person, groups=form.split_groups, user=request.user
                )
            except ValidationError as error:
                form.add_error(None, error)
            else:
                return self._split_done(request, person, made)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": person,
            "title": f"Split {person}",
            "form": form,
            "groups": groups,
            "group_choices": range(2, len(rows) + 1),
        }
        return TemplateResponse(request, "admin/catalogue/person/split.html", context)

    def _split_done(self, request, person, made):
        listed = ", ".join(f"{new} ({new.slug})" for new in made)
        self.message_user(
            request,
            f"Split {person} into {len(made)} people: {listed}. The old address "
            f"{person.slug} lists them.",
            messages.SUCCESS,
        )
        changelist = reverse("admin:catalogue_person_changelist")
        query = urlencode({"q": made[0].display_name})
        return HttpResponseRedirect(f"{changelist}?{query}")


def likely_kept(chosen):
    """The person a merge most likely keeps: a verified one, else the one
    with an ORCID iD, else the one named by the most documents, else the
    fullest name."""
    return max(
        chosen,
        key=lambda person: (
            person.is_verified,
            bool(person.orcid),
            person.documents or 0,
            len(person.display_name),
        ),
    )


@dataclass
class SplitRow:
    """One row of the split page: a position in a document's text now (with
    the same name's positions in its earlier versions), or, when its text no
    longer names the person, a position in an earlier version."""

    key: int
    authorship: Authorship
    pks: list = field(default_factory=list)
    versions: list = field(default_factory=list)
    coauthors: list = field(default_factory=list)

    @property
    def document(self):
        return self.authorship.document

    @property
    def written(self):
        return author_line(self.authorship.name)

    @property
    def label(self):
        version = self.authorship.version
        where = f" v{version.number}" if version else ""
        position = self.authorship.position + 1
        return f"{self.document.identifier}{where}, author {position}"


def split_rows(person):
    """The rows of ``person``'s split page, in document order."""
    authorships = list(
        person.authorships.select_related(
            "document__registry", "document__topic", "version"
        ).order_by(*DOCUMENT_ORDER)
    )
    rows, now = [], {}
    for authorship in authorships:
        if authorship.version_id is None:
            row = SplitRow(authorship.pk, authorship, [authorship.pk])
            now[authorship.document_id, authorship.key] = row
            rows.append(row)
    for authorship in authorships:
        if authorship.version_id is None:
            continue
        row = now.get((authorship.document_id, authorship.key))
        if row is None:
            row = SplitRow(authorship.pk, authorship, [])
            now[authorship.document_id, authorship.key] = row
            rows.append(row)
        row.pks.append(authorship.pk)
        row.versions.append(authorship.version.number)
    names = {}
    for document, position, name in (
        current_positions()
        .filter(document__in={row.authorship.document_id for row in rows})
        .values_list("document", "position", "name")
    ):
        names.setdefault(document, []).append((position, name))
    for row in rows:
        row.coauthors = [
            display_name(name)
            for position, name in sorted(names.get(row.authorship.document_id, []))
            if position != row.authorship.position or row.authorship.version_id
        ]
    return rows


@admin.register(PersonProposal)
class PersonProposalAdmin(admin.ModelAdmin):
    """The record's proposals that two people are one, as a list to read;
    they are decided on the desk ("People to check")."""

    list_display = ["reason", "status", "created_at", "decided_by", "decided_at"]
    list_filter = ["status"]
    list_select_related = ["decided_by"]
    search_fields = ["reason"]
    fields = ["reason", "authorship", "candidate", "status", "decided_by", "decided_at"]

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path(
                "check/", view(self.check_view), name="catalogue_personproposal_check"
            ),
            path(
                "<path:object_id>/decide/",
                view(require_POST(self.decide_view)),
                name="catalogue_personproposal_decide",
            ),
            *super().get_urls(),
        ]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def check_view(self, request):
        """The open proposals, oldest first, a page at a time: each one's
        reason, the two people and their documents, Accept and Reject.

        Template: ``admin/catalogue/personproposal/check.html``.
        """
        if not self.has_view_permission(request):
            raise PermissionDenied
        page = Paginator(desk.open_proposals(), PROPOSALS_PER_PAGE).get_page(
            request.GET.get("page")
        )
        return TemplateResponse(
            request,
            "admin/catalogue/personproposal/check.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": "People to check",
                "page": page,
                "proposals": page.object_list,
            },
        )

    def decide_view(self, request, object_id):
        """POST only: accept the proposal (``_accept``: the two people merge)
        or reject it (``_reject``), then back to ``next``."""
        if not request.user.has_perm(people.MERGE[0]):
            raise PermissionDenied
        proposal = get_object_or_404(
            PersonProposal.objects.select_related("authorship__person", "candidate"),
            pk=object_id if str(object_id).isdigit() else None,
        )
        position, candidate = proposal.authorship.person, proposal.candidate
        try:
            if "_accept" in request.POST:
                people.accept_proposal(proposal=proposal, user=request.user)
                said = (
                    f"Accepted: {position} is {candidate}. The old address "
                    f"{position.slug} now redirects to {candidate.slug}."
                    if position.pk != candidate.pk
                    else f"Accepted: {candidate} was one person already."
                )
            elif "_reject" in request.POST:
                people.reject_proposal(proposal=proposal, user=request.user)
                said = f"Rejected: {position} and {candidate} stay two people."
            else:
                said = None
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
        else:
            if said:
                messages.success(request, said)
        return HttpResponseRedirect(self._next(request))

    def _next(self, request):
        wanted = request.POST.get("next", "")
        if url_has_allowed_host_and_scheme(
            wanted,
            allowed_hosts={request.get_host()},
            require_https=request.is_secure(),
        ):
            return wanted
        return reverse("admin:catalogue_personproposal_check")

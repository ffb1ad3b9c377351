"""The record's models, one module a subject; every model is imported from here.

They all belong to the ``catalogue`` app, whatever module defines them, so
tables, migrations, permissions and admin URLs name ``catalogue``.
"""

from catalogue.models import audit  # noqa: F401  (registers the audit trail)
from catalogue.models.choices import (
    PUBLIC_STATUSES,
    DecisionFormat,
    DecisionRelationKind,
    DecisionStatus,
    DocumentStatus,
    PublicationType,
    RevisionStatus,
    TopicFlavour,
)
from catalogue.models.correction import Correction, LinkCheck
from catalogue.models.decision import (
    OWN_LOG,
    OWN_LOG_SLUG,
    DecisionImage,
    DecisionLog,
    DecisionRecord,
    DecisionRecordQuerySet,
    DecisionRelation,
    DecisionRevision,
    content_digest,
)
from catalogue.models.document import CitedText, Document, DocumentQuerySet
from catalogue.models.notice import DocumentNotice
from catalogue.models.person import (
    Authorship,
    Person,
    PersonAddress,
    PersonProposal,
    PersonState,
    ProposalStatus,
)
from catalogue.models.reference import BrokenReference, Reference
from catalogue.models.registry import PREFIX_VALIDATOR, Registry, RegistryCount
from catalogue.models.related import (
    RELATED_STATUSES,
    CandidateMember,
    CandidateTopic,
    RelatedDocument,
)
from catalogue.models.review import (
    DECISION_ANCHORS,
    DOCUMENT_ANCHORS,
    ReviewComment,
    ReviewerPreference,
    ReviewState,
    ReviewThread,
)
from catalogue.models.revision import Revision
from catalogue.models.row import DocumentRow, ListedCount, RowName
from catalogue.models.schedule import PreviewLink, Schedule
from catalogue.models.topic import Preface, Topic
from catalogue.models.venue import DocumentVenue, Venue
from catalogue.models.version import DocumentVersion
from catalogue.models.vocabulary import DocumentWords, Word

__all__ = [
    "DECISION_ANCHORS",
    "DOCUMENT_ANCHORS",
    "OWN_LOG",
    "OWN_LOG_SLUG",
    "PREFIX_VALIDATOR",
    "PUBLIC_STATUSES",
    "RELATED_STATUSES",
    "Authorship",
    "BrokenReference",
    "CandidateMember",
    "CandidateTopic",
    "CitedText",
    "Correction",
    "DecisionFormat",
    "DecisionImage",
    "DecisionLog",
    "DecisionRecord",
    "DecisionRecordQuerySet",
    "DecisionRelation",
    "DecisionRelationKind",
    "DecisionRevision",
    "DecisionStatus",
    "Document",
    "DocumentNotice",
    "DocumentQuerySet",
    "DocumentRow",
    "DocumentStatus",
    "DocumentVenue",
    "DocumentVersion",
    "DocumentWords",
    "LinkCheck",
    "ListedCount",
    "Person",
    "PersonAddress",
    "PersonProposal",
    "PersonState",
    "Preface",
    "PreviewLink",
    "ProposalStatus",
    "PublicationType",
    "Reference",
    "Registry",
    "RegistryCount",
    "RelatedDocument",
    "ReviewComment",
    "ReviewState",
    "ReviewThread",
    "ReviewerPreference",
    "Revision",
    "RevisionStatus",
    "RowName",
    "Schedule",
    "Topic",
    "TopicFlavour",
    "Venue",
    "Word",
    "content_digest",
]

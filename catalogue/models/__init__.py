"""The record's models, one module a subject; every model is imported from here.

They all belong to the ``catalogue`` app, whatever module defines them, so
tables, migrations, permissions and admin URLs name ``catalogue``.
"""

from catalogue.models import audit  # noqa: F401  (registers the audit trail)
from catalogue.models.choices import (
    PUBLIC_STATUSES,
    DecisionRelationKind,
    DecisionStatus,
    DocumentStatus,
    PublicationType,
    RevisionStatus,
    TopicFlavour,
)
from catalogue.models.decision import (
    DecisionImage,
    DecisionRecord,
    DecisionRecordQuerySet,
    DecisionRelation,
    DecisionRevision,
    content_digest,
)
from catalogue.models.document import CitedText, Document, DocumentQuerySet
from catalogue.models.reference import BrokenReference, Reference
from catalogue.models.registry import PREFIX_VALIDATOR, Registry, RegistryCount
from catalogue.models.revision import Revision
from catalogue.models.topic import Preface, Topic
from catalogue.models.venue import Venue
from catalogue.models.version import DocumentVersion

__all__ = [
    "PREFIX_VALIDATOR",
    "PUBLIC_STATUSES",
    "BrokenReference",
    "CitedText",
    "DecisionImage",
    "DecisionRecord",
    "DecisionRecordQuerySet",
    "DecisionRelation",
    "DecisionRelationKind",
    "DecisionRevision",
    "DecisionStatus",
    "Document",
    "DocumentQuerySet",
    "DocumentStatus",
    "DocumentVersion",
    "Preface",
    "PublicationType",
    "Reference",
    "Registry",
    "RegistryCount",
    "Revision",
    "RevisionStatus",
    "Topic",
    "TopicFlavour",
    "Venue",
    "content_digest",
]

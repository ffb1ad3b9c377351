"""Every change to the record is attributable: django-auditlog keeps who,
when and each field's old and new value.

Tags are a taggit manager, not a plain many-to-many, so they are named here;
taggit sends m2m_changed.
"""

from auditlog.registry import auditlog
from taggit.models import Tag

from catalogue.models.correction import Correction
from catalogue.models.decision import (
    DecisionImage,
    DecisionRecord,
    DecisionRelation,
    DecisionRevision,
)
from catalogue.models.document import Document
from catalogue.models.person import Person, PersonAddress, PersonProposal
from catalogue.models.registry import Registry
from catalogue.models.review import ReviewComment, ReviewerPreference, ReviewThread
from catalogue.models.revision import Revision
from catalogue.models.schedule import PreviewLink, Schedule
from catalogue.models.topic import Preface, Topic
from catalogue.models.venue import Venue
from catalogue.models.version import DocumentVersion

auditlog.register(Registry, exclude_fields=["last_number"])
auditlog.register(Topic)
auditlog.register(Venue)
auditlog.register(Document, m2m_fields={"tags"}, exclude_fields=["updated_at"])
auditlog.register(Revision, exclude_fields=["updated_at"])
auditlog.register(DocumentVersion)
auditlog.register(DecisionRecord, exclude_fields=["updated_at"])
auditlog.register(DecisionRevision, exclude_fields=["updated_at"])
auditlog.register(DecisionRelation)
auditlog.register(DecisionImage, exclude_fields=["data"])
auditlog.register(Person, exclude_fields=["updated_at"])
auditlog.register(PersonAddress, m2m_fields={"persons"})
auditlog.register(PersonProposal)
auditlog.register(Correction)
# Changes arranged ahead, and links that show unpublished text: who made
# and who cancelled or revoked each.
auditlog.register(Schedule)
auditlog.register(PreviewLink)
# The review conversation: who commented, assigned, sent back, and when.
auditlog.register(ReviewThread)
auditlog.register(ReviewComment)
auditlog.register(ReviewerPreference)
auditlog.register(Preface, exclude_fields=["updated_at"])
# Tags are renamed and merged in the admin; their names show on public pages.
auditlog.register(Tag)

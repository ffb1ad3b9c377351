"""The topic page import in the admin: a topic's text uploaded, imported as
``import_index`` imports it, in a background job with a page of its own."""

from django import forms

from editorial.admin.upload_jobs import UploadImportMixin
from editorial.admin.uploads import upload_bytes

PAGE_JOB = "imports.job_functions.import_page"


class TopicPageForm(forms.Form):
    page = forms.FileField(
        label="Topic page",
        help_text="The text of a topic page in the record's format, UTF-8.",
    )

    def clean_page(self):
        upload = self.cleaned_data["page"]
        upload.data = upload_bytes(upload, encoding="utf-8", save_as="page as UTF-8")
        return upload


class TopicPageImportMixin(UploadImportMixin):
    """Adds "Import a topic page" to a model admin (the topics')."""

    import_export_change_list_template = "admin/catalogue/topic/change_list.html"

    upload_import = "import_page"
    upload_route = "import-page/"
    upload_form_class = TopicPageForm
    upload_field = "page"
    upload_job = PAGE_JOB
    # A page brings documents, new versions included, and makes and changes
    # topics.
    upload_permissions = (
        "catalogue.publish_document",
        "catalogue.add_topic",
        "catalogue.change_topic",
    )
    upload_heading = "Import a topic page"
    upload_button = "Import the page"
    upload_rule = "The whole page is imported at once, or none of it."

    def upload_job_title(self, upload):
        return f"Import of the topic page {upload.name}"

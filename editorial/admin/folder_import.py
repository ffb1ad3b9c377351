"""The decision folder import in the admin: a team's folder uploaded as a .zip
archive (``formats.archives``), imported as ``import_decisions`` imports a
folder, in a background job with a page of its own.

Only an archive is taken, not a folder chosen in the browser
(``<input webkitdirectory>``): Django's multipart parser keeps the base name
of each file only, so the images in ``img/`` could not be found again, two
files of one name in different folders would collide, and a folder of more
than ``DATA_UPLOAD_MAX_NUMBER_FILES`` files would be refused whole. An
archive keeps its paths and is checked once, as one file.
"""

from django import forms
from django.core.exceptions import ValidationError

from actions.decisions import check_log, log_name
from catalogue.text import RecordTextForm
from editorial.admin.upload_jobs import UploadImportMixin
from editorial.admin.uploads import upload_bytes
from formats.archives import read_archive

FOLDER_JOB = "imports.job_functions.import_decision_folder"


class DecisionFolderForm(RecordTextForm, forms.Form):
    log = forms.CharField(
        label="Decision log",
        max_length=200,
        required=False,
        help_text=(
            "The team’s log the folder is (“GOV.UK AWS”): a new name makes a "
            "new log, at an address of its own (/decisions/govuk-aws/); the "
            "name of a log imported before updates it. Left empty, the folder "
            "is the record’s own decisions, which its references name."
        ),
    )
    archive = forms.FileField(
        label="Decision folder (.zip)",
        help_text=(
            "The folder of decision records zipped, as zipping the folder or "
            "GitHub’s “Download ZIP” gives it; the folder holding the "
            "decision files (0001-title.md) is imported."
        ),
        widget=forms.ClearableFileInput(attrs={"accept": ".zip,application/zip"}),
    )

    def clean_log(self):
        # The rules of a log's name are open_log's, asked before the upload is
        # kept; a folder's own list of logs is held to the same.
        name = log_name(self.cleaned_data.get("log", ""))
        try:
            check_log(name=name)
        except ValidationError as error:
            raise ValidationError(error.messages) from None
        return name

    def clean_archive(self):
        upload = self.cleaned_data["archive"]
        upload.data = upload_bytes(upload)
        upload.archive = read_archive(upload.data, name=upload.name)
        return upload

    def clean(self):
        cleaned = super().clean()
        if "archive" in cleaned:
            cleaned["archive"].log = cleaned.get("log", "")
        return cleaned


class DecisionFolderImportMixin(UploadImportMixin):
    """Adds "Import a decision folder" to a model admin (the decision records')."""

    change_list_template = "admin/catalogue/decisionrecord/change_list.html"

    upload_import = "import_folder"
    upload_route = "import-folder/"
    upload_form_class = DecisionFolderForm
    upload_field = "archive"
    upload_job = FOLDER_JOB
    # A folder's new records are published at once; its changes to published
    # ones are held as their pending revisions; its relations are kept as the
    # files state them, removed where they no longer do. Images are written
    # with their records, as the records' own.
    upload_permissions = (
        "catalogue.add_decisionrecord",
        "catalogue.change_decisionrecord",
        "catalogue.publish_decisionrecord",
        "catalogue.add_decisionrelation",
        "catalogue.delete_decisionrelation",
    )
    upload_heading = "Import a decision folder"
    upload_button = "Import the folder"
    upload_rule = "The whole folder is imported at once, or none of it."
    upload_progress_words = "files imported"

    def upload_job_title(self, upload):
        found = upload.archive
        inside = f" ({found.folder}/)" if found.folder else ""
        into = f" as the log “{upload.log}”" if upload.log else ""
        return f"Import of the decision folder {upload.name}{inside}{into}"

    def upload_job_arguments(self, form):
        return {"log": form.cleaned_data["log"]}

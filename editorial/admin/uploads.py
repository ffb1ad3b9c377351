"""Files uploaded to the admin's imports: bounded in size, and text."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.template.defaultfilters import filesizeformat


def upload_bytes(upload, *, encoding=None, save_as=""):
    """The bytes of ``upload``, refused before anything is kept when it is
    larger than ``IMPORT_MAX_BYTES`` or, given an ``encoding``, is not text in
    it (the first line that is not, and its byte; ``save_as`` names the
    remedy)."""
    limit = settings.IMPORT_MAX_BYTES
    if upload.size > limit:
        raise ValidationError(
            f"{upload.name} is {filesizeformat(upload.size)}; the import "
            f"takes files of up to {filesizeformat(limit)}.",
            code="too_large",
        )
    data = b"".join(upload.chunks())
    if encoding is None:
        return data
    try:
        data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ValidationError(
            f"Line {line} is not UTF-8 text (byte {data[error.start]:#04x}); "
            f"save the {save_as}.",
            code="encoding",
        ) from error
    return data

"""How the API writes JSON: one way for every client."""

from rest_framework.renderers import JSONRenderer


class RecordJSONRenderer(JSONRenderer):
    """Compact JSON, whatever an ``Accept`` header's parameters ask
    (``application/json; indent=8``): an anonymous answer is cached and
    served to every client alike, so nothing of one request may shape it."""

    def get_indent(self, accepted_media_type, renderer_context):
        return None

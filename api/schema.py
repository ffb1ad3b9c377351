"""The OpenAPI description's answers beside success, for every operation:
what a client may meet and must be able to read."""

from drf_spectacular.openapi import AutoSchema

DETAIL = {
    "type": "object",
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
}
# A refused filter: each parameter's problems, by name.
FIELD_ERRORS = {
    "type": "object",
    "additionalProperties": {"type": "array", "items": {"type": "string"}},
}
ERRORS = {
    "401": ("An Authorization header naming no usable API token.", DETAIL),
    "404": ("Nothing at this address that the request may see.", DETAIL),
    "429": ("Over the rate limit; Retry-After says when to ask again.", DETAIL),
}


class RecordAutoSchema(AutoSchema):
    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        errors = dict(ERRORS)
        if self.method == "GET" and self._is_list_view():
            errors["400"] = ("A filter or cursor the list cannot read.", FIELD_ERRORS)
        for status, (description, schema) in errors.items():
            responses.setdefault(
                status,
                {
                    "description": description,
                    "content": {"application/json": {"schema": schema}},
                },
            )
        return responses

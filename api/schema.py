"""The OpenAPI description's answers beside success, for every operation:
what a client may meet and must be able to read. Every client error is a
problem (RFC 9457, ``application/problem+json``: ``api.problems``)."""

from drf_spectacular.openapi import AutoSchema

from api.problems import CONTENT_TYPE

PROBLEM = {
    "type": "object",
    "description": "Problem details (RFC 9457).",
    "properties": {
        "type": {
            "type": "string",
            "format": "uri-reference",
            "description": "What kind of problem: `about:blank` (its status "
            "says it all) or the address of one of the API's own.",
        },
        "title": {"type": "string"},
        "status": {"type": "integer", "minimum": 400, "maximum": 599},
        "detail": {"type": "string", "description": "What was wrong, for a person."},
    },
    "required": ["type", "title", "status", "detail"],
}
# A refused query parameter: the first named, and each with its reason.
PARAMETER_PROBLEM = {
    **PROBLEM,
    "properties": {
        **PROBLEM["properties"],
        "parameter": {"type": "string", "description": "The parameter refused."},
        "invalid-params": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "reason": {"type": "string"},
                },
                "required": ["name", "reason"],
            },
        },
    },
    "required": [*PROBLEM["required"], "parameter", "invalid-params"],
}
ERRORS = {
    "400": (
        "A query parameter the address does not take, empty, repeated, or a "
        "value it cannot read or out of its bounds: `parameter` names it.",
        {"anyOf": [PARAMETER_PROBLEM, PROBLEM]},
    ),
    "401": ("An Authorization header naming no usable API token.", PROBLEM),
    "404": ("Nothing at this address that the request may see.", PROBLEM),
    "406": ("An Accept header that JSON does not satisfy.", PROBLEM),
    "429": ("Over the rate limit; Retry-After says when to ask again.", PROBLEM),
}


# A query of another spelling than the API writes (pagecache.queries).
RESPELLED = {
    "description": "The query spelled otherwise than the API writes it "
    "(parameters out of order, `page_size=050`, another percent-encoding): "
    "Location names the same query in its one spelling."
}


class RecordAutoSchema(AutoSchema):
    def _get_filter_parameters(self):
        """The filters' parameters with their bounds: a year's range, and no
        empty value (refused, as a parameter the list does not take is)."""
        parameters = super()._get_filter_parameters()
        filterset = getattr(self.view, "filterset_class", None)
        for parameter in parameters:
            filter_ = filterset.base_filters.get(parameter["name"])
            schema = parameter["schema"]
            target = schema.get("items", schema)
            if target.get("type") == "integer" and filter_ is not None:
                for bound, key in (("min_value", "minimum"), ("max_value", "maximum")):
                    if filter_.extra.get(bound) is not None:
                        target[key] = filter_.extra[bound]
            elif target.get("type") == "string" and "enum" not in target:
                target["minLength"] = 1
        return parameters

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        responses.setdefault("301", RESPELLED)
        for status, (description, schema) in ERRORS.items():
            responses.setdefault(
                status,
                {
                    "description": description,
                    "content": {CONTENT_TYPE: {"schema": schema}},
                },
            )
        return responses

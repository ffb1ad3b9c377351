"""The OpenAPI description's answers beside success, for every operation:
what a client may meet and must be able to read. Every client error is a
problem (RFC 9457, ``application/problem+json``: ``api.problems``)."""

from django.core.exceptions import FieldDoesNotExist
from drf_spectacular.openapi import AutoSchema
from taggit.models import Tag

from api.problems import CONTENT_TYPE
from catalogue.models import DecisionLog, Registry, Topic

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
    "405": ("A method other than GET, HEAD or OPTIONS.", PROBLEM),
    "406": ("An Accept header that JSON does not satisfy.", PROBLEM),
    "413": ("A request body over the site's limit.", PROBLEM),
    "429": ("Over the rate limit; Retry-After says when to ask again.", PROBLEM),
}


# A query of another spelling than the API writes (pagecache.queries).
RESPELLED = {
    "description": "The query spelled otherwise than the API writes it "
    "(parameters out of order, `page_size=050`, another percent-encoding): "
    "Location names the same query in its one spelling."
}


# The fields whose values a parameter of that name takes, for its bounds.
NAMED_FIELDS = {
    "registry": (Registry, "prefix"),
    "prefix": (Registry, "prefix"),
    "topic": (Topic, "slug"),
    "tag": (Tag, "slug"),
    "log": (DecisionLog, "slug"),
}
# A second file of one number is its twin: 2, 3, … as a small integer holds.
TWIN_BOUNDS = {"minimum": 1, "maximum": 32767}


def bounded(schema, field):
    """``schema`` (a string's) bounded as ``field``'s values are."""
    schema.setdefault("minLength", 1)
    if getattr(field, "max_length", None):
        schema.setdefault("maxLength", field.max_length)


class RecordAutoSchema(AutoSchema):
    def _field_named(self, name):
        """The model field whose values the parameter ``name`` takes, if known."""
        if name in NAMED_FIELDS:
            model, field = NAMED_FIELDS[name]
            return model._meta.get_field(field)
        queryset = getattr(self.view, "queryset", None)
        if queryset is None and hasattr(self.view, "get_queryset"):
            queryset = self.view.get_queryset()
        model = getattr(queryset, "model", None)
        try:
            return model._meta.get_field(name) if model else None
        except FieldDoesNotExist:
            return None

    def _resolve_path_parameters(self, variables):
        """The path's parameters with their bounds, as the record's fields
        hold them."""
        parameters = super()._resolve_path_parameters(variables)
        for parameter in parameters:
            schema = parameter["schema"]
            if parameter["name"] == "twin":
                schema.update(TWIN_BOUNDS)
            elif schema.get("type") == "string" and "pattern" not in schema:
                bounded(schema, self._field_named(parameter["name"]))
        return parameters

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
                bounded(target, self._field_named(parameter["name"]))
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

"""The API's reference page: the OpenAPI description drf-spectacular writes,
read into rows the page shows, operation by operation.

The page is the site's own (its frame, its styles, no script): Swagger UI
and Redoc build their pages in the browser, Redoc with styles injected at
run time, which the site's Content-Security-Policy (no inline style) does
not allow."""

from dataclasses import dataclass

from drf_spectacular.generators import SchemaGenerator

BOUNDS = [
    ("minimum", "at least {}"),
    ("maximum", "at most {}"),
    ("minLength", "at least {} characters"),
    ("maxLength", "at most {} characters"),
    ("pattern", "matching {}"),
    ("format", "{}"),
]


@dataclass(frozen=True)
class Parameter:
    name: str
    where: str
    required: bool
    kind: str
    bounds: str
    description: str


@dataclass(frozen=True)
class Answer:
    status: str
    description: str


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    anchor: str
    description: str
    parameters: list
    answers: list


def kind_of(schema):
    """A parameter's type as a reader reads it: ``string``, ``array of
    string``, one of an enumeration's values."""
    if schema.get("type") == "array":
        return f"list of {kind_of(schema.get('items', {}))}"
    if "enum" in schema:
        return "one of " + ", ".join(str(value) for value in schema["enum"])
    return str(schema.get("type", "any"))


def bounds_of(schema):
    schema = schema.get("items", schema) if schema.get("type") == "array" else schema
    return "; ".join(text.format(schema[key]) for key, text in BOUNDS if key in schema)


def operations(description):
    """The operations of the OpenAPI ``description``, in its paths' order."""
    found = []
    for path, methods in description["paths"].items():
        for method, operation in methods.items():
            parameters = [
                Parameter(
                    name=parameter["name"],
                    where=parameter["in"],
                    required=parameter.get("required", False),
                    kind=kind_of(parameter.get("schema", {})),
                    bounds=bounds_of(parameter.get("schema", {})),
                    description=parameter.get("description", ""),
                )
                for parameter in operation.get("parameters", [])
            ]
            answers = [
                Answer(
                    status=status,
                    description=answer.get("description")
                    or "JSON, as the description's schema for it states.",
                )
                for status, answer in sorted(operation["responses"].items())
            ]
            found.append(
                Operation(
                    method=method.upper(),
                    path=path,
                    anchor=operation["operationId"].replace("_", "-"),
                    description=operation.get("description", ""),
                    parameters=parameters,
                    answers=answers,
                )
            )
    return found


def api_description():
    """The OpenAPI description as ``/api/schema/`` serves it to anyone."""
    return SchemaGenerator().get_schema(request=None, public=True)

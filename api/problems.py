"""The API's one error shape: problem details (RFC 9457).

Every client error under ``/api/`` is ``application/problem+json`` with
``type``, ``title``, ``status`` and ``detail``; a refused query parameter
also names it (``parameter``) and lists every parameter refused, each with
its reason (``invalid-params``, as RFC 9457's own example). A problem of no
type of its own is ``about:blank``, titled with its status's phrase.

Three places answer one: DRF's exception handler (``exception_handler``)
for what a view refuses, the 400 handler for what Django refuses before a
view (``bad_request``), and ``ProblemMiddleware``, outermost, for any other
client error under the API (the edge's body limits, the token checks).
"""

import json
from http import HTTPStatus

from django.conf import settings
from django.core.exceptions import BadRequest
from django.http import HttpResponse
from rest_framework import exceptions, status
from rest_framework.views import exception_handler as drf_exception_handler

from public.views import bad_request as page_bad_request

CONTENT_TYPE = "application/problem+json"
# The problem types of the API's own: their address and title.
INVALID_PARAMETER = "invalid-parameter"
TYPES = {INVALID_PARAMETER: "A query parameter the API cannot read"}
DESCRIPTIONS = {
    INVALID_PARAMETER: (
        "A query parameter the address does not take, given empty, given "
        "twice where it is read once, or a value it cannot read or out of its "
        "bounds (the OpenAPI description states each parameter's). "
        "`parameter` names the first refused; `invalid-params` lists each "
        "refused parameter (`name`) with its `reason`."
    )
}


def type_url(name):
    return f"{settings.SITE_URL.rstrip('/')}/api/problems/{name}/"


def body(status_code, detail, *, type_name=None, **members):
    """A problem as a dict: its type, title, status and detail, then ``members``."""
    if type_name is None:
        kind, title = "about:blank", HTTPStatus(status_code).phrase
    else:
        kind, title = type_url(type_name), TYPES[type_name]
    return {
        "type": kind,
        "title": title,
        "status": status_code,
        "detail": detail,
        **members,
    }


def response_of(data, headers=None):
    """The response of the problem ``data``, never kept by any cache."""
    return HttpResponse(
        json.dumps(data, ensure_ascii=False),
        status=data["status"],
        content_type=CONTENT_TYPE,
        headers={"Cache-Control": "no-store", **(headers or {})},
    )


def problem(status_code, detail, *, type_name=None, headers=None, **members):
    """A problem response."""
    return response_of(
        body(status_code, detail, type_name=type_name, **members), headers
    )


def parameter_body(errors):
    """The problem of refused parameters: ``errors`` maps each name to its
    reasons, the first refused first."""
    invalid = [
        {"name": name, "reason": reason}
        for name, reasons in errors.items()
        for reason in reasons
    ]
    first = invalid[0]
    return body(
        400,
        f"{first['name']}: {first['reason']}",
        type_name=INVALID_PARAMETER,
        parameter=first["name"],
        **{"invalid-params": invalid},
    )


class ParameterError(exceptions.APIException):
    """Query parameters a view refuses: ``errors`` maps each to its reasons."""

    status_code = status.HTTP_400_BAD_REQUEST

    def __init__(self, errors):
        self.errors = {name: list(reasons) for name, reasons in errors.items()}
        super().__init__(detail=parameter_body(self.errors)["detail"])


def refused(name, reason):
    return ParameterError({name: [reason]})


def exception_handler(exc, context):
    """DRF's answer to ``exc``, as a problem: a filter's ``ValidationError``
    (each field a parameter) and a ``ParameterError`` name the parameters."""
    if isinstance(exc, exceptions.ValidationError) and isinstance(exc.detail, dict):
        exc = ParameterError(
            {name: [str(r) for r in reasons] for name, reasons in exc.detail.items()}
        )
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ParameterError):
        data = parameter_body(exc.errors)
    else:
        data = response.data
        if isinstance(data, dict) and "detail" in data:
            data = data["detail"]
        data = body(response.status_code, str(data))
    response.data = data
    response.content_type = CONTENT_TYPE
    response["Cache-Control"] = "no-store"
    return response


def is_api(request):
    return request.path_info.startswith("/api/")


def bad_request(request, exception):
    """The 400 answer: under the API, a problem saying what a ``BadRequest``
    said (a NUL in a parameter names it); elsewhere, the site's page."""
    if not is_api(request):
        return page_bad_request(request, exception)
    if type(exception) is not BadRequest:
        return problem(400, "The request cannot be read.")
    parameter = getattr(exception, "parameter", None)
    if parameter is None:
        return problem(400, str(exception))
    return response_of(parameter_body({parameter: [str(exception)]}))


def _detail_of(response):
    """What a plain client error under the API said, as a sentence."""
    text = response.content.decode("utf-8", "replace").strip()
    if response.get("Content-Type", "").startswith("application/json"):
        try:
            data = json.loads(text)
        except ValueError:
            return text
        if isinstance(data, dict) and "detail" in data:
            return str(data["detail"])
    if response.get("Content-Type", "").startswith("text/plain") and text:
        return text
    return HTTPStatus(response.status_code).description


class ProblemMiddleware:
    """Outermost: a client error under ``/api/`` that is not a problem yet
    (a body over its limit, a Content-Length that is no number, an answer of
    Django's own) becomes one, its text as its detail."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            not is_api(request)
            or not 400 <= response.status_code < 500
            or response.get("Content-Type", "").startswith(CONTENT_TYPE)
            or response.streaming
        ):
            return response
        headers = {
            name: response[name]
            for name in ("Retry-After", "WWW-Authenticate", "Allow", "Vary")
            if response.has_header(name)
        }
        return problem(response.status_code, _detail_of(response), headers=headers)

"""The filter fields' widgets and labels, written by string formatting.

Every list page and search shows its filters: a select per registry, topic
and status, two year inputs and a checkbox per public tag. Django renders
each of those, and each option of them, through a template of its own,
which costs more than the rest of a list's page around its rows. This
renderer writes the same bytes from the same context Django's widgets and
bound fields hand their templates (``get_context``, ``label_tag``), so every
rule of what a field shows (its value, its choices, which are selected, its
id, its attributes) stays Django's; only the few templates below are written
here, as they read in ``django/forms/templates``. Any other template is
rendered as Django would (``TemplatesSetting``, the project's renderer).
"""

from html import escape

from django.forms.renderers import TemplatesSetting


def conditional_escape(value):
    """Django's ``conditional_escape`` (which escapes as ``html.escape``
    does), without making a safe string of each of a page's hundred values."""
    if hasattr(value, "__html__"):
        return value.__html__()
    return escape(str(value))


def _attrs(attrs):
    """``django/forms/widgets/attrs.html`` (and ``django/forms/attrs.html``)."""
    return "".join(
        f" {conditional_escape(name)}"
        + ("" if value is True else f'="{conditional_escape(f"{value}")}"')
        for name, value in attrs.items()
        if value is not False
    )


def _input(widget):
    """``input.html``."""
    value = widget["value"]
    return (
        f'<input type="{conditional_escape(widget["type"])}" '
        f'name="{conditional_escape(widget["name"])}"'
        + ("" if value is None else f' value="{conditional_escape(f"{value}")}"')
        + f"{_attrs(widget['attrs'])}>\n"
    )


def _select_option(option):
    """``select_option.html``."""
    value = conditional_escape(f"{option['value']}")
    return (
        f'<option value="{value}"{_attrs(option["attrs"])}>'
        f"{conditional_escape(option['label'])}</option>\n"
    )


def _input_option(option):
    """``input_option.html``, as ``checkbox_option.html`` includes it."""
    if not option["wrap_label"]:
        return _input(option) + "\n\n"
    option_id = option["attrs"].get("id")
    label_for = f' for="{conditional_escape(option_id)}"' if option_id else ""
    return (
        f"<label{label_for}>{_input(option)} "
        f"{conditional_escape(option['label'])}</label>\n\n"
    )


OPTIONS = {
    "django/forms/widgets/select_option.html": _select_option,
    "django/forms/widgets/checkbox_option.html": _input_option,
}


def _options(options):
    return [OPTIONS[option["template_name"]](option) for option in options]


def _select(widget):
    """``select.html``."""
    html = [f'<select name="{conditional_escape(widget["name"])}"']
    html.append(f"{_attrs(widget['attrs'])}>")
    for group_name, options, _ in widget["optgroups"]:
        if group_name:
            html.append(f'\n  <optgroup label="{conditional_escape(group_name)}">')
        html.extend(f"\n  {option}" for option in _options(options))
        if group_name:
            html.append("\n  </optgroup>")
    html.append("\n</select>\n")
    return "".join(html)


def _checkbox_select(widget):
    """``checkbox_select.html``, which includes ``multiple_input.html``."""
    attrs = widget["attrs"]
    html = ["<div"]
    if attrs.get("id"):
        html.append(f' id="{conditional_escape(attrs["id"])}"')
    if attrs.get("class"):
        html.append(f' class="{conditional_escape(attrs["class"])}"')
    html.append(">")
    for group, options, _ in widget["optgroups"]:
        if group:
            html.append(f"\n  <div><label>{conditional_escape(group)}</label>")
        html.extend(f"<div>\n    {option}</div>" for option in _options(options))
        if group:
            html.append("\n  </div>")
    html.append("\n</div>\n\n")
    return "".join(html)


def _label(context):
    """``django/forms/label.html``."""
    label = conditional_escape(context["label"])
    if not context["use_tag"]:
        return f"{label}\n"
    tag = conditional_escape(context["tag"])
    return f"<{tag}{_attrs(context['attrs'] or {})}>{label}</{tag}>\n"


ERROR_LISTS = {
    "django/forms/errors/list/default.html",
    "django/forms/errors/list/ul.html",
}

WIDGETS = {
    "django/forms/widgets/select.html": _select,
    "django/forms/widgets/number.html": lambda widget: _input(widget) + "\n",
    "django/forms/widgets/checkbox_select.html": _checkbox_select,
}


class FilterFieldsRenderer(TemplatesSetting):
    """Django's renderer, writing the filter fields' widgets and labels
    itself (the bytes of Django's templates, from their context)."""

    def render(self, template_name, context, request=None):
        write = WIDGETS.get(template_name)
        if write is not None and all(
            option["template_name"] in OPTIONS
            for _, options, _ in context["widget"].get("optgroups", ())
            for option in options
        ):
            return write(context["widget"]).strip()
        if template_name == "django/forms/label.html":
            return _label(context).strip()
        if template_name in ERROR_LISTS and not context["errors"]:
            # Each list of errors writes nothing when it holds none.
            return ""
        return super().render(template_name, context, request=request)

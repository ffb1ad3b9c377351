"""Documents as reference-manager entries: BibTeX, RIS and CSL-JSON.

Each document is one entry keyed by its permanent identifier (``LIT-004``),
so a key never changes when the text does. arXiv identifiers become
``eprint``/``archiveprefix``, DOIs ``doi``; the citation note goes in
``note``. The editors' summary is our reading of the work, not its
abstract, so it goes in an annotation, labelled as ours: BibTeX's ``annote``,
a second RIS ``N1`` note, CSL-JSON's ``annote``. The three formats hold the
same facts.
"""

import json
import re

from django.http import HttpResponse

from catalogue.citations import author_names
from catalogue.models import Document

FORMATS = {
    "bib": "application/x-bibtex; charset=utf-8",
    "ris": "application/x-research-info-systems; charset=utf-8",
    "json": "application/vnd.citationstyles.csl+json; charset=utf-8",
}

LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "&": r"\&",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
LATEX_RE = re.compile("|".join(re.escape(char) for char in LATEX_SPECIALS))


def source_fields(document):
    """``{"eprint": ...}`` or ``{"doi": ...}`` from the source identifier."""
    if document.arxiv_id:
        return {"eprint": document.arxiv_id}
    if document.doi:
        return {"doi": document.doi}
    return {}


def annotation(document):
    """The editors' summary, labelled as the anthology's, or ""."""
    if not document.summary:
        return ""
    summary = " ".join(document.summary.split("\n"))
    return f"Anthology summary ({document.label}): {summary}"


def plain_reference(document):
    """The document as a reference list prints it, in plain text:
    ``Chen et al. (2016). Training Deep Nets with Sublinear Memory Cost.
    arXiv:1604.06174.``"""
    parts = [f"{document.authors} ({document.year})", document.title]
    if document.arxiv_id:
        parts.append(f"arXiv:{document.arxiv_id}")
    elif document.doi:
        parts.append(f"doi:{document.doi}")
    if document.citation_note:
        parts.append(document.citation_note)
    return " ".join(part if part[-1] in ".?!" else f"{part}." for part in parts)


def latex(text):
    """Text with LaTeX's special characters escaped; Unicode is kept (UTF-8)."""
    return LATEX_RE.sub(lambda match: LATEX_SPECIALS[match[0]], text)


def bibtex_entry(document):
    names, et_al = author_names(document.authors)
    # Each name braced: BibTeX then takes it whole instead of guessing its parts.
    authors = " and ".join(f"{{{latex(name)}}}" for name in names)
    fields = {
        "author": f"{authors} and others" if et_al else authors,
        # Double braces keep the title's capitals.
        "title": f"{{{latex(document.title)}}}",
        "year": str(document.year),
    }
    source = source_fields(document)
    if "eprint" in source:
        fields.update(eprint=source["eprint"], archiveprefix="arXiv")
    if "doi" in source:
        fields["doi"] = latex(source["doi"])
    if document.source_url:
        fields["url"] = document.source_url
    if document.citation_note:
        fields["note"] = latex(document.citation_note)
    if document.summary:
        fields["annote"] = latex(annotation(document))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields.items())
    return f"@misc{{{document.identifier},\n{body}\n}}\n"


def ris_entry(document):
    names, _ = author_names(document.authors)
    lines = [("TY", "GEN"), ("ID", document.identifier)]
    lines.extend(("AU", name) for name in names)
    lines += [("TI", document.title), ("PY", str(document.year))]
    source = source_fields(document)
    if "eprint" in source:
        lines.append(("AN", f"arXiv:{source['eprint']}"))
    if "doi" in source:
        lines.append(("DO", source["doi"]))
    if document.source_url:
        lines.append(("UR", document.source_url))
    if document.citation_note:
        lines.append(("N1", document.citation_note))
    if document.summary:
        lines.append(("N1", annotation(document)))
    lines.append(("ER", ""))
    return "".join(f"{tag}  - {value}\r\n" for tag, value in lines)


def csl_item(document):
    names, _ = author_names(document.authors)
    item = {
        "id": document.identifier,
        "type": "article",
        "title": document.title,
        "author": [{"literal": name} for name in names],
        "issued": {"date-parts": [[document.year]]},
    }
    source = source_fields(document)
    if "eprint" in source:
        item.update(publisher="arXiv", number=source["eprint"])
    if "doi" in source:
        item["DOI"] = source["doi"]
    if document.source_url:
        item["URL"] = document.source_url
    if document.citation_note:
        item["note"] = document.citation_note
    if document.summary:
        item["annote"] = annotation(document)
    return item


def render(documents, fmt):
    """The documents as one file in ``fmt`` ("bib", "ris" or "json")."""
    if fmt == "bib":
        return "\n".join(bibtex_entry(document) for document in documents)
    if fmt == "ris":
        return "\r\n".join(ris_entry(document) for document in documents)
    if fmt == "json":
        items = [csl_item(document) for document in documents]
        return json.dumps(items, ensure_ascii=False, indent=2) + "\n"
    raise ValueError(f"unknown citation format {fmt!r}")


def citation_response(documents, fmt, filename, *, keep_withdrawn=False):
    """A download of ``documents`` (a queryset) in ``fmt``, in number order.

    Withdrawn documents are left out of a file of several; a withdrawn
    document's own file (``keep_withdrawn``) still holds it. The caller
    chooses who sees what: readers get ``Document.objects.public()``.
    """
    if not keep_withdrawn:
        documents = documents.exclude(status=Document.Status.WITHDRAWN)
    text = render(documents.in_number_order(), fmt)
    response = HttpResponse(text, content_type=FORMATS[fmt])
    response["Content-Disposition"] = f'attachment; filename="{filename}.{fmt}"'
    return response

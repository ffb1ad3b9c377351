"""A corpus of teams' decision folders imported, each as its own log, into an
empty record: what each folder gave and what it lost.

    make bench-decisions CORPUS_DIR=~/adr-corpus
    .venv/bin/python bench/decision_corpus.py ~/adr-corpus

Every sub-directory of the corpus directory (the argument, else CORPUS_DIR) is
one decision folder, imported with ``import_decisions`` into a fresh SQLite
database as a log named after the folder, with a prefix of its initials
(``govuk-aws``: GA). A row per folder says:

- found: Markdown files anywhere in the folder that look like decisions
  (not named or shaped as an index or a template);
- imported: the log's records after the import;
- status: records with a status of ours; as written: with only the team's
  words (no status of ours); dated: with a decision date;
- relations: stated in the files (a relation both its records state counts
  twice), resolved (kept between two records, once), and named records not
  found;
- notes: what the import reported as read otherwise than written, or left
  out; REFUSED, with the first problems, when the folder was refused.

A folder that fails otherwise is reported with the end of its traceback and
counted; the run goes on. The table ends with the totals, and a sentence of
them. A ``sources.tsv`` beside the folders (a line a folder: its name, a tab,
where it comes from) names each folder's source in its row. Not run by CI:
the corpus is not in the project.
"""

import argparse
import os
import sys
import tempfile
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "anthology.settings")
sys.path.insert(0, str(ROOT))

COLUMNS = [
    "found",
    "imported",
    "status",
    "as written",
    "dated",
    "relations stated",
    "resolved",
    "not found",
    "notes",
]
UNRESOLVED = "is not in the folder or the record"
# Where each folder of the corpus comes from, if the corpus says.
SOURCES = "sources.tsv"


def prefix_of(name):
    """``govuk-aws``: GA; a name starting with a digit gets a leading D."""
    words = "".join(c if c.isascii() and c.isalnum() else " " for c in name).split()
    prefix = "".join(word[0] for word in words).upper()[:19]
    return prefix if prefix[:1].isalpha() else f"D{prefix}"


def decision_like(folder):
    """The Markdown files anywhere under ``folder`` that look like decisions:
    not hidden, not named as an index or a template unless numbered, not
    shaped as one; a sub-folder's only page (``0001-x/README.md``, or a
    README.md and an index.md of one text) counts once."""
    from formats.madr import (
        INDEX_NAME_RE,
        NOT_DECISION_RE,
        is_template_or_index,
        name_parts,
        read_text,
    )

    paths = [
        path
        for path in folder.rglob("*")
        if path.suffix.lower() in {".md", ".markdown"}
        and path.is_file()
        and not any(part.startswith(".") for part in path.relative_to(folder).parts)
    ]
    grouping = {path.parent for path in paths if not INDEX_NAME_RE.fullmatch(path.name)}
    found, pages = 0, set()
    for path in paths:
        name = path.relative_to(folder).as_posix().replace(".markdown", ".md")
        own_page = path.parent != folder and path.parent not in grouping
        if INDEX_NAME_RE.fullmatch(path.name) and not own_page:
            continue
        if (
            not name_parts(name)
            and not own_page
            and NOT_DECISION_RE.fullmatch(path.name.lower().replace(".markdown", ".md"))
        ):
            continue
        text, problem = read_text(path)
        if own_page and (path.parent, text) in pages:
            continue
        pages.add((path.parent, text))
        found += problem is not None or not is_template_or_index(text)
    return found


def import_one(folder, found):
    """The row's figures for ``folder``, or raises as the import did."""
    from catalogue.models import DecisionRecord, DecisionRelation
    from formats.madr import parse_folder
    from imports.decision_folders import import_decisions

    parsed, _, _ = parse_folder(folder)
    stated = sum(len(decision.relations) for decision in parsed)
    # No account: the command names itself, as import_decisions does
    # without --user, and acts with the server's rights.
    report = import_decisions(
        folder,
        log=folder.name,
        prefix=prefix_of(folder.name),
        via=f"decision_corpus {folder.name}",
    )
    records = DecisionRecord.objects.filter(log__name=folder.name)
    # The note _stated_relations writes for a record named but not found.
    unresolved = sum(UNRESOLVED in note.message for note in report.notes)
    return [
        found,
        records.count(),
        records.exclude(status="").count(),
        records.filter(status="").exclude(status_text="").count(),
        records.exclude(decided_on=None).count(),
        stated,
        DecisionRelation.objects.filter(source__log__name=folder.name).count(),
        unresolved,
        len(report.notes),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", default=os.environ.get("CORPUS_DIR"))
    parser.add_argument(
        "--problems", type=int, default=3, help="problems shown per refused folder"
    )
    args = parser.parse_args()
    if not args.corpus or not Path(args.corpus).is_dir():
        parser.error("name a corpus directory (or set CORPUS_DIR)")
    with tempfile.TemporaryDirectory(prefix="decision-corpus-") as database:
        os.environ["DATABASE_URL"] = f"sqlite:///{database}/db.sqlite3"
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        run(Path(args.corpus), args.problems)


def sources_of(corpus):
    """``{folder: where it comes from}``, from the corpus's ``sources.tsv``
    (a line a folder: its name, a tab, its source), if it has one."""
    listed = corpus / SOURCES
    if not listed.is_file():
        return {}
    lines = listed.read_text(encoding="utf-8").splitlines()
    return dict(line.split("\t", 1) for line in lines if "\t" in line)


def run(corpus, shown):
    """Import every folder of ``corpus``; print its row, then the totals."""
    folders = sorted(p for p in corpus.iterdir() if p.is_dir())
    folders = [folder for folder in folders if not folder.name.startswith(".")]
    sources = sources_of(corpus)
    print(f"| folder | {' | '.join(COLUMNS)} |")
    print(f"|---|{'---:|' * len(COLUMNS)}")
    totals, outcomes = [0] * len(COLUMNS), {"refused": [], "failed": []}
    for folder in folders:
        found = decision_like(folder)
        totals[0] += found
        row, outcome = row_of(folder, found, shown)
        named = folder.name
        if folder.name in sources:
            named += f" ({sources[folder.name]})"
        if outcome:
            outcomes[outcome].append(folder.name)
            print(f"| {named} | {found} | {row} |", flush=True)
            continue
        totals[1:] = [
            total + value for total, value in zip(totals[1:], row[1:], strict=True)
        ]
        print(f"| {named} | {' | '.join(map(str, row))} |", flush=True)
    imported = len(folders) - sum(map(len, outcomes.values()))
    print(f"| **{imported} imported** | {' | '.join(map(str, totals))} |")
    print(f"\n{said_totals(len(folders), imported, totals, outcomes)}")


def said_totals(count, imported, totals, outcomes):
    """The totals as a sentence."""
    figures = dict(zip(COLUMNS, totals, strict=True))
    said = [f"TOTALS: {count} folders: {imported} imported"]
    for outcome, names in outcomes.items():
        said.append(
            f"{len(names)} {outcome}" + (f" ({', '.join(names)})" * bool(names))
        )
    return (
        f"{', '.join(said)}. Records: {figures['found']} found, "
        f"{figures['imported']} imported, {figures['status']} with a status "
        f"(and {figures['as written']} with the team's words only), "
        f"{figures['dated']} with a date. Relations: "
        f"{figures['relations stated']} stated, {figures['resolved']} resolved, "
        f"{figures['not found']} naming a record not found. "
        f"{figures['notes']} notes."
    )


def row_of(folder, found, shown):
    """``(figures, "")`` for an imported folder, else ``(what happened,
    "refused" or "failed")``: one folder's failure does not end the run."""
    from formats.problems import ImportRefused

    try:
        return import_one(folder, found), ""
    except ImportRefused as error:
        first = "; ".join(str(problem) for problem in error.problems[:shown])
        more = len(error.problems) - shown
        first += f" (and {more} more)" if more > 0 else ""
        return f"REFUSED ({len(error.problems)}): {first}", "refused"
    except Exception as error:
        frames = traceback.extract_tb(error.__traceback__)[-3:]
        where = " < ".join(
            f"{Path(frame.filename).name}:{frame.lineno}" for frame in reversed(frames)
        )
        return f"ERROR {type(error).__name__}: {error} ({where})", "failed"


if __name__ == "__main__":
    main()

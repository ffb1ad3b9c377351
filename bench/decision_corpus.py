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
- relations: stated in the files, kept between records, and named records
  not found;
- notes: what the import reported as read otherwise than written, or left
  out; REFUSED, with the first problems, when the folder was refused.

A folder that fails otherwise is reported with the end of its traceback and
counted; the run goes on. Not run by CI: the corpus is not in the project.
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
    "stated",
    "kept",
    "not found",
    "notes",
]
UNRESOLVED = "is not in the folder or the record"


def prefix_of(name):
    """``govuk-aws``: GA; a name starting with a digit gets a leading D."""
    words = "".join(c if c.isascii() and c.isalnum() else " " for c in name).split()
    prefix = "".join(word[0] for word in words).upper()[:19]
    return prefix if prefix[:1].isalpha() else f"D{prefix}"


def decision_like(folder):
    """The Markdown files anywhere under ``folder`` that look like decisions."""
    from formats.madr import NOT_DECISION_RE, is_template_or_index, read_text

    found = 0
    for path in folder.rglob("*"):
        if path.suffix.lower() not in {".md", ".markdown"} or not path.is_file():
            continue
        if NOT_DECISION_RE.fullmatch(path.name.lower().replace(".markdown", ".md")):
            continue
        text, problem = read_text(path)
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


def run(corpus, shown):
    """Import every folder of ``corpus``; print its row, then the totals."""
    folders = sorted(p for p in corpus.iterdir() if p.is_dir())
    folders = [folder for folder in folders if not folder.name.startswith(".")]
    print(f"| folder | {' | '.join(COLUMNS)} |")
    print(f"|---|{'---:|' * len(COLUMNS)}")
    totals, outcomes = [0] * len(COLUMNS), {"refused": [], "failed": []}
    for folder in folders:
        found = decision_like(folder)
        totals[0] += found
        row, outcome = row_of(folder, found, shown)
        if outcome:
            outcomes[outcome].append(folder.name)
            print(f"| {folder.name} | {found} | {row} |", flush=True)
            continue
        totals[1:] = [
            total + value for total, value in zip(totals[1:], row[1:], strict=True)
        ]
        print(f"| {folder.name} | {' | '.join(map(str, row))} |", flush=True)
    imported = len(folders) - sum(map(len, outcomes.values()))
    print(f"| **{imported} imported** | {' | '.join(map(str, totals))} |")
    said = [f"{len(folders)} folders: {imported} imported"]
    for outcome, names in outcomes.items():
        said.append(
            f"{len(names)} {outcome}" + (f" ({', '.join(names)})" * bool(names))
        )
    print(f"\n{', '.join(said)}.")


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

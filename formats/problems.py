"""What is wrong with an input, and where: shared by every importer.

An importer checks the whole input before it writes anything and reports
every problem it found, each with its place (a file, a line, a column), so
one correction round is enough.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, and where: ``line`` of ``file`` (0: the
    file as a whole), in ``column`` when the input is a table."""

    line: int
    message: str
    column: str = ""
    file: str = ""

    def __str__(self):
        line = f"line {self.line}" if self.line else ""
        places = [self.file, line, self.column]
        return f"{', '.join(place for place in places if place)}: {self.message}"


class ImportRefused(Exception):
    """An input that was not imported, with every problem found in it.

    Nothing was written.
    """

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(str(problem) for problem in self.problems))

import io
from pathlib import Path

import pytest
from django.core.management import call_command

SEED = Path(__file__).resolve().parent.parent / "seeds" / "000_173d26dda2e0601e.txt"


@pytest.fixture
def seed_path():
    return SEED


@pytest.fixture
def seed_text():
    return SEED.read_text(encoding="utf-8")


@pytest.fixture
def seed_rows(seed_text):
    """The seed's table as lists of cell texts, split by hand, not by our parser."""
    lines = seed_text.split("\n")
    return [line[2:-2].split(" | ") for line in lines[5:] if line.strip()]


@pytest.fixture
def imported_seed(db, seed_path):
    call_command("import_index", str(seed_path), stdout=io.StringIO())

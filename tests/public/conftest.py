import pytest

from public import diffs


@pytest.fixture
def weighed(monkeypatch):
    """The number of token pairs each comparison was asked to weigh."""
    sizes = []

    class Weighing(diffs.SequenceMatcher):
        def __init__(self, *, a, b, autojunk):
            sizes.append(len(a) * len(b))
            super().__init__(a=a, b=b, autojunk=autojunk)

    monkeypatch.setattr(diffs, "SequenceMatcher", Weighing)
    return sizes

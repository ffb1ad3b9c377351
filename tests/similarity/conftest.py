import pytest


@pytest.fixture(autouse=True)
def related_model_dir(settings, tmp_path):
    """Each test keeps its related-work model in a directory of its own."""
    settings.RELATED_MODEL_DIR = tmp_path / "related-model"
    return settings.RELATED_MODEL_DIR

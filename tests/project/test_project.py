import io

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_models_and_migrations_agree():
    out = io.StringIO()

    call_command("makemigrations", "--check", "--dry-run", stdout=out)

    assert "No changes detected" in out.getvalue()


def test_system_checks_pass():
    call_command("check", fail_level="WARNING", stdout=io.StringIO())

"""Alembic environment of the API database tree (run by keel.db.migration)."""
from alembic import context

from keel.db.api import models
from keel.db import migration

migration.run_env(context, models.Base.metadata)

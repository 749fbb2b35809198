"""Alembic environment of the cell database tree (run by keel.db.migration)."""
from alembic import context

from keel.db.cell import models
from keel.db import migration

migration.run_env(context, models.Base.metadata)

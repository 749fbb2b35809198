"""Response builders: turn data into Nova's JSON shapes (no database access)."""

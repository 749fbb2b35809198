"""Response builders: data into Nova's JSON shapes (no database access)."""

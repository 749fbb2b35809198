"""Databases: the API database (db.api) and the cell databases (db.cell)."""

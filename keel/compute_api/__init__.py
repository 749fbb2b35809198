"""What the API handlers call: operations over objects and databases.

One module per resource family; handlers never touch the database
themselves (docs/DEVELOPING.md).
"""

"""Driver operations, one module per family."""

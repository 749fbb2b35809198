"""Compute operations, one module per family; the manager's RPC methods
delegate here so that the manager itself stays a thin dispatcher."""

"""Entry points: ``keel <service>``; one module per sub-command."""

"""Versioned notification payloads and notifications (Nova's names and
versions; see ``keel.notifications.base``)."""

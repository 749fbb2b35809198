"""Server networking: Nova's network model and the network API (Neutron,
or a local stand-in when there is no network service)."""

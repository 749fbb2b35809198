"""A cell database (cell0 has the same schema): instances, services, ..."""

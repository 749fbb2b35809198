"""The API database: cell and host mappings, flavors, build requests, ..."""

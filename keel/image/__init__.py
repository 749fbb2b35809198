"""Images: Nova's image API (``keel.image.api.get_api()``) over Glance v2 or
over keel's local image catalogue (the all-in-one without Glance)."""

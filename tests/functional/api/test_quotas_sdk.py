"""openstacksdk reads and changes quotas, limits and zones."""
from tests.functional.api.fixtures_cells import api_env  # noqa: F401
from tests.functional.api.fixtures_cells import cells_api_url  # noqa: F401
from tests.functional.api.fixtures_cells import cells_db  # noqa: F401
from tests.functional.api.fixtures_cells import sdk  # noqa: F401
from tests.functional.api.fixtures_cells import serve  # noqa: F401


def test_sdk_quotas_limits_and_zones(sdk):
    qs = sdk.compute.get_quota_set("proj-1")
    assert (qs.instances, qs.cores, qs.key_pairs) == (10, 20, 100)
    sdk.compute.update_quota_set("proj-1", instances=7, cores=3)
    qs = sdk.compute.get_quota_set("proj-1")
    assert (qs.instances, qs.cores) == (7, 3)
    detail = sdk.compute.get_quota_set("proj-1", usage=True)
    assert detail.usage["instances"] == 0
    defaults = sdk.compute.get_quota_set_defaults("proj-1")
    assert defaults.instances == 10
    sdk.compute.revert_quota_set("proj-1")
    assert sdk.compute.get_quota_set("proj-1").instances == 10
    limits = sdk.compute.get_limits()
    assert limits.absolute.instances == 10
    assert limits.absolute.total_cores_used == 0
    assert list(sdk.compute.availability_zones()) == []

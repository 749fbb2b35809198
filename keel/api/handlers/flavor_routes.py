"""Route entries of the flavor family, keypairs, limits, quotas and
availability zones (added to keel.api.routes.ROUTES)."""
from keel.api.handlers import availability_zones
from keel.api.handlers import flavor_access
from keel.api.handlers import flavor_extra_specs
from keel.api.handlers import flavor_manage
from keel.api.handlers import flavors
from keel.api.handlers import keypairs
from keel.api.handlers import limits
from keel.api.handlers import quota_classes
from keel.api.handlers import quota_sets
from keel.api import wsgi


def route_entries():
    specs = flavor_extra_specs
    return {
        "/flavors": {"GET": flavors.index, "POST": flavor_manage.create},
        "/flavors/detail": {"GET": flavors.detail},
        "/flavors/{id}": {"GET": flavors.show, "PUT": flavor_manage.update,
                          "DELETE": flavor_manage.delete},
        "/flavors/{id}/action": {
            "POST": wsgi.ActionDispatcher(flavor_access.ACTIONS)},
        "/flavors/{flavor_id}/os-flavor-access": {
            "GET": flavor_access.index},
        "/flavors/{flavor_id}/os-extra_specs": {
            "GET": specs.index, "POST": specs.create},
        "/flavors/{flavor_id}/os-extra_specs/{id}": {
            "GET": specs.show, "PUT": specs.update, "DELETE": specs.delete},
        "/limits": {"GET": limits.index},
        "/os-availability-zone": {"GET": availability_zones.index},
        "/os-availability-zone/detail": {"GET": availability_zones.detail},
        "/os-keypairs": {"GET": keypairs.index, "POST": keypairs.create},
        "/os-keypairs/{id}": {"GET": keypairs.show,
                              "DELETE": keypairs.delete},
        "/os-quota-sets/{id}": {"GET": quota_sets.show,
                                "PUT": quota_sets.update,
                                "DELETE": quota_sets.delete},
        "/os-quota-sets/{id}/detail": {"GET": quota_sets.detail},
        "/os-quota-sets/{id}/defaults": {"GET": quota_sets.defaults},
        "/os-quota-class-sets/{id}": {"GET": quota_classes.show,
                                      "PUT": quota_classes.update},
    }

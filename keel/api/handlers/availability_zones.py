"""GET /os-availability-zone (zones, without the internal one) and
/os-availability-zone/detail (admins: hosts and their services' state)."""
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import availability_zones as schema
from keel.api.views import availability_zones as view
from keel.compute_api import availability_zones as az_api
from keel.conf import CONF
from keel.policies import hosts as host_policies
from keel import policy
from keel.servicegroup import api as servicegroup


@wsgi.expose()
@validation.query_schema(schema.index_query, "2.1", "2.101")
@validation.query_schema(schema.index_query_v2102, "2.102")
def index(req):
    ctx = req.context
    policy.authorize(ctx, host_policies.AZ % "list", target={})
    available, unavailable = az_api.get_availability_zones(ctx.elevated())
    internal = CONF.internal_service_availability_zone
    return {"availabilityZoneInfo": [
        view.zone(name, state)
        for names, state in ((available, True), (unavailable, False))
        for name in names if name != internal]}


@wsgi.expose()
@validation.query_schema(schema.detail_query, "2.1", "2.101")
@validation.query_schema(schema.detail_query_v2102, "2.102")
def detail(req):
    ctx = req.context
    policy.authorize(ctx, host_policies.AZ % "detail", target={})
    admin = ctx.elevated()
    services = az_api.set_zones(admin, az_api.services_all_cells(admin))
    available, unavailable = az_api.get_availability_zones(admin, services)
    per_zone = {}
    for service in services:
        if service.disabled or service.binary in az_api.API_SERVICES:
            continue
        hosts = per_zone.setdefault(service.availability_zone, {})
        hosts.setdefault(service.host, []).append(service)
    group = servicegroup.API()
    result = []
    for name in available:
        hosts = {host: {s.binary: view.service_state(s, group.is_up(s))
                        for s in host_services}
                 for host, host_services in per_zone.get(name, {}).items()}
        result.append(view.zone(name, True, hosts))
    result.extend(view.zone(name, False) for name in unavailable)
    return {"availabilityZoneInfo": result}

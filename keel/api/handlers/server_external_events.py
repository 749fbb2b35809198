"""os-server-external-events: other services tell servers' computes what
happened (a port plugged, a volume extended). 200 when every event was
accepted, 207 with a per-event code otherwise (404 unknown server, 422 no
host yet, 400 missing tag)."""
from keel.api import validation
from keel.api import wsgi
from keel.api.schemas import server_external_events as schema
from keel.compute_api import external_events as events_api
from keel import objects
from keel import policy


@wsgi.expose(name="server_external_events.create")
@validation.schema(schema.create, "2.1", "2.50")
@validation.schema(schema.create_v251, "2.51", "2.75")
@validation.schema(schema.create_v276, "2.76", "2.81")
@validation.schema(schema.create_v282, "2.82", "2.92")
@validation.schema(schema.create_v293, "2.93")
def create(req):
    ctx = req.context
    policy.authorize(ctx, "os_compute_api:os-server-external-events:create",
                     target={})
    body_events = req.json_body["events"]
    instances = events_api.get_instances(
        ctx, {e["server_uuid"] for e in body_events})
    answer, accepted, accepted_instances, status = [], [], {}, 200
    for raw in body_events:
        item = dict(raw)
        answer.append(item)
        event = objects.InstanceExternalEvent(
            ctx, instance_uuid=raw["server_uuid"], name=raw["name"],
            status=raw.get("status", "completed"), tag=raw.get("tag"))
        inst = instances.get(event.instance_uuid)
        if inst is None:
            item.update(status="failed", code=404)
        elif event.name in events_api.TAG_REQUIRED and event.tag is None:
            item.update(status="failed", code=400)
        elif inst.host:
            item.update(status="completed", code=200)
            accepted.append(event)
            accepted_instances[inst.uuid] = inst
            continue
        else:
            item.update(status="failed", code=422)
        status = 207
    if accepted:
        events_api.send(ctx, list(accepted_instances.values()), accepted)
    return wsgi.Result({"events": answer}, status=status)


def route_entries():
    return {"/os-server-external-events": {"POST": create}}

"""/servers/{server_id}/topology (2.78+): the guest NUMA topology; admins
also see the host NUMA node and CPU pinning."""
from keel.api import validation
from keel.api import wsgi
from keel.api.handlers import servers as servers_handler
from keel.api.schemas import servers as schema
from keel import policy
from keel.policies import servers as names

POLICY = names.TOPOLOGY


def topology_body(numa, with_host):
    if numa is None:
        return {"nodes": [], "pagesize_kb": None}
    nodes, pagesize = [], None
    for cell in numa.cells:
        topo = cell.cpu_topology if cell.obj_attr_is_set("cpu_topology") \
            else None
        threads = topo.threads if topo is not None else 1
        cpus = sorted(cell.cpuset | (cell.pcpuset if cell.obj_attr_is_set(
            "pcpuset") else set()))
        node = {"memory_mb": cell.memory, "vcpu_set": cpus,
                "siblings": [cpus[i:i + threads]
                             for i in range(0, len(cpus), threads)]}
        if with_host:
            node["host_node"] = cell.id
            node["cpu_pinning"] = {
                str(k): v for k, v in (cell.cpu_pinning_raw or {}).items()}
        if cell.obj_attr_is_set("pagesize") and cell.pagesize:
            pagesize = cell.pagesize
        nodes.append(node)
    return {"nodes": nodes, "pagesize_kb": pagesize}


@wsgi.expose("2.78", name="server_topology.index")
@validation.query_schema(schema.show_query, "2.78", "2.101")
@validation.query_schema(schema.show_query_v2102, "2.102")
def index(req, server_id):
    located = servers_handler.locate(req, server_id,
                                     attrs=["numa_topology"])
    target = {"project_id": located.instance.project_id}
    servers_handler.authorize_server(req, POLICY % "index", located)
    with_host = policy.authorize(req.context, POLICY % "host:index",
                                 target=target, do_raise=False)
    inst = located.instance
    numa = inst.numa_topology if inst.obj_attr_is_set("numa_topology") \
        else None
    return topology_body(numa, with_host)


def route_entries():
    return {"/servers/{server_id}/topology": {"GET": index}}

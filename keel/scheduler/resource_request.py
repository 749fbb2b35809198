"""The Placement query of one scheduling request.

Flavor, image, the request spec's extra resource groups (ports) and what the
request filters added (aggregates, root traits) become the querystring of
``GET /allocation_candidates``:

* the unsuffixed group holds the flavor's VCPU / MEMORY_MB / DISK_GB (or
  PCPU for a dedicated CPU policy), overridden by ``resources:RC=N`` extra
  specs (0 removes a class), its required and forbidden traits
  (``trait:T=required|forbidden`` and the image's ``traits_required``),
  ``member_of`` for the requested destination's aggregates and ``in_tree``
  for a forced compute node;
* ``resourcesN`` / ``traitN`` extra specs and the port groups become
  suffixed groups, with ``group_policy`` from the flavor (``none`` when
  several suffixed groups and nothing said);
* request-level root traits become ``root_required``.
"""
import math
import re

# Microversions of GET /allocation_candidates: granular groups, member_of
# and in_tree per group, root_required, same_subtree (1.36); "any of"
# traits (in:A,B) need 1.39.
BASE_VERSION = "1.36"
ANY_TRAITS_VERSION = "1.39"

_RESOURCES = re.compile(r"^resources([1-9][0-9]*|_[a-zA-Z0-9_-]{1,64})?:"
                        r"(?P<rc>[A-Z0-9_]+)$")
_TRAIT = re.compile(r"^trait([1-9][0-9]*|_[a-zA-Z0-9_-]{1,64})?:"
                    r"(?P<trait>[A-Z0-9_]+)$")


class RequestGroup:
    """One group of the query (``suffix`` '' is the unsuffixed group)."""

    def __init__(self, suffix=""):
        self.suffix = suffix
        self.resources = {}
        self.required = set()
        self.forbidden = set()
        self.any_of = []            # lists of traits, one of each needed
        self.member_of = []         # lists of aggregate uuids (any of each)
        self.forbidden_aggregates = set()
        self.in_tree = None

    def is_empty(self):
        return not self.resources


class ResourceRequest:

    def __init__(self):
        self.groups = {"": RequestGroup()}
        self.group_policy = None
        self.limit = None
        self.root_required = set()
        self.root_forbidden = set()
        self.same_subtree = []

    # -- building --
    def group(self, suffix=""):
        if suffix not in self.groups:
            self.groups[suffix] = RequestGroup(suffix)
        return self.groups[suffix]

    @classmethod
    def from_request_spec(cls, spec, limit=None):
        req = cls()
        req.limit = limit
        flavor = spec.flavor
        extra = dict(flavor.extra_specs or {}) if flavor.obj_attr_is_set(
            "extra_specs") else {}
        image_props = _image_props(spec)
        is_bfv = bool(spec.obj_attr_is_set("is_bfv") and spec.is_bfv)
        base = req.group("")
        base.resources.update(_flavor_resources(flavor, extra, image_props,
                                                is_bfv))
        req._apply_extra_specs(extra)
        if image_props is not None and image_props.obj_attr_is_set(
                "traits_required"):
            base.required.update(image_props.traits_required or [])
        req._apply_spec_groups(spec)
        req._apply_destination(spec)
        req._apply_request_level(spec)
        if req.group_policy is None and len(req.suffixed_groups()) > 1:
            req.group_policy = "none"
        for group in req.groups.values():
            group.resources = {rc: n for rc, n in group.resources.items()
                               if n}
        return req

    def _apply_extra_specs(self, extra):
        overrides = {}
        for key, value in extra.items():
            if key == "group_policy":
                self.group_policy = value
                continue
            m = _RESOURCES.match(key)
            if m:
                suffix = m.group(1) or ""
                try:
                    amount = int(value)
                except (TypeError, ValueError):
                    continue
                overrides.setdefault(suffix, {})[m.group("rc")] = amount
                continue
            m = _TRAIT.match(key)
            if m:
                group = self.group(m.group(1) or "")
                if value == "required":
                    group.required.add(m.group("trait"))
                elif value == "forbidden":
                    group.forbidden.add(m.group("trait"))
        for suffix, res in overrides.items():
            self.group(suffix).resources.update(res)

    def _apply_spec_groups(self, spec):
        groups = spec.requested_resources if spec.obj_attr_is_set(
            "requested_resources") else None
        for index, rg in enumerate(groups or []):
            suffix = getattr(rg, "requester_id", None) or "_port%d" % index
            if not suffix.startswith("_") and not suffix.isdigit():
                suffix = "_" + re.sub(r"[^a-zA-Z0-9_-]", "", suffix)[:63]
            group = self.group(suffix)
            group.resources.update(rg.resources or {})
            group.required.update(rg.required_traits or ())
            group.forbidden.update(rg.forbidden_traits or ())
            group.member_of.extend(list(a) for a in rg.aggregates or [])
            group.forbidden_aggregates.update(rg.forbidden_aggregates or ())
            if rg.in_tree:
                group.in_tree = rg.in_tree

    def _apply_destination(self, spec):
        dest = spec.requested_destination if spec.obj_attr_is_set(
            "requested_destination") else None
        if dest is None:
            return
        base = self.groups[""]
        if dest.obj_attr_is_set("aggregates"):
            for aggs in dest.aggregates or []:
                base.member_of.append(aggs.split(","))
        if dest.obj_attr_is_set("forbidden_aggregates"):
            base.forbidden_aggregates.update(dest.forbidden_aggregates or ())

    def _apply_request_level(self, spec):
        params = spec.request_level_params if spec.obj_attr_is_set(
            "request_level_params") else None
        if params is None:
            return
        if params.obj_attr_is_set("root_required"):
            self.root_required.update(params.root_required or ())
        if params.obj_attr_is_set("root_forbidden"):
            self.root_forbidden.update(params.root_forbidden or ())
        if params.obj_attr_is_set("same_subtree"):
            self.same_subtree = [list(s) for s in params.same_subtree or []]

    # -- reading --
    def suffixed_groups(self):
        return [g for s, g in sorted(self.groups.items()) if s]

    def all_required_traits(self):
        traits = set(self.root_required)
        for group in self.groups.values():
            traits |= group.required
        return traits

    @property
    def cpu_pinning_requested(self):
        return "PCPU" in self.groups[""].resources

    @property
    def microversion(self):
        if any(g.any_of for g in self.groups.values()):
            return ANY_TRAITS_VERSION
        return BASE_VERSION

    def to_query(self):
        """The querystring as ``{name: str | [str]}``."""
        query = {}
        for suffix, group in sorted(self.groups.items()):
            if not group.resources:
                continue
            query["resources" + suffix] = ",".join(
                "%s:%d" % (rc, n) for rc, n in sorted(group.resources.items()))
            required = sorted(group.required) + [
                "!" + t for t in sorted(group.forbidden)]
            values = [",".join(required)] if required else []
            values += ["in:" + ",".join(sorted(a)) for a in group.any_of]
            if values:
                query["required" + suffix] = _one_or_list(values)
            members = ["in:" + ",".join(sorted(a)) for a in group.member_of]
            if group.forbidden_aggregates:
                members.append("!in:" + ",".join(
                    sorted(group.forbidden_aggregates)))
            if members:
                query["member_of" + suffix] = _one_or_list(members)
            if group.in_tree:
                query["in_tree" + suffix] = group.in_tree
        if self.group_policy and self.suffixed_groups():
            query["group_policy"] = self.group_policy
        root = sorted(self.root_required) + [
            "!" + t for t in sorted(self.root_forbidden)]
        if root:
            query["root_required"] = ",".join(root)
        if self.same_subtree:
            query["same_subtree"] = _one_or_list(
                [",".join(s) for s in self.same_subtree])
        if self.limit:
            query["limit"] = str(self.limit)
        return query


def _one_or_list(values):
    return values[0] if len(values) == 1 else values


def _image_props(spec):
    image = spec.image if spec.obj_attr_is_set("image") else None
    if image is None or not image.obj_attr_is_set("properties"):
        return None
    return image.properties


def _flavor_resources(flavor, extra, image_props, is_bfv):
    disk = flavor.ephemeral_gb + (0 if is_bfv else flavor.root_gb)
    disk += int(math.ceil((flavor.swap or 0) / 1024.0))
    cpu_policy = extra.get("hw:cpu_policy")
    if cpu_policy is None and image_props is not None:
        cpu_policy = image_props.get("hw_cpu_policy", None)
    cpu_class = "PCPU" if cpu_policy == "dedicated" else "VCPU"
    return {cpu_class: flavor.vcpus, "MEMORY_MB": flavor.memory_mb,
            "DISK_GB": disk}

"""REST calls to the Placement API over a keystoneauth1 Adapter.

Each call names its own microversion (``OpenStack-API-Version: placement X``)
so behaviour does not drift with the server's default, and forwards the
caller's global request id (``X-OpenStack-Request-ID``) for log correlation.
The adapter comes from the ``[placement]`` options exactly as in Nova:
``auth_type = password`` (or any keystoneauth plugin) in production,
``auth_type = none`` plus ``endpoint_override`` for the all-in-one.

Writes that carry a resource-provider generation raise
``GenerationConflict`` on a ``placement.concurrent_update`` 409 so callers
(see ``report.py``) can refresh and retry; other failures raise keel's
Nova-named exceptions.
"""
import logging

import orjson

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from keystoneauth1 import session as ks_session
from keystoneauth1 import adapter as ks_adapter

from keel import benchcounters
from keel import exception
from keel.clients import http_session
from keel.clients import placement_candidates

LOG = logging.getLogger(__name__)

GROUP = "placement"

# Microversions, one per feature (as Nova pins them).
PROVIDER_VERSION = "1.14"          # in_tree, parent_provider_uuid
PROVIDER_CREATE_VERSION = "1.20"   # POST returns the provider body
INVENTORY_VERSION = "1.26"         # reserved may equal total
TRAITS_VERSION = "1.6"
AGGREGATES_VERSION = "1.19"        # aggregates carry a generation
ALLOCATION_CANDIDATES_VERSION = "1.39"
CONSUMER_GENERATION_VERSION = "1.28"
USAGES_VERSION = "1.9"
DELETE_VERSION = "1.0"

# Requests sent a second time when the connection drops under them: a
# repeat either does the same thing again or fails on a generation
# (resource provider or consumer) that the first attempt moved on, which
# the callers below already handle.  Never POST.
IDEMPOTENT = frozenset(("GET", "HEAD", "PUT", "DELETE"))


class GenerationConflict(exception.ResourceProviderUpdateConflict):
    """Placement refused a write because our provider generation is stale."""


class InventoryInUse(exception.NovaException):
    # Named as Nova's nova.exception.InventoryInUse.
    msg_fmt = ("Inventory for '%(resource_class)s' on resource provider "
               "'%(resource_provider)s' in use.")
    code = 409


class ResourceProviderRetrievalFailed(exception.NovaException):
    msg_fmt = "Failed to get resource provider with UUID %(uuid)s"


class ResourceProviderInUse(exception.NovaException):
    msg_fmt = "Resource provider has allocations."
    code = 409


class ConsumerAllocationRetrievalFailed(exception.NovaException):
    msg_fmt = ("Failed to retrieve allocations for consumer "
               "%(consumer_uuid)s: %(error)s")


class PlacementError(exception.NovaException):
    msg_fmt = "Placement %(method)s %(url)s failed: %(status)s %(error)s"


def build_adapter(conf, **kwargs):
    """A keystoneauth1 Adapter from the ``[placement]`` options."""
    auth = ks_loading.load_auth_from_conf_options(conf, GROUP)
    sess = ks_loading.load_session_from_conf_options(
        conf, GROUP, auth=auth, session=http_session.EnvCachingSession())
    kwargs.setdefault("raise_exc", False)
    return ks_loading.load_adapter_from_conf_options(
        conf, GROUP, session=sess, auth=auth, **kwargs)


def adapter_for_endpoint(endpoint):
    """An unauthenticated Adapter on a known endpoint (embedded Placement)."""
    sess = ks_session.Session(auth=None,
                              session=http_session.EnvCachingSession())
    return ks_adapter.Adapter(sess, service_type="placement",
                              endpoint_override=endpoint, raise_exc=False)


def error_code(resp):
    """Placement's machine-readable error code of a failed response."""
    try:
        return resp.json()["errors"][0].get("code")
    except Exception:
        return None


def error_text(resp):
    try:
        return resp.json()["errors"][0].get("detail") or resp.text
    except Exception:
        return resp.text


def _global_id(context):
    if context is None:
        return None
    return getattr(context, "global_id", None) or getattr(
        context, "request_id", None)


class PlacementClient(object):
    """One method per Placement REST call keel needs."""

    def __init__(self, adapter=None, conf=None):
        if adapter is None:
            if conf is None:
                from keel.conf import CONF as conf
            adapter = build_adapter(conf)
        self.adapter = adapter

    # -- transport ---------------------------------------------------------
    def request(self, context, method, url, version, json=None):
        headers = {"OpenStack-API-Version": "placement %s" % version,
                   "Accept": "application/json"}
        gid = _global_id(context)
        if gid:
            headers["X-OpenStack-Request-ID"] = gid
        kwargs = {"headers": headers}
        if benchcounters.ENABLED:
            benchcounters.placement_request(method, url)
        if json is not None:
            kwargs["json"] = json
        retried = False
        try:
            try:
                resp = self.adapter.request(url, method, **kwargs)
            except ks_exc.ConnectFailure as exc:
                # (Not ConnectTimeout, a sibling class: a slow server.)
                if method not in IDEMPOTENT:
                    raise
                # A pooled keep-alive connection the server closed as we
                # reused it (cheroot expires idle ones after its timeout,
                # racing a request just sent).  The pool dropped the dead
                # socket: one more try goes over a fresh connection.  The
                # [placement] connect_retries option still applies on top.
                LOG.info("Placement %s %s: connection lost (%s); retrying "
                         "once", method, url, exc)
                retried = True
                resp = self.adapter.request(url, method, **kwargs)
        except (ks_exc.EndpointNotFound, ks_exc.MissingAuthPlugin,
                ks_exc.Unauthorized, ks_exc.DiscoveryFailure,
                ks_exc.ConnectFailure, ks_exc.ConnectTimeout) as exc:
            LOG.warning("Placement %s %s unreachable: %s", method, url, exc)
            raise exception.PlacementAPIConnectFailure() from exc
        # The first attempt may have been applied before the connection
        # dropped: callers of non-repeatable writes check (see report.py).
        resp.keel_retried = retried
        return resp

    def _fail(self, resp, method, url):
        raise PlacementError(method=method, url=url,
                             status=resp.status_code, error=error_text(resp))

    def _checked(self, context, method, url, version, json=None, ok=(200,)):
        resp = self.request(context, method, url, version, json=json)
        if resp.status_code not in ok:
            self._fail(resp, method, url)
        return resp

    # -- resource providers ----------------------------------------------
    def get_provider(self, context, uuid):
        """The provider dict, or None if Placement has no such provider."""
        url = "/resource_providers/%s" % uuid
        resp = self.request(context, "GET", url, PROVIDER_VERSION)
        if resp.status_code == 404:
            return None
        if resp.status_code != 200:
            raise ResourceProviderRetrievalFailed(uuid=uuid)
        return resp.json()

    def list_providers(self, context, **query):
        """GET /resource_providers with filters (name, in_tree, member_of,
        resources, required, uuid)."""
        url = "/resource_providers"
        if query:
            url += "?" + _qs(query)
        resp = self._checked(context, "GET", url, PROVIDER_VERSION)
        return resp.json()["resource_providers"]

    def get_providers_in_tree(self, context, uuid):
        return self.list_providers(context, in_tree=uuid)

    def get_provider_by_name(self, context, name):
        found = self.list_providers(context, name=name)
        return found[0] if found else None

    def create_provider(self, context, uuid, name, parent_provider_uuid=None):
        """Create a provider; if another writer won the race, return theirs."""
        body = {"uuid": uuid, "name": name}
        if parent_provider_uuid:
            body["parent_provider_uuid"] = parent_provider_uuid
        resp = self.request(context, "POST", "/resource_providers",
                            PROVIDER_CREATE_VERSION, json=body)
        if resp.status_code == 200:
            return resp.json()
        if resp.status_code == 409:
            # Same uuid created concurrently is fine; same name with another
            # uuid is a real conflict (a renamed or re-installed host).
            existing = self.get_provider(context, uuid)
            if existing is not None:
                return existing
        LOG.error("Failed to create resource provider %s (%s): %s %s",
                  name, uuid, resp.status_code, error_text(resp))
        raise exception.ResourceProviderCreationFailed(name=name)

    def delete_provider(self, context, uuid):
        """Delete a provider; False if it did not exist."""
        url = "/resource_providers/%s" % uuid
        resp = self.request(context, "DELETE", url, DELETE_VERSION)
        if resp.status_code == 204:
            return True
        if resp.status_code == 404:
            return False
        if resp.status_code == 409:
            raise ResourceProviderInUse()
        self._fail(resp, "DELETE", url)

    # -- inventories -------------------------------------------------------
    def get_inventories(self, context, uuid):
        """``(inventories, generation)`` of a provider."""
        url = "/resource_providers/%s/inventories" % uuid
        body = self._checked(context, "GET", url, INVENTORY_VERSION).json()
        return body["inventories"], body["resource_provider_generation"]

    def put_inventories(self, context, uuid, inventories, generation):
        """Replace all inventories; returns the new provider generation."""
        url = "/resource_providers/%s/inventories" % uuid
        body = {"resource_provider_generation": generation,
                "inventories": inventories}
        resp = self.request(context, "PUT", url, INVENTORY_VERSION, json=body)
        if resp.status_code == 200:
            return resp.json()["resource_provider_generation"]
        if resp.status_code == 409:
            code = error_code(resp)
            if code == "placement.concurrent_update":
                raise GenerationConflict(uuid=uuid, generation=generation,
                                         error=error_text(resp))
            if code == "placement.inventory.inuse":
                raise InventoryInUse(resource_class=",".join(inventories),
                                     resource_provider=uuid)
        raise exception.ResourceProviderUpdateFailed(
            url=url, error="%s %s" % (resp.status_code, error_text(resp)))

    # -- traits ------------------------------------------------------------
    def get_traits(self, context, uuid):
        """``(traits, generation)`` of a provider."""
        url = "/resource_providers/%s/traits" % uuid
        body = self._checked(context, "GET", url, TRAITS_VERSION).json()
        return set(body["traits"]), body["resource_provider_generation"]

    def ensure_custom_traits(self, context, traits):
        """Create the CUSTOM_* traits Placement does not know yet."""
        custom = sorted(t for t in traits if t.startswith("CUSTOM_"))
        if not custom:
            return
        url = "/traits?name=in:" + ",".join(custom)
        known = set(self._checked(context, "GET", url,
                                  TRAITS_VERSION).json()["traits"])
        for trait in custom:
            if trait not in known:
                self._checked(context, "PUT", "/traits/%s" % trait,
                              TRAITS_VERSION, ok=(201, 204))

    def put_traits(self, context, uuid, traits, generation):
        """Replace a provider's traits; returns the new generation."""
        url = "/resource_providers/%s/traits" % uuid
        body = {"traits": sorted(traits),
                "resource_provider_generation": generation}
        resp = self.request(context, "PUT", url, TRAITS_VERSION, json=body)
        if resp.status_code == 200:
            return resp.json()["resource_provider_generation"]
        if resp.status_code == 409 and (
                error_code(resp) == "placement.concurrent_update"):
            raise GenerationConflict(uuid=uuid, generation=generation,
                                     error=error_text(resp))
        raise exception.ResourceProviderUpdateFailed(
            url=url, error="%s %s" % (resp.status_code, error_text(resp)))

    # -- aggregates ----------------------------------------------------------
    def get_aggregates(self, context, uuid):
        """``(aggregates, generation)`` of a provider."""
        url = "/resource_providers/%s/aggregates" % uuid
        body = self._checked(context, "GET", url, AGGREGATES_VERSION).json()
        return set(body["aggregates"]), body["resource_provider_generation"]

    def put_aggregates(self, context, uuid, aggregates, generation):
        url = "/resource_providers/%s/aggregates" % uuid
        body = {"aggregates": sorted(aggregates),
                "resource_provider_generation": generation}
        resp = self.request(context, "PUT", url, AGGREGATES_VERSION,
                            json=body)
        if resp.status_code == 200:
            return resp.json()["resource_provider_generation"]
        if resp.status_code == 409 and (
                error_code(resp) == "placement.concurrent_update"):
            raise GenerationConflict(uuid=uuid, generation=generation,
                                     error=error_text(resp))
        raise exception.ResourceProviderUpdateFailed(
            url=url, error="%s %s" % (resp.status_code, error_text(resp)))

    # -- allocation candidates --------------------------------------------
    def get_allocation_candidates(self, context, query,
                                  version=ALLOCATION_CANDIDATES_VERSION):
        """``(allocation_requests, provider_summaries, version)``.

        ``query`` holds the querystring parameters, e.g.
        ``{"resources": "VCPU:1,MEMORY_MB:512", "required": "!CUSTOM_X",
        "limit": 10}``.
        """
        resp = self._candidates_response(context, query, version)
        if resp is None:
            return None, None, version
        # orjson: a thousand candidates are ~0.5 MB of JSON, and the
        # standard decoder's ~7 ms of it is a third of a scheduling decision.
        body = orjson.loads(resp.content)
        return (body["allocation_requests"], body["provider_summaries"],
                version)

    def get_candidates_for_scheduling(self, context, query,
                                      version=ALLOCATION_CANDIDATES_VERSION):
        """The same request, decoded into ``placement_candidates.Candidates``
        (only what the scheduler reads), or None if Placement failed."""
        resp = self._candidates_response(context, query, version)
        if resp is None:
            return None
        return placement_candidates.decode(resp.content)

    def _candidates_response(self, context, query, version):
        url = "/allocation_candidates?" + _qs(query)
        resp = self.request(context, "GET", url, version)
        if resp.status_code != 200:
            LOG.error("Allocation candidates query %s failed: %s %s",
                      query, resp.status_code, error_text(resp))
            return None
        return resp

    # -- allocations ---------------------------------------------------------
    def get_allocations(self, context, consumer_uuid):
        """``{"allocations": {rp: {"resources": ..., "generation": ..}},
        "consumer_generation": n|None, "project_id", "user_id"}``."""
        url = "/allocations/%s" % consumer_uuid
        resp = self.request(context, "GET", url, CONSUMER_GENERATION_VERSION)
        if resp.status_code != 200:
            raise ConsumerAllocationRetrievalFailed(
                consumer_uuid=consumer_uuid, error=error_text(resp))
        return resp.json()

    def put_allocations(self, context, consumer_uuid, allocations,
                        project_id, user_id, consumer_generation,
                        version=CONSUMER_GENERATION_VERSION):
        """Replace a consumer's allocations (``{rp: {"resources": {..}}}``).

        Returns the response so callers can tell a consumer-generation
        conflict (``placement.concurrent_update``) from others.
        """
        url = "/allocations/%s" % consumer_uuid
        body = {"allocations": allocations, "project_id": project_id,
                "user_id": user_id,
                "consumer_generation": consumer_generation}
        return self.request(context, "PUT", url, version, json=body)

    def delete_allocations(self, context, consumer_uuid):
        """DELETE every allocation of a consumer; False if it had none."""
        url = "/allocations/%s" % consumer_uuid
        resp = self.request(context, "DELETE", url, DELETE_VERSION)
        if resp.status_code == 204:
            return True
        if resp.status_code == 404:
            return False
        self._fail(resp, "DELETE", url)

    def get_provider_allocations(self, context, uuid):
        url = "/resource_providers/%s/allocations" % uuid
        return self._checked(context, "GET", url,
                             DELETE_VERSION).json()["allocations"]

    # -- usages --------------------------------------------------------------
    def get_provider_usages(self, context, uuid):
        url = "/resource_providers/%s/usages" % uuid
        return self._checked(context, "GET", url,
                             USAGES_VERSION).json()["usages"]

    def get_usages(self, context, project_id, user_id=None):
        """Usages of a project (and user) summed over all providers."""
        query = {"project_id": project_id}
        if user_id:
            query["user_id"] = user_id
        url = "/usages?" + _qs(query)
        return self._checked(context, "GET", url,
                             USAGES_VERSION).json()["usages"]


def _qs(query):
    from urllib import parse
    return parse.urlencode(sorted(query.items()), doseq=True, safe=":,!")

"""GET /allocation_candidates decoded into only what the scheduler reads.

Among 1,000 hosts Placement answers with ~0.5 MB of JSON.  Decoded into
plain dicts that is some 35,000 objects, built and then freed on every
decision, although a decision reads one allocation request per host and a
few numbers of each provider summary.  Here msgspec decodes the body
against typed structs (not tracked by the cyclic collector): each
allocation request keeps its per-provider allocations as undecoded JSON
(``msgspec.Raw``) and turns into the dict Nova passes around
(``{"allocations": ..., "mappings": ...}``) only for the hosts a decision
claims or offers as alternates (``as_dict``).  Summary fields the
scheduler does not read are skipped by the decoder.
"""
import typing

import msgspec

_EMPTY_OBJECT = msgspec.Raw(b"{}")


class Usage(msgspec.Struct, gc=False):
    capacity: int = 0
    used: int = 0


class Summary(msgspec.Struct, gc=False):
    """One provider of ``provider_summaries``."""
    resources: typing.Dict[str, Usage] = {}
    traits: typing.List[str] = []
    root_provider_uuid: typing.Optional[str] = None
    parent_provider_uuid: typing.Optional[str] = None


class AllocationRequest(msgspec.Struct, gc=False):
    """One of ``allocation_requests``: the providers it allocates from,
    each provider's ``{"resources": {...}}`` still JSON."""
    allocations: typing.Dict[str, msgspec.Raw]
    mappings: msgspec.Raw = _EMPTY_OBJECT

    def as_dict(self):
        decode = msgspec.json.decode
        areq = {"allocations": {rp: decode(raw)
                                for rp, raw in self.allocations.items()}}
        # Placement sends mappings from 1.34 on; an older answer has none.
        if self.mappings is not _EMPTY_OBJECT:
            areq["mappings"] = decode(self.mappings)
        return areq


class Candidates(msgspec.Struct, gc=False):
    allocation_requests: typing.List[AllocationRequest] = []
    provider_summaries: typing.Dict[str, Summary] = {}


_decoder = msgspec.json.Decoder(Candidates)


def decode(body):
    """``Candidates`` of a GET /allocation_candidates response body."""
    return _decoder.decode(body)


def as_dict(areq):
    """An allocation request as the dict the rest of Nova handles (a dict,
    e.g. from a test or another client, is returned as it is)."""
    if type(areq) is AllocationRequest:
        return areq.as_dict()
    return areq

"""The config drive: user data, network data and metadata in a Secret.

KubeVirt's ``cloudInitConfigDrive`` reads ``userdata`` and ``networkdata``
from Secrets (inline data is capped at 2 KiB) and writes its own
``meta_data.json`` (uuid from ``firmware.uuid``, hostname, public keys from
``accessCredentials``).  We also store Nova's fuller metadata document in
the Secret under ``metadata`` so it is at hand for the metadata service
and for operators; the guest reads the rest from the metadata API.
"""
import base64
import binascii
import json

from keel.virt.kubevirt.spec import KubeVirtUnsupported
from keel.virt.kubevirt.spec import field


def secret_name(instance):
    return "%s-configdrive" % instance.uuid


def keys_secret_name(instance):
    return "%s-sshkeys" % instance.uuid


def _b64(text):
    if isinstance(text, str):
        text = text.encode("utf-8")
    return base64.b64encode(text).decode("ascii")


def user_data_bytes(instance):
    """Nova keeps user data base64-encoded; the guest gets the bytes."""
    raw = field(instance, "user_data", None)
    if not raw:
        return None
    try:
        return base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        raise KubeVirtUnsupported(prop="user_data", value="...",
                                  reason="user data must be base64")


def network_data(network_info):
    """An OpenStack ``network_data.json`` for the guest's ports: DHCP on
    each link, which the Neutron side answers."""
    links, networks = [], []
    for index, vif in enumerate(network_info or []):
        link_id = "tap%s" % (vif.get("id") or index)[:11]
        links.append({"id": link_id, "type": "phy",
                      "ethernet_mac_address": vif.get("address"),
                      "mtu": (vif.get("network") or {}).get("meta", {}).get(
                          "mtu")})
        networks.append({"id": "network%d" % index, "link": link_id,
                         "type": "ipv4_dhcp",
                         "network_id": (vif.get("network") or {}).get("id")})
    return {"links": links, "networks": networks, "services": []}


def metadata(instance):
    """Nova's ``meta_data.json`` essentials."""
    doc = {"uuid": instance.uuid,
           "name": field(instance, "display_name", None) or instance.uuid,
           "hostname": field(instance, "hostname", None) or instance.uuid,
           "launch_index": field(instance, "launch_index", 0) or 0,
           "availability_zone": field(instance, "availability_zone",
                                        None),
           "meta": dict(field(instance, "metadata", None) or {}),
           "project_id": field(instance, "project_id", None)}
    key_name = field(instance, "key_name", None)
    key_data = field(instance, "key_data", None)
    if key_data:
        doc["public_keys"] = {key_name or "key": key_data}
    return doc


def config_drive_secret(instance, network_info, labels):
    data = {"metadata": _b64(json.dumps(metadata(instance), sort_keys=True))}
    user = user_data_bytes(instance)
    # KubeVirt insists on a userdata key; an empty one is valid cloud-init.
    data["userdata"] = _b64(user if user is not None else b"")
    if network_info:
        data["networkdata"] = _b64(json.dumps(network_data(network_info),
                                              sort_keys=True))
    return {"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": secret_name(instance),
                         "labels": dict(labels)},
            "type": "Opaque", "data": data}


def keys_secret(instance, labels):
    """accessCredentials Secret: each value is one public key."""
    key_data = field(instance, "key_data", None)
    if not key_data:
        return None
    return {"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": keys_secret_name(instance),
                         "labels": dict(labels)},
            "type": "Opaque", "data": {"key": _b64(key_data)}}


def volume(instance, network_info):
    source = {"secretRef": {"name": secret_name(instance)}}
    if network_info:
        source["networkDataSecretRef"] = {"name": secret_name(instance)}
    return {"name": "configdrive", "cloudInitConfigDrive": source}


def access_credentials(instance):
    if not field(instance, "key_data", None):
        return []
    return [{"sshPublicKey": {
        "source": {"secret": {"secretName": keys_secret_name(instance)}},
        "propagationMethod": {"configDrive": {}}}}]

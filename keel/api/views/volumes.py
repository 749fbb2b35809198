"""Volume and snapshot bodies of Nova's os-volumes / os-snapshots proxies
(camelCase, as Nova's v2 volume extension)."""


def _attachment(volume_id, server_id, mountpoint):
    body = {"id": volume_id, "volumeId": volume_id, "serverId": server_id}
    if mountpoint:
        body["device"] = mountpoint
    return body


def volume(vol):
    if vol.get("attach_status") == "attached":
        attachments = [_attachment(vol["id"], server, info.get("mountpoint"))
                       for server, info in vol["attachments"].items()]
    else:
        attachments = [{}]   # Nova's shape for a detached volume
    return {"id": vol["id"], "status": vol.get("status"),
            "size": vol.get("size"),
            "availabilityZone": vol.get("availability_zone"),
            "createdAt": vol.get("created_at"),
            "attachments": attachments,
            "displayName": vol.get("display_name"),
            "displayDescription": vol.get("display_description"),
            "volumeType": vol.get("volume_type_id"),
            "snapshotId": vol.get("snapshot_id"),
            "metadata": vol.get("volume_metadata") or {}}


def snapshot(snap):
    return {"id": snap["id"], "volumeId": snap.get("volume_id"),
            "status": snap.get("status"), "size": snap.get("volume_size"),
            "createdAt": snap.get("created_at"),
            "displayName": snap.get("display_name"),
            "displayDescription": snap.get("display_description")}

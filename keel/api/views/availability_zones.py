"""availabilityZoneInfo bodies (zone list, and with hosts and services)."""
_TIME = "%Y-%m-%dT%H:%M:%S.%f"


def zone(name, available, hosts=None):
    return {"zoneName": name, "zoneState": {"available": available},
            "hosts": hosts}


def service_state(service, alive):
    updated = service.updated_at
    return {"available": alive, "active": service.disabled is not True,
            "updated_at": updated.strftime(_TIME) if updated else None}

"""os-quota-class-sets: the update body per microversion, show's query."""
from keel.api.schemas import parameter_types as types
from keel.api.schemas import quota_sets as qs

update = qs.body("quota_class_set", qs.BASE + qs.INJECTED + qs.NETWORK,
                 force=False)
update_v250 = qs.body("quota_class_set", qs.BASE + qs.INJECTED,
                      force=False)
update_v257 = qs.body("quota_class_set", qs.BASE, force=False)
show_query = types.query()
show_query_v2102 = types.query(additional=False)

UPSTREAM = {
    "update": "quota_classes.update",
    "update_v250": "quota_classes.update_v250",
    "update_v257": "quota_classes.update_v257",
    "show_query": "quota_classes.show_query",
    "show_query_v2102": "quota_classes.show_query_v2102",
}

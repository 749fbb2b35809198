"""Objects: Flavor, FlavorList (API database flavors + extra specs +
project access)."""
import functools

import sqlalchemy as sa
from sqlalchemy import orm

from keel.db.api import models
from keel import exception
from keel.objects import base
from keel.objects import db_helpers as h
from keel.objects import fields

# Loaded with the flavor on request only (they are separate tables).
OPTIONAL_FIELDS = ("extra_specs", "projects")
# The API database has no soft delete; these stay unset, as in Nova.
DEPRECATED_FIELDS = ("deleted", "deleted_at")
# What save() may change on an existing flavor.
_MUTABLE = {"extra_specs", "projects", "description"}


def _flavor_query(context, *where, load=None):
    """Flavors visible to ``context``: all for admins, else public ones and
    private ones shared with the context's project."""
    fl = models.Flavors
    if load is None:
        load = (orm.selectinload(fl.extra_specs),
                orm.selectinload(fl.projects))
    stmt = sa.select(fl).where(*where).options(*load)
    if not context.is_admin:
        stmt = stmt.where(sa.or_(
            fl.is_public == sa.true(),
            fl.projects.any(models.FlavorProjects.project_id ==
                            context.project_id)))
    return stmt


_COLUMNS = tuple(c.name for c in models.Flavors.__table__.columns)


@functools.lru_cache(maxsize=None)
def _one_statement(where_column, admin):
    """One flavor (by ``where_column`` = :w_value) outer-joined with its
    extra specs, visible as ``_flavor_query`` decides; built once per
    column and visibility."""
    fl = models.Flavors.__table__
    es = models.FlavorExtraSpecs.__table__
    fp = models.FlavorProjects.__table__
    stmt = (sa.select(fl, es.c.key.label("es_key"),
                      es.c.value.label("es_value"))
            .select_from(fl.outerjoin(es, es.c.flavor_id == fl.c.id))
            .where(fl.c[where_column] == sa.bindparam("w_value")))
    if not admin:
        stmt = stmt.where(sa.or_(
            fl.c.is_public == sa.true(),
            sa.exists().where(fp.c.flavor_id == fl.c.id,
                              fp.c.project_id == sa.bindparam("w_project"))))
    return stmt


@base.KeelObjectRegistry.register
class Flavor(base.KeelPersistentObject, base.KeelObject,
             base.KeelObjectDictCompat):
    VERSION = '1.2'

    fields = {
        'description': fields.StringField(nullable=True),
        'disabled': fields.BooleanField(),
        'ephemeral_gb': fields.IntegerField(),
        'extra_specs': fields.DictOfStringsField(),
        'flavorid': fields.StringField(),
        'id': fields.IntegerField(),
        'is_public': fields.BooleanField(),
        'memory_mb': fields.IntegerField(),
        'name': fields.StringField(nullable=True),
        'projects': fields.ListOfStringsField(),
        'root_gb': fields.IntegerField(),
        'rxtx_factor': fields.FloatField(nullable=True, default=1.0),
        'swap': fields.IntegerField(),
        'vcpu_weight': fields.IntegerField(nullable=True),
        'vcpus': fields.IntegerField(),
    }

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        if tuple(map(int, target_version.split("."))) < (1, 2):
            primitive.pop("description", None)

    @staticmethod
    def _from_db_object(context, flavor, row, expected_attrs=None):
        h.copy_columns(flavor, row, skip=OPTIONAL_FIELDS + DEPRECATED_FIELDS)
        for name, default in (("root_gb", 0), ("ephemeral_gb", 0),
                              ("disabled", False), ("is_public", True)):
            if getattr(flavor, name) is None:
                setattr(flavor, name, default)
        expected = expected_attrs if expected_attrs is not None \
            else OPTIONAL_FIELDS
        if "extra_specs" in expected:
            flavor.extra_specs = {s.key: s.value for s in row.extra_specs}
        if "projects" in expected:
            flavor.projects = [p.project_id for p in row.projects]
        flavor._context = context
        flavor.obj_reset_changes()
        return flavor

    def obj_load_attr(self, attrname):
        if attrname not in OPTIONAL_FIELDS:
            raise exception.ObjectActionError(
                action="obj_load_attr",
                reason="attribute %s not lazy-loadable" % attrname)
        if not self._context:
            raise exception.OrphanedObjectError(method="obj_load_attr",
                                                objtype=self.obj_name())
        if attrname == "projects":
            self._load_projects()
        else:
            fresh = self.get_by_id(self._context.elevated(), self.id)
            self.extra_specs = fresh.extra_specs
            self.obj_reset_changes(["extra_specs"])

    @base.remotable
    def _load_projects(self):
        with h.api_reader(self._context) as s:
            self.projects = list(s.execute(
                sa.select(models.FlavorProjects.project_id)
                .filter_by(flavor_id=self.id)).scalars())
        self.obj_reset_changes(["projects"])

    @classmethod
    def _get_one(cls, context, not_found, where_column, value):
        # One statement, as Nova's: the flavor outer-joined with its extra
        # specs. Core rows rather than an ORM joined load (a boot looks
        # its flavor up on every POST; the ORM's identity map and joined
        # eager loading were ~20% of the POST's CPU). The access list is
        # loaded only when asked for (obj_load_attr).
        stmt = _one_statement(where_column, bool(context.is_admin))
        params = {"w_value": value}
        if not context.is_admin:
            params["w_project"] = context.project_id
        with h.api_reader(context) as s:
            rows = s.execute(stmt, params).all()
        if not rows:
            raise not_found
        flavor = cls()
        cls._from_db_object(context, flavor, h.RowValues(
            models.Flavors, {c: rows[0]._mapping[c] for c in _COLUMNS}),
            expected_attrs=())
        flavor.extra_specs = {r.es_key: r.es_value for r in rows
                              if r.es_key is not None}
        flavor.obj_reset_changes(["extra_specs"])
        return flavor

    @base.remotable_classmethod
    def get_by_id(cls, context, id):
        return cls._get_one(context, exception.FlavorNotFound(flavor_id=id),
                            "id", id)

    @base.remotable_classmethod
    def get_by_name(cls, context, name):
        return cls._get_one(context,
                            exception.FlavorNotFoundByName(flavor_name=name),
                            "name", name)

    @base.remotable_classmethod
    def get_by_flavor_id(cls, context, flavor_id, read_deleted=None):
        return cls._get_one(context,
                            exception.FlavorNotFound(flavor_id=flavor_id),
                            "flavorid", flavor_id)

    @base.remotable
    def create(self):
        h.check_not_created(self)
        changes = self.obj_get_changes()
        values = h.changes_for_db(self, models.Flavors,
                                  skip=OPTIONAL_FIELDS + DEPRECATED_FIELDS)

        def _exists(exc):
            if "flavorid" in (exc.columns or []):
                return exception.FlavorIdExists(flavor_id=self.flavorid)
            return exception.FlavorExists(name=self.name)

        with h.translate_duplicates(_exists):
            with h.api_writer(self._context) as s:
                row = models.Flavors(**values)
                row.extra_specs = [
                    models.FlavorExtraSpecs(key=k, value=v)
                    for k, v in (changes.get("extra_specs") or {}).items()]
                row.projects = [
                    models.FlavorProjects(project_id=p)
                    for p in (changes.get("projects") or [])]
                s.add(row)
                s.flush()
                self._from_db_object(self._context, self, row)

    @base.remotable
    def save_extra_specs(self, to_add=None, to_delete=None):
        """Add/replace ``to_add`` and remove the keys in ``to_delete``."""
        spec = models.FlavorExtraSpecs
        with h.api_writer(self._context) as s:
            if to_delete:
                s.execute(sa.delete(spec).where(spec.flavor_id == self.id,
                                                spec.key.in_(to_delete)))
            for key, value in (to_add or {}).items():
                row = s.execute(sa.select(spec).filter_by(
                    flavor_id=self.id, key=key)).scalars().first()
                if row is None:
                    s.add(spec(flavor_id=self.id, key=key, value=value))
                else:
                    row.value = value

    @base.remotable
    def add_access(self, project_id):
        if "projects" in self.obj_what_changed():
            raise exception.ObjectActionError(action="add_access",
                                              reason="projects modified")
        with h.translate_duplicates(lambda e: exception.FlavorAccessExists(
                flavor_id=self.flavorid, project_id=project_id)):
            with h.api_writer(self._context) as s:
                s.add(models.FlavorProjects(flavor_id=self.id,
                                            project_id=project_id))
        self._load_projects()

    @base.remotable
    def remove_access(self, project_id):
        if "projects" in self.obj_what_changed():
            raise exception.ObjectActionError(action="remove_access",
                                              reason="projects modified")
        with h.api_writer(self._context) as s:
            gone = s.execute(sa.delete(models.FlavorProjects).filter_by(
                flavor_id=self.id, project_id=project_id)).rowcount
        if not gone:
            raise exception.FlavorAccessNotFound(flavor_id=self.flavorid,
                                                 project_id=project_id)
        self._load_projects()

    @base.remotable
    def save_projects(self, to_add=None, to_delete=None):
        with h.api_writer(self._context) as s:
            if to_delete:
                s.execute(sa.delete(models.FlavorProjects).where(
                    models.FlavorProjects.flavor_id == self.id,
                    models.FlavorProjects.project_id.in_(to_delete)))
            for project_id in to_add or ():
                s.add(models.FlavorProjects(flavor_id=self.id,
                                            project_id=project_id))

    def save(self):
        """Flavors are immutable but for specs, access and description."""
        changed = set(self.obj_what_changed())
        if changed - _MUTABLE:
            raise exception.ObjectActionError(
                action="save",
                reason="read-only fields were changed: %s" %
                ", ".join(sorted(changed - _MUTABLE)))
        if "extra_specs" in changed:
            old = self.get_by_id(self._context.elevated(), self.id)
            new = self.extra_specs
            self.save_extra_specs(
                to_add={k: v for k, v in new.items()
                        if old.extra_specs.get(k) != v},
                to_delete=[k for k in old.extra_specs if k not in new])
        if "projects" in changed:
            old = set(self.get_by_id(self._context.elevated(),
                                     self.id).projects)
            new = set(self.projects)
            self.save_projects(to_add=sorted(new - old),
                               to_delete=sorted(old - new))
        if "description" in changed:
            with h.api_writer(self._context) as s:
                s.execute(sa.update(models.Flavors)
                          .where(models.Flavors.id == self.id)
                          .values(description=self.description))
        self.obj_reset_changes()

    @base.remotable
    def destroy(self):
        with h.api_writer(self._context) as s:
            row = s.get(models.Flavors, self.id) if self.obj_attr_is_set(
                "id") else s.execute(sa.select(models.Flavors).filter_by(
                    flavorid=self.flavorid)).scalars().first()
            if row is None:
                raise exception.FlavorNotFound(
                    flavor_id=getattr(self, "flavorid", None))
            s.delete(row)


@base.KeelObjectRegistry.register
class FlavorList(base.ObjectListBase, base.KeelObject):
    VERSION = '1.1'

    fields = {
        'objects': fields.ListOfObjectsField('Flavor'),
    }

    @base.remotable_classmethod
    def get_all(cls, context, inactive=False, filters=None,
                sort_key='flavorid', sort_dir='asc', limit=None, marker=None):
        fl = models.Flavors
        filters = filters or {}
        where = []
        if not inactive:
            where.append(sa.or_(fl.disabled.is_(None),
                                fl.disabled == sa.false()))
        if "min_memory_mb" in filters:
            where.append(fl.memory_mb >= filters["min_memory_mb"])
        if "min_root_gb" in filters:
            where.append(fl.root_gb >= filters["min_root_gb"])
        if filters.get("name"):
            # 2.102's name filter: a substring of the flavor name
            where.append(fl.name.contains(filters["name"], autoescape=True))
        if filters.get("disabled") is not None:
            where.append(fl.disabled == bool(filters["disabled"]))
        if filters.get("is_public") is not None:
            public = fl.is_public == bool(filters["is_public"])
            if filters["is_public"] and context.project_id:
                # Public listing includes the project's private flavors.
                public = sa.or_(public, fl.projects.any(
                    models.FlavorProjects.project_id == context.project_id))
            where.append(public)
        with h.api_reader(context) as s:
            marker_row = None
            if marker is not None:
                marker_row = s.execute(sa.select(fl).filter_by(
                    flavorid=marker)).scalars().first()
                if marker_row is None:
                    raise exception.MarkerNotFound(marker=marker)
            stmt = _flavor_query(context, *where)
            keys = [sort_key] if sort_key == "id" else [sort_key, "id"]
            stmt = h.paginate(stmt, fl, keys, [sort_dir] * len(keys),
                              limit=limit, marker_row=marker_row)
            rows = s.execute(stmt).scalars().all()
            return base.obj_make_list(context, cls(context), Flavor, rows)

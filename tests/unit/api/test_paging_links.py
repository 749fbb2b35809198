"""Paging parameters and resource links as Nova builds them."""
import pytest
import webob
import webob.exc

from keel.api import paging
from keel.api import wsgi
from keel.api.views import links
from keel import context


def _req(url, project=None, script="/v2.1"):
    req = wsgi.Request.blank(url, base_url="http://api.example:8774")
    req.script_name = script
    req.path_info = url.split("?")[0]
    req.environ[wsgi.ENV_CONTEXT] = context.RequestContext(
        user_id="u", project_id=project or "p0")
    return req


def test_limit_marker_and_cap(conf):
    conf.config(max_limit=50, group="api")
    assert paging.limit_and_marker(_req("/flavors?limit=10&marker=x")) == \
        (10, "x")
    assert paging.limit_and_marker(_req("/flavors?limit=500")) == (50, None)
    assert paging.limit_and_marker(_req("/flavors")) == (50, None)


@pytest.mark.parametrize("query,message", [
    ("limit=-1", "limit must be >= 0"), ("limit=abc", "limit must be an "
                                         "integer"),
    ("offset=-2", "offset must be >= 0")])
def test_bad_paging_is_400(conf, query, message):
    with pytest.raises(webob.exc.HTTPBadRequest) as err:
        paging.pagination_params(_req("/flavors?" + query))
    assert err.value.explanation == message


def test_sort_params_pairing():
    md = webob.multidict.MultiDict([("sort_key", "name"),
                                    ("sort_key", "id"),
                                    ("sort_dir", "asc"), ("x", "1")])
    assert paging.sort_params(md) == (["name", "id"], ["asc"])
    assert md.getall("sort_key") == ["name", "id"]  # left as it was
    assert paging.sort_params(webob.multidict.MultiDict()) == \
        (["created_at"], ["desc"])
    assert paging.sort_params(webob.multidict.MultiDict(
        [("sort_key", "name")])) == (["name"], ["desc"])


def test_resource_links_with_and_without_project(conf):
    req = _req("/flavors/1")
    assert links.resource_links(req, "flavors", 1) == [
        {"rel": "self", "href": "http://api.example:8774/v2.1/flavors/1"},
        {"rel": "bookmark", "href": "http://api.example:8774/flavors/1"}]
    req = _req("/abc1/flavors/1", project="abc1")
    assert links.href(req, "flavors", 1) == \
        "http://api.example:8774/v2.1/abc1/flavors/1"
    assert links.bookmark(req, "flavors", 1) == \
        "http://api.example:8774/abc1/flavors/1"


def test_next_link_only_for_full_pages(conf):
    req = _req("/flavors?limit=2&is_public=None")
    items = [{"id": "a"}, {"id": "b"}]
    assert links.collection_links(req, items, "flavors", "id") == [{
        "rel": "next",
        "href": "http://api.example:8774/v2.1/flavors?is_public=None&"
                "limit=2&marker=b"}]
    assert links.collection_links(req, items[:1], "flavors", "id") == []

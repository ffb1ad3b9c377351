# The site behind a real varnishd, as the edge's own tests start it.
from tests.pagecache.conftest import static_root  # noqa: F401
from tests.pagecache.test_varnish_edge import edge, edge_site  # noqa: F401

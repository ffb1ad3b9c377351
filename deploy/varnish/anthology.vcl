vcl 4.1;
# The anthology behind Varnish (7.1, with the xkey vmod of varnish-modules).
#
# Readers' pages are kept as long as the site's s-maxage says and dropped by
# key the moment a change commits: the site sends each page's scopes in its
# xkey header, and purges them with `PURGE /` and an xkey-purge header. Only
# what the site gives a shared lifetime is kept; anyone with a session (an
# editor) and the staff's URLs always reach the site. Varnish buffers every
# request before it reaches gunicorn, so slow clients cost the site nothing.
# A stale page is served (up to its stale-if-error) only while the site is
# down.

import std;
import xkey;

# The site's address and its health probe (deploy/varnish/backend.vcl).
include "backend.vcl";

# Who may purge: the site's own processes.
acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        if (!req.http.xkey-purge) {
            return (synth(400, "No xkey-purge header"));
        }
        set req.http.n-gone = xkey.purge(req.http.xkey-purge);
        return (synth(200, "Purged " + req.http.n-gone + " objects"));
    }
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    if (req.http.Authorization
        || req.http.Cookie ~ "(^|;\s*)sessionid="
        || req.url ~ "^/(admin|export|health)(/|$)") {
        return (pass);
    }
    # A reader's other cookies (a CSRF token) change nothing on a public page.
    unset req.http.Cookie;
    # The site answers in gzip or plain (Vary: Accept-Encoding), and so does
    # Varnish: it keeps one copy of a page for the clients that take gzip and
    # one for those that do not, each as it is sent, rather than unpacking
    # the gzip copy for every plain answer. The test is the site's own
    # (Django's GZipMiddleware).
    unset req.http.X-Plain;
    if (req.http.Accept-Encoding !~ "\bgzip\b") {
        set req.http.X-Plain = "1";
    }
    if (std.healthy(req.backend_hint)) {
        # While the site answers, nothing past its lifetime is served.
        set req.grace = 0s;
    }
    return (hash);
}

sub vcl_hash {
    # Varnish reads Vary: Accept-Encoding as satisfied by its gzip copy; the
    # plain copy is another object.
    if (req.http.X-Plain) {
        hash_data("plain");
    }
}

sub vcl_backend_fetch {
    # Varnish asks the site for gzip whatever the client takes; a plain copy
    # is asked for plainly.
    if (bereq.http.X-Plain) {
        unset bereq.http.Accept-Encoding;
    }
    unset bereq.http.X-Plain;
}

sub vcl_backend_response {
    if (beresp.http.Cache-Control !~ "s-maxage") {
        # Not vouched for by the site's page cache: never kept. A cacheable
        # answer later replaces this hit-for-miss marker.
        set beresp.uncacheable = true;
        set beresp.ttl = 10s;
        return (deliver);
    }
    set beresp.grace = std.duration(
        regsub(beresp.http.Cache-Control, "^.*stale-if-error=([0-9]+).*$", "\1s"),
        0s);
}

sub vcl_deliver {
    # The keys are for Varnish alone.
    unset resp.http.xkey;
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
}

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
# down; a page it does not hold is then the site's own error page.
#
# Nothing the client says of itself is passed on: Varnish sets
# X-Forwarded-For to the address it received the request from and
# X-Forwarded-Proto to the scheme it serves, "https" on the listen address
# named "https" (where a TLS terminator such as hitch connects, with the
# PROXY protocol: `-a https=127.0.0.1:8443,PROXY`), "http" on any other; a
# page is kept once for each scheme, and once whatever the Host (a host other
# than site.vcl's canonical one is redirected there). Request bodies are
# bounded as the site bounds them (settings BODY_MAX_BYTES,
# ADMIN_BODY_MAX_BYTES): 65 MiB under /admin/, where imports upload, 1 MiB
# elsewhere.

import std;
import xkey;

# The site's address and its health probe (deploy/varnish/backend.vcl).
include "backend.vcl";
# The site's page for when it is down (deploy/varnish/error_page.vcl).
include "error_page.vcl";
# The site's canonical host (deploy/varnish/site.vcl).
include "site.vcl";

# Who may purge: the site's own processes.
acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    # Only what Varnish itself knows: the peer's address (the client's own,
    # through the PROXY protocol) and the scheme of the address it came to.
    set req.http.X-Forwarded-For = client.ip;
    if (local.socket == "https") {
        set req.http.X-Forwarded-Proto = "https";
    } else {
        set req.http.X-Forwarded-Proto = "http";
    }
    unset req.http.X-Forwarded-Host;
    if (req.restarts == 0) {
        unset req.http.X-Stale-Tried;
    }
    if (std.integer(req.http.Content-Length, 0) > 68157440
        || (req.url !~ "^/admin/"
            && std.integer(req.http.Content-Length, 0) > 1048576)) {
        return (synth(413, "Request body too large"));
    }
    if (req.http.Transfer-Encoding) {
        # A body of no stated length is read here, up to the limit, before
        # the site sees a byte of it.
        if (req.url ~ "^/admin/") {
            if (!std.cache_req_body(65MB)) {
                return (synth(413, "Request body too large"));
            }
        } elsif (!std.cache_req_body(1MB)) {
            return (synth(413, "Request body too large"));
        }
    }
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
    # Another host or port than the canonical one (site.vcl) is redirected
    # there before the cache is read: a Host is never a cache entry of its
    # own. Unset, any host the site answers to is served from the one copy.
    call site_host;
    if (req.http.X-Site-Host != ""
        && std.tolower(req.http.Host) != std.tolower(req.http.X-Site-Host)) {
        return (synth(701, req.http.X-Forwarded-Proto + "://"
            + req.http.X-Site-Host + req.url));
    }
    unset req.http.X-Site-Host;
    if (req.http.Cookie ~ "(^|;\s*)sessionid="
        || req.url ~ "^/(admin|export|health)(/|$)") {
        return (pass);
    }
    # A token is read by the API alone, which counts every request against
    # its token's limit and answers its user's own drafts: such a request
    # always reaches the site. On any other page an Authorization header
    # changes nothing, and the page is served from the cache as to anyone.
    if (req.http.Authorization) {
        if (req.url ~ "^/api(/|$)") {
            return (pass);
        }
        unset req.http.Authorization;
    }
    # A reader's correction form and the private page that follows one are
    # the reader's own: never kept, and with their cookies (the form's CSRF
    # token) passed on. /LIT-004/correct/, /decisions/[<log>/]ADR-026/
    # [<n>/]correct/, /corrections/<token>/.
    if (req.url ~ "^/(decisions/([A-Za-z0-9_-]+/)?)?[A-Z][A-Z0-9]*-[0-9]+/([0-9]+/)?correct/"
        || req.url ~ "^/corrections/") {
        return (pass);
    }
    # A preview link's page shows unpublished text to whoever holds the link:
    # never kept, whatever the site's headers say. /preview/<token>/.
    if (req.url ~ "^/preview/") {
        return (pass);
    }
    # A reader's other cookies (a CSRF token) change nothing on a public page.
    unset req.http.Cookie;
    # What is public to read answers a script from any other origin alike
    # (Access-Control-Allow-Origin: *, never with credentials), and varies by
    # Origin only as to whether one is named: every origin shares one kept
    # copy, and an origin is never a copy of its own. The cross-origin
    # headers are kept with the page and served from the cache.
    if (req.http.Origin) {
        set req.http.Origin = "null";
    }
    # The site answers in gzip or plain (Vary: Accept-Encoding), and so does
    # Varnish: it keeps one copy of a page for the clients that take gzip and
    # one for those that do not, each as it is sent, rather than unpacking
    # the gzip copy for every plain answer. The test is the site's own
    # (Django's GZipMiddleware).
    unset req.http.X-Plain;
    if (req.http.Accept-Encoding !~ "\bgzip\b") {
        set req.http.X-Plain = "1";
    }
    if (req.http.X-Stale-Tried) {
        # The site answered 503: a kept copy stands in, as long as its own
        # grace (stale-if-error) allows.
        set req.grace = 1y;
    } elsif (std.healthy(req.backend_hint)) {
        # While the site answers, nothing past its lifetime is served.
        set req.grace = 0s;
    }
    return (hash);
}

sub vcl_hash {
    # The address, without the Host: every address a page writes is under
    # the site's canonical origin (SITE_URL) whatever Host it was asked at,
    # so a host is no copy of its own. The site redirects a query of another
    # spelling (page=01, page=1&page=1) to its one, and only that is kept.
    hash_data(req.url);
    # A page names its own scheme (canonical links, the sitemap, the feed's
    # ids), and under HTTPS a plain request is redirected: one copy a scheme.
    hash_data(req.http.X-Forwarded-Proto);
    # Varnish reads Vary: Accept-Encoding as satisfied by its gzip copy; the
    # plain copy is another object.
    if (req.http.X-Plain) {
        hash_data("plain");
    }
    return (lookup);
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
    if (beresp.status == 503 && beresp.http.Retry-After && !bereq.uncacheable
        && (bereq.is_bgfetch || !bereq.http.X-Stale-Tried)) {
        # The site cannot answer just now (its database is out of reach):
        # a kept copy stands in, asked for again with grace (vcl_synth).
        return (abandon);
    }
    if (beresp.http.Cache-Control !~ "s-maxage") {
        # Not vouched for by the site's page cache: never kept. A cacheable
        # answer later replaces this hit-for-miss marker. A redirect or a
        # client error (another spelling of a query, a page of nothing)
        # leaves no marker at all, not even for a grace: each spelling would
        # be an object.
        set beresp.uncacheable = true;
        set beresp.ttl = 10s;
        if (beresp.status >= 300 && beresp.status < 500) {
            set beresp.ttl = 0s;
            set beresp.grace = 0s;
        }
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

sub vcl_backend_error {
    # The site cannot be reached and no stale copy can stand in (a kept one
    # within its stale-if-error is served without coming here): the site's
    # own page, never Varnish's, and never kept.
    set beresp.status = 503;
    set beresp.http.Content-Type = "text/html; charset=utf-8";
    set beresp.http.Retry-After = "30";
    set beresp.http.Cache-Control = "no-store";
    set beresp.ttl = 0s;
    set beresp.uncacheable = true;
    call site_error_page;
    return (deliver);
}

sub vcl_synth {
    if (resp.status == 701) {
        # To the canonical host (vcl_recv), the address as it was asked (the
        # reason holds it until the status, which resets it, is set).
        set resp.http.Location = resp.reason;
        set resp.status = 301;
        set resp.http.Cache-Control = "public, max-age=3600";
        set resp.http.Content-Length = "0";
        return (deliver);
    }
    if (resp.status == 503 && !req.http.X-Stale-Tried) {
        # A page the site answered 503 (vcl_backend_response): once more,
        # with grace; without a kept copy, the site's own 503 is delivered.
        set req.http.X-Stale-Tried = "1";
        return (restart);
    }
    # Varnish's own refusals say what was refused, in plain text.
    set resp.http.Content-Type = "text/plain; charset=utf-8";
    set resp.http.Cache-Control = "no-store";
    if (resp.status == 413) {
        synthetic("The request's body is larger than this address takes: "
            + "1 MiB, or 65 MiB under /admin/." + {"
"});
    } else {
        synthetic(resp.reason + {"
"});
    }
    return (deliver);
}

# The site Varnish fronts: `make serve` on its default addresses. Copy this
# file next to anthology.vcl with your own addresses.
#
# Pages come from the web workers (SERVE_BIND). The probe asks /health/ of
# the health listener `make serve` starts beside them (HEALTH_BIND): a
# process of its own that renders no page, so however busy the web workers
# are, the probe never waits behind a page, and a site that is down (its
# database gone) is known before a reader's request finds it. /health/
# answers 200 while the site can serve pages, a failing cache or queue
# included; the site never redirects it to HTTPS (with HTTPS=1 every other
# plain request is), so the probe works either way. Its timeout allows for
# the Redis timeouts the answer may wait on.
backend default {
    .host = "127.0.0.1";
    .port = "8000";
    .first_byte_timeout = 60s;
}

backend health {
    .host = "127.0.0.1";
    .port = "8001";
    .probe = {
        .url = "/health/";
        .interval = 2s;
        .timeout = 3s;
        .window = 5;
        .threshold = 3;
        .initial = 3;
    }
}

sub vcl_recv {
    # The web workers are as healthy as the health listener says: while it
    # is sick, requests go to it, which Varnish asks nothing of, so a reader
    # gets a stale page (anthology.vcl keeps grace only then) or the site's
    # error page.
    if (std.healthy(health)) {
        set req.backend_hint = default;
    } else {
        set req.backend_hint = health;
    }
}

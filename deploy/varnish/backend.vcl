# The site Varnish fronts: `make serve` on its default address. Copy this file
# next to anthology.vcl with your own address; the probe asks /health/, so a
# site that is down is known before a reader's request finds it. /health/
# answers 200 while the site can serve pages (its database answers), a failing
# cache or queue included; the site never redirects it to HTTPS (with
# HTTPS=1 every other plain request is), so the probe works either way. Its
# timeout allows for the Redis timeouts the answer may wait on.
backend default {
    .host = "127.0.0.1";
    .port = "8000";
    .first_byte_timeout = 60s;
    .probe = {
        .url = "/health/";
        .interval = 2s;
        .timeout = 3s;
        .window = 5;
        .threshold = 3;
        .initial = 3;
    }
}

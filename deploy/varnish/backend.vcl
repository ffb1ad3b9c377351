# The site Varnish fronts: `make serve` on its default address. Copy this file
# next to anthology.vcl with your own address; the probe asks /health/, so a
# site that is down is known before a reader's request finds it.
backend default {
    .host = "127.0.0.1";
    .port = "8000";
    .first_byte_timeout = 60s;
    .probe = {
        .url = "/health/";
        .interval = 2s;
        .timeout = 1s;
        .window = 5;
        .threshold = 3;
        .initial = 3;
    }
}

# The site's canonical host, as clients write it in Host: SITE_URL's host
# and port (`anthology.example.org`, or `127.0.0.1:6081`). Copy this file next
# to anthology.vcl with your own: a GET or HEAD naming another host or port
# is redirected (301) to this one before the cache is read, so no host makes
# a copy of a page of its own. Left empty, every host is served from the one
# copy (pages write SITE_URL's addresses whatever Host they are asked at).
sub site_host {
    set req.http.X-Site-Host = "";
}

# The site's own page for when it cannot answer (templates/503.html,
# as the site renders it: a test keeps the two the same), shown by Varnish
# in place of its "Guru Meditation" when the site is down and no copy of the
# page is kept.
sub site_error_page {
    synthetic({"<!doctype html>

<html lang="en-GB">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Back in a moment · Anthology</title>
</head>
<body>
  <header class="site-header">
    <a class="site-name" href="/">Anthology</a>
  </header>
  <main id="content">
    <h1>The anthology is back in a moment</h1>
    <p class="lead">The site cannot answer just now and this page was not kept. Try again in a minute.</p>
  </main>
</body>
</html>
"});
}

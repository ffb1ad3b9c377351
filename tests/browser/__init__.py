def follow(page, link):
    """Click ``link`` and wait for the page it leads to: reading the page
    before it arrives would read the one before."""
    with page.expect_navigation():
        link.click()

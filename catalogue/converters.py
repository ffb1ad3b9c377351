class IdentifierConverter:
    """A permanent identifier in a URL: ``LIT-004``, its number at least 3 digits."""

    regex = r"[A-Z][A-Z0-9]*-[0-9]{3,}"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return str(value)

"""``<citation_format:fmt>`` in a URL: a citation download's format."""


class CitationFormatConverter:
    """bib, ris or json: the formats of ``citation_formats.FORMATS``."""

    regex = "bib|ris|json"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value

"""OAI-PMH 2.0 at ``/oai/``: the record as harvesters read it.

Reads only, like the public site: every record is a public document, a
withdrawn one a deleted record, and its datestamp the time its row last
changed (``Document.updated_at``), which moves with every change readers see.
"""

"""Zip archives as editors make them (zipping a folder, GitHub's "Download
ZIP") and as attackers do (traversal, links, bombs), written with zipfile."""

import io
import stat
import zipfile


def zipped(files, *, prefix="", directories=True):
    """A .zip of ``files`` (``{path: text or bytes}``) under ``prefix``, with
    an entry for each directory as zipping a folder writes them."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        written = set()
        for path, content in files.items():
            full = f"{prefix}{path}"
            if directories:
                parts = full.split("/")[:-1]
                for depth in range(1, len(parts) + 1):
                    directory = "/".join(parts[:depth]) + "/"
                    if directory not in written:
                        archive.writestr(directory, b"")
                        written.add(directory)
            data = content.encode() if isinstance(content, str) else content
            archive.writestr(full, data)
    return buffer.getvalue()


def with_entries(data, entries):
    """``data`` (a .zip) with ``entries`` added: ``(ZipInfo or name, bytes)``."""
    buffer = io.BytesIO(data)
    with zipfile.ZipFile(buffer, "a", zipfile.ZIP_DEFLATED) as archive:
        for info, content in entries:
            archive.writestr(info, content)
    return buffer.getvalue()


def symlink(name, target):
    """A symbolic link entry, as ``zip --symlinks`` writes one."""
    info = zipfile.ZipInfo(name)
    info.create_system = 3  # Unix, whose mode bits say it is a link.
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target.encode()


def lying_about_size(data, name, said):
    """``data`` with entry ``name``'s headers saying it unpacks to ``said``
    bytes, as a zip bomb's do."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    info = archive.getinfo(name)
    real = info.file_size.to_bytes(4, "little")
    patched = bytearray(data)
    # The size is in the local header (offset 22) and the central directory's
    # record of the entry (offset 24).
    local = info.header_offset
    assert patched[local + 22 : local + 26] == real
    patched[local + 22 : local + 26] = said.to_bytes(4, "little")
    central = patched.index(b"PK\x01\x02")
    while True:
        length = int.from_bytes(patched[central + 28 : central + 30], "little")
        if patched[central + 46 : central + 46 + length] == name.encode():
            break
        central = patched.index(b"PK\x01\x02", central + 4)
    assert patched[central + 24 : central + 28] == real
    patched[central + 24 : central + 28] = said.to_bytes(4, "little")
    return bytes(patched)

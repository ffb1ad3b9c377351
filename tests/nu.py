"""The current Nu HTML checker (the npm package vnu-jar, pinned by
package-lock.json) over pages the tests rendered: its errors, each named by
the page it is on."""

import json
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

from tests.tools import require_node_package


def nu_errors(pages, folder):
    """The Nu checker's errors on ``pages`` ({name: HTML bytes}), each as
    "name: message", written as files under ``folder`` for it to read."""
    jar = require_node_package("vnu-jar") / "build" / "dist" / "vnu.jar"
    names = {}
    for n, (name, content) in enumerate(pages.items()):
        (Path(folder) / f"page{n}.html").write_bytes(content)
        names[f"page{n}.html"] = name
    result = subprocess.run(
        [
            *("java", "-jar", str(jar), "--format", "json", "--errors-only"),
            *(str(Path(folder) / name) for name in names),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    messages = json.loads(result.stderr)["messages"]
    return [
        f"{names[Path(urlsplit(message['url']).path).name]}: {message['message']}"
        for message in messages
    ]

"""The comparison scripts' JSON output."""

import json


def emit(res, out):
    """Prints res as indented JSON and, if out is set, writes it there too."""
    js = json.dumps(res, indent=2)
    print(js)
    if out:
        with open(out, "w") as f:
            f.write(js + "\n")

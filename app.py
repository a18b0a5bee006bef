"""The Cotati land-use code assistant as a web app: ``python app.py [--host H] [--port P]``.

Serves http://127.0.0.1:7860 by default (env COTATI_HOST, COTATI_PORT). Importing this module
loads nothing; ``main()`` reads the corpus, opens (or first builds) the search index in the
background and starts the server. See ``webapp/`` for the parts.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from webapp.server import main as serve

    return serve(argv)


if __name__ == "__main__":
    sys.exit(main())

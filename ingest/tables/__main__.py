"""``python -m ingest.tables``: the same as ``python -m ingest tables``."""

from .cli import main

raise SystemExit(main())

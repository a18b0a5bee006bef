"""The served app's memory allocator, set once when ``app.py`` starts (issue 45: the app's RSS after a
load run stays under 600 MB).

Answers and the API's replies run in gradio's worker threads. glibc gives a thread that meets
contention an arena of its own (up to eight per core) and keeps what an arena once held; and after a
large block is freed it raises its mmap threshold, so later large blocks come from the arenas and stay
there. Measured on the served app (2,000 ``/ask`` calls from 20 clients, a shared 2-core machine):
RSS 491 -> 615 MB as glibc sets itself, 480 -> 547 and 550 MB with at most two arenas and a fixed
1 MiB mmap threshold; trimming the heaps after that gave back 5 MB more, so nothing trims.

Only glibc has ``mallopt``; elsewhere nothing changes. A variable the operator set
(``MALLOC_ARENA_MAX``, ``MALLOC_MMAP_THRESHOLD_``) is glibc's own way to say the same and wins.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

M_MMAP_THRESHOLD = -3  # glibc's malloc.h
M_ARENA_MAX = -8
SETTINGS = (("MALLOC_ARENA_MAX", M_ARENA_MAX, 2), ("MALLOC_MMAP_THRESHOLD_", M_MMAP_THRESHOLD, 1 << 20))


def tune_allocator(environ=None) -> dict[str, int]:
    """Set glibc's arena count and mmap threshold for this process, each unless ``environ`` (default
    ``os.environ``) names it; {variable: value} of what was set ({} without glibc)."""
    environ = os.environ if environ is None else environ
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt if name else None
    except (OSError, AttributeError):
        mallopt = None
    if mallopt is None:
        return {}
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return {variable: value for variable, option, value in SETTINGS
            if variable not in environ and mallopt(option, value) == 1}

"""Child process that extracts PDF text with pypdf under resource limits.

Run as ``python -m ingest.pdf_worker FILE``; prints ``[[page_number, text], ...]`` as JSON on
stdout, or one line naming the reason on stderr with exit status 2. Limits are set before pypdf
is imported so that a hostile file cannot exhaust the parent's memory or hang it.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys


class PdfRejected(Exception):
    pass


def _limit(memory_mb: int, cpu_seconds: int) -> None:
    memory = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))


NO_CRYPTOGRAPHY = ("PDF is AES-encrypted and the 'cryptography' package is missing; install the project's "
                   "dependencies (pip install -e .)")


def extract(path: str, max_pages: int, max_chars: int) -> list[list]:
    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    try:
        reader = PdfReader(path, strict=False)
        if reader.is_encrypted:
            try:  # an owner-only password (empty user password) opens in any viewer: read it
                opened = reader.decrypt("")
            except DependencyError:
                raise
            except Exception:  # pypdf raises several types for unsupported encryption
                opened = 0
            if not opened:
                raise PdfRejected("PDF is encrypted (password required)")
        count = len(reader.pages)
    except PdfRejected:
        raise
    except DependencyError:
        raise PdfRejected(NO_CRYPTOGRAPHY) from None
    except MemoryError:
        raise PdfRejected("PDF needs more memory than allowed (decompression bomb?)") from None
    except Exception as exc:  # any pypdf parse failure means the same thing to the user
        raise PdfRejected(f"corrupt or unreadable PDF ({type(exc).__name__}: {exc})") from None
    if count == 0:
        raise PdfRejected("PDF has no pages")
    if count > max_pages:
        raise PdfRejected(f"PDF has {count} pages, more than the limit of {max_pages}")
    pages: list[list] = []
    total = 0
    for number, page in enumerate(reader.pages, start=1):
        try:
            text = page.extract_text() or ""
        except DependencyError:
            raise PdfRejected(NO_CRYPTOGRAPHY) from None
        except MemoryError:
            raise PdfRejected(f"page {number} needs more memory than allowed") from None
        except Exception as exc:
            raise PdfRejected(f"page {number} could not be read ({type(exc).__name__}: {exc})") from None
        total += len(text)
        if total > max_chars:
            raise PdfRejected(f"PDF text exceeds the limit of {max_chars} characters")
        pages.append([number, text])
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ingest.pdf_worker")
    parser.add_argument("path")
    parser.add_argument("--memory-mb", type=int, default=1024)
    parser.add_argument("--cpu-seconds", type=int, default=60)
    parser.add_argument("--max-pages", type=int, default=2000)
    parser.add_argument("--max-chars", type=int, default=5_000_000)
    args = parser.parse_args(argv)
    _limit(args.memory_mb, args.cpu_seconds)
    try:
        pages = extract(args.path, args.max_pages, args.max_chars)
    except PdfRejected as exc:
        print(str(exc), file=sys.stderr)
        return 2
    json.dump(pages, sys.stdout, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())

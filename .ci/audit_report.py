"""Dependency audit that says what it checked (issue 26 item 14).

``bash .ci/audit`` runs pip-audit on this virtualenv with JSON output and hands it here. This
prints "audited N of M installed packages: K known vulnerabilities" and fails (exit 2) when it could
not audit: pip-audit did not run, wrote no report, or skipped any package but this project itself
(offline, the advisory service unreachable, a package it cannot look up). "No known
vulnerabilities" is said only of packages that were looked up. Exit 1: vulnerabilities found.
"""

from __future__ import annotations

import json
import sys

OWN = {"cotati-code-assistant", "cotati_code_assistant"}  # this project: never on PyPI, skipped by design


def summarise(report: dict) -> tuple[int, int, list[str], list[str]]:
    """(audited, total, vulnerabilities as 'name version: id', skipped as 'name: reason')."""
    dependencies = report.get("dependencies", []) if isinstance(report, dict) else []
    mine = [d for d in dependencies if str(d.get("name", "")).lower() not in OWN]
    skipped = [f"{d.get('name')}: {d['skip_reason']}" for d in mine if d.get("skip_reason")]
    audited = [d for d in mine if not d.get("skip_reason")]
    vulns = [f"{d['name']} {d.get('version', '')}: {v.get('id', '?')}" for d in audited for v in d.get("vulns", [])]
    return len(audited), len(mine), vulns, skipped


def verdict(report_text: str, audit_status: int, audit_error: str = "") -> tuple[int, list[str]]:
    """(exit status, lines to print) for pip-audit's JSON output and exit status."""
    try:
        report = json.loads(report_text) if report_text.strip() else None
    except ValueError:
        report = None
    if report is None:
        reason = (audit_error.strip().splitlines() or [f"pip-audit exited {audit_status} with no report"])[-1]
        return 2, [f"error: could not audit the dependencies: {reason}"]
    audited, total, vulns, skipped = summarise(report)
    lines = [f"audited {audited} of {total} installed packages: {len(vulns)} known vulnerabilities"]
    lines += [f"  vulnerable: {v}" for v in vulns] + [f"  not audited: {s}" for s in skipped]
    if total == 0 or audited < total:
        return 2, lines + [f"error: could not audit {total - audited} of {total} packages (offline?); "
                           "this is not a clean audit"]
    return (1 if vulns else 0), lines


def main(argv: list[str]) -> int:
    report_path, status, error_path = argv
    with open(report_path, encoding="utf-8") as report, open(error_path, encoding="utf-8") as error:
        code, lines = verdict(report.read(), int(status), error.read())
    print("\n".join(lines), file=sys.stderr if code == 2 else sys.stdout)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Issue 26 item 14: the dependency audit says what it checked. pip-audit printed "No known
vulnerabilities found" while auditing 0 of 112 packages offline; `.ci/audit` fails (exit 2) whenever
it could not look a package up, and says how many it audited."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def audit():
    spec = importlib.util.spec_from_file_location("audit_report", REPO / ".ci" / "audit_report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _report(*deps) -> str:
    return json.dumps({"dependencies": list(deps), "fixes": []})


OFFLINE = _report(*({"name": f"pkg{n}", "skip_reason": "Dependency not found on PyPI and could not be audited"}
                    for n in range(112)))


def test_an_offline_audit_of_nothing_is_a_failure_not_a_clean_bill(audit):
    code, lines = audit.verdict(OFFLINE, 0)
    assert code == 2 and lines[0] == "audited 0 of 112 installed packages: 0 known vulnerabilities"
    assert "could not audit 112 of 112" in lines[-1]


def test_pip_audit_that_did_not_run_is_a_failure(audit):
    code, lines = audit.verdict("", 1, "ConnectionError: Max retries exceeded with url: /pypi/...\n")
    assert code == 2 and lines == ["error: could not audit the dependencies: ConnectionError: Max retries exceeded "
                                   "with url: /pypi/..."]


def test_a_full_audit_says_what_it_checked(audit):
    clean = _report({"name": "numpy", "version": "2.0", "vulns": []},
                    {"name": "cotati-code-assistant", "skip_reason": "not on PyPI"})
    assert audit.verdict(clean, 0) == (0, ["audited 1 of 1 installed packages: 0 known vulnerabilities"])
    bad = _report({"name": "numpy", "version": "2.0", "vulns": [{"id": "PYSEC-1", "fix_versions": ["2.1"]}]})
    code, lines = audit.verdict(bad, 1)
    assert code == 1 and "numpy 2.0: PYSEC-1" in lines[1]

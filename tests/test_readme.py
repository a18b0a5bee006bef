"""The README says what is true today (issue 36): its example questions get the first lines it prints
(slow: the real assistant), its install command is the one CI runs, and its links resolve."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"


def examples(text: str) -> list[tuple[str, str]]:
    """The (question, first line) pairs between the README's example markers."""
    block = text.split("<!-- examples: begin -->", 1)[1].split("<!-- examples: end -->", 1)[0]
    pairs = re.findall(r"^Q: (.+)\nA: (.+)$", block, re.M)
    questions = re.findall(r"^Q: ", block, re.M)
    assert len(pairs) == len(questions), "every example question has its first line"
    return pairs


def test_the_readme_has_examples_and_leads_with_residents_and_planners():
    text = README.read_text(encoding="utf-8")
    assert len(examples(text)) >= 6
    heads = re.findall(r"^## (.+)$", text, re.M)
    assert heads[:3] == ["Start it", "For residents: ask a question", "For planners and staff"]
    assert len(text) < 15_000, "reference material belongs in docs/"


def test_the_readme_links_resolve():
    text = README.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        assert (REPO / target).exists(), target


def test_the_readme_installs_as_ci_does():
    """The README's one-liner installs what `.ci/run` installs, without the test extra."""
    text = README.read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    install = re.search(r"python3 -m venv \.venv && \.venv/bin/pip install -q -c constraints\.txt -e '\.\[test\]'", ci)
    assert install, ".ci/run installs from the lock"
    assert "python3 -m venv .venv && .venv/bin/pip install -q -c constraints.txt -e . && .venv/bin/python app.py" in text
    torch = re.search(r"^torch==(\S+)$", (REPO / "constraints.txt").read_text(encoding="utf-8"), re.M)
    assert torch and "+" not in torch.group(1), "a local version (+cpu) is not served by the public index"
    assert f"torch {torch.group(1)}" in text


def test_ci_runs_exactly_the_readme_test_command():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    command = next(line for line in ci.splitlines() if line.startswith("python3 -m venv"))
    assert f"`{command}`" in README.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def assistant():
    from assistant import load_assistant

    return load_assistant()


@pytest.mark.slow
@pytest.mark.parametrize("question,first", examples(README.read_text(encoding="utf-8")))
def test_each_example_gets_the_first_line_the_readme_prints(assistant, question, first):
    assert assistant.ask(question).first_line == first

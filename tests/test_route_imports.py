"""Routes only propose (issue 44, "no route imports another route or the decider"): a route module imports
non-route modules of ``assistant`` (what routes share lives there: ``permit_cells``, ``definitions``,
``provision_search`` ...), never another route module nor ``assistant.choose`` / ``assistant.chooser``.

Read from the source with ``ast`` (every import, at the top or inside a function), so nothing is imported
to check it. ``routes/registry.py`` (the declared list of routes) and ``routes/__init__.py`` may name the
routes; a route may read the registry, which is data only.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROUTES_DIR = Path(__file__).resolve().parent.parent / "assistant" / "routes"
PACKAGE = "assistant.routes"
# may list the routes: the registry declares them, the package's docstring names them
LISTS_ROUTES = {"__init__", "registry"}
DECIDERS = ("assistant.choose", "assistant.chooser")


def route_modules() -> set[str]:
    return {path.stem for path in ROUTES_DIR.glob("*.py")} - LISTS_ROUTES


def imported(source: str, package: str = PACKAGE) -> list[tuple[int, str]]:
    """(line, module) for every module an import statement may bring in: ``from X import a`` may import
    ``X`` and ``X.a`` (``from . import permit`` imports the module ``assistant.routes.permit``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def forbidden(module: str, routes: set[str]) -> bool:
    """Another route module, or the decider."""
    if any(module == d or module.startswith(d + ".") for d in DECIDERS):
        return True
    if not module.startswith(PACKAGE + "."):
        return False
    return module[len(PACKAGE) + 1:].split(".")[0] in routes


def violations(path: Path, routes: set[str]) -> list[str]:
    own = f"{PACKAGE}.{path.stem}"
    return [f"{path.relative_to(ROUTES_DIR.parent.parent)}:{line} imports {module}"
            for line, module in imported(path.read_text(encoding="utf-8"))
            if forbidden(module, routes) and not (module == own or module.startswith(own + "."))]


@pytest.mark.parametrize("name", sorted(route_modules()))
def test_no_route_imports_another_route_or_the_decider(name):
    found = violations(ROUTES_DIR / f"{name}.py", route_modules())
    assert not found, "a route imports another route or the decider (move what they share out of routes/):\n" + \
        "\n".join(found)


@pytest.mark.parametrize("source,bad", [
    ("from . import permit\n", True),
    ("from .permit import ASKING_WORDS\n", True),
    ("def f():\n    from .definition import in_section\n", True),  # inside a function too
    ("import assistant.routes.provision\n", True),
    ("from assistant.routes import standards\n", True),
    ("from .. import choose\n", True),
    ("from ..chooser import routed\n", True),
    ("from assistant.choose import TUNED\n", True),
    ("from .. import compose, permit_cells\n", False),
    ("from ..permits import STOP, words_of\n", False),
    ("from . import registry\n", False),  # the registry is data, not a route
    ("from ..choosing import x\n", False),  # a name that only begins like the decider's
])
def test_the_check_reads_each_kind_of_import(source, bad):
    routes = route_modules()
    assert {"permit", "definition", "provision", "standards"} <= routes
    assert any(forbidden(module, routes) for _, module in imported(source)) is bad

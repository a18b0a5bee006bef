"""The code's shape: no long functions in the answer layer, no import cycle between packages."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_FUNCTION_LINES = 60


def _functions(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def test_no_function_in_the_assistant_is_over_60_lines():
    long = [f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for path in sorted((ROOT / "assistant").rglob("*.py")) for node in _functions(path)
            if node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long, long


def _module_level_imports(path: Path, package: str) -> set[str]:
    """Top-level packages a module imports when it is imported (not inside functions or classes'
    methods); relative imports resolve to ``package``."""
    found: set[str] = set()

    def visit(nodes):
        for node in nodes:
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                found.add(package if node.level else (node.module or "").split(".")[0])
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.ClassDef)):
                visit([child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)])
                for handler in getattr(node, "handlers", ()):
                    visit(handler.body)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return found


def _package_imports(package: str) -> set[str]:
    return {name for path in (ROOT / package).rglob("*.py") for name in _module_level_imports(path, package)}


def test_assistant_and_eval_do_not_import_each_other_at_module_level():
    assistant, evaluation = _package_imports("assistant"), _package_imports("eval")
    assert "eval" not in assistant  # the calibration fit, which needs the scorer, lives in eval/
    assert not ("assistant" in evaluation and "eval" in assistant)


def _all_imports(path: Path) -> set[str]:
    """Every absolute import a module makes anywhere (inside functions too: a lazy import is still a
    dependency), as top-level package names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                "import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
            found.add(str(node.args[0].value).split(".")[0])
    return found


def test_the_index_imports_nothing_from_the_layers_above():
    """Layers import downwards only: ingest <- index <- assistant <- webapp/eval (issue 44)."""
    above = {"assistant", "webapp", "eval", "app"}
    wrong = {f"{path.relative_to(ROOT)}: {sorted(_all_imports(path) & above)}"
             for path in sorted((ROOT / "index").rglob("*.py")) if _all_imports(path) & above}
    assert not wrong, sorted(wrong)


def test_the_import_walk_sees_lazy_imports(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from assistant import load_assistant\n    import webapp.engine\n"
                      "    __import__('eval.run')\n", encoding="utf-8")
    assert _all_imports(module) == {"assistant", "webapp", "eval"}


def test_the_routes_are_leaves():
    """A route imports neither the chooser nor the service (they import the routes)."""
    for path in (ROOT / "assistant" / "routes").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        names = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        assert not names & {"chooser", "service"}, path.name


def _relative_imports(path: Path) -> set[str]:
    """The modules a route imports relatively, by their dotted name from the package ("..choose", ".permit")."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = "." * node.level + (node.module or "")
            found |= {base + ("" if node.module else alias.name) for alias in node.names} if not node.module else {base}
    return found


def test_no_route_imports_the_deciders():
    """Routes only propose (issue 44): none imports choose, chooser or service, however it is spelled."""
    deciders = {"..choose", "..chooser", "..service"}
    wrong = {path.name: sorted(_relative_imports(path) & deciders) for path in (ROOT / "assistant" / "routes").glob("*.py")}
    assert not {name: found for name, found in wrong.items() if found}


def test_the_routes_added_for_issue_44_import_no_other_route():
    for name in ("table", "citation", "ranking"):
        found = _relative_imports(ROOT / "assistant" / "routes" / f"{name}.py")
        assert not {m for m in found if m.startswith(".") and not m.startswith("..")}, (name, found)


def test_the_readme_imports_work_without_loading_anything():
    """README: ``from assistant import load_assistant`` (or ``Assistant``); importing loads no corpus or model."""
    import subprocess
    import sys

    code = ("import sys; from assistant import Assistant, load_assistant; from assistant.service import Assistant as A; "
            "assert Assistant is A and callable(load_assistant); "
            "assert 'torch' not in sys.modules and 'onnxruntime' not in sys.modules")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr

"""The package's layout rules, read from its source with `ast`.

- no import circle between modules (imports under TYPE_CHECKING and inside functions count);
- an import only points down the layers: ground files, fixtures, replay, recording, grading,
  reports, config, pipeline, then history and authoring, then the command line on top;
- no module over 400 lines;
- every exception class is defined in `harness/errors.py`;
- a subpackage's `__init__.py` holds a docstring and nothing else;
- no two modules share a name, so a name says which module it is.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "harness"
MAX_LINES = 400

GROUND = {
    "agent_io",
    "errors",
    "messages",
    "text",
    "version",
    "_parallel",
    "credentials",
    "chat_format",
    "files",
    "lifeline",
    "tokens",
    "secret_names",
    "masking",
}
GROUND_MAY_IMPORT = {
    "chat_format": {"harness.messages"},
    "files": {"harness.errors"},
    "_parallel": {"harness.lifeline"},
    "credentials": {"harness.tokens", "harness.secret_names"},
    "masking": {"harness.credentials", "harness.tokens"},
    "text": {"harness.masking"},
}
RANK = {
    "fixtures": 1,
    "replay": 2,
    "recording": 3,
    "grading": 4,
    "reports": 5,
    "config": 6,
    "pipeline": 7,
    "history": 8,
    "authoring": 8,
    "_cli": 9,
}
# Module names two modules may still share while the report writers are being rewritten.
# A KeyboardInterrupt on purpose, so that `except Exception` never swallows a stop.
EXCEPTIONS_ELSEWHERE = {("harness.pipeline.interrupt", "Interrupted")}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


@cache
def tree(module: str) -> ast.Module:
    return ast.parse(modules()[module].read_text(encoding="utf-8"))


def imported(module: str) -> Iterator[tuple[int, str]]:
    """Every harness module `module` imports, anywhere in it, with the line."""
    known = modules()
    for node in ast.walk(tree(module)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            base = node.module
            names = [f"{base}.{alias.name}" for alias in node.names]
            names = [name if name in known else base for name in names]
        else:
            continue
        for name in names:
            while name not in known and "." in name:
                name = name.rsplit(".", 1)[0]
            if name in known and name.startswith("harness") and name != "harness":
                yield node.lineno, name


def group(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def find_circle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle of `graph` (module -> modules it imports), or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str]:
        state[module] = 1
        path.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        path.pop()
        state[module] = 2
        return []

    for module in sorted(graph):
        if module not in state and (found := visit(module)):
            return found
    return []


def test_the_import_graph_has_no_circle() -> None:
    """Following imports from any module never leads back to it."""
    graph = {module: {target for _, target in imported(module)} for module in modules()}
    assert find_circle(graph) == []


def edges() -> Iterator[tuple[str, int, str]]:
    for module in modules():
        if module not in {"harness", "harness.__main__"}:
            for line, target in imported(module):
                yield module, line, target


def upward_imports(found: Iterator[tuple[str, int, str]]) -> Iterator[str]:
    for module, line, target in found:
        source = group(module)
        goal = group(target)
        if goal == source and source not in GROUND:
            continue
        where = f"{module}:{line} imports {target}"
        if source in GROUND:
            if target not in GROUND_MAY_IMPORT.get(source, set()):
                yield where
        elif goal == "_cli":
            yield where
        elif goal in GROUND:
            continue
        elif RANK[goal] >= RANK[source]:
            yield where


def test_imports_only_point_down_the_layers() -> None:
    """No module imports a layer above its own (or a sibling layer beside it)."""
    assert list(upward_imports(edges())) == []


@pytest.mark.parametrize("module", sorted(modules()))
def test_no_module_is_over_400_lines(module: str) -> None:
    """One noun per module, a few hundred lines at most."""
    lines = modules()[module].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{module} has {lines} lines"


def exception_classes() -> Iterator[tuple[str, str]]:
    bases = {"Exception", "BaseException", "KeyboardInterrupt", "HarnessError"}
    for module in modules():
        for node in ast.walk(tree(module)):
            if isinstance(node, ast.ClassDef):
                names = {ast.unparse(base).rsplit(".", 1)[-1] for base in node.bases}
                if names & bases or any(name.endswith("Error") for name in names):
                    yield module, node.name


def test_every_exception_class_lives_in_errors() -> None:
    """The exception tree is in one module, drawn in its docstring."""
    elsewhere = {
        found for found in exception_classes() if found[0] != "harness.errors"
    } - EXCEPTIONS_ELSEWHERE
    assert elsewhere == set()
    doc = ast.get_docstring(tree("harness.errors")) or ""
    for module, name in exception_classes():
        if module == "harness.errors":
            assert name in doc, f"{name} is not drawn in the errors docstring"


@pytest.mark.parametrize(
    "module", sorted(m for m, p in modules().items() if p.name == "__init__.py" and m != "harness")
)
def test_subpackage_init_holds_only_a_docstring(module: str) -> None:
    """Importing a subpackage imports nothing else: start-up stays cheap."""
    body = tree(module).body
    assert len(body) == 1
    assert isinstance(body[0], ast.Expr)
    assert isinstance(body[0].value, ast.Constant)


def shared_names(paths: list[Path]) -> dict[str, list[str]]:
    """Each module name (a file's stem, `__init__` aside) that more than one of `paths` has."""
    found: dict[str, list[str]] = {}
    for path in paths:
        if path.stem != "__init__":
            found.setdefault(path.stem, []).append(path.relative_to(PACKAGE.parent).as_posix())
    return {name: places for name, places in found.items() if len(places) > 1}


def test_no_two_modules_share_a_name() -> None:
    """`workspace` names one module, not three: a name says where to look."""
    shared = shared_names(list(modules().values()))
    assert shared == {}


def test_the_rules_catch_what_they_forbid() -> None:
    """The checks above see a circle, upward imports and exceptions where they are."""
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_circle({"a": {"b"}, "b": set()}) == []
    made_up = [
        ("harness.replay.wire", 1, "harness.recording"),
        ("harness.history.store", 2, "harness.authoring.check_report"),
        ("harness.errors", 3, "harness.messages"),
        ("harness.reports.junit", 5, "harness._cli.main"),
        ("harness.pipeline.case", 6, "harness.replay.wire"),
        ("harness.chat_format", 7, "harness.messages"),
    ]
    assert len(list(upward_imports(iter(made_up)))) == 4
    assert ("harness.errors", "HarnessError") in set(exception_classes())
    assert "harness.errors" in {target for _, target in imported("harness.fixtures.suite")}
    twins = [PACKAGE / "replay" / "workspace.py", PACKAGE / "grading" / "workspace.py"]
    assert shared_names([*twins, PACKAGE / "__init__.py", PACKAGE / "replay" / "__init__.py"]) == {
        "workspace": ["harness/replay/workspace.py", "harness/grading/workspace.py"]
    }

"""The layout is the architecture: imports only point down the layers, and no room grows too big.

    entry (cli, action, __main__) -> report -> survey -> authoring -> check -> audit -> findings -> io
    -> harness -> core

Each package's __init__ docstring says what it may import; this test keeps that true.
The `ast` module reads the imports, so nothing is executed.
"""

from __future__ import annotations

import ast
import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "validator"
LAYERS = [
    "core",
    "harness",
    "io",
    "findings",
    "audit",
    "check",
    "authoring",
    "survey",
    "report",
    "entry",
]  # bottom to top
ENTRY_MODULES = {"cli", "action", "__main__"}
MAX_MODULE_LINES = 400
MAX_CLASS_LINES = 150


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def dotted(path: Path) -> list[str]:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def layer_of(parts: list[str]) -> str | None:
    """The layer of validator.<parts...>; None for the root package (it only holds the version)."""
    if len(parts) < 2 or parts[1] == "__version__":
        return None
    top = parts[1]
    return "entry" if top in ENTRY_MODULES else top


@functools.cache
def syntax_tree(path: Path) -> ast.Module:
    """The module's syntax tree, parsed once for every test of this file (none changes a tree)."""
    return ast.parse(path.read_text(encoding="utf-8"))


def imported(path: Path, source: str | None = None) -> list[tuple[int, list[str]]]:
    """(line, absolute module parts) of every lbnorm import in the module, at any depth (lazy ones too)."""
    package = dotted(path) if path.name == "__init__.py" else dotted(path)[:-1]
    found = []
    for node in ast.walk(syntax_tree(path) if source is None else ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = base + (node.module.split(".") if node.module else [])
            elif node.module and node.module.split(".")[0] == "validator":
                target = node.module.split(".")
            else:
                continue
            if node.module is None:  # from . import a, b: each name is a module of the package
                found += [(node.lineno, target + [alias.name]) for alias in node.names]
            else:
                found.append((node.lineno, target))
        elif isinstance(node, ast.Import):
            found += [
                (node.lineno, alias.name.split("."))
                for alias in node.names
                if alias.name.split(".")[0] == "validator"
            ]
    return found


def test_every_module_belongs_to_a_known_layer():
    for path in modules():
        layer = layer_of(dotted(path))
        assert layer is None or layer in LAYERS, (
            f"{path.relative_to(PACKAGE)}: not in any layer of {LAYERS}"
        )


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_down(path):
    own = layer_of(dotted(path))
    for line, target in imported(path):
        other = layer_of(target)
        if other is None:  # validator.__version__: the root package holds nothing else
            continue
        if own is None:
            pytest.fail(f"{path.relative_to(PACKAGE)}:{line}: the root package must import nothing")
        assert LAYERS.index(other) <= LAYERS.index(own), (
            f"{path.relative_to(PACKAGE)}:{line} ({own}) imports {'.'.join(target)} ({other}): "
            f"imports must point down {' <- '.join(LAYERS)}"
        )


def test_the_root_package_holds_only_the_version():
    tree = syntax_tree(PACKAGE / "__init__.py")
    assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]


def test_each_package_says_what_it_may_import():
    for init in PACKAGE.glob("*/__init__.py"):
        doc = ast.get_docstring(syntax_tree(init)) or ""
        assert doc, f"{init.relative_to(PACKAGE)} has no docstring"
        assert "import" in doc.lower(), (
            f"{init.relative_to(PACKAGE)}: the docstring must say what it may import"
        )


def upward_imports(path: Path, source: str | None = None) -> list[str]:
    own = layer_of(dotted(path))
    return [
        ".".join(target)
        for _, target in imported(path, source)
        if layer_of(target) is not None and LAYERS.index(layer_of(target)) > LAYERS.index(own)
    ]


def test_an_upward_import_is_caught():
    """Positive control: the same parser flags io importing check, relative or absolute, lazy or not."""
    module = PACKAGE / "io" / "paths.py"
    source = module.read_text(encoding="utf-8")
    assert upward_imports(module) == []
    assert upward_imports(module, source + "\nfrom ..check.checker import run_check\n") == [
        "validator.check.checker"
    ]
    assert upward_imports(module, source + "\ndef f():\n    import validator.report.check\n") == [
        "validator.report.check"
    ]


def test_no_module_is_a_house_without_rooms():
    too_long = [
        f"{p.relative_to(PACKAGE)}: {n} lines"
        for p in modules()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    ]
    assert not too_long, (
        f"modules over {MAX_MODULE_LINES} lines (split them by concern): {too_long}"
    )


def test_no_class_does_everything():
    too_long = []
    for path in modules():
        for node in ast.walk(syntax_tree(path)):
            if (
                isinstance(node, ast.ClassDef)
                and node.end_lineno - node.lineno + 1 > MAX_CLASS_LINES
            ):
                too_long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}")
    assert not too_long, f"classes over {MAX_CLASS_LINES} lines: {too_long}"


def test_every_audit_check_is_found_and_ordered():
    """Adding an audit check is adding one module to audit/checks/: it is found and run in its order.

    Nothing lists the checks by name: every module of the folder but base.py registers at least one,
    no two share an order (so the order never depends on file names), and each documents its rules."""
    from validator.audit.checks import check_classes
    from validator.audit.checks.base import CHECKS

    folder = PACKAGE / "audit" / "checks"
    modules_with_checks = {p.stem for p in folder.glob("*.py")} - {"__init__", "base"}
    assert {cls.__module__.rsplit(".", 1)[1] for cls in check_classes()} == modules_with_checks
    orders = [order for order, _ in CHECKS]
    assert len(orders) == len(set(orders)), f"two audit checks share an order: {sorted(orders)}"
    assert [cls for _, cls in sorted(CHECKS, key=lambda item: item[0])] == list(check_classes())
    for cls in check_classes():
        assert cls.__doc__, f"{cls.__name__}: a check's docstring says which rules it reports"


def import_graph(sources: dict[str, str] | None = None) -> dict[str, set[str]]:
    """Module -> the lbnorm modules it imports, at any depth (in functions and TYPE_CHECKING blocks too).

    `from .pkg import name` points at pkg.name when that is a module, else at pkg. `sources` replaces
    the text of the named modules (for the positive control)."""
    paths = {".".join(dotted(p)): p for p in modules()}
    graph = {}
    for name, path in paths.items():
        targets = set()
        for _, target in imported(path, (sources or {}).get(name)):
            for end in range(len(target), 1, -1):
                candidate = ".".join(target[:end])
                if candidate in paths:
                    if candidate != name:
                        targets.add(candidate)
                    break
        graph[name] = targets
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
    return cycles


def test_no_import_cycles():
    """Two modules that import each other (even inside a function) are one module in two files."""
    assert import_cycles(import_graph()) == []


def test_an_import_cycle_is_caught():
    """Positive control: a lazy import back from io.paths to a module that imports it is a cycle."""
    graph = import_graph()
    importer = next(
        name for name, targets in sorted(graph.items()) if "validator.io.paths" in targets
    )
    source = (PACKAGE / "io" / "paths.py").read_text(encoding="utf-8")
    lazy = f"\ndef _back():\n    import {importer}\n"
    cycles = import_cycles(import_graph({"validator.io.paths": source + lazy}))
    assert any({"validator.io.paths", importer} <= set(cycle) for cycle in cycles)


def test_no_module_imports_another_modules_private_names():
    """A name with a leading underscore is its module's own: another module importing it is a split gone wrong."""
    private = []
    for path in modules():
        for node in ast.walk(syntax_tree(path)):
            if isinstance(node, ast.ImportFrom) and (
                node.level or (node.module or "").split(".")[0] == "validator"
            ):
                private += [
                    f"{path.relative_to(PACKAGE)}:{node.lineno} {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_") and not alias.name.startswith("__")
                ]
    assert not private, f"private names imported from another module: {private}"


# A call that makes a finding, its first argument the rule's id
FINDING_CALL = re.compile(
    r"\b(?:make_finding|at_record|at_results|at_line|DocumentError|internal_finding)\(\s*\"(LB\d{3})\""
)
BELOW_THE_CHECK = ("audit", "findings", "io", "harness", "core")


def test_every_rule_the_layers_below_the_check_report_is_registered_without_the_check():
    """The audit runs without the check's rules loaded (`lbnorm audit` never imports them): a rule id it makes a
    finding of must be registered by a module at or below it, or the finding is an internal error (KeyError)."""
    made = {
        rule_id: path.relative_to(PACKAGE).as_posix()
        for layer in BELOW_THE_CHECK
        for path in sorted((PACKAGE / layer).rglob("*.py"))
        for rule_id in FINDING_CALL.findall(path.read_text(encoding="utf-8"))
    }
    registered = subprocess.run(
        [
            sys.executable,
            "-c",
            "import validator.audit.auditor\n"
            "from validator.audit.checks import check_classes\n"
            "from validator.findings.registry import RULES\n"
            "check_classes()\n"
            "import sys\n"
            "assert not [m for m in sys.modules if m.startswith('validator.check')]\n"
            "print(' '.join(RULES))",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=PACKAGE.parent,
        timeout=60,
    ).stdout.split()
    assert "LB202" in made and "LB703" in made  # the pattern finds what it must
    assert {rule_id: where for rule_id, where in made.items() if rule_id not in registered} == {}


def test_a_module_that_defines_a_named_tuple_keeps_its_annotations_objects():
    """typing.NamedTuple compiles every annotation it is given as text: with `from __future__ import annotations`
    each field of a named tuple costs a fresh process about 20 us (docs/architecture.md, Habits)."""
    postponed = []
    for path in modules():
        tree = syntax_tree(path)
        future = any(
            isinstance(node, ast.ImportFrom)
            and node.module == "__future__"
            and any(alias.name == "annotations" for alias in node.names)
            for node in tree.body
        )
        named_tuples = [
            node.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef)
            and any(getattr(base, "id", None) == "NamedTuple" for base in node.bases)
        ]
        if future and named_tuples:
            postponed.append(f"{path.relative_to(PACKAGE)}: {', '.join(named_tuples)}")
    assert not postponed

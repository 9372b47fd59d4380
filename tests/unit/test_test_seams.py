"""Tests go through public seams: no module under ``tests/`` reads, patches or calls a
private attribute (``_name``) of a foley-tui object, and none imports a private name from
``foley_tui``. A test that reaches inside silently stops testing when the inside changes.

The check reads each module's syntax tree (strings and comments cannot fool it, nor hide
an access): any ``expr._name`` counts, unless ``expr`` is ``self``/``cls`` of a class of
the tests' own (not derived from a foley-tui class); so do ``setattr``/``getattr``/
``monkeypatch.setattr``/``patch.object`` with a private name, and ``patch("foley_tui.a._b")``.
What is left is in :data:`ALLOWED`, each with the reason.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent

#: ``expr._name`` (as written) -> (why it is allowed, the test modules allowed to use it).
ALLOWED: dict[str, tuple[str, frozenset[str]]] = {
    "os._exit": (
        "the standard library's documented exit without clean-up (a simulated crash)",
        frozenset(
            {
                "tests/unit/store/test_store_concurrency.py",
                "tests/unit/store/test_store_threads_and_races.py",
                "tests/unit/store/test_store_trash_recovery.py",
                "tests/unit/store/test_store_crash.py",
                "tests/ui/test_quit_unsaved.py",  # replaced, to see the forced end run
            }
        ),
    ),
    "verbs._configure": (
        "foley's own CLI (a third party) takes its session factory through no public hook",
        frozenset({"tests/e2e/redis/test_redis_store.py"}),
    ),
    "app._display": (
        "Textual (a third party) hands every frame to App._display and offers no public "
        "hook to see a frame go out: the keystroke bench times the frames it paints",
        frozenset({"tests/bench/bench_library.py"}),
    ),
    "verbs._STATE": (
        "foley's (third-party) verb state, restored after a test configured it",
        frozenset({"tests/e2e/redis/test_redis_store.py"}),
    ),
}


_PRIVATE = re.compile(r"^_(?!_)\w*$|^__\w*(?<!__)$")
_ATTR_CALLS = {"setattr", "getattr", "hasattr", "delattr"}


def _private(name: str) -> bool:
    return bool(_PRIVATE.match(name))


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


class _Checker(ast.NodeVisitor):
    def __init__(self, path: str) -> None:
        self.path = path
        self.found: list[Finding] = []
        self.ours: set[str] = set()  # local names bound to foley_tui modules or objects
        self.classes: list[bool] = []  # per enclosing class: derived from a foley-tui class

    def _add(self, node: ast.AST, what: str) -> None:
        allowed = ALLOWED.get(what)
        if allowed is not None and self.path in allowed[1]:
            return
        self.found.append(Finding(self.path, getattr(node, "lineno", 0), what))

    # -- what names are foley-tui's -------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name.split(".")[0] == "foley_tui":
                self.ours.add(alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if module.split(".")[0] == "foley_tui":
            for alias in node.names:
                if _private(alias.name):
                    self._add(node, f"from {module} import {alias.name}")
                self.ours.add(alias.asname or alias.name)

    def _is_ours(self, node: ast.expr) -> bool:
        while isinstance(node, ast.Attribute):
            node = node.value
        if isinstance(node, ast.Subscript):
            return self._is_ours(node.value)
        return isinstance(node, ast.Name) and node.id in self.ours

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.append(any(self._is_ours(base) for base in node.bases))
        self.generic_visit(node)
        self.classes.pop()

    # -- the accesses -----------------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute) -> None:
        if _private(node.attr) and not self._own(node.value):
            self._add(node, f"{ast.unparse(node.value)}.{node.attr}")
        self.generic_visit(node)

    def _own(self, value: ast.expr) -> bool:
        """``self``/``cls`` of a class of the tests' own."""
        if not (isinstance(value, ast.Name) and value.id in ("self", "cls")):
            return False
        return bool(self.classes) and not self.classes[-1]

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        args = node.args
        if name in _ATTR_CALLS | {"object"} and len(args) >= 2:
            target, attr = args[0], args[1]
            if (
                isinstance(attr, ast.Constant)
                and isinstance(attr.value, str)
                and _private(attr.value)
                and not self._own(target)
            ):
                self._add(node, f"{ast.unparse(target)}.{attr.value}")
        for arg in args[:1]:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                parts = arg.value.split(".")
                if parts[0] == "foley_tui" and any(_private(p) for p in parts[1:]):
                    self._add(node, arg.value)
        self.generic_visit(node)


def check(path: Path) -> list[Finding]:
    relative = path.relative_to(ROOT).as_posix()
    checker = _Checker(relative)
    checker.visit(ast.parse(path.read_text(encoding="utf-8"), filename=relative))
    return checker.found


def test_no_test_reaches_inside_a_foley_tui_object() -> None:
    found = [f for path in sorted(TESTS.rglob("*.py")) for f in check(path)]
    assert not found, "private reads in tests:\n" + "\n".join(map(str, found))


def test_every_allowance_is_still_used() -> None:
    """An allowance nothing needs any more is removed, so the list stays short and true."""
    used: set[tuple[str, str]] = set()
    for key, (_reason, paths) in ALLOWED.items():
        for relative in paths:
            source = (ROOT / relative).read_text(encoding="utf-8")
            tree = ast.parse(source)
            if any(isinstance(n, ast.Attribute) and ast.unparse(n) == key for n in ast.walk(tree)):
                used.add((key, relative))
    unused = [(k, p) for k, (_r, paths) in ALLOWED.items() for p in paths if (k, p) not in used]
    assert not unused


@pytest.mark.parametrize(
    "source",
    [
        "def t(player):\n    player._voice = None\n",
        "def t(player):\n    return player._voice is None\n",
        "from foley_tui.audio import x\ndef t(m):\n    m.setattr(x.Engine, '_render', 1)\n",
        "def t(engine):\n    getattr(engine, '_ring')\n",
        "def t(p):\n    with p('foley_tui.store.file_state.FileState._parse'):\n        pass\n",
        "from foley_tui.audio.ring import _helper\n",
        "from foley_tui.audio.ring import OutputRing\n"
        "class R(OutputRing):\n    def f(self):\n        return self._buf\n",
        "def t(engine):\n    return super()._callback\n",
    ],
)
def test_the_check_finds_a_private_read(source: str) -> None:
    """Each form of reaching inside is caught."""
    checker = _Checker("probe")
    checker.visit(ast.parse(source))
    assert checker.found, source


@pytest.mark.parametrize(
    "source",
    [
        "x = 'player._voice'\n",  # a string is not an access
        "# player._voice\n",
        "class Fake:\n    def f(self):\n        return self._calls\n",  # a test's own double
        "def t(player):\n    return player.queued_frames\n",
        "def t(x):\n    return x.__class__\n",
    ],
)
def test_the_check_lets_public_access_through(source: str) -> None:
    checker = _Checker("probe")
    checker.visit(ast.parse(source))
    assert not checker.found, checker.found

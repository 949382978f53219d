"""No class in tui.app replaces a Textual method by accident (copying a selection crashed that way).

Every class of the app that derives from Textual is compared with the Textual classes it derives
from: names it defines (methods, class attributes) and private attributes it assigns must not be
Textual's, unless tui/app/textual_overrides.py lists them with a reason, they are a documented hook,
or they are message handlers (Textual calls the handler of each class in the MRO itself).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap
from importlib.metadata import version
from typing import Any, Iterator

import tui.app
from tui.app.textual_overrides import HOOKS, OVERRIDES, TEXTUAL_VERSION


def _is_textual(cls: type) -> bool:
    return cls.__module__.split(".")[0] == "textual"


def app_classes() -> Iterator[type]:
    """Every class defined in tui.app (nested ones too) that derives from a Textual class."""
    for info in pkgutil.walk_packages(tui.app.__path__, "tui.app."):
        module = importlib.import_module(info.name)
        todo = [c for c in vars(module).values() if inspect.isclass(c) and c.__module__ == module.__name__]
        while todo:
            cls = todo.pop()
            todo += [c for c in vars(cls).values() if inspect.isclass(c) and c.__module__ == module.__name__]
            if any(_is_textual(base) for base in cls.__mro__[1:]):
                yield cls


def textual_names(cls: type) -> dict[str, type]:
    """Names Textual's classes in ``cls``'s MRO define, and the attributes a fresh instance of the nearest has."""
    names: dict[str, type] = {}
    bases = [base for base in cls.__mro__ if _is_textual(base)]
    for base in bases:
        for name in vars(base):
            names.setdefault(name, base)
    try:
        instance = bases[0]()
    except Exception:  # noqa: BLE001 - a base that needs arguments: its class attributes still count
        return names
    for name in getattr(instance, "__dict__", {}):  # slotted classes (Message) have their slots in vars(base)
        names.setdefault(name, bases[0])
    return names


def own_names(cls: type) -> tuple[set[str], set[str], list[str]]:
    """(names the class body defines, attributes its methods assign on self, handlers that call super of
    themselves), read from the source of the class body only (nested classes are checked on their own)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0]
    assert isinstance(tree, ast.ClassDef)
    defined: set[str] = set()
    assigned: set[str] = set()
    super_handlers: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defined.add(node.name)
            if node.name.startswith(("on_", "_on_")) and any(
                    isinstance(call, ast.Attribute) and call.attr == node.name
                    and isinstance(call.value, ast.Call) and getattr(call.value.func, "id", "") == "super"
                    for call in ast.walk(node)):
                super_handlers.append(node.name)
            for sub in ast.walk(node):
                targets = sub.targets if isinstance(sub, ast.Assign) else \
                    [sub.target] if isinstance(sub, (ast.AnnAssign, ast.AugAssign)) else []
                for target in targets:
                    for item in target.elts if isinstance(target, ast.Tuple) else [target]:
                        if isinstance(item, ast.Attribute) and getattr(item.value, "id", "") == "self":
                            assigned.add(item.attr)
        elif isinstance(node, ast.Assign):
            defined.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            defined.add(node.target.id)  # a bare annotation (a mixin naming what it uses) creates nothing
    return defined, assigned, super_handlers


def collisions() -> tuple[list[str], set[str], list[str]]:
    """(unexplained collisions, the OVERRIDES keys that are real overrides, handlers calling super)."""
    problems: list[str] = []
    used: set[str] = set()
    handlers: list[str] = []
    for cls in app_classes():
        theirs = textual_names(cls)
        for ours in [c for c in cls.__mro__ if c.__module__.startswith("tui.app")]:
            defined, assigned, super_handlers = own_names(ours)
            handlers += [f"{ours.__name__}.{name}" for name in super_handlers  # a listed override (on_event,
                         if f"{ours.__name__}.{name}" not in OVERRIDES]  # Textual's dispatcher) calls super
            names = {n for n in defined if n in theirs} | {n for n in assigned if n.startswith("_") and n in theirs}
            for name in sorted(names):
                key = f"{ours.__name__}.{name}"
                if key in OVERRIDES:
                    used.add(key)
                elif name.startswith("__") or name in HOOKS or name.startswith(("on_", "_on_")):
                    continue
                else:
                    problems.append(f"{key} replaces Textual's {theirs[name].__name__}.{name}")
    return problems, used, handlers


def test_no_app_class_replaces_a_textual_name_by_accident() -> None:
    problems, _, _ = collisions()
    assert not problems, ("rename these, or list them in tui/app/textual_overrides.py with why:\n"
                          + "\n".join(problems))


def test_every_listed_override_still_overrides_textual() -> None:
    _, used, _ = collisions()
    assert set(OVERRIDES) - used == set()


def test_message_handlers_do_not_call_super() -> None:
    """Textual runs the handler of each class in the MRO; a super() call runs the base's handler twice."""
    _, _, handlers = collisions()
    assert handlers == []


def test_listed_method_overrides_take_textual_arguments() -> None:
    """An override must accept what Textual passes it (Reply._render(text, width) did not)."""
    by_name: dict[str, type] = {}  # a class of ours (a mixin too) -> an app class that has it in its MRO
    for cls in app_classes():
        for ours in cls.__mro__:
            if ours.__module__.startswith("tui.app"):
                by_name.setdefault(ours.__name__, cls)
    wrong: list[str] = []
    for key in OVERRIDES:
        owner, name = key.split(".")
        cls = by_name[owner]
        if not hasattr(cls, name):  # an attribute Textual's __init__ assigns (MainScreen._compositor): no signature
            continue
        ours = getattr(cls, name)
        base = next(b for b in cls.__mro__ if _is_textual(b) and name in vars(b))
        theirs = vars(base)[name]
        if callable(theirs) and callable(ours):
            mine = [p.name for p in inspect.signature(ours).parameters.values()]
            expected = [p.name for p in inspect.signature(theirs).parameters.values()]
            if len(mine) != len(expected):
                wrong.append(f"{key}{inspect.signature(ours)} vs {base.__name__}.{name}{inspect.signature(theirs)}")
    assert wrong == []


def test_overrides_were_checked_against_the_installed_textual() -> None:
    assert version("textual") == TEXTUAL_VERSION, (
        f"Textual is {version('textual')}: re-read every method tui/app/textual_overrides.py lists in that version, "
        "then update TEXTUAL_VERSION")


def test_the_check_finds_an_accidental_override() -> None:
    """The check itself can fail: a widget defining Textual's private _render is reported."""
    from textual.widget import Widget

    class Broken(Widget):
        def _render(self, text: str, width: int) -> Any:  # the shape of the original bug
            return text

    defined, _, _ = own_names(Broken)
    assert "_render" in defined and "_render" in textual_names(Broken)

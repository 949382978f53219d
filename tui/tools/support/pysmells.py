"""Three mistakes small models make in Python that pyflakes does not report.

- A test function defined inside another function (appended indented after the previous
  test): pytest never collects it, so the new test silently never runs.
- ``self.x(...)`` where the class only ever assigns ``x`` a dict, list, set, tuple, string or
  number literal: calling it raises TypeError.
- ``self.cache`` read in a method of a class that never defines ``cache``, nor do its base classes
  (those of the same module, and standard-library ones looked up by name): AttributeError. A class
  with a base that cannot be resolved, ``__getattr__`` or ``setattr`` is not judged.
- A class with the very code of another class of the module (a new class copied from the one it was
  told to resemble, nothing changed): it behaves the same, whatever its name says.
Messages carry no line numbers so the static check can tell old problems from new ones.
"""

from __future__ import annotations

import ast

from tui.safety.parsing import parse_python
from tui.symbols.model import is_test_file

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_LITERALS = (ast.Dict, ast.List, ast.Set, ast.Tuple, ast.DictComp, ast.ListComp, ast.SetComp, ast.JoinedStr)
_FACTORIES = {"dict", "list", "set", "tuple", "defaultdict", "OrderedDict", "Counter", "deque", "str", "int"}
_CONTAINERS = {"dict", "list", "set", "tuple", "defaultdict", "OrderedDict", "Counter", "deque"}
_KIND = {ast.Dict: "a dict", ast.DictComp: "a dict", ast.List: "a list", ast.ListComp: "a list", ast.Set: "a set",
         ast.SetComp: "a set", ast.Tuple: "a tuple", ast.JoinedStr: "a string"}


def _nested_tests(tree: ast.Module) -> list[tuple[int, str, str]]:
    found = []
    for outer in ast.walk(tree):
        if not isinstance(outer, _FUNCS):
            continue
        for inner in ast.walk(outer):
            if inner is not outer and isinstance(inner, _FUNCS) and inner.name.startswith("test"):
                found.append((inner.lineno, f"{inner.name} is defined inside {outer.name}, so pytest never collects "
                              "it; it must be at module level (dedent it, or add it with edit_symbol)", ""))
    return found


def _a(noun: str) -> str:
    return f"{'an' if noun[:1] in 'aeiouAEIOU' else 'a'} {noun}"


def _value_kind(value: ast.expr) -> str:
    """'a dict' ... for a value that can never be called; '' otherwise."""
    if isinstance(value, _LITERALS):
        return _KIND[type(value)]
    if isinstance(value, ast.Constant) and value.value is not None and not isinstance(value.value, bool):
        return _a(type(value.value).__name__)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in _FACTORIES:
        return _a(value.func.id)
    return ""


def _self_attr(target: ast.expr) -> str:
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        return target.attr
    return ""


def _assigned(cls: ast.ClassDef) -> dict[str, set[str]]:
    """For each attribute the class assigns (``self.x = ...`` anywhere, ``x = ...`` in its body): what kinds of
    value; '' marks a value that may be callable."""
    kinds: dict[str, set[str]] = {}
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign):
            pairs = [(t, node.value) for t in node.targets]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            pairs = [(node.target, node.value)]
        elif isinstance(node, ast.AugAssign):
            pairs = [(node.target, None)]
        else:
            continue
        for target, value in pairs:
            name = _self_attr(target) or (target.id if isinstance(target, ast.Name) and node in cls.body else "")
            if name:
                kinds.setdefault(name, set()).add(_value_kind(value) if value is not None else "")
    return kinds


def _attribute_calls(cls: ast.ClassDef) -> list[tuple[int, str, str]]:
    methods = {n.name for n in cls.body if isinstance(n, (*_FUNCS, ast.ClassDef))}
    kinds = _assigned(cls)
    found = []
    for node in ast.walk(cls):
        name = _self_attr(node.func) if isinstance(node, ast.Call) else ""
        seen = kinds.get(name, set())
        if name and seen and "" not in seen and name not in methods:
            kind = sorted(seen)[0]
            hint = " (index it, or call one of its methods)" if kind.split()[-1] in _CONTAINERS else ""
            found.append((node.lineno, f"self.{name} is {kind}, not a method: calling self.{name}(...) "
                          f"raises TypeError{hint}", ""))
    return found


_STDLIB_BASES = ("builtins", "collections", "collections.abc", "abc", "typing", "enum", "numbers", "io",
                 "threading", "dataclasses")


# Bases whose members' attributes come from a metaclass or a code generator, not from the class body.
_MAGIC_BASES = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "NamedTuple", "TypedDict", "Protocol", "Generic",
                "Exception", "BaseException", "type", "ABCMeta", "Structure", "Union"}


def _mangle(name: str, cls: str) -> str:
    return f"_{cls.lstrip('_')}{name}" if name.startswith("__") and not name.endswith("__") else name


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> dotted origin, for the module's top-level imports."""
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = (alias.name if alias.asname else
                                                                     alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _stdlib_names(dotted: str) -> set[str] | None:
    """The attributes of a standard-library class named ``collections.abc.MutableMapping`` (None: not one)."""
    import importlib

    module, _, name = dotted.rpartition(".")
    module = module or "builtins"
    if module not in _STDLIB_BASES:
        return None
    try:
        value = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None
    return set(dir(value)) if isinstance(value, type) else None


def _known(cls: ast.ClassDef, classes: dict[str, ast.ClassDef], imports: dict[str, str],
           seen: set[str]) -> set[str] | None:
    """Every attribute ``cls`` and its bases define (None when a base, ``__getattr__`` or ``setattr`` hides them)."""
    if cls.name in seen:
        return set()
    seen.add(cls.name)
    names = {_mangle(n, cls.name) for n in _assigned(cls)} | {"__class__", "__dict__", "__doc__", "__module__"}
    for node in cls.body:
        if isinstance(node, (*_FUNCS, ast.ClassDef)):
            names.add(_mangle(node.name, cls.name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):  # dataclass / NamedTuple fields
            names.add(node.target.id)
    if cls.name.endswith(("Mixin", "Base")) or cls.name.startswith("Base") or cls.keywords:
        return None  # a mixin or base class expects others to define what it reads
    for node in ast.walk(cls):
        if isinstance(node, _FUNCS) and node.name in ("__getattr__", "__getattribute__", "__setattr__"):
            return None
        if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] in ("setattr", "vars", "__setattr__"):
            return None
        if isinstance(node, ast.Raise) and node.exc is not None and "NotImplementedError" in ast.unparse(node.exc):
            return None  # abstract: subclasses complete it
        if isinstance(node, ast.Name) and node.id in ("__slots__", "__dict__"):
            return None
        for target in _targets(node):  # self.a, self.b = ..., for self.x in ..., with ... as self.x
            if isinstance(target, ast.Attribute) and _self_attr(target):
                names.add(_mangle(target.attr, cls.name))
    for base in cls.bases or [ast.Name("object")]:
        dotted = ast.unparse(base)
        if dotted.split(".")[-1] in _MAGIC_BASES:
            return None
        if dotted in classes:
            inherited = _known(classes[dotted], classes, imports, seen)
        else:
            head, _, rest = dotted.partition(".")
            origin = imports.get(head, head if head in dir(__builtins__) or head == "object" else "")
            inherited = _stdlib_names(f"{origin}.{rest}" if rest else origin) if origin else None
        if inherited is None:
            return None
        names |= inherited
    return names


def _targets(node: ast.AST) -> list[ast.expr]:
    """Every expression ``node`` assigns to, tuples and starred targets unpacked."""
    if isinstance(node, ast.Assign):
        roots = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.NamedExpr)):
        roots = [node.target]
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        roots = [node.optional_vars]
    else:
        return []
    out: list[ast.expr] = []
    while roots:
        target = roots.pop()
        if isinstance(target, (ast.Tuple, ast.List)):
            roots.extend(target.elts)
        elif isinstance(target, ast.Starred):
            roots.append(target.value)
        else:
            out.append(target)
    return out


def _unknown_attributes(tree: ast.Module) -> list[tuple[int, str, str]]:
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    imports = _imports(tree)
    found = []
    for cls in classes.values():
        known = _known(cls, classes, imports, set())
        if known is None:
            continue
        for method in (n for n in cls.body if isinstance(n, _FUNCS)):
            if not method.args.args or method.args.args[0].arg != "self" or any(
                    "staticmethod" in ast.unparse(d) or "classmethod" in ast.unparse(d) for d in method.decorator_list):
                continue
            for node in ast.walk(method):
                name = _self_attr(node) if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) else ""
                if name and _mangle(name, cls.name) not in known:
                    have = sorted(n for n in known if not n.startswith("_") or (n.startswith("__") and n.endswith("__")
                                  and n in ("__getitem__", "__setitem__", "__delitem__", "__contains__", "__len__",
                                            "__iter__")))
                    found.append((node.lineno, f"{method.name} reads self.{name}, which {cls.name} and its base "
                                  f"classes never define (AttributeError); they have: {', '.join(have[:18])}", ""))
                    break
    return found


def _code(body: list[ast.stmt]) -> list[ast.stmt]:
    """A body without its docstring (or any bare string statement)."""
    return [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                    and isinstance(s.value.value, str))]


def _method_copies(cls: ast.ClassDef) -> list[tuple[int, str, str]]:
    """A method whose code is another method's of the same class (dev set: first_key() written as a copy of
    popitem(), which removes the item it returns and raises on an empty cache)."""
    seen: dict[str, str] = {}
    found = []
    for node in cls.body:
        if not isinstance(node, _FUNCS) or len(node.body) < 2:
            continue  # one-line bodies (``return self._x``) repeat by nature
        key = ast.dump(ast.Module(body=_code(node.body), type_ignores=[]))
        if key in seen:
            found.append((node.lineno, f"{cls.name}.{node.name} has exactly the code of {cls.name}.{seen[key]}, so it "
                          f"does what {seen[key]} does; write the lines {node.name} needs for what it must do", ""))
        else:
            seen[key] = node.name
    return found


def _copies(tree: ast.Module) -> list[tuple[int, str, str]]:
    seen: dict[str, str] = {}
    found = [c for node in ast.walk(tree) if isinstance(node, ast.ClassDef) for c in _method_copies(node)]
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        body = _code(node.body)
        if not any(isinstance(s, _FUNCS) for s in body):
            continue  # an empty subclass or a plain record is not a copy of anything
        key = ast.dump(ast.Module(body=[*node.bases, *body], type_ignores=[]))
        if key in seen:
            found.append((node.lineno, f"{node.name} has exactly the code of {seen[key]}, so it behaves the same; "
                          f"change the lines that must differ for {node.name}", ""))
        else:
            seen[key] = node.name
    return found


def smells(tree: ast.Module, filename: str) -> list[tuple[int, str, str]]:
    """(line, message, '') for each nested test (in test files), each call of a non-callable attribute, each
    read of an attribute no class in the chain defines and each class that copies another one."""
    found = _nested_tests(tree) if is_test_file(filename) else []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            found.extend(_attribute_calls(node))
    return found + _unknown_attributes(tree) + _copies(tree)


def stray_method(rel: str, old: str, new: str) -> tuple[str, int] | None:
    """A module-level ``def name(self, ...)`` the edit adds while a class of the file has a method ``name``: a
    copy of that method pasted at the end of the module (seen on pluggy, outside the benchmark, after the model
    had added the method correctly). (``Class.name``, its line), or None. Test files are left to renamed_tests."""
    import ast

    from tui.symbols.model import is_test_file

    if not rel.endswith(".py") or is_test_file(rel):
        return None
    try:
        before, after = parse_python(old), parse_python(new)
    except (SyntaxError, ValueError):
        return None
    had = {n.name for n in before.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    methods = {m.name: (f"{c.name}.{m.name}", m.lineno) for c in after.body if isinstance(c, ast.ClassDef)
               for m in c.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in after.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name not in had \
                and node.args.args and node.args.args[0].arg == "self" and node.name in methods:
            return methods[node.name]
    return None


def _script_statements(tree: "ast.Module") -> list["ast.stmt"]:
    """Top-level statements that do work when the module is imported: bare calls (``print(x)``), loops and
    ``with`` blocks; the ``sys.path``/``warnings`` set-up a test module may have is not counted."""
    import ast

    found = []
    for node in tree.body:
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
            found.append(node)
        elif isinstance(node, ast.Expr) and isinstance(node.value, (ast.Call, ast.Await)):
            name = ast.unparse(node.value.func) if isinstance(node.value, ast.Call) else ""
            if not name.startswith(("sys.path.", "warnings.", "pytest.", "os.environ")):
                found.append(node)
    return found


def _defined(tree: "ast.Module") -> set[str]:
    import ast

    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def script_added(rel: str, old: str | None, new: str) -> tuple[int, str] | None:
    """(line, its text) of the first script statement an edit adds at the top level of a Python module that had
    none: the try-out code a small model writes into the module or its test file instead of running it
    (itsdangerous, outside the benchmark: a ``for`` loop of ``print`` calls appended to test_serializer.py).
    None for scripts (a file that already does work at import, setup.py, __main__.py) and for new files."""
    import ast

    name = rel.rsplit("/", 1)[-1]
    if not rel.endswith(".py") or old is None or name in ("setup.py", "__main__.py", "conftest.py", "noxfile.py"):
        return None
    try:
        before, after = parse_python(old), parse_python(new)
    except (SyntaxError, ValueError):
        return None
    if _script_statements(before) or not _defined(before) <= _defined(after):
        return None  # a script already, or rewritten as another file (that is write_file's keep-lines rule)
    added = _script_statements(after)
    if not added:
        return None
    line = new.splitlines()[added[0].lineno - 1].strip()
    return added[0].lineno, line[:80]

"""The package's layout rules (docs/architecture.md), checked on the source with ``ast``.

1. Imports run one way along the flow::

       core < splits < scores < metrics | posterior < decision < studies < report < integrations < cli

   A module may import from its own stage or an earlier one, never a later one, and
   never a sibling (``metrics`` and ``posterior``).  Only the command line (the outermost
   edge) may import ``integrations``: no library module does.
   Module-level and function-level imports count alike, and so does ``TYPE_CHECKING``.
   The one exception, as pandas' ``.plot`` accessor: inside a method named ``plot*``,
   ``figures``, ``report`` or ``_repr_html_`` a result may import ``bayescomp.report``.
2. No module over 500 lines, no function over 80 lines of code (its docstring excluded),
   unless listed with its reason in the allow-lists below.

Each violation is printed as ``path:line ...`` so it can be fixed where it is.
Run: ``python -m pytest -q tests/test_architecture.py``.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import pytest

import bayescomp

PACKAGE = Path(bayescomp.__file__).resolve().parent
ROOT = PACKAGE.parent

#: stage of each sub-package of ``bayescomp``: a module may import only from stages <= its own
STAGES: dict[str, int] = {
    "core": 0,
    "splits": 1,
    "scores": 2,
    "metrics": 3,
    "posterior": 3,
    "decision": 4,
    "studies": 5,
    "report": 6,
    "integrations": 7,
    "cli": 8,
}
#: stages that share a rank but must not import each other
SIBLINGS: frozenset[frozenset[str]] = frozenset(
    {
        frozenset({"metrics", "posterior"}),
    }
)
#: modules outside the rule: the package root re-exports every stage lazily
EXEMPT: frozenset[str] = frozenset({"bayescomp/__init__.py", "bayescomp/__main__.py"})
#: a function with one of these names may import ``bayescomp.report`` (a result's plot method)
PLOT_METHODS: frozenset[str] = frozenset({"report", "_repr_html_", "figures"})

MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80
#: path -> (lines, reason): a module allowed over MAX_MODULE_LINES, at most at that size
#: (a ratchet: it may shrink, never grow).  Every entry says why; the aim is none.
_REFLOWED = "over the limit only since `ruff format` reflowed it (issue 17); split it, then remove this entry"
MODULE_SIZE_ALLOWLIST: dict[str, tuple[int, str]] = {
    "bayescomp/integrations/mlflow.py": (561, _REFLOWED),
}
#: "path:function" -> (lines of code, reason), the same ratchet for functions
FUNCTION_SIZE_ALLOWLIST: dict[str, tuple[int, str]] = {
    "bayescomp/metrics/unlabeled.py:_one_class": (90, _REFLOWED),
    "bayescomp/studies/fitted.py:select_models": (85, _REFLOWED),
    "bayescomp/studies/learning.py:learning_curves": (99, _REFLOWED),
}


# ----------------------------------------------------------------------------- the walker
def stage_of(module: str) -> str | None:
    """The stage of a dotted ``bayescomp`` module name (None for the package root)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "bayescomp" else None


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


class _ImportCollector(ast.NodeVisitor):
    """Every ``bayescomp`` module a source file imports, with its line and enclosing function."""

    def __init__(self, module: str, is_package: bool, exports: dict[str, str]) -> None:
        self.module = module
        self.is_package = is_package
        self.exports = exports
        self.functions: list[str] = []
        self.root_aliases: set[str] = set()  # names bound to the package root (import bayescomp)
        self.found: list[tuple[int, str, str | None]] = []  # (line, target, innermost function)

    def _add(self, node: ast.AST, target: str) -> None:
        if target == "bayescomp" or target.startswith("bayescomp."):
            self.found.append((node.lineno, target, self.functions[-1] if self.functions else None))

    def _from_root(self, node: ast.AST, name: str) -> None:
        """``from bayescomp import name`` / ``bc.name``: a stage package or a lazy export."""
        if name in STAGES:
            self._add(node, f"bayescomp.{name}")
        elif name in self.exports:
            self._add(node, self.exports[name])

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.functions.append(node.name)
        self.generic_visit(node)
        self.functions.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name == "bayescomp" or (
                alias.asname is None and alias.name.startswith("bayescomp.")
            ):
                self.root_aliases.add(alias.asname or "bayescomp")
            if alias.name != "bayescomp":
                self._add(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        target = node.module or ""
        if node.level:
            target = _resolve_relative(self.module, self.is_package, node.level, node.module)
        if target == "bayescomp":
            for alias in node.names:
                self._from_root(node, alias.name)
        else:
            self._add(node, target)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.value, ast.Name) and node.value.id in self.root_aliases:
            self._from_root(node, node.attr)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        # importlib.import_module("bayescomp.x...") or f"bayescomp.x.{name}"
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name == "import_module" and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.JoinedStr) and arg.values:
                arg = arg.values[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                self._add(node, arg.value.rstrip("."))
        self.generic_visit(node)


def import_violations(
    source: str,
    module: str,
    path: str,
    *,
    is_package: bool = False,
    exports: dict[str, str] | None = None,
) -> list[str]:
    """One line per import in ``source`` (module ``module``) that breaks the one-way rule."""
    own = stage_of(module)
    if own not in STAGES:
        return [f"{path}:1 is in no stage; put it in one of {sorted(STAGES)}"]
    collector = _ImportCollector(
        module, is_package, bayescomp._EXPORTS if exports is None else exports
    )
    collector.visit(ast.parse(source, filename=path))
    out = []
    for line, target, function in collector.found:
        theirs = stage_of(target)
        if theirs is None or theirs == own:
            continue
        if theirs not in STAGES:
            out.append(f"{path}:{line} imports {target}, which is in no stage")
        elif frozenset({own, theirs}) in SIBLINGS:
            out.append(f"{path}:{line} imports sibling-stage {target} ({own} <-> {theirs})")
        elif STAGES[theirs] > STAGES[own]:
            if (
                theirs == "report"
                and function is not None
                and (function.startswith("plot") or function in PLOT_METHODS)
            ):
                continue  # a result's plot method, like pandas' .plot accessor
            out.append(f"{path}:{line} imports later-stage {target} ({own} -> {theirs})")
    return out


def _modules() -> list[Path]:
    return sorted(
        p for p in PACKAGE.rglob("*.py") if str(p.relative_to(ROOT).as_posix()) not in EXEMPT
    )


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def all_import_violations() -> list[str]:
    out = []
    for path in _modules():
        out += import_violations(
            path.read_text(encoding="utf-8"),
            module_name(path),
            _rel(path),
            is_package=path.name == "__init__.py",
        )
    return out


def code_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines of a function from ``def`` to its end, its docstring excluded."""
    n = node.end_lineno - node.lineno + 1
    body = node.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        n -= body[0].end_lineno - body[0].lineno + 1
    return n


def long_functions(source: str, path: str, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(source, filename=path)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            n = code_lines(node)
            allowed = FUNCTION_SIZE_ALLOWLIST.get(f"{path}:{node.name}", (limit, ""))[0]
            if n > max(limit, allowed):
                out.append(
                    f"{path}:{node.lineno} function {node.name} has {n} lines of code "
                    f"(limit {limit}, docstring excluded)"
                )
    return sorted(out, key=lambda s: int(s.split(":")[1].split()[0]))


# ------------------------------------------------------------------------------ the rules
#: (importing module, imported name) pairs allowed to cross a module boundary although the
#: name is private; keep it empty: make a shared helper public instead
PRIVATE_IMPORT_ALLOWLIST: frozenset[tuple[str, str]] = frozenset()


def private_imports(source: str, module: str, path: str, *, is_package: bool = False) -> list[str]:
    """``from bayescomp.x import _name`` in another module, and a private module
    (``bayescomp.metrics._metric``) imported from outside its own package."""
    found = []
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            target = (
                _resolve_relative(module, is_package, node.level, node.module)
                if node.level
                else node.module or ""
            )
            names = [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            target, names = "", [a.name for a in node.names]
        else:
            continue
        for name in names:
            full = f"{target}.{name}" if target else name
            if not full.startswith("bayescomp."):
                continue
            parts = full.split(".")
            for i, part in enumerate(parts[1:], start=1):
                owner = ".".join(parts[:i])
                private = part.startswith("_") and not part.startswith("__")
                inside = package == owner or package.startswith(owner + ".")
                if private and not inside and (module, full) not in PRIVATE_IMPORT_ALLOWLIST:
                    found.append(
                        f"{path}:{node.lineno} imports private {full} from outside "
                        f"{owner}; make it public (no leading underscore)"
                    )
                    break
    return found


def test_no_private_name_is_imported_across_modules():
    problems = []
    for path in _modules():
        mod = module_name(path)
        problems += private_imports(
            path.read_text(), mod, _rel(path), is_package=path.name == "__init__.py"
        )
    assert not problems, "private imports:\n  " + "\n  ".join(problems)


def test_private_import_walker():
    assert (
        private_imports(
            "from bayescomp.scores.table import _ranges", "bayescomp.scores.crossval", "x.py"
        )
        != []
    )
    assert (
        private_imports("from bayescomp.metrics import _fast", "bayescomp.metrics.blb", "x.py")
        == []
    )  # a private module of its own package
    assert (
        private_imports(
            "from bayescomp.metrics._metric import check_pos_label",
            "bayescomp.cli.interval",
            "x.py",
        )
        != []
    )
    assert (
        private_imports(
            "from bayescomp.posterior.differences import as_output as _out",
            "bayescomp.posterior.ttest",
            "x.py",
        )
        == []
    )


def test_imports_run_one_way():
    violations = all_import_violations()
    assert not violations, "imports against the flow:\n" + "\n".join(violations)


def test_size_no_module_over_500_lines():
    too_long = []
    for path in _modules():
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > max(MAX_MODULE_LINES, MODULE_SIZE_ALLOWLIST.get(_rel(path), (0, ""))[0]):
            too_long.append(f"{_rel(path)}:1 has {n} lines (limit {MAX_MODULE_LINES})")
    assert not too_long, "modules to split:\n" + "\n".join(too_long)


def test_size_no_function_over_80_lines_of_code():
    too_long = []
    for path in _modules():
        too_long += long_functions(path.read_text(encoding="utf-8"), _rel(path))
    assert not too_long, "functions to split:\n" + "\n".join(too_long)


def test_allow_lists_name_what_exists_at_its_size():
    """Each entry names a live module or function still over the limit, at exactly its size
    today: one that shrank is set to its size, one under the limit is removed."""
    for key, (n, _) in MODULE_SIZE_ALLOWLIST.items():
        lines = len((ROOT / key).read_text(encoding="utf-8").splitlines())
        assert MAX_MODULE_LINES < lines == n, f"{key}: set its entry to {lines} or remove it"
    for key, (n, _) in FUNCTION_SIZE_ALLOWLIST.items():
        path, name = key.split(":")
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        sizes = [
            code_lines(f)
            for f in ast.walk(tree)
            if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and f.name == name
        ]
        assert sizes and MAX_FUNCTION_LINES < max(sizes) == n, f"{key}: {sizes}; set or remove it"


#: ceilings that only go down (the concept ratchets): AST statements of the package (the
#: round's target is 12,800: statements, not lines, so formatting cannot meet it), result-type
#: probes in consumer packages, metric-name literals outside the metric record, modules that
#: write confusion-count formulas or emit Markdown, and ``# fmt: skip``.
# raised from 13,818 for bc.watch (+485) and the round's fixes; the request consolidation
# (one typed request, one step engine, one guarded result) paid for its own +~200 so far and
# is to bring it to <= 14,000
MAX_STATEMENTS = 14_213
MAX_RESULT_PROBES = 0
MAX_METRIC_LITERALS = 0
MAX_CONFUSION_MODULES = 0  # the formulas are core/metric.py COUNT_FORMULAS
MAX_MARKDOWN_MODULES = 1
MAX_FMT_SKIP = 2  # the two assertions of integrations/testing.py share one signature
#: parameters typed ``dict[str, Any]`` (in the package, in studies/), ``...Decision`` classes,
#: half-widths read back from a result (``np.ravel(x.rope)``), margins printed inline
MAX_DICT_ANY, MAX_DICT_ANY_STUDIES = 37, 5  # was 114 and 30; the aim (<= 40 and <= 5) met
MAX_DECISION_CLASSES = 2  # Decision (its guards' fields) and the cost-aware UtilityDecision
MAX_ROPE_READ_BACKS = 0
MAX_INLINE_MARGINS = 0
CONSUMERS = ("cli", "report", "integrations", "decision", "studies")
#: the parameters of the two selection doors, and the exported names
MAX_SELECT_PARAMETERS, MAX_SELECT_MODELS_PARAMETERS, MAX_EXPORTS = 12, 15, 61  # + watch


def _trees() -> dict[str, ast.Module]:
    return {_rel(p): ast.parse(p.read_text(encoding="utf-8")) for p in PACKAGE.rglob("*.py")}


def result_probes(tree: ast.Module) -> list[int]:
    """Lines of ``isinstance(x, SomeResult | ...Posterior | ...Guarded | ...)`` calls."""
    import re

    pattern = re.compile(r"(Result|Guarded|Posterior|Plan|Ranking)\b")
    return [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and getattr(n.func, "id", "") == "isinstance"
        and len(n.args) == 2
        and pattern.search(ast.unparse(n.args[1]))
    ]


def metric_literals(tree: ast.Module, names: set[str]) -> list[int]:
    """Lines of dicts, sets, tuples and lists (at any level) naming three or more metrics."""
    out = []
    for n in ast.walk(tree):
        elts = n.keys if isinstance(n, ast.Dict) else getattr(n, "elts", None)
        if isinstance(n, ast.Dict | ast.Set | ast.Tuple | ast.List) and elts:
            hits = [k.value for k in elts if isinstance(k, ast.Constant) and k.value in names]
            if len(hits) >= 3:
                out.append(n.lineno)
    return out


def writes_confusion_formulas(tree: ast.Module) -> bool:
    """A division over two or more of ``tp``, ``fp``, ``fn``, ``tn`` (names or attributes)."""
    for n in ast.walk(tree):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div):
            words = {getattr(x, "id", getattr(x, "attr", "")).lower() for x in ast.walk(n)}
            if len(words & {"tp", "fp", "fn", "tn"}) >= 2:
                return True
    return False


def emits_markdown(tree: ast.Module) -> bool:
    """A string literal that is Markdown structure: a table rule, a heading, ``<details>``."""
    return any(
        isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and ("|---" in n.value or n.value.startswith(("## ", "### ")) or "<details>" in n.value)
        for n in ast.walk(tree)
    )


def dict_any_parameters(tree: ast.Module) -> list[str]:
    """Parameters annotated ``dict[str, Any]`` or ``Mapping[str, Any]`` (optional or not):
    entries where a typed object belongs."""
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef):
            params = [*n.args.posonlyargs, *n.args.args, *n.args.kwonlyargs]
            out += [
                f"{n.name}:{a.arg}"
                for a in params
                if a.annotation is not None
                and (
                    "dict[str, Any]" in ast.unparse(a.annotation)
                    or "Mapping[str, Any]" in ast.unparse(a.annotation)
                )
            ]
    return out


def decision_classes(tree: ast.Module) -> list[str]:
    """Classes that are a kind of decision (``...Decision``)."""
    return [
        n.name
        for n in ast.walk(tree)
        if isinstance(n, ast.ClassDef) and n.name.endswith("Decision")
    ]


def rope_read_backs(tree: ast.Module) -> list[int]:
    """Lines of ``np.ravel(x.rope)``: a half-width read back up from a result."""
    return [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and getattr(n.func, "attr", getattr(n.func, "id", "")) == "ravel"
        and any(
            isinstance(x, ast.Attribute) and x.attr == "rope" for a in n.args for x in ast.walk(a)
        )
    ]


def inline_margins(tree: ast.Module) -> list[int]:
    """Lines of f-strings that print ``±`` before a value: a margin not printed by its label."""
    return [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.JoinedStr)
        for a, b in itertools.pairwise(n.values)
        if isinstance(a, ast.Constant)
        and str(a.value).endswith("±")
        and isinstance(b, ast.FormattedValue)
    ]


def test_concept_ratchets():
    from bayescomp.core.metric import ALIASES, METRICS

    trees = _trees()
    names = {n for n, m in METRICS.items() if m.needs} | set(ALIASES)
    statements = sum(isinstance(n, ast.stmt) for t in trees.values() for n in ast.walk(t))
    probes = {
        f"{path}:{line}"
        for path, t in trees.items()
        if path.split("/")[1] in CONSUMERS
        for line in result_probes(t)
    }
    literals = {
        f"{path}:{line}"
        for path, t in trees.items()
        if path != "bayescomp/core/metric.py"
        for line in metric_literals(t, names)
    }
    confusion = sorted(p for p, t in trees.items() if writes_confusion_formulas(t))
    markdown = sorted(p for p, t in trees.items() if emits_markdown(t))
    skips = sum(p.read_text(encoding="utf-8").count("fmt: skip") for p in PACKAGE.rglob("*.py"))
    assert statements <= MAX_STATEMENTS, f"{statements} AST statements (ceiling {MAX_STATEMENTS})"
    assert len(probes) <= MAX_RESULT_PROBES, f"result-type probes: {sorted(probes)}"
    assert len(literals) <= MAX_METRIC_LITERALS, f"ask core/metric.py: {sorted(literals)}"
    assert len(confusion) <= MAX_CONFUSION_MODULES, f"confusion formulas in {confusion}"
    assert len(markdown) <= MAX_MARKDOWN_MODULES, f"Markdown is written by {markdown}"
    assert skips <= MAX_FMT_SKIP, f"{skips} '# fmt: skip'"
    typed = {p: dict_any_parameters(t) for p, t in trees.items()}
    untyped = sum(map(len, typed.values()))
    in_studies = sum(len(v) for p, v in typed.items() if p.startswith("bayescomp/studies/"))
    assert untyped <= MAX_DICT_ANY, f"{untyped} parameters typed dict[str, Any]"
    assert in_studies <= MAX_DICT_ANY_STUDIES, f"{in_studies} dict[str, Any] in studies/"
    decisions = sorted(c for t in trees.values() for c in decision_classes(t))
    assert len(decisions) <= MAX_DECISION_CLASSES, f"Decision classes: {decisions}"
    reads = [f"{p}:{n}" for p, t in trees.items() for n in rope_read_backs(t)]
    assert len(reads) <= MAX_ROPE_READ_BACKS, f"read the result's half_width: {reads}"
    inline = [
        f"{p}:{n}"
        for p, t in trees.items()
        if p != "bayescomp/core/margins.py"  # where the label is written
        for n in inline_margins(t)
    ]
    inline += [_rel(p) for p in PACKAGE.rglob("*.j2") if "±{{" in p.read_text(encoding="utf-8")]
    assert len(inline) <= MAX_INLINE_MARGINS, f"print margins by Margin.label: {inline}"


def test_ratchet_detectors_catch_their_shapes():
    tree = ast.parse(
        "def f(r):\n    isinstance(r, HoldoutResult)\n    x = ('accuracy', 'f1', 'rmse')\n"
        "    p = tp / (tp + fp)\n    return '| a |\\n|---|'"
    )
    assert result_probes(tree) == [2]
    assert metric_literals(tree, {"accuracy", "f1", "rmse"}) == [3]
    assert writes_confusion_formulas(tree) and emits_markdown(tree)
    shapes = ast.parse(
        "class GuardedDecision: ...\n"
        "def g(a: dict[str, Any], *, b: dict[str, Any] | None = None):\n"
        "    return np.ravel(res.rope)[0], f'ROPE ±{r:g}', f'±5'\n"
    )
    assert decision_classes(shapes) == ["GuardedDecision"]
    assert dict_any_parameters(shapes) == ["g:a", "g:b"]
    assert rope_read_backs(shapes) == [3] and inline_margins(shapes) == [3]
    assert not writes_confusion_formulas(ast.parse("x = a / b"))


def _classes() -> dict[str, tuple[list[str], set[str], str]]:
    """Every class of the package: its base names, its own method names and where it is."""
    out = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases]
                methods = {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
                out[node.name] = (bases, methods, f"{_rel(path)}:{node.lineno}")
    return out


def posterior_base_violations(classes: dict[str, tuple[list[str], set[str], str]]) -> list[str]:
    """Classes with a ``decision()`` that do not inherit the posterior base."""
    family = {"PosteriorBase"}
    while True:
        more = {n for n, (bases, _, _) in classes.items() if family & set(bases)} - family
        if not more:
            break
        family |= more
    return [
        f"{where} {name} has decision() but does not inherit PosteriorBase"
        for name, (_, methods, where) in classes.items()
        if "decision" in methods and name not in family and "Protocol" not in classes[name][0]
    ]


def test_every_posterior_inherits_the_posterior_base():
    violations = posterior_base_violations(_classes())
    assert not violations, "\n".join(violations)
    fake = {"Base": (["PosteriorBase"], set(), "a:1"), "New": (["object"], {"decision"}, "b:2")}
    assert posterior_base_violations(fake) == [
        "b:2 New has decision() but does not inherit PosteriorBase"
    ]


def metric_table_violations(source: str, path: str, names: set[str]) -> list[str]:
    """Module-level dicts and sets keyed by three or more metric names: a second table of
    metric knowledge (the one is ``core/metric.py``)."""
    out = []
    for node in ast.parse(source).body:
        value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
        if isinstance(value, ast.Call) and getattr(value.func, "id", "") in ("frozenset", "set"):
            value = value.args[0] if value.args else None
        keys = value.keys if isinstance(value, ast.Dict) else getattr(value, "elts", None)
        if not isinstance(value, ast.Dict | ast.Set) or keys is None:
            continue
        hits = [k.value for k in keys if isinstance(k, ast.Constant) and k.value in names]
        if len(hits) >= 3:
            out.append(f"{path}:{node.lineno} is a metric table ({', '.join(hits[:4])}, ...)")
    return out


def test_one_metric_table():
    from bayescomp.core.metric import ALIASES, METRICS

    # metrics computed from predictions (a timing is also a bookkeeping column)
    names = {n for n, m in METRICS.items() if m.needs} | set(ALIASES)
    out = []
    for path in _modules():
        if _rel(path) != "bayescomp/core/metric.py":
            out += metric_table_violations(path.read_text(encoding="utf-8"), _rel(path), names)
    assert not out, "ask bayescomp.core.metric instead:\n" + "\n".join(out)
    fake = 'X = {"accuracy": 1, "f1": 2, "rmse": 3}\nY = frozenset({"auc", "mse", "r2"})'
    assert len(metric_table_violations(fake, "m.py", names)) == 2


def test_selection_doors_and_exports_stay_small():
    import inspect

    n_select = len(inspect.signature(bayescomp.select).parameters)
    n_fit = [
        p
        for p in inspect.signature(bayescomp.select_models).parameters.values()
        if p.kind is not p.VAR_KEYWORD
    ]
    assert n_select <= MAX_SELECT_PARAMETERS, n_select
    assert len(n_fit) <= MAX_SELECT_MODELS_PARAMETERS, [p.name for p in n_fit]
    names = [n for n in bayescomp.__all__ if not n.startswith("__")]
    assert len(names) <= MAX_EXPORTS, len(names)


# ------------------------------------------------------------------ the walker is correct
EXPORTS = {"select": "bayescomp.studies.select", "decide": "bayescomp.core.rule"}


def _check(source: str, module: str = "bayescomp.metrics.thing", **kw) -> list[str]:
    return import_violations(source, module, "x.py", exports=EXPORTS, **kw)


@pytest.mark.parametrize(
    "source",
    [
        "from bayescomp.studies.select import select",
        "import bayescomp.report.plots",
        "import bayescomp.decision.ranking as r",
        "from bayescomp.studies import store",
        "from bayescomp import studies",
        "from bayescomp import select",
        "import bayescomp as bc\nbc.select",
        "from ..studies.select import select",
        "from ..report import plots",
        "def fit():\n    from bayescomp.report.plots import x",
        "import importlib\nimportlib.import_module('bayescomp.report.plots')",
        "import importlib\nname = 'x'\nimportlib.import_module(f'bayescomp.cli.{name}')",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bayescomp.studies import Selection",
    ],
)
def test_walker_catches_a_later_stage_import(source):
    (violation,) = _check(source)
    assert violation.startswith("x.py:") and "imports later-stage bayescomp." in violation


@pytest.mark.parametrize(
    "source",
    [
        "from bayescomp.core.rule import decide",
        "from bayescomp.scores.table import Scores",
        "from bayescomp.metrics._metric import resolve_metric",
        "from . import _metric",
        "from .bootstrap import MetricInterval",
        "from .. import core",
        "from bayescomp import decide",
        "import bayescomp as bc\nbc.decide",
        "import numpy as np\nimport pandas",
        "class R:\n    def plot(self):\n        from bayescomp.report.plots import p",
        "class R:\n    def plot_convergence(self):\n        import bayescomp.report.metric_plots",
        "class R:\n    def report(self, d):\n        from bayescomp.report.html import w",
        "class R:\n    def _repr_html_(self):\n        from ..report import html",
    ],
)
def test_walker_allows_earlier_stages_and_plot_methods(source):
    assert _check(source) == []


def test_walker_reports_the_line_and_siblings():
    src = "import numpy\n\nfrom bayescomp.posterior.ttest import correlated_ttest\n"
    assert _check(src) == [
        "x.py:3 imports sibling-stage bayescomp.posterior.ttest (metrics <-> posterior)"
    ]
    assert _check("from bayescomp.metrics import blb", module="bayescomp.posterior.x") != []
    # the command line (outermost) reaches integrations; integrations never reach the CLI
    assert _check("from bayescomp.integrations import mlflow", module="bayescomp.cli.x") == []
    assert _check("from bayescomp.cli import main", module="bayescomp.integrations.x") != []
    assert _check("from bayescomp.integrations import mlflow", module="bayescomp.studies.x") != []


def test_walker_plot_exception_is_only_for_report():
    src = "class R:\n    def plot(self):\n        from bayescomp.studies.select import select"
    assert _check(src) == [
        "x.py:3 imports later-stage bayescomp.studies.select (metrics -> studies)"
    ]


def test_walker_resolves_relative_imports_of_a_package():
    # in bayescomp/metrics/__init__.py, "from . import x" is bayescomp.metrics.x
    assert _check("from . import blb", module="bayescomp.metrics", is_package=True) == []
    assert _check("from ..report import plots", module="bayescomp.metrics", is_package=True) != []


def test_walker_flags_a_module_in_no_stage():
    assert _check("", module="bayescomp.helpers") == [
        f"x.py:1 is in no stage; put it in one of {sorted(STAGES)}"
    ]


def test_function_size_excludes_the_docstring():
    body = "\n".join(f"    x{i} = {i}" for i in range(79))
    doc = '    """' + "\n" * 30 + '    """\n'
    assert long_functions(f"def f():\n{doc}{body}\n", "x.py") == []  # 80 lines of code
    assert long_functions(f"def f():\n{doc}{body}\n    y = 1\n", "x.py") == [
        "x.py:1 function f has 81 lines of code (limit 80, docstring excluded)"
    ]

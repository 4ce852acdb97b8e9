"""Dependency direction, default-deny, by walking every module's imports (function-level ones included).

Data flows scenes -> perception -> planner -> skills -> scenes. The rule, in two constants:

- a ``planner`` module may import ``scenes``, ``perception`` or ``skills`` only if it is (inside) one of
  :data:`COMPOSITION_ROOTS`: the places that wire the packages together;
- ``scenes``, ``perception`` and ``skills`` may import from ``planner`` only the contract leaves in
  :data:`PLANNER_LEAVES`, and the leaves themselves import nothing else of the project.

Between the other three packages: scenes import neither perception nor skills; perception and skills do
not import each other. docs/architecture.md shows the same rule as a table.

``checker`` (the independent success checker) shares no code with the planner's goal logic: it may import only
``scenes`` (:data:`CHECKER_MAY_IMPORT`, the world it replays) besides the standard library, and only the
composition roots may import it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("planner", "perception", "skills", "scenes", "checker")

COMPOSITION_ROOTS = ("planner.api", "planner.cli", "planner.bench", "planner.agents")
"""Planner modules (or packages) that may import scenes, perception and skills."""

PLANNER_LEAVES = ("planner.schemas", "planner.errors", "planner._optional", "planner.paths", "planner.goals",
                  "planner.terminal")
"""The planner modules that scenes, perception and skills may import: contracts (and the task model), errors,
extras, data paths, the one escaping printer; ``planner.schemas.thor_rules`` holds AI2-THOR's rule tables (one copy:
the world enforces them, the planner plans by them)."""

CHECKER_MAY_IMPORT = ("scenes",)
"""The project packages the checker may import (nothing of planner, skills or perception)."""
CHECKER_THIRD_PARTY = ("pydantic",)
"""Third-party packages the checker's own files may import."""

SIBLINGS_FORBIDDEN: dict[str, tuple[str, ...]] = {
    "scenes": ("perception", "skills"),
    "perception": ("skills",),
    "skills": ("perception",),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path, module: str) -> list[str]:
    """Every module a file imports, at any depth; ``from a import b`` yields ``a`` and ``a.b``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    pkg = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.append(target)
            out += [f"{target}.{a.name}" for a in node.names]
    return out


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _project_modules() -> list[tuple[str, Path]]:
    return [(_module_name(p), p) for pkg in PACKAGES for p in sorted((REPO / pkg).rglob("*.py"))]


def _is_module(name: str, known: set[str]) -> bool:
    # ``from planner.schemas import Plan`` also yields ``planner.schemas.Plan``, which is not a module
    return name in known


def violations() -> list[str]:
    """Every import that breaks the rule, as ``importer imports imported (why)``."""
    mods = _project_modules()
    known = {m for m, _ in mods}
    bad: list[str] = []
    for mod, path in mods:
        top = mod.split(".")[0]
        for imp in _imports(path, mod):
            itop = imp.split(".")[0]
            if itop not in PACKAGES or itop == top and top != "planner":
                continue
            if not _is_module(imp, known):
                continue
            if top == "checker":
                if itop not in CHECKER_MAY_IMPORT:
                    bad.append(f"{mod} imports {imp} (checker may import only {', '.join(CHECKER_MAY_IMPORT)})")
                continue
            if itop == "checker":
                if not (top == "planner" and any(_within(mod, root) for root in COMPOSITION_ROOTS)):
                    bad.append(f"{mod} imports {imp} (only COMPOSITION_ROOTS may import checker)")
                continue
            if top == "planner":
                if any(_within(mod, leaf) for leaf in PLANNER_LEAVES) and _within(imp, "planner"):
                    if not any(_within(imp, leaf) for leaf in PLANNER_LEAVES):
                        bad.append(f"{mod} imports {imp} (a contract leaf imports only other leaves)")
                elif itop != "planner" and not any(_within(mod, root) for root in COMPOSITION_ROOTS):
                    bad.append(f"{mod} imports {imp} (only COMPOSITION_ROOTS may import {itop})")
            elif itop == "planner":
                if not any(_within(imp, leaf) for leaf in PLANNER_LEAVES):
                    bad.append(f"{mod} imports {imp} (only PLANNER_LEAVES may be imported from planner)")
            elif itop in SIBLINGS_FORBIDDEN.get(top, ()):
                bad.append(f"{mod} imports {imp} ({top} must not import {itop})")
    return bad


def test_constants_stay_small_and_real() -> None:
    known = {m for m, _ in _project_modules()}
    assert len(COMPOSITION_ROOTS) <= 6 and len(PLANNER_LEAVES) <= 6
    assert all(name in known for name in COMPOSITION_ROOTS + PLANNER_LEAVES)


def test_dependency_direction() -> None:
    bad = violations()
    assert not bad, "\n".join(bad)


def test_the_walker_sees_function_level_and_relative_imports(tmp_path: Path) -> None:
    # The rule is only as good as the walker: a lazy import inside a function, relative or absolute, counts.
    src = (
        "from __future__ import annotations\n"
        "def f():\n"
        "    from ..skills import executor\n"
        "    import scenes.base\n"
    )
    path = REPO / "planner" / "_probe_layering.py"
    try:
        path.write_text(src)
        names = _imports(path, "planner._probe_layering")
        assert "planner.skills" not in names  # ``..`` from planner/ leaves the package: resolved, not guessed
        assert "scenes.base" in names
    finally:
        path.unlink()


def test_a_planner_core_module_importing_scenes_is_caught(tmp_path: Path) -> None:
    path = REPO / "planner" / "_probe_core.py"
    try:
        path.write_text("def f():\n    import scenes.base\n")
        assert any(v.startswith("planner._probe_core imports scenes.base") for v in violations())
    finally:
        path.unlink()


def test_checker_source_imports_only_the_stdlib_and_scenes() -> None:
    # read from the checker's own files (scenes itself imports planner's contract leaves at run time: allowed)
    allowed = set(sys.stdlib_module_names) | {"checker", *CHECKER_MAY_IMPORT, *CHECKER_THIRD_PARTY}
    files = sorted((REPO / "checker").rglob("*.py"))
    assert files
    bad = [f"{_module_name(p)} imports {imp}" for p in files for imp in _imports(p, _module_name(p))
           if imp.split(".")[0] not in allowed or imp.split(".")[0] in ("planner", "skills", "perception")]
    assert not bad, "\n".join(bad)


def test_a_checker_module_importing_planner_goals_is_caught() -> None:
    path = REPO / "checker" / "_probe_goals.py"
    try:
        path.write_text("def f():\n    from planner.goals import check_all\n")
        assert any(v.startswith("checker._probe_goals imports planner.goals") for v in violations())
    finally:
        path.unlink()


def test_importing_and_judging_with_the_checker_loads_no_planner_skills_or_perception() -> None:
    code = (
        "import sys, checker\n"
        "h = checker.History.of([[{'objectId': 'Apple|1', 'objectType': 'Apple'}]])\n"
        "checker.judge({'kind': 'coat', 'name': 'cut apple'}, h)\n"
        "checker.judge({'kind': 'alfred', 'name': 'look_at_obj_in_light', 'obj': 'Apple'}, h)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'planner', 'skills', 'perception', 'scenes'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_top_level_imports_are_cheap() -> None:
    heavy = ["ai2thor", "scienceworld", "torch", "cv2", "llama_cpp", "langchain_openai", "langchain_ollama",
             "matplotlib", "sentence_transformers"]
    code = (
        "import sys, planner, scenes, perception, skills, planner.cli\n"
        "planner.cli.build_parser()\n"
        f"print([m for m in {heavy!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr

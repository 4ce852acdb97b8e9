"""Dependency direction, default-deny, by walking every module's imports (function-level ones included).

Data flows scenes -> perception -> planner -> skills -> scenes. The rule, in two constants:

- a ``planner`` module may import ``scenes``, ``perception`` or ``skills`` only if it is (inside) one of
  :data:`COMPOSITION_ROOTS`: the places that wire the packages together;
- ``scenes``, ``perception`` and ``skills`` may import from ``planner`` only the contract leaves in
  :data:`PLANNER_LEAVES`, and the leaves themselves import nothing else of the project.

Between the other three packages: scenes import neither perception nor skills; perception and skills do
not import each other. docs/architecture.md shows the same rule as a table.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("planner", "perception", "skills", "scenes")

COMPOSITION_ROOTS = ("planner.api", "planner.cli", "planner.bench", "planner.agents")
"""Planner modules (or packages) that may import scenes, perception and skills."""

PLANNER_LEAVES = ("planner.schemas", "planner.errors", "planner._optional", "planner.paths", "planner.goals")
"""The planner modules that scenes, perception and skills may import: contracts (and the task model), errors,
extras, data paths."""

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

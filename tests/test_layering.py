"""Dependency direction (STYLE.md §3), enforced by walking every module's imports."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# module prefix -> project modules it must not import (at any depth, including lazily)
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "planner.schemas": ("planner.", "scenes", "perception", "skills"),
    "planner.errors": ("planner.", "scenes", "perception", "skills"),
    "scenes": ("perception", "skills", "planner.knowledge", "planner.llm", "planner.knowledge.cost"),
    "perception": ("skills", "planner.llm", "planner.object_selector", "planner.state_selector"),
    "skills": ("perception", "planner.llm", "planner.object_selector", "planner.state_selector"),
    "planner.object_selector": ("scenes", "perception", "skills"),
    "planner.state_selector": ("scenes", "perception", "skills"),
    "planner.two_stage": ("scenes", "perception", "skills"),
    "planner.baseline": ("scenes", "perception", "skills"),
    "planner.llm": ("scenes", "perception", "skills"),
}
ALLOWED = {"planner.schemas", "planner.errors", "planner._optional", "planner.paths"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path, module: str) -> list[str]:
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


def _matches(name: str, forbidden: str) -> bool:
    # "planner." forbids every planner submodule; "scenes" forbids the package and its submodules
    if forbidden.endswith("."):
        return name.startswith(forbidden)
    return name == forbidden or name.startswith(forbidden + ".")


def test_dependency_direction() -> None:
    bad: list[str] = []
    for pkg in ("planner", "perception", "skills", "scenes"):
        for path in sorted((REPO / pkg).rglob("*.py")):
            mod = _module_name(path)
            rules = [v for k, v in FORBIDDEN.items() if mod == k or mod.startswith(k + ".")]
            for imp in _imports(path, mod):
                if imp in ALLOWED:
                    continue
                for forbidden in (f for r in rules for f in r):
                    if _matches(imp, forbidden) and not _matches(mod, forbidden):
                        bad.append(f"{mod} imports {imp} (forbidden: {forbidden})")
    assert not bad, "\n".join(bad)


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

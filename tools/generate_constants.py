"""Write out the engine's generated constants: every offset and size of the declared int64 layouts, and the
codes' aliases, as plain assignments in ``bergen_sim/engine/layout.py``, ``bergen_sim/engine/worlds.py`` and the search modules
that declare layouts of their own (``inference``, ``ismcts``, ``luck_controls``).

Run it after changing a declaration (``python tools/generate_constants.py``); ``tests/engine/test_layout.py`` fails
until the blocks agree with the declarations.
"""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "bergen_sim"


def blocks() -> dict[Path, str]:
    """Each file with a generated block, and the block it should hold."""
    from bergen_sim.engine import layout, worlds
    from bergen_sim.search import inference, ismcts, luck_controls

    return {
        PACKAGE / "engine" / "layout.py": layout.generated_constants(layout.VECTORS, layout.CODE_ALIASES),
        PACKAGE / "engine" / "worlds.py": layout.generated_constants([worlds.WORLD_SPEC]),
        PACKAGE / "search" / "inference.py": layout.generated_constants(inference.LAYOUTS),
        PACKAGE / "search" / "ismcts.py": layout.generated_constants(ismcts.LAYOUTS),
        PACKAGE / "search" / "luck_controls.py": layout.generated_constants(luck_controls.LAYOUTS),
    }


def replace_block(source: str, block: str) -> str:
    from bergen_sim.engine.layout import GENERATED_END, GENERATED_START

    # whole lines only: the markers' own definitions in layout.py quote them mid-line
    pattern = re.compile("^" + re.escape(GENERATED_START) + "$.*?^" + re.escape(GENERATED_END) + "$", re.S | re.M)
    if not pattern.search(source):
        raise SystemExit("no generated block to replace (its start and end lines are missing)")
    return pattern.sub(lambda _: block, source, count=1)


if __name__ == "__main__":
    for path, block in blocks().items():
        path.write_text(replace_block(path.read_text(), block))
        print(f"wrote the constants of {path.relative_to(PACKAGE.parent)}")

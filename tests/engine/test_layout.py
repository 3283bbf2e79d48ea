"""The engine's constants are written out in the source and agree with the layouts they name."""

from __future__ import annotations

import inspect

import pytest

from bergen_sim.engine import layout, worlds
from bergen_sim.search import inference, ismcts, luck_controls

#: the search modules that declare int64 layouts of their own (rows of evidence, tree nodes, deciders)
SEARCH_LAYOUTS = (inference, ismcts, luck_controls)
BLOCKS = [
    (layout, layout.generated_constants(layout.VECTORS, layout.CODE_ALIASES)),
    (worlds, layout.generated_constants([worlds.WORLD_SPEC])),
    *((module, layout.generated_constants(module.LAYOUTS)) for module in SEARCH_LAYOUTS),
]


@pytest.mark.parametrize(("module", "block"), BLOCKS, ids=lambda x: getattr(x, "__name__", ""))
def test_generated_block_matches_the_declarations(module, block) -> None:
    assert block in inspect.getsource(module), (
        f"the constants written in {module.__name__} differ from its declarations: run tools/generate_constants.py"
    )


def test_every_offset_is_a_plain_module_attribute() -> None:
    for vector in layout.VECTORS:
        for name, value in vector.constants().items():
            assert getattr(layout, name) == value
    for name, value in worlds.WORLD_SPEC.constants().items():
        assert getattr(worlds, name) == value
    for module in SEARCH_LAYOUTS:
        for vector in module.LAYOUTS:
            for name, value in vector.constants().items():
                assert getattr(module, name) == value
    assert layout.EV_PLAY is layout.Event.PLAY and layout.END_L is layout.End.L


def test_a_changed_declaration_is_caught() -> None:
    """The check can fail: a layout with one more field gives a block the source does not hold."""
    grown = layout.Vector("V", [*layout.VIEW.fields, layout.Field("spare", meaning="a field nobody declared")])
    block = layout.generated_constants([*layout.VECTORS[:3], grown, *layout.VECTORS[4:]], layout.CODE_ALIASES)
    assert block not in inspect.getsource(layout)

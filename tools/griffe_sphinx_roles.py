"""Griffe extension for the docs site: Sphinx roles in docstrings (:func:`simulate`) read as code (`simulate`).

The package's docstrings name other objects with Sphinx roles, which Markdown would show as literal text; the site
shows the name as code, and ``~a.b.C`` as ``C``, as Sphinx does. mkdocs.yml loads it for mkdocstrings.
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension, Object

ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|data|attr|exc|obj|const):`(~?)([^`]+)`")


def _code(match: re.Match) -> str:
    short, target = match.groups()
    return f"`{target.rsplit('.', 1)[-1] if short else target}`"


class SphinxRoles(Extension):
    def on_instance(self, *, obj: Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(_code, obj.docstring.value)

"""The jinja2 environment of the report pages: templates are package data, autoescape is on.

Values are escaped as :func:`html.escape` does (``&quot;`` and ``&#x27;`` for quotes), the
entities the pages have always carried, so a page renders to the same bytes and a bundle
keeps its digest. Sections rendered by one template reach another as :class:`Markup`.
"""

from __future__ import annotations

import html
from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

__all__ = ["Markup", "render"]


def _escaped(value: Any) -> Any:
    """Every ``{{ value }}`` goes through here before autoescape, which then leaves it alone."""
    if hasattr(value, "__html__"):
        return value
    return Markup(html.escape(str(value)))


@cache
def environment() -> Environment:
    return Environment(
        loader=PackageLoader("pipeline.package.report", "templates"),
        autoescape=True,
        finalize=_escaped,
        undefined=StrictUndefined,
    )


def render(template: str, **context: Any) -> str:
    """``templates/<template>`` rendered with ``context``; no trailing newline is added."""
    return environment().get_template(template).render(**context)

"""Rendering a report."""

from . import colors
from . import layout
from . import paging
from . import sections
from . import typesetter
from . import tables
from .log import logger


def render(report, width):
    # Lay the sections out, then draw them.
    pages = layout.paginate(report.sections, width)
    for page in pages:
        logger.debug("page %d", page.number)
    return [tables.draw(page) for page in pages]

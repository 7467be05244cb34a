"""Progress inside a long step: ``tick("populate", done, total, item)`` from the loops that take time.

The command line installs a listener (a rich progress display on stderr, never stdout);
without one a tick costs one global read. Module-level rather than a context variable so
ticks from worker threads (batch environments, Prefect task runs) reach the display too.
"""

from __future__ import annotations

from collections.abc import Callable

Listener = Callable[[str, int, int, str], None]
"""Called with (what, done, total, item): e.g. ("populate", 3, 12, "orders")."""

_listener: Listener | None = None


def tick(what: str, done: int, total: int, item: str = "") -> None:
    listener = _listener
    if listener is not None:
        listener(what, done, total, item)


def listen(listener: Listener | None) -> Listener | None:
    """Install ``listener`` (None removes it); returns the previous one so callers can restore it."""
    global _listener
    previous, _listener = _listener, listener
    return previous

"""Work for the next key, done while the view stands still between keys.

A person reads the screen between keys; even someone tapping keys quickly leaves a tenth of
a second or more between different ones, long enough to lay out what the likely next keys
would show (the next zoom and pan windows, the next op's page, the op under the cursor
re-centred). The shown pane is asked every tick (WorkspaceScreen.work_ahead); once its view
has stood still for a whole tick, it works ahead, once until the view changes. Keys pressed
back to back do not wait for it; a key pressed again right after itself is taken as held
(HeldKey), and what its next press shows is made just after each frame, between repeats.
Once a pane's work is done for the view it shows, its tick stops (an idle xla-tui takes no
CPU) until a key, the mouse, a resize or a change of what it shows wakes it again.
"""

from __future__ import annotations

import asyncio
from typing import Callable, Hashable

from textual.message_pump import MessagePump

TICK_S = 0.05  # still for two ticks after a key (100 ms; one to two if keys come while it ticks):
# ready before a quick tapper's next key
AFTER_FRAME_S = 0.02  # a frame is out within 17 ms of its key (60 per second); a held key repeats every 25-40 ms


class StillWatch:
    def __init__(self):
        self._last: Hashable = None
        self._done = False  # the work for this stretch of standing still is done

    def stood_still(self, state: Hashable) -> bool:
        """Call every tick with the view's state: True once the state has stayed the same for a
        whole tick and nothing was done ahead since it last changed (the caller does it now)."""
        last, self._last = self._last, state
        if state != last:
            self._done = False
            return False
        if self._done:
            return False
        self._done = True
        return True

    @property
    def settled(self) -> bool:
        """The work for the state last seen is done: nothing to do until the view changes."""
        return self._done

    def moved(self) -> None:
        """The view changed (and may be back as it was by the next tick): it has not stood still,
        and what was done ahead may have been used up."""
        self._last, self._done = _MOVED, False


_MOVED = object()  # a state no view is in


class HeldKey:
    """Spots a key pressed again right after itself (held down, its repeats come every few
    tens of milliseconds) and has the work for its next press done AFTER_FRAME_S after each
    press: once the frame is out, before the next repeat.

    The delay is the event loop's own (`call_later`), not a Textual timer: a key pressed on
    and on would otherwise stop one timer and start another every time (a task cancelled and
    one created, the widget's repr taken for its name), about 0.24 ms of each key. When it is
    due, the work runs as one of the owner's messages (`call_next`), as a timer's would."""

    def __init__(self, owner: MessagePump):
        self._owner = owner
        self._last: Hashable = None
        self._due: asyncio.TimerHandle | None = None

    def pressed(self, key: Hashable, ahead: Callable[[], None]) -> None:
        """`key` was pressed; `ahead` makes what its next press would show."""
        if self._due is not None:
            self._due.cancel()
            self._due = None
        again, self._last = key == self._last, key
        if again:
            self._due = asyncio.get_running_loop().call_later(AFTER_FRAME_S, self._owner.call_next, ahead)

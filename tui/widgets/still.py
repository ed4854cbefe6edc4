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

from typing import Callable, Hashable

from tui.widgets.line_cache import LineCache

TICK_S = 0.05  # still for two ticks after a key (100 ms; one to two if keys come while it ticks):
# ready before a quick tapper's next key


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
    tens of milliseconds) and has the work for its next press done right after the frame that
    shows this one (LineCache.after_frame): the frame goes out first, and the work fills the
    time before the next repeat. Done then, it runs in the same stretch of busy time as the key
    itself, so the app goes idle once, not twice, per key (a test that waits for idleness after
    each key, as Pilot does, finds it no slower than an app that works nothing ahead). Work set
    going by an earlier press, not run yet, is let go."""

    def __init__(self, view: LineCache):
        self._view = view
        self._last: Hashable = None
        self._presses = 0

    def pressed(self, key: Hashable, ahead: Callable[[], None]) -> None:
        """`key` was pressed; `ahead` makes what its next press would show."""
        again, self._last = key == self._last, key
        self._presses += 1
        if again:
            press = self._presses
            self._view.after_frame(lambda: press == self._presses and ahead())

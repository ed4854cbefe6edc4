"""Work for the next key, done while the view stands still between keys.

A person reads the screen between keys; those pauses are long enough to lay out what the
likely next keys would show (the next zoom and pan windows, the next op's page, the op under
the cursor re-centred). The shown pane is asked every tick (WorkspaceScreen.work_ahead); once
its view has stood still for a whole tick, it works ahead, once until the view changes. Keys
pressed back to back (a held key) never wait for it: they find what recent keys left kept.
"""

from __future__ import annotations

from typing import Hashable

TICK_S = 0.25


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

    def moved(self) -> None:
        """The view changed (and may be back as it was by the next tick): it has not stood still,
        and what was done ahead may have been used up."""
        self._last, self._done = _MOVED, False


_MOVED = object()  # a state no view is in

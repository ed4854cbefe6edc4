"""Snapshot helpers shared by the screens' tests: the two terminal sizes and a run_before builder."""

from __future__ import annotations

import pytest

SIZES = pytest.mark.parametrize("size", [(100, 30), (160, 45)], ids=lambda s: f"{s[0]}x{s[1]}")


def select(name: str):
    """A step that selects an instruction by name."""
    return lambda app: app.select(instruction=name)


async def settled(pilot) -> None:
    """Until no worker runs: loading, then what it starts (the graph's op times from a profile)."""
    app = pilot.app
    await app.workers.wait_for_complete()
    await pilot.pause()
    while any(worker.is_running for worker in app.workers):
        await app.workers.wait_for_complete()
        await pilot.pause()


def shot(*steps):
    """run_before for snap_compare: wait for loading, take `steps` (keys or callables on the app),
    then drop toasts so the shot shows the screen itself."""

    async def run_before(pilot):
        await settled(pilot)
        for step in steps:
            if callable(step):
                step(pilot.app)
            else:
                await pilot.press(step)
            await pilot.pause()
        pilot.app.clear_notifications()
        await pilot.pause()

    return run_before

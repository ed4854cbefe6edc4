"""xla-tui: explore XLA programs in the terminal.

`tui.explore(fn, *args)` opens the app on a function's compiled program; `tui.capture(fn,
*args)` returns the loaded Workspace. Both load JAX only when called: `import tui` stays light.
"""

__all__ = ["capture", "explore"]


def __getattr__(name: str):
    if name in __all__:
        from tui import api

        return getattr(api, name)
    raise AttributeError(f"module 'tui' has no attribute {name!r}")

"""Write tui/model/eager_ops.py: the names JAX compiles a module of its own for (`jit_<name>`)
when a script calls them outside `jit`.

Eager calls of jax.numpy, jax.numpy.linalg/fft, jax.nn and jax.lax functions, and of JAX's
primitives, each compile a small module named after the function (`x % 3` is `jit_remainder`,
`jnp.unstack(x)` is `jit_unstack`), and JAX's own jitted functions compile theirs
(`jax.random.normal` runs `jit__normal`). Those modules can run as often as the user's train
step, so the main-module choice (tui/model/main_module.py) sets them aside by name. Left out:
the wrappers whose module is the user's own code (`exp.call(x)` of a jax.export is
`jit_call_exported`; an eager `lax.scan` over the user's step is `jit_scan`). The list is read
off the JAX installed here and kept in the repository (xla-tui does not import JAX to open a
dump); names already listed are kept, so a newer JAX only adds to it.

    python tests/make_eager_ops.py
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import textwrap
import types
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tui" / "model" / "eager_ops.py"
USER_CODE = {"call_exported", "closed_call", "core_call", "call", "pjit", "jit", "scan", "while", "while_loop",
             "fori_loop", "cond", "switch", "map", "checkpoint", "remat", "custom_jvp_call", "custom_vjp_call",
             "shard_map", "xla_pmap", "pmap", "vmap"}


def jax_names() -> tuple[set[str], set[str]]:
    """(public names eager calls compile as `jit_<name>`, JAX's private jitted functions, which
    compile as `jit__<name>`), as main_module.name_key writes them."""
    import jax
    import jax.lax
    import jax.nn
    import jax.numpy as jnp
    from jax._src import core

    from tui.model.main_module import name_key

    names = {n for module in (jnp, jnp.linalg, jnp.fft, jax.nn, jax.lax) for n in dir(module)
             if not n.startswith("_") and callable(getattr(module, n))}
    names |= {value.name for module in _jax_modules() for value in list(vars(module).values()) if isinstance(value, core.Primitive)}
    for info in pkgutil.walk_packages(jax._src.__path__, "jax._src."):  # every module, for its jitted functions
        try:  # (not for primitives: Pallas's work only inside a kernel, never compiled alone)
            importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - a backend's or an optional dependency's module
            continue
    modules = _jax_modules()
    private = {getattr(value, "__name__", "") for module in modules for value in list(vars(module).values())
               if callable(value) and hasattr(value, "lower") and hasattr(value, "trace")}  # jax.jit'ed at import
    private = {n for n in private if n.startswith("_")}  # `_normal` compiles as `jit__normal`
    return {name_key(n) for n in names} - {""}, {name_key(n) for n in private} - {""}


def _jax_modules() -> list[types.ModuleType]:
    return [m for name, m in list(sys.modules.items()) if name.startswith("jax._src") and isinstance(m, types.ModuleType)]


def main() -> None:
    import jax

    sys.path.insert(0, str(OUT.parents[2]))
    from tui.model import eager_ops

    public, private = jax_names()
    names = sorted((set(eager_ops.EAGER_OPS) | public) - USER_CODE)  # names listed before are kept
    privates = sorted(set(getattr(eager_ops, "PRIVATE_OPS", ())) | private)
    body, private_body = (textwrap.fill(" ".join(listed), 100, initial_indent="    ", subsequent_indent="    ",
                                        break_on_hyphens=False) for listed in (names, privates))
    OUT.write_text(f'''"""Names JAX compiles a module of its own for (`jit_<name>`) when a script calls them outside jit.

jax.numpy (and its linalg and fft), jax.nn and jax.lax functions, JAX's primitives and its own
jitted functions, but for those wrapping the user's code: made by tests/make_eager_ops.py (last from JAX {jax.__version__}); see tui/model/main_module.py.
"""

EAGER_OPS = frozenset("""
{body}
""".split())

# JAX's own jitted functions, named with an underscore: `jax.random.normal` runs `jit__normal`.
PRIVATE_OPS = frozenset("""
{private_body}
""".split())
''')
    print(f"{OUT}: {len(names)} names, {len(privates)} private")


if __name__ == "__main__":
    main()

"""Write tui/model/eager_ops.py: the names JAX compiles a module of its own for (`jit_<name>`)
when a script calls them outside `jit`.

Eager calls of jax.numpy, jax.numpy.linalg/fft, jax.nn and jax.lax functions, and of JAX's
primitives, each compile a small module named after the function (`x % 3` is `jit_remainder`,
`jnp.unstack(x)` is `jit_unstack`). Those modules can run as often as the user's train step,
so the main-module choice (tui/model/main_module.py) sets them aside by name. The list is read
off the JAX installed here and kept in the repository (xla-tui does not import JAX to open a
dump); names already listed are kept, so a newer JAX only adds to it.

    python tests/make_eager_ops.py
"""

from __future__ import annotations

import sys
import textwrap
import types
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tui" / "model" / "eager_ops.py"


def jax_names() -> set[str]:
    import jax
    import jax.lax
    import jax.nn
    import jax.numpy as jnp
    from jax._src import core

    from tui.model.main_module import name_key

    names = {n for module in (jnp, jnp.linalg, jnp.fft, jax.nn, jax.lax) for n in dir(module)
             if not n.startswith("_") and callable(getattr(module, n))}
    names |= {value.name for module_name, module in list(sys.modules.items())
              if module_name.startswith("jax._src") and isinstance(module, types.ModuleType)
              for value in list(vars(module).values()) if isinstance(value, core.Primitive)}
    return {name_key(n) for n in names} - {""}


def main() -> None:
    import jax

    sys.path.insert(0, str(OUT.parents[2]))
    from tui.model.eager_ops import EAGER_OPS

    names = sorted(set(EAGER_OPS) | jax_names())
    body = textwrap.fill(" ".join(names), 100, initial_indent="    ", subsequent_indent="    ", break_on_hyphens=False)
    OUT.write_text(f'''"""Names JAX compiles a module of its own for (`jit_<name>`) when a script calls them outside jit.

jax.numpy (and its linalg and fft), jax.nn and jax.lax functions, and JAX's primitives: made by
tests/make_eager_ops.py (last from JAX {jax.__version__}); see tui/model/main_module.py.
"""

EAGER_OPS = frozenset("""
{body}
""".split())
''')
    print(f"{OUT}: {len(names)} names")


if __name__ == "__main__":
    main()

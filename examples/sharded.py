"""Train an MLP with data and model parallelism on 8 simulated CPU devices.

Run it as `python examples/sharded.py`, or explore it with `xla-tui examples/sharded.py`.
A 2x4 mesh: the batch is split over 'data'; each weight is split over 'model' (tensor
parallelism) and, for the first layer, over 'data' too (sharded like FSDP). XLA's SPMD
partitioner then inserts the collectives: all-gathers of the weight shards, all-reduces of
partial matmul results and of the data-parallel gradients.
"""

import os

# XLA reads its flags once, when JAX starts its CPU backend: add ours to the user's, before import.
_DEVICES_FLAG = "--xla_force_host_platform_device_count=8"
if _DEVICES_FLAG not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {_DEVICES_FLAG}".strip()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

D_IN, D_HIDDEN, D_OUT, BATCH = 64, 256, 16, 128

MESH = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("data", "model"))
PARAM_SPECS = {"w1": P("data", "model"), "b1": P("model"), "w2": P("model", None), "b2": P(None)}
BATCH_SPECS = (P("data", None), P("data", None))


def shard(tree, specs):
    return jax.tree.map(lambda a, spec: jax.device_put(a, NamedSharding(MESH, spec)), tree, specs)


def init_params(rng):
    return {
        "w1": rng.standard_normal((D_IN, D_HIDDEN), np.float32) * D_IN**-0.5,
        "b1": np.zeros(D_HIDDEN, np.float32),
        "w2": rng.standard_normal((D_HIDDEN, D_OUT), np.float32) * D_HIDDEN**-0.5,
        "b2": np.zeros(D_OUT, np.float32),
    }


def loss_fn(params, x, y):
    h = jax.nn.relu(x @ params["w1"] + params["b1"])
    # Keep the hidden activations split by batch and by hidden unit, the Megatron layout.
    h = jax.lax.with_sharding_constraint(h, NamedSharding(MESH, P("data", "model")))
    pred = h @ params["w2"] + params["b2"]
    return ((pred - y) ** 2).mean()


@jax.jit
def train_step(params, x, y, lr=0.1):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss


def make_batch(rng):
    """Regression onto a fixed random linear map of the input."""
    x = rng.standard_normal((BATCH, D_IN), np.float32)
    y = np.tanh(x @ rng.standard_normal((D_IN, D_OUT), np.float32) * D_IN**-0.5)
    return x, y


def main(steps=8):
    rng = np.random.default_rng(0)
    params = shard(init_params(rng), PARAM_SPECS)
    x, y = shard(make_batch(rng), BATCH_SPECS)
    for step in range(steps):
        params, loss = train_step(params, x, y)
        print(f"step {step}: loss {float(loss):.4f}")


if __name__ == "__main__":
    main()

"""Train a small MLP with plain SGD: the smallest program with a real backward pass.

Run it as `python examples/mlp.py`, or explore it with `xla-tui examples/mlp.py`.
Weights and data come from a seeded NumPy generator: jax.random would add a slow-to-compile
threefry module per shape to the dump, and the train step is what this example is about.
"""

import jax
import jax.numpy as jnp
import numpy as np

LAYER_SIZES = [32, 128, 128, 64, 10]


def init_params(rng):
    return [
        {"w": jnp.asarray(rng.standard_normal((n_in, n_out), np.float32) * n_in**-0.5), "b": jnp.zeros(n_out)}
        for n_in, n_out in zip(LAYER_SIZES, LAYER_SIZES[1:])
    ]


def predict(params, x):
    for layer in params[:-1]:
        x = jax.nn.relu(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss_fn(params, x, labels):
    logp = jax.nn.log_softmax(predict(params, x))
    return -jnp.take_along_axis(logp, labels[:, None], axis=1).mean()


@jax.jit
def train_step(params, x, labels, lr=0.1):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, labels)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss


def make_batch(rng, batch=256):
    """A learnable toy task: the label is the argmax of a fixed random projection of the input."""
    x = rng.standard_normal((batch, LAYER_SIZES[0]), np.float32)
    labels = np.argmax(x @ rng.standard_normal((LAYER_SIZES[0], LAYER_SIZES[-1])), axis=1)
    return jnp.asarray(x), jnp.asarray(labels, jnp.int32)


def main(steps=10):
    rng = np.random.default_rng(0)
    params = init_params(rng)
    x, labels = make_batch(rng)
    for step in range(steps):
        params, loss = train_step(params, x, labels)
        print(f"step {step}: loss {float(loss):.4f}")


if __name__ == "__main__":
    main()

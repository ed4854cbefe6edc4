"""Train a tiny GPT for a few steps: a realistic program with a named scope per layer and block.

Run it as `python examples/transformer.py`, or explore it with `xla-tui examples/transformer.py`.
The op names in the dump carry the scopes (`layer0/attn/...`, `layer1/mlp/...`), which is what
the op graph and the timeline group by. Kept to a few layers: in a deep unrolled model XLA CPU
duplicates the residual stream's elementwise chains across layers, so the program grows fast.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np

VOCAB, D_MODEL, D_FF, HEADS = 256, 64, 256, 4


def init_params(rng, layers):
    def dense(n_in, n_out):
        return jnp.asarray(rng.standard_normal((n_in, n_out), np.float32) * n_in**-0.5)

    def block():
        return {
            "ln1": jnp.ones(D_MODEL),
            "qkv": dense(D_MODEL, 3 * D_MODEL),
            "proj": dense(D_MODEL, D_MODEL),
            "ln2": jnp.ones(D_MODEL),
            "up": dense(D_MODEL, D_FF),
            "down": dense(D_FF, D_MODEL),
        }

    return {"embed": dense(VOCAB, D_MODEL), "layers": [block() for _ in range(layers)], "unembed": dense(D_MODEL, VOCAB)}


def layer_norm(x, scale):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-5) * scale


def attention(p, x):
    batch, seq, d = x.shape
    q, k, v = jnp.split(x @ p["qkv"], 3, axis=-1)

    def heads(a):
        return a.reshape(batch, seq, HEADS, d // HEADS).transpose(0, 2, 1, 3)

    q, k, v = heads(q), heads(k), heads(v)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d // HEADS)
    causal = jnp.tril(jnp.ones((seq, seq), bool))
    weights = jax.nn.softmax(jnp.where(causal, scores, -1e9), axis=-1)
    out = (weights @ v).transpose(0, 2, 1, 3).reshape(batch, seq, d)
    return out @ p["proj"]


def mlp(p, x):
    return jax.nn.gelu(x @ p["up"]) @ p["down"]


def forward(params, tokens):
    with jax.named_scope("embed"):
        x = params["embed"][tokens]
    for i, p in enumerate(params["layers"]):
        with jax.named_scope(f"layer{i}"):
            with jax.named_scope("attn"):
                x = x + attention(p, layer_norm(x, p["ln1"]))
            with jax.named_scope("mlp"):
                x = x + mlp(p, layer_norm(x, p["ln2"]))
    with jax.named_scope("unembed"):
        return x @ params["unembed"]


def loss_fn(params, tokens, targets):
    logp = jax.nn.log_softmax(forward(params, tokens))
    with jax.named_scope("loss"):
        return -jnp.take_along_axis(logp, targets[..., None], axis=-1).mean()


@functools.partial(jax.jit, donate_argnums=0)
def train_step(params, tokens, targets, lr=0.05):
    loss, grads = jax.value_and_grad(loss_fn)(params, tokens, targets)
    return jax.tree.map(lambda p, g: p - lr * g, params, grads), loss


def make_batch(rng, batch=8, seq=32):
    """Next-token prediction on a repeating pattern, so the loss visibly falls."""
    starts = rng.integers(0, VOCAB, (batch, 1))
    stream = (starts + 3 * np.arange(seq + 1)) % VOCAB
    return jnp.asarray(stream[:, :-1], jnp.int32), jnp.asarray(stream[:, 1:], jnp.int32)


def main(layers=4, steps=8):
    rng = np.random.default_rng(0)
    params = init_params(rng, layers)
    tokens, targets = make_batch(rng)
    for step in range(steps):
        params, loss = train_step(params, tokens, targets)
        print(f"step {step}: loss {float(loss):.4f}")


if __name__ == "__main__":
    main()

"""A small GPT train step with named scopes: the workload every bench script measures.

Sizes are chosen so the 48-layer train step compiles on a 2-core CPU in well under a minute
and prints about 6 MB of optimized HLO; `layers` scales everything else.
"""

import functools

import jax
import jax.numpy as jnp


def init_params(key, layers, d_model=128, d_ff=512, vocab=512):
    def dense(k, a, b):
        return jax.random.normal(k, (a, b), jnp.float32) * (a**-0.5)

    keys = jax.random.split(key, 2 + 4 * layers)
    params = {"embed": dense(keys[0], vocab, d_model), "unembed": dense(keys[1], d_model, vocab), "layers": []}
    for i in range(layers):
        k = keys[2 + 4 * i : 6 + 4 * i]
        params["layers"].append(
            {
                "qkv": dense(k[0], d_model, 3 * d_model),
                "proj": dense(k[1], d_model, d_model),
                "up": dense(k[2], d_model, d_ff),
                "down": dense(k[3], d_ff, d_model),
                "ln1": jnp.ones((d_model,)),
                "ln2": jnp.ones((d_model,)),
                "mix": jnp.eye(d_model),
            }
        )
    return params


def _layer_norm(x, scale):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-5) * scale


def _attention(p, x, heads):
    b, t, d = x.shape
    q, k, v = jnp.split(x @ p["qkv"], 3, axis=-1)
    split = lambda a: a.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3)
    q, k, v = split(q), split(k), split(v)
    scores = q @ k.transpose(0, 1, 3, 2) / jnp.sqrt(d // heads)
    mask = jnp.tril(jnp.ones((t, t), bool))
    scores = jnp.where(mask, scores, -1e9)
    out = jax.nn.softmax(scores, axis=-1) @ v
    return out.transpose(0, 2, 1, 3).reshape(b, t, d) @ p["proj"]


def forward(params, tokens, heads=4):
    x = params["embed"][tokens]
    for i, p in enumerate(params["layers"]):
        with jax.named_scope(f"layer{i}"):
            with jax.named_scope("attn"):
                x = x + _attention(p, _layer_norm(x, p["ln1"]), heads)
            with jax.named_scope("mlp"):
                h = _layer_norm(x, p["ln2"])
                x = x + jax.nn.gelu(h @ p["up"]) @ p["down"]
        # A mixing matmul closes each layer: its dot (and the transposed dot in the backward
        # pass) stops XLA from fusing the residual stream's elementwise chains across layers,
        # which otherwise makes the program grow quadratically with depth.
        x = x @ p["mix"]
    return x @ params["unembed"]


def loss_fn(params, tokens, targets):
    logits = forward(params, tokens)
    logp = jax.nn.log_softmax(logits)
    return -jnp.take_along_axis(logp, targets[..., None], axis=-1).mean()


@functools.partial(jax.jit, donate_argnums=0)
def train_step(params, tokens, targets, lr=1e-3):
    loss, grads = jax.value_and_grad(loss_fn)(params, tokens, targets)
    params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return params, loss


def make_inputs(layers, batch=8, seq=64, vocab=512, seed=0):
    key = jax.random.PRNGKey(seed)
    params = init_params(key, layers, vocab=vocab)
    tokens = jax.random.randint(jax.random.PRNGKey(seed + 1), (batch, seq), 0, vocab)
    targets = jnp.roll(tokens, -1, axis=1)
    return params, tokens, targets

"""Small JAX model functions, as source text, for tests that compile them in a child process
(XLA reads XLA_FLAGS once per process, so dumps with special flags need their own process)."""

MODEL_FUNCTIONS = '''
def mlp_loss(params, x, y):
    h = x
    for w, b in params:
        h = jnp.tanh(h @ w + b)
    return jnp.mean((h - y) ** 2)

def transformer_loss(p, x):
    q, k, v = x @ p["wq"], x @ p["wk"], x @ p["wv"]
    a = jax.nn.softmax(q @ k.swapaxes(-1, -2) / 8.0, axis=-1) @ v
    h = x + a @ p["wo"]
    h = h + jax.nn.gelu(h @ p["w1"]) @ p["w2"]
    return jnp.mean(h ** 2)

def rnn(w, xs, h0):
    def step(h, x):
        h = jnp.tanh(h @ w + x)
        return h, h.sum()
    return jax.lax.scan(step, h0, xs)
'''

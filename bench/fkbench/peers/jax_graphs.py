"""Each case family written in jax.numpy, for JAX/XLA. Where torch computes
in f32 inside an op (norms, softmax, gelu of f16), the translation upcasts
explicitly; XLA fuses the casts."""


def jax_function(case, jax):
    jnp = jax.numpy
    a = case.attrs
    fam = case.family
    f32 = jnp.float32

    def up(t):       # compute in f32 inside, as torch and fkc do
        return t.astype(f32)

    def rmsnorm(t, gamma):
        tf = up(t)
        ms = jnp.square(tf).mean(axis=-1, keepdims=True)
        return (tf * jax.lax.rsqrt(ms + a["eps"]) * up(gamma)).astype(t.dtype)
    if fam == "gelu":
        def fn(x, s, b):
            h = x * s + b
            return (jax.nn.gelu(up(h), approximate=True).astype(x.dtype),)
    elif fam == "add_layernorm":
        def fn(x, r, gamma, beta):
            h = x + r
            hf = up(h)
            mean = hf.mean(axis=-1, keepdims=True)
            var = jnp.square(hf - mean).mean(axis=-1, keepdims=True)
            y = (hf - mean) * jax.lax.rsqrt(var + a["eps"]) * up(gamma) \
                + up(beta)
            return (y.astype(x.dtype), h)
    elif fam == "rmsnorm":
        def fn(x, gamma):
            return (rmsnorm(x, gamma),)
    elif fam == "softmax":
        def fn(x):
            return (jax.nn.softmax(up(x), axis=-1).astype(x.dtype),)
    elif fam == "mlp":
        def fn(x, w1, b1, w2):
            h = x @ w1 + b1
            h = jax.nn.gelu(up(h), approximate=True).astype(x.dtype)
            return (h @ w2,)
    elif fam == "swiglu_mlp":
        def fn(x, w_gate, w_up, w_down):
            g = up(x @ w_gate.T)
            h = (jax.nn.silu(g) * up(x @ w_up.T)).astype(x.dtype)
            return (h @ w_down.T,)
    elif fam == "gemm":
        def fn(a, b):
            return (jnp.matmul(a, b),)
    elif fam == "gemm_bias_gelu":
        def fn(a, b, bias):
            h = jnp.matmul(a, b) + bias
            return (jax.nn.gelu(up(h), approximate=True).astype(a.dtype),)
    elif fam == "linear":
        def fn(x, w, b):
            return (jnp.matmul(x, w.T) + b,)
    elif fam == "lm_head":
        def fn(x, w):
            return (jnp.matmul(x, w.T),)
    elif fam == "attention":
        scale, causal = a["scale"], a["causal"]

        def fn(q, k, v):
            s = jnp.einsum("...qd,...kd->...qk", q, k) * scale
            if causal:
                n_q, n_k = s.shape[-2], s.shape[-1]
                keep = jnp.tril(jnp.ones((n_q, n_k), dtype=bool), n_k - n_q)
                s = jnp.where(keep, s, -jnp.inf)
            p = jax.nn.softmax(up(s), axis=-1).astype(q.dtype)
            return (jnp.einsum("...qk,...kd->...qd", p, v),)
    elif fam == "transformer_block":
        head_dim = a["head_dim"]

        def fn(x, norm1, wq, wk, wv, wo, norm2, w_gate, w_up, w_down):
            b, n, d = x.shape

            def split(t):
                return t.reshape(b, n, d // head_dim, head_dim)
            h = rmsnorm(x, norm1)
            o = jax.nn.dot_product_attention(split(h @ wq), split(h @ wk),
                                             split(h @ wv), is_causal=True)
            x1 = x + o.reshape(b, n, d) @ wo
            g = rmsnorm(x1, norm2)
            gate = jax.nn.silu(up(g @ w_gate)).astype(x.dtype)
            return (x1 + (gate * (g @ w_up)) @ w_down,)
    elif fam == "llama_block":
        head_dim = a["head_dim"]

        def rope(t, cos_t, sin_t):
            # t: [B, T, heads, D]; the tables are [T, D].
            t1, t2 = t[..., :head_dim // 2], t[..., head_dim // 2:]
            rotated = jnp.concatenate((-t2, t1), axis=-1)
            return t * cos_t[:, None, :] + rotated * sin_t[:, None, :]

        def fn(x, cos_t, sin_t, attn_norm, wq, wk, wv, wo, mlp_norm, w_gate,
               w_up, w_down):
            b, n, d = x.shape

            def split(t):
                return t.reshape(b, n, t.shape[-1] // head_dim, head_dim)
            h = rmsnorm(x, attn_norm)
            # dot_product_attention groups the query heads over fewer
            # key/value heads itself (query head i reads key/value head
            # i // group).
            o = jax.nn.dot_product_attention(
                rope(split(h @ wq.T), cos_t, sin_t),
                rope(split(h @ wk.T), cos_t, sin_t),
                split(h @ wv.T), is_causal=True)
            x1 = x + o.reshape(b, n, d) @ wo.T
            m = rmsnorm(x1, mlp_norm)
            gate = jax.nn.silu(up(m @ w_gate.T)).astype(x.dtype)
            return (x1 + (gate * (m @ w_up.T)) @ w_down.T,)
    else:
        raise ValueError("unknown family %s" % fam)
    return fn

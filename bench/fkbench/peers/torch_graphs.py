"""Each case family written in torch. A function takes the graph's inputs
as tensors, in order, and returns a tuple of its outputs; eager runs it as
it is and torch.compile compiles the same function. Eager's attention is
the unfused graph (softmax(q @ k^T * scale, masked) @ v); SDPA is its own
peer, with the backend named."""


def torch_function(case, torch, device):
    F = torch.nn.functional
    a = case.attrs
    fam = case.family
    if fam == "gelu":
        def fn(x, s, b):
            return (F.gelu(x * s + b, approximate="tanh"),)
    elif fam == "add_layernorm":
        def fn(x, r, gamma, beta):
            h = x + r
            return (F.layer_norm(h, (h.shape[-1],), gamma, beta, a["eps"]), h)
    elif fam == "rmsnorm":
        def fn(x, gamma):
            return (F.rms_norm(x, (x.shape[-1],), gamma, a["eps"]),)
    elif fam == "softmax":
        def fn(x):
            return (torch.softmax(x, dim=-1),)
    elif fam == "mlp":
        def fn(x, w1, b1, w2):
            return (F.gelu(x @ w1 + b1, approximate="tanh") @ w2,)
    elif fam == "swiglu_mlp":
        def fn(x, w_gate, w_up, w_down):
            return (F.linear(F.silu(F.linear(x, w_gate)) * F.linear(x, w_up),
                             w_down),)
    elif fam == "gemm":
        def fn(a, b):
            return (torch.matmul(a, b),)
    elif fam == "gemm_bias_gelu":
        def fn(a, b, bias):
            return (F.gelu(torch.matmul(a, b) + bias, approximate="tanh"),)
    elif fam == "linear":
        def fn(x, w, b):
            return (F.linear(x, w, b),)
    elif fam == "lm_head":
        def fn(x, w):
            return (F.linear(x, w),)
    elif fam == "attention":
        n_q = case.input("q").shape[-2]
        n_k = case.input("k").shape[-2]
        scale, causal = a["scale"], a["causal"]
        # Query i sees keys j <= i + n_k - n_q (docs/language.md).
        drop = (torch.ones(n_q, n_k, dtype=torch.bool, device=device)
                .tril(n_k - n_q).logical_not()) if causal else None

        def fn(q, k, v):
            s = (q @ k.transpose(-2, -1)) * scale
            if drop is not None:
                s = s.masked_fill(drop, float("-inf"))
            return (torch.softmax(s, dim=-1) @ v,)
    elif fam == "transformer_block":
        head_dim = a["head_dim"]

        def fn(x, norm1, wq, wk, wv, wo, norm2, w_gate, w_up, w_down):
            b, n, d = x.shape

            def split(t):
                return t.reshape(b, n, d // head_dim, head_dim) \
                        .transpose(1, 2)
            h = F.rms_norm(x, (d,), norm1, a["eps"])
            o = F.scaled_dot_product_attention(split(h @ wq), split(h @ wk),
                                               split(h @ wv), is_causal=True)
            x1 = x + o.transpose(1, 2).reshape(b, n, d) @ wo
            g = F.rms_norm(x1, (d,), norm2, a["eps"])
            return (x1 + (F.silu(g @ w_gate) * (g @ w_up)) @ w_down,)
    elif fam == "llama_block":
        head_dim = a["head_dim"]

        def fn(x, cos_t, sin_t, attn_norm, wq, wk, wv, wo, mlp_norm, w_gate,
               w_up, w_down):
            b, n, d = x.shape
            heads, kv_heads = wq.shape[0] // head_dim, wk.shape[0] // head_dim

            def split(t, count):
                return t.view(b, n, count, head_dim).transpose(1, 2)

            def rope(t):
                t1, t2 = t[..., :head_dim // 2], t[..., head_dim // 2:]
                return t * cos_t + torch.cat((-t2, t1), dim=-1) * sin_t
            h = F.rms_norm(x, (d,), attn_norm, a["eps"])
            q = rope(split(F.linear(h, wq), heads))
            k = rope(split(F.linear(h, wk), kv_heads))
            v = split(F.linear(h, wv), kv_heads)
            # transformers' repeat_kv: query head i reads key/value head
            # i // (heads / kv_heads).
            k = k.repeat_interleave(heads // kv_heads, dim=1)
            v = v.repeat_interleave(heads // kv_heads, dim=1)
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x1 = x + F.linear(o.transpose(1, 2).reshape(b, n, d), wo)
            m = F.rms_norm(x1, (d,), mlp_norm, a["eps"])
            return (x1 + F.linear(F.silu(F.linear(m, w_gate)) *
                                  F.linear(m, w_up), w_down),)
    else:
        raise ValueError("unknown family %s" % fam)
    return fn


def sdpa_function(case, torch, backend_name):
    """F.scaled_dot_product_attention of an attention case, restricted to
    SDPBackend.`backend_name` (FLASH_ATTENTION, CUDNN_ATTENTION,
    EFFICIENT_ATTENTION)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backend = getattr(SDPBackend, backend_name)
    F = torch.nn.functional
    scale, causal = case.attrs["scale"], case.attrs["causal"]

    def fn(q, k, v):
        with sdpa_kernel(backend):
            return (F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                   scale=scale),)
    return fn

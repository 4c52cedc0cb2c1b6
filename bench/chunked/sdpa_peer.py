# PyTorch SDPA on the shapes of bench/chunked/run.sh, timed per call between
# CUDA events after a synchronize (the host's launch included, unlike
# fkc-run --bench's back-to-back replays); the causal chunk as a boolean mask.
import torch, sys
F = torch.nn.functional
for b, s in [(1, 4096), (4, 1024)]:
    q = torch.randn(b, 8, 32, 64, device="cuda", dtype=torch.half)
    k = torch.randn(b, 8, s, 64, device="cuda", dtype=torch.half)
    v = torch.randn(b, 8, s, 64, device="cuda", dtype=torch.half)
    for causal in (False, True):
        # A chunk's causal mask: query i sees keys up to s - 32 + i.
        mask = None
        if causal:
            mask = torch.arange(s, device="cuda")[None, :] <= (s - 32 + torch.arange(32, device="cuda"))[:, None]
        f = lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.125)
        for _ in range(20): f()
        torch.cuda.synchronize()
        st, en = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(200):
            st.record(); f(); en.record(); en.synchronize(); times.append(st.elapsed_time(en))
        times.sort()
        print(f"SDPA B={b} S={s} causal={causal}: median {times[100]:.4f} ms")

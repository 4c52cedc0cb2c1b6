"""What the inference benchmarks (bench/gpt2_inference/run.py,
bench/hf_inference/run.py) share: timing a call on the GPU, the relative
error of two tensors, and an fkc graph called with a model's tensors by
name. Needs torch (passed in, so that importing this needs nothing)."""
import statistics
import time

TORCH_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32",
                "i32": "int32", "i64": "int64"}


def time_calls(torch, fn, budget_s, max_calls=400, in_flight=32):
    """Median time of calls of `fn` between CUDA events, with up to
    `in_flight` calls enqueued ahead of the one whose time is read."""
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    estimate = time.perf_counter() - t0
    for _ in range(min(50, max(3, int(0.1 / max(estimate, 1e-6))))):
        fn()
    torch.cuda.synchronize()
    calls = max(10, min(max_calls, int(budget_s / max(estimate, 1e-6))))
    ring = min(in_flight, calls)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(ring)]
    stops = [torch.cuda.Event(enable_timing=True) for _ in range(ring)]
    times = []
    for i in range(calls):
        slot = i % ring
        if i >= ring:
            stops[slot].synchronize()
            times.append(starts[slot].elapsed_time(stops[slot]) / 1e3)
        starts[slot].record()
        fn()
        stops[slot].record()
    torch.cuda.synchronize()
    for i in range(calls - ring, calls):
        times.append(starts[i % ring].elapsed_time(stops[i % ring]) / 1e3)
    return {"median_s": statistics.median(times), "min_s": min(times),
            "calls": len(times)}


def rel_l2(torch, a, b):
    """|a - b| / |b| in f32 (L2 norms over every element)."""
    a, b = a.float(), b.float()
    return (torch.linalg.vector_norm(a - b) /
            torch.linalg.vector_norm(b).clamp_min(1e-30)).item()


class FkcGraph:
    """A graph of an artifact, called with the model's tensors by name; the
    inputs bound with bind_weights are the module's, not passed (and need
    not be in `tensors`). Outputs that alias an input (inout caches) are
    that input's tensor; the others are allocated once."""

    def __init__(self, torch, module, graph, tensors):
        self.module, self.graph = module, graph
        infos = module.inputs(graph)
        every = [None if i.bound else tensors[i.name] for i in infos]
        self.inputs = [t for t in every if t is not None]
        self.outputs = []
        infos = module.outputs(graph)
        shapes = [info.shape for info in infos]
        if any(isinstance(d, str) for shape in shapes for d in shape):
            # Symbolic: sized by this call's inputs.
            shapes = module.output_shapes(
                graph, [tuple(t.shape) for t in self.inputs])
        for info, shape in zip(infos, shapes):
            if info.aliases is not None:
                self.outputs.append(every[info.aliases])
            else:
                self.outputs.append(torch.empty(
                    shape, dtype=getattr(torch, TORCH_DTYPES[info.dtype]),
                    device=self.inputs[0].device))

    def __call__(self):
        return self.module.run(self.graph, self.inputs, self.outputs)[0]

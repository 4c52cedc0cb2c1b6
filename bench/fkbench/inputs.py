"""The torch tensors a case runs on. Every peer gets the same inputs, drawn
once per case from the distributions of the case table with the run's seed,
in the dtypes and shapes of the artifact's signature."""

INTEGERS = ("i32", "i64")


def torch_dtype(torch, name):
    """The torch dtype of a dtype as the language spells it."""
    return {"f32": torch.float32, "f16": torch.float16,
            "bf16": torch.bfloat16, "i32": torch.int32,
            "i64": torch.int64, "i1": torch.bool}[name]


def make_inputs(torch, case, device, seed):
    """The case's inputs, in call order. Floats: N(mean, std) per the case's
    `init` (N(0, 1) by default), drawn in f32 and rounded to the dtype.
    Integers (indices): uniform in [low, high) per `init` ([0, 1024) by
    default). i1: true or false with equal odds."""
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    inputs = []
    for t in case.inputs:
        dtype = torch_dtype(torch, t.dtype)
        if t.dtype in INTEGERS or t.dtype == "i1":
            low, high = case.init.get(t.name, (0, 1024 if t.dtype != "i1"
                                                else 2))
            x = torch.randint(int(low), int(high), t.shape, generator=gen,
                              device=device, dtype=torch.int64)
            inputs.append(x.to(dtype))
            continue
        mean, std = case.init.get(t.name, (0.0, 1.0))
        x = torch.randn(t.shape, generator=gen, device=device,
                        dtype=torch.float32)
        inputs.append(x.mul_(std).add_(mean).to(dtype))
    return inputs


def nan_outputs(torch, case, device):
    """fkc's output tensors, filled with NaN (integers: -1, i1: true): an
    element its run does not write fails the check."""
    outputs = []
    for t in case.outputs:
        dtype = torch_dtype(torch, t.dtype)
        fill = float("nan") if dtype.is_floating_point else \
            (True if t.dtype == "i1" else -1)
        outputs.append(torch.full(t.shape, fill, dtype=dtype, device=device))
    return outputs

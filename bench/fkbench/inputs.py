"""The torch tensors a case runs on. Every peer gets the same inputs, drawn
once per case from the normal distributions of the case table with the
run's seed, in the dtypes and shapes of the artifact's signature."""


def torch_dtype(torch, name):
    """The torch dtype of a floating-point dtype as the language spells it
    (the cases have no others)."""
    return {"f32": torch.float32, "f16": torch.float16,
            "bf16": torch.bfloat16}[name]


def make_inputs(torch, case, device, seed):
    """The case's inputs, in call order: N(mean, std) per the case's
    `init` (N(0, 1) by default), drawn in f32 and rounded to the dtype."""
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    inputs = []
    for t in case.inputs:
        mean, std = case.init.get(t.name, (0.0, 1.0))
        x = torch.randn(t.shape, generator=gen, device=device,
                        dtype=torch.float32)
        inputs.append(x.mul_(std).add_(mean).to(torch_dtype(torch, t.dtype)))
    return inputs


def nan_outputs(torch, case, device):
    """fkc's output tensors, filled with NaN: an element its run does not
    write fails the check."""
    return [torch.full(t.shape, float("nan"),
                       dtype=torch_dtype(torch, t.dtype), device=device)
            for t in case.outputs]

"""ATen ops one by one, in small modules, against PyTorch: fkc draws random
inputs and weights (`--reference`), and the module runs on the same tensors."""
import os

import pytest
import torch
import torch.nn.functional as F

import fkc
from conftest import Imported, flat_outputs, relative_error, run_fkc
from fkt import read_bundle


def check(module, *examples, tolerance=1e-5, tmp_path):
    graph = fkc.from_torch(module.eval(), examples)
    saved = Imported(graph, str(tmp_path))
    bundle = os.path.join(saved.folder, "reference.fkt")
    run_fkc(saved.path, "-o", os.path.join(saved.folder, "model.ptx"), "--reference", bundle,
            "--seed", "3")
    inputs, expected = read_bundle(bundle)[graph.name]
    state = module.state_dict(keep_vars=True)
    with torch.no_grad():
        for parameter, key in graph.state_dict_names.items():
            (state[key] if key in state else module.get_buffer(key)).copy_(inputs[parameter])
        actual = flat_outputs(module(*[inputs[name] for name in graph.inputs]))
    assert len(actual) == len(graph.outputs)
    for name, want in zip(graph.outputs, actual):
        got = expected[name]
        assert got.dtype == want.dtype and got.shape == want.shape, name
        if want.dtype.is_floating_point:
            assert relative_error(got, want) < tolerance, name
        else:
            assert torch.equal(got, want), name
    return graph


class Lambda(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


f32 = lambda *shape: torch.randn(*shape)  # noqa: E731
i64 = lambda *shape: torch.randint(-8, 9, shape)  # noqa: E731

CASES = {
    "promotion": (lambda x, i: (x + i, i * 0.5, i / (i.abs() + 1), x > i, i + 3, (i > 0) & (x < 0),
                                (i > 0) | (x < 0), ~(i > 0), torch.where(i > 0, x, 1.5)),
                  [f32(3, 4), i64(3, 4)]),
    "div_modes": (lambda x, i: (torch.div(x, 0.7, rounding_mode="floor"),
                                torch.div(x, -0.7, rounding_mode="trunc"),
                                torch.div(i, i.abs() + 2, rounding_mode="floor"),
                                torch.div(-i, 3, rounding_mode="floor"),
                                torch.div(i, 3, rounding_mode="trunc")),
                  [f32(5), i64(7)]),
    "unary": (lambda x: (F.gelu(x), F.gelu(x, approximate="tanh"), F.silu(x), torch.rsqrt(x.abs()),
                         x.clamp(-0.5, 0.5), torch.clamp(x, min=0), x.pow(2), 1 / x, F.relu(x)),
              [f32(4, 6)]),
    "reductions": (lambda x: (x.sum(-1), x.mean((0, 2), keepdim=True), x.amax(1), x.max(-1).values,
                              x.max(-1).indices, x.argmin(), (x > 0).any(-1), (x > 0).all(),
                              x.argmax(1, keepdim=True)),
                   [f32(2, 3, 4)]),
    "softmaxes": (lambda x: (F.softmax(x, -1), F.log_softmax(x, 1), F.softmax(x, 0, dtype=torch.float32)),
                  [f32(3, 5)]),
    "layout": (lambda x: (x.transpose(0, 2), x.permute(1, 2, 0).reshape(4, -1), x[:, 1], x[..., ::2],
                          x[:, -2:], x.unsqueeze(1).expand(2, 3, 3, 4), x.repeat(2, 1, 1),
                          torch.cat([x, x * 2], dim=1), F.pad(x, (1, 2), value=0.5),
                          *x.split([1, 3], dim=-1), *x.unbind(0), *x.chunk(2, dim=2)),
               [f32(2, 3, 4)]),
    "creation": (lambda x: (x + torch.arange(4), torch.arange(1, 9, 2) * x, torch.full((2, 4), 3.0),
                            torch.zeros_like(x), torch.ones(4, dtype=torch.int64),
                            torch.arange(0.5, 2.5, 0.5)),
                 [f32(2, 4)]),
    "indexing": (lambda x, i, j: (x[i.clamp(-3, 2), j.clamp(-4, 3)], x[:, j.clamp(-4, 3)],
                                  x[i.clamp(-3, 2)], x[:, j.clamp(-4, 3).reshape(2, 2)],
                                  torch.gather(x[..., 0], 1, j.clamp(0, 3).reshape(1, 4).expand(3, 4)),
                                  torch.index_select(x, 0, i.clamp(0, 2)), x.cumsum(1),
                                  i.cumsum(0), x.masked_fill(x > 0, -1.0)),
                 [f32(3, 4, 2), i64(4), i64(4)]),
    "attention": (lambda q, k, v, m: (F.scaled_dot_product_attention(q, k, v),
                                      F.scaled_dot_product_attention(q, k, v, is_causal=True),
                                      F.scaled_dot_product_attention(q, k[:, :, :3], v[:, :, :3],
                                                                     is_causal=True),
                                      F.scaled_dot_product_attention(q, k, v, attn_mask=m > -5,
                                                                     scale=0.3),
                                      F.scaled_dot_product_attention(q, k, v, attn_mask=m * 0.1),
                                      # query 2 sees no key: PyTorch gives it 0
                                      F.scaled_dot_product_attention(
                                          q, k, v, attn_mask=(m > -5) & (torch.arange(5).reshape(5, 1) != 2)),
                                      F.scaled_dot_product_attention(
                                          q, k[:, :2], v[:, :2], enable_gqa=True,
                                          attn_mask=(m < 9) & (torch.arange(5).reshape(5, 1) != 2)),
                                      F.scaled_dot_product_attention(
                                          q, k, v, attn_mask=torch.where(torch.arange(5).reshape(5, 1) == 2,
                                                                         float("-inf"), m)),
                                      F.scaled_dot_product_attention(q, k[:, :2], v[:, :2],
                                                                     enable_gqa=True)),
                  [f32(2, 4, 5, 8), f32(2, 4, 5, 8), f32(2, 4, 5, 8), i64(2, 1, 5, 5).float()]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op(name, tmp_path):
    fn, examples = CASES[name]
    torch.manual_seed(0)
    check(Lambda(fn), *examples, tmp_path=tmp_path)


class Layers(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.patch = torch.nn.Conv2d(3, 8, kernel_size=4, stride=4)
        self.norm = torch.nn.LayerNorm([2, 8])
        self.bare = torch.nn.LayerNorm(8, elementwise_affine=False)
        self.proj = torch.nn.Linear(8, 6)
        self.embed = torch.nn.Embedding(11, 8)

    def forward(self, image, ids):
        x = self.patch(image).flatten(2).transpose(1, 2)        # [1, 6, 8]: 10x9 leaves a rim
        y = self.norm(x.reshape(1, 3, 2, 8)).reshape(1, 6, 8)
        return self.proj(self.bare(y) + self.embed(ids.clamp(0, 10))), self.proj(x[0, 0])


def test_layers(tmp_path):
    torch.manual_seed(0)
    graph = check(Layers(), torch.randn(1, 3, 10, 13), torch.randint(0, 11, (1, 6)),
                  tmp_path=tmp_path)
    assert "@ transpose(proj_weight) + proj_bias" in graph.text


class HalfBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(16)
        self.proj = torch.nn.Linear(16, 16)

    def forward(self, x, mask):
        h = self.proj(self.norm(x))
        q = h.reshape(2, 4, 2, 8).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, q, q, attn_mask=mask > 0)
        return (F.softmax(h.float(), -1).to(x.dtype), a, (h * 2).sum(-1),
                F.softmax(h, -1, dtype=torch.float32), F.log_softmax(h, 0))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["f16", "bf16"])
def test_half_precision(dtype, tmp_path):
    torch.manual_seed(0)
    check(HalfBlock().to(dtype), torch.randn(2, 4, 16, dtype=dtype), torch.randint(-8, 9, (4, 4)),
          tolerance=2e-2, tmp_path=tmp_path)

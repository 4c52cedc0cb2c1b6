"""The models of examples/hf, shared by export.py (here, with the compiler)
and check_gpu.py (on the GPU machine, without it): their configurations,
example inputs, how a model is rebuilt from its class, config and seed,
and the graph code that an artifact's PTX was compiled from.

Real-size weights are not carried to the GPU machine: both sides build the
model from its config with torch.manual_seed(seed) and import it with
python/fkc, and the GPU side checks that its import gives the graph code
the PTX was compiled from (comments aside: they name the source lines of
the installed transformers and torch's version)."""
import hashlib
import re

import torch
import transformers

import fkc

SEED = 0
BATCH, SEQUENCE = 2, 128
PADDED_FROM = 80  # BERT's last sequence is padded from this position on


def configs(small=False):
    """name -> (transformers class name, config).

    The real sizes: GPT-2 small and BERT-base (transformers' defaults), ViT-B/16
    at 224 x 224 with a head of 1000 classes, and a Llama-architecture model of
    about 100M parameters (GQA, RoPE, SwiGLU, RMSNorm, an untied head over
    32000 words). `small`: 4 layers of 256 with odd vocabularies (GPT-2 5003,
    Llama 3001), so that the LM heads are read as transpose(wte) with N not a
    multiple of 8; small enough to carry their weights."""
    if small:
        return {
            "gpt2": ("GPT2LMHeadModel", transformers.GPT2Config(
                n_layer=4, n_embd=256, n_head=4, vocab_size=5003, n_positions=SEQUENCE,
                use_cache=False)),
            "llama": ("LlamaForCausalLM", transformers.LlamaConfig(
                num_hidden_layers=4, hidden_size=256, intermediate_size=688,
                num_attention_heads=8, num_key_value_heads=2, vocab_size=3001,
                max_position_embeddings=SEQUENCE, use_cache=False)),
            "bert": ("BertModel", transformers.BertConfig(
                num_hidden_layers=4, hidden_size=256, intermediate_size=1024,
                num_attention_heads=4, vocab_size=3001, max_position_embeddings=SEQUENCE)),
            "vit": ("ViTForImageClassification", transformers.ViTConfig(
                num_hidden_layers=4, hidden_size=256, intermediate_size=1024,
                num_attention_heads=4, image_size=64, patch_size=16, num_labels=10)),
        }
    return {
        "gpt2": ("GPT2LMHeadModel", transformers.GPT2Config(use_cache=False)),
        "llama": ("LlamaForCausalLM", transformers.LlamaConfig(
            num_hidden_layers=8, hidden_size=1024, intermediate_size=2816,
            num_attention_heads=16, num_key_value_heads=4, vocab_size=32000,
            max_position_embeddings=2048, use_cache=False)),
        "bert": ("BertModel", transformers.BertConfig()),
        "vit": ("ViTForImageClassification", transformers.ViTConfig(num_labels=1000)),
    }


def example_inputs(class_name, config, seed=SEED):
    """{forward argument: tensor}, in forward's order: BATCH sequences of
    SEQUENCE token ids (BERT's last padded from PADDED_FROM on), or BATCH
    images for ViT."""
    g = torch.Generator().manual_seed(seed)
    if class_name.startswith("ViT"):
        size = config.image_size
        return {"pixel_values": torch.randn(BATCH, config.num_channels, size, size,
                                            generator=g).half()}
    inputs = {"input_ids": torch.randint(0, config.vocab_size, (BATCH, SEQUENCE), generator=g)}
    if class_name.startswith("Bert"):
        mask = torch.ones(BATCH, SEQUENCE, dtype=torch.int64)
        mask[-1, PADDED_FROM:] = 0
        inputs["attention_mask"] = mask
    return inputs


def build(class_name, config, seed=SEED):
    """The transformers model in f16 on the CPU, its random weights drawn
    from its config's initializers after torch.manual_seed(seed)."""
    torch.manual_seed(seed)
    return getattr(transformers, class_name)(config).eval().half()


def config_from_dict(class_name, config_dict):
    return getattr(transformers, class_name).config_class.from_dict(config_dict)


def import_model(model, inputs):
    """fkc's import of `model` called on `inputs` (example_inputs' order)."""
    return fkc.from_torch(model, tuple(inputs.values()))


_COMMENT_OR_STRING = re.compile(r'("[^"\n]*")|#[^\n]*')


def graph_code(text):
    """The .graph text without its comments and blank lines: what the
    compiler reads."""
    text = _COMMENT_OR_STRING.sub(lambda m: m.group(1) or "", text)
    return "\n".join(line.rstrip() for line in text.splitlines() if line.strip()) + "\n"


def sha256(code):
    return hashlib.sha256(code.encode()).hexdigest()

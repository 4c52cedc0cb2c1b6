"""Tiny configurations of Hugging Face models with random weights (no downloads)."""
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402
import transformers  # noqa: E402

transformers.logging.set_verbosity_error()
VOCAB = 101


def gpt2(dtype=torch.float32):
    torch.manual_seed(0)
    config = transformers.GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=VOCAB,
                                     n_positions=32, use_cache=False, bos_token_id=0,
                                     eos_token_id=0)
    model = transformers.GPT2LMHeadModel(config).eval().to(dtype)
    return model, (torch.randint(0, VOCAB, (2, 8)),)


def llama(dtype=torch.float32):
    torch.manual_seed(0)
    config = transformers.LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128,
                                      num_attention_heads=4, num_key_value_heads=2,
                                      vocab_size=VOCAB, max_position_embeddings=32,
                                      use_cache=False, bos_token_id=0, eos_token_id=0,
                                      pad_token_id=0)
    model = transformers.LlamaForCausalLM(config).eval().to(dtype)
    return model, (torch.randint(0, VOCAB, (2, 8)),)


def bert(dtype=torch.float32):
    torch.manual_seed(0)
    config = transformers.BertConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128,
                                     num_attention_heads=4, vocab_size=VOCAB,
                                     max_position_embeddings=32, pad_token_id=0)
    model = transformers.BertModel(config).eval().to(dtype)
    ids = torch.randint(0, VOCAB, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.int64)
    mask[1, 5:] = 0  # the second sequence is padded
    return model, (ids, mask)


def vit(dtype=torch.float32):
    torch.manual_seed(0)
    config = transformers.ViTConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128,
                                    num_attention_heads=4, image_size=32, patch_size=8,
                                    num_labels=10)
    model = transformers.ViTForImageClassification(config).eval().to(dtype)
    return model, (torch.randn(2, 3, 32, 32, dtype=dtype),)


MODELS = {"gpt2": gpt2, "llama": llama, "bert": bert, "vit": vit}


def _decoder(model_class, config_class, **extra):
    def build(dtype=torch.float32):
        torch.manual_seed(0)
        config = config_class(num_hidden_layers=2, hidden_size=64, intermediate_size=128,
                              num_attention_heads=4, vocab_size=VOCAB,
                              max_position_embeddings=32, use_cache=False, **extra)
        return model_class(config).eval().to(dtype), (torch.randint(0, VOCAB, (2, 8)),)
    return build


def opt(dtype=torch.float32):
    torch.manual_seed(0)
    config = transformers.OPTConfig(num_hidden_layers=2, hidden_size=64, ffn_dim=128,
                                    num_attention_heads=4, vocab_size=VOCAB,
                                    max_position_embeddings=32, word_embed_proj_dim=64,
                                    use_cache=False)
    return transformers.OPTForCausalLM(config).eval().to(dtype), (torch.randint(0, VOCAB, (2, 8)),)


def distilbert(dtype=torch.float32):
    torch.manual_seed(0)
    config = transformers.DistilBertConfig(n_layers=2, dim=64, hidden_dim=128, n_heads=4,
                                           vocab_size=VOCAB, max_position_embeddings=32)
    return transformers.DistilBertModel(config).eval().to(dtype), (torch.randint(0, VOCAB, (2, 8)),)


def t5(dtype=torch.float32):
    torch.manual_seed(0)
    config = transformers.T5Config(num_layers=2, d_model=64, d_ff=128, num_heads=4, d_kv=16,
                                   vocab_size=VOCAB, use_cache=False)
    ids = torch.randint(0, VOCAB, (2, 8))
    return transformers.T5Model(config).eval().to(dtype), (ids, None, ids[:, :5])


def roberta(dtype=torch.float32):
    torch.manual_seed(0)
    config = transformers.RobertaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128,
                                        num_attention_heads=4, vocab_size=VOCAB,
                                        max_position_embeddings=32, pad_token_id=1)
    return transformers.RobertaModel(config).eval().to(dtype), (torch.randint(2, VOCAB, (2, 8)),)


# Other architectures, imported with nothing specific to them.
MORE_MODELS = {
    "mistral": _decoder(transformers.MistralForCausalLM, transformers.MistralConfig,
                        num_key_value_heads=2),
    "qwen2": _decoder(transformers.Qwen2ForCausalLM, transformers.Qwen2Config, num_key_value_heads=2),
    "gemma": _decoder(transformers.GemmaForCausalLM, transformers.GemmaConfig, num_key_value_heads=2,
                      head_dim=16),
    "phi": _decoder(transformers.PhiForCausalLM, transformers.PhiConfig),
    "gpt_neox": _decoder(transformers.GPTNeoXForCausalLM, transformers.GPTNeoXConfig),
    "opt": opt, "distilbert": distilbert, "t5": t5, "roberta": roberta,
}

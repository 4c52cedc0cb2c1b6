"""The peers fkc is measured against, and what each runs.

    torch_graphs   each case family as torch code (eager and torch.compile
                   run the same function) and the SDPA calls
    jax_graphs     each case family in jax.numpy, for JAX/XLA
    runners        how each peer is set up, checked and timed, fkc included

The functions compute with the graph's dtype semantics: f16 elementwise ops
round per op; norms, softmax and matmul accumulation compute in f32 inside.
This module itself needs neither torch nor JAX.
"""

# In the order they run within a case: fkc last, so that a kernel that
# breaks the CUDA context costs no other peer's figure of its case.
NAMES = ["eager", "compile", "xla", "sdpa_flash", "sdpa_cudnn",
         "sdpa_efficient", "fkc"]
LABELS = {"fkc": "fkc", "eager": "PyTorch eager",
          "compile": "torch.compile", "xla": "JAX/XLA",
          "sdpa_flash": "SDPA flash", "sdpa_cudnn": "SDPA cuDNN",
          "sdpa_efficient": "SDPA efficient"}
# The order of the report's columns.
TABLE_ORDER = ["fkc", "eager", "compile", "xla", "sdpa_flash", "sdpa_cudnn",
               "sdpa_efficient"]
# Columns the report shows only when some case of the run has that peer
# (peers added after reports were committed, which stay as they were).
OPTIONAL_COLUMNS = ("sdpa_efficient",)
# The peers that run only the attention cases. The memory-efficient
# backend is SDPA's only one for f32.
SDPA = ("sdpa_flash", "sdpa_cudnn", "sdpa_efficient")

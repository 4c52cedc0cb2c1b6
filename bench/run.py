#!/usr/bin/env python3
"""fkc's peer benchmark: every case of bench/cases/ run by fkc (its compiled
artifact through the runtime's Python binding), PyTorch eager, torch.compile,
JAX/XLA and, for attention, SDPA's flash and cuDNN backends, in one process
on one GPU, on the same inputs. fkc's outputs are checked against eager's.

    bash bench/compile.sh                        # on the dev machine
    python3 bench/run.py [--quick] [--cases gelu*,softmax_f16] [--commit SHA]
    python3 bench/run.py --dry-run               # the plan, needs no torch

Writes <date>-<gpu>.json and .md into --out (default $OUT if set, else
bench/results/) and prints the Markdown table last. The code is the package
bench/fkbench/; bench/README.md says how each figure is computed.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fkbench.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())

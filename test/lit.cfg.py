# The fkc lit suite: dialect round trips and verifiers, front-end
# diagnostics, the reference interpreter, the tools and the examples.
import os
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "fkc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".graph", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fkc_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    ["fkc", "fkc-opt"], [config.fkc_tools_dir])

config.substitutions.append(("%fkc_src_root", config.fkc_src_root))
# Writes and dumps .safetensors files with Python's standard library.
config.substitutions.append(
    ("%safetensors", sys.executable + " " +
     os.path.join(config.fkc_src_root, "test", "Inputs", "safetensors.py")))

fuzzer = os.path.join(config.fkc_tools_dir, "fkc-parser-fuzzer")
if os.path.exists(fuzzer):
    config.available_features.add("fuzzer")
    config.substitutions.append(("%fkc-parser-fuzzer", fuzzer))
    config.substitutions.append(
        ("%fuzz_seconds", os.environ.get("FKC_FUZZ_SECONDS", "60")))

# Every PTX the tests write goes through ptxas: `%ptxas FILE` checks FILE for
# sm_90a (tests of other targets pass -arch after it). Without ptxas the
# PTX is still written and checked by FileCheck, and lit says it skipped ptxas.
def find_ptxas():
    candidates = [os.environ.get("PTXAS", "")]
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        candidates.append(os.path.join(directory, "ptxas"))
    for root in [os.environ.get("CUDA_HOME", ""), os.environ.get("CUDA_PATH", ""),
                 "/usr/local/cuda"]:
        if root:
            candidates.append(os.path.join(root, "bin", "ptxas"))
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


ptxas = find_ptxas()
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas + " -o /dev/null -arch=sm_90a"))
else:
    lit_config.note("ptxas not found (set PTXAS or CUDA_HOME): the tests' PTX "
                    "is not checked by ptxas")
    config.substitutions.append(("%ptxas", "true"))

# test/random/random-graphs.test runs for FKC_RANDOM_SECONDS (60 by default)
# from the seed FKC_RANDOM_SEED (1 by default; "random" draws a fresh one).
config.substitutions.append(
    ("%random_seconds", os.environ.get("FKC_RANDOM_SECONDS", "60")))
config.substitutions.append(
    ("%random_seed", os.environ.get("FKC_RANDOM_SEED", "1")))
config.substitutions.append(("%{random_ptxas}", ptxas or "none"))

"""How each peer is set up, checked against eager and timed, in a worker
process. Eager runs first and its outputs are the reference; fkc runs its
artifact through the runtime's Python binding (runtime/python/fkrt.py).
JAX and fkrt are loaded on first use, and a peer that cannot be loaded is
reported unavailable with the reason rather than failing the run."""

import os
import sys
import time

from .. import artifacts, paths
from ..checks import check_into
from ..inputs import nan_outputs
from ..report import error_text
from .jax_graphs import jax_function
from .torch_graphs import sdpa_function, torch_function


class Peers:
    """The peers of one worker. `record` writes a record for the
    supervisor (JAX's versions, once loaded). Every peer method takes the
    case, its inputs and `ctx`, the case's shared state (eager's outputs
    as "ref"), and returns the peer's result."""

    def __init__(self, args, torch, device, timer, record):
        self.args, self.torch, self.device = args, torch, device
        self.timer, self.record = timer, record
        self.cuda = device.type == "cuda"
        self.jax = self.jax_error = None
        self.fkrt = self.fkrt_error = None
        self.by_name = {"eager": self.eager, "compile": self.compile,
                        "xla": self.xla,
                        "sdpa_flash": self.sdpa("FLASH_ATTENTION"),
                        "sdpa_cudnn": self.sdpa("CUDNN_ATTENTION"),
                        "sdpa_efficient": self.sdpa("EFFICIENT_ATTENTION"),
                        "fkc": self.fkc}

    def run(self, peer, case, inputs, ctx):
        return self.by_name[peer](case, inputs, ctx)

    def end_case(self, ctx):
        """Releases what the case's peers hold: fkc's module, JAX's
        compiled functions."""
        module = ctx.pop("fkc_module", None)
        ctx.clear()
        if module is not None:
            module.close()
        if self.jax is not None:
            try:
                self.jax.clear_caches()
            except Exception:
                pass

    # -- loading -------------------------------------------------------------

    def load_jax(self):
        if self.jax is not None or self.jax_error is not None:
            return self.jax
        # Let JAX take memory as it needs it: by default it takes 75% of
        # the GPU at start, which torch then lacks.
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        try:
            import jax
            import jax.numpy  # noqa: F401
            backend = jax.default_backend()
            if self.cuda and backend not in ("gpu", "cuda"):
                raise RuntimeError("JAX has no GPU backend (default backend "
                                   "is %s)" % backend)
            self.jax = jax
            import jaxlib
            self.record({"type": "jax", "jax": jax.__version__,
                         "jaxlib": getattr(jaxlib, "__version__", None),
                         "backend": backend,
                         "jax_device": str(jax.devices()[0])})
        except Exception as e:
            self.jax_error = error_text(e)
        return self.jax

    def load_fkrt(self):
        if self.fkrt is not None or self.fkrt_error is not None:
            return self.fkrt
        lib = paths.fkrt_library(self.args.fkrt_lib)
        os.environ["FKRT_LIBRARY"] = lib
        sys.path.insert(0, os.path.join(paths.REPO, "runtime", "python"))
        try:
            import fkrt
            fkrt.library()
            self.fkrt = fkrt
        except Exception as e:
            self.fkrt_error = "fkrt library %s: %s" % (lib, error_text(e))
        return self.fkrt

    # -- the peers -----------------------------------------------------------

    def _sync(self):
        self.timer.sync()

    def _torch(self, case, fn, inputs, ref, compiles):
        """Checks and times a torch function; `compiles`: whether its first
        call compiles (then it does not count as an estimate)."""
        result = {}
        t0 = time.perf_counter()
        outs = fn(*inputs)
        self._sync()
        first = time.perf_counter() - t0
        result["first_call_s"] = first
        check_into(self.torch, result, outs, ref, case.tolerance, gate=False)
        del outs
        result.update(self.timer.time_events(lambda: fn(*inputs),
                                             None if compiles else first))
        return result

    def eager(self, case, inputs, ctx):
        fn = torch_function(case, self.torch, self.device)
        outs = fn(*inputs)
        self._sync()
        ctx["ref"] = outs
        shapes = [tuple(o.shape) for o in outs]
        want = [t.shape for t in case.outputs]
        if shapes != want:
            raise RuntimeError("eager outputs have shapes %s, the artifact "
                               "declares %s" % (shapes, want))
        return self.timer.time_events(lambda: fn(*inputs))

    def compile(self, case, inputs, ctx):
        torch = self.torch
        torch._dynamo.reset()
        fn = torch_function(case, torch, self.device)
        mode = None if self.args.compile_mode == "default" else \
            self.args.compile_mode
        cfn = torch.compile(fn, dynamic=False, mode=mode)
        result = self._torch(case, cfn, inputs, ctx.get("ref"),
                             compiles=True)
        result["compile_mode"] = self.args.compile_mode
        return result

    def sdpa(self, backend):
        def peer(case, inputs, ctx):
            fn = sdpa_function(case, self.torch, backend)
            return self._torch(case, fn, inputs, ctx.get("ref"),
                               compiles=False)
        return peer

    def xla(self, case, inputs, ctx):
        jax = self.load_jax()
        if jax is None:
            return {"status": "unavailable", "reason": self.jax_error}
        torch = self.torch
        self._sync()
        arrays, how = [], "dlpack"
        for t in inputs:
            try:
                arrays.append(jax.dlpack.from_dlpack(t))
            except Exception:
                import numpy as np
                how = "copy"
                arrays.append(jax.device_put(np.asarray(t.cpu())))
        jfn = jax.jit(jax_function(case, jax))

        def block(out):
            jax.block_until_ready(out)
        t0 = time.perf_counter()
        outs = jfn(*arrays)
        block(outs)
        first = time.perf_counter() - t0
        result = {"first_call_s": first, "inputs_via": how}
        try:
            touts = [torch.from_dlpack(o) for o in outs]
        except Exception:
            import numpy as np
            touts = [torch.as_tensor(np.asarray(o)).to(self.device)
                     for o in outs]
        check_into(torch, result, touts, ctx.get("ref"), case.tolerance,
                   gate=False)
        del touts, outs
        result.update(self.timer.time_jax(lambda: jfn(*arrays), block))
        del arrays, jfn
        return result

    def fkc(self, case, inputs, ctx):
        if self.args.shrink > 1:
            return {"status": "skipped",
                    "reason": "--shrink: the artifact has the full shapes"}
        fkrt = self.load_fkrt()
        if fkrt is None:
            return {"status": "unavailable", "reason": self.fkrt_error}
        path = artifacts.artifact_path(self.args.artifacts, case.name)
        graph = case.signature.name
        result = {"artifact": paths.relative(path), "graph": graph}
        module = fkrt.Module(path)      # validates the whole manifest
        ctx["fkc_module"] = module
        result["launches"] = module.launch_count(graph)
        result["workspace_bytes"] = module.workspace_bytes(graph)
        result["target"] = module.target
        if not self.cuda:
            result.update(status="skipped", reason="not on a CUDA device "
                          "(the runtime read the artifact)")
            return result
        t0 = time.perf_counter()
        module.load_cuda(self.device.index or 0)
        result["jit_load_s"] = time.perf_counter() - t0
        outs = nan_outputs(self.torch, case, self.device)
        self._sync()

        def fn():
            module.run(graph, inputs, outputs=outs)
        t0 = time.perf_counter()
        fn()
        self._sync()
        first = time.perf_counter() - t0
        result["first_call_s"] = first
        check_into(self.torch, result, outs, ctx.get("ref"), case.tolerance,
                   gate=True)
        result.update(self.timer.time_events(fn, first))
        return result

"""Python binding of the fkc runtime (fkrt), over its C API with ctypes.

    m = fkrt.Module("model.ptx")          # parse and validate; no GPU needed
    m.graph_names(), m.inputs("mlp")      # manifest queries
    y, = m.run("mlp", [x])                # torch CUDA tensors in and out

The library is found through $FKRT_LIBRARY, then next to this file or in
../../lib relative to it (an installed prefix), then the loader's search path.
"""

import ctypes
import ctypes.util
import os

F32, F16, BF16, I32, I1 = range(5)
DTYPE_NAMES = {F32: "f32", F16: "f16", BF16: "bf16", I32: "i32", I1: "i1"}


class Error(RuntimeError):
    """A failed runtime call; `status` is the fkrt_status code."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class _TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("bytes", ctypes.c_uint64)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64))]


def _candidates():
    env = os.environ.get("FKRT_LIBRARY")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    names = ["libfkrt.so", "libfkrt.so.1"]
    paths = [os.path.join(here, n) for n in names]
    paths += [os.path.join(here, "..", "..", "..", "lib", n) for n in names]
    found = ctypes.util.find_library("fkrt")
    return paths + ([found] if found else [])


def _load_library():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(str(e))
    raise OSError("cannot load the fkrt library (set FKRT_LIBRARY): " +
                  "; ".join(errors))


_lib = None


def library():
    """The loaded C library, with its prototypes declared (loaded once)."""
    global _lib
    if _lib is not None:
        return _lib
    lib = _load_library()
    m, size, status = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
    protos = {
        "fkrt_status_string": (ctypes.c_char_p, [status]),
        "fkrt_last_error": (ctypes.c_char_p, []),
        "fkrt_module_load_file": (status, [ctypes.c_char_p, ctypes.POINTER(m)]),
        "fkrt_module_load_memory": (status, [ctypes.c_char_p, size,
                                             ctypes.POINTER(m)]),
        "fkrt_module_load_cuda": (status, [m, ctypes.c_int]),
        "fkrt_module_destroy": (None, [m]),
        "fkrt_manifest_version": (ctypes.c_int, [m]),
        "fkrt_manifest_target": (ctypes.c_char_p, [m]),
        "fkrt_manifest_graph_count": (size, [m]),
        "fkrt_manifest_graph_name": (ctypes.c_char_p, [m, size]),
        "fkrt_manifest_find_graph": (status, [m, ctypes.c_char_p,
                                              ctypes.POINTER(size)]),
        "fkrt_manifest_input_count": (size, [m, size]),
        "fkrt_manifest_output_count": (size, [m, size]),
        "fkrt_manifest_input": (status, [m, size, size,
                                         ctypes.POINTER(_TensorInfo)]),
        "fkrt_manifest_output": (status, [m, size, size,
                                          ctypes.POINTER(_TensorInfo)]),
        "fkrt_manifest_workspace_bytes": (ctypes.c_uint64, [m, size]),
        "fkrt_run": (status, [m, ctypes.c_char_p, ctypes.POINTER(_Tensor),
                              size, ctypes.POINTER(_Tensor), size,
                              ctypes.c_void_p]),
    }
    for name, (restype, argtypes) in protos.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    _lib = lib
    return lib


def _check(status):
    if status != 0:
        lib = library()
        raise Error(status, "%s: %s" % (lib.fkrt_status_string(status).decode(),
                                        lib.fkrt_last_error().decode()))


def _torch_dtypes():
    import torch
    return {F32: torch.float32, F16: torch.float16, BF16: torch.bfloat16,
            I32: torch.int32, I1: torch.bool}


class TensorInfo:
    """A graph input or output signature from the manifest."""

    def __init__(self, info):
        self.name = info.name.decode()
        self.dtype = DTYPE_NAMES[info.dtype]
        self.dtype_code = info.dtype
        self.shape = tuple(info.shape[i] for i in range(info.rank))
        self.bytes = info.bytes

    def __repr__(self):
        return "TensorInfo(%r, %s, %r)" % (self.name, self.dtype, self.shape)


class Module:
    """An fkc artifact: manifest queries without a GPU, runs with one."""

    def __init__(self, path=None, data=None):
        lib = library()
        self._lib = lib
        self._m = ctypes.c_void_p()
        self._loaded = False
        if (path is None) == (data is None):
            raise ValueError("give exactly one of path and data")
        if path is not None:
            _check(lib.fkrt_module_load_file(os.fsencode(path),
                                             ctypes.byref(self._m)))
        else:
            _check(lib.fkrt_module_load_memory(bytes(data), len(data),
                                               ctypes.byref(self._m)))

    def close(self):
        if self._m:
            self._lib.fkrt_module_destroy(self._m)
            self._m = ctypes.c_void_p()

    def __del__(self):
        if getattr(self, "_m", None):
            self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def version(self):
        return self._lib.fkrt_manifest_version(self._m)

    @property
    def target(self):
        return self._lib.fkrt_manifest_target(self._m).decode()

    def graph_names(self):
        count = self._lib.fkrt_manifest_graph_count(self._m)
        return [self._lib.fkrt_manifest_graph_name(self._m, g).decode()
                for g in range(count)]

    def _graph(self, name):
        index = ctypes.c_size_t()
        _check(self._lib.fkrt_manifest_find_graph(self._m, name.encode(),
                                                  ctypes.byref(index)))
        return index.value

    def _infos(self, name, count_fn, info_fn):
        g = self._graph(name)
        result = []
        for i in range(count_fn(self._m, g)):
            info = _TensorInfo()
            _check(info_fn(self._m, g, i, ctypes.byref(info)))
            result.append(TensorInfo(info))
        return result

    def inputs(self, graph):
        return self._infos(graph, self._lib.fkrt_manifest_input_count,
                           self._lib.fkrt_manifest_input)

    def outputs(self, graph):
        return self._infos(graph, self._lib.fkrt_manifest_output_count,
                           self._lib.fkrt_manifest_output)

    def workspace_bytes(self, graph):
        return self._lib.fkrt_manifest_workspace_bytes(self._m,
                                                       self._graph(graph))

    def load_cuda(self, device=0):
        """JIT-loads the PTX on CUDA device `device` (run() does it once)."""
        _check(self._lib.fkrt_module_load_cuda(self._m, device))
        self._loaded = True

    def run(self, graph, inputs, outputs=None, stream=None):
        """Runs `graph` on torch CUDA tensors; returns the outputs.

        Outputs not given are allocated with torch on the first input's
        device. The run is enqueued on `stream` (a torch.cuda.Stream), or on
        torch's current stream, so it orders with torch's own work.
        """
        import torch
        dtypes = _torch_dtypes()
        if not self._loaded:
            device = inputs[0].device if inputs else torch.device("cuda")
            self.load_cuda(device.index or 0)
        if outputs is None:
            device = inputs[0].device if inputs else torch.device("cuda")
            outputs = [torch.empty(o.shape, dtype=dtypes[o.dtype_code],
                                   device=device)
                       for o in self.outputs(graph)]
        codes = {v: k for k, v in dtypes.items()}
        keep = []

        def convert(tensors, role):
            array = (_Tensor * max(len(tensors), 1))()
            for i, t in enumerate(tensors):
                if not t.is_cuda or not t.is_contiguous():
                    raise ValueError("%s %d: expected a contiguous CUDA tensor"
                                     % (role, i))
                if t.dtype not in codes:
                    raise ValueError("%s %d: unsupported dtype %s"
                                     % (role, i, t.dtype))
                shape = (ctypes.c_int64 * max(t.dim(), 1))(*t.shape)
                keep.append(shape)
                array[i] = _Tensor(t.data_ptr(), codes[t.dtype], t.dim(),
                                   shape)
            return array

        ins, outs = convert(inputs, "input"), convert(outputs, "output")
        if stream is None:
            stream = torch.cuda.current_stream(inputs[0].device if inputs
                                               else None)
        _check(self._lib.fkrt_run(self._m, graph.encode(), ins, len(inputs),
                                  outs, len(outputs), stream.cuda_stream))
        return outputs

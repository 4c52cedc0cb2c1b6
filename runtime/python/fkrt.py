"""Python binding of the fkc runtime (fkrt), over its C API with ctypes.

    m = fkrt.Module("model.ptx")          # parse and validate; no GPU needed
    m.graph_names(), m.inputs("mlp")      # manifest queries
    y, = m.run("mlp", [x])                # torch CUDA tensors in and out

`Module.run` takes torch CUDA tensors, or any object torch can import
without a copy: one with `__dlpack__` (JAX, CuPy, NumPy-on-GPU libraries) or
`__cuda_array_interface__` (CuPy, Numba). Each tensor must be dense
(C-contiguous) and on one CUDA device, with exactly the dtype and shape the
manifest declares. The run is enqueued on torch's current stream unless a
stream is given, so it is ordered with torch's own work; it returns without
waiting for the kernels.

A graph with symbols (artifact version 4) takes sizes from its inputs at
each run. In `TensorInfo.shape` a static dimension is an int and a symbolic
one the manifest's text, a str: `('B*S', 768)` (its `bytes` is then 0).
`Module.symbols(graph)` gives the symbols and their bounds in manifest order,
`{'S': 4096, 'B': None}` (None: unbounded). `run` takes each symbol's size
from the first input dimension that is the symbol alone, checks every
symbolic dimension against those sizes through the runtime (ArgumentError,
before the module touches CUDA), and allocates outputs at the shapes they
give, which `Module.output_shapes(graph, input_shapes)` computes without a
GPU.

The library is found through $FKRT_LIBRARY, then next to this file (where
`pip install ./runtime` puts it, this file being the package's __init__.py),
then in <prefix>/lib when this file is installed as
<prefix>/share/fkrt/python/fkrt.py, then on the loader's search path.
"""

import ctypes
import ctypes.util
import os
import threading

F32, F16, BF16, I32, I1, I64 = range(6)
DTYPE_NAMES = {F32: "f32", F16: "f16", BF16: "bf16", I32: "i32", I1: "i1",
               I64: "i64"}
DTYPE_SIZES = {F32: 4, F16: 2, BF16: 2, I32: 4, I1: 1, I64: 8}

# fkrt_status codes (runtime.h).
SUCCESS = 0
ERROR_INVALID_ARGUMENT = 1
ERROR_IO = 2
ERROR_INVALID_ARTIFACT = 3
ERROR_UNSUPPORTED_VERSION = 4
ERROR_NOT_FOUND = 5
ERROR_NO_DRIVER = 6
ERROR_CUDA = 7
ERROR_JIT = 8
ERROR_NOT_LOADED = 9
ERROR_OUT_OF_MEMORY = 10


class Error(RuntimeError):
    """A failed runtime call; `status` is the fkrt_status code."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class ArgumentError(Error, ValueError):
    """A tensor (or count of tensors) that does not match the graph's
    signature, found before anything is enqueued (by the binding, or by the
    runtime's check of a run's sizes). Its status is ERROR_INVALID_ARGUMENT,
    as the C API would report."""

    def __init__(self, message):
        super().__init__(ERROR_INVALID_ARGUMENT, message)


class _TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("bytes", ctypes.c_uint64)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32),
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
_lib_lock = threading.Lock()

# A non-null address aligned as the runtime wants, for calls that check
# tensors but never read them.
_STAND_IN_ADDRESS = 256


def library():
    """The loaded C library, with its prototypes declared (loaded once)."""
    global _lib
    with _lib_lock:
        if _lib is not None:
            return _lib
        lib = _load_library()
        m, size, status = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
        protos = {
            "fkrt_status_string": (ctypes.c_char_p, [status]),
            "fkrt_last_error": (ctypes.c_char_p, []),
            "fkrt_dtype_name": (ctypes.c_char_p, [ctypes.c_int]),
            "fkrt_dtype_size": (size, [ctypes.c_int]),
            "fkrt_module_load_file": (status, [ctypes.c_char_p,
                                               ctypes.POINTER(m)]),
            "fkrt_module_load_memory": (status, [ctypes.c_char_p, size,
                                                 ctypes.POINTER(m)]),
            "fkrt_module_load_cuda": (status, [m, ctypes.c_int]),
            "fkrt_module_destroy": (None, [m]),
            "fkrt_manifest_version": (ctypes.c_int, [m]),
            "fkrt_manifest_target": (ctypes.c_char_p, [m]),
            "fkrt_manifest_allow_tf32": (ctypes.c_int, [m]),
            "fkrt_manifest_persistent_sm_count": (ctypes.c_int, [m]),
            "fkrt_device_sm_count": (status, [ctypes.c_int,
                                              ctypes.POINTER(ctypes.c_int)]),
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
            "fkrt_manifest_input_dim": (ctypes.c_char_p, [m, size, size,
                                                          size]),
            "fkrt_manifest_output_dim": (ctypes.c_char_p, [m, size, size,
                                                           size]),
            "fkrt_manifest_symbol_count": (size, [m, size]),
            "fkrt_manifest_symbol_name": (ctypes.c_char_p, [m, size, size]),
            "fkrt_manifest_symbol_max": (ctypes.c_int64, [m, size, size]),
            "fkrt_manifest_symbol_min": (ctypes.c_int64, [m, size, size]),
            "fkrt_output_shape": (status, [m, ctypes.c_char_p,
                                           ctypes.POINTER(_Tensor), size,
                                           size,
                                           ctypes.POINTER(ctypes.c_int64)]),
            "fkrt_manifest_workspace_bytes": (ctypes.c_uint64, [m, size]),
            "fkrt_manifest_output_aliases": (ctypes.c_int64, [m, size, size]),
            "fkrt_manifest_launch_count": (size, [m, size]),
            "fkrt_run": (status, [m, ctypes.c_char_p, ctypes.POINTER(_Tensor),
                                  size, ctypes.POINTER(_Tensor), size,
                                  ctypes.c_void_p]),
            "fkrt_run_bound": (status, [m, ctypes.c_char_p,
                                        ctypes.POINTER(_Tensor), size,
                                        ctypes.POINTER(_Tensor), size,
                                        ctypes.c_void_p]),
            "fkrt_bind_weights": (status, [m, ctypes.c_char_p,
                                           ctypes.c_char_p]),
            "fkrt_input_bound": (ctypes.c_int, [m, size, size]),
            "fkrt_driver_available": (status, []),
            "fkrt_set_cuda_graphs": (status, [m, ctypes.c_int]),
            "fkrt_cuda_graphs": (ctypes.c_int, [m]),
            "fkrt_set_concurrent_launches": (status, [m, ctypes.c_int]),
            "fkrt_concurrent_launches": (ctypes.c_int, [m]),
            "fkrt_cuda_graph_count": (size, [m]),
        }
        for name, (restype, argtypes) in protos.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
        _lib = lib
        return lib


def _check(status):
    if status != SUCCESS:
        lib = library()
        # A message may quote bytes that are not UTF-8 (a file's path): they
        # are shown escaped rather than turning the error into another one.
        raise Error(status, "%s: %s" % (
            lib.fkrt_status_string(status).decode(),
            lib.fkrt_last_error().decode("utf-8", "backslashreplace")))


def driver_available():
    """True if the CUDA driver (libcuda.so.1) and every entry point the
    runtime uses can be loaded. Does not initialise CUDA."""
    return library().fkrt_driver_available() == SUCCESS


def device_sm_count(device=0):
    """The streaming multiprocessors of CUDA device `device`: a persistent
    kernel launches a block per SM of the device it runs on."""
    count = ctypes.c_int(0)
    _check(library().fkrt_device_sm_count(device, ctypes.byref(count)))
    return count.value


def _import_torch():
    try:
        import torch
    except ImportError as e:
        raise ImportError("fkrt.Module.run needs PyTorch (import torch "
                          "failed: %s)" % e) from e
    return torch


_dtype_map = None


def _torch_dtypes(torch):
    global _dtype_map
    if _dtype_map is None:
        _dtype_map = {F32: torch.float32, F16: torch.float16,
                      BF16: torch.bfloat16, I32: torch.int32, I1: torch.bool,
                      I64: torch.int64}
    return _dtype_map


def _shape_text(shape):
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _int64s(values):
    """`values` as a C array of int64 (one entry at least, for rank 0)."""
    return (ctypes.c_int64 * max(len(values), 1))(*values)


def _static_array(shape):
    """A static shape as a C array, built once; None for a symbolic one,
    whose sizes each run gives."""
    return None if any(isinstance(d, str) for d in shape) else _int64s(shape)


class TensorInfo:
    """A graph input or output signature from the manifest. Names are
    str: the runtime rejects a manifest that is not UTF-8 when loading it.
    `shape` holds an int per static dimension and the text of each symbolic
    one ("B*S"), whose size each run gives; `bytes` is 0 if any is symbolic.
    """

    def __init__(self, info, dim_text):
        self.name = info.name.decode()
        self.dtype = DTYPE_NAMES[info.dtype]
        self.dtype_code = info.dtype
        # dim_text(axis): the manifest's text of a symbolic dimension, else
        # None (the C API reports the dimension as -1).
        self.shape = tuple(info.shape[i] if info.shape[i] >= 0
                           else dim_text(i).decode()
                           for i in range(info.rank))
        self.bytes = info.bytes
        # For an output written into an input's buffer (an inout
        # parameter's new value): that input's index; else None.
        self.aliases = None
        # For an input: whether a weight is bound to it (bind_weights), so
        # that run() does not take it.
        self.bound = False

    def __repr__(self):
        return "TensorInfo(%r, %s, %r)" % (self.name, self.dtype, self.shape)

    def type_text(self):
        """The type as the language writes it, e.g. "f16[64, 32]" or
        "f16[B*S, 768]"."""
        return self.dtype + _shape_text(self.shape)


class _Signature:
    """What run() needs of one graph, read from the manifest once: tensor
    infos, the graph's symbols and static shapes as ctypes arrays
    (immutable, shared by runs)."""

    def __init__(self, name, inputs, outputs, symbols):
        self.name = name
        self.all_inputs = inputs
        self.inputs = [i for i in inputs if not i.bound]
        self.outputs = outputs
        self.symbols = symbols
        self.where = "run: graph '%s'" % name
        self.input_shapes = [_static_array(i.shape) for i in self.inputs]
        self.output_shapes = [_static_array(o.shape) for o in outputs]
        # The shape arrays of the bound inputs (static: the manifest's),
        # for fkrt_output_shape; None where a call gives the shape.
        self.bound_shapes = [_static_array(i.shape) if i.bound else None
                             for i in inputs]
        self._shape_arrays = {}

    def shape_array(self, shape):
        """A symbolic tensor's shape at a run (a tuple) as a C array, shared
        by the runs of that shape (a generation loop's caches keep theirs):
        the runtime only reads it during a call."""
        array = self._shape_arrays.get(shape)
        if array is None:
            if len(self._shape_arrays) >= 1024:
                self._shape_arrays.clear()
            array = self._shape_arrays[shape] = _int64s(shape)
        return array

    def count_error(self, where, count):
        return ArgumentError("%s takes %d inputs (%s), got %d" % (
            where, len(self.inputs),
            ", ".join(i.name for i in self.inputs) or "none", count))


def _stream_handle(stream):
    """A CUstream handle from an int or a stream object of torch
    (`cuda_stream`) or CuPy (`ptr`)."""
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr"):
        handle = getattr(stream, attr, None)
        if isinstance(handle, int):
            return handle
    raise TypeError("run: stream must be a torch.cuda.Stream, an object "
                    "with a 'cuda_stream' or 'ptr' handle, or an int "
                    "(CUstream), got %s" % type(stream).__name__)


class Module:
    """An fkc artifact: manifest queries without a GPU, runs with one."""

    def __init__(self, path=None, data=None):
        lib = library()
        self._lib = lib
        self._m = ctypes.c_void_p()
        self._device = None      # CUDA ordinal once loaded
        self._load_lock = threading.Lock()
        self._signatures = {}
        self._dummy = {}         # device -> a small tensor for empty tensors
        if (path is None) == (data is None):
            raise ValueError("give exactly one of path and data")
        if path is not None:
            _check(lib.fkrt_module_load_file(os.fsencode(path),
                                             ctypes.byref(self._m)))
        else:
            data = bytes(data)
            _check(lib.fkrt_module_load_memory(data, len(data),
                                               ctypes.byref(self._m)))

    def close(self):
        """Destroys the module, waiting for its runs in flight to finish."""
        if self._m:
            self._lib.fkrt_module_destroy(self._m)
            self._m = ctypes.c_void_p()
            self._signatures = {}
            self._dummy = {}

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

    @property
    def allow_tf32(self):
        """Whether f32 matmuls may run on TF32 tensor cores (fkc --allow-tf32)."""
        return bool(self._lib.fkrt_manifest_allow_tf32(self._m))

    @property
    def persistent_sm_count(self):
        """The SM count the artifact's persistent kernels were sized for (0
        if it has none); on a device of another count they launch a block
        per SM of that device (docs/artifact.md, `persistent`)."""
        return self._lib.fkrt_manifest_persistent_sm_count(self._m)

    @property
    def device(self):
        """The CUDA ordinal the module is loaded on, or None."""
        return self._device

    def graph_names(self):
        count = self._lib.fkrt_manifest_graph_count(self._m)
        return [self._lib.fkrt_manifest_graph_name(self._m, g).decode()
                for g in range(count)]

    def _graph(self, name):
        index = ctypes.c_size_t()
        _check(self._lib.fkrt_manifest_find_graph(self._m, name.encode(),
                                                  ctypes.byref(index)))
        return index.value

    def _infos(self, name, count_fn, info_fn, dim_fn):
        g = self._graph(name)
        result = []
        for i in range(count_fn(self._m, g)):
            info = _TensorInfo()
            _check(info_fn(self._m, g, i, ctypes.byref(info)))
            result.append(TensorInfo(
                info, lambda axis: dim_fn(self._m, g, i, axis)))
        return result

    def inputs(self, graph):
        infos = self._infos(graph, self._lib.fkrt_manifest_input_count,
                            self._lib.fkrt_manifest_input,
                            self._lib.fkrt_manifest_input_dim)
        index = self._graph(graph)
        for i, info in enumerate(infos):
            info.bound = bool(self._lib.fkrt_input_bound(self._m, index, i))
        return infos

    def outputs(self, graph):
        infos = self._infos(graph, self._lib.fkrt_manifest_output_count,
                            self._lib.fkrt_manifest_output,
                            self._lib.fkrt_manifest_output_dim)
        index = self._graph(graph)
        for i, info in enumerate(infos):
            aliases = self._lib.fkrt_manifest_output_aliases(self._m, index, i)
            info.aliases = aliases if aliases >= 0 else None
        return infos

    def symbols(self, graph):
        """The graph's symbols in manifest order, each with its bound (the
        largest size a run may give it) or None: {"S": 4096, "B": None}.
        Empty for a graph of static shapes."""
        g, lib = self._graph(graph), self._lib
        result = {}
        for s in range(lib.fkrt_manifest_symbol_count(self._m, g)):
            bound = lib.fkrt_manifest_symbol_max(self._m, g, s)
            result[lib.fkrt_manifest_symbol_name(self._m, g, s).decode()] = (
                bound if bound >= 0 else None)
        return result

    def symbol_lower_bounds(self, graph):
        """The graph's symbols in manifest order, each with its lower bound
        (the smallest size a run may give it; 0 without one): {"S": 1,
        "B": 0}. Empty for a graph of static shapes."""
        g, lib = self._graph(graph), self._lib
        return {lib.fkrt_manifest_symbol_name(self._m, g, s).decode():
                lib.fkrt_manifest_symbol_min(self._m, g, s)
                for s in range(lib.fkrt_manifest_symbol_count(self._m, g))}

    def output_shapes(self, graph, input_shapes):
        """The shapes of `graph`'s outputs for a run whose inputs (those
        run() takes: all but the ones bound with bind_weights) have
        `input_shapes`, as tuples of ints. The runtime checks the shapes as
        run() does (ArgumentError). Needs no GPU."""
        sig = self._signature(graph)
        shapes = [tuple(s) for s in input_shapes]
        if len(shapes) != len(sig.inputs):
            raise sig.count_error("output_shapes: graph '%s'" % graph,
                                  len(shapes))
        return self._output_shapes(sig, shapes, "output_shapes")

    def _output_shapes(self, sig, shapes, caller):
        """fkrt_output_shape for each output; `shapes` are those of the
        inputs run() takes. Its errors read as `caller`'s."""
        given = iter(shapes)
        all_shapes = [info.shape if info.bound else next(given)
                      for info in sig.all_inputs]
        # The bound inputs' arrays are built once (a model has hundreds of
        # weights); the others per call.
        arrays = [bound if bound is not None else _int64s(shape)
                  for bound, shape in zip(sig.bound_shapes, all_shapes)]
        tensors = (_Tensor * max(len(arrays), 1))()
        for i, info in enumerate(sig.all_inputs):
            # Only the shapes are read, but each tensor is checked as
            # fkrt_run checks it: an aligned stand-in for every address
            # lets the sizes be checked before the tensors' devices are.
            tensors[i] = _Tensor(_STAND_IN_ADDRESS, info.dtype_code,
                                 len(all_shapes[i]), arrays[i])
        result = []
        # Outputs whose shape the runtime computes; an inout parameter's
        # new value has its shape, but the runtime still checks the inputs
        # once where every output is one.
        computed = [o for o, info in enumerate(sig.outputs)
                    if info.aliases is None] or [0][:len(sig.outputs)]
        for o, info in enumerate(sig.outputs):
            if o not in computed:
                result.append(tuple(shapes[info.aliases]))
                continue
            out = _int64s([0] * len(info.shape))
            status = self._lib.fkrt_output_shape(
                self._m, sig.name.encode(), tensors, len(arrays), o, out)
            if status == ERROR_INVALID_ARGUMENT:
                message = self._lib.fkrt_last_error().decode()
                prefix = "fkrt_output_shape: "
                if message.startswith(prefix):
                    message = caller + ": " + message[len(prefix):]
                raise ArgumentError(message)
            _check(status)
            result.append(tuple(out[:len(info.shape)]))
        return result

    def workspace_bytes(self, graph):
        return self._lib.fkrt_manifest_workspace_bytes(self._m,
                                                       self._graph(graph))

    def launch_count(self, graph):
        return self._lib.fkrt_manifest_launch_count(self._m,
                                                    self._graph(graph))

    @property
    def cuda_graphs(self):
        """Whether runs replay their launches as CUDA graphs (default
        True): a graph run twice with the same input and output addresses is
        recorded once and then enqueued with one call. Set it while no run is
        in flight."""
        return bool(self._lib.fkrt_cuda_graphs(self._m))

    @cuda_graphs.setter
    def cuda_graphs(self, enabled):
        _check(self._lib.fkrt_set_cuda_graphs(self._m, 1 if enabled else 0))

    @property
    def concurrent_launches(self):
        """Whether a replay runs launches at once where their memory allows
        (default True): a launch waits only for the earlier ones that write
        memory it touches or touch memory it writes. False runs them one
        after the other. Set it while no run is in flight."""
        return bool(self._lib.fkrt_concurrent_launches(self._m))

    @concurrent_launches.setter
    def concurrent_launches(self, enabled):
        _check(self._lib.fkrt_set_concurrent_launches(self._m,
                                                      1 if enabled else 0))

    @property
    def cuda_graph_count(self):
        """The number of CUDA graphs the module holds."""
        return self._lib.fkrt_cuda_graph_count(self._m)

    def _signature(self, graph):
        sig = self._signatures.get(graph)
        if sig is None:
            # run() takes the inputs that are not bound; an inout input,
            # which cannot be bound, is found among them by its position.
            inputs = self.inputs(graph)
            position = {}
            for i, info in enumerate(inputs):
                if not info.bound:
                    position[i] = len(position)
            outputs = self.outputs(graph)
            for info in outputs:
                if info.aliases is not None:
                    info.aliases = position[info.aliases]
            sig = _Signature(graph, inputs, outputs, self.symbols(graph))
            self._signatures[graph] = sig
        return sig

    def bind_weights(self, graph, path, device=None):
        """Binds the tensors of the .safetensors file at `path` to inputs
        of `graph` by name, and uploads them once to device memory the
        module owns: run() then takes only the graph's other inputs. Every
        tensor must be named after an input, with its dtype and shape, not
        inout and not bound already; Error lists every problem, found
        before the GPU is needed. A module not loaded yet is loaded on CUDA
        device `device` (default 0). Call it while no run of the module is
        in flight."""
        if (self._device is not None and device is not None
                and device != self._device):
            raise Error(ERROR_INVALID_ARGUMENT,
                        "bind_weights: the module is loaded on cuda:%d, not "
                        "cuda:%d" % (self._device, device))
        # The file is checked against the graph before the GPU is needed:
        # a module not loaded yet is loaded once the binding is valid.
        status = self._lib.fkrt_bind_weights(self._m, graph.encode(),
                                             os.fsencode(path))
        if status in (ERROR_NOT_LOADED, ERROR_NO_DRIVER) and \
                self._device is None:
            self.load_cuda(0 if device is None else device)
            status = self._lib.fkrt_bind_weights(self._m, graph.encode(),
                                                 os.fsencode(path))
        _check(status)
        self._signatures.pop(graph, None)

    def load_cuda(self, device=0):
        """JIT-loads the PTX on CUDA device `device` (an ordinal). run()
        does it on first use, on the device of its tensors."""
        with self._load_lock:
            if self._device is not None:
                if self._device != device:
                    raise Error(ERROR_INVALID_ARGUMENT,
                                "load_cuda: the module is already loaded on "
                                "cuda:%d, not cuda:%d" % (self._device, device))
                return
            _check(self._lib.fkrt_module_load_cuda(self._m, device))
            self._device = device

    def run(self, graph, inputs, outputs=None, stream=None):
        """Runs `graph` on `inputs`; returns the list of outputs.

        `inputs` (and `outputs` if given) are torch CUDA tensors or objects
        torch imports without a copy (DLPack, __cuda_array_interface__),
        one per manifest entry (but the inputs bound with bind_weights),
        each with the manifest's dtype and shape (a symbolic dimension: the
        size the graph's symbols have at this run), dense, and all on one
        CUDA device. ArgumentError names the first that is not: dtypes and
        shapes are checked for every tensor before devices and layouts, and
        all before the module touches CUDA (but for a given output's
        symbolic dimensions, which the runtime checks at the run: Error).
        The new value of an inout parameter (an output whose info has
        `aliases`, an input index) is written into that input: pass the
        input tensor itself as that output, or leave outputs out, which
        does so. Outputs not given are allocated with torch on the inputs' device
        (on `stream` if it is a torch stream). The graph is enqueued on
        `stream` (a torch.cuda.Stream, a CuPy stream, or a CUstream as an
        int) or else on torch's current stream, so it is ordered with
        torch's work on that stream; the call does not wait for it. Given
        outputs are returned as given, allocated ones as torch tensors.

        Torch tensors may be dropped once this returns (torch's allocator
        orders reuse after the run on its stream); arrays of other
        libraries must be kept alive until the run has finished.
        """
        sig = self._signature(graph)
        inputs = list(inputs)
        if len(inputs) != len(sig.inputs):
            raise sig.count_error(sig.where, len(inputs))
        if outputs is not None:
            outputs = list(outputs)
            if len(outputs) != len(sig.outputs):
                raise ArgumentError("%s has %d outputs (%s), got %d" % (
                    sig.where, len(sig.outputs),
                    ", ".join(o.name for o in sig.outputs) or "none",
                    len(outputs)))
        torch = _import_torch()
        dtypes = _torch_dtypes(torch)

        def what(role, i, info):
            return "%s %s %d ('%s')" % (sig.where, role, i, info.name)

        def convert(objects, infos, role, shapes):
            """Imports and checks each tensor against its signature and
            `shapes`, in which a symbolic dimension (a str) matches any
            size: the runtime checks those."""
            tensors = []
            for i, (obj, info, shape) in enumerate(zip(objects, infos,
                                                       shapes)):
                if isinstance(obj, torch.Tensor):
                    t = obj
                else:
                    t = _as_torch(torch, obj, what(role, i, info))
                want = dtypes[info.dtype_code]
                if t.dtype != want:
                    raise ArgumentError("%s: expected dtype %s (%s), got %s"
                                        % (what(role, i, info), info.dtype,
                                           want, t.dtype))
                if len(t.shape) != len(shape) or any(
                        d != s for d, s in zip(t.shape, shape)
                        if not isinstance(s, str)):
                    expected = _shape_text(shape)
                    if shape != info.shape:
                        # Sized at this run: the manifest's text, then sizes.
                        expected = _shape_text(info.shape) + " = " + expected
                    raise ArgumentError("%s: expected shape %s, got %s" % (
                        what(role, i, info), expected, _shape_text(t.shape)))
                tensors.append((t, role, i, info))
            return tensors

        device = None   # the torch.device all tensors must be on

        def place(tensors):
            """Checks where each tensor lives once all match the graph."""
            nonlocal device
            for t, role, i, info in tensors:
                if not t.is_cuda:
                    raise ArgumentError("%s: expected a CUDA tensor, got one "
                                        "on %s" % (what(role, i, info),
                                                   t.device))
                if device is None:
                    device = t.device
                elif t.device != device:
                    raise ArgumentError("%s: on %s, but the first tensor is "
                                        "on %s" % (what(role, i, info),
                                                   t.device, device))
                if not t.is_contiguous():
                    raise ArgumentError("%s: expected a contiguous (dense, "
                                        "row-major) tensor, got strides %s"
                                        % (what(role, i, info),
                                           tuple(t.stride())))
            return [entry[0] for entry in tensors]

        in_checked = convert(inputs, sig.inputs, "input",
                             [i.shape for i in sig.inputs])
        if sig.symbols and outputs is None:
            # Outputs to allocate: their sizes at this run.
            out_shapes = self._output_shapes(
                sig, [tuple(t.shape) for t, *_ in in_checked], "run")
        else:
            # Given outputs' symbolic dimensions (str) are checked by the
            # runtime against the run's sizes, with every other shape.
            out_shapes = [o.shape for o in sig.outputs]
        out_checked = (convert(outputs, sig.outputs, "output", out_shapes)
                       if outputs is not None else [])
        in_tensors = place(in_checked)
        out_tensors = place(out_checked) if outputs is not None else None
        if device is None:
            # No tensors at all: a graph without inputs, outputs allocated.
            index = (self._device if self._device is not None
                     else torch.cuda.current_device())
            device = torch.device("cuda", index)
        index = device.index if device.index is not None else 0
        if self._device is not None and self._device != index:
            raise ArgumentError("%s: the tensors are on cuda:%d, but the "
                                "module is loaded on cuda:%d"
                                % (sig.where, index, self._device))
        if stream is None:
            handle = torch.cuda.current_stream(device).cuda_stream
        else:
            handle = _stream_handle(stream)
        if self._device is None:
            self.load_cuda(index)

        if out_tensors is None:
            # An inout parameter's new value is written into its input.
            def allocate():
                return [in_tensors[o.aliases] if o.aliases is not None
                        else torch.empty(shape, dtype=dtypes[o.dtype_code],
                                         device=device)
                        for o, shape in zip(sig.outputs, out_shapes)]
            if isinstance(stream, torch.cuda.Stream):
                with torch.cuda.stream(stream):
                    out_tensors = allocate()
            else:
                out_tensors = allocate()
            outputs = out_tensors

        def array(tensors, infos, shapes):
            result = (_Tensor * max(len(tensors), 1))()
            for i, (t, info) in enumerate(zip(tensors, infos)):
                ptr = t.data_ptr()
                if not ptr:
                    # An empty tensor has no storage; kernels never read it,
                    # but the C API wants a valid, aligned address.
                    ptr = self._dummy_pointer(torch, device)
                shape = shapes[i]
                if shape is None:
                    shape = sig.shape_array(tuple(t.shape))
                result[i] = _Tensor(ptr, info.dtype_code, len(info.shape),
                                    shape)
            return result

        ins = array(in_tensors, sig.inputs, sig.input_shapes)
        outs = array(out_tensors, sig.outputs, sig.output_shapes)
        _check(self._lib.fkrt_run_bound(self._m, graph.encode(), ins,
                                        len(in_tensors), outs,
                                        len(out_tensors), handle))
        return outputs

    def _dummy_pointer(self, torch, device):
        t = self._dummy.get(device)
        if t is None:
            t = torch.empty(64, dtype=torch.float32, device=device)
            self._dummy[device] = t
        return t.data_ptr()


def _as_torch(torch, obj, what):
    """`obj` as a torch tensor sharing its memory, without a copy."""
    if isinstance(obj, torch.Tensor):
        return obj
    if hasattr(obj, "__dlpack__"):
        try:
            return torch.from_dlpack(obj)
        except Exception as e:  # torch raises several types here
            raise ArgumentError("%s: cannot import the %s through DLPack: %s"
                                % (what, type(obj).__name__, e)) from e
    if hasattr(obj, "__cuda_array_interface__"):
        try:
            return torch.as_tensor(obj, device="cuda")
        except Exception as e:
            raise ArgumentError("%s: cannot import the %s through "
                                "__cuda_array_interface__: %s"
                                % (what, type(obj).__name__, e)) from e
    raise ArgumentError("%s: expected a torch tensor or an object supporting "
                        "DLPack, got %s" % (what, type(obj).__name__))

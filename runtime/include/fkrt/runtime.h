/*===- fkrt/runtime.h - The fkc runtime C API -------------------*- C -*-===*
 *
 * Loads an fkc artifact (a PTX file carrying a JSON manifest, see
 * docs/artifact.md), answers questions about its graphs without a GPU, and
 * runs its graphs on CUDA through the driver API.
 *
 * The CUDA driver (libcuda.so.1) is opened with dlopen on first need, so the
 * library builds and the manifest queries work on machines without CUDA.
 *
 * Errors: every function returning fkrt_status leaves a message describing
 * the failure in a thread-local buffer, read with fkrt_last_error().
 *
 *===---------------------------------------------------------------------===*/

#ifndef FKRT_RUNTIME_H
#define FKRT_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define FKRT_API __declspec(dllexport)
#else
#define FKRT_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// The newest artifact format major version this runtime reads; it reads
/// every version from 1 up to this one.
#define FKRT_ARTIFACT_VERSION 6

/// Result of every fallible call. FKRT_SUCCESS is 0; the others are errors
/// with a message available from fkrt_last_error().
typedef enum fkrt_status {
  FKRT_SUCCESS = 0,
  /// A null handle or pointer, an out-of-range index, or a tensor that does
  /// not match the graph's signature.
  FKRT_ERROR_INVALID_ARGUMENT = 1,
  /// The artifact file could not be opened or read.
  FKRT_ERROR_IO = 2,
  /// The artifact is malformed: no manifest, bad JSON or not UTF-8, a field
  /// of the wrong type, out-of-range values, malformed PTX structure, a
  /// kernel missing from the PTX or whose parameters do not take the
  /// launch's arguments (docs/artifact.md, "Validation").
  FKRT_ERROR_INVALID_ARTIFACT = 3,
  /// The manifest's format version is not one this runtime reads.
  FKRT_ERROR_UNSUPPORTED_VERSION = 4,
  /// No graph of the requested name.
  FKRT_ERROR_NOT_FOUND = 5,
  /// libcuda.so.1 (or one of its entry points) could not be loaded.
  FKRT_ERROR_NO_DRIVER = 6,
  /// A CUDA driver call failed; the message names the call and the error.
  FKRT_ERROR_CUDA = 7,
  /// The PTX JIT compiler rejected the PTX; the message carries its log.
  FKRT_ERROR_JIT = 8,
  /// fkrt_run was called on a module not loaded with fkrt_module_load_cuda.
  FKRT_ERROR_NOT_LOADED = 9,
  /// A host or device allocation failed.
  FKRT_ERROR_OUT_OF_MEMORY = 10
} fkrt_status;

/// Element types. The values are part of the ABI.
typedef enum fkrt_dtype {
  FKRT_F32 = 0,
  FKRT_F16 = 1,
  FKRT_BF16 = 2,
  FKRT_I32 = 3,
  /// A boolean stored as one byte (0 or 1).
  FKRT_I1 = 4,
  /// A 64-bit signed integer (PyTorch's index type). The last dtype.
  FKRT_I64 = 5
} fkrt_dtype;

/// A loaded artifact: its PTX and validated manifest and, once
/// fkrt_module_load_cuda succeeded, its CUDA module, kernels and workspaces.
typedef struct fkrt_module_impl *fkrt_module;

/// A tensor passed to fkrt_run: a device pointer to dense row-major data.
typedef struct fkrt_tensor {
  /// Device address (a CUdeviceptr); must be non-null and aligned to 16
  /// bytes (the kernels access memory 16 bytes at a time).
  void *data;
  /// An fkrt_dtype. A plain integer so that a C++ runtime can check values
  /// from C or Python callers that are not dtypes without undefined
  /// behaviour.
  int32_t dtype;
  /// Number of dimensions; `shape` holds `rank` entries.
  int32_t rank;
  const int64_t *shape;
} fkrt_tensor;

/// The signature of one graph input or output, as the manifest declares it.
/// Pointers stay valid until the module is destroyed. A symbolic dimension
/// (a size each run gives, artifact version 4) is -1 in `shape`, and a
/// tensor with one has `bytes` 0 (fkrt_manifest_input_dim names it).
typedef struct fkrt_tensor_info {
  const char *name;
  fkrt_dtype dtype;
  int32_t rank;
  const int64_t *shape;
  /// Size of the dense tensor in bytes.
  uint64_t bytes;
} fkrt_tensor_info;

/// A static description of a status code, e.g. "invalid artifact".
FKRT_API const char *fkrt_status_string(fkrt_status status);

/// The message of the last failed call on this thread ("" if none); calls
/// that succeed leave it alone. Valid until the next failing fkrt call on
/// this thread.
FKRT_API const char *fkrt_last_error(void);

/// The manifest spelling of a dtype ("f32", ...), or NULL if not a dtype.
FKRT_API const char *fkrt_dtype_name(fkrt_dtype dtype);

/// The storage size of one element in bytes, or 0 if not a dtype.
FKRT_API size_t fkrt_dtype_size(fkrt_dtype dtype);

/// Reads the artifact at `path`, parses and validates its manifest and
/// checks every kernel it launches is an `.entry` of the PTX whose
/// parameters take the launch's arguments. Needs no GPU.
FKRT_API fkrt_status fkrt_module_load_file(const char *path,
                                           fkrt_module *module);

/// Like fkrt_module_load_file, from `size` bytes at `data` (copied).
FKRT_API fkrt_status fkrt_module_load_memory(const void *data, size_t size,
                                             fkrt_module *module);

/// JIT-compiles the PTX for CUDA device `device` (an ordinal) in its primary
/// context and resolves every kernel. The JIT error log is part of the
/// error message on failure. Calling it again on a loaded module fails.
FKRT_API fkrt_status fkrt_module_load_cuda(fkrt_module module, int device);

/// Releases the module and its device resources. No run of the module may be
/// in flight or start concurrently; pending work using its workspaces is
/// waited for. NULL is a no-op.
FKRT_API void fkrt_module_destroy(fkrt_module module);

/// The manifest's format version.
FKRT_API int fkrt_manifest_version(fkrt_module module);

/// The manifest's target architecture, e.g. "sm_90" (NULL on a null module).
FKRT_API const char *fkrt_manifest_target(fkrt_module module);

/// 1 if the artifact may compute f32 matmuls on TF32 tensor cores (compiled
/// with `fkc --allow-tf32`: operands rounded to 10-bit mantissas), 0 if in
/// exact f32 or on a null module.
FKRT_API int fkrt_manifest_allow_tf32(fkrt_module module);

/// The number of graphs in the artifact (0 on a null module).
FKRT_API size_t fkrt_manifest_graph_count(fkrt_module module);

/// The name of graph `graph`, or NULL if out of range.
FKRT_API const char *fkrt_manifest_graph_name(fkrt_module module,
                                              size_t graph);

/// Finds the graph called `name`; FKRT_ERROR_NOT_FOUND if there is none.
FKRT_API fkrt_status fkrt_manifest_find_graph(fkrt_module module,
                                              const char *name, size_t *graph);

/// The number of inputs / outputs of graph `graph` (0 if out of range).
FKRT_API size_t fkrt_manifest_input_count(fkrt_module module, size_t graph);
FKRT_API size_t fkrt_manifest_output_count(fkrt_module module, size_t graph);

/// The signature of input / output `index` of graph `graph`.
FKRT_API fkrt_status fkrt_manifest_input(fkrt_module module, size_t graph,
                                         size_t index, fkrt_tensor_info *info);
FKRT_API fkrt_status fkrt_manifest_output(fkrt_module module, size_t graph,
                                          size_t index,
                                          fkrt_tensor_info *info);

/// The manifest's text of dimension `axis` of input / output `index` of
/// graph `graph` where it is symbolic ("S", "B*S"); NULL where it is a
/// static size or out of range.
FKRT_API const char *fkrt_manifest_input_dim(fkrt_module module, size_t graph,
                                             size_t index, size_t axis);
FKRT_API const char *fkrt_manifest_output_dim(fkrt_module module,
                                              size_t graph, size_t index,
                                              size_t axis);

/// The number of symbols of graph `graph` (0 if none or out of range): the
/// sizes its runs take from their inputs' dimensions (version 4).
FKRT_API size_t fkrt_manifest_symbol_count(fkrt_module module, size_t graph);

/// The name of symbol `symbol` of graph `graph`, or NULL if out of range.
FKRT_API const char *fkrt_manifest_symbol_name(fkrt_module module,
                                               size_t graph, size_t symbol);

/// The bound of symbol `symbol` of graph `graph` (a run's size must not
/// exceed it), or -1 if it has none or is out of range.
FKRT_API int64_t fkrt_manifest_symbol_max(fkrt_module module, size_t graph,
                                          size_t symbol);

/// The lower bound of symbol `symbol` of graph `graph` (a run's size must
/// not be below it; 0 if it has none), or -1 if out of range.
FKRT_API int64_t fkrt_manifest_symbol_min(fkrt_module module, size_t graph,
                                          size_t symbol);

/// The shape of output `index` of graph `graph_name` for a run with
/// `inputs`: `shape` receives the output's rank of entries. The inputs are
/// checked as fkrt_run checks them (INVALID_ARGUMENT, NOT_FOUND); nothing
/// runs.
FKRT_API fkrt_status fkrt_output_shape(fkrt_module module,
                                       const char *graph_name,
                                       const fkrt_tensor *inputs,
                                       size_t num_inputs, size_t index,
                                       int64_t *shape);

/// The input that output `index` of graph `graph` is written into (the new
/// value of an inout parameter): fkrt_run must be passed that input's buffer
/// for it. -1 if it aliases none, or if out of range.
FKRT_API int64_t fkrt_manifest_output_aliases(fkrt_module module,
                                              size_t graph, size_t index);

/// The manifest's workspace_bytes of graph `graph` (0 if out of range); a
/// run of a graph with tensor maps also holds their descriptors after it,
/// and one of a graph with buffers placed per run (version 5) those
/// buffers, at its sizes.
FKRT_API uint64_t fkrt_manifest_workspace_bytes(fkrt_module module,
                                                size_t graph);

/// The number of kernel launches of graph `graph` (0 if out of range).
FKRT_API size_t fkrt_manifest_launch_count(fkrt_module module, size_t graph);

/// The SM count the artifact's persistent kernels were sized for (the
/// largest over its launches' `persistent`), or 0 if it has none. On a
/// device of another count they launch a block per SM of that device.
FKRT_API int fkrt_manifest_persistent_sm_count(fkrt_module module);

/// Runs graph `graph_name` on `stream` (a CUstream; NULL is the legacy
/// default stream), asynchronously: the call returns once every launch is
/// enqueued. Checks, in this order, stopping at the first failure:
///  1. module and graph_name non-null, the graph exists (NOT_FOUND);
///  2. the input and output counts, then each input and each output in
///     order: pointers non-null, data aligned to 16 bytes, dtype,
///     rank, then every static dimension; for a graph with symbols, then
///     each symbol's size (from the first input dimension that is the
///     symbol alone) within its bound, and every symbolic dimension of the
///     inputs, then of the outputs, equal to its value at those sizes; then
///     that each launch's grid and sized arguments are within CUDA's limits
///     at those sizes and its sizes within its kernel's limits (a launch
///     whose grid is empty is skipped); then that
///     an output aliasing an input
///     (fkrt_manifest_output_aliases) is passed that input's buffer, and
///     that no other output overlaps an input or another output
///     (INVALID_ARGUMENT);
///  3. the CUDA driver can be loaded (NO_DRIVER);
///  4. the module was loaded with fkrt_module_load_cuda (NOT_LOADED);
///  5. a graph with tensor maps needs cuTensorMapEncodeTiled in the driver
///     (NO_DRIVER).
/// Then it takes a workspace and enqueues. A failure there is
/// FKRT_ERROR_OUT_OF_MEMORY when the device is out of memory (a new
/// workspace that cannot be allocated: nothing is enqueued, and the message
/// names its bytes) and FKRT_ERROR_CUDA for another failed driver call (the
/// message names the call and, for a launch, its index and kernel); the
/// launches enqueued before a failed one still run, and the outputs are
/// then undefined. The module stays usable after any failure: the run's
/// workspace goes back to the pool, and the next run to take it waits for
/// what was enqueued.
/// Safe to call from several threads at once on one module: each run takes a
/// workspace of its own from the module's pool (see docs/artifact.md).
FKRT_API fkrt_status fkrt_run(fkrt_module module, const char *graph_name,
                              const fkrt_tensor *inputs, size_t num_inputs,
                              fkrt_tensor *outputs, size_t num_outputs,
                              void *stream);

/*===--- Weights bound to a module ----------------------------------------===*
 *
 * A model's weights, in a .safetensors file, can be bound to a graph's
 * inputs once: they are uploaded to device memory the module owns, and
 * fkrt_run_bound then takes only the graph's other inputs. See
 * docs/safetensors.md.
 *
 *===---------------------------------------------------------------------===*/

/// Binds the tensors of the .safetensors file at `path` to inputs of graph
/// `graph_name`, by name, and uploads each once to device memory the module
/// owns (freed by fkrt_module_destroy). Checks, in this order, stopping at
/// the first failure:
///  1. module, graph_name and path non-null, the graph exists (NOT_FOUND);
///  2. the file can be opened (IO) and is a valid .safetensors file
///     (INVALID_ARGUMENT, with the reader's message, docs/safetensors.md);
///  3. every tensor is named after an input of the graph, with its dtype
///     and shape, that is not inout (runs update an inout input in place)
///     and not bound already; the message lists every problem
///     (INVALID_ARGUMENT). Inputs the file has no tensor for stay the
///     caller's to pass;
///  4. the CUDA driver can be loaded (NO_DRIVER), the module was loaded with
///     fkrt_module_load_cuda (NOT_LOADED).
/// Then it allocates and copies (OUT_OF_MEMORY, CUDA); on any failure
/// nothing is bound. Must not overlap a run of the module.
FKRT_API fkrt_status fkrt_bind_weights(fkrt_module module,
                                       const char *graph_name,
                                       const char *path);

/// 1 if input `index` of graph `graph` is bound by fkrt_bind_weights, 0 if
/// not or if out of range.
FKRT_API int fkrt_input_bound(fkrt_module module, size_t graph, size_t index);

/// fkrt_run with the bound inputs of graph `graph_name` taken from the
/// module: `inputs` holds its other inputs, in the graph's order
/// (`num_inputs` must be their number). With no input bound it is
/// fkrt_run; otherwise it checks and runs as fkrt_run does, its messages
/// counting inputs among all the graph's inputs.
FKRT_API fkrt_status fkrt_run_bound(fkrt_module module, const char *graph_name,
                                    const fkrt_tensor *inputs,
                                    size_t num_inputs, fkrt_tensor *outputs,
                                    size_t num_outputs, void *stream);

/// Whether fkrt_run replays a graph's launches as a CUDA graph (on by
/// default). A graph of two or more launches run a second time with the same
/// input and output addresses is recorded once into a CUDA graph with a
/// workspace of its own, and later runs with those addresses enqueue it with
/// one call instead of one per kernel; runs of one replay execute one after
/// the other, whatever their streams. At most 8 replays are held per module,
/// the least recently used freed first. A driver without the graph entry
/// points launches kernel by kernel. Disabling frees the replays held; call
/// it while no run of the module is in flight. See docs/artifact.md.
FKRT_API fkrt_status fkrt_set_cuda_graphs(fkrt_module module, int enabled);

/// 1 if fkrt_run replays as CUDA graphs, 0 if not or on a null module.
FKRT_API int fkrt_cuda_graphs(fkrt_module module);

/// Whether a replay (fkrt_set_cuda_graphs) runs launches at once where
/// their memory allows (on by default): a launch waits only for the earlier
/// launches that write memory it touches or touch memory it writes (as the
/// manifest's `writes` say), so a decode step's query, key and value
/// projections run together. Off, a replay's launches run one after the
/// other, as runs without replays always do. Changing it frees the replays
/// held; call it while no run of the module is in flight.
FKRT_API fkrt_status fkrt_set_concurrent_launches(fkrt_module module,
                                                  int enabled);

/// 1 if replays run launches at once where their memory allows, 0 if not or
/// on a null module.
FKRT_API int fkrt_concurrent_launches(fkrt_module module);

/// The number of CUDA graphs the module holds (0 on a null module).
FKRT_API size_t fkrt_cuda_graph_count(fkrt_module module);

/// Loads the CUDA driver if not done yet: FKRT_SUCCESS if libcuda.so.1 and
/// every entry point the runtime uses are present, FKRT_ERROR_NO_DRIVER
/// otherwise. cuTensorMapEncodeTiled is not required: only running a graph
/// with tensor maps fails without it. Does not initialise CUDA.
FKRT_API fkrt_status fkrt_driver_available(void);

/*===--- Device memory, synchronisation and timing ------------------------===*
 *
 * What a program needs around fkrt_run to use a module without the CUDA
 * toolkit: device buffers, copies, a fill for poisoning outputs, waiting for
 * the device, and timing with events. Every call takes a device ordinal and
 * works in that device's primary context, the one fkrt_module_load_cuda
 * uses (and PyTorch), made current around the call. On first use for a
 * device the runtime retains its primary context until the process exits.
 *
 * Arguments are checked before the driver is loaded, so a bad call is
 * reported as FKRT_ERROR_INVALID_ARGUMENT with or without a GPU; then
 * FKRT_ERROR_NO_DRIVER without libcuda.so.1, FKRT_ERROR_CUDA when a driver
 * call fails (FKRT_ERROR_OUT_OF_MEMORY when it is out of device memory).
 *
 *===---------------------------------------------------------------------===*/

/// The number of CUDA devices (initialises CUDA).
FKRT_API fkrt_status fkrt_device_count(int *count);

/// The name of device `device` (e.g. "NVIDIA H100 80GB HBM3"), written to
/// `name` as a NUL-terminated string truncated to `size` bytes.
FKRT_API fkrt_status fkrt_device_name(int device, char *name, size_t size);

/// The streaming multiprocessors of device `device`, in `*count`: a
/// persistent kernel launches a block per SM of the device it runs on
/// (fkrt_manifest_persistent_sm_count).
FKRT_API fkrt_status fkrt_device_sm_count(int device, int *count);

/// Allocates `bytes` (> 0) of device memory, 256-byte aligned, in
/// `*pointer`.
FKRT_API fkrt_status fkrt_device_alloc(int device, size_t bytes,
                                       void **pointer);

/// Frees memory from fkrt_device_alloc on `device`. NULL is a no-op.
FKRT_API fkrt_status fkrt_device_free(int device, void *pointer);

/// Copies `bytes` from host memory to device memory. Synchronous for the
/// host, and ordered like cuMemcpyHtoD: after earlier work on the legacy
/// default stream (NULL) and on streams that synchronise with it.
FKRT_API fkrt_status fkrt_device_copy_to_device(int device, void *dst,
                                                const void *src, size_t bytes);

/// Copies `bytes` from device memory to host memory; synchronous and
/// ordered like fkrt_device_copy_to_device.
FKRT_API fkrt_status fkrt_device_copy_to_host(int device, void *dst,
                                              const void *src, size_t bytes);

/// Sets `bytes` bytes of device memory at `pointer` to `value`, enqueued on
/// `stream` (a CUstream; NULL is the legacy default stream).
FKRT_API fkrt_status fkrt_device_fill(int device, void *pointer,
                                      uint8_t value, size_t bytes,
                                      void *stream);

/// Waits until all work enqueued in the device's primary context (every
/// stream) is done; reports the first failure of that work.
FKRT_API fkrt_status fkrt_device_synchronize(int device);

/// A CUDA event with timing enabled, in a device's primary context.
typedef struct fkrt_event_impl *fkrt_event;

/// Creates an event on device `device`.
FKRT_API fkrt_status fkrt_event_create(int device, fkrt_event *event);

/// Records `event` on `stream` (a CUstream; NULL is the legacy default
/// stream).
FKRT_API fkrt_status fkrt_event_record(fkrt_event event, void *stream);

/// Waits for `stop` and returns in `*milliseconds` the time between the
/// completion of `start` and `stop`, both recorded and of one device.
FKRT_API fkrt_status fkrt_event_elapsed_ms(fkrt_event start, fkrt_event stop,
                                           float *milliseconds);

/// Destroys an event. NULL is a no-op.
FKRT_API void fkrt_event_destroy(fkrt_event event);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // FKRT_RUNTIME_H

//===- Cuda.h - The CUDA driver API, loaded at run time ---------*- C++ -*-===//
//
// The few driver-API types, constants and entry points the runtime uses,
// declared here rather than taken from cuda.h so the runtime builds without
// the CUDA toolkit; libcuda.so.1 is opened with dlopen on first use. The
// values match cuda.h (CUDA 12/13); tests/cuda_abi_check.cpp verifies them
// against cuda.h when the toolkit's headers are present at build time.
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_LIB_CUDA_H
#define FKRT_LIB_CUDA_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace fkrt {
namespace cu {

using Result = int; // CUresult
using Device = int; // CUdevice
using DevicePtr = unsigned long long; // CUdeviceptr
using Context = struct CUctx_st *;
using Module = struct CUmod_st *;
using Function = struct CUfunc_st *;
using Stream = struct CUstream_st *;
using Event = struct CUevent_st *;
using Graph = struct CUgraph_st *;
using GraphNode = struct CUgraphNode_st *;
using GraphExec = struct CUgraphExec_st *;
using Kernel = struct CUkern_st *;
using JitOption = int; // CUjit_option

constexpr Result kSuccess = 0;
constexpr Result kErrorOutOfMemory = 2;
constexpr JitOption kJitInfoLogBuffer = 3;
constexpr JitOption kJitInfoLogBufferSizeBytes = 4;
constexpr JitOption kJitErrorLogBuffer = 5;
constexpr JitOption kJitErrorLogBufferSizeBytes = 6;
constexpr JitOption kJitLogVerbose = 12;
constexpr unsigned kEventDefault = 0;
constexpr unsigned kEventDisableTiming = 2;
constexpr int kFuncAttributeMaxDynamicSharedSizeBytes = 8;
constexpr int kDeviceAttributeMultiprocessorCount = 16;

/// CUDA_KERNEL_NODE_PARAMS (version 2, CUDA 12.0 and later): a kernel launch
/// as a node of a CUDA graph; `kernel` and `context` stay null.
struct KernelNodeParams {
  Function function = nullptr;
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  void **params = nullptr;
  void **extra = nullptr;
  Kernel kernel = nullptr;
  Context context = nullptr;
};

/// CUtensorMap: an opaque TMA descriptor. cuTensorMapEncodeTiled needs it
/// 64-byte aligned; cuda.h declares it 128-byte aligned.
struct alignas(128) TensorMap {
  uint64_t opaque[16];
};
using TensorMapDataType = int; // CUtensorMapDataType
constexpr TensorMapDataType kTensorMapDataTypeFloat16 = 6;
constexpr TensorMapDataType kTensorMapDataTypeFloat32 = 7;
constexpr TensorMapDataType kTensorMapDataTypeBfloat16 = 9;
constexpr int kTensorMapInterleaveNone = 0;
/// CUtensorMapSwizzle: none, 32, 64 and 128 bytes are 0 to 3.
constexpr int kTensorMapSwizzleNone = 0;
constexpr int kTensorMapSwizzle32B = 1;
constexpr int kTensorMapSwizzle64B = 2;
constexpr int kTensorMapSwizzle128B = 3;
constexpr int kTensorMapL2Promotion128B = 2;
constexpr int kTensorMapFloatOobFillNone = 0;

/// Entry points, resolved by their versioned ABI names (the names cuda.h's
/// macros map the API names to).
struct Driver {
  Result (*init)(unsigned);
  Result (*deviceGet)(Device *, int);
  Result (*deviceGetCount)(int *);
  Result (*deviceGetName)(char *, int, Device);
  Result (*deviceGetAttribute)(int *, int, Device);
  Result (*devicePrimaryCtxRetain)(Context *, Device);
  Result (*devicePrimaryCtxRelease)(Device);
  Result (*ctxPushCurrent)(Context);
  Result (*ctxPopCurrent)(Context *);
  Result (*moduleLoadDataEx)(Module *, const void *, unsigned, JitOption *,
                             void **);
  Result (*moduleUnload)(Module);
  Result (*moduleGetFunction)(Function *, Module, const char *);
  Result (*funcSetAttribute)(Function, int, int);
  Result (*memAlloc)(DevicePtr *, size_t);
  Result (*memFree)(DevicePtr);
  Result (*memcpyHtoD)(DevicePtr, const void *, size_t);
  Result (*memcpyDtoH)(void *, DevicePtr, size_t);
  Result (*memcpyHtoDAsync)(DevicePtr, const void *, size_t, Stream);
  Result (*memsetD8Async)(DevicePtr, unsigned char, size_t, Stream);
  Result (*ctxSynchronize)();
  Result (*eventCreate)(Event *, unsigned);
  Result (*eventDestroy)(Event);
  Result (*eventRecord)(Event, Stream);
  Result (*eventSynchronize)(Event);
  Result (*eventElapsedTime)(float *, Event, Event);
  Result (*streamWaitEvent)(Stream, Event, unsigned);
  Result (*launchKernel)(Function, unsigned, unsigned, unsigned, unsigned,
                         unsigned, unsigned, unsigned, Stream, void **,
                         void **);
  Result (*getErrorName)(Result, const char **);
  Result (*getErrorString)(Result, const char **);
  /// Optional (CUDA 12.0 and later): null when the driver lacks it, so that
  /// only graphs with tensor maps need a Hopper-era driver.
  Result (*tensorMapEncodeTiled)(TensorMap *, TensorMapDataType, unsigned,
                                 void *, const uint64_t *, const uint64_t *,
                                 const uint32_t *, const uint32_t *, int, int,
                                 int, int);
  /// Optional (CUDA 12.0 and later): the graph entry points that replay a
  /// graph's launches as a CUDA graph (GraphReplay.h); without any of them
  /// runs launch kernel by kernel.
  Result (*graphCreate)(Graph *, unsigned);
  Result (*graphAddKernelNode)(GraphNode *, Graph, const GraphNode *, size_t,
                               const KernelNodeParams *);
  Result (*graphInstantiateWithFlags)(GraphExec *, Graph, unsigned long long);
  Result (*graphDestroy)(Graph);
  Result (*graphExecDestroy)(GraphExec);
  Result (*graphLaunch)(GraphExec, Stream);
  bool hasGraphs() const {
    return graphCreate && graphAddKernelNode && graphInstantiateWithFlags &&
           graphDestroy && graphExecDestroy && graphLaunch;
  }
};

/// The driver, loaded once per process. Returns null and sets `error` when
/// libcuda.so.1 or one of the required entry points is missing; the outcome
/// is cached.
const Driver *driver(std::string &error);

/// "cuFoo failed: CUDA_ERROR_X (description)" for a failed call.
std::string describe(const Driver &d, const char *call, Result result);

/// Makes a context current for the scope of a CUDA call sequence, so calls
/// work from any thread whatever context it has current.
class ContextScope {
public:
  ContextScope(const Driver &d, Context context) : d(d) {
    pushed = d.ctxPushCurrent(context) == kSuccess;
  }
  ~ContextScope() {
    Context popped;
    if (pushed)
      d.ctxPopCurrent(&popped);
  }
  ContextScope(const ContextScope &) = delete;
  ContextScope &operator=(const ContextScope &) = delete;
  bool ok() const { return pushed; }

private:
  const Driver &d;
  bool pushed;
};

} // namespace cu
} // namespace fkrt

#endif // FKRT_LIB_CUDA_H

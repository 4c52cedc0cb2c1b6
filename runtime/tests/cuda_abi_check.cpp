//===- cuda_abi_check.cpp - Cuda.h against the toolkit's cuda.h -----------===//
//
// Compiled only, never run: fails the build if a constant or type size the
// runtime declares itself differs from the CUDA toolkit's.
//
//===----------------------------------------------------------------------===//

#include "Cuda.h"

#include <cuda.h>

using namespace fkrt;

static_assert(cu::kSuccess == CUDA_SUCCESS, "CUDA_SUCCESS");
static_assert(cu::kJitInfoLogBuffer == CU_JIT_INFO_LOG_BUFFER, "jit option");
static_assert(cu::kJitInfoLogBufferSizeBytes ==
                  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
              "jit option");
static_assert(cu::kJitErrorLogBuffer == CU_JIT_ERROR_LOG_BUFFER, "jit option");
static_assert(cu::kJitErrorLogBufferSizeBytes ==
                  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
              "jit option");
static_assert(cu::kJitLogVerbose == CU_JIT_LOG_VERBOSE, "jit option");
static_assert(cu::kErrorOutOfMemory == CUDA_ERROR_OUT_OF_MEMORY, "CUresult");
static_assert(cu::kEventDefault == CU_EVENT_DEFAULT, "event flag");
static_assert(cu::kEventDisableTiming == CU_EVENT_DISABLE_TIMING, "event flag");
static_assert(cu::kFuncAttributeMaxDynamicSharedSizeBytes ==
                  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              "function attribute");
static_assert(sizeof(cu::Result) == sizeof(CUresult), "CUresult");
static_assert(sizeof(cu::JitOption) == sizeof(CUjit_option), "CUjit_option");
static_assert(sizeof(cu::Device) == sizeof(CUdevice), "CUdevice");
static_assert(sizeof(cu::DevicePtr) == sizeof(CUdeviceptr), "CUdeviceptr");

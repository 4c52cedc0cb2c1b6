//===- cuda_abi_check.cpp - Cuda.h against the toolkit's cuda.h -----------===//
//
// Compiled only, never run: fails the build if a constant or type size the
// runtime declares itself differs from the CUDA toolkit's.
//
//===----------------------------------------------------------------------===//

#include "Cuda.h"

#include <cuda.h>

#include <cstddef>

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
static_assert(sizeof(cu::KernelNodeParams) == sizeof(CUDA_KERNEL_NODE_PARAMS_v2),
              "CUDA_KERNEL_NODE_PARAMS_v2");
static_assert(offsetof(cu::KernelNodeParams, grid) ==
                      offsetof(CUDA_KERNEL_NODE_PARAMS_v2, gridDimX) &&
                  offsetof(cu::KernelNodeParams, block) ==
                      offsetof(CUDA_KERNEL_NODE_PARAMS_v2, blockDimX) &&
                  offsetof(cu::KernelNodeParams, sharedBytes) ==
                      offsetof(CUDA_KERNEL_NODE_PARAMS_v2, sharedMemBytes) &&
                  offsetof(cu::KernelNodeParams, params) ==
                      offsetof(CUDA_KERNEL_NODE_PARAMS_v2, kernelParams) &&
                  offsetof(cu::KernelNodeParams, extra) ==
                      offsetof(CUDA_KERNEL_NODE_PARAMS_v2, extra) &&
                  offsetof(cu::KernelNodeParams, kernel) ==
                      offsetof(CUDA_KERNEL_NODE_PARAMS_v2, kern) &&
                  offsetof(cu::KernelNodeParams, context) ==
                      offsetof(CUDA_KERNEL_NODE_PARAMS_v2, ctx),
              "CUDA_KERNEL_NODE_PARAMS_v2 fields");
static_assert(cu::kFuncAttributeMaxDynamicSharedSizeBytes ==
                  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              "function attribute");
static_assert(cu::kDeviceAttributeMultiprocessorCount ==
                  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
              "device attribute");
static_assert(sizeof(cu::Result) == sizeof(CUresult), "CUresult");
static_assert(sizeof(cu::JitOption) == sizeof(CUjit_option), "CUjit_option");
static_assert(sizeof(cu::Device) == sizeof(CUdevice), "CUdevice");
static_assert(sizeof(cu::DevicePtr) == sizeof(CUdeviceptr), "CUdeviceptr");
static_assert(cu::kTensorMapDataTypeFloat16 == CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
              "tensor map dtype");
static_assert(cu::kTensorMapDataTypeFloat32 == CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
              "tensor map dtype");
static_assert(cu::kTensorMapDataTypeBfloat16 ==
                  CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
              "tensor map dtype");
static_assert(cu::kTensorMapInterleaveNone == CU_TENSOR_MAP_INTERLEAVE_NONE,
              "tensor map interleave");
static_assert(cu::kTensorMapSwizzleNone == CU_TENSOR_MAP_SWIZZLE_NONE &&
                  cu::kTensorMapSwizzle32B == CU_TENSOR_MAP_SWIZZLE_32B &&
                  cu::kTensorMapSwizzle64B == CU_TENSOR_MAP_SWIZZLE_64B &&
                  cu::kTensorMapSwizzle128B == CU_TENSOR_MAP_SWIZZLE_128B,
              "tensor map swizzle");
static_assert(cu::kTensorMapL2Promotion128B ==
                  CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
              "tensor map L2 promotion");
static_assert(cu::kTensorMapFloatOobFillNone ==
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
              "tensor map OOB fill");
static_assert(sizeof(cu::TensorMap) == sizeof(CUtensorMap), "CUtensorMap");
static_assert(alignof(cu::TensorMap) >= 64, "CUtensorMap alignment");
static_assert(sizeof(cu::TensorMapDataType) == sizeof(CUtensorMapDataType),
              "CUtensorMapDataType");
// cuTensorMapEncodeTiled's enum parameters are declared as int.
static_assert(sizeof(CUtensorMapInterleave) == sizeof(int) &&
                  sizeof(CUtensorMapSwizzle) == sizeof(int) &&
                  sizeof(CUtensorMapL2promotion) == sizeof(int) &&
                  sizeof(CUtensorMapFloatOOBfill) == sizeof(int),
              "tensor map enums");
static_assert(sizeof(cuuint64_t) == sizeof(uint64_t) &&
                  sizeof(cuuint32_t) == sizeof(uint32_t),
              "cuuint64_t, cuuint32_t");

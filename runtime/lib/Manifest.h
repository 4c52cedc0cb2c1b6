//===- Manifest.h - The artifact manifest -----------------------*- C++ -*-===//
//
// The validated in-memory form of an artifact's manifest, and the reader that
// extracts it from the PTX's leading comment block (docs/artifact.md).
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_LIB_MANIFEST_H
#define FKRT_LIB_MANIFEST_H

#include "fkrt/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fkrt {

/// Bounds the reader enforces beyond the JSON parser's own.
constexpr int kMaxRank = 16;
constexpr size_t kMaxArtifactBytes = size_t(1) << 30;
constexpr int64_t kWorkspaceAlignment = 256;

struct TensorSpec {
  std::string name;
  fkrt_dtype dtype = FKRT_F32;
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
};

struct BufferSpec {
  enum Kind { Input, Output, Workspace };
  int64_t id = 0;
  Kind kind = Input;
  /// The input/output index, for Input and Output buffers.
  size_t index = 0;
  /// The sub-range of the workspace, for Workspace buffers.
  uint64_t offset = 0, bytes = 0;
};

struct ArgSpec {
  enum Kind { Buffer, I64, I32 };
  Kind kind = Buffer;
  /// Index into GraphSpec::buffers, for Buffer arguments.
  size_t buffer = 0;
  int64_t value = 0;
};

struct LaunchSpec {
  std::string kernel;
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  std::vector<ArgSpec> args;
};

struct GraphSpec {
  std::string name;
  std::vector<TensorSpec> inputs, outputs;
  uint64_t workspaceBytes = 0;
  std::vector<BufferSpec> buffers;
  std::vector<LaunchSpec> launches;
};

struct Manifest {
  int version = 0;
  std::string target;
  std::vector<GraphSpec> graphs;
};

/// Extracts the manifest from the artifact text `ptx`, validates it and
/// checks every launched kernel is an `.entry` of the PTX. On failure returns
/// FKRT_ERROR_INVALID_ARTIFACT or FKRT_ERROR_UNSUPPORTED_VERSION and sets
/// `error` to a lowercase message starting with "manifest".
fkrt_status readManifest(const std::string &ptx, Manifest &manifest,
                         std::string &error);

} // namespace fkrt

#endif // FKRT_LIB_MANIFEST_H

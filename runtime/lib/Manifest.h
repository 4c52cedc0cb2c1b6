//===- Manifest.h - The artifact manifest -----------------------*- C++ -*-===//
//
// The validated in-memory form of an artifact's manifest, and the reader that
// extracts it from the PTX's leading comment block (docs/artifact.md).
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_LIB_MANIFEST_H
#define FKRT_LIB_MANIFEST_H

#include "Sizes.h"
#include "fkrt/runtime.h"
#include "fkrt/workspace_plan.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace fkrt {

/// Bounds the reader enforces beyond the JSON parser's own.
constexpr int kMaxRank = 16;
constexpr size_t kMaxArtifactBytes = size_t(1) << 30;
/// The lines between the manifest's markers, line ends included.
constexpr size_t kMaxManifestBytes = size_t(16) << 20;
/// The alignment fkrt_run requires of every input's and output's data.
constexpr uint64_t kTensorAlignment = 16;
/// The artifact versions the reader accepts: 1 is 2 without tensor maps.
constexpr int kMinArtifactVersion = 1;
/// CUDA's limits on a tiled tensor map (cuTensorMapEncodeTiled): its rank,
/// each of its dims at most 2^32, its strides multiples of 16 below 2^40.
constexpr unsigned kMaxTensorMapRank = 5;
constexpr int64_t kMaxTensorMapDim = int64_t(1) << 32;
constexpr int64_t kTensorMapStrideLimit = int64_t(1) << 40;
/// CUDA's limits on a grid's dimensions (x, y, z) on every device fkc
/// targets.
constexpr int64_t kGridLimits[3] = {INT32_MAX, 65535, 65535};
/// A CUtensorMap's size; each sits at a multiple of it in the workspace.
constexpr uint64_t kTensorMapBytes = 128;

/// The artifact version from which a graph may have symbols.
constexpr int kSymbolsVersion = 4;
/// The artifact version from which workspace buffers may be placed per run.
constexpr int kRunWorkspaceVersion = 5;
/// The artifact version from which a launch may limit the run's sizes.
constexpr int kLimitsVersion = 6;

/// A size given at run time by the caller's tensors (version 4): the
/// dimension `axis` of input `input`, the first that is the symbol alone.
struct SymbolSpec {
  std::string name;
  /// Its bound (`max`), or -1 if it has none.
  int64_t max = -1;
  /// Its lower bound (`min`): 0 if it has none.
  int64_t min = 0;
  size_t input = 0, axis = 0;
};

struct TensorSpec {
  std::string name;
  fkrt_dtype dtype = FKRT_F32;
  /// The dimensions' sizes, -1 for a symbolic one.
  std::vector<int64_t> shape;
  /// Every dimension as a monomial (a static one has no symbols), and the
  /// manifest's text of each symbolic one ("" for a static one).
  std::vector<Monomial> dims;
  std::vector<std::string> dimTexts;
  bool symbolic = false;
  /// The tensor's bytes; 0 for a symbolic tensor (known per run).
  uint64_t bytes = 0;
  /// For an output written into an input's buffer (an inout parameter's
  /// new value, version 3): that input's index; -1 otherwise.
  int64_t aliases = -1;
};

struct BufferSpec {
  enum Kind { Input, Output, Workspace };
  int64_t id = 0;
  Kind kind = Input;
  /// The input/output index, for Input and Output buffers.
  size_t index = 0;
  /// The sub-range of the workspace, for Workspace buffers.
  uint64_t offset = 0, bytes = 0;
  /// A workspace buffer of a size known only per run (version 5): a run
  /// computes its bytes (`runBytes`) and places it after the graph's
  /// `workspace_bytes`, sharing bytes with those of disjoint lifetimes,
  /// the launches `first` to `last` (RunWorkspace.h).
  bool placedAtRun = false;
  SizeExpr runBytes;
  int64_t first = 0, last = -1;
  /// Its place in GraphSpec::runPlacedBuffers.
  size_t runSlot = 0;
};

/// A tiled TMA descriptor over a buffer (version 2). Extents are innermost
/// first, as cuTensorMapEncodeTiled takes them.
struct TensorMapSpec {
  /// Index into GraphSpec::buffers.
  size_t buffer = 0;
  fkrt_dtype dtype = FKRT_F16;
  unsigned rank = 0;
  uint64_t dims[kMaxTensorMapRank] = {};
  /// Byte strides of dims[1..rank-1].
  uint64_t strides[kMaxTensorMapRank - 1] = {};
  uint32_t box[kMaxTensorMapRank] = {};
  /// 0, 32, 64 or 128 bytes.
  unsigned swizzle = 0;
  /// The launch and argument it was read from, for messages.
  size_t launch = 0, arg = 0;
  /// Version 4: some dims or strides are sizes computed per run, or the
  /// buffer is a tensor of symbolic shape. Then `dimSizes` and
  /// `strideSizes` hold every entry (an integer one as a constant), and
  /// the checks that need the run's sizes (R39, R40, R43) are made per run.
  bool sizedAtRun = false;
  SizeExpr dimSizes[kMaxTensorMapRank];
  SizeExpr strideSizes[kMaxTensorMapRank - 1];
};

/// The bytes a tensor map reaches from its base, dims[0] * elementBytes +
/// the sum of (dims[i] - 1) * strides[i - 1] (R43), for dims in [1, 2^32]
/// and strides below 2^40; false if it is more than INT64_MAX, which no
/// buffer is.
bool tensorMapReach(unsigned rank, const uint64_t *dims,
                    const uint64_t *strides, uint64_t elementBytes,
                    uint64_t &reach);

/// R43's complaint, "the map reaches N bytes (...), more than the M bytes
/// of buffer ID", for a reach `tensorMapReach` gave (`fits`) or not.
std::string tensorMapReachError(bool fits, uint64_t reach, uint64_t bytes,
                                int64_t bufferId);

struct ArgSpec {
  enum Kind { Buffer, I64, I32, TensorMap };
  Kind kind = Buffer;
  /// Index into GraphSpec::buffers, for Buffer arguments.
  size_t buffer = 0;
  /// Index into GraphSpec::tensorMaps, for TensorMap arguments.
  size_t tensorMap = 0;
  int64_t value = 0;
  /// An I64 or I32 argument computed from the run's sizes (`value` is
  /// then unused).
  bool sizedAtRun = false;
  SizeExpr size;
};

struct LaunchSpec {
  std::string kernel;
  /// The grid; where `sizedAtRun`, `gridSizes` per run instead (a launch
  /// whose grid has no blocks at a run's sizes is skipped).
  unsigned grid[3] = {1, 1, 1};
  bool sizedAtRun = false;
  SizeExpr gridSizes[3];
  unsigned block[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  std::vector<ArgSpec> args;
  /// Per argument, whether the kernel may write through it (`writes`); when
  /// the manifest does not say, every buffer and tensor map argument.
  std::vector<bool> writes;
  /// Sizes the kernel computes only up to a limit (`limits`, version 6): a
  /// run that launches it at a larger size fails before anything is
  /// enqueued.
  struct SizeLimit {
    /// The manifest's text of `size`, for messages.
    std::string text;
    Monomial size;
    int64_t max = 0;
  };
  std::vector<SizeLimit> limits;
  /// A persistent kernel's (`persistent`, R64): it walks its work with a
  /// stride of the grid's x, which the compiler capped at `persistentSmCount`
  /// SMs (0: not persistent), in clusters of `clusterBlocks` blocks.
  /// (PersistentGrid.h.)
  unsigned persistentSmCount = 0;
  unsigned clusterBlocks = 1;
};

struct GraphSpec {
  std::string name;
  /// The sizes runs give (version 4), in the manifest's order.
  std::vector<SymbolSpec> symbols;
  /// Whether a run computes its launches and tensor maps at its sizes: the
  /// graph has symbols, or grids, arguments or tensor maps sized per run.
  bool sizedAtRun = false;
  std::vector<TensorSpec> inputs, outputs;
  /// The bytes of the buffers placed when compiled; runs place those of
  /// `runPlacedBuffers` after them.
  uint64_t workspaceBytes = 0;
  std::vector<BufferSpec> buffers;
  /// The indices into `buffers` of those placed per run.
  std::vector<size_t> runPlacedBuffers;
  std::vector<LaunchSpec> launches;
  /// Every tensor_map argument of the launches, in order of appearance; the
  /// i-th one's descriptor lives at descriptorOffset(...) + 128 * i of the
  /// run's workspace.
  std::vector<TensorMapSpec> tensorMaps;

  /// The buffer `arg` passes, by itself or through a tensor map; null for
  /// an integer argument.
  const BufferSpec *bufferOf(const ArgSpec &arg) const {
    if (arg.kind == ArgSpec::Buffer)
      return &buffers[arg.buffer];
    if (arg.kind == ArgSpec::TensorMap)
      return &buffers[tensorMaps[arg.tensorMap].buffer];
    return nullptr;
  }

  /// Where the descriptors start in the workspace of a run whose buffers
  /// end at `buffersEnd`: rounded up so that each is 128-byte aligned.
  static uint64_t descriptorOffset(uint64_t buffersEnd) {
    return (buffersEnd + kWorkspaceAlignment - 1) / kWorkspaceAlignment *
           kWorkspaceAlignment;
  }

  /// The workspace a run needs whose buffers end at `buffersEnd`: its
  /// buffers and its descriptors. A graph with tensor maps needs one even
  /// when it has no buffers.
  uint64_t runWorkspaceBytes(uint64_t buffersEnd) const {
    return tensorMaps.empty() ? buffersEnd
                              : descriptorOffset(buffersEnd) +
                                    kTensorMapBytes * tensorMaps.size();
  }
};

struct Manifest {
  int version = 0;
  std::string target;
  /// Whether f32 matmuls may run on TF32 tensor cores (`allow_tf32`).
  bool allowTf32 = false;
  std::vector<GraphSpec> graphs;
};

/// Extracts the manifest from the artifact text `ptx` and validates it, then
/// scans the PTX's `.entry` directives and checks every launch against the
/// kernel it calls (docs/artifact.md, rules R2 to R49). On failure returns
/// FKRT_ERROR_INVALID_ARTIFACT or FKRT_ERROR_UNSUPPORTED_VERSION and sets
/// `error` to a lowercase message starting with "artifact", "manifest" or
/// "ptx".
fkrt_status readManifest(const std::string &ptx, Manifest &manifest,
                         std::string &error);

} // namespace fkrt

#endif // FKRT_LIB_MANIFEST_H

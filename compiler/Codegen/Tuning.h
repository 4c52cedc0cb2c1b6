//===- Tuning.h - measured tile choices per matmul shape -------*- C++ -*-===//
//
// A tuning file records, per matmul shape, the tile, block and ring depth of
// the wgmma kernel that measured fastest on a GPU (written by fkc-tune,
// docs/tools.md). `fkc --tuning=FILE` reads it: fk-tile and fk-promote take
// an entry's choices for the matmuls of its shape in place of their
// heuristics, so that tuning is reproducible and the compiler never needs
// a GPU. `fkc --write-tuning=FILE` writes the heuristics' own choices in
// the same format, the starting point fkc-tune measures candidates for.
//
// The format (JSON):
//
//   {"format": "fkc-tuning", "version": 1, "target": "sm_90a",
//    "matmuls": [{"dtype": "f16", "batches": 1, "m": 4096, "n": 4096,
//                 "k": 1024, "rhs": "k-major", "tile": [128, 256, 64],
//                 "threads": 384, "stages": 4}]}
//
// `m` counts batches folded into rows (a [B, S, K] @ [K, N] product has
// batch x S rows and one batch), as MatmulShape does; `rhs` is "n-major"
// (B stored [K, N]) or "k-major" (B read as transpose(w)). Other members of
// an entry (fkc-tune's "ms", "gpu") are kept for the reader and ignored.
//
//===----------------------------------------------------------------------===//

#ifndef FKC_CODEGEN_TUNING_H
#define FKC_CODEGEN_TUNING_H

#include "Codegen/MatmulShape.h"

#include <string>

namespace mlir::fk {

/// The wgmma kernel's choices for one matmul shape.
struct MatmulTuning {
  /// The shape it applies to.
  std::string dtype;
  int64_t batches = 1, m = 0, n = 0, k = 0;
  bool rhsKMajor = false;
  /// fk-tile's `tile` and `threads`, fk-promote's `stages`.
  SmallVector<int64_t> tile;
  int64_t threads = 0, stages = 0;

  bool matches(const MatmulShape &shape) const;
  /// Whether `other` is an entry for the same shape.
  bool hasShapeOf(const MatmulTuning &other) const;
  /// The entry of `shape` with the choices of `tiling` and `stages`.
  static MatmulTuning get(const MatmulShape &shape, TilingAttr tiling,
                          int64_t stages);
};

/// A tuning file's entries for one target.
class TuningTable {
public:
  /// Reads `path`; on a malformed file returns failure and sets `error` to
  /// a message naming the file and, where there is one, the entry.
  static FailureOr<TuningTable> load(StringRef path, std::string &error);

  /// The entry for `shape`, or null.
  const MatmulTuning *lookup(const MatmulShape &shape) const;
  StringRef getPath() const { return path; }
  StringRef getTarget() const { return target; }

private:
  std::string path, target;
  SmallVector<MatmulTuning> entries;
};

/// Loads fk-tile's and fk-promote's `tuning-file` option for `op`'s module:
/// a located error if the file is malformed or was written for another
/// target than `target`; null when `path` is empty.
FailureOr<std::optional<TuningTable>>
loadTuningTable(Operation *op, StringRef pass, StringRef path,
                TargetAttr target);

/// Writes a tuning file of the wgmma matmuls of `module` (a promoted
/// module): each distinct shape once, with its tiling and ring depth.
LogicalResult writeTuningFile(ModuleOp module, StringRef path);

} // namespace mlir::fk

#endif // FKC_CODEGEN_TUNING_H

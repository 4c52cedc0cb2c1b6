//===- Descriptions.h - how remarks name ops and sizes ----------*- C++ -*-===//
//
// The words the fusion passes, the kernel planner and `--fusion-graph` use
// for ops and byte counts, so that every remark speaks alike.
//
//===----------------------------------------------------------------------===//

#ifndef FK_ANALYSIS_DESCRIPTIONS_H
#define FK_ANALYSIS_DESCRIPTIONS_H

#include "mlir/IR/Operation.h"

#include <cstdint>
#include <string>

namespace mlir::fk {

/// The size in bytes of a tensor value on the device (i1 as bytes).
int64_t getTensorBytes(Value value);
/// "256.0 MiB".
std::string formatBytes(int64_t bytes);

/// ", counted with B = S = 1": how the byte counts of remarks about
/// `root` (an op, or a graph's function) read where it has symbolic
/// dimensions (getTensorBytes counts them per unit of their symbols); ""
/// where it has none.
std::string describeSymbolUnits(Operation *root);
/// "'h' (fk.add)": the statement name of an op, for remarks.
std::string describeOp(Operation *op);
/// The most bytes of its table an fk.gather reads: the slices its indices
/// select.
int64_t getGatherTableReadBytes(Operation *gather);
/// What an fk.gather reads of its table: "'x' (fk.gather) reads at most 512
/// of the 50257 slices of its table along axis 0 (768.0 KiB of 73.6 MiB)".
std::string describeGatherReads(Operation *gather);
/// How a kernel computes an element of a slicing op (slice, concat, pad,
/// dynamic_slice, update_slice) from its operands, e.g. "reads its operand
/// from [1, 0] by [2, 1]"; empty for other ops.
std::string describeIndexing(Operation *op);

} // namespace mlir::fk

#endif // FK_ANALYSIS_DESCRIPTIONS_H

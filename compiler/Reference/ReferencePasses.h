//===- ReferencePasses.h - passes that run the reference interpreter ------===//

#ifndef FKC_REFERENCE_REFERENCEPASSES_H
#define FKC_REFERENCE_REFERENCEPASSES_H

namespace mlir::fk {
/// Registers `fk-print-reference`: interprets every function of a module on
/// seeded random inputs (or on none, for functions without arguments) and
/// prints its results, so that lit tests can check values.
void registerReferencePasses();
} // namespace mlir::fk

#endif // FKC_REFERENCE_REFERENCEPASSES_H

//===- TestPasses.h - passes that exist for tests only ----------*- C++ -*-===//

#ifndef FKC_TEST_LIB_TESTPASSES_H
#define FKC_TEST_LIB_TESTPASSES_H

namespace mlir::fk {
void registerScalarInterfaceTest();
void registerScalarSemanticsTest();

/// Registers the test passes with fkc-opt.
inline void registerTestPasses() {
  registerScalarInterfaceTest();
  registerScalarSemanticsTest();
}
} // namespace mlir::fk

#endif // FKC_TEST_LIB_TESTPASSES_H

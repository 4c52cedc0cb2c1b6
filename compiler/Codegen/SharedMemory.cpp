//===- SharedMemory.cpp - dynamic shared memory of the Hopper kernels -----===//

#include "Codegen/SharedMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::fk;

/// The global the kernels' dynamic shared memory is addressed through. An
/// external zero-size global becomes `.extern .shared .align 1024 .b8 x[]`;
/// `gpu.dynamic_shared_memory` would become a one-byte variable that ptxas
/// may place among the static mbarriers.
static constexpr StringLiteral kDynamicSharedName = "fk_dynamic_shared";

MemRefType mlir::fk::getSharedMemRefType(MLIRContext *ctx,
                                         ArrayRef<int64_t> dims,
                                         Type element) {
  return MemRefType::get(
      dims, element, MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
}

nvgpu::TensorMapDescriptorType
mlir::fk::getSwizzledTensorMapType(MemRefType box) {
  return nvgpu::TensorMapDescriptorType::get(
      box.getContext(), box, nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
}

DynamicSharedMemory DynamicSharedMemory::create(OpBuilder &b, Location loc,
                                                gpu::GPUModuleOp kernels,
                                                int64_t bytes) {
  MLIRContext *ctx = b.getContext();
  auto i8 = IntegerType::get(ctx, 8);
  auto declared = getSharedMemRefType(ctx, {0}, i8);
  if (!SymbolTable::lookupSymbolIn(kernels, kDynamicSharedName)) {
    OpBuilder mb = OpBuilder::atBlockBegin(kernels.getBody());
    memref::GlobalOp::create(mb, loc, kDynamicSharedName,
                             /*sym_visibility=*/StringAttr(), declared,
                             /*initial_value=*/Attribute(), /*constant=*/false,
                             mb.getI64IntegerAttr(kRingAlignment));
  }
  Value global =
      memref::GetGlobalOp::create(b, loc, declared, kDynamicSharedName);
  DynamicSharedMemory shared;
  shared.ring = memref::ReinterpretCastOp::create(
      b, loc, getSharedMemRefType(ctx, {bytes}, i8), global, /*offset=*/0,
      ArrayRef<int64_t>{bytes}, ArrayRef<int64_t>{1});
  // Swizzled tiles and wgmma descriptors want 1024-byte aligned tiles; the
  // declared alignment is not relied on, the base is rounded up here.
  shared.address =
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, shared.ring);
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value misalignment = arith::RemUIOp::create(b, loc, shared.address,
                                              index(kRingAlignment));
  shared.base = arith::RemUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, index(kRingAlignment), misalignment),
      index(kRingAlignment));
  return shared;
}

Value DynamicSharedMemory::view(OpBuilder &b, Location loc, Value offset,
                                MemRefType type) const {
  return memref::ViewOp::create(b, loc, type, ring,
                                arith::AddIOp::create(b, loc, base, offset),
                                ValueRange{});
}

Value mlir::fk::getPhaseParity(OpBuilder &b, Location loc, Value round) {
  return arith::TruncIOp::create(
      b, loc, b.getI1Type(),
      arith::IndexCastUIOp::create(b, loc, b.getI32Type(), round));
}

Value mlir::fk::createCopyBarriers(OpBuilder &b, Location loc, int64_t count,
                                   Value primary, int64_t arrivals) {
  MLIRContext *ctx = b.getContext();
  Value barriers = nvgpu::MBarrierCreateOp::create(
      b, loc,
      nvgpu::MBarrierGroupType::get(
          ctx, gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup),
          count));
  Value expected = arith::ConstantIndexOp::create(b, loc, arrivals);
  for (int64_t i = 0; i < count; ++i)
    nvgpu::MBarrierInitOp::create(b, loc, barriers, expected,
                                  arith::ConstantIndexOp::create(b, loc, i),
                                  primary);
  // The initialized mbarriers must be visible to the TMA unit (the async
  // proxy) before any copy signals them, and to every thread.
  NVVM::FenceMbarrierInitOp::create(b, loc);
  gpu::BarrierOp::create(b, loc);
  return barriers;
}

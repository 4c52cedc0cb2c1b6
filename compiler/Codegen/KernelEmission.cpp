//===- KernelEmission.cpp - a fusion body's value at given coordinates ---===//

#include "Codegen/KernelEmission.h"
#include "fk/IR/FkGatherSemantics.h"
#include "fk/IR/FkScalarSemantics.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::fk;


namespace {
/// One value being emitted: the element of `tensor` at `coords`. A shape op
/// forwards to the element of its operand at other coordinates; an
/// elementwise op waits for the elements of its operands; a step with
/// `then` waits for the elements it `needs`.
struct PendingElement {
  Value tensor;
  SmallVector<Value> coords;
  bool forwards = false;
  Operation *elementwise = nullptr;
  SmallVector<ElementRef, 0> needs;
  std::function<FailureOr<ElementStep>(ArrayRef<Value>)> then;
  SmallVector<Value> operands;
};
} // namespace

static std::vector<void *> cacheKey(Value tensor, ArrayRef<Value> coords) {
  std::vector<void *> key = {tensor.getAsOpaquePointer()};
  for (Value coord : coords)
    key.push_back(coord.getAsOpaquePointer());
  return key;
}

// A fusion may chain many thousands of ops, so the walk keeps its own stack
// rather than recursing once per op. It visits operands in program order,
// depth first, as a recursive walk would, so the IR it builds is the same.
FailureOr<Value> ElementEmitter::emit(Value tensor, ArrayRef<Value> coords) {
  SmallVector<PendingElement> stack;
  std::optional<Value> finished; // the value of the element just popped
  auto push = [&](Value t, ArrayRef<Value> c) {
    PendingElement element;
    element.tensor = t;
    element.coords.assign(c.begin(), c.end());
    stack.push_back(std::move(element));
  };
  auto finish = [&](Value value) {
    PendingElement &top = stack.back();
    cache[cacheKey(top.tensor, top.coords)] = value;
    finished = value;
    stack.pop_back();
  };
  // Takes the step the top element needs: done, or waiting for others.
  auto take = [&](ElementStep step) {
    PendingElement &top = stack.back();
    top.operands.clear();
    if (step.value)
      return finish(step.value);
    if (step.elementwise) {
      top.elementwise = step.elementwise;
      return;
    }
    if (step.then) {
      top.needs = std::move(step.needs);
      top.then = std::move(step.then);
      return;
    }
    top.forwards = true;
    Value source = step.source;
    SmallVector<Value> sourceCoords = std::move(step.sourceCoords);
    push(source, sourceCoords);
  };

  push(tensor, coords);
  while (!stack.empty()) {
    PendingElement &top = stack.back();
    if (finished) {
      Value value = *finished;
      finished.reset();
      if (top.forwards) {
        finish(value);
        continue;
      }
      top.operands.push_back(value);
    } else if (!top.forwards && !top.elementwise && !top.then) {
      // First visit: a cached or leaf value, or what the element needs.
      if (auto it = cache.find(cacheKey(top.tensor, top.coords));
          it != cache.end()) {
        finish(it->second);
        continue;
      }
      FailureOr<ElementStep> step = emitStep(top.tensor, top.coords);
      if (failed(step))
        return failure();
      take(std::move(*step));
      continue;
    }
    // A step waiting for elements: the next one, or what it makes of them.
    if (stack.back().then) {
      PendingElement &waiting = stack.back();
      size_t done = waiting.operands.size();
      if (done < waiting.needs.size()) {
        ElementRef next = waiting.needs[done];
        push(next.tensor, next.coords);
        continue;
      }
      auto then = std::move(waiting.then);
      waiting.then = nullptr;
      FailureOr<ElementStep> step = then(waiting.operands);
      if (failed(step))
        return failure();
      take(std::move(*step));
      continue;
    }
    // An elementwise op: its next operand, or the op once all are in.
    Operation *op = stack.back().elementwise;
    size_t done = stack.back().operands.size();
    if (done < op->getNumOperands()) {
      SmallVector<Value> sameCoords = stack.back().coords;
      push(op->getOperand(done), sameCoords);
      continue;
    }
    FailureOr<Value> value = buildElementwise(b, op, stack.back().operands);
    if (failed(value))
      return failure();
    finish(*value);
  }
  return *finished;
}

Value ElementEmitter::emitIota(IotaOp iota, ArrayRef<Value> coords) {
  Type elementType = tensorType(iota.getResult()).getElementType();
  Value index = coords[iota.getDim()];
  Type integerType = isa<FloatType>(elementType) ? b.getI32Type() : elementType;
  Value asInteger = arith::IndexCastOp::create(b, loc, integerType, index);
  if (!isa<FloatType>(elementType))
    return asInteger;
  Value asFloat = arith::SIToFPOp::create(b, loc, b.getF32Type(), asInteger);
  return roundToElementType(b, loc, asFloat, elementType);
}

FailureOr<ElementStep> ElementEmitter::emitStep(Value tensor,
                                                ArrayRef<Value> coords) {
  Type elementType = tensorType(tensor).getElementType();
  if (auto it = buffers.find(tensor); it != buffers.end())
    return ElementStep::leaf(load(it->second, coords, elementType));

  Operation *op = tensor.getDefiningOp();
  if (!op) {
    // An input without elements: code reading it is never executed (a loop
    // over an empty extent), yet must be built.
    if (isStaticallyEmpty(tensorType(tensor)))
      return ElementStep::leaf(buildScalarConstant(b, loc, elementType, 0.0));
    return emitError(loc) << "kernel input without a buffer";
  }

  if (auto constant = dyn_cast<ConstantOp>(op)) {
    auto dense = cast<DenseElementsAttr>(constant.getValue());
    if (dense.isSplat())
      return ElementStep::leaf(buildScalarConstant(
          b, loc, elementType,
          attributeToDouble(dense.getSplatValue<Attribute>())));
    DenseElementsAttr stored = dense;
    if (elementType.isSignlessInteger(1))
      stored = dense.mapValues(b.getI8Type(), [](const APInt &bit) {
        return APInt(8, bit.getZExtValue());
      });
    auto memrefType =
        MemRefType::get(tensorType(tensor).getShape(), stored.getElementType());
    // One global per distinct constant of the module, however many
    // elements or kernels read it.
    memref::GlobalOp global;
    for (auto existing : kernels.getOps<memref::GlobalOp>())
      if (existing.getConstant() && existing.getType() == memrefType &&
          existing.getInitialValueAttr() == stored) {
        global = existing;
        break;
      }
    if (!global) {
      // Created detached: inserting it into the symbol table then renames
      // it if another constant took the name.
      OpBuilder detached(b.getContext());
      // 16-byte aligned: the runs of a loop kernel read it with vector
      // loads (VectorStart::getAlignment) as they read kernel arguments.
      global = memref::GlobalOp::create(
          detached, loc, "fk_constant", b.getStringAttr("private"),
          memrefType, stored, /*constant=*/true,
          /*alignment=*/b.getI64IntegerAttr(16));
      SymbolTable(kernels).insert(global, kernels.getBody()->begin());
    }
    Value memref =
        memref::GetGlobalOp::create(b, loc, memrefType, global.getSymName());
    return ElementStep::leaf(load(memref, coords, elementType));
  }
  if (auto iota = dyn_cast<IotaOp>(op))
    return ElementStep::leaf(emitIota(iota, coords));
  if (contractionHook && isa<MatmulOp, AttentionOp>(op))
    return ElementStep::leaf(contractionHook(op, coords));
  if (reductionHook && isReduction(op))
    return ElementStep::leaf(reductionHook(op));
  if (auto broadcast = dyn_cast<BroadcastOp>(op))
    return ElementStep::forward(
        broadcast.getOperand(),
        idx.broadcastSource(coords,
                            tensorType(broadcast.getOperand()).getShape()));
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    // Result dimension i walks operand dimension perm[i].
    SmallVector<Value> source(coords.size());
    for (auto [i, p] : llvm::enumerate(transpose.getPerm()))
      source[p] = coords[i];
    return ElementStep::forward(transpose.getOperand(), source);
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    // [a..., i..., b...] reads table[a..., index(indices[i...]), b...].
    int64_t axis = gather.getAxis();
    int64_t indexRank = tensorType(gather.getIndices()).getRank();
    ArrayRef<Value> all(coords);
    SmallVector<Value> source(all.take_front(axis));
    source.push_back(Value()); // the gathered coordinate, once known
    llvm::append_range(source, all.drop_front(axis + indexRank));
    Value table = gather.getTable(), indices = gather.getIndices();
    // The axis's size, or its value where it is given at run time.
    OpFoldResult size = idx.size(getDim(tensorType(table), axis));
    SmallVector<Value> indexCoords(all.slice(axis, indexRank));
    // The index element first, then the table's element it selects.
    return ElementStep::after(
        {ElementRef{indices, indexCoords}},
        [this, table, source, axis,
         size](ArrayRef<Value> v) mutable -> FailureOr<ElementStep> {
          Value &c = gatherCoordinates[{v[0], size.getOpaqueValue()}];
          if (!c) {
            if (std::optional<int64_t> known = getConstantIntValue(size))
              c = buildGatherCoordinate(b, loc, v[0], *known);
            else
              c = buildGatherCoordinate(
                  b, loc, v[0],
                  arith::IndexCastUIOp::create(b, loc, b.getI64Type(),
                                               cast<Value>(size)));
          }
          source[axis] = c;
          return ElementStep::forward(table, source);
        });
  }
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    if (std::optional<SmallVector<Value>> run = reshapeRun(reshape, coords))
      return ElementStep::forward(reshape.getOperand(), *run);
    Value linear =
        idx.linearize(coords, idx.shapeOf(tensorType(reshape.getResult())));
    return ElementStep::forward(
        reshape.getOperand(),
        idx.delinearize(linear, idx.shapeOf(tensorType(reshape.getOperand()))));
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    // Result coordinate i reads start + step * i; a negative start counts
    // from the end of its dimension (a size given at run time, or not).
    SmallVector<Value> source;
    SmallVector<Dim> dims = getDims(tensorType(slice.getOperand()));
    for (auto [d, coord, start, step, dim] : llvm::enumerate(
             coords, slice.getStart(), slice.getStep(), dims)) {
      // The innermost coordinate of a run, shifted by a multiple of the
      // run's width, is a run too.
      int64_t shift = start >= 0 || !dim.isStatic()
                          ? start
                          : dim.getCoefficient() + start;
      if (step == 1 && shift > 0 && shift % vectorStart.width == 0)
        if (Value moved = moveRun(coord,
                                  {slice.getOperation(),
                                   static_cast<int64_t>(d)},
                                  [&](Value runStart) {
                                    return idx.add(runStart,
                                                   idx.constant(shift));
                                  })) {
          source.push_back(moved);
          continue;
        }
      Value scaled = step == 1 ? coord : idx.mul(coord, idx.constant(step));
      if (start == 0) {
        source.push_back(scaled);
        continue;
      }
      Value first = start > 0 ? idx.constant(start)
                              : idx.sub(idx.sizeValue(dim),
                                        idx.constant(-start));
      source.push_back(idx.add(first, scaled));
    }
    return ElementStep::forward(slice.getOperand(), source);
  }
  if (auto concat = dyn_cast<ConcatOp>(op))
    return emitConcat(concat, coords);
  if (auto pad = dyn_cast<PadOp>(op))
    return emitPad(pad, coords);
  if (auto slice = dyn_cast<DynamicSliceOp>(op))
    return emitDynamicSlice(slice, coords);
  if (auto update = dyn_cast<UpdateSliceOp>(op))
    return emitUpdateSlice(update, coords);
  if (isa<ScalarElementwiseOpInterface>(op))
    return ElementStep::elementwiseOf(op);
  return op->emitOpError()
         << "cannot be computed element by element inside a kernel";
}


//===----------------------------------------------------------------------===//
// Slicing and joining
//===----------------------------------------------------------------------===//
//
// A choice among sources reads every candidate at coordinates clamped into
// it, so that no read leaves a buffer whatever the result coordinate, then
// selects; an empty candidate is never read.

Value ElementEmitter::moveRun(Value coord,
                              std::pair<const void *, int64_t> key,
                              llvm::function_ref<Value(Value)> moveStart) {
  std::optional<std::pair<Value, int64_t>> element = vectorStart.find(coord);
  if (!element)
    return Value();
  auto [start, offset] = *element;
  SmallVector<Value> &run =
      movedRuns[{start.getAsOpaquePointer(), key.first, key.second}];
  if (run.empty()) {
    Value moved = moveStart(start);
    for (int64_t e = 0; e < vectorStart.width; ++e)
      run.push_back(e == 0 ? moved : idx.add(moved, idx.constant(e)));
    vectorStart.addRun(moved, run);
  }
  return run[offset];
}

std::optional<SmallVector<Value>>
ElementEmitter::reshapeRun(ReshapeOp reshape, ArrayRef<Value> coords) {
  std::optional<std::pair<Value, int64_t>> element =
      coords.empty() ? std::nullopt : vectorStart.find(coords.back());
  if (!element)
    return std::nullopt;
  int64_t width = vectorStart.width;
  RankedTensorType result = tensorType(reshape.getResult());
  RankedTensorType operand = tensorType(reshape.getOperand());
  // Row-major order is kept, so a run whose flat start is a multiple of
  // the width stays in one of the operand's rows when those are whole
  // runs too.
  int64_t resultRow = result.getShape().back();
  if (operand.getRank() == 0 || ShapedType::isDynamic(resultRow) ||
      resultRow % width != 0 ||
      ShapedType::isDynamic(operand.getShape().back()) ||
      operand.getShape().back() % width != 0)
    return std::nullopt;
  // The operand coordinates of the run's start, built once per run.
  Value start = element->first;
  std::vector<void *> key = {reshape.getOperation(),
                             start.getAsOpaquePointer()};
  for (Value c : coords.drop_back())
    key.push_back(c.getAsOpaquePointer());
  SmallVector<Value> &source = reshapedRuns[key];
  if (source.empty()) {
    SmallVector<Value> at(coords);
    at.back() = start;
    source = idx.delinearize(idx.linearize(at, idx.shapeOf(result)),
                             idx.shapeOf(operand));
  }
  SmallVector<Value> moved(source);
  Value startInRow = source.back();
  moved.back() =
      moveRun(coords.back(), {startInRow.getAsOpaquePointer(), 0},
              [&](Value) { return startInRow; });
  return moved;
}

ElementStep ElementEmitter::emitConcat(ConcatOp concat, ArrayRef<Value> coords) {
  int64_t axis = concat.getAxis();
  int64_t extent = tensorType(concat.getResult()).getDimSize(axis);
  Value coord = coords[axis];
  // Along the innermost axis, with every input a whole number of runs, a
  // run lies in one input: each input is read as a run (clamped into it as
  // a whole), and the run's start chooses among them.
  int64_t width = vectorStart.width;
  std::optional<std::pair<Value, int64_t>> element = vectorStart.find(coord);
  bool byRuns = element && axis + 1 == static_cast<int64_t>(coords.size()) &&
                llvm::all_of(concat.getInputs(), [&](Value input) {
                  int64_t size = tensorType(input).getDimSize(axis);
                  return !ShapedType::isDynamic(size) && size % width == 0;
                });
  Value chooser = byRuns ? element->first : coord;
  SmallVector<ElementRef> needs;
  SmallVector<int64_t> offsets;
  int64_t offset = 0;
  for (auto [j, input] : llvm::enumerate(concat.getInputs())) {
    RankedTensorType type = tensorType(input);
    int64_t size = type.getDimSize(axis);
    if (!isStaticallyEmpty(type)) {
      // The first element a read of the input may start at, and the last.
      int64_t last = byRuns ? size - width : size - 1;
      // Clamped before the offset is taken off, so that the subtraction
      // cannot wrap and LLVM sees the elements of a run stay adjacent.
      auto clampIn = [&](Value at) {
        if (offset > 0)
          at = arith::MaxSIOp::create(b, loc, at, idx.constant(offset));
        if (offset + size < extent)
          at = arith::MinSIOp::create(b, loc, at,
                                      idx.constant(offset + last));
        if (offset == 0)
          return at;
        return arith::SubIOp::create(b, loc, at, idx.constant(offset),
                                     IndexBuilder::kNoWrap)
            .getResult();
      };
      Value local = byRuns ? moveRun(coord,
                                     {concat.getOperation(),
                                      static_cast<int64_t>(j)},
                                     clampIn)
                           : clampIn(coord);
      ElementRef ref{input, SmallVector<Value>(coords)};
      ref.coords[axis] = local;
      needs.push_back(std::move(ref));
      offsets.push_back(offset);
    }
    offset += size;
  }
  // With no elements in any input, the result has none either: nothing
  // reads it.
  if (needs.empty())
    return *ElementStep::leaf(buildScalarConstant(
        b, loc, tensorType(concat.getResult()).getElementType(), 0.0));
  if (needs.size() == 1)
    return ElementStep::forward(needs[0].tensor, needs[0].coords);
  return ElementStep::after(
      std::move(needs),
      [this, chooser, offsets](ArrayRef<Value> parts) -> FailureOr<ElementStep> {
        // The last input whose range starts at or before the coordinate
        // (or the run's start: its elements all choose the same).
        Value value = parts.back();
        for (int64_t j = static_cast<int64_t>(parts.size()) - 2; j >= 0; --j) {
          Value before = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::slt, chooser,
              idx.constant(offsets[j + 1]));
          value = arith::SelectOp::create(b, loc, before, parts[j], value);
        }
        return ElementStep::leaf(value);
      });
}

ElementStep ElementEmitter::emitPad(PadOp pad, ArrayRef<Value> coords) {
  RankedTensorType type = tensorType(pad.getOperand());
  Type elementType = type.getElementType();
  Value padding = buildScalarConstant(
      b, loc, elementType,
      roundToElementType(pad.getValue().convertToDouble(), elementType));
  if (isStaticallyEmpty(type))
    return *ElementStep::leaf(padding);
  SmallVector<Value> source;
  Value inside;
  for (auto [d, coord] : llvm::enumerate(coords)) {
    int64_t low = pad.getLow()[d], high = pad.getHigh()[d];
    int64_t dim = type.getDimSize(d);
    if (low == 0 && high == 0) {
      source.push_back(coord);
      continue;
    }
    Value shifted = low == 0 ? coord : idx.sub(coord, idx.constant(low));
    Value here = idx.inRange(shifted, dim);
    inside = inside ? arith::AndIOp::create(b, loc, inside, here) : here;
    source.push_back(idx.clamp(shifted, 0, dim - 1));
  }
  if (!inside)
    return ElementStep::forward(pad.getOperand(), source);
  return ElementStep::after(
      {ElementRef{pad.getOperand(), source}},
      [this, inside, padding](ArrayRef<Value> read) -> FailureOr<ElementStep> {
        return ElementStep::leaf(
            arith::SelectOp::create(b, loc, inside, read[0], padding)
                .getResult());
      });
}

ElementStep ElementEmitter::withWindowStart(
    ArrayRef<int64_t> staticStart, ValueRange starts, ArrayRef<Dim> full,
    ArrayRef<Dim> window,
    std::function<FailureOr<ElementStep>(ArrayRef<Value>)> then) {
  SmallVector<ElementRef> needs;
  for (Value start : starts)
    needs.push_back(ElementRef{start, {}});
  SmallVector<int64_t> fixed(staticStart);
  SmallVector<Dim> fullShape(full), windowShape(window);
  return ElementStep::after(
      std::move(needs),
      [this, fixed, fullShape, windowShape,
       then](ArrayRef<Value> dynamic) -> FailureOr<ElementStep> {
        return then(
            idx.windowStart(fixed, dynamic, fullShape, windowShape));
      });
}

ElementStep ElementEmitter::emitDynamicSlice(DynamicSliceOp slice,
                                             ArrayRef<Value> coords) {
  SmallVector<Value> at(coords);
  Value operand = slice.getOperand();
  return withWindowStart(
      slice.getStaticStart(), slice.getStart(), getDims(tensorType(operand)),
      getDims(tensorType(slice.getResult())),
      [this, at, operand](ArrayRef<Value> start) -> FailureOr<ElementStep> {
        SmallVector<Value> source;
        for (auto [coord, first] : llvm::zip(at, start))
          source.push_back(idx.add(first, coord));
        return ElementStep::forward(operand, source);
      });
}

FailureOr<ElementStep>
ElementEmitter::emitUpdateSlice(UpdateSliceOp update, ArrayRef<Value> coords) {
  Value dest = update.getDest(), patch = update.getUpdate();
  if (isStaticallyEmpty(tensorType(patch)))
    return ElementStep::forward(dest, coords);
  SmallVector<Value> at(coords);
  SmallVector<Dim> windowShape = getDims(tensorType(patch));
  SmallVector<Dim> fullShape = getDims(tensorType(dest));
  // Every element of dest reads the update at coordinates clamped into it,
  // so an update that may be empty at run time cannot be read; its kernel
  // walks only the window instead (fk.window_in_place).
  DictionaryAttr lowerBounds = getDimLowerBounds(update);
  for (auto [d, dim] : llvm::enumerate(windowShape))
    if (dim != fullShape[d] && !dim.isStatic() &&
        getSmallestSize(dim, lowerBounds) == 0)
      return update.emitOpError()
          << "with an update whose dimension " << d << " (" << dim
          << ") may be 0 is computed only in place (as the new value of an "
             "inout parameter whose old value nothing else reads, its "
             "kernel walks the window alone); elsewhere give its symbols "
             "lower bounds (`where 1 <= "
          << formatBoundedSymbol(dim) << "`)";
  return withWindowStart(
      update.getStaticStart(), update.getStart(), fullShape, windowShape,
      [this, at, dest, patch, windowShape,
       fullShape](ArrayRef<Value> start) -> FailureOr<ElementStep> {
        SmallVector<Value> source;
        Value inside;
        for (auto [d, coord] : llvm::enumerate(at)) {
          // A window as wide as the tensor starts at 0 and covers it.
          if (windowShape[d] == fullShape[d]) {
            source.push_back(coord);
            continue;
          }
          Value shifted = idx.sub(coord, start[d]);
          OpFoldResult extent = idx.size(windowShape[d]);
          Value here = idx.inRange(shifted, extent);
          inside = inside ? arith::AndIOp::create(b, loc, inside, here) : here;
          source.push_back(idx.clampInto(shifted, extent));
        }
        if (!inside)
          return ElementStep::forward(patch, source);
        return ElementStep::after(
            {ElementRef{patch, source}, ElementRef{dest, at}},
            [this, inside](ArrayRef<Value> read) -> FailureOr<ElementStep> {
              return ElementStep::leaf(
                  arith::SelectOp::create(b, loc, inside, read[0], read[1])
                      .getResult());
            });
      });
}

Value mlir::fk::collapseToOneDim(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getRank() < 2)
    return memref;
  SmallVector<ReassociationIndices> all(1);
  for (int64_t d = 0; d < type.getRank(); ++d)
    all[0].push_back(d);
  return memref::CollapseShapeOp::create(b, loc, memref, all);
}

Value mlir::fk::emitInlinePtx(OpBuilder &b, Location loc, Type type,
                              StringRef text, StringRef constraints,
                              ValueRange operands, bool sideEffects) {
  return LLVM::InlineAsmOp::create(
             b, loc, type, operands, b.getStringAttr(text),
             b.getStringAttr(constraints),
             /*has_side_effects=*/sideEffects ? b.getUnitAttr() : UnitAttr(),
             /*is_align_stack=*/UnitAttr(), LLVM::TailCallKindAttr(),
             /*asm_dialect=*/LLVM::AsmDialectAttr(),
             /*operand_attrs=*/ArrayAttr())
      .getResult(0);
}

Value mlir::fk::emitWarpUniform(OpBuilder &b, Location loc, Value value) {
  Value word = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), value);
  Value broadcast = gpu::ShuffleOp::create(b, loc, word, /*offset=*/0,
                                           /*width=*/32, gpu::ShuffleMode::IDX)
                        .getShuffleResult();
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), broadcast);
}

Value mlir::fk::emitFastExp2(OpBuilder &b, Location loc, Value x) {
  return emitInlinePtx(b, loc, b.getF32Type(), "ex2.approx.ftz.f32 $0, $1;",
                       "=f,f", x, /*sideEffects=*/false);
}

//===- Driver.cpp - what fkc does, as a library ---------------------------===//

#include "Driver/Driver.h"
#include "Driver/DiagnosticPrinter.h"
#include "Artifact/ArtifactWriter.h"
#include "Codegen/Tuning.h"
#include "Driver/FusionGraph.h"
#include "Frontend/Importer.h"
#include "Reference/Interpreter.h"
#include "Reference/NamedTensors.h"
#include "Reference/ReferenceBundle.h"
#include "fk/IR/FkDialect.h"
#include "fk/IR/FkNumerics.h"
#include "fk/IR/FkTarget.h"
#include "fk/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "fkrt/safetensors.hpp"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::fk;

void mlir::fk::registerDriverCLOptions() {
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
}

namespace {
/// One run of the compiler over one input buffer (or one split chunk).
class Compilation {
public:
  /// `namedInputs`: the tensors of --inputs, or null for random inputs.
  Compilation(const DriverOptions &options, const NamedTensors *namedInputs,
              llvm::raw_ostream &os)
      : options(options), namedInputs(namedInputs), os(os) {}

  LogicalResult process(std::unique_ptr<llvm::MemoryBuffer> buffer);

private:
  OwningOpRef<ModuleOp> parseInput(llvm::SourceMgr &sourceMgr,
                                   MLIRContext *context);
  LogicalResult setTarget(ModuleOp module);
  /// Runs the stages up to the one asked for; with --mlir-timing, each
  /// stage's passes are timed under `timing` (null without).
  LogicalResult runStages(ModuleOp module, TimingScope *timing);
  /// Chooses the graphs to interpret (--graph, or every function) and
  /// makes their inputs: those of --inputs, or seeded random ones.
  LogicalResult prepareInputs(ModuleOp module);
  /// The graphs prepareInputs chose, as they are in `module` now.
  SmallVector<func::FuncOp> interpretedGraphs(ModuleOp module);
  /// Interprets the chosen graphs on their inputs.
  FailureOr<SmallVector<SmallVector<RefTensor>>> interpretAll(ModuleOp module);
  LogicalResult printValues(ModuleOp module);

  const DriverOptions &options;
  const NamedTensors *namedInputs;
  llvm::raw_ostream &os;
  /// The names of the graphs interpreted and their inputs.
  SmallVector<std::string> graphNames;
  SmallVector<SmallVector<RefTensor>> graphInputs;
};
} // namespace

OwningOpRef<ModuleOp> Compilation::parseInput(llvm::SourceMgr &sourceMgr,
                                              MLIRContext *context) {
  llvm::StringRef name =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBufferIdentifier();
  if (name.ends_with(".mlir"))
    return parseSourceFile<ModuleOp>(sourceMgr, context);
  return importGraphFile(sourceMgr, context);
}

/// Gives `module` the description of the chip to compile for. A .mlir input
/// may carry a target of its own (a made-up one, say), which stays unless
/// --target names another chip. --allow-tf32 marks it `fk.allow_tf32`.
LogicalResult Compilation::setTarget(ModuleOp module) {
  if (options.allowTf32)
    module->setAttr(kAllowTf32AttrName, UnitAttr::get(module.getContext()));
  if (auto own = module->getAttrOfType<TargetAttr>(kTargetAttrName)) {
    if (options.chip && *options.chip != own.getChip())
      return emitError(module.getLoc())
             << "--target=" << *options.chip << " differs from the module's '"
             << kTargetAttrName << "' for '" << own.getChip() << "'";
    if (options.smCount && *options.smCount != own.getSmCount())
      return emitError(module.getLoc())
             << "--sm-count=" << *options.smCount
             << " differs from the module's '" << kTargetAttrName
             << "' with sm_count = " << own.getSmCount();
    return success();
  }
  std::string chip = options.chip.value_or(kDefaultChip.str());
  TargetAttr target = getTargetDescription(module.getContext(), chip);
  if (options.smCount)
    target = TargetAttr::get(
        module.getContext(), target.getChip(), target.getComputeCapability(),
        *options.smCount, target.getSharedMemoryPerBlock(),
        target.getSharedMemoryPerSm(), target.getRegistersPerThread(),
        target.getWgmma(), target.getTma());
  module->setAttr(kTargetAttrName, target);
  return success();
}

LogicalResult Compilation::prepareInputs(ModuleOp module) {
  SmallVector<func::FuncOp> graphs;
  for (auto fn : module.getOps<func::FuncOp>())
    if (options.graph.empty() || fn.getSymName() == options.graph)
      graphs.push_back(fn);
  if (graphs.empty()) {
    std::string names;
    for (auto fn : module.getOps<func::FuncOp>())
      names += (names.empty() ? "" : ", ") + fn.getSymName().str();
    return emitError(UnknownLoc::get(module.getContext()))
           << "--graph: no graph named '" << options.graph
           << "' (the graphs: " << names << ")";
  }
  graphNames.clear();
  for (func::FuncOp fn : graphs)
    graphNames.push_back(fn.getSymName().str());
  graphInputs.clear();
  if (!namedInputs) {
    for (func::FuncOp fn : graphs)
      graphInputs.push_back(makeRandomInputs(fn, options.seed));
    return success();
  }
  FailureOr<SmallVector<SmallVector<RefTensor>>> inputs =
      bindInputsByName(module, graphs, *namedInputs);
  if (failed(inputs))
    return failure();
  graphInputs = std::move(*inputs);
  return success();
}

SmallVector<func::FuncOp> Compilation::interpretedGraphs(ModuleOp module) {
  SmallVector<func::FuncOp> graphs;
  for (const std::string &name : graphNames)
    graphs.push_back(module.lookupSymbol<func::FuncOp>(name));
  return graphs;
}

FailureOr<SmallVector<SmallVector<RefTensor>>>
Compilation::interpretAll(ModuleOp module) {
  SmallVector<SmallVector<RefTensor>> results;
  ReferenceInterpreter interpreter;
  for (auto [fn, inputs] : llvm::zip(interpretedGraphs(module), graphInputs)) {
    FailureOr<SmallVector<RefTensor>> values = interpreter.run(fn, inputs);
    if (failed(values))
      return failure();
    results.push_back(std::move(*values));
  }
  return results;
}

LogicalResult Compilation::runStages(ModuleOp module, TimingScope *timing) {
  if (!options.fusionGraphFile.empty() && options.emit < Stage::Fused)
    return emitError(module.getLoc())
           << "--fusion-graph needs the fused stage (--emit=fused or later)";
  if (!options.writeTuningFile.empty() &&
      (options.emit < Stage::Promoted || options.interpret))
    return emitError(module.getLoc())
           << "--write-tuning needs the promoted stage (--emit=promoted or "
              "later, without --interpret)";
  PipelineOptions pipeline = options.pipeline;
  // The interpreter runs static graphs: a symbolic graph is bound first,
  // and the bound graph is the reference of every stage.
  bool needsValues = options.interpret || options.verifyStages ||
                     !options.referenceFile.empty();
  if (needsValues) {
    PassManager pm(module.getContext());
    FkBindDimsOptions bind;
    bind.sizes = pipeline.dimSizes;
    pm.addPass(createFkBindDims(bind));
    if (failed(pm.run(module)))
      return failure();
    pipeline.dimSizes.clear();
    if (failed(prepareInputs(module)))
      return failure();
  }
  if (!options.referenceFile.empty() &&
      failed(writeReferenceBundle(module, interpretedGraphs(module),
                                  graphInputs, options.seed,
                                  options.referenceFile)))
    return failure();
  std::optional<SmallVector<SmallVector<RefTensor>>> expected;
  if (options.verifyStages) {
    FailureOr<SmallVector<SmallVector<RefTensor>>> values = interpretAll(module);
    if (failed(values))
      return failure();
    expected = std::move(*values);
  }
  bool mismatch = false;
  for (Stage stage : getStages()) {
    // The interpreter runs fk IR: --interpret stops at the last such stage.
    if (options.interpret && !isTensorStage(stage))
      break;
    PassManager pm(module.getContext());
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    addStagePasses(pm, stage, pipeline);
    TimingScope stageTiming;
    if (timing) {
      stageTiming = timing->nest(getStageName(stage));
      pm.enableTiming(stageTiming);
    }
    if (failed(pm.run(module)))
      return failure();
    stageTiming.stop();
    if (expected && isTensorStage(stage)) {
      FailureOr<SmallVector<SmallVector<RefTensor>>> actual =
          interpretAll(module);
      if (failed(actual))
        return failure();
      for (auto [fn, want, got] :
           llvm::zip(interpretedGraphs(module), *expected, *actual)) {
        for (auto [index, pair] : llvm::enumerate(llvm::zip(want, got))) {
          const auto &[w, g] = pair;
          TensorDifference diff = compareTensors(w, g);
          double tolerance = defaultTolerance(w.type.getElementType());
          // TF32 products are as precise as f16 operands.
          if (w.type.getElementType().isF32() && allowsTf32(module))
            tolerance = kTf32Tolerance;
          bool ok = diff.nonFiniteMismatches == 0 &&
                    diff.relativeNormError <= tolerance;
          mismatch |= !ok;
          os << "verify-stages @" << fn.getSymName() << " result #" << index
             << " at " << getStageName(stage) << ": "
             << (ok ? "ok" : "MISMATCH") << " (relative error "
             << llvm::format("%.3g", diff.relativeNormError)
             << ", tolerance " << llvm::format("%.3g", tolerance)
             << ", non-finite mismatches " << diff.nonFiniteMismatches
             << ")\n";
        }
      }
    }
    if (stage == Stage::Fused && !options.fusionGraphFile.empty() &&
        failed(writeFusionGraph(module, options.fusionGraphFile)))
      return failure();
    if (stage == Stage::Promoted && !options.writeTuningFile.empty() &&
        failed(writeTuningFile(module, options.writeTuningFile)))
      return failure();
    if (stage == options.emit)
      break;
  }
  if (mismatch)
    return emitError(module.getLoc())
           << "a stage computes something else than the graph";
  return success();
}

LogicalResult Compilation::printValues(ModuleOp module) {
  FailureOr<SmallVector<SmallVector<RefTensor>>> values = interpretAll(module);
  if (failed(values))
    return failure();
  SmallVector<func::FuncOp> graphs = interpretedGraphs(module);
  for (auto [fn, results] : llvm::zip(graphs, *values))
    for (auto [index, tensor] : llvm::enumerate(results)) {
      os << "@" << fn.getSymName() << " result #" << index << ": ";
      printTensor(os, tensor);
      os << "\n";
    }
  if (options.outputsFile.empty())
    return success();
  return writeResultsByName(module, graphs, *values, options.outputsFile);
}

LogicalResult
Compilation::process(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  DialectRegistry registry;
  registerImporterDialects(registry);
  registerNvvmLoweringDependencies(registry);
  MLIRContext context(registry);
  // Errors point at graph locations; a dump of the failing op is noise.
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());

  // --mlir-timing: the front end, each stage's passes and the artifact
  // writer, reported when the compilation ends.
  DefaultTimingManager timingManager;
  applyDefaultTimingManagerCLOptions(timingManager);
  TimingScope timing = timingManager.getRootScope();
  auto compile = [&]() -> LogicalResult {
    TimingScope frontEndTiming = timing.nest("front end");
    OwningOpRef<ModuleOp> module = parseInput(sourceMgr, &context);
    frontEndTiming.stop();
    if (!module || failed(setTarget(*module)) ||
        failed(runStages(*module,
                         timingManager.isEnabled() ? &timing : nullptr)))
      return failure();
    if (options.verifyStages)
      return success();
    if (options.interpret)
      return printValues(*module);
    if (options.emit == Stage::Ptx) {
      TimingScope writerTiming = timing.nest("artifact writer");
      return writeArtifact(*module, options.pipeline.ptx, os);
    }
    module->print(os);
    os << "\n";
    return success();
  };

  if (!options.verifyDiagnostics) {
    DiagnosticPrinter printer(sourceMgr, &context);
    return compile();
  }
  SourceMgrDiagnosticVerifierHandler handler(sourceMgr, &context);
  (void)compile();
  return handler.verify();
}

int mlir::fk::runDriver(const DriverOptions &options) {
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(options.inputFile, &message);
  if (!input) {
    llvm::errs() << "fkc: error: " << message << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(options.outputFile, &message);
  if (!output) {
    llvm::errs() << "fkc: error: " << message << "\n";
    return 1;
  }
  if (options.chip && !isSupportedChip(*options.chip, message)) {
    llvm::errs() << "fkc: error: --target: " << message << "\n";
    return 1;
  }
  // --inputs, --graph and --outputs choose what the interpreter runs on and
  // what it writes.
  bool interprets = options.interpret || options.verifyStages ||
                    !options.referenceFile.empty();
  const char *needsInterpretation =
      !options.inputFiles.empty() ? "--inputs"
      : !options.graph.empty()    ? "--graph"
                                  : nullptr;
  if (needsInterpretation && !interprets) {
    llvm::errs() << "fkc: error: " << needsInterpretation
                 << " needs --interpret, --verify-stages or --reference\n";
    return 1;
  }
  if (!options.outputsFile.empty() && !options.interpret) {
    llvm::errs() << "fkc: error: --outputs needs --interpret\n";
    return 1;
  }
  std::optional<NamedTensors> namedInputs;
  if (!options.inputFiles.empty()) {
    namedInputs.emplace();
    if (!fkrt::safetensors::readAll(options.inputFiles, namedInputs->tensors,
                                    namedInputs->origins, message)) {
      llvm::errs() << "fkc: error: " << message << "\n";
      return 1;
    }
  }
  DriverOptions resolved = options;
  const PtxOptions &ptx = options.pipeline.ptx;
  if (ptx.cudaPath.empty()) {
    resolved.pipeline.ptx.cudaPath = findCudaToolkit();
  } else if (!llvm::sys::fs::exists(getLibdevicePath(ptx.cudaPath))) {
    llvm::errs() << "fkc: error: --cuda-path: no libdevice at '"
                 << getLibdevicePath(ptx.cudaPath) << "'\n";
    return 1;
  }
  Compilation compilation(resolved, namedInputs ? &*namedInputs : nullptr,
                          output->os());
  LogicalResult result =
      options.splitInputFile
          ? splitAndProcessBuffer(
                std::move(input),
                [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                    const llvm::MemoryBufferRef &, llvm::raw_ostream &) {
                  return compilation.process(std::move(chunk));
                },
                output->os())
          : compilation.process(std::move(input));
  if (failed(result))
    return 1;
  output->keep();
  return 0;
}

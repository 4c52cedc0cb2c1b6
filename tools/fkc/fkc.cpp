//===- fkc.cpp - the fkc compiler's command line --------------------------===//
//
// Parses the command line with CLI11 and hands over to the driver library.
// Options CLI11 does not know (MLIR's --mlir-* flags) go to llvm::cl.
//
//===----------------------------------------------------------------------===//

#include "Driver/Driver.h"
#include "fk/IR/FkTarget.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include <CLI/CLI.hpp>
#include <map>

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::fk::DriverOptions options;

  std::string stages;
  std::map<std::string, mlir::fk::Stage> stageByName;
  for (mlir::fk::Stage stage : mlir::fk::getStages()) {
    std::string name = mlir::fk::getStageName(stage).str();
    stageByName[name] = stage;
    stages += "  " + name + std::string(12 - std::min<size_t>(name.size(), 11), ' ') +
              mlir::fk::getStageDescription(stage).str() + "\n";
  }

  CLI::App app{"fkc: compiles tensor graphs (.graph files) to GPU kernels.\n"};
  app.footer("Stages (--emit=STAGE prints the IR after STAGE):\n" + stages +
             "\nExamples:\n"
             "  fkc model.graph                      print the compiled IR\n"
             "  fkc model.graph --emit=graph         print the IR as parsed\n"
             "  fkc model.graph --interpret --seed 3 run on the CPU reference "
             "interpreter\n"
             "  fkc model.graph --verify-stages      check every stage against "
             "the graph\n"
             "  fkc model.graph --interpret --inputs w.safetensors --outputs "
             "y.safetensors\n"
             "                                       ... on the tensors of a "
             "file, by name\n"
             "  fkc model.graph --mlir-print-ir-after-all   MLIR's own flags "
             "pass through\n"
             "\nThe language is described in docs/language.md.");
  app.allow_extras();
  app.add_option("input", options.inputFile,
                 "A .graph file, or a .mlir file of fk IR ('-' for stdin)")
      ->required();
  app.add_option("-o,--output", options.outputFile,
                 "Where to write the result ('-' for stdout)")
      ->default_val("-");
  // A name checked against the stages in pipeline order, so that help and
  // errors list the names (a transformer would print its name-to-number map).
  std::string emit = mlir::fk::getStageName(options.emit).str();
  std::vector<std::string> stageNames;
  for (mlir::fk::Stage stage : mlir::fk::getStages())
    stageNames.push_back(mlir::fk::getStageName(stage).str());
  app.add_option("--emit", emit,
                 "The stage to stop after and print (see Stages below)")
      ->check(CLI::IsMember(stageNames).description(""))
      ->type_name("STAGE")
      ->default_str(emit);
  std::string chip;
  CLI::Option *target =
      app.add_option("--target", chip,
                     "GPU architecture to generate PTX for (a .mlir input "
                     "may carry its own as 'fk.target')")
          ->default_str(mlir::fk::kDefaultChip.str())
          ->check([](const std::string &chip) {
            std::string message;
            return mlir::fk::isSupportedChip(chip, message) ? std::string()
                                                             : message;
          });
  int64_t smCount = 0;
  CLI::Option *smCountOption =
      app.add_option("--sm-count", smCount,
                     "SMs of the GPU where they differ from --target's "
                     "usual part (sm_90a: 132, the H100 and H200 SXM; an "
                     "H100 PCIe has 114): persistent kernels launch a "
                     "block per SM")
          ->check(CLI::Range(int64_t(1), int64_t(1) << 16));
  app.add_flag("--allow-tf32", options.allowTf32,
               "Allow f32 matmuls on TF32 tensor cores (sm_80 and later): "
               "operands rounded to 10-bit mantissas, sums in f32, as "
               "torch.backends.cuda.matmul.allow_tf32 (default: exact f32)");
  app.add_option("--cuda-path", options.pipeline.ptx.cudaPath,
                 "CUDA toolkit whose libdevice is linked for math functions "
                 "(default: $CUDA_HOME, $CUDA_PATH, /usr/local/cuda)");
  app.add_option("-O", options.pipeline.ptx.optLevel,
                 "Optimization level of the kernels")
      ->default_val(3)
      ->check(CLI::Range(0, 3));
  app.add_flag("--explain-fusion", options.pipeline.explainFusion,
               "Report every fusion decision, with its reason and the device "
               "memory traffic it saves, as a remark");
  app.add_flag("!--no-fusion", options.pipeline.fusion,
               "One kernel per operation (no fusion)");
  app.add_flag("!--no-matmul-pairs", options.pipeline.matmulPairs,
               "Keep two matmuls of one left operand in kernels of their own "
               "(no matmul pairs: docs/fusion.md)");
  app.add_flag("!--no-matmul-groups", options.pipeline.matmulGroups,
               "Keep matmuls of one left operand whose results go their own "
               "ways in kernels of their own (no matmul groups: "
               "docs/fusion.md)");
  app.add_option("--matmul-tile", options.pipeline.matmulTile,
                 "Tensor-core tile M,N,K of matmul kernels, and optionally "
                 "the blocks K is split among (default: the tiling "
                 "heuristic's: 128,128,64; 64,64,64 and K split where those "
                 "tiles would leave SMs idle)")
      ->delimiter(',')
      ->expected(3, 4);
  app.add_option("--matmul-threads", options.pipeline.matmulThreads,
                 "Block of the wgmma matmul kernel: 128 (one warpgroup "
                 "loads and computes) or 256 / 384 (a producer warpgroup and "
                 "one / two consumer warpgroups) (default: chosen per tile)")
      ->check(CLI::IsMember({128, 256, 384}));
  app.add_option("--tuning", options.pipeline.tuningFile,
                 "Tuning file of measured wgmma tiles per matmul shape "
                 "(written by fkc-tune; docs/tools.md), used where "
                 "--matmul-tile and --matmul-threads are not given")
      ->check(CLI::ExistingFile);
  app.add_option("--write-tuning", options.writeTuningFile,
                 "Write the wgmma matmuls' tiles, blocks and ring depths as "
                 "a tuning file (fkc-tune's starting point)");
  app.add_option("--attention-tile", options.pipeline.attentionTile,
                 "Flash-attention tile: query rows (64 or 128), key block "
                 "(64 or 128) (default: 128 rows, keys 128 at head dim 64 "
                 "without a mask input, else 64); also puts attentions of "
                 "few query rows on the flash kernel instead of the decode "
                 "kernel")
      ->delimiter(',')
      ->expected(2);
  app.add_option("--attention-threads", options.pipeline.attentionThreads,
                 "Block of the wgmma flash kernel: 128 per 64 query rows "
                 "(every warpgroup computes; thread 0 also copies) or 384 (a "
                 "producer warpgroup and two consumer warpgroups taking "
                 "turns, 128 query rows) (default: 384 at head dims 96 to "
                 "128 with 128 query rows over more than 256 keys and no "
                 "--attention-tile, else the former)")
      ->check(CLI::IsMember({128, 256, 384}));
  app.add_option("--stages", options.pipeline.stages,
                 "Shared-memory stages of tensor-core kernels (default: as "
                 "many as fit with two blocks per SM) and of flash-attention "
                 "kernels (default: 2)")
      ->check(CLI::Range(2, 16));
  app.add_option("--bind", options.pipeline.dimSizes,
                 "Sizes of the graph's symbolic dimensions, NAME=INT,... "
                 "(one artifact per binding)")
      ->delimiter(',');
  app.add_option("--fusion-graph", options.fusionGraphFile,
                 "Write the fused graph as Graphviz DOT to this file, kernels "
                 "as clusters (and FILE.svg if Graphviz's dot is installed)");
  app.add_flag("--interpret", options.interpret,
               "Print the graphs' results on seeded random inputs, computed "
               "by the CPU reference interpreter at the emitted stage");
  app.add_flag("--verify-stages", options.verifyStages,
               "Interpret every stage up to --emit and compare its results "
               "with the graph stage's; fails on a mismatch");
  CLI::Option *seed =
      app.add_option("--seed", options.seed,
                     "Seed of the random inputs of --interpret, "
                     "--verify-stages and --reference")
          ->default_val(1);
  app.add_option("--inputs", options.inputFiles,
                 "Take the inputs of --interpret, --verify-stages and "
                 "--reference from this .safetensors file, each parameter "
                 "from the tensor of its name (repeatable: the files' "
                 "tensors together)")
      ->type_name("FILE")
      ->allow_extra_args(false)
      ->excludes(seed);
  app.add_option("--graph", options.graph,
                 "Interpret this graph only (default: every graph)")
      ->type_name("NAME");
  app.add_option("--outputs", options.outputsFile,
                 "Also write the results of --interpret to this .safetensors "
                 "file, each under its result's name (GRAPH.RESULT when "
                 "several graphs are interpreted)")
      ->type_name("FILE");
  app.add_option("--reference", options.referenceFile,
                 "Also write the graphs' inputs of --seed and their outputs "
                 "by the reference interpreter to this tensor bundle (.fkt), "
                 "for fkc-run --check");
  app.add_flag("--verify-diagnostics", options.verifyDiagnostics,
               "Check errors against 'expected-error {{...}}' comments in the "
               "input (for tests)");
  app.add_flag("--split-input-file", options.splitInputFile,
               "Compile each '// -----' separated chunk of the input on its "
               "own (for tests)");
  CLI11_PARSE(app, argc, argv);
  options.emit = stageByName.at(emit);
  if (target->count() != 0)
    options.chip = chip;
  if (smCountOption->count() != 0)
    options.smCount = smCount;

  // Whatever CLI11 did not recognise is for MLIR's options.
  std::vector<std::string> extras = app.remaining();
  std::vector<const char *> mlirArgs = {argv[0]};
  for (const std::string &extra : extras)
    mlirArgs.push_back(extra.c_str());
  mlir::fk::registerDriverCLOptions();
  if (!llvm::cl::ParseCommandLineOptions(static_cast<int>(mlirArgs.size()),
                                         mlirArgs.data(), "fkc\n",
                                         &llvm::errs()))
    return 1;
  return mlir::fk::runDriver(options);
}

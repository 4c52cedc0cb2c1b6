//===- Tuning.cpp - measured tile choices per matmul shape ----------------===//

#include "Codegen/Tuning.h"
#include "Codegen/TensorCoreMatmul.h"
#include "fk/IR/FkTarget.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"


using namespace mlir;
using namespace mlir::fk;

static constexpr llvm::StringLiteral kFormat = "fkc-tuning";
static constexpr int64_t kVersion = 1;

static std::string getDtypeName(Type type) {
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  return name;
}

bool MatmulTuning::hasShapeOf(const MatmulTuning &other) const {
  return dtype == other.dtype && batches == other.batches && m == other.m &&
         n == other.n && k == other.k && rhsKMajor == other.rhsKMajor;
}

/// An entry for `shape`, without choices.
static MatmulTuning forShape(const MatmulShape &shape) {
  MatmulTuning key;
  key.dtype = getDtypeName(shape.elementType);
  key.batches = shape.batches();
  key.m = shape.m;
  key.n = shape.n;
  key.k = shape.k;
  key.rhsKMajor = shape.rhsKMajor;
  return key;
}

bool MatmulTuning::matches(const MatmulShape &shape) const {
  return hasShapeOf(forShape(shape));
}

MatmulTuning MatmulTuning::get(const MatmulShape &shape, TilingAttr tiling,
                               int64_t stages) {
  MatmulTuning entry = forShape(shape);
  entry.tile.assign(tiling.getTile().begin(), tiling.getTile().end());
  entry.threads = tiling.getThreads();
  entry.stages = stages;
  return entry;
}

/// Reads the entry `object`; "" or what is wrong with it.
static std::string readEntry(const llvm::json::Object &object,
                             MatmulTuning &entry) {
  auto integer = [&](StringRef key, int64_t &value) -> std::string {
    std::optional<int64_t> v = object.getInteger(key);
    if (!v || *v < 0)
      return ("'" + key + "' must be a non-negative integer").str();
    value = *v;
    return "";
  };
  std::optional<StringRef> dtype = object.getString("dtype");
  if (!dtype || (*dtype != "f16" && *dtype != "bf16"))
    return "'dtype' must be \"f16\" or \"bf16\" (the wgmma kernel's 16-bit "
           "operands)";
  entry.dtype = dtype->str();
  for (auto [key, value] :
       {std::pair<StringRef, int64_t *>{"batches", &entry.batches},
        {"m", &entry.m},
        {"n", &entry.n},
        {"k", &entry.k},
        {"threads", &entry.threads},
        {"stages", &entry.stages}}) {
    std::string why = integer(key, *value);
    if (!why.empty())
      return why;
  }
  std::optional<StringRef> rhs = object.getString("rhs");
  if (!rhs || (*rhs != "n-major" && *rhs != "k-major"))
    return "'rhs' must be \"n-major\" or \"k-major\"";
  entry.rhsKMajor = *rhs == "k-major";
  const llvm::json::Array *tile = object.getArray("tile");
  if (!tile || tile->size() < 3 || tile->size() > 4)
    return "'tile' must be [M, N, K] or [M, N, K, splits]";
  for (const llvm::json::Value &size : *tile) {
    std::optional<int64_t> v = size.getAsInteger();
    if (!v || *v <= 0)
      return "'tile' must hold positive integers";
    entry.tile.push_back(*v);
  }
  // The tile on its block, as fk-tile checks a hand-written one.
  std::string why = checkTensorCoreTile(entry.tile, /*elementBytes=*/2,
                                        entry.threads);
  if (!why.empty())
    return why;
  if (entry.stages < 2)
    return "'stages' must be at least 2";
  return "";
}

FailureOr<TuningTable> TuningTable::load(StringRef path, std::string &error) {
  auto fail = [&](const Twine &message) {
    error = ("tuning file '" + path + "': " + message).str();
    return failure();
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return fail("cannot read it: " + buffer.getError().message());
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return fail("not JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  if (!root || root->getString("format") != kFormat)
    return fail("not a tuning file (expected \"format\": \"fkc-tuning\")");
  if (root->getInteger("version") != kVersion)
    return fail("version " + Twine(kVersion) + " expected");
  TuningTable table;
  table.path = path.str();
  std::optional<StringRef> target = root->getString("target");
  if (!target)
    return fail("'target' (the chip it was measured for) is missing");
  table.target = target->str();
  const llvm::json::Array *matmuls = root->getArray("matmuls");
  if (!matmuls)
    return fail("'matmuls' (an array of entries) is missing");
  for (auto [index, value] : llvm::enumerate(*matmuls)) {
    const llvm::json::Object *object = value.getAsObject();
    MatmulTuning entry;
    std::string why =
        object ? readEntry(*object, entry) : "an entry must be an object";
    if (!why.empty())
      return fail("matmul entry " + Twine(index) + ": " + why);
    if (llvm::any_of(table.entries, [&](const MatmulTuning &other) {
          return other.hasShapeOf(entry);
        }))
      return fail("matmul entry " + Twine(index) +
                  ": a second entry for the same shape");
    table.entries.push_back(std::move(entry));
  }
  return table;
}

const MatmulTuning *TuningTable::lookup(const MatmulShape &shape) const {
  // An entry names one product; a pair's kernel computes two side by side,
  // a group's several.
  if (shape.paired || shape.grouped())
    return nullptr;
  for (const MatmulTuning &entry : entries)
    if (entry.matches(shape))
      return &entry;
  return nullptr;
}

FailureOr<std::optional<TuningTable>>
mlir::fk::loadTuningTable(Operation *op, StringRef pass, StringRef path,
                          TargetAttr target) {
  if (path.empty())
    return std::optional<TuningTable>();
  std::string error;
  FailureOr<TuningTable> table = TuningTable::load(path, error);
  if (failed(table))
    return op->emitError() << pass << ": " << error;
  if (table->getTarget() != target.getChip())
    return op->emitError() << pass << ": tuning file '" << path
                           << "' was measured for " << table->getTarget()
                           << ", not for this module's target "
                           << target.getChip();
  return std::optional<TuningTable>(std::move(*table));
}

LogicalResult mlir::fk::writeTuningFile(ModuleOp module, StringRef path) {
  FailureOr<TargetAttr> target = getTarget(module, "--write-tuning");
  if (failed(target))
    return failure();
  llvm::json::Array matmuls;
  SmallVector<MatmulTuning> written;
  module.walk([&](FusionOp fusion) {
    auto tiling = fusion->getAttrOfType<TilingAttr>(kTilingAttrName);
    auto promotion = fusion->getAttrOfType<PromotionAttr>(kPromotionAttrName);
    if (!tiling || !promotion ||
        tiling.getStrategy() != KernelStrategy::TensorCore)
      return;
    MatmulShape shape(fusion.getMatmul());
    // TF32 products are not tuned (the wgmma kernel's 16-bit tiles), nor
    // matmul pairs and groups (an entry names one product).
    if (shape.elementBytes() != 2 || shape.paired || shape.grouped())
      return;
    MatmulTuning entry =
        MatmulTuning::get(shape, tiling, promotion.getStages());
    if (llvm::any_of(written, [&](const MatmulTuning &other) {
          return other.hasShapeOf(entry);
        }))
      return;
    written.push_back(entry);
    matmuls.push_back(llvm::json::Object{
        {"dtype", entry.dtype},
        {"batches", entry.batches},
        {"m", entry.m},
        {"n", entry.n},
        {"k", entry.k},
        {"rhs", entry.rhsKMajor ? "k-major" : "n-major"},
        {"tile", llvm::json::Array(entry.tile)},
        {"threads", entry.threads},
        {"stages", entry.stages}});
  });
  llvm::json::Object root{{"format", kFormat},
                          {"version", kVersion},
                          {"target", target->getChip()},
                          {"matmuls", std::move(matmuls)}};
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    return emitError(module.getLoc())
           << "cannot write the tuning file '" << path << "': "
           << ec.message();
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return success();
}

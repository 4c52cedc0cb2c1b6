//===- Manifest.cpp - The artifact manifest -------------------------------===//

#include "Manifest.h"
#include "Json.h"
#include "PtxEntries.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

using namespace fkrt;
using json::Value;

namespace {

const char *const kBeginMarker = "// fkc-manifest-begin";
const char *const kEndMarker = "// fkc-manifest-end";

bool startsWith(const std::string &s, const char *prefix) {
  return s.compare(0, std::char_traits<char>::length(prefix), prefix) == 0;
}

/// Finds the manifest in the leading comment block (rules R3 to R7) and
/// returns its JSON, starting at line `firstLine` of the artifact, with each
/// "// " prefix turned into spaces so the JSON parser's line and column
/// numbers are those of the artifact.
bool extractJson(const std::string &text, std::string &jsonText,
                 unsigned &firstLine, std::string &error) {
  size_t pos = 0, manifestBytes = 0;
  unsigned lineNo = 0, beginLine = 0;
  bool inside = false;
  while (pos < text.size()) {
    // The line is [start, end) without its '\n' or a trailing '\r'.
    size_t start = pos;
    size_t newline = text.find('\n', pos);
    pos = newline == std::string::npos ? text.size() : newline + 1;
    size_t end = newline == std::string::npos ? text.size() : newline;
    if (end > start && text[end - 1] == '\r')
      --end;
    ++lineNo;
    bool comment = end - start >= 2 && text[start] == '/' &&
                   text[start + 1] == '/';
    if (end != start && !comment)
      break; // End of the leading comment block.
    auto is = [&](const char *marker) {
      return text.compare(start, end - start, marker) == 0;
    };
    if (!inside) {
      if (is(kBeginMarker)) {
        inside = true;
        beginLine = lineNo;
        firstLine = lineNo + 1;
      }
      continue;
    }
    if (is(kEndMarker))
      return true;
    manifestBytes += pos - start;
    if (manifestBytes > kMaxManifestBytes) {
      error = "manifest: more than " + std::to_string(kMaxManifestBytes) +
              " bytes between the '" + kBeginMarker + "' line and the '" +
              kEndMarker + "' line";
      return false;
    }
    if (end == start || (end - start > 2 && text[start + 2] != ' ')) {
      error = "manifest: line " + std::to_string(lineNo) +
              ": expected '// ' followed by JSON text, or '//' alone, inside "
              "the manifest";
      if (end == start)
        error += ", found an empty line";
      return false;
    }
    if (end - start == 2) {
      jsonText += '\n';
      continue;
    }
    // RFC 8259: JSON text is UTF-8. Checked here, where the artifact's
    // byte offsets are known.
    size_t bad = json::findInvalidUtf8(text, start + 3, end);
    if (bad != std::string::npos) {
      char byte[8];
      std::snprintf(byte, sizeof(byte), "0x%02x",
                    static_cast<unsigned>(static_cast<unsigned char>(text[bad])));
      error = "manifest: line " + std::to_string(lineNo) + ", column " +
              std::to_string(bad - start + 1) + " (byte offset " +
              std::to_string(bad) + "): invalid UTF-8: byte " + byte +
              " does not begin a well-formed sequence";
      return false;
    }
    jsonText += "   ";
    jsonText.append(text, start + 3, end - start - 3);
    jsonText += '\n';
  }
  if (!inside)
    error = std::string("manifest: no '") + kBeginMarker +
            "' line in the artifact's leading comment block";
  else
    error = std::string("manifest: no '") + kEndMarker +
            "' line after the '" + kBeginMarker + "' of line " +
            std::to_string(beginLine);
  return false;
}

/// Checks the JSON against schema v2 (v1 being v2 without tensor maps),
/// building the Manifest. Every failure names the offending field by its
/// path, e.g. "graphs[0].inputs[1].shape[2]".
class SchemaReader {
public:
  std::string error;
  fkrt_status status = FKRT_ERROR_INVALID_ARTIFACT;

  bool read(const Value &root, Manifest &manifest) {
    if (root.kind != Value::Object)
      return fail("", "expected a JSON object");
    std::string format;
    if (!readString(root, "", "format", format))
      return false;
    if (format != "fkc-artifact")
      return fail("format", "expected \"fkc-artifact\", found \"" + format +
                                "\"");
    // R15, R16: any integer is a version, one this reader knows or not.
    const Value *version = member(root, "", "version");
    if (!version)
      return false;
    int64_t v = 0;
    bool overflow = false;
    if (version->kind != Value::Number ||
        !json::toInt64(version->text, v, overflow))
      return fail("version", "expected an integer");
    if (overflow || v < kMinArtifactVersion || v > FKRT_ARTIFACT_VERSION) {
      status = FKRT_ERROR_UNSUPPORTED_VERSION;
      error = "manifest: unsupported artifact version " + version->text +
              " (this runtime reads versions " +
              std::to_string(kMinArtifactVersion) + " to " +
              std::to_string(FKRT_ARTIFACT_VERSION) + ")";
      return false;
    }
    manifest.version = static_cast<int>(v);
    manifestVersion = manifest.version;
    if (!readString(root, "", "target", manifest.target))
      return false;
    if (!isTarget(manifest.target))
      return fail("target", "expected an architecture like \"sm_90\", found \"" +
                                manifest.target + "\"");
    if (const Value *tf32 = root.find("allow_tf32")) {
      if (tf32->kind != Value::Bool)
        return fail("allow_tf32", "expected true or false");
      manifest.allowTf32 = tf32->boolean;
    }
    const Value *graphs = array(root, "", "graphs");
    if (!graphs)
      return false;
    if (graphs->elements.empty())
      return fail("graphs", "expected at least one graph");
    std::set<std::string> names;
    for (size_t i = 0; i < graphs->elements.size(); ++i) {
      std::string path = "graphs[" + std::to_string(i) + "]";
      manifest.graphs.emplace_back();
      GraphSpec &graph = manifest.graphs.back();
      if (!readGraph(graphs->elements[i], path, graph))
        return false;
      if (!names.insert(graph.name).second)
        return fail(path + ".name", "duplicate graph name \"" + graph.name +
                                        "\"");
    }
    return true;
  }

private:
  int manifestVersion = 0;

  bool fail(const std::string &path, const std::string &message) {
    error = "manifest: " + (path.empty() ? "" : path + ": ") + message;
    return false;
  }

  static std::string join(const std::string &path, const char *key) {
    return path.empty() ? key : path + "." + key;
  }

  static bool isTarget(const std::string &t) {
    if (!startsWith(t, "sm_") || t.size() < 4)
      return false;
    size_t i = 3;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9')
      ++i;
    if (i == 3)
      return false;
    return i == t.size() || (i + 1 == t.size() && t[i] >= 'a' && t[i] <= 'z');
  }

  const Value *member(const Value &object, const std::string &path,
                      const char *key) {
    if (const Value *value = object.find(key))
      return value;
    fail(path, std::string("missing field '") + key + "'");
    return nullptr;
  }

  const Value *array(const Value &object, const std::string &path,
                     const char *key) {
    const Value *value = member(object, path, key);
    if (value && value->kind != Value::Array) {
      fail(join(path, key), "expected an array");
      return nullptr;
    }
    return value;
  }

  bool readString(const Value &object, const std::string &path,
                  const char *key, std::string &out) {
    const Value *value = member(object, path, key);
    if (!value)
      return false;
    if (value->kind != Value::String)
      return fail(join(path, key), "expected a string");
    out = value->text;
    return true;
  }

  /// Reads `value` as an integer in [min, max]; `expected` describes the
  /// accepted values in the error message.
  template <typename T>
  bool readInt(const Value &value, const std::string &path, int64_t min,
               int64_t max, const char *expected, T &out) {
    int64_t v = 0;
    bool overflow = false;
    if (value.kind != Value::Number || !json::toInt64(value.text, v, overflow))
      return fail(path, std::string("expected ") + expected);
    if (overflow)
      return fail(path, "integer " + value.text + " out of range");
    if (v < min || v > max)
      return fail(path, std::string("expected ") + expected + ", found " +
                            value.text);
    out = static_cast<T>(v);
    return true;
  }

  template <typename T>
  bool readIntField(const Value &object, const std::string &path,
                    const char *key, int64_t min, int64_t max,
                    const char *expected, T &out) {
    const Value *value = member(object, path, key);
    return value && readInt(*value, join(path, key), min, max, expected, out);
  }

  bool readName(const Value &object, const std::string &path,
                std::string &out) {
    if (!readString(object, path, "name", out))
      return false;
    if (out.empty())
      return fail(join(path, "name"), "expected a non-empty string");
    for (char c : out)
      if (static_cast<unsigned char>(c) < 0x20)
        return fail(join(path, "name"), "control character in a name");
    return true;
  }

  bool readDtype(const Value &object, const std::string &path,
                 fkrt_dtype &out) {
    std::string name;
    if (!readString(object, path, "dtype", name))
      return false;
    for (int d = FKRT_F32; d <= FKRT_I64; ++d)
      if (name == fkrt_dtype_name(static_cast<fkrt_dtype>(d))) {
        out = static_cast<fkrt_dtype>(d);
        return true;
      }
    return fail(join(path, "dtype"),
                "unknown dtype \"" + name +
                    "\" (expected one of f32, f16, bf16, i32, i64, i1)");
  }

  bool readTensor(const Value &value, const std::string &path,
                  const GraphSpec &graph, TensorSpec &tensor) {
    if (value.kind != Value::Object)
      return fail(path, "expected an object");
    if (!readName(value, path, tensor.name) ||
        !readDtype(value, path, tensor.dtype))
      return false;
    std::string shapePath = join(path, "shape");
    const Value *shape = array(value, path, "shape");
    if (!shape)
      return false;
    if (shape->elements.size() > static_cast<size_t>(kMaxRank))
      return fail(shapePath, "rank " + std::to_string(shape->elements.size()) +
                                 " exceeds the limit of " +
                                 std::to_string(kMaxRank));
    // The element count and byte size must fit in int64 so every consumer
    // (the runtime, bindings, CUDA's 64-bit sizes) can hold them.
    uint64_t bytes = fkrt_dtype_size(tensor.dtype);
    for (size_t i = 0; i < shape->elements.size(); ++i) {
      const Value &entry = shape->elements[i];
      std::string dimPath = shapePath + "[" + std::to_string(i) + "]";
      Monomial dim;
      if (entry.kind == Value::String && manifestVersion >= kSymbolsVersion) {
        // R53: a symbolic dimension, a monomial of the graph's symbols.
        if (!readMonomial(entry, dimPath, graph, dim))
          return false;
        tensor.shape.push_back(-1);
        tensor.dims.push_back(dim);
        tensor.dimTexts.push_back(entry.text);
        tensor.symbolic = true;
        continue;
      }
      if (!readInt(entry, dimPath, 0, INT64_MAX,
                   manifestVersion >= kSymbolsVersion
                       ? "a non-negative integer or a symbolic dimension"
                       : "a non-negative integer",
                   dim.coefficient))
        return false;
      tensor.shape.push_back(dim.coefficient);
      tensor.dims.push_back(dim);
      tensor.dimTexts.emplace_back();
      uint64_t size = static_cast<uint64_t>(dim.coefficient);
      if (size != 0 && bytes > static_cast<uint64_t>(INT64_MAX) / size)
        return fail(shapePath, "tensor size overflows 64 bits");
      bytes *= size;
    }
    // A symbolic tensor's bytes are known per run (and checked then).
    tensor.bytes = tensor.symbolic ? 0 : bytes;
    return true;
  }

  /// R53: the text of a symbolic dimension, `B*S` or `2*S`, over the
  /// graph's symbols (version 4).
  bool readMonomial(const Value &value, const std::string &path,
                    const GraphSpec &graph, Monomial &out) {
    if (manifestVersion < kSymbolsVersion)
      return fail(path, "a symbolic size needs artifact version 4, the "
                        "manifest says version " +
                            std::to_string(manifestVersion));
    std::vector<std::string> names;
    for (const SymbolSpec &symbol : graph.symbols)
      names.push_back(symbol.name);
    std::string why;
    if (!parseMonomial(value.text, names, out, why))
      return fail(path, "\"" + value.text + "\" is not a product of the "
                        "graph's symbols: " + why);
    return true;
  }

  /// R54: a size computed per run: an integer, a symbolic dimension, or an
  /// object with one member, `ceil_div` (two operands), `mul`, `add`, `min`
  /// or `max` (two or more), whose operands are sizes in turn.
  bool readSize(const Value &value, const std::string &path,
                const GraphSpec &graph, SizeExpr &out) {
    out = SizeExpr();
    if (value.kind == Value::String)
      return readMonomial(value, path, graph, out.product);
    if (value.kind == Value::Number)
      return readInt(value, path, INT64_MIN, INT64_MAX, "an integer",
                     out.product.coefficient);
    static const std::pair<const char *, SizeExpr::Kind> kOps[] = {
        {"ceil_div", SizeExpr::CeilDiv}, {"mul", SizeExpr::Mul},
        {"add", SizeExpr::Add},          {"min", SizeExpr::Min},
        {"max", SizeExpr::Max}};
    if (value.kind != Value::Object || value.members.size() != 1)
      return fail(path, "expected an integer, a symbolic dimension or an "
                        "object with one of 'ceil_div', 'mul', 'add', "
                        "'min', 'max'");
    if (manifestVersion < kSymbolsVersion)
      return fail(path, "a size computed per run needs artifact version 4, "
                        "the manifest says version " +
                            std::to_string(manifestVersion));
    const std::string &op = value.members[0].first;
    const Value &list = value.members[0].second;
    std::string opPath = path + "." + op;
    auto it = std::find_if(std::begin(kOps), std::end(kOps),
                           [&](const auto &k) { return op == k.first; });
    if (it == std::end(kOps))
      return fail(path, "unknown size operation '" + op +
                            "' (expected 'ceil_div', 'mul', 'add', 'min' "
                            "or 'max')");
    out.kind = it->second;
    if (list.kind != Value::Array)
      return fail(opPath, "expected an array of operands");
    size_t n = list.elements.size();
    if (out.kind == SizeExpr::CeilDiv ? n != 2 : n < 2)
      return fail(opPath, std::string(out.kind == SizeExpr::CeilDiv
                                          ? "expected 2 operands"
                                          : "expected at least 2 operands") +
                              ", found " + std::to_string(n));
    out.operands.resize(n);
    for (size_t i = 0; i < n; ++i)
      if (!readSize(list.elements[i], opPath + "[" + std::to_string(i) + "]",
                    graph, out.operands[i]))
        return false;
    return true;
  }

  /// R55 to R57: the graph's symbols (version 4): unique names that are
  /// identifiers, each with an optional bound `max` and lower bound `min`.
  bool readSymbols(const Value &graphValue, const std::string &path,
                   GraphSpec &graph) {
    const Value *list = graphValue.find("symbols");
    if (!list)
      return true;
    std::string listPath = join(path, "symbols");
    if (manifestVersion < kSymbolsVersion)
      return fail(listPath, "symbols need artifact version 4, the manifest "
                            "says version " +
                                std::to_string(manifestVersion));
    if (list->kind != Value::Array)
      return fail(listPath, "expected an array");
    for (size_t i = 0; i < list->elements.size(); ++i) {
      std::string itemPath = listPath + "[" + std::to_string(i) + "]";
      const Value &item = list->elements[i];
      if (item.kind != Value::Object)
        return fail(itemPath, "expected an object");
      SymbolSpec symbol;
      if (!readString(item, itemPath, "name", symbol.name))
        return false;
      if (!isSymbolName(symbol.name))
        return fail(join(itemPath, "name"),
                    "\"" + symbol.name + "\" is not an identifier (a letter "
                    "or '_', then letters, digits or '_')");
      for (const SymbolSpec &other : graph.symbols)
        if (other.name == symbol.name)
          return fail(join(itemPath, "name"),
                      "duplicate symbol \"" + symbol.name + "\"");
      if (const Value *max = item.find("max"))
        if (!readInt(*max, join(itemPath, "max"), 0, INT64_MAX,
                     "a non-negative integer", symbol.max))
          return false;
      if (const Value *min = item.find("min")) {
        int64_t most = symbol.max >= 0 ? symbol.max : INT64_MAX;
        if (!readInt(*min, join(itemPath, "min"), 0, most,
                     symbol.max >= 0 ? "an integer from 0 to the symbol's "
                                       "max"
                                     : "a non-negative integer",
                     symbol.min))
          return false;
      }
      graph.symbols.push_back(symbol);
    }
    return true;
  }

  static bool isSymbolName(const std::string &name) {
    if (name.empty() || (name[0] >= '0' && name[0] <= '9'))
      return false;
    for (char c : name)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c >= '0' && c <= '9') || c == '_'))
        return false;
    return true;
  }

  /// R58: each symbol is some input's dimension alone, the first of which
  /// gives its size in a run.
  bool bindSymbols(const std::string &path, GraphSpec &graph) {
    for (size_t s = 0; s < graph.symbols.size(); ++s) {
      bool found = false;
      for (size_t i = 0; i < graph.inputs.size() && !found; ++i)
        for (size_t a = 0; a < graph.inputs[i].dims.size() && !found; ++a) {
          const Monomial &dim = graph.inputs[i].dims[a];
          if (dim.isSymbol() && dim.symbols[0] == s) {
            graph.symbols[s].input = i;
            graph.symbols[s].axis = a;
            found = true;
          }
        }
      if (!found)
        return fail(join(path, "symbols") + "[" + std::to_string(s) + "]",
                    "symbol \"" + graph.symbols[s].name +
                        "\" is no input's dimension by itself, so a run "
                        "cannot give its size");
    }
    return true;
  }

  bool readTensors(const Value &graphValue, const std::string &path,
                   const char *key, const GraphSpec &graph,
                   std::vector<TensorSpec> &tensors,
                   std::set<std::string> &names) {
    const Value *list = array(graphValue, path, key);
    if (!list)
      return false;
    std::string listPath = join(path, key);
    for (size_t i = 0; i < list->elements.size(); ++i) {
      std::string itemPath = listPath + "[" + std::to_string(i) + "]";
      tensors.emplace_back();
      if (!readTensor(list->elements[i], itemPath, graph, tensors.back()))
        return false;
      if (!names.insert(tensors.back().name).second)
        return fail(itemPath + ".name", "duplicate tensor name \"" +
                                            tensors.back().name + "\"");
    }
    return true;
  }

  /// R50 to R52: an output's optional `aliases`, from version 3: an input
  /// of its dtype and shape that no other output aliases.
  bool readAliases(const Value &graphValue, const std::string &path,
                   GraphSpec &graph) {
    const Value &outputs = *graphValue.find("outputs");
    std::vector<int64_t> aliasedBy(graph.inputs.size(), -1);
    for (size_t i = 0; i < graph.outputs.size(); ++i) {
      std::string itemPath =
          join(path, "outputs") + "[" + std::to_string(i) + "]";
      const Value *aliases = outputs.elements[i].find("aliases");
      if (!aliases)
        continue;
      if (manifestVersion < 3)
        return fail(itemPath + ".aliases",
                    "an output aliasing an input needs artifact version 3, "
                    "the manifest says version " +
                        std::to_string(manifestVersion));
      TensorSpec &output = graph.outputs[i];
      if (!readInt(*aliases, itemPath + ".aliases", 0,
                   static_cast<int64_t>(graph.inputs.size()) - 1,
                   "an input index", output.aliases))
        return false;
      const TensorSpec &input = graph.inputs[output.aliases];
      if (input.dtype != output.dtype || input.dims != output.dims)
        return fail(itemPath + ".aliases",
                    "output \"" + output.name + "\" aliases input \"" +
                        input.name + "\" of another dtype or shape");
      int64_t &other = aliasedBy[output.aliases];
      if (other >= 0)
        return fail(itemPath + ".aliases",
                    "input \"" + input.name + "\" is aliased by outputs " +
                        std::to_string(other) + " and " + std::to_string(i));
      other = static_cast<int64_t>(i);
    }
    return true;
  }

  bool readBuffer(const Value &value, const std::string &path,
                  const GraphSpec &graph, BufferSpec &buffer) {
    if (value.kind != Value::Object)
      return fail(path, "expected an object");
    if (!readIntField(value, path, "id", 0, INT64_MAX,
                      "a non-negative integer", buffer.id))
      return false;
    std::string kind;
    if (!readString(value, path, "kind", kind))
      return false;
    if (kind == "input" || kind == "output") {
      bool input = kind == "input";
      buffer.kind = input ? BufferSpec::Input : BufferSpec::Output;
      size_t count = input ? graph.inputs.size() : graph.outputs.size();
      if (count == 0)
        return fail(join(path, "kind"), "the graph has no " + kind + "s");
      std::string expected = "an " + kind + " index in [0, " +
                             std::to_string(count - 1) + "]";
      return readIntField(value, path, "index", 0,
                          static_cast<int64_t>(count) - 1, expected.c_str(),
                          buffer.index);
    }
    if (kind != "workspace")
      return fail(join(path, "kind"),
                  "unknown buffer kind \"" + kind +
                      "\" (expected input, output or workspace)");
    buffer.kind = BufferSpec::Workspace;
    if (!value.find("offset") && manifestVersion >= kRunWorkspaceVersion)
      return readRunPlacedBuffer(value, path, graph, buffer);
    if (!readIntField(value, path, "offset", 0, INT64_MAX,
                      "a non-negative integer", buffer.offset) ||
        !readIntField(value, path, "bytes", 0, INT64_MAX,
                      "a non-negative integer", buffer.bytes))
      return false;
    if (buffer.offset % kWorkspaceAlignment != 0)
      return fail(join(path, "offset"),
                  "offset " + std::to_string(buffer.offset) +
                      " is not a multiple of " +
                      std::to_string(kWorkspaceAlignment));
    // Both are at most INT64_MAX, so the sum cannot wrap a uint64_t.
    if (buffer.offset + buffer.bytes > graph.workspaceBytes)
      return fail(path, "workspace range [" + std::to_string(buffer.offset) +
                            ", " + std::to_string(buffer.offset + buffer.bytes) +
                            ") exceeds workspace_bytes " +
                            std::to_string(graph.workspaceBytes));
    return true;
  }

  /// R61: a workspace buffer without an offset (version 5) is placed per
  /// run: its bytes a size computed per run (R54), its lifetime `live`, the
  /// first and last launch that use it (R62 checks them once the launches
  /// are read).
  bool readRunPlacedBuffer(const Value &value, const std::string &path,
                           const GraphSpec &graph, BufferSpec &buffer) {
    buffer.placedAtRun = true;
    const Value *bytes = member(value, path, "bytes");
    if (!bytes || !readSize(*bytes, join(path, "bytes"), graph,
                            buffer.runBytes))
      return false;
    const Value *live = array(value, path, "live");
    if (!live)
      return false;
    std::string livePath = join(path, "live");
    if (live->elements.size() != 2)
      return fail(livePath, "expected [first, last], the launches that use "
                            "the buffer, found " +
                                std::to_string(live->elements.size()) +
                                " entries");
    if (!readInt(live->elements[0], livePath + "[0]", 0, INT64_MAX,
                 "a launch index", buffer.first) ||
        !readInt(live->elements[1], livePath + "[1]", buffer.first,
                 INT64_MAX, "a launch index >= live[0]", buffer.last))
      return false;
    return true;
  }

  /// R62: a buffer placed per run is used by no launch outside its
  /// lifetime, which names launches of the graph: another buffer may hold
  /// its bytes before and after.
  bool checkLifetimes(const std::string &path, const GraphSpec &graph) {
    for (size_t index : graph.runPlacedBuffers) {
      const BufferSpec &b = graph.buffers[index];
      std::string itemPath =
          join(path, "buffers") + "[" + std::to_string(index) + "].live";
      if (b.last >= static_cast<int64_t>(graph.launches.size()))
        return fail(itemPath, "launch " + std::to_string(b.last) +
                                  " is past the graph's " +
                                  std::to_string(graph.launches.size()) +
                                  " launches");
    }
    for (size_t li = 0; li < graph.launches.size(); ++li)
      for (const ArgSpec &arg : graph.launches[li].args) {
        const BufferSpec *b = graph.bufferOf(arg);
        if (!b || !b->placedAtRun)
          continue;
        int64_t launch = static_cast<int64_t>(li);
        if (launch < b->first || launch > b->last)
          return fail(join(path, "launches") + "[" + std::to_string(li) + "]",
                      "uses buffer " + std::to_string(b->id) +
                          " outside its lifetime, launches " +
                          std::to_string(b->first) + " to " +
                          std::to_string(b->last));
      }
    return true;
  }

  bool readDims(const Value &launch, const std::string &path, const char *key,
                unsigned dims[3], const int64_t limits[3]) {
    const Value *list = array(launch, path, key);
    if (!list)
      return false;
    std::string listPath = join(path, key);
    if (list->elements.size() != 3)
      return fail(listPath, "expected 3 dimensions, found " +
                                std::to_string(list->elements.size()));
    for (int i = 0; i < 3; ++i) {
      std::string expected =
          "an integer in [1, " + std::to_string(limits[i]) + "]";
      if (!readInt(list->elements[i], listPath + "[" + std::to_string(i) + "]",
                   1, limits[i], expected.c_str(), dims[i]))
        return false;
    }
    return true;
  }

  /// R31: a grid of integers; from version 4 also of sizes computed per
  /// run (R54), which fkrt_run checks against kGridLimits.
  bool readGrid(const Value &launchValue, const std::string &path,
                const GraphSpec &graph, LaunchSpec &launch) {
    const Value *list = array(launchValue, path, "grid");
    if (!list)
      return false;
    bool anySized = false;
    for (const Value &entry : list->elements)
      anySized |= entry.kind != Value::Number;
    if (!anySized || manifestVersion < kSymbolsVersion)
      return readDims(launchValue, path, "grid", launch.grid, kGridLimits);
    std::string listPath = join(path, "grid");
    if (list->elements.size() != 3)
      return fail(listPath, "expected 3 dimensions, found " +
                                std::to_string(list->elements.size()));
    launch.sizedAtRun = true;
    for (int i = 0; i < 3; ++i)
      if (!readSize(list->elements[i],
                    listPath + "[" + std::to_string(i) + "]", graph,
                    launch.gridSizes[i]))
        return false;
    return true;
  }

  /// Finds the buffer `value` names; sets `index` to its position in
  /// graph.buffers.
  bool readBufferId(const Value &value, const std::string &path,
                    const GraphSpec &graph, size_t &index) {
    int64_t id;
    if (!readInt(value, path, 0, INT64_MAX, "a buffer id", id))
      return false;
    for (size_t i = 0; i < graph.buffers.size(); ++i)
      if (graph.buffers[i].id == id) {
        index = i;
        return true;
      }
    return fail(path, "unknown buffer id " + std::to_string(id));
  }

  /// Reads the array `key` of 1 to kMaxTensorMapRank entries when `count`
  /// is 0, else of exactly `count`; returns how many in `count`.
  const Value *readExtentList(const Value &object, const std::string &path,
                              const char *key, size_t &count) {
    const Value *list = array(object, path, key);
    if (!list)
      return nullptr;
    std::string listPath = join(path, key);
    size_t n = list->elements.size();
    if (count == 0 && (n < 1 || n > kMaxTensorMapRank)) {
      fail(listPath, "expected 1 to " + std::to_string(kMaxTensorMapRank) +
                         " dimensions, found " + std::to_string(n));
      return nullptr;
    }
    if (count != 0 && n != count) {
      fail(listPath, "expected " + std::to_string(count) +
                         " entries (one per dimension), found " +
                         std::to_string(n));
      return nullptr;
    }
    count = n;
    return list;
  }

  /// Reads one of a tensor map's dims or strides: an integer in [min, max]
  /// into `out`, or from version 4 a size computed per run (R54; `sized`
  /// is then set), checked per run. Either way `size` gets it.
  bool readExtent(const Value &value, const std::string &path,
                  const GraphSpec &graph, int64_t min, int64_t max,
                  const char *expected, uint64_t &out, SizeExpr &size,
                  bool &sized) {
    if (value.kind != Value::Number && manifestVersion >= kSymbolsVersion) {
      sized = true;
      return readSize(value, path, graph, size);
    }
    // R59: what reads as a size computed per run, in an older manifest.
    if (value.kind == Value::String || value.kind == Value::Object)
      return fail(path, "a tensor map's dims and strides computed per run "
                        "need artifact version 4, the manifest says "
                        "version " +
                            std::to_string(manifestVersion));
    if (!readInt(value, path, min, max, expected, out))
      return false;
    size = SizeExpr::constant(static_cast<int64_t>(out));
    return true;
  }

  /// The bytes of a buffer: its tensor's for an input or output.
  static uint64_t bufferBytes(const GraphSpec &graph, const BufferSpec &b) {
    if (b.kind == BufferSpec::Input)
      return graph.inputs[b.index].bytes;
    if (b.kind == BufferSpec::Output)
      return graph.outputs[b.index].bytes;
    return b.bytes;
  }

  static bool bufferIsSymbolic(const GraphSpec &graph, const BufferSpec &b) {
    return (b.kind == BufferSpec::Input && graph.inputs[b.index].symbolic) ||
           (b.kind == BufferSpec::Output && graph.outputs[b.index].symbolic) ||
           b.placedAtRun;
  }

  /// Checks `value` against what cuTensorMapEncodeTiled accepts for the
  /// runtime's fixed choices (no interleave, element strides of 1), and that
  /// the map cannot reach past its buffer: TMA accesses are not bounds
  /// checked against the allocation, only against the map's own extents.
  bool readTensorMap(const Value &value, const std::string &path,
                     const GraphSpec &graph, TensorMapSpec &map) {
    if (value.kind != Value::Object)
      return fail(path, "expected an object");
    const Value *buffer = member(value, path, "buffer");
    if (!buffer ||
        !readBufferId(*buffer, join(path, "buffer"), graph, map.buffer))
      return false;
    std::string dtype;
    if (!readString(value, path, "dtype", dtype))
      return false;
    if (dtype == "f16")
      map.dtype = FKRT_F16;
    else if (dtype == "bf16")
      map.dtype = FKRT_BF16;
    else if (dtype == "f32")
      map.dtype = FKRT_F32;
    else
      return fail(join(path, "dtype"),
                  "unsupported tensor map dtype \"" + dtype +
                      "\" (expected one of f16, bf16, f32)");
    uint64_t elementBytes = fkrt_dtype_size(map.dtype);
    size_t rank = 0;
    const Value *dims = readExtentList(value, path, "dims", rank);
    if (!dims)
      return false;
    map.rank = static_cast<unsigned>(rank);
    bool sized = false;
    for (size_t i = 0; i < rank; ++i)
      if (!readExtent(dims->elements[i],
                      join(path, "dims") + "[" + std::to_string(i) + "]",
                      graph, 1, kMaxTensorMapDim,
                      "an integer in [1, 4294967296]", map.dims[i],
                      map.dimSizes[i], sized))
        return false;
    std::string stridesPath = join(path, "strides");
    const Value *strides = array(value, path, "strides");
    if (!strides)
      return false;
    if (strides->elements.size() != rank - 1)
      return fail(stridesPath, "expected " + std::to_string(rank - 1) +
                                   " strides (one per dimension after the "
                                   "first), found " +
                                   std::to_string(strides->elements.size()));
    for (size_t i = 0; i + 1 < rank; ++i) {
      std::string stridePath = stridesPath + "[" + std::to_string(i) + "]";
      bool strideSized = false;
      if (!readExtent(strides->elements[i], stridePath, graph, 16,
                      kTensorMapStrideLimit - 1, "an integer in [16, 2^40)",
                      map.strides[i], map.strideSizes[i], strideSized))
        return false;
      if (!strideSized && map.strides[i] % 16 != 0)
        return fail(stridePath, "stride " + std::to_string(map.strides[i]) +
                                    " is not a multiple of 16");
      sized |= strideSized;
    }
    size_t boxRank = rank;
    const Value *box = readExtentList(value, path, "box", boxRank);
    if (!box)
      return false;
    for (size_t i = 0; i < rank; ++i)
      if (!readInt(box->elements[i],
                   join(path, "box") + "[" + std::to_string(i) + "]", 1, 256,
                   "an integer in [1, 256]", map.box[i]))
        return false;
    std::string box0Path = join(path, "box") + "[0]";
    uint64_t rowBytes = map.box[0] * elementBytes;
    if (rowBytes % 16 != 0)
      return fail(box0Path, std::to_string(map.box[0]) + " " + dtype +
                                " elements are " + std::to_string(rowBytes) +
                                " bytes, not a multiple of 16");
    const Value *swizzle = member(value, path, "swizzle");
    if (!swizzle || !readInt(*swizzle, join(path, "swizzle"), 0, 128,
                             "0, 32, 64 or 128", map.swizzle))
      return false;
    if (map.swizzle != 0 && map.swizzle != 32 && map.swizzle != 64 &&
        map.swizzle != 128)
      return fail(join(path, "swizzle"),
                  "expected 0, 32, 64 or 128, found " + swizzle->text);
    if (map.swizzle != 0 && rowBytes > map.swizzle)
      return fail(box0Path, std::to_string(map.box[0]) + " " + dtype +
                                " elements are " + std::to_string(rowBytes) +
                                " bytes, more than the swizzle of " +
                                std::to_string(map.swizzle));
    const BufferSpec &b = graph.buffers[map.buffer];
    // R43 needs the extents and the buffer's bytes: where either is known
    // only per run (version 4), fkrt_run checks it.
    map.sizedAtRun = sized || bufferIsSymbolic(graph, b);
    if (map.sizedAtRun)
      return true;
    uint64_t reach = 0, bytes = bufferBytes(graph, b);
    bool fits = tensorMapReach(map.rank, map.dims, map.strides, elementBytes,
                               reach);
    if (!fits || reach > bytes)
      return fail(path, tensorMapReachError(fits, reach, bytes, b.id));
    return true;
  }

  bool readArg(const Value &value, const std::string &path, GraphSpec &graph,
               ArgSpec &arg) {
    if (value.kind != Value::Object || value.members.size() != 1)
      return fail(path, "expected an object with exactly one of 'buffer', "
                        "'i64', 'i32', 'tensor_map'");
    const std::string &key = value.members[0].first;
    const Value &v = value.members[0].second;
    std::string valuePath = path + "." + key;
    if ((key == "i64" || key == "i32") && v.kind != Value::Number &&
        manifestVersion >= kSymbolsVersion) {
      // R54: an integer computed per run (fkrt_run checks an i32's range).
      arg.kind = key == "i64" ? ArgSpec::I64 : ArgSpec::I32;
      arg.sizedAtRun = true;
      return readSize(v, valuePath, graph, arg.size);
    }
    if (key == "i64") {
      arg.kind = ArgSpec::I64;
      return readInt(v, valuePath, INT64_MIN, INT64_MAX, "an integer",
                     arg.value);
    }
    if (key == "i32") {
      arg.kind = ArgSpec::I32;
      return readInt(v, valuePath, INT32_MIN, INT32_MAX, "a 32-bit integer",
                     arg.value);
    }
    if (key == "tensor_map") {
      // Version 1 readers reject the kind, so a v1 manifest cannot use it.
      if (manifestVersion < 2)
        return fail(path, "a 'tensor_map' argument needs artifact version 2, "
                          "the manifest says version " +
                              std::to_string(manifestVersion));
      arg.kind = ArgSpec::TensorMap;
      arg.tensorMap = graph.tensorMaps.size();
      graph.tensorMaps.emplace_back();
      return readTensorMap(v, valuePath, graph, graph.tensorMaps.back());
    }
    if (key != "buffer")
      return fail(path, "unknown argument kind '" + key +
                            "' (expected 'buffer', 'i64', 'i32' or "
                            "'tensor_map')");
    arg.kind = ArgSpec::Buffer;
    if (!readBufferId(v, valuePath, graph, arg.buffer))
      return false;
    arg.value = graph.buffers[arg.buffer].id;
    return true;
  }

  bool readLaunch(const Value &value, const std::string &path, GraphSpec &graph,
                  LaunchSpec &launch) {
    if (value.kind != Value::Object)
      return fail(path, "expected an object");
    if (!readString(value, path, "kernel", launch.kernel))
      return false;
    if (!ptx::isIdentifier(launch.kernel))
      return fail(join(path, "kernel"),
                  "\"" + launch.kernel + "\" is not a PTX identifier");
    static const int64_t blockLimits[3] = {1024, 1024, 64};
    if (!readGrid(value, path, graph, launch) ||
        !readDims(value, path, "block", launch.block, blockLimits))
      return false;
    uint64_t threads = uint64_t(launch.block[0]) * launch.block[1] *
                       launch.block[2];
    if (threads > 1024)
      return fail(join(path, "block"), std::to_string(threads) +
                                           " threads per block exceed 1024");
    if (!readIntField(value, path, "shared_bytes", 0, UINT32_MAX,
                      "a non-negative 32-bit integer", launch.sharedBytes))
      return false;
    const Value *args = array(value, path, "args");
    if (!args)
      return false;
    // Kernel parameters are limited to 4 KiB; every argument takes <= 8.
    if (args->elements.size() > 512)
      return fail(join(path, "args"), "more than 512 arguments");
    for (size_t i = 0; i < args->elements.size(); ++i) {
      launch.args.emplace_back();
      ArgSpec &arg = launch.args.back();
      if (!readArg(args->elements[i],
                   join(path, "args") + "[" + std::to_string(i) + "]", graph,
                   arg))
        return false;
      if (arg.kind == ArgSpec::TensorMap) {
        // readGraph appends each launch before reading it.
        graph.tensorMaps[arg.tensorMap].launch = graph.launches.size() - 1;
        graph.tensorMaps[arg.tensorMap].arg = i;
      }
    }
    return readWrites(value, path, launch) &&
           readLimits(value, path, graph, launch) &&
           readPersistent(value, path, launch);
  }

  /// R64: the optional `persistent`, a persistent kernel's SM count and
  /// cluster blocks. Its grid is [x, 1, 1]: x an integer at most the SM
  /// count and a multiple of the cluster blocks, or, for blocks of their
  /// own, a size computed per run.
  bool readPersistent(const Value &value, const std::string &path,
                      LaunchSpec &launch) {
    const Value *persistent = value.find("persistent");
    if (!persistent)
      return true;
    std::string objectPath = join(path, "persistent");
    if (persistent->kind != Value::Object)
      return fail(objectPath, "expected an object");
    if (!readIntField(*persistent, objectPath, "sm_count", 1, kGridLimits[0],
                      "an integer in [1, 2147483647]",
                      launch.persistentSmCount) ||
        !readIntField(*persistent, objectPath, "cluster_blocks", 1, 16,
                      "an integer in [1, 16]", launch.clusterBlocks))
      return false;
    std::string gridPath = join(path, "grid");
    // readGrid read the grid: 3 entries, integers in launch.grid unless
    // some are computed per run.
    const Value &grid = *value.find("grid");
    for (size_t d = 1; d < 3; ++d) {
      const Value &entry = grid.elements[d];
      bool one = launch.sizedAtRun
                     ? entry.kind == Value::Number && entry.text == "1"
                     : launch.grid[d] == 1;
      if (!one)
        return fail(gridPath, "a persistent kernel's grid is [x, 1, 1]");
    }
    if (launch.sizedAtRun) {
      // A grid computed per run need not come in whole clusters.
      if (launch.clusterBlocks != 1)
        return fail(gridPath + "[0]",
                    "a persistent kernel in clusters of " +
                        std::to_string(launch.clusterBlocks) +
                        " has a grid of integers, not one computed per run");
      return true;
    }
    unsigned x = launch.grid[0];
    if (x > launch.persistentSmCount)
      return fail(gridPath + "[0]",
                  std::to_string(x) + " blocks, more than the sm_count of " +
                      std::to_string(launch.persistentSmCount));
    if (x % launch.clusterBlocks != 0)
      return fail(gridPath + "[0]",
                  std::to_string(x) + " blocks, not whole clusters of " +
                      std::to_string(launch.clusterBlocks));
    return true;
  }

  /// R63: the optional `limits` (version 6), each a symbolic dimension of
  /// the graph's symbols and the largest size the kernel takes for it.
  bool readLimits(const Value &value, const std::string &path,
                  const GraphSpec &graph, LaunchSpec &launch) {
    const Value *limits = value.find("limits");
    if (!limits)
      return true;
    std::string listPath = join(path, "limits");
    if (manifestVersion < kLimitsVersion)
      return fail(listPath, "a launch's limits need artifact version " +
                                std::to_string(kLimitsVersion) +
                                ", the manifest says version " +
                                std::to_string(manifestVersion));
    if (limits->kind != Value::Array)
      return fail(listPath, "expected an array");
    for (size_t i = 0; i < limits->elements.size(); ++i) {
      const Value &entry = limits->elements[i];
      std::string entryPath = listPath + "[" + std::to_string(i) + "]";
      if (entry.kind != Value::Object)
        return fail(entryPath, "expected an object");
      LaunchSpec::SizeLimit limit;
      const Value *size = member(entry, entryPath, "size");
      if (!size)
        return false;
      std::string sizePath = join(entryPath, "size");
      if (size->kind != Value::String)
        return fail(sizePath, "expected a symbolic dimension");
      if (!readMonomial(*size, sizePath, graph, limit.size))
        return false;
      limit.text = size->text;
      if (!readIntField(entry, entryPath, "max", 0, INT64_MAX,
                        "a non-negative integer", limit.max))
        return false;
      launch.limits.push_back(std::move(limit));
    }
    return true;
  }

  /// R60: the optional `writes`, distinct indices of buffer or tensor map
  /// arguments. Without it every such argument may be written.
  bool readWrites(const Value &value, const std::string &path,
                  LaunchSpec &launch) {
    launch.writes.assign(launch.args.size(), false);
    const Value *writes = value.find("writes");
    if (!writes) {
      for (size_t i = 0; i < launch.args.size(); ++i)
        launch.writes[i] = launch.args[i].kind == ArgSpec::Buffer ||
                           launch.args[i].kind == ArgSpec::TensorMap;
      return true;
    }
    std::string listPath = join(path, "writes");
    if (writes->kind != Value::Array)
      return fail(listPath, "expected an array");
    for (size_t i = 0; i < writes->elements.size(); ++i) {
      std::string entryPath = listPath + "[" + std::to_string(i) + "]";
      size_t arg = 0;
      if (!readInt(writes->elements[i], entryPath, 0,
                   static_cast<int64_t>(launch.args.size()) - 1,
                   "the index of one of the launch's arguments", arg))
        return false;
      ArgSpec::Kind kind = launch.args[arg].kind;
      if (kind != ArgSpec::Buffer && kind != ArgSpec::TensorMap)
        return fail(entryPath, "argument " + std::to_string(arg) +
                                   " is an integer, which a kernel cannot "
                                   "write");
      if (launch.writes[arg])
        return fail(entryPath,
                    "argument " + std::to_string(arg) + " is listed twice");
      launch.writes[arg] = true;
    }
    return true;
  }

  bool readGraph(const Value &value, const std::string &path,
                 GraphSpec &graph) {
    if (value.kind != Value::Object)
      return fail(path, "expected an object");
    if (!readName(value, path, graph.name) ||
        !readSymbols(value, path, graph))
      return false;
    std::set<std::string> tensorNames;
    if (!readTensors(value, path, "inputs", graph, graph.inputs,
                     tensorNames) ||
        !readTensors(value, path, "outputs", graph, graph.outputs,
                     tensorNames) ||
        !bindSymbols(path, graph) || !readAliases(value, path, graph))
      return false;
    if (!readIntField(value, path, "workspace_bytes", 0, INT64_MAX,
                      "a non-negative integer", graph.workspaceBytes))
      return false;
    const Value *buffers = array(value, path, "buffers");
    if (!buffers)
      return false;
    std::set<int64_t> ids;
    for (size_t i = 0; i < buffers->elements.size(); ++i) {
      std::string itemPath = join(path, "buffers") + "[" + std::to_string(i) +
                             "]";
      graph.buffers.emplace_back();
      if (!readBuffer(buffers->elements[i], itemPath, graph,
                      graph.buffers.back()))
        return false;
      if (!ids.insert(graph.buffers.back().id).second)
        return fail(itemPath + ".id", "duplicate buffer id " +
                                          std::to_string(graph.buffers.back().id));
      if (graph.buffers.back().placedAtRun) {
        graph.buffers.back().runSlot = graph.runPlacedBuffers.size();
        graph.runPlacedBuffers.push_back(i);
      }
    }
    const Value *launches = array(value, path, "launches");
    if (!launches)
      return false;
    for (size_t i = 0; i < launches->elements.size(); ++i) {
      graph.launches.emplace_back();
      if (!readLaunch(launches->elements[i],
                      join(path, "launches") + "[" + std::to_string(i) + "]",
                      graph, graph.launches.back()))
        return false;
    }
    graph.sizedAtRun = !graph.symbols.empty();
    for (const LaunchSpec &launch : graph.launches) {
      graph.sizedAtRun |= launch.sizedAtRun;
      for (const ArgSpec &arg : launch.args)
        graph.sizedAtRun |= arg.sizedAtRun;
    }
    for (const TensorMapSpec &map : graph.tensorMaps)
      graph.sizedAtRun |= map.sizedAtRun;
    graph.sizedAtRun |= !graph.runPlacedBuffers.empty();
    return checkLifetimes(path, graph) && checkOutputsPassed(path, graph);
  }

  /// R44: nothing but a launch writes an output, so every output with
  /// bytes must be passed to one, as a buffer or a tensor map's buffer. (A
  /// launch may only read what it is passed; the manifest cannot say.)
  bool checkOutputsPassed(const std::string &path, const GraphSpec &graph) {
    std::vector<bool> passed(graph.outputs.size(), false);
    for (const LaunchSpec &launch : graph.launches)
      for (const ArgSpec &arg : launch.args) {
        const BufferSpec *b = graph.bufferOf(arg);
        if (b && b->kind == BufferSpec::Output)
          passed[b->index] = true;
      }
    for (size_t i = 0; i < graph.outputs.size(); ++i)
      if (!passed[i] &&
          (graph.outputs[i].bytes != 0 || graph.outputs[i].symbolic))
        return fail(join(path, "outputs") + "[" + std::to_string(i) + "]",
                    "output \"" + graph.outputs[i].name + "\" (" +
                        (graph.outputs[i].symbolic
                             ? std::string("of symbolic shape")
                             : std::to_string(graph.outputs[i].bytes) +
                                   (graph.outputs[i].bytes == 1 ? " byte"
                                                                : " bytes")) +
                        ") is passed to no launch, so nothing writes it");
    return true;
  }
};

/// The alignment the runtime guarantees for an argument's address: what
/// fkrt_run checks of inputs and outputs, the workspace's for workspace
/// buffers (its base is 256-byte aligned, their offsets multiples of 256),
/// a descriptor's slot for tensor maps.
uint64_t guaranteedAlignment(const GraphSpec &graph, const ArgSpec &arg) {
  if (arg.kind == ArgSpec::TensorMap)
    return kTensorMapBytes;
  return graph.buffers[arg.buffer].kind == BufferSpec::Workspace
             ? kWorkspaceAlignment
             : kTensorAlignment;
}

const char *argKindName(ArgSpec::Kind kind) {
  switch (kind) {
  case ArgSpec::Buffer:
    return "buffer";
  case ArgSpec::I64:
    return "i64";
  case ArgSpec::I32:
    return "i32";
  case ArgSpec::TensorMap:
    return "tensor_map";
  }
  return "?";
}

/// Checks every launch against the `.entry` it calls (R46 to R49): the
/// kernel is defined, takes as many parameters as the launch passes
/// arguments, and each parameter can receive its argument. The runtime
/// passes every argument as one value of 8 bytes (a device address or an
/// i64) or 4 bytes (an i32), so the parameter must be a scalar integer of
/// that size; the driver does not check this.
bool checkKernels(const Manifest &manifest,
                  const std::vector<ptx::Entry> &entryList,
                  std::string &error) {
  std::map<std::string, const ptx::Entry *> entries;
  for (const ptx::Entry &e : entryList) {
    auto it = entries.find(e.name);
    if (it == entries.end() || (!it->second->defined && e.defined))
      entries[e.name] = &e;
  }
  for (size_t g = 0; g < manifest.graphs.size(); ++g) {
    const GraphSpec &graph = manifest.graphs[g];
    for (size_t l = 0; l < graph.launches.size(); ++l) {
      const LaunchSpec &launch = graph.launches[l];
      std::string path = "manifest: graphs[" + std::to_string(g) +
                         "].launches[" + std::to_string(l) + "]";
      auto it = entries.find(launch.kernel);
      if (it == entries.end()) {
        error = path + ".kernel: kernel \"" + launch.kernel +
                "\" is not an .entry of the PTX";
        return false;
      }
      const ptx::Entry &entry = *it->second;
      std::string kernel = ".entry " + entry.name + " (line " +
                           std::to_string(entry.line) + " of the PTX)";
      if (!entry.defined) {
        error = path + ".kernel: " + kernel +
                " is declared without a body, not defined";
        return false;
      }
      if (launch.args.size() != entry.params.size()) {
        error = path + ".args: " + std::to_string(launch.args.size()) +
                " arguments, but " + kernel + " has " +
                std::to_string(entry.params.size()) + " parameters";
        return false;
      }
      for (size_t a = 0; a < launch.args.size(); ++a) {
        const ArgSpec &arg = launch.args[a];
        const ptx::Param &param = entry.params[a];
        std::string where = path + ".args[" + std::to_string(a) + "]: ";
        bool integer = arg.kind == ArgSpec::I64 || arg.kind == ArgSpec::I32;
        std::string kind = std::string(integer ? "an '" : "a '") +
                           argKindName(arg.kind) + "'";
        std::string target = "parameter " + std::to_string(a) + " of " +
                             kernel + ", '" + param.text() + "'";
        unsigned bits = arg.kind == ArgSpec::I32 ? 32 : 64;
        if (param.array || !param.integer || param.bits != bits) {
          error = where + kind + " argument is passed as " +
                  (bits == 32 ? "a 4-byte integer" : "an 8-byte value") +
                  ", but " + target + " is not a " +
                  std::to_string(bits) + "-bit integer (.u" +
                  std::to_string(bits) + ", .s" + std::to_string(bits) +
                  " or .b" + std::to_string(bits) + ")";
          if (arg.kind == ArgSpec::TensorMap && param.array)
            error += "; a tensor map is passed as its descriptor's address, "
                     "not by value";
          return false;
        }
        if (!param.pointer)
          continue;
        if (arg.kind != ArgSpec::Buffer && arg.kind != ArgSpec::TensorMap) {
          error = where + kind + " argument cannot be passed to " + target +
                  ": a .ptr parameter takes a 'buffer' or a 'tensor_map'";
          return false;
        }
        if (!param.space.empty() && param.space != "global") {
          error = where + kind + " argument is a global address, but " +
                  target + " points to ." + param.space + " memory";
          return false;
        }
        uint64_t have = guaranteedAlignment(graph, arg);
        if (param.pointeeAlign && have % param.pointeeAlign != 0) {
          error = where + target + " needs " +
                  std::to_string(param.pointeeAlign) +
                  "-byte aligned data, but " + kind +
                  " argument is only aligned to " + std::to_string(have) +
                  " bytes";
          return false;
        }
      }
    }
  }
  return true;
}

} // namespace

bool fkrt::tensorMapReach(unsigned rank, const uint64_t *dims,
                          const uint64_t *strides, uint64_t elementBytes,
                          uint64_t &reach) {
  // Each term is checked against INT64_MAX (no buffer is larger) before it
  // is added, so the sum of two such never wraps a uint64_t.
  const uint64_t limit = INT64_MAX;
  reach = dims[0] * elementBytes;
  for (unsigned i = 1; i < rank; ++i) {
    uint64_t d = dims[i] - 1;
    if (d != 0 && strides[i - 1] > limit / d)
      return false;
    reach += d * strides[i - 1];
    if (reach > limit)
      return false;
  }
  return true;
}

std::string fkrt::tensorMapReachError(bool fits, uint64_t reach,
                                      uint64_t bytes, int64_t bufferId) {
  return "the map reaches " +
         (fits ? std::to_string(reach) : std::string("more than 2^63")) +
         " bytes (dims[0] * element size + the sum of (dims[i] - 1) * "
         "strides[i - 1]), more than the " +
         std::to_string(bytes) + " bytes of buffer " +
         std::to_string(bufferId);
}

fkrt_status fkrt::readManifest(const std::string &ptx, Manifest &manifest,
                               std::string &error) {
  // PTX is text and the driver reads it as a C string: a NUL would silently
  // cut it short.
  size_t nul = ptx.find('\0');
  if (nul != std::string::npos) {
    error = "artifact: NUL byte at offset " + std::to_string(nul);
    return FKRT_ERROR_INVALID_ARTIFACT;
  }
  std::string jsonText;
  unsigned firstLine = 1;
  if (!extractJson(ptx, jsonText, firstLine, error))
    return FKRT_ERROR_INVALID_ARTIFACT;
  json::Value root;
  std::string jsonError;
  if (!json::parse(jsonText, root, jsonError, json::Limits(), firstLine)) {
    error = "manifest: " + jsonError;
    return FKRT_ERROR_INVALID_ARTIFACT;
  }
  SchemaReader reader;
  manifest = Manifest();
  if (!reader.read(root, manifest)) {
    error = reader.error;
    return reader.status;
  }
  // The manifest is valid on its own; now the PTX, then the two together.
  std::vector<ptx::Entry> entries;
  if (!ptx::scanEntries(ptx, entries, error) ||
      !checkKernels(manifest, entries, error))
    return FKRT_ERROR_INVALID_ARTIFACT;
  return FKRT_SUCCESS;
}

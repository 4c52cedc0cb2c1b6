//===- host_tests.cpp - fkrt tests that need no GPU -----------------------===//
//
// Manifest parsing and validation, robustness against truncated and
// corrupted artifacts, fkrt_run's argument checks and the no-driver path.
//
// Every rule of the artifact format is numbered in docs/artifact.md (R1,
// R2, ...) with the status it yields; each failing load here names the rule
// it tests, and testRuleIndex checks the two agree: every documented rule is
// tested, with the documented status, and every tested rule is documented.
//
// Prints "N passed, M failed" last; exits non-zero on any failure.
//
//===----------------------------------------------------------------------===//

#include "PersistentGrid.h"
#include "TestSupport.h"
#include "fkrt/runtime.h"
#include "fkrt/runtime.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>

namespace {

const std::string kSamplePath = std::string(FKRT_TEST_DATA_DIR) + "/sample.ptx";
const std::string kArtifactDoc = std::string(FKRT_DOCS_DIR) + "/artifact.md";

/// The statuses each rule was seen to yield by the tests, by rule ("R7").
std::map<std::string, std::set<int>> rulesTested;

/// A one-graph manifest every validation case edits by one substitution.
const std::string kBase =
    R"({"format": "fkc-artifact", "version": 1, "target": "sm_90", )"
    R"("graphs": [{"name": "g", )"
    R"("inputs": [{"name": "x", "dtype": "f32", "shape": [4, 8]}], )"
    R"("outputs": [{"name": "y", "dtype": "f32", "shape": [4, 8]}], )"
    R"("workspace_bytes": 8192, )"
    R"("buffers": [{"id": 0, "kind": "input", "index": 0}, )"
    R"({"id": 1, "kind": "output", "index": 0}, )"
    R"({"id": 2, "kind": "workspace", "offset": 256, "bytes": 1024}], )"
    R"("launches": [{"kernel": "k0", "grid": [1, 1, 1], "block": [32, 1, 1], )"
    R"("shared_bytes": 0, "args": [{"buffer": 0}, {"buffer": 2}, )"
    R"({"buffer": 1}, {"i64": 32}, {"i32": 7}]}]}]})";

/// The PTX of the test artifacts: k0 takes kBase's arguments (three
/// buffers, an i64, an i32), m0 and m1 those of kMapBase's two launches.
/// k0's `.entry` is on line 9 of an artifact, m0's on line 20, m1's on 29.
const std::string kPtx =
    "\n.version 8.0\n.target sm_90\n.address_size 64\n\n"
    ".visible .entry k0(\n"
    "\t.param .u64 k0_p0,\n"
    "\t.param .u64 k0_p1,\n"
    "\t.param .u64 k0_p2,\n"
    "\t.param .u64 k0_p3,\n"
    "\t.param .u32 k0_p4\n"
    ")\n{\n\tret;\n}\n\n"
    ".visible .entry m0(\n"
    "\t.param .u64 .ptr .align 16 m0_p0,\n"
    "\t.param .u64 .ptr .global .align 16 m0_p1\n"
    ")\n.maxntid 32, 1, 1\n{\n\tret;\n}\n\n"
    ".visible .entry m1(.param .s32 m1_p0, .param .b64 m1_p1, "
    ".param .u64 m1_p2)\n{\n\tret;\n}\n";

/// An artifact of a one-line manifest and the PTX `ptx`.
std::string withPtx(const std::string &json, const std::string &ptx) {
  return "// fkc-manifest-begin\n// " + json + "\n// fkc-manifest-end\n" + ptx;
}

std::string artifact(const std::string &json) { return withPtx(json, kPtx); }

/// `text` with its only occurrence of `from` replaced by `to`.
std::string replaced(const std::string &text, const std::string &from,
                     const std::string &to) {
  size_t at = text.find(from);
  if (at == std::string::npos || text.find(from, at + 1) != std::string::npos) {
    std::printf("bad test edit: '%s'\n", from.c_str());
    ++fkrt_test::failed;
    return "";
  }
  return text.substr(0, at) + to + text.substr(at + from.size());
}

/// kBase with its only occurrence of `from` replaced by `to`.
std::string edited(const std::string &from, const std::string &to) {
  return replaced(kBase, from, to);
}

/// kPtx with its only occurrence of `from` replaced by `to`.
std::string ptxEdited(const std::string &from, const std::string &to) {
  return replaced(kPtx, from, to);
}

/// Loads `text`; returns the status, with the error message in `error`.
fkrt_status load(const std::string &text, std::string &error) {
  fkrt_module m = nullptr;
  fkrt_status status = fkrt_module_load_memory(text.data(), text.size(), &m);
  error = status == FKRT_SUCCESS ? "" : fkrt_last_error();
  CHECK((status == FKRT_SUCCESS) == (m != nullptr));
  fkrt_module_destroy(m);
  return status;
}

/// The module of artifact `text`, which must load (else a failed check,
/// and null); the caller destroys it.
fkrt_module loadValid(const std::string &text) {
  fkrt_module m = nullptr;
  CHECK_EQ(fkrt_module_load_memory(text.data(), text.size(), &m),
           FKRT_SUCCESS);
  return m;
}

/// Records that a load failed by rule `rule` with `got`, and checks that
/// this is `status` with a message containing `message`.
void expectFailure(const char *rule, fkrt_status got, const std::string &error,
                   fkrt_status status, const std::string &message) {
  rulesTested[rule].insert(got);
  if (got == status && error.find(message) != std::string::npos) {
    ++fkrt_test::passed;
    return;
  }
  ++fkrt_test::failed;
  std::printf("FAIL (%s): expected status %d with '%s', got %d: '%s'\n", rule,
              status, message.c_str(), got, error.c_str());
}

/// Expects loading `text` to fail by rule `rule` of docs/artifact.md, with
/// `status` and a message containing `message`.
void expectError(const char *rule, const std::string &text,
                 fkrt_status status, const std::string &message) {
  std::string error;
  fkrt_status got = load(text, error);
  expectFailure(rule, got, error, status, message);
}

/// The same for an artifact of the manifest `json` and the PTX kPtx.
void expectInvalid(const char *rule, const std::string &json,
                   const std::string &message) {
  expectError(rule, artifact(json), FKRT_ERROR_INVALID_ARTIFACT, message);
}

/// Expects an artifact of the manifest `json` and the PTX `ptx` to fail by
/// `rule` (INVALID_ARTIFACT).
void expectPtxInvalid(const char *rule, const std::string &json,
                      const std::string &ptx, const std::string &message) {
  expectError(rule, withPtx(json, ptx), FKRT_ERROR_INVALID_ARTIFACT, message);
}

/// Expects a call's `got` to be `status` with the last error containing
/// `text`.
void expectStatus(fkrt_status got, fkrt_status status, const char *text) {
  bool ok = got == status && std::strstr(fkrt_last_error(), text);
  CHECK(ok);
  if (!ok)
    std::printf("  got %d: '%s', expected '%s'\n", got, fkrt_last_error(),
                text);
}

/// What fkrt_run returns here for a run its checks pass: the module is
/// not loaded on CUDA, or there is no driver to load it with.
fkrt_status readyRunStatus() {
  return fkrt_driver_available() == FKRT_SUCCESS ? FKRT_ERROR_NOT_LOADED
                                                 : FKRT_ERROR_NO_DRIVER;
}

/// Expects `text` to load.
void expectLoads(const std::string &text, const char *what) {
  std::string error;
  fkrt_status got = load(text, error);
  if (got == FKRT_SUCCESS) {
    ++fkrt_test::passed;
    return;
  }
  ++fkrt_test::failed;
  std::printf("FAIL: %s: expected to load, got %d: '%s'\n", what, got,
              error.c_str());
}

void testSample() {
  fkrt_module m = nullptr;
  CHECK_EQ(fkrt_module_load_file(kSamplePath.c_str(), &m), FKRT_SUCCESS);
  if (!m)
    return;
  CHECK_EQ(fkrt_manifest_version(m), 1);
  CHECK_EQ(std::string(fkrt_manifest_target(m)), "sm_90");
  CHECK_EQ(fkrt_manifest_graph_count(m), 2u);
  CHECK_EQ(std::string(fkrt_manifest_graph_name(m, 0)), "mlp");
  CHECK_EQ(std::string(fkrt_manifest_graph_name(m, 1)), "mask");
  CHECK(fkrt_manifest_graph_name(m, 2) == nullptr);
  size_t g = 99;
  CHECK_EQ(fkrt_manifest_find_graph(m, "mask", &g), FKRT_SUCCESS);
  CHECK_EQ(g, 1u);
  CHECK_EQ(fkrt_manifest_find_graph(m, "nope", &g), FKRT_ERROR_NOT_FOUND);
  CHECK(std::strstr(fkrt_last_error(), "no graph named 'nope'"));
  CHECK_EQ(fkrt_manifest_input_count(m, 0), 2u);
  CHECK_EQ(fkrt_manifest_output_count(m, 0), 1u);
  CHECK_EQ(fkrt_manifest_input_count(m, 7), 0u);
  fkrt_tensor_info info;
  CHECK_EQ(fkrt_manifest_input(m, 0, 1, &info), FKRT_SUCCESS);
  CHECK_EQ(std::string(info.name), "w");
  CHECK_EQ(info.dtype, FKRT_F16);
  CHECK_EQ(info.rank, 2);
  CHECK(info.shape[0] == 32 && info.shape[1] == 32);
  CHECK_EQ(info.bytes, 32u * 32u * 2u);
  CHECK_EQ(fkrt_manifest_input(m, 0, 2, &info), FKRT_ERROR_INVALID_ARGUMENT);
  CHECK(std::strstr(fkrt_last_error(), "index 2 out of range"));
  CHECK_EQ(fkrt_manifest_output(m, 1, 0, &info), FKRT_SUCCESS);
  CHECK_EQ(info.rank, 0);
  CHECK_EQ(info.bytes, 4u);
  CHECK_EQ(fkrt_manifest_input(m, 1, 0, &info), FKRT_SUCCESS);
  CHECK_EQ(info.dtype, FKRT_I1);
  CHECK_EQ(info.bytes, 7u);
  CHECK_EQ(fkrt_manifest_workspace_bytes(m, 0), 8192u);
  CHECK_EQ(fkrt_manifest_workspace_bytes(m, 1), 0u);
  CHECK_EQ(fkrt_manifest_launch_count(m, 0), 2u);
  // CUDA graphs: on by default, switched without a GPU, none held.
  CHECK_EQ(fkrt_cuda_graphs(m), 1);
  CHECK_EQ(fkrt_set_cuda_graphs(m, 0), FKRT_SUCCESS);
  CHECK_EQ(fkrt_cuda_graphs(m), 0);
  CHECK_EQ(fkrt_cuda_graph_count(m), 0u);
  CHECK_EQ(fkrt_set_cuda_graphs(nullptr, 1), FKRT_ERROR_INVALID_ARGUMENT);
  CHECK(std::strstr(fkrt_last_error(), "module is null"));
  CHECK_EQ(fkrt_cuda_graphs(nullptr), 0);
  CHECK_EQ(fkrt_cuda_graph_count(nullptr), 0u);
  fkrt_module_destroy(m);
}

void testCppWrapper() {
  fkrt::Module m = fkrt::Module::fromFile(kSamplePath);
  CHECK_EQ(m.graphCount(), 2u);
  CHECK_EQ(m.graphName(0), "mlp");
  CHECK_EQ(m.findGraph("mask"), 1u);
  std::vector<fkrt::TensorInfo> in = m.inputs(0);
  CHECK(in.size() == 2 && in[0].name == "x" &&
        in[0].shape == std::vector<int64_t>({64, 32}));
  fkrt::Module moved = std::move(m);
  CHECK(m.get() == nullptr && moved.get() != nullptr);
  try {
    fkrt::Module::fromFile("/nonexistent/artifact.ptx");
    CHECK(false);
  } catch (const fkrt::Error &e) {
    CHECK_EQ(e.status(), FKRT_ERROR_IO);
    CHECK(std::strstr(e.what(), "/nonexistent/artifact.ptx: cannot open"));
  }
}

void testBaseValid() {
  std::string error;
  CHECK_EQ(load(artifact(kBase), error), FKRT_SUCCESS);
  // CRLF line ends, other comments around the manifest and a "//" line
  // inside it are accepted.
  std::string crlf = "// generated\r\n// fkc-manifest-begin\r\n// " + kBase +
                     "\r\n//\r\n// fkc-manifest-end\r\n// more\r\n" + kPtx;
  CHECK_EQ(load(crlf, error), FKRT_SUCCESS);
  // Empty lines of the leading comment block outside the manifest are
  // comments like any other.
  expectLoads("\n// generated\n\n// fkc-manifest-begin\n// " + kBase +
                  "\n// fkc-manifest-end\n\n// more\n" + kPtx,
              "empty lines around the manifest");
  // Unknown members are ignored so compatible additions need no new version.
  CHECK_EQ(load(artifact(edited(R"("version": 1,)",
                                R"("version": 1, "producer": {"x": [null, true, 1e3]},)")),
                error),
           FKRT_SUCCESS);
  // Escapes decode; a name is any non-empty string without control
  // characters.
  fkrt_module m = nullptr;
  std::string text = artifact(edited(R"("name": "g")", R"("name": "g\u00e9\ud83d\ude00")"));
  CHECK_EQ(fkrt_module_load_memory(text.data(), text.size(), &m), FKRT_SUCCESS);
  CHECK(m && std::string(fkrt_manifest_graph_name(m, 0)) == "g\xc3\xa9\xf0\x9f\x98\x80");
  fkrt_module_destroy(m);
}

/// R1, R2: the file as a whole.
void testFileRules() {
  // R1: the size is checked before the bytes are read, so a small buffer
  // with a larger claimed size shows the limit without allocating 1 GiB.
  std::string small = artifact(kBase);
  fkrt_module m = nullptr;
  fkrt_status status = fkrt_module_load_memory(
      small.data(), (size_t(1) << 30) + 1, &m);
  expectFailure("R1", status, status ? fkrt_last_error() : "",
                FKRT_ERROR_INVALID_ARTIFACT,
                "artifact: 1073741825 bytes exceed the limit of 1073741824");
  CHECK(m == nullptr);
  // R2
  std::string withNul = artifact(kBase);
  withNul[withNul.size() - 3] = '\0';
  expectError("R2", withNul, FKRT_ERROR_INVALID_ARTIFACT,
              "artifact: NUL byte at offset " +
                  std::to_string(withNul.size() - 3));
  withNul = artifact(kBase);
  withNul[30] = '\0';
  expectError("R2", withNul, FKRT_ERROR_INVALID_ARTIFACT,
              "artifact: NUL byte at offset 30");
}

/// R3 to R6: the manifest's lines.
void testFraming() {
  expectError("R3", kPtx, FKRT_ERROR_INVALID_ARTIFACT,
              "manifest: no '// fkc-manifest-begin' line in the artifact's "
              "leading comment block");
  expectError("R3", "", FKRT_ERROR_INVALID_ARTIFACT,
              "no '// fkc-manifest-begin'");
  // A manifest after the leading comment block is not looked for.
  expectError("R3", kPtx + artifact(kBase), FKRT_ERROR_INVALID_ARTIFACT,
              "no '// fkc-manifest-begin'");
  // The marker is the whole line.
  expectError("R3", "// fkc-manifest-begin:\n// " + kBase +
                        "\n// fkc-manifest-end\n" + kPtx,
              FKRT_ERROR_INVALID_ARTIFACT, "no '// fkc-manifest-begin'");
  expectError("R4", "// fkc-manifest-begin\n// " + kBase + "\n" + kPtx.substr(1),
              FKRT_ERROR_INVALID_ARTIFACT,
              "manifest: no '// fkc-manifest-end' line after the '// "
              "fkc-manifest-begin' of line 1");
  expectError("R5", "// fkc-manifest-begin\n//" + kBase + "\n// fkc-manifest-end\n",
              FKRT_ERROR_INVALID_ARTIFACT,
              "manifest: line 2: expected '// ' followed by JSON text, or "
              "'//' alone, inside the manifest");
  // An empty line inside the manifest is neither (with or without CR).
  expectError("R5", "// fkc-manifest-begin\n// " + kBase +
                        "\n\n// fkc-manifest-end\n" + kPtx,
              FKRT_ERROR_INVALID_ARTIFACT,
              "manifest: line 3: expected '// ' followed by JSON text, or "
              "'//' alone, inside the manifest, found an empty line");
  expectError("R5", "// fkc-manifest-begin\r\n\r\n// " + kBase +
                        "\r\n// fkc-manifest-end\r\n" + kPtx,
              FKRT_ERROR_INVALID_ARTIFACT, "line 2: expected '// ' followed "
                                           "by JSON text, or '//' alone, "
                                           "inside the manifest, found an "
                                           "empty line");
  // R6: the lines between the markers, line ends included, may hold 16 MiB
  // and not a byte more.
  const size_t limit = size_t(16) << 20;
  std::string first = "// " + kBase + "\n";
  auto padded = [&](size_t bytes) {
    size_t spaces = bytes - first.size() - 4;
    return "// fkc-manifest-begin\n" + first + "// " +
           std::string(spaces, ' ') + "\n// fkc-manifest-end\n" + kPtx;
  };
  expectLoads(padded(limit), "a manifest of exactly 16 MiB");
  expectError("R6", padded(limit + 1), FKRT_ERROR_INVALID_ARTIFACT,
              "manifest: more than 16777216 bytes between the '// "
              "fkc-manifest-begin' line and the '// fkc-manifest-end' line");
}

/// R7 to R11: the JSON text.
void testJson() {
  // R7: the manifest is UTF-8; the first bad byte is named with its line,
  // column and offset in the artifact.
  struct Bad {
    const char *bytes;
    const char *why;
  } bad[] = {
      {"\xff", "not a UTF-8 byte"},
      {"\x80", "a continuation byte alone"},
      {"\xc3", "a sequence cut short"},
      {"\xc3(", "a sequence cut short"},
      {"\xc0\x80", "an overlong NUL"},
      {"\xe0\x80\xaf", "an overlong '/'"},
      {"\xed\xa0\x80", "a UTF-16 surrogate"},
      {"\xf4\x90\x80\x80", "above U+10FFFF"},
      {"\xf5\x80\x80\x80", "above U+10FFFF"},
  };
  for (const Bad &b : bad) {
    int failedBefore = fkrt_test::failed;
    std::string text = artifact(edited(R"("name": "x")",
                                       std::string("\"name\": \"x") + b.bytes +
                                           "\""));
    size_t at = text.find(b.bytes);
    char byte[8];
    std::snprintf(byte, sizeof(byte), "0x%02x",
                  static_cast<unsigned char>(b.bytes[0]));
    std::string column = std::to_string(at - text.find("\n// {") - 1 + 1);
    expectError("R7", text, FKRT_ERROR_INVALID_ARTIFACT,
                "manifest: line 2, column " + column + " (byte offset " +
                    std::to_string(at) + "): invalid UTF-8: byte " + byte +
                    " does not begin a well-formed sequence");
    if (fkrt_test::failed != failedBefore)
      std::printf("  (case: %s)\n", b.why);
  }
  // Anywhere in the manifest, even in members that are ignored.
  expectInvalid("R7", edited(R"("version": 1,)", "\"version\": 1, \"note\": \"\xe9t\xe9\","),
                "invalid UTF-8: byte 0xe9");
  // Well-formed UTF-8 of every length is a name like any other.
  fkrt_module m = nullptr;
  std::string text = artifact(edited(
      R"("name": "x")", "\"name\": \"x\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\""));
  CHECK_EQ(fkrt_module_load_memory(text.data(), text.size(), &m), FKRT_SUCCESS);
  fkrt_tensor_info info;
  CHECK(m && fkrt_manifest_input(m, 0, 0, &info) == FKRT_SUCCESS &&
        std::string(info.name) ==
            "x\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf");
  fkrt_module_destroy(m);
  // Only the manifest is checked: other comments are not JSON.
  expectLoads("// caf\xe9\n" + artifact(kBase) + "// caf\xe9\n",
              "Latin-1 in comments outside the manifest");

  // R8: RFC 8259's grammar, with positions in the artifact.
  expectInvalid("R8", edited(R"({"i32": 7}])", R"({"i32": 7},])"),
                "manifest: line 2, column");
  expectInvalid("R8", kBase + " x", "unexpected text after the JSON value");
  expectInvalid("R8", edited(R"("version": 1)", R"("version": tru)"),
                "invalid literal, expected 'true'");
  expectInvalid("R8", edited(R"("version": 1)", R"("version": -)"),
                "invalid number");
  expectInvalid("R8", edited(R"("version": 1)", R"("version": 01)"),
                "expected ',' or '}'");
  std::string multiLine = "// a comment\n// fkc-manifest-begin\n// {\n//  \"format\": ]\n// }\n// fkc-manifest-end\n";
  expectError("R8", multiLine, FKRT_ERROR_INVALID_ARTIFACT,
              "manifest: line 4, column 15: expected a value, found ']'");
  expectError("R8", "// fkc-manifest-begin\n// fkc-manifest-end\n" + kPtx,
              FKRT_ERROR_INVALID_ARTIFACT,
              "manifest: line 2, column 1: expected a value, found end of "
              "input");

  // R9: strings.
  expectInvalid("R9", edited(R"("target": "sm_90")", R"("target": "sm_\x90")"),
                "invalid escape '\\x'");
  expectInvalid("R9", edited(R"("target": "sm_90")", "\"target\": \"sm\t90\""),
                "control character byte 0x09 in a string");
  expectInvalid("R9", edited(R"("target": "sm_90")", R"("target": "\ud800")"),
                "unpaired surrogate");
  expectInvalid("R9", edited(R"("target": "sm_90")", R"("target": "\udc00x")"),
                "unpaired surrogate");

  // R10
  expectInvalid("R10", edited(R"("version": 1, )", R"("version": 1, "version": 1, )"),
                "duplicate member 'version'");

  // R11: 64 levels counting the outer object are allowed, 65 are not.
  expectInvalid("R11", std::string(100000, '['), "nesting deeper than 64");
  expectInvalid("R11", edited(R"("version": 1)",
                              R"("version": 1, "x": )" + std::string(64, '[') +
                                  std::string(64, ']')),
                "nesting deeper than 64");
  std::string error;
  CHECK_EQ(load(artifact(edited(R"("version": 1)",
                                R"("version": 1, "x": )" + std::string(63, '[') +
                                    std::string(63, ']'))),
                error),
           FKRT_SUCCESS);
}

/// The optional `allow_tf32` (R12 for its type); absent means exact f32.
void testAllowTf32() {
  auto allows = [](const std::string &json) {
    std::string text = artifact(json);
    fkrt_module m = nullptr;
    int result = -1;
    if (fkrt_module_load_memory(text.data(), text.size(), &m) == FKRT_SUCCESS)
      result = fkrt_manifest_allow_tf32(m);
    fkrt_module_destroy(m);
    return result;
  };
  CHECK_EQ(allows(kBase), 0);
  CHECK_EQ(allows(edited(R"("target": "sm_90", )",
                         R"("target": "sm_90", "allow_tf32": true, )")),
           1);
  CHECK_EQ(allows(edited(R"("target": "sm_90", )",
                         R"("target": "sm_90", "allow_tf32": false, )")),
           0);
  CHECK_EQ(fkrt_manifest_allow_tf32(nullptr), 0);
  expectInvalid("R12",
                edited(R"("target": "sm_90", )",
                       R"("target": "sm_90", "allow_tf32": 1, )"),
                "manifest: allow_tf32: expected true or false");
}

/// R14 to R16: format and version.
void testVersioning() {
  CHECK_EQ(FKRT_ARTIFACT_VERSION, 6);
  expectInvalid("R14", edited(R"("format": "fkc-artifact")", R"("format": "onnx")"),
                "manifest: format: expected \"fkc-artifact\", found \"onnx\"");
  expectInvalid("R12", edited(R"("format": "fkc-artifact", )", ""),
                "manifest: missing field 'format'");
  expectInvalid("R12", edited(R"("version": 1, )", ""),
                "manifest: missing field 'version'");
  // R15: a version is an integer...
  expectInvalid("R15", edited(R"("version": 1)", R"("version": "1")"),
                "manifest: version: expected an integer");
  expectInvalid("R15", edited(R"("version": 1)", R"("version": 1.0)"),
                "manifest: version: expected an integer");
  expectInvalid("R15", edited(R"("version": 1)", R"("version": 2e0)"),
                "manifest: version: expected an integer");
  // R16: ... and any integer but 1 to 6 is a version this reader does not
  // know, however large or small.
  for (const char *v : {"0", "-1", "7", "2147483648", "1099511627776",
                        "-9223372036854775808", "99999999999999999999"})
    expectError("R16", artifact(edited(R"("version": 1)",
                                       std::string(R"("version": )") + v)),
                FKRT_ERROR_UNSUPPORTED_VERSION,
                std::string("manifest: unsupported artifact version ") + v +
                    " (this runtime reads versions 1 to 6)");
  // The version is checked before any other field, so a future layout
  // still gets the version message.
  expectError("R16", artifact(R"({"format": "fkc-artifact", "version": 7})"),
              FKRT_ERROR_UNSUPPORTED_VERSION, "unsupported artifact version 7");
  // Version 1 is version 2 without tensor maps: the same manifest loads
  // under both numbers.
  fkrt_module m = nullptr;
  std::string v2 = artifact(edited(R"("version": 1)", R"("version": 2)"));
  CHECK_EQ(fkrt_module_load_memory(v2.data(), v2.size(), &m), FKRT_SUCCESS);
  CHECK_EQ(fkrt_manifest_version(m), 2);
  fkrt_module_destroy(m);
}

/// R12, R13 and R17 to R25: the top level, graphs and tensors.
void testFieldErrors() {
  expectInvalid("R12", "[1, 2]", "manifest: expected a JSON object");
  expectInvalid("R17", edited(R"("target": "sm_90")", R"("target": "gfx90a")"),
                "manifest: target: expected an architecture like \"sm_90\"");
  expectInvalid("R17", edited(R"("target": "sm_90")", R"("target": "sm_90ab")"),
                "manifest: target: expected an architecture like \"sm_90\"");
  expectInvalid("R17", edited(R"("target": "sm_90")", R"("target": "sm_")"),
                "manifest: target: expected an architecture like \"sm_90\"");
  expectInvalid("R12", edited(R"("target": "sm_90")", R"("target": 90)"),
                "manifest: target: expected a string");
  expectInvalid("R12", edited(R"("target": "sm_90", )", ""),
                "manifest: missing field 'target'");
  expectInvalid("R12", R"({"format": "fkc-artifact", "version": 1, "target": "sm_90"})",
                "manifest: missing field 'graphs'");
  expectInvalid("R12",
      R"({"format": "fkc-artifact", "version": 1, "target": "sm_90", "graphs": {}})",
      "manifest: graphs: expected an array");
  expectInvalid("R18",
      R"({"format": "fkc-artifact", "version": 1, "target": "sm_90", "graphs": []})",
      "manifest: graphs: expected at least one graph");
  expectInvalid("R12",
      R"({"format": "fkc-artifact", "version": 1, "target": "sm_90", "graphs": [7]})",
      "manifest: graphs[0]: expected an object");
  expectInvalid("R12", edited(R"("name": "g", )", ""),
                "manifest: graphs[0]: missing field 'name'");
  expectInvalid("R19", edited(R"("name": "g")", R"("name": "")"),
                "manifest: graphs[0].name: expected a non-empty string");
  expectInvalid("R19", edited(R"("name": "g")", R"("name": "g\u0001")"),
                "manifest: graphs[0].name: control character in a name");
  expectInvalid("R19", edited(R"("name": "x")", R"("name": "x\n")"),
                "manifest: graphs[0].inputs[0].name: control character in a name");
  expectInvalid("R12", edited(R"("inputs": )", R"("ins": )"),
                "manifest: graphs[0]: missing field 'inputs'");
  expectInvalid("R22", edited(R"("dtype": "f32", "shape": [4, 8]}], "outputs)",
                              R"("dtype": "f64", "shape": [4, 8]}], "outputs)"),
                "manifest: graphs[0].inputs[0].dtype: unknown dtype \"f64\"");
  expectInvalid("R12", edited(R"("name": "y", "dtype": "f32")",
                              R"("name": "y", "dtype": 32)"),
                "manifest: graphs[0].outputs[0].dtype: expected a string");
  expectInvalid("R23", edited(R"("name": "x", "dtype": "f32", "shape": [4, 8])",
                              R"("name": "x", "dtype": "f32", "shape": [4, -8])"),
                "manifest: graphs[0].inputs[0].shape[1]: expected a "
                "non-negative integer, found -8");
  expectInvalid("R13", edited(R"("name": "x", "dtype": "f32", "shape": [4, 8])",
                              R"("name": "x", "dtype": "f32", "shape": [4, 8.5])"),
                "manifest: graphs[0].inputs[0].shape[1]: expected a "
                "non-negative integer");
  expectInvalid("R13", edited(R"("name": "x", "dtype": "f32", "shape": [4, 8])",
                              R"("name": "x", "dtype": "f32", "shape": [4, 8e0])"),
                "manifest: graphs[0].inputs[0].shape[1]: expected a "
                "non-negative integer");
  expectInvalid("R13", edited(R"("name": "x", "dtype": "f32", "shape": [4, 8])",
                              R"("name": "x", "dtype": "f32", "shape": [4, "8"])"),
                "manifest: graphs[0].inputs[0].shape[1]: expected a "
                "non-negative integer");
  expectInvalid("R12", edited(R"("name": "x", "dtype": "f32", "shape": [4, 8])",
                              R"("name": "x", "dtype": "f32", "shape": 8)"),
                "manifest: graphs[0].inputs[0].shape: expected an array");
  expectInvalid("R13", edited(R"("name": "x", "dtype": "f32", "shape": [4, 8])",
                              R"("name": "x", "dtype": "f32", "shape": [99999999999999999999])"),
                "manifest: graphs[0].inputs[0].shape[0]: integer "
                "99999999999999999999 out of range");
  expectInvalid("R24", edited(R"("name": "x", "dtype": "f32", "shape": [4, 8])",
                              R"("name": "x", "dtype": "f32", "shape": [4611686018427387904, 2])"),
                "manifest: graphs[0].inputs[0].shape: tensor size overflows 64 bits");
  expectInvalid("R23", edited(R"("name": "x", "dtype": "f32", "shape": [4, 8])",
                              R"("name": "x", "dtype": "f32", "shape": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1])"),
                "manifest: graphs[0].inputs[0].shape: rank 17 exceeds the limit of 16");
  expectInvalid("R21", edited(R"("name": "y")", R"("name": "x")"),
                "manifest: graphs[0].outputs[0].name: duplicate tensor name \"x\"");
  expectInvalid("R20",
      edited(R"("graphs": [{"name": "g", )",
             R"("graphs": [{"name": "g", "inputs": [], "outputs": [], "workspace_bytes": 0, "buffers": [], "launches": []}, {"name": "g", )"),
      "manifest: graphs[1].name: duplicate graph name \"g\"");
  expectInvalid("R25", edited(R"("workspace_bytes": 8192)", R"("workspace_bytes": -1)"),
                "manifest: graphs[0].workspace_bytes: expected a non-negative integer");
}

/// R26 to R29: buffers.
void testBufferErrors() {
  expectInvalid("R29", edited(R"("offset": 256)", R"("offset": 100)"),
                "manifest: graphs[0].buffers[2].offset: offset 100 is not a "
                "multiple of 256");
  expectInvalid("R29", edited(R"("bytes": 1024)", R"("bytes": 8000)"),
                "manifest: graphs[0].buffers[2]: workspace range [256, 8256) "
                "exceeds workspace_bytes 8192");
  expectInvalid("R29", edited(R"("offset": 256, "bytes": 1024)",
                              R"("offset": 9223372036854775552, "bytes": 9223372036854775807)"),
                "exceeds workspace_bytes 8192");
  expectInvalid("R29", edited(R"("bytes": 1024)", R"("bytes": -1)"),
                "manifest: graphs[0].buffers[2].bytes: expected a "
                "non-negative integer");
  expectInvalid("R28", edited(R"("kind": "input", "index": 0)",
                              R"("kind": "input", "index": 1)"),
                "manifest: graphs[0].buffers[0].index: expected an input "
                "index in [0, 0], found 1");
  expectInvalid("R12", edited(R"("kind": "output", "index": 0)", R"("kind": "output")"),
                "manifest: graphs[0].buffers[1]: missing field 'index'");
  expectInvalid("R27", edited(R"("kind": "output")", R"("kind": "scratch")"),
                "manifest: graphs[0].buffers[1].kind: unknown buffer kind \"scratch\"");
  expectInvalid("R26", edited(R"({"id": 1, )", R"({"id": 0, )"),
                "manifest: graphs[0].buffers[1].id: duplicate buffer id 0");
  expectInvalid("R26", edited(R"({"id": 1, )", R"({"id": -1, )"),
                "manifest: graphs[0].buffers[1].id: expected a non-negative integer");
  expectInvalid("R13", edited(R"({"id": 1, )", R"({"id": true, )"),
                "manifest: graphs[0].buffers[1].id: expected a non-negative integer");
}

/// R30 to R36 and R60: launches and their arguments, as the manifest has
/// them.
void testLaunchErrors() {
  expectInvalid("R35", edited(R"({"buffer": 2})", R"({"buffer": 42})"),
                "manifest: graphs[0].launches[0].args[1].buffer: unknown buffer id 42");
  expectInvalid("R34", edited(R"({"buffer": 2})", R"({"buffer": 2, "i64": 1})"),
                "manifest: graphs[0].launches[0].args[1]: expected an object "
                "with exactly one of 'buffer', 'i64', 'i32'");
  expectInvalid("R34", edited(R"({"buffer": 2})", R"({"f32": 2})"),
                "manifest: graphs[0].launches[0].args[1]: unknown argument kind 'f32'");
  expectInvalid("R34", edited(R"({"buffer": 2})", R"(2)"),
                "manifest: graphs[0].launches[0].args[1]: expected an object "
                "with exactly one of");
  {
    std::string many;
    for (int i = 0; i < 513; ++i)
      many += std::string(i ? ", " : "") + R"({"i32": 0})";
    expectInvalid("R34", edited(R"({"buffer": 0}, {"buffer": 2}, {"buffer": 1}, {"i64": 32}, {"i32": 7})",
                                many),
                  "manifest: graphs[0].launches[0].args: more than 512 arguments");
  }
  expectInvalid("R36", edited(R"({"i32": 7})", R"({"i32": 3000000000})"),
                "manifest: graphs[0].launches[0].args[4].i32: expected a "
                "32-bit integer, found 3000000000");
  expectInvalid("R36", edited(R"({"i32": 7})", R"({"i32": -2147483649})"),
                "manifest: graphs[0].launches[0].args[4].i32: expected a "
                "32-bit integer, found -2147483649");
  expectInvalid("R13", edited(R"({"i64": 32})", R"({"i64": 9223372036854775808})"),
                "manifest: graphs[0].launches[0].args[3].i64: integer "
                "9223372036854775808 out of range");
  expectLoads(artifact(edited(R"({"i64": 32})", R"({"i64": -9223372036854775808})")),
              "the smallest i64");
  expectLoads(artifact(edited(R"({"i32": 7})", R"({"i32": -2147483648})")),
              "the smallest i32");
  expectInvalid("R30", edited(R"("kernel": "k0")", R"("kernel": "k0; ret")"),
                "manifest: graphs[0].launches[0].kernel: \"k0; ret\" is not a "
                "PTX identifier");
  expectInvalid("R30", edited(R"("kernel": "k0")", R"("kernel": "")"),
                "manifest: graphs[0].launches[0].kernel: \"\" is not a PTX "
                "identifier");
  expectInvalid("R30", edited(R"("kernel": "k0")", R"("kernel": "9k")"),
                "\"9k\" is not a PTX identifier");
  expectInvalid("R31", edited(R"("grid": [1, 1, 1])", R"("grid": [0, 1, 1])"),
                "manifest: graphs[0].launches[0].grid[0]: expected an integer "
                "in [1, 2147483647], found 0");
  expectInvalid("R31", edited(R"("grid": [1, 1, 1])", R"("grid": [1, 65536, 1])"),
                "manifest: graphs[0].launches[0].grid[1]: expected an integer "
                "in [1, 65535], found 65536");
  expectInvalid("R31", edited(R"("grid": [1, 1, 1])", R"("grid": [1, 1])"),
                "manifest: graphs[0].launches[0].grid: expected 3 dimensions, found 2");
  expectInvalid("R32", edited(R"("block": [32, 1, 1])", R"("block": [32, 1, 65])"),
                "manifest: graphs[0].launches[0].block[2]: expected an integer "
                "in [1, 64], found 65");
  expectInvalid("R32", edited(R"("block": [32, 1, 1])", R"("block": [1024, 2, 1])"),
                "manifest: graphs[0].launches[0].block: 2048 threads per block "
                "exceed 1024");
  expectInvalid("R33", edited(R"("shared_bytes": 0)", R"("shared_bytes": 4294967296)"),
                "manifest: graphs[0].launches[0].shared_bytes: expected a "
                "non-negative 32-bit integer");
  expectInvalid("R33", edited(R"("shared_bytes": 0)", R"("shared_bytes": -1)"),
                "manifest: graphs[0].launches[0].shared_bytes: expected a "
                "non-negative 32-bit integer");
  expectInvalid("R12", edited(R"("shared_bytes": 0, )", ""),
                "manifest: graphs[0].launches[0]: missing field 'shared_bytes'");
  // R60: `writes`, the arguments the kernel may write.
  const std::string lastArg = R"({"i32": 7}])";
  expectLoads(artifact(edited(lastArg, R"({"i32": 7}], "writes": [2, 1])")),
              "writes listing two buffers");
  expectLoads(artifact(edited(lastArg, R"({"i32": 7}], "writes": [])")),
              "writes listing nothing");
  expectInvalid("R60", edited(lastArg, R"({"i32": 7}], "writes": 2)"),
                "manifest: graphs[0].launches[0].writes: expected an array");
  expectInvalid("R60", edited(lastArg, R"({"i32": 7}], "writes": [5])"),
                "manifest: graphs[0].launches[0].writes[0]: expected the index "
                "of one of the launch's arguments, found 5");
  expectInvalid("R60", edited(lastArg, R"({"i32": 7}], "writes": [-1])"),
                "manifest: graphs[0].launches[0].writes[0]: expected the index");
  expectInvalid("R60", edited(lastArg, R"({"i32": 7}], "writes": [3])"),
                "manifest: graphs[0].launches[0].writes[0]: argument 3 is an "
                "integer, which a kernel cannot write");
  expectInvalid("R60", edited(lastArg, R"({"i32": 7}], "writes": [2, 2])"),
                "manifest: graphs[0].launches[0].writes[1]: argument 2 is "
                "listed twice");
}

/// A version-2 manifest whose launches take tensor maps over an input (of
/// exactly the bytes the map reaches), a workspace buffer and an output;
/// testTensorMaps edits it by one substitution per case.
const std::string kMapBase =
    R"({"format": "fkc-artifact", "version": 2, "target": "sm_90", )"
    R"("graphs": [{"name": "g", )"
    R"("inputs": [{"name": "x", "dtype": "f16", "shape": [64, 128]}], )"
    R"("outputs": [{"name": "y", "dtype": "f32", "shape": [4, 8]}], )"
    R"("workspace_bytes": 1000, )"
    R"("buffers": [{"id": 0, "kind": "input", "index": 0}, )"
    R"({"id": 1, "kind": "output", "index": 0}, )"
    R"({"id": 2, "kind": "workspace", "offset": 256, "bytes": 744}], )"
    R"("launches": [{"kernel": "m0", "grid": [1, 1, 1], "block": [32, 1, 1], )"
    R"("shared_bytes": 0, "args": [{"tensor_map": {"buffer": 0, )"
    R"("dtype": "f16", "dims": [128, 64], "strides": [256], "box": [64, 32], )"
    R"("swizzle": 128}}, {"buffer": 1}]}, )"
    R"({"kernel": "m1", "grid": [1, 1, 1], "block": [32, 1, 1], )"
    R"("shared_bytes": 0, "args": [{"i32": 1}, {"tensor_map": {"buffer": 2, )"
    R"("dtype": "f32", "dims": [8, 5, 2], "strides": [32, 160], )"
    R"("box": [4, 5, 1], "swizzle": 0}}, )"
    R"({"tensor_map": {"buffer": 1, "dtype": "f32", "dims": [32], )"
    R"("strides": [], "box": [32], "swizzle": 0}}]}]}]})";

/// kMapBase with its only occurrence of `from` replaced by `to`.
std::string mapEdited(const std::string &from, const std::string &to) {
  return replaced(kMapBase, from, to);
}

/// R12, R13, R34, R35 and R37 to R43: tensor map arguments.
void testTensorMaps() {
  // The first launch's map, the second launch's map over the workspace
  // buffer, and its map over the output.
  const std::string a0 = "manifest: graphs[0].launches[0].args[0].tensor_map";
  const std::string a1 = "manifest: graphs[0].launches[1].args[1].tensor_map";
  const std::string a2 = "manifest: graphs[0].launches[1].args[2].tensor_map";
  fkrt_module m = loadValid(artifact(kMapBase));
  CHECK_EQ(fkrt_manifest_version(m), 2);
  // The query reports the manifest's workspace_bytes, not the descriptors.
  CHECK_EQ(fkrt_manifest_workspace_bytes(m, 0), 1000u);
  fkrt_module_destroy(m);
  // The GPU tests' artifact loads here too.
  CHECK_EQ(fkrt_module_load_file(
               (std::string(FKRT_TEST_DATA_DIR) + "/tensor_map.ptx").c_str(),
               &m),
           FKRT_SUCCESS);
  CHECK_EQ(fkrt_manifest_graph_count(m), 2u);
  fkrt_module_destroy(m);

  // Every rank from 1 to 5 and every swizzle are accepted; bf16 too.
  std::string error;
  CHECK_EQ(load(artifact(mapEdited(
                    R"("dims": [8, 5, 2], "strides": [32, 160], "box": [4, 5, 1])",
                    R"("dims": [4, 2, 2, 2, 2], "strides": [16, 32, 64, 128], "box": [4, 2, 2, 2, 2])")),
                error),
           FKRT_SUCCESS);
  CHECK_EQ(load(artifact(mapEdited(R"("box": [64, 32], "swizzle": 128)",
                                   R"("box": [16, 32], "swizzle": 32)")),
                error),
           FKRT_SUCCESS);
  CHECK_EQ(load(artifact(mapEdited(R"("box": [64, 32], "swizzle": 128)",
                                   R"("box": [32, 32], "swizzle": 64)")),
                error),
           FKRT_SUCCESS);
  CHECK_EQ(load(artifact(mapEdited(R"("dtype": "f16", "dims")",
                                   R"("dtype": "bf16", "dims")")),
                error),
           FKRT_SUCCESS);
  // Unknown members inside the map are ignored, as everywhere.
  CHECK_EQ(load(artifact(mapEdited(R"("swizzle": 128})",
                                   R"("swizzle": 128, "note": 1})")),
                error),
           FKRT_SUCCESS);

  // Version 1 has no tensor maps.
  expectInvalid("R37", mapEdited(R"("version": 2)", R"("version": 1)"),
                "manifest: graphs[0].launches[0].args[0]: a 'tensor_map' "
                "argument needs artifact version 2, the manifest says "
                "version 1");
  expectInvalid("R34", mapEdited(R"({"buffer": 1}]})", R"({"f32": 1}]})"),
                "manifest: graphs[0].launches[0].args[1]: unknown argument "
                "kind 'f32' (expected 'buffer', 'i64', 'i32' or "
                "'tensor_map')");
  expectInvalid("R34", mapEdited(R"({"tensor_map": {"buffer": 0, )",
                          R"({"tensor_map": 3, "x": {"buffer": 0, )"),
                "manifest: graphs[0].launches[0].args[0]: expected an object "
                "with exactly one of 'buffer', 'i64', 'i32', 'tensor_map'");
  expectInvalid("R12", mapEdited(R"({"tensor_map": {"buffer": 1, "dtype": "f32", "dims": [32], "strides": [], "box": [32], "swizzle": 0}})",
                          R"({"tensor_map": [1]})"),
                a2 + ": expected an object");

  // buffer
  expectInvalid("R35", mapEdited(R"({"tensor_map": {"buffer": 0, )",
                          R"({"tensor_map": {"buffer": 42, )"),
                a0 + ".buffer: unknown buffer id 42");
  expectInvalid("R13", mapEdited(R"({"tensor_map": {"buffer": 0, )",
                          R"({"tensor_map": {"buffer": "0", )"),
                a0 + ".buffer: expected a buffer id");
  expectInvalid("R12", mapEdited(R"({"tensor_map": {"buffer": 0, )",
                          R"({"tensor_map": {)"),
                a0 + ": missing field 'buffer'");

  // dtype
  expectInvalid("R38", mapEdited(R"("dtype": "f16", "dims")",
                          R"("dtype": "i32", "dims")"),
                a0 + ".dtype: unsupported tensor map dtype \"i32\" "
                     "(expected one of f16, bf16, f32)");
  expectInvalid("R12", mapEdited(R"("dtype": "f16", "dims")", R"("dtype": 2, "dims")"),
                a0 + ".dtype: expected a string");

  // dims
  expectInvalid("R12", mapEdited(R"("dims": [128, 64], )", ""),
                a0 + ": missing field 'dims'");
  expectInvalid("R39", mapEdited(R"("dims": [128, 64])", R"("dims": [])"),
                a0 + ".dims: expected 1 to 5 dimensions, found 0");
  expectInvalid("R39", mapEdited(R"("dims": [128, 64])",
                          R"("dims": [128, 64, 1, 1, 1, 1])"),
                a0 + ".dims: expected 1 to 5 dimensions, found 6");
  expectInvalid("R39", mapEdited(R"("dims": [128, 64])", R"("dims": [128, 0])"),
                a0 + ".dims[1]: expected an integer in [1, 4294967296], "
                     "found 0");
  expectInvalid("R39", mapEdited(R"("dims": [128, 64])",
                          R"("dims": [4294967297, 1])"),
                a0 + ".dims[0]: expected an integer in [1, 4294967296], "
                     "found 4294967297");

  // strides
  expectInvalid("R40", mapEdited(R"("strides": [32, 160])", R"("strides": [32])"),
                a1 + ".strides: expected 2 strides (one per dimension after "
                     "the first), found 1");
  expectInvalid("R40", mapEdited(R"("strides": [], )", R"("strides": [16], )"),
                a2 + ".strides: expected 0 strides (one per dimension after "
                     "the first), found 1");
  expectInvalid("R40", mapEdited(R"("strides": [32, 160])", R"("strides": [8, 160])"),
                a1 + ".strides[0]: expected an integer in [16, 2^40), found 8");
  expectInvalid("R40", mapEdited(R"("strides": [32, 160])",
                          R"("strides": [32, 1099511627776])"),
                a1 + ".strides[1]: expected an integer in [16, 2^40), found "
                     "1099511627776");
  expectInvalid("R40", mapEdited(R"("strides": [32, 160])", R"("strides": [40, 160])"),
                a1 + ".strides[0]: stride 40 is not a multiple of 16");
  expectInvalid("R12", mapEdited(R"("strides": [256])", R"("strides": 256)"),
                a0 + ".strides: expected an array");

  // box
  expectInvalid("R41", mapEdited(R"("box": [4, 5, 1])", R"("box": [4, 5])"),
                a1 + ".box: expected 3 entries (one per dimension), found 2");
  expectInvalid("R41", mapEdited(R"("box": [4, 5, 1])", R"("box": [4, 257, 1])"),
                a1 + ".box[1]: expected an integer in [1, 256], found 257");
  expectInvalid("R41", mapEdited(R"("box": [4, 5, 1])", R"("box": [0, 5, 1])"),
                a1 + ".box[0]: expected an integer in [1, 256], found 0");
  expectInvalid("R41", mapEdited(R"("box": [64, 32])", R"("box": [12, 32])"),
                a0 + ".box[0]: 12 f16 elements are 24 bytes, not a multiple "
                     "of 16");
  expectInvalid("R41", mapEdited(R"("box": [4, 5, 1])", R"("box": [6, 5, 1])"),
                a1 + ".box[0]: 6 f32 elements are 24 bytes, not a multiple "
                     "of 16");

  // swizzle
  expectInvalid("R42", mapEdited(R"("swizzle": 128)", R"("swizzle": 16)"),
                a0 + ".swizzle: expected 0, 32, 64 or 128, found 16");
  expectInvalid("R42", mapEdited(R"("swizzle": 128)", R"("swizzle": 256)"),
                a0 + ".swizzle: expected 0, 32, 64 or 128, found 256");
  expectInvalid("R13", mapEdited(R"("swizzle": 128)", R"("swizzle": true)"),
                a0 + ".swizzle: expected 0, 32, 64 or 128");
  expectInvalid("R42", mapEdited(R"("swizzle": 128)", R"("swizzle": 64)"),
                a0 + ".box[0]: 64 f16 elements are 128 bytes, more than the "
                     "swizzle of 64");
  expectInvalid("R42", mapEdited(R"("box": [64, 32], "swizzle": 128)",
                          R"("box": [128, 32], "swizzle": 128)"),
                a0 + ".box[0]: 128 f16 elements are 256 bytes, more than the "
                     "swizzle of 128");
  expectInvalid("R13", mapEdited(R"("swizzle": 128)", R"("swizzle": 128.0)"),
                a0 + ".swizzle: expected 0, 32, 64 or 128");

  // The bytes a map reaches must lie in its buffer: the input's 16384, the
  // workspace buffer's 744, the output's 128.
  expectInvalid("R43", mapEdited(R"("dims": [128, 64])", R"("dims": [128, 65])"),
                a0 + ": the map reaches 16640 bytes (dims[0] * element size + "
                     "the sum of (dims[i] - 1) * strides[i - 1]), more than "
                     "the 16384 bytes of buffer 0");
  expectInvalid("R43", mapEdited(R"("dims": [128, 64], "strides": [256])",
                          R"("dims": [64, 64], "strides": [272])"),
                a0 + ": the map reaches 17264 bytes");
  expectInvalid("R43", mapEdited(R"("dims": [8, 5, 2])", R"("dims": [8, 5, 5])"),
                a1 + ": the map reaches 800 bytes");
  CHECK_EQ(load(artifact(mapEdited(R"("strides": [32, 160])",
                                   R"("strides": [32, 576])")),
                error),
           FKRT_SUCCESS);
  expectInvalid("R43", mapEdited(R"("strides": [32, 160])", R"("strides": [32, 592])"),
                a1 + ": the map reaches 752 bytes (dims[0] * element size + "
                     "the sum of (dims[i] - 1) * strides[i - 1]), more than "
                     "the 744 bytes of buffer 2");
  expectInvalid("R43", mapEdited(R"("dims": [32], )", R"("dims": [36], )"),
                a2 + ": the map reaches 144 bytes (dims[0] * element size + "
                     "the sum of (dims[i] - 1) * strides[i - 1]), more than "
                     "the 128 bytes of buffer 1");
  // Reaches beyond 2^63: one term alone, and a sum of terms that each fit
  // (2^63 - 2^27 + 2^40 - 16).
  expectInvalid("R43", mapEdited(R"("dims": [8, 5, 2], "strides": [32, 160])",
                          R"("dims": [8, 4294967296, 4294967296], )"
                          R"("strides": [1099511627760, 1099511627760])"),
                a1 + ": the map reaches more than 2^63 bytes");
  expectInvalid("R43", mapEdited(R"("dims": [8, 5, 2], "strides": [32, 160])",
                          R"("dims": [8, 8388609, 2], )"
                          R"("strides": [1099511627760, 1099511627760])"),
                a1 + ": the map reaches more than 2^63 bytes");

  // Without a driver, a run of a graph with tensor maps fails like any
  // other (the arguments are checked first).
  m = loadValid(artifact(kMapBase));
  int64_t xShape[] = {64, 128}, yShape[] = {4, 8};
  void *p = reinterpret_cast<void *>(uintptr_t(0x10000));
  void *q = reinterpret_cast<void *>(uintptr_t(0x80000));
  fkrt_tensor in[1] = {{p, FKRT_F16, 2, xShape}};
  fkrt_tensor out[1] = {{q, FKRT_F32, 2, yShape}};
  fkrt_status status = fkrt_run(m, "g", in, 1, out, 1, nullptr);
  CHECK_EQ(status, readyRunStatus());
  fkrt_module_destroy(m);
}

/// R44: every output with bytes is passed to a launch.
void testOutputs() {
  expectInvalid("R44", edited(R"({"buffer": 1}, {"i64": 32})", R"({"buffer": 0}, {"i64": 32})"),
                "manifest: graphs[0].outputs[0]: output \"y\" (128 bytes) is "
                "passed to no launch, so nothing writes it");
  // No launch at all, and an output without a buffer.
  expectInvalid("R44",
                R"({"format": "fkc-artifact", "version": 1, "target": "sm_90", )"
                R"("graphs": [{"name": "g", "inputs": [], )"
                R"("outputs": [{"name": "s", "dtype": "i1", "shape": []}], )"
                R"("workspace_bytes": 0, "buffers": [], "launches": []}]})",
                "manifest: graphs[0].outputs[0]: output \"s\" (1 byte) is "
                "passed to no launch");
  // The second output of two.
  expectInvalid("R44",
                edited(R"("outputs": [{"name": "y", "dtype": "f32", "shape": [4, 8]}], )",
                       R"("outputs": [{"name": "y", "dtype": "f32", "shape": [4, 8]}, )"
                       R"({"name": "z", "dtype": "bf16", "shape": [3]}], )"),
                "manifest: graphs[0].outputs[1]: output \"z\" (6 bytes) is "
                "passed to no launch");
  // i64 is parsed, 8 bytes an element.
  expectInvalid("R44",
                edited(R"("outputs": [{"name": "y", "dtype": "f32", "shape": [4, 8]}], )",
                       R"("outputs": [{"name": "y", "dtype": "f32", "shape": [4, 8]}, )"
                       R"({"name": "z", "dtype": "i64", "shape": [3]}], )"),
                "manifest: graphs[0].outputs[1]: output \"z\" (24 bytes) is "
                "passed to no launch");
  // An output without elements needs no launch (fkc emits none for it).
  expectLoads(artifact(edited(
                  R"("outputs": [{"name": "y", "dtype": "f32", "shape": [4, 8]}], )",
                  R"("outputs": [{"name": "y", "dtype": "f32", "shape": [4, 8]}, )"
                  R"({"name": "z", "dtype": "f32", "shape": [0, 8]}], )")),
              "an empty output passed to no launch");
  // An output passed only as a tensor map's buffer is passed.
  expectLoads(artifact(mapEdited(R"({"buffer": 1}]}, )", R"({"buffer": 0}]}, )")),
              "an output passed only through a tensor map");
}

/// R50 to R52: outputs aliasing inputs (inout parameters), version 3.
void testAliases() {
  const std::string output =
      R"("outputs": [{"name": "y", "dtype": "f32", "shape": [4, 8]}], )";
  auto aliased = [&](const std::string &version, const std::string &entry) {
    return replaced(edited(output, R"("outputs": [)" + entry + "], "),
                    R"("version": 1)", R"("version": )" + version);
  };
  const std::string alias =
      R"({"name": "y", "dtype": "f32", "shape": [4, 8], "aliases": 0})";
  std::string ok = aliased("3", alias);
  expectLoads(artifact(ok), "an output aliasing its input");
  fkrt_module m = nullptr;
  CHECK_EQ(fkrt_module_load_memory(artifact(ok).data(), artifact(ok).size(), &m),
           FKRT_SUCCESS);
  CHECK_EQ(fkrt_manifest_version(m), 3);
  // fkrt_run: the aliased output is passed its input's buffer, nothing else.
  int64_t shape[] = {4, 8};
  void *x = reinterpret_cast<void *>(uintptr_t(0x10000));
  void *elsewhere = reinterpret_cast<void *>(uintptr_t(0x20000));
  fkrt_tensor in[1] = {{x, FKRT_F32, 2, shape}};
  fkrt_tensor out[1] = {{elsewhere, FKRT_F32, 2, shape}};
  CHECK_EQ(fkrt_run(m, "g", in, 1, out, 1, nullptr),
           FKRT_ERROR_INVALID_ARGUMENT);
  CHECK(std::strstr(fkrt_last_error(),
                    "fkrt_run: graph 'g' output 0 ('y') is the new value of "
                    "inout input 0 ('x'), written in place: pass it that "
                    "input's buffer"));
  out[0].data = x;
  CHECK(fkrt_run(m, "g", in, 1, out, 1, nullptr) !=
        FKRT_ERROR_INVALID_ARGUMENT);
  fkrt_module_destroy(m);
  expectInvalid("R50", aliased("2", alias),
                "manifest: graphs[0].outputs[0].aliases: an output aliasing "
                "an input needs artifact version 3, the manifest says "
                "version 2");
  expectInvalid("R51",
                aliased("3", R"({"name": "y", "dtype": "f32", "shape": [4, 8], "aliases": 1})"),
                "manifest: graphs[0].outputs[0].aliases: expected an input "
                "index");
  expectInvalid("R51",
                aliased("3", R"({"name": "y", "dtype": "f32", "shape": [4, 8], "aliases": "x"})"),
                "manifest: graphs[0].outputs[0].aliases: expected an input "
                "index");
  expectInvalid("R51",
                aliased("3", R"({"name": "y", "dtype": "f16", "shape": [4, 8], "aliases": 0})"),
                "manifest: graphs[0].outputs[0].aliases: output \"y\" "
                "aliases input \"x\" of another dtype or shape");
  expectInvalid("R51",
                aliased("3", R"({"name": "y", "dtype": "f32", "shape": [8, 4], "aliases": 0})"),
                "of another dtype or shape");
  expectInvalid("R52",
                aliased("3", alias + R"(, {"name": "z", "dtype": "f32", "shape": [4, 8], "aliases": 0})"),
                "manifest: graphs[0].outputs[1].aliases: input \"x\" is "
                "aliased by outputs 0 and 1");
}

/// A graph with symbols (version 4): kBase with x of shape [B, S, 8], y of
/// [B*S, 8], a grid and two arguments computed per run.
const std::string kSymbolic = replaced(
    replaced(
        replaced(
            replaced(
                replaced(edited(R"("version": 1)", R"("version": 4)"),
                         R"("name": "g", )",
                         R"("name": "g", "symbols": [{"name": "S", "max": 64}, {"name": "B"}], )"),
                R"("shape": [4, 8]}], "outputs")",
                R"("shape": ["B", "S", 8]}], "outputs")"),
            R"("shape": [4, 8]}], "workspace_bytes")",
            R"("shape": ["B*S", 8]}], "workspace_bytes")"),
        R"("grid": [1, 1, 1])", R"("grid": [{"ceil_div": ["B*S", 4]}, 1, 1])"),
    R"({"i64": 32}, {"i32": 7})", R"({"i64": "B*S"}, {"i32": {"mul": ["S", 8]}})");

/// kSymbolic with its only occurrence of `from` replaced by `to`.
std::string symbolicEdited(const std::string &from, const std::string &to) {
  return replaced(kSymbolic, from, to);
}

/// R53 to R58 and fkrt_run's checks of a run's sizes.
void testSymbols() {
  fkrt_module m = loadValid(artifact(kSymbolic));
  if (!m)
    return;
  CHECK_EQ(fkrt_manifest_version(m), 4);
  CHECK_EQ(fkrt_manifest_symbol_count(m, 0), 2u);
  CHECK(std::strcmp(fkrt_manifest_symbol_name(m, 0, 0), "S") == 0);
  CHECK(std::strcmp(fkrt_manifest_symbol_name(m, 0, 1), "B") == 0);
  CHECK(fkrt_manifest_symbol_name(m, 0, 2) == nullptr);
  CHECK_EQ(fkrt_manifest_symbol_max(m, 0, 0), 64);
  CHECK_EQ(fkrt_manifest_symbol_max(m, 0, 1), -1);
  CHECK_EQ(fkrt_manifest_symbol_count(m, 1), 0u);
  CHECK(std::strcmp(fkrt_manifest_input_dim(m, 0, 0, 1), "S") == 0);
  CHECK(fkrt_manifest_input_dim(m, 0, 0, 2) == nullptr);
  CHECK(fkrt_manifest_input_dim(m, 0, 0, 3) == nullptr);
  CHECK(std::strcmp(fkrt_manifest_output_dim(m, 0, 0, 0), "B*S") == 0);
  fkrt_tensor_info info;
  CHECK_EQ(fkrt_manifest_output(m, 0, 0, &info), FKRT_SUCCESS);
  CHECK_EQ(info.rank, 2);
  CHECK_EQ(info.shape[0], -1);
  CHECK_EQ(info.shape[1], 8);
  CHECK_EQ(info.bytes, 0u);

  int64_t xShape[] = {2, 5, 8}, yShape[] = {10, 8};
  void *x = reinterpret_cast<void *>(uintptr_t(0x10000));
  void *y = reinterpret_cast<void *>(uintptr_t(0x80000));
  fkrt_tensor in[1] = {{x, FKRT_F32, 3, xShape}};
  fkrt_tensor out[1] = {{y, FKRT_F32, 2, yShape}};
  int64_t shape[2] = {0, 0};
  CHECK_EQ(fkrt_output_shape(m, "g", in, 1, 0, shape), FKRT_SUCCESS);
  CHECK_EQ(shape[0], 10);
  CHECK_EQ(shape[1], 8);
  CHECK_EQ(fkrt_output_shape(m, "g", in, 1, 1, shape),
           FKRT_ERROR_INVALID_ARGUMENT);
  CHECK(std::strstr(fkrt_last_error(),
                    "fkrt_output_shape: graph 'g' has 1 outputs, index 1"));

  auto run = [&] { return fkrt_run(m, "g", in, 1, out, 1, nullptr); };
  // Valid sizes reach the driver; so do sizes without elements, whose
  // launch (a grid of 0 blocks) is skipped.
  fkrt_status ready = readyRunStatus();
  CHECK_EQ(run(), ready);
  xShape[0] = 0;
  yShape[0] = 0;
  CHECK_EQ(run(), ready);
  xShape[0] = 2;
  yShape[0] = 10;
  // A symbol above its bound, a dimension that is not a size, a dimension
  // that disagrees with the symbols.
  xShape[1] = 65;
  expectStatus(run(), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'g' input 0 ('x') dimension 1 makes S 65, above "
         "its bound 64");
  xShape[1] = 5;
  xShape[0] = -1;
  expectStatus(run(), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'g' input 0 ('x'): dimension 0 is -1, not a size");
  xShape[0] = 2;
  yShape[0] = 11;
  expectStatus(run(), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'g' output 0 ('y'): dimension 0 is 11, expected "
         "B*S = 10 (S = 5 from input 0 ('x') dimension 1, B = 2 from input 0 "
         "('x') dimension 0)");
  yShape[0] = 10;
  yShape[1] = 9;
  expectStatus(run(), FKRT_ERROR_INVALID_ARGUMENT,
         "output 0 ('y'): dimension 1 is 9, expected 8");
  yShape[1] = 8;
  // Sizes whose bytes, grid or i32 argument do not fit.
  xShape[0] = int64_t(1) << 60;
  yShape[0] = xShape[0] * 5;
  expectStatus(run(), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'g' input 0 ('x'): its size overflows 64 bits");
  fkrt_module_destroy(m);
  std::string unbounded = artifact(
      symbolicEdited(R"({"name": "S", "max": 64})", R"({"name": "S"})"));
  CHECK_EQ(fkrt_module_load_memory(unbounded.data(), unbounded.size(), &m),
           FKRT_SUCCESS);
  // x far above y, so that these sizes do not make them overlap.
  in[0].data = reinterpret_cast<void *>(uintptr_t(0x7000000000000));
  out[0].data = x;
  xShape[0] = 1;
  xShape[1] = 300000000;
  yShape[0] = 300000000;
  expectStatus(run(), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'g' launch 0 (kernel 'k0') argument 4 is "
         "2400000000 at these sizes, outside the i32 it is passed as");
  xShape[0] = 20000;
  yShape[0] = int64_t(20000) * 300000000;
  expectStatus(run(), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'g' launch 0 (kernel 'k0'): grid x is "
         "1500000000000 at these sizes, outside CUDA's [0, 2147483647]");
  fkrt_module_destroy(m);

  // R53: symbolic dimensions.
  const std::string x0 = "manifest: graphs[0].inputs[0].shape[0]: ";
  expectInvalid("R53", symbolicEdited(R"(["B", "S", 8])", R"(["T", "S", 8])"),
                x0 + "\"T\" is not a product of the graph's symbols: unknown "
                     "symbol 'T'");
  expectInvalid("R53", symbolicEdited(R"(["B", "S", 8])", R"(["2*", "S", 8])"),
                x0 + "\"2*\" is not a product of the graph's symbols: "
                     "expected a factor at the end");
  expectInvalid("R53", symbolicEdited(R"(["B", "S", 8])", R"(["B+1", "S", 8])"),
                "expected '*', found '+'");
  expectInvalid("R53", symbolicEdited(R"(["B", "S", 8])", R"(["B*-1", "S", 8])"),
                "unexpected character '-'");
  expectInvalid("R53", symbolicEdited(R"(["B", "S", 8])", R"(["0*B", "S", 8])"),
                "a factor must be a positive integer");
  expectInvalid("R53", symbolicEdited(R"(["B", "S", 8])", R"(["8", "S", 8])"),
                "names no symbol (a static size is written as an integer)");
  expectInvalid("R53",
                replaced(kSymbolic, R"("version": 4)", R"("version": 3)"),
                "manifest: graphs[0].symbols: symbols need artifact version "
                "4, the manifest says version 3");
  // R54: sizes computed per run.
  const std::string grid = "manifest: graphs[0].launches[0].grid[0]";
  expectInvalid("R54",
                symbolicEdited(R"({"ceil_div": ["B*S", 4]})",
                               R"({"floor_div": ["B*S", 4]})"),
                grid + ": unknown size operation 'floor_div'");
  expectInvalid("R54",
                symbolicEdited(R"({"ceil_div": ["B*S", 4]})",
                               R"({"ceil_div": ["B*S"]})"),
                grid + ".ceil_div: expected 2 operands, found 1");
  expectInvalid("R54",
                symbolicEdited(R"({"ceil_div": ["B*S", 4]})",
                               R"({"max": ["B*S"]})"),
                grid + ".max: expected at least 2 operands, found 1");
  expectInvalid("R54",
                symbolicEdited(R"({"ceil_div": ["B*S", 4]})",
                               R"({"add": "S"})"),
                grid + ".add: expected an array of operands");
  expectInvalid("R54",
                symbolicEdited(R"({"ceil_div": ["B*S", 4]})",
                               R"({"min": ["B*S", {"mul": ["T", 2]}]})"),
                grid + ".min[1].mul[0]: \"T\" is not a product");
  expectInvalid("R54", symbolicEdited(R"({"i64": "B*S"})", R"({"i64": [1]})"),
                "manifest: graphs[0].launches[0].args[3].i64: expected an "
                "integer, a symbolic dimension or an object with one of");
  // R55 to R57: the symbols.
  expectInvalid("R55",
                symbolicEdited(R"("symbols": [{"name": "S", "max": 64}, {"name": "B"}])",
                               R"("symbols": {"S": 64})"),
                "manifest: graphs[0].symbols: expected an array");
  expectInvalid("R55",
                symbolicEdited(R"({"name": "B"})", R"("B")"),
                "manifest: graphs[0].symbols[1]: expected an object");
  expectInvalid("R56", symbolicEdited(R"({"name": "B"})", R"({"name": "2B"})"),
                "manifest: graphs[0].symbols[1].name: \"2B\" is not an "
                "identifier");
  expectInvalid("R56", symbolicEdited(R"({"name": "B"})", R"({"name": "S"})"),
                "manifest: graphs[0].symbols[1].name: duplicate symbol \"S\"");
  expectInvalid("R57",
                symbolicEdited(R"({"name": "S", "max": 64})",
                               R"({"name": "S", "max": -1})"),
                "manifest: graphs[0].symbols[0].max: expected a non-negative "
                "integer, found -1");
  expectInvalid("R57",
                symbolicEdited(R"({"name": "S", "max": 64})",
                               R"({"name": "S", "max": 64, "min": 65})"),
                "manifest: graphs[0].symbols[0].min: expected an integer "
                "from 0 to the symbol's max, found 65");
  expectInvalid("R57",
                symbolicEdited(R"({"name": "B"})",
                               R"({"name": "B", "min": -2})"),
                "manifest: graphs[0].symbols[1].min: expected a non-negative "
                "integer, found -2");
  // A lower bound (`where 2 <= S`) rejects smaller sizes.
  std::string lower = artifact(symbolicEdited(
      R"({"name": "S", "max": 64})", R"({"name": "S", "max": 64, "min": 2})"));
  CHECK_EQ(fkrt_module_load_memory(lower.data(), lower.size(), &m),
           FKRT_SUCCESS);
  if (m) {
    CHECK_EQ(fkrt_manifest_symbol_min(m, 0, 0), 2);
    CHECK_EQ(fkrt_manifest_symbol_min(m, 0, 1), 0);
    CHECK_EQ(fkrt_manifest_symbol_min(m, 0, 2), -1);
    in[0].data = x;
    out[0].data = y;
    xShape[0] = 2;
    xShape[1] = 1;
    yShape[0] = 2;
    yShape[1] = 8;
    expectStatus(run(), FKRT_ERROR_INVALID_ARGUMENT,
                 "fkrt_run: graph 'g' input 0 ('x') dimension 1 makes S 1, "
                 "below its lower bound 2");
    fkrt_module_destroy(m);
  }
  // R58: each symbol is an input's dimension by itself.
  expectInvalid("R58",
                symbolicEdited(R"(["B", "S", 8])", R"(["B*S", 8])"),
                "manifest: graphs[0].symbols[0]: symbol \"S\" is no input's "
                "dimension by itself, so a run cannot give its size");

  // Sizes computed per run in a graph without symbols are still planned
  // per run: a constant grid outside CUDA's limits fails the run.
  std::string constantGrid = artifact(replaced(
      edited(R"("version": 1)", R"("version": 4)"), R"("grid": [1, 1, 1])",
      R"("grid": [{"mul": [65536, 65536]}, 1, 1])"));
  CHECK_EQ(fkrt_module_load_memory(constantGrid.data(), constantGrid.size(),
                                   &m),
           FKRT_SUCCESS);
  int64_t shape48[] = {4, 8};
  fkrt_tensor sin[1] = {{x, FKRT_F32, 2, shape48}};
  fkrt_tensor sout[1] = {{y, FKRT_F32, 2, shape48}};
  expectStatus(fkrt_run(m, "g", sin, 1, sout, 1, nullptr),
               FKRT_ERROR_INVALID_ARGUMENT,
               "fkrt_run: graph 'g' launch 0 (kernel 'k0'): grid x is "
               "4294967296 at these sizes, outside CUDA's [0, 2147483647]");
  fkrt_module_destroy(m);
}

/// kSymbolic at version 5, S without a bound, two launches of k0, and
/// workspace buffer 2 placed per run: 4 * B * S bytes, used by launch 1.
const std::string kRunPlaced = replaced(
    replaced(
        replaced(
            replaced(kSymbolic, R"("version": 4)", R"("version": 5)"),
            R"({"name": "S", "max": 64})", R"({"name": "S"})"),
        R"({"id": 2, "kind": "workspace", "offset": 256, "bytes": 1024})",
        R"({"id": 2, "kind": "workspace", "bytes": {"mul": [4, "B*S"]}, "live": [1, 1]})"),
    R"("launches": [{"kernel": "k0", "grid": [{"ceil_div": ["B*S", 4]}, 1, 1], "block": [32, 1, 1], "shared_bytes": 0, "args": [{"buffer": 0}, {"buffer": 2}, )",
    R"("launches": [{"kernel": "k0", "grid": [1, 1, 1], "block": [32, 1, 1], "shared_bytes": 0, "args": [{"buffer": 0}, {"buffer": 1}, {"buffer": 1}, {"i64": 1}, {"i32": 1}]}, )"
    R"({"kernel": "k0", "grid": [{"ceil_div": ["B*S", 4]}, 1, 1], "block": [32, 1, 1], "shared_bytes": 0, "args": [{"buffer": 0}, {"buffer": 2}, )");

/// R61, R62 and a run's layout of the buffers it places: each fits its
/// bytes at the run's sizes.
void testRunPlacedBuffers() {
  fkrt_module m = loadValid(artifact(kRunPlaced));
  if (!m)
    return;
  CHECK_EQ(fkrt_manifest_version(m), 5);
  // The bytes placed when compiled; the rest are the run's.
  CHECK_EQ(fkrt_manifest_workspace_bytes(m, 0), 8192u);
  int64_t xShape[] = {2, 5, 8}, yShape[] = {10, 8};
  fkrt_tensor in[1] = {
      {reinterpret_cast<void *>(uintptr_t(0x10000)), FKRT_F32, 3, xShape}};
  fkrt_tensor out[1] = {
      {reinterpret_cast<void *>(uintptr_t(0x80000)), FKRT_F32, 2, yShape}};
  auto run = [&] { return fkrt_run(m, "g", in, 1, out, 1, nullptr); };
  fkrt_status ready = readyRunStatus();
  CHECK_EQ(run(), ready);
  fkrt_module_destroy(m);
  // Sizes at which a buffer's bytes overflow or are negative fail the run.
  for (auto [bytes, message] :
       {std::pair<std::string, std::string>{
            R"({"mul": [4611686018427387904, "B"]})",
            "fkrt_run: graph 'g': workspace buffer 2's bytes overflow 64 "
            "bits at these sizes"},
        {R"({"add": ["B", -5]})",
         "fkrt_run: graph 'g': workspace buffer 2's bytes are -3 at these "
         "sizes"}}) {
    m = loadValid(artifact(replaced(kRunPlaced, R"({"mul": [4, "B*S"]})", bytes)));
    if (!m)
      continue;
    expectStatus(run(), FKRT_ERROR_INVALID_ARGUMENT, message.c_str());
    fkrt_module_destroy(m);
  }

  auto edit = [&](const std::string &from, const std::string &to) {
    return replaced(kRunPlaced, from, to);
  };
  const std::string buffer = "manifest: graphs[0].buffers[2]";
  // R61: only from version 5, with a size and a lifetime.
  expectInvalid("R61", edit(R"("version": 5)", R"("version": 4)"),
                buffer + ": missing field 'offset'");
  expectInvalid("R61", edit(R"({"mul": [4, "B*S"]})", R"("T")"),
                buffer + ".bytes: \"T\" is not a product of the graph's "
                         "symbols: unknown symbol 'T'");
  expectInvalid("R61", edit(R"(, "live": [1, 1])", ""),
                buffer + ": missing field 'live'");
  expectInvalid("R61", edit(R"("live": [1, 1])", R"("live": [1])"),
                buffer + ".live: expected [first, last], the launches that "
                         "use the buffer, found 1 entries");
  expectInvalid("R61", edit(R"("live": [1, 1])", R"("live": [-1, 1])"),
                buffer + ".live[0]: expected a launch index, found -1");
  expectInvalid("R61", edit(R"("live": [1, 1])", R"("live": [1, 0])"),
                buffer + ".live[1]: expected a launch index >= live[0], "
                         "found 0");
  // R62: within the graph's launches, and covering every use.
  expectInvalid("R62", edit(R"("live": [1, 1])", R"("live": [1, 2])"),
                buffer + ".live: launch 2 is past the graph's 2 launches");
  expectInvalid("R62", edit(R"("live": [1, 1])", R"("live": [0, 0])"),
                "manifest: graphs[0].launches[1]: uses buffer 2 outside its "
                "lifetime, launches 0 to 0");
  expectInvalid("R62",
                edit(R"({"buffer": 0}, {"buffer": 1}, {"buffer": 1})",
                     R"({"buffer": 0}, {"buffer": 2}, {"buffer": 1})"),
                "manifest: graphs[0].launches[0]: uses buffer 2 outside its "
                "lifetime, launches 1 to 1");
}

/// kRunPlaced at version 6, its second launch limited to B*S <= 12.
const std::string kLimited = replaced(
    replaced(kRunPlaced, R"("version": 5)", R"("version": 6)"),
    R"({"kernel": "k0", "grid": [{"ceil_div": ["B*S", 4]}, 1, 1], )",
    R"({"kernel": "k0", "limits": [{"size": "B*S", "max": 12}], "grid": [{"ceil_div": ["B*S", 4]}, 1, 1], )");

/// R63 and a run's check of a launch's limits: a run above one fails
/// before anything is enqueued, unless the launch is skipped.
void testLaunchLimits() {
  fkrt_module m = loadValid(artifact(kLimited));
  if (!m)
    return;
  CHECK_EQ(fkrt_manifest_version(m), 6);
  int64_t xShape[] = {2, 6, 8}, yShape[] = {12, 8};
  fkrt_tensor in[1] = {
      {reinterpret_cast<void *>(uintptr_t(0x10000)), FKRT_F32, 3, xShape}};
  fkrt_tensor out[1] = {
      {reinterpret_cast<void *>(uintptr_t(0x80000)), FKRT_F32, 2, yShape}};
  auto run = [&] { return fkrt_run(m, "g", in, 1, out, 1, nullptr); };
  fkrt_status ready = readyRunStatus();
  CHECK_EQ(run(), ready);
  xShape[1] = 7;
  yShape[0] = 14;
  expectStatus(run(), FKRT_ERROR_INVALID_ARGUMENT,
               "fkrt_run: graph 'g' launch 1 (kernel 'k0'): B*S is 14 at "
               "these sizes, above the 12 its kernel takes");
  // Without elements the limited launch is skipped; so is its limit.
  xShape[0] = 0;
  yShape[0] = 0;
  CHECK_EQ(run(), ready);
  fkrt_module_destroy(m);
  // A limited size that overflows where the tensors' sizes do not.
  m = loadValid(artifact(
      replaced(kLimited, R"({"size": "B*S", "max": 12})",
               R"({"size": "B*S*S*S*S*S", "max": 9223372036854775807})")));
  if (m) {
    xShape[0] = 2;
    xShape[1] = 7000;
    yShape[0] = 14000;
    expectStatus(run(), FKRT_ERROR_INVALID_ARGUMENT,
                 "fkrt_run: graph 'g' launch 1 (kernel 'k0'): B*S*S*S*S*S "
                 "overflows 64 bits at these sizes (at most the "
                 "9223372036854775807 its kernel takes)");
    fkrt_module_destroy(m);
  }

  const std::string limits = "manifest: graphs[0].launches[1].limits";
  auto edit = [&](const std::string &from, const std::string &to) {
    return replaced(kLimited, from, to);
  };
  expectInvalid("R63", edit(R"("version": 6)", R"("version": 5)"),
                limits + ": a launch's limits need artifact version 6, the "
                         "manifest says version 5");
  expectInvalid("R63", edit(R"([{"size": "B*S", "max": 12}])", "{}"),
                limits + ": expected an array");
  expectInvalid("R63", edit(R"({"size": "B*S", "max": 12})", "12"),
                limits + "[0]: expected an object");
  expectInvalid("R63", edit(R"("size": "B*S", )", ""),
                limits + "[0]: missing field 'size'");
  expectInvalid("R63", edit(R"("size": "B*S")", R"("size": "T")"),
                limits + "[0].size: \"T\" is not a product of the graph's "
                         "symbols: unknown symbol 'T'");
  expectInvalid("R63", edit(R"("size": "B*S")", R"("size": "12")"),
                limits + "[0].size: \"12\" is not a product of the graph's "
                         "symbols: names no symbol (a static size is written "
                         "as an integer)");
  expectInvalid("R63", edit(R"("size": "B*S")", R"("size": {"mul": ["B", "S"]})"),
                limits + "[0].size: expected a symbolic dimension");
  expectInvalid("R63", edit(R"("max": 12)", R"("max": -1)"),
                limits + "[0].max: expected a non-negative integer, found -1");
}

/// R64: a persistent kernel's launch, and the blocks a device of another
/// SM count launches for it (PersistentGrid.h).
void testPersistentLaunches() {
  const std::string persistent = replaced(
      kBase, R"("shared_bytes": 0, )",
      R"("shared_bytes": 0, "persistent": {"sm_count": 4, )"
      R"("cluster_blocks": 1}, )");
  if (fkrt_module m = loadValid(artifact(persistent))) {
    CHECK_EQ(fkrt_manifest_persistent_sm_count(m), 4);
    fkrt_module_destroy(m);
  }
  if (fkrt_module m = loadValid(artifact(kBase))) {
    CHECK_EQ(fkrt_manifest_persistent_sm_count(m), 0);
    fkrt_module_destroy(m);
  }
  CHECK_EQ(fkrt_manifest_persistent_sm_count(nullptr), 0);
  auto edit = [&](const std::string &from, const std::string &to) {
    return replaced(persistent, from, to);
  };
  const std::string path = "manifest: graphs[0].launches[0]";
  expectInvalid("R64", edit(R"({"sm_count": 4, "cluster_blocks": 1})", "4"),
                path + ".persistent: expected an object");
  expectInvalid("R64", edit(R"("sm_count": 4)", R"("sm_count": 0)"),
                path + ".persistent.sm_count: expected an integer in [1, "
                       "2147483647], found 0");
  expectInvalid("R64", edit(R"("cluster_blocks": 1)", R"("cluster_blocks": 17)"),
                path + ".persistent.cluster_blocks: expected an integer in "
                       "[1, 16], found 17");
  expectInvalid("R64", edit(R"(, "cluster_blocks": 1)", ""),
                path + ".persistent: missing field 'cluster_blocks'");
  expectInvalid("R64", edit(R"("grid": [1, 1, 1])", R"("grid": [1, 2, 1])"),
                path + ".grid: a persistent kernel's grid is [x, 1, 1]");
  expectInvalid("R64", edit(R"("grid": [1, 1, 1])", R"("grid": [5, 1, 1])"),
                path + ".grid[0]: 5 blocks, more than the sm_count of 4");
  expectInvalid("R64",
                edit(R"("cluster_blocks": 1)", R"("cluster_blocks": 2)"),
                path + ".grid[0]: 1 blocks, not whole clusters of 2");
  // A grid computed per run (version 4): blocks of their own only, and
  // still [x, 1, 1].
  auto sized = [&](const std::string &grid, const std::string &cluster) {
    return replaced(
        replaced(replaced(replaced(persistent, R"("version": 1)",
                                   R"("version": 4)"),
                          R"("name": "g", )",
                          R"("name": "g", "symbols": [{"name": "N"}], )"),
                 R"("shape": [4, 8]}], "outputs")",
                 R"("shape": ["N", 8]}], "outputs")"),
        R"("grid": [1, 1, 1], "block": [32, 1, 1], "shared_bytes": 0, )"
        R"("persistent": {"sm_count": 4, "cluster_blocks": 1})",
        R"("grid": )" + grid +
            R"(, "block": [32, 1, 1], "shared_bytes": 0, )"
            R"("persistent": {"sm_count": 4, "cluster_blocks": )" +
            cluster + "}");
  };
  if (fkrt_module m = loadValid(artifact(sized(R"([{"min": ["N", 4]}, 1, 1])", "1"))))
    fkrt_module_destroy(m);
  expectInvalid("R64", sized(R"([{"min": ["N", 4]}, 1, 1])", "2"),
                path + ".grid[0]: a persistent kernel in clusters of 2 has a "
                       "grid of integers, not one computed per run");
  expectInvalid("R64", sized(R"([{"min": ["N", 4]}, "N", 1])", "1"),
                path + ".grid: a persistent kernel's grid is [x, 1, 1]");

  using fkrt::getPersistentBlocks;
  // Compiled for 132 SMs: a grid that reached them becomes one per SM of
  // the device, fewer or more.
  CHECK_EQ(getPersistentBlocks(132, 132, 1, 114), 114u);
  CHECK_EQ(getPersistentBlocks(132, 132, 1, 132), 132u);
  CHECK_EQ(getPersistentBlocks(114, 114, 1, 132), 132u);
  // Whole clusters: an odd device count leaves an SM out.
  CHECK_EQ(getPersistentBlocks(132, 132, 2, 113), 112u);
  // At least one cluster, even where the device could not hold it (the
  // driver then refuses the launch).
  CHECK_EQ(getPersistentBlocks(132, 132, 2, 1), 2u);
  // Fewer tiles than the compiled SMs: as many blocks, at most the device's.
  CHECK_EQ(getPersistentBlocks(48, 132, 2, 114), 48u);
  CHECK_EQ(getPersistentBlocks(120, 132, 2, 78), 78u);
  CHECK_EQ(getPersistentBlocks(7, 132, 1, 132), 7u);
  // Not persistent, an unknown device, a launch without blocks.
  CHECK_EQ(getPersistentBlocks(200, 0, 1, 114), 200u);
  CHECK_EQ(getPersistentBlocks(132, 132, 1, 0), 132u);
  CHECK_EQ(getPersistentBlocks(0, 132, 1, 114), 0u);
}

/// kMapBase at version 4 with a symbol N: x is [N, 128] and its map's
/// outer extent is N; the first launch's grid, min(N, 1), has no blocks at
/// N = 0.
const std::string kSymbolicMap = replaced(
    replaced(
        replaced(
            replaced(replaced(kMapBase, R"("version": 2)", R"("version": 4)"),
                     R"("name": "g", )",
                     R"("name": "g", "symbols": [{"name": "N"}], )"),
            R"("shape": [64, 128])", R"("shape": ["N", 128])"),
        R"("dims": [128, 64])", R"("dims": [128, "N"])"),
    R"("m0", "grid": [1, 1, 1])", R"("m0", "grid": [{"min": ["N", 1]}, 1, 1])");

/// kSymbolicMap with its only occurrence of `from` replaced by `to`.
std::string symbolicMapEdited(const std::string &from, const std::string &to) {
  return replaced(kSymbolicMap, from, to);
}

/// R39, R40, R43, R54 and R59 for tensor maps sized per run (version 4),
/// and fkrt_run's checks of them at a run's sizes.
void testSymbolicTensorMaps() {
  const std::string a0 = "manifest: graphs[0].launches[0].args[0].tensor_map";
  const std::string a1 = "manifest: graphs[0].launches[1].args[1].tensor_map";
  expectLoads(artifact(kSymbolicMap), "a map with a dim computed per run");
  // Over a tensor of symbolic shape with integer extents, or with every
  // kind of size computed per run.
  expectLoads(artifact(symbolicMapEdited(R"("dims": [128, "N"])",
                                         R"("dims": [128, 64])")),
              "a static map over a symbolic tensor");
  expectLoads(artifact(symbolicMapEdited(
                  R"("dims": [8, 5, 2], "strides": [32, 160])",
                  R"("dims": [{"ceil_div": ["N", 8]}, {"max": [5, "N"]}, 2], )"
                  R"("strides": [{"mul": ["N", 16]}, {"add": ["2*N", 32]}])")),
              "a map of sizes computed per run over a workspace buffer");

  // R59: before version 4, dims and strides are integers.
  expectInvalid("R59", mapEdited(R"("dims": [128, 64])",
                                 R"("dims": [128, {"mul": [32, 2]}])"),
                a0 + ".dims[1]: a tensor map's dims and strides computed per "
                     "run need artifact version 4, the manifest says version "
                     "2");
  expectInvalid("R59",
                replaced(mapEdited(R"("strides": [32, 160])",
                                   R"("strides": ["N", 160])"),
                         R"("version": 2)", R"("version": 3)"),
                a1 + ".strides[0]: a tensor map's dims and strides computed "
                     "per run need artifact version 4, the manifest says "
                     "version 3");
  expectInvalid("R13",
                mapEdited(R"("dims": [128, 64])", R"("dims": [128, 6.4])"),
                a0 + ".dims[1]: expected an integer in [1, 4294967296]");
  // R54: a size computed per run that is not one.
  expectInvalid("R54",
                symbolicMapEdited(R"("dims": [128, "N"])",
                                  R"("dims": [128, {"floor_div": ["N", 2]}])"),
                a0 + ".dims[1]: unknown size operation 'floor_div'");
  expectInvalid("R54",
                symbolicMapEdited(R"("dims": [128, "N"])",
                                  R"("dims": [128, "M"])"),
                a0 + ".dims[1]: \"M\" is not a product of the graph's symbols: "
                     "unknown symbol 'M'");
  expectInvalid("R54",
                symbolicMapEdited(R"("strides": [32, 160])",
                                  R"("strides": [32, true])"),
                a1 + ".strides[1]: expected an integer, a symbolic dimension "
                     "or an object with one of");
  // R39, R40: integer entries are checked when the manifest is read, as in
  // older versions.
  expectInvalid("R39",
                symbolicMapEdited(R"("dims": [128, "N"])",
                                  R"("dims": [0, "N"])"),
                a0 + ".dims[0]: expected an integer in [1, 4294967296], found "
                     "0");
  expectInvalid("R40",
                symbolicMapEdited(R"("strides": [32, 160])",
                                  R"("strides": ["N", 40])"),
                a1 + ".strides[1]: stride 40 is not a multiple of 16");
  expectInvalid("R40",
                symbolicMapEdited(R"("strides": [256])", R"("strides": [8])"),
                a0 + ".strides[0]: expected an integer in [16, 2^40), found 8");
  // R43 stays a load-time check for a static map of a version 4 graph.
  expectInvalid("R43",
                symbolicMapEdited(R"("strides": [32, 160])",
                                  R"("strides": [32, 592])"),
                a1 + ": the map reaches 752 bytes");

  // At a run's sizes: the input's bytes (N * 256) bound map 0, the
  // workspace buffer's 744 map 1, the output's 128 map 2.
  int64_t xShape[] = {64, 128}, yShape[] = {4, 8};
  void *p = reinterpret_cast<void *>(uintptr_t(0x10000));
  void *q = reinterpret_cast<void *>(uintptr_t(0x80000));
  fkrt_tensor in[1] = {{p, FKRT_F16, 2, xShape}};
  fkrt_tensor out[1] = {{q, FKRT_F32, 2, yShape}};
  fkrt_status ready = readyRunStatus();
  // Runs the artifact of `json` at N = n: expects `message`'s failure, or
  // (empty) to reach the driver.
  auto runAt = [&](const std::string &json, int64_t n,
                   const std::string &message) {
    fkrt_module m = loadValid(artifact(json));
    xShape[0] = n;
    fkrt_status got = fkrt_run(m, "g", in, 1, out, 1, nullptr);
    if (!message.empty())
      expectStatus(got, FKRT_ERROR_INVALID_ARGUMENT, message.c_str());
    else
      CHECK_EQ(got, ready);
    fkrt_module_destroy(m);
  };
  const std::string launch0 =
      "fkrt_run: graph 'g' launch 0 (kernel 'm0') argument 0 (tensor map): ";
  const std::string launch1 =
      "fkrt_run: graph 'g' launch 1 (kernel 'm1') argument ";
  const std::string formula = " bytes (dims[0] * element size + the sum of "
                              "(dims[i] - 1) * strides[i - 1]), more than the ";
  runAt(kSymbolicMap, 64, "");
  runAt(kSymbolicMap, 1, "");
  // N = 0: map 0 would be empty, but its launch is skipped, so it is
  // neither checked nor encoded. A launch with blocks cannot take it.
  runAt(kSymbolicMap, 0, "");
  runAt(symbolicMapEdited(R"("m0", "grid": [{"min": ["N", 1]}, 1, 1])",
                          R"("m0", "grid": [1, 1, 1])"),
        0, launch0 + "dims[1] is 0 at these sizes: a tensor map cannot be "
                     "empty, and the launch is not skipped (its grid has "
                     "blocks)");
  // R39: dims in [1, 2^32].
  std::string big = symbolicMapEdited(R"("dims": [128, "N"])",
                                      R"("dims": [128, "67108864*N"])");
  runAt(big, 64, launch0 + "at these sizes the map reaches");
  runAt(big, 65, launch0 + "dims[1] is 4362076160 at these sizes, outside "
                           "[1, 4294967296]");
  runAt(symbolicMapEdited(R"("dims": [128, "N"])",
                          R"("dims": [128, {"add": ["N", -64]}])"),
        32, launch0 + "dims[1] is -32 at these sizes, outside [1, 4294967296]");
  runAt(symbolicMapEdited(R"("dims": [128, "N"])",
                          R"("dims": [128, "4611686018427387904*N"])"),
        2, launch0 + "dims[1] cannot be computed at these sizes (it "
                     "overflows)");
  // R40: strides multiples of 16 in [16, 2^40).
  std::string stride = symbolicMapEdited(R"("strides": [256])",
                                         R"("strides": ["2*N"])");
  runAt(stride, 64, "");
  runAt(stride, 60, launch0 + "strides[0] is 120 at these sizes, not a "
                              "multiple of 16");
  runAt(stride, 4, launch0 + "strides[0] is 8 at these sizes, outside "
                             "[16, 2^40)");
  runAt(symbolicMapEdited(R"("strides": [256])",
                          R"("strides": ["17179869184*N"])"),
        64, launch0 + "strides[0] is 1099511627776 at these sizes, outside "
                      "[16, 2^40)");
  // R43: the bytes reached at the run's sizes, within the input's bytes at
  // them, a workspace buffer's, an output's.
  runAt(symbolicMapEdited(R"("dims": [128, "N"])",
                          R"("dims": [128, {"add": ["N", 1]}])"),
        64, launch0 + "at these sizes the map reaches 16640" + formula +
                "16384 bytes of buffer 0");
  std::string staticDims = symbolicMapEdited(R"("dims": [128, "N"])",
                                             R"("dims": [128, 64])");
  runAt(staticDims, 64, "");
  runAt(staticDims, 63, launch0 + "at these sizes the map reaches 16384" +
                            formula + "16128 bytes of buffer 0");
  std::string workspace = symbolicMapEdited(R"("dims": [8, 5, 2])",
                                            R"("dims": [8, 5, "N"])");
  runAt(workspace, 4, "");
  runAt(workspace, 5, launch1 + "1 (tensor map): at these sizes the map "
                                "reaches 800" +
                          formula + "744 bytes of buffer 2");
  runAt(symbolicMapEdited(R"("dims": [8, 5, 2], "strides": [32, 160])",
                          R"("dims": [8, 4294967296, "N"], )"
                          R"("strides": [1099511627760, 1099511627760])"),
        2, launch1 + "1 (tensor map): at these sizes the map reaches more "
                     "than 2^63 bytes");
  std::string output = replaced(
      symbolicMapEdited(R"("shape": [4, 8])", R"("shape": ["N", 8])"),
      R"("dims": [32], )", R"("dims": [{"min": ["8*N", 32]}], )");
  yShape[0] = 3;
  runAt(output, 3, "");
  runAt(replaced(output, R"({"min": ["8*N", 32]})", "32"), 3,
        launch1 + "2 (tensor map): at these sizes the map reaches 128" +
            formula + "96 bytes of buffer 1");
  yShape[0] = 4;

  // A graph without symbols may compute its map's sizes too (constants):
  // they are checked per run like any.
  std::string constant = replaced(
      mapEdited(R"("dims": [128, 64])", R"("dims": [128, {"mul": [32, 2]}])"),
      R"("version": 2)", R"("version": 4)");
  runAt(constant, 64, "");
  runAt(replaced(constant, R"({"mul": [32, 2]})", R"({"mul": [32, 3]})"), 64,
        launch0 + "at these sizes the map reaches 24576" + formula +
            "16384 bytes of buffer 0");
}

/// The C++ wrapper's view of symbols: kSymbolic's, and none in sample.ptx.
void testCppWrapperSymbols() {
  std::string text = artifact(kSymbolic);
  fkrt::Module m = fkrt::Module::fromMemory(text.data(), text.size());
  std::vector<fkrt::Symbol> symbols = m.symbols(0);
  CHECK(symbols.size() == 2 && symbols[0].name == "S" && symbols[0].max == 64 &&
        symbols[1].name == "B" && symbols[1].max == -1);
  fkrt::TensorInfo x = m.inputs(0)[0], y = m.outputs(0)[0];
  CHECK(x.shape == std::vector<int64_t>({-1, -1, 8}));
  CHECK(x.symbolicDims == std::vector<std::string>({"B", "S", ""}));
  CHECK(y.symbolicDims == std::vector<std::string>({"B*S", ""}));
  CHECK_EQ(y.bytes, 0u);

  std::vector<int64_t> xShape = {2, 5, 8};
  void *data = reinterpret_cast<void *>(uintptr_t(0x10000));
  std::vector<fkrt_tensor> in = {{data, FKRT_F32, 3, xShape.data()}};
  CHECK(m.outputShape("g", in, 0) == std::vector<int64_t>({10, 8}));
  auto expectRejected = [&](const std::vector<fkrt_tensor> &inputs,
                            size_t index, const char *message) {
    try {
      m.outputShape("g", inputs, index);
      CHECK(false);
    } catch (const fkrt::Error &e) {
      bool ok = e.status() == FKRT_ERROR_INVALID_ARGUMENT &&
                std::strstr(e.what(), message);
      CHECK(ok);
      if (!ok)
        std::printf("  got %d: '%s', expected '%s'\n", e.status(), e.what(),
                    message);
    }
  };
  expectRejected(in, 1,
                 "fkrt_output_shape: graph 'g' has 1 outputs, index 1 "
                 "out of range");
  expectRejected({}, 0, "outputShape: graph 'g' takes 1 inputs, got 0");
  xShape[1] = 65;
  expectRejected(in, 0,
                 "fkrt_output_shape: graph 'g' input 0 ('x') dimension 1 "
                 "makes S 65, above its bound 64");

  fkrt::Module sample = fkrt::Module::fromFile(kSamplePath);
  CHECK(sample.symbols(0).empty());
  CHECK(sample.inputs(0)[0].symbolicDims == std::vector<std::string>({"", ""}));
  std::vector<int64_t> maskShape = {7};
  CHECK(sample.outputShape("mask", {{data, FKRT_I1, 1, maskShape.data()}}, 0)
            .empty());
}

/// R45: the PTX's structure.
void testPtxStructure() {
  const std::string &json = kBase;
  // Accepted: any whitespace and comments between the tokens of an entry's
  // header, linkage directives, performance directives and an entry-scoped
  // pragma before the body, no parameter list, parameter attributes.
  expectLoads(withPtx(json, replaced(kPtx, ".visible .entry k0(",
                                     ".visible\n.entry\n\tk0 /* the kernel */\n"
                                     "// its parameters:\n(")),
              "an .entry header over several lines");
  expectLoads(withPtx(json, kPtx + ".weak .entry z\n.maxntid 1, 1, 1\n"
                                   ".pragma \"nounroll\";\n{ ret; }\n"),
              "an entry without parameter list, with directives before its body");
  expectLoads(withPtx(json, kPtx + ".entry z(.param .align 0x40 .b8 z_tmap[128], "
                                   ".param .u64 .ptr .const .align 8 z_c, "
                                   ".param .f16x2 z_h, .param .texref z_t)\n"
                                   "{ { ret; } }\n"),
              "array, pointer, vector and opaque parameters");
  // Strings and comments may hold braces, quotes and '.entry'.
  expectLoads(withPtx(json, kPtx + ".file 1 \"a}\\\"/*//.entry z{\"\n"
                                   "/* } \" */ // {\n"),
              "braces in strings and comments");

  expectPtxInvalid("R45", json, kPtx + "/* open\n",
                   "ptx: line 33: unterminated '/*' comment");
  expectPtxInvalid("R45", json, kPtx + ".file 1 \"open\n\"\n",
                   "ptx: line 33: unterminated string");
  expectPtxInvalid("R45", json, kPtx + "}\n",
                   "ptx: line 33: '}' without a matching '{'");
  expectPtxInvalid("R45", json, kPtx.substr(0, kPtx.size() - 2),
                   "ptx: line 30: '{' not closed by the end of the file");
  expectPtxInvalid("R45", json, kPtx + ".entry (.param .u64 a) {}\n",
                   "ptx: line 33: expected a kernel name after .entry, found "
                   "'('");
  expectPtxInvalid("R45", json, kPtx + ".entry z(.param .u64 a .param .u64 b) {}\n",
                   "ptx: line 33: expected ',' or ')' after parameter 0 of "
                   ".entry z, found '.param'");
  expectPtxInvalid("R45", json, kPtx + ".entry z(.param .u64 a,) {}\n",
                   "ptx: line 33: expected .param in the parameter list of "
                   ".entry z, found ')'");
  expectPtxInvalid("R45", json, kPtx + ".entry z(.u64 a) {}\n",
                   "ptx: line 33: expected .param in the parameter list of "
                   ".entry z, found '.u64'");
  expectPtxInvalid("R45", json, kPtx + ".entry z(.param a) {}\n",
                   "ptx: line 33: expected the type of parameter 0 of .entry "
                   "z, found 'a'");
  expectPtxInvalid("R45", json, kPtx + ".entry z(.param .u64 a, .param .u64) {}\n",
                   "ptx: line 33: expected the name of parameter 1 of .entry "
                   "z, found ')'");
  expectPtxInvalid("R45", json, kPtx + ".entry z(.param .b8 a[n]) {}\n",
                   "ptx: line 33: expected an array size, found 'n'");
  expectPtxInvalid("R45", json, kPtx + ".entry z(.param .b8 a[8) {}\n",
                   "ptx: line 33: expected ']' after the size of parameter 0 "
                   "of .entry z, found ')'");
  expectPtxInvalid("R45", json, kPtx + ".entry z(.param .align x .b8 a[8]) {}\n",
                   "ptx: line 33: expected an alignment, found 'x'");
  expectPtxInvalid("R45", json, kPtx + ".entry z(.param .u64 .ptr .foo a) {}\n",
                   "ptx: line 33: unexpected '.foo' in parameter 0 of .entry z");
  expectPtxInvalid("R45", json, kPtx + ".entry z(.param .u64 a)\n",
                   "ptx: line 33: .entry z has no body");
  expectPtxInvalid("R45", json, kPtx + ".entry z() .pragma \"x\"\n",
                   "ptx: line 33: .entry z has no body");
  expectPtxInvalid("R45", json, kPtx + ".entry z() \"x\" {}\n",
                   "ptx: line 33: expected the body of .entry z ('{'), found "
                   "a string");
  expectPtxInvalid("R45", json, kPtx + ".entry z() ret; {}\n",
                   "ptx: line 33: expected the body of .entry z ('{'), found 'ret'");
  expectPtxInvalid("R45", json, kPtx + "\n.entry k0()\n{\n}\n",
                   "ptx: line 34: .entry k0 is defined twice (first at line 9)");
}

/// R46 to R49: the launches against the kernels they call.
void testKernels() {
  // R46: a kernel is an .entry of the PTX, not a name in a comment, a
  // string or the manifest, nor a prefix of an entry's name.
  const std::string k9 = edited(R"("kernel": "k0")", R"("kernel": "k9")");
  const std::string notEntry = "manifest: graphs[0].launches[0].kernel: "
                               "kernel \"k9\" is not an .entry of the PTX";
  expectPtxInvalid("R46", k9, kPtx, notEntry);
  expectPtxInvalid("R46", k9, kPtx + "// .visible .entry k9(\n", notEntry);
  expectPtxInvalid("R46", k9, kPtx + "/* .entry k9(.param .u64 a) {} */\n",
                   notEntry);
  expectPtxInvalid("R46", k9, kPtx + ".pragma \".entry k9() { }\";\n", notEntry);
  expectPtxInvalid("R46",
                   replaced(k9, R"("version": 1,)",
                            R"("version": 1, "note": ".visible .entry k9(",)"),
                   kPtx, notEntry);
  expectPtxInvalid("R46", edited(R"("kernel": "k0")", R"("kernel": "k")"), kPtx,
                   "kernel \"k\" is not an .entry of the PTX");
  // An entry inside another's body is not at the top level.
  expectPtxInvalid("R46", k9,
                   replaced(kPtx, "\tret;\n}\n\n.visible .entry m0",
                            "\tret;\n.entry k9() {}\n}\n\n.visible .entry m0"),
                   notEntry);
  expectPtxInvalid("R46", k9,
                   kPtx + ".extern .entry k9(.param .u64 a, .param .u64 b, "
                          ".param .u64 c, .param .u64 d, .param .u32 e);\n",
                   "manifest: graphs[0].launches[0].kernel: .entry k9 (line "
                   "33 of the PTX) is declared without a body, not defined");
  // A declaration and a definition make a definition.
  expectLoads(withPtx(kBase, ".extern .entry k0();\n" + kPtx),
              "a declared and defined kernel");

  // Launches may share a kernel: fkc emits kernels that are equal but for
  // their name once, and launches it from every layer and graph using it.
  const std::string launch =
      R"({"kernel": "k0", "grid": [1, 1, 1], "block": [32, 1, 1], )"
      R"("shared_bytes": 0, "args": [{"buffer": 0}, {"buffer": 2}, )"
      R"({"buffer": 1}, {"i64": 32}, {"i32": 7}]})";
  expectLoads(artifact(edited(launch, launch + ", " + launch + ", " + launch)),
              "three launches of one kernel");
  const std::string graph =
      kBase.substr(kBase.find(R"({"name": "g")"))
          .substr(0, kBase.size() - kBase.find(R"({"name": "g")") - 2);
  expectLoads(artifact(kBase.substr(0, kBase.size() - 2) + ", " +
                       replaced(graph, R"("name": "g")", R"("name": "h")") +
                       "]}"),
              "two graphs launching one kernel");

  // R47
  expectInvalid("R47", edited(R"({"i32": 7}])", R"({"i32": 7}, {"i32": 8}])"),
                "manifest: graphs[0].launches[0].args: 6 arguments, but "
                ".entry k0 (line 9 of the PTX) has 5 parameters");
  expectInvalid("R47", edited(R"(, {"i32": 7}])", R"(])"),
                "manifest: graphs[0].launches[0].args: 4 arguments, but "
                ".entry k0 (line 9 of the PTX) has 5 parameters");
  expectPtxInvalid("R47", kBase, ptxEdited(",\n\t.param .u32 k0_p4", ""),
                   "5 arguments, but .entry k0 (line 9 of the PTX) has 4 "
                   "parameters");

  // R48: 8-byte values to 64-bit integer scalars, i32 to 32-bit ones.
  expectInvalid("R48", edited(R"({"i32": 7})", R"({"i64": 7})"),
                "manifest: graphs[0].launches[0].args[4]: an 'i64' argument is "
                "passed as an 8-byte value, but parameter 4 of .entry k0 (line "
                "9 of the PTX), '.param .u32 k0_p4' is not a 64-bit integer "
                "(.u64, .s64 or .b64)");
  expectInvalid("R48", edited(R"({"i64": 32})", R"({"i32": 32})"),
                "manifest: graphs[0].launches[0].args[3]: an 'i32' argument is "
                "passed as a 4-byte integer, but parameter 3 of .entry k0 "
                "(line 9 of the PTX), '.param .u64 k0_p3' is not a 32-bit "
                "integer (.u32, .s32 or .b32)");
  expectPtxInvalid("R48", kBase, ptxEdited(".param .u64 k0_p1", ".param .f64 k0_p1"),
                   "args[1]: a 'buffer' argument is passed as an 8-byte "
                   "value, but parameter 1 of .entry k0 (line 9 of the PTX), "
                   "'.param .f64 k0_p1' is not a 64-bit integer");
  expectPtxInvalid("R48", kBase,
                   ptxEdited(".param .u64 k0_p1", ".param .align 8 .b8 k0_p1[8]"),
                   "'.param .align 8 .b8 k0_p1[8]' is not a 64-bit integer");
  expectPtxInvalid("R48", kBase, ptxEdited(".param .u32 k0_p4", ".param .u16 k0_p4"),
                   "'.param .u16 k0_p4' is not a 32-bit integer");
  expectPtxInvalid("R48", kMapBase,
                   ptxEdited(".param .u64 .ptr .align 16 m0_p0",
                             ".param .align 64 .b8 m0_p0[128]"),
                   "manifest: graphs[0].launches[0].args[0]: a 'tensor_map' "
                   "argument is passed as an 8-byte value, but parameter 0 of "
                   ".entry m0 (line 20 of the PTX), '.param .align 64 .b8 "
                   "m0_p0[128]' is not a 64-bit integer (.u64, .s64 or .b64); "
                   "a tensor map is passed as its descriptor's address, not "
                   "by value");
  expectPtxInvalid("R48", kBase, ptxEdited(".param .u64 k0_p3", ".param .u64 .ptr k0_p3"),
                   "manifest: graphs[0].launches[0].args[3]: an 'i64' argument "
                   "cannot be passed to parameter 3 of .entry k0 (line 9 of "
                   "the PTX), '.param .u64 .ptr k0_p3': a .ptr parameter takes "
                   "a 'buffer' or a 'tensor_map'");
  // Signed and untyped integers of the right size take them too.
  expectLoads(withPtx(kBase, ptxEdited(".param .u64 k0_p3", ".param .s64 k0_p3")),
              "an i64 to an .s64 parameter");
  expectLoads(withPtx(kBase, ptxEdited(".param .u32 k0_p4", ".param .b32 k0_p4")),
              "an i32 to a .b32 parameter");

  // R49: a .ptr parameter points to global memory aligned as its argument
  // is: inputs and outputs to 16 bytes (fkrt_run checks), workspace buffers
  // to 256, tensor map descriptors to 128.
  expectPtxInvalid("R49", kMapBase,
                   ptxEdited(".ptr .global .align 16 m0_p1", ".ptr .shared .align 16 m0_p1"),
                   "manifest: graphs[0].launches[0].args[1]: a 'buffer' "
                   "argument is a global address, but parameter 1 of .entry m0 "
                   "(line 20 of the PTX), '.param .u64 .ptr .shared .align 16 "
                   "m0_p1' points to .shared memory");
  expectPtxInvalid("R49", kBase, ptxEdited(".param .u64 k0_p0", ".param .u64 .ptr .align 32 k0_p0"),
                   "manifest: graphs[0].launches[0].args[0]: parameter 0 of "
                   ".entry k0 (line 9 of the PTX), '.param .u64 .ptr .align 32 "
                   "k0_p0' needs 32-byte aligned data, but a 'buffer' argument "
                   "is only aligned to 16 bytes");
  expectPtxInvalid("R49", kBase, ptxEdited(".param .u64 k0_p1", ".param .u64 .ptr .align 512 k0_p1"),
                   "needs 512-byte aligned data, but a 'buffer' argument is only "
                   "aligned to 256 bytes");
  expectLoads(withPtx(kBase, ptxEdited(".param .u64 k0_p1",
                                       ".param .u64 .ptr .global .align 256 k0_p1")),
              "a workspace buffer to a 256-byte aligned pointer");
  expectPtxInvalid("R49", kMapBase,
                   ptxEdited(".ptr .align 16 m0_p0", ".ptr .align 256 m0_p0"),
                   "needs 256-byte aligned data, but a 'tensor_map' argument is "
                   "only aligned to 128 bytes");
  expectLoads(withPtx(kMapBase, ptxEdited(".ptr .align 16 m0_p0", ".ptr .align 128 m0_p0")),
              "a tensor map to a 128-byte aligned pointer");
}

/// Every proper prefix of the sample artifact fails to load: one cut
/// before the last entry's closing brace leaves a brace open (R45) or a
/// kernel missing (R46).
void testTruncation() {
  std::string sample = fkrt_test::readFile(kSamplePath);
  CHECK(!sample.empty());
  size_t needed = sample.rfind('}') + 1;
  size_t wrong = 0;
  for (size_t n = 0; n < sample.size(); ++n) {
    std::string error;
    fkrt_status status = load(sample.substr(0, n), error);
    bool expectOk = n >= needed;
    if ((status == FKRT_SUCCESS) != expectOk || (!expectOk && error.empty())) {
      if (!wrong)
        std::printf("truncation at %zu: status %d: %s\n", n, status,
                    error.c_str());
      ++wrong;
    }
  }
  CHECK_EQ(wrong, 0u);
}

/// Random byte changes never crash the reader; what loads is consistent.
void testByteFlips() {
  std::string sample = fkrt_test::readFile(kSamplePath);
  std::mt19937 rng(1234);
  size_t loaded = 0, inconsistent = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = sample;
    int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      size_t at = rng() % text.size();
      // Half the flips stay within the manifest, where they matter most.
      if (rng() % 2)
        at %= sample.find("// fkc-manifest-end");
      text[at] = static_cast<char>(rng() % 256);
    }
    fkrt_module m = nullptr;
    if (fkrt_module_load_memory(text.data(), text.size(), &m) == FKRT_SUCCESS) {
      ++loaded;
      if (fkrt_manifest_graph_count(m) == 0 || !fkrt_manifest_target(m))
        ++inconsistent;
      fkrt_module_destroy(m);
    } else if (!*fkrt_last_error()) {
      ++inconsistent;
    }
  }
  CHECK_EQ(inconsistent, 0u);
  std::printf("byte flips: %zu of 3000 corrupted artifacts still loaded\n",
              loaded);
}

void testRunValidation() {
  fkrt_module m = nullptr;
  CHECK_EQ(fkrt_module_load_file(kSamplePath.c_str(), &m), FKRT_SUCCESS);
  if (!m)
    return;
  int64_t xShape[] = {64, 32}, wShape[] = {32, 32}, yShape[] = {64, 32};
  // Inputs may share memory (they are only read); an output may not.
  void *p = reinterpret_cast<void *>(uintptr_t(0x10000));
  void *q = reinterpret_cast<void *>(uintptr_t(0x80000));
  fkrt_tensor in[2] = {{p, FKRT_F16, 2, xShape}, {p, FKRT_F16, 2, wShape}};
  fkrt_tensor out[1] = {{q, FKRT_F16, 2, yShape}};

  auto run = [&](const char *graph, const fkrt_tensor *i, size_t ni,
                 fkrt_tensor *o, size_t no) {
    return fkrt_run(m, graph, i, ni, o, no, nullptr);
  };

  expectStatus(fkrt_run(nullptr, "mlp", in, 2, out, 1, nullptr),
         FKRT_ERROR_INVALID_ARGUMENT, "fkrt_run: module is null");
  expectStatus(run(nullptr, in, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph_name is null");
  expectStatus(run("mlp2", in, 2, out, 1), FKRT_ERROR_NOT_FOUND,
         "fkrt_run: no graph named 'mlp2'");
  expectStatus(run("mlp", in, 1, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'mlp' takes 2 inputs, got 1");
  expectStatus(run("mlp", nullptr, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'mlp': inputs array is null");
  expectStatus(run("mlp", in, 2, out, 0), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'mlp' takes 1 outputs, got 0");

  fkrt_tensor bad[2] = {in[0], in[1]};
  bad[1].data = nullptr;
  expectStatus(run("mlp", bad, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'mlp' input 1 ('w'): data is null");
  bad[1] = in[1];
  bad[1].data = reinterpret_cast<void *>(uintptr_t(0x10001));
  expectStatus(run("mlp", bad, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "input 1 ('w'): data is not aligned to 16 bytes");
  // Aligned to the element size is not enough: kernels use 16-byte vectors.
  bad[1].data = reinterpret_cast<void *>(uintptr_t(0x10008));
  expectStatus(run("mlp", bad, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "input 1 ('w'): data is not aligned to 16 bytes");
  bad[1] = in[1];
  bad[1].dtype = FKRT_BF16;
  expectStatus(run("mlp", bad, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "input 1 ('w'): expected dtype f16, got bf16");
  bad[1].dtype = 42;
  expectStatus(run("mlp", bad, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "input 1 ('w'): unknown dtype 42");
  bad[1] = in[1];
  bad[1].rank = 3;
  expectStatus(run("mlp", bad, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "input 1 ('w'): expected rank 2, got 3");
  bad[1] = in[1];
  bad[1].shape = nullptr;
  expectStatus(run("mlp", bad, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "input 1 ('w'): shape is null");
  int64_t wrongShape[] = {32, 31};
  bad[1].shape = wrongShape;
  expectStatus(run("mlp", bad, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "input 1 ('w'): dimension 1 is 31, expected 32");
  fkrt_tensor badOut[1] = {out[0]};
  badOut[0].dtype = FKRT_F32;
  expectStatus(run("mlp", in, 2, badOut, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'mlp' output 0 ('y'): expected dtype f16, got f32");

  // Outputs overlapping inputs: not declared, so rejected. x is 4096 bytes
  // from 0x10000, so y at 0x10ff0 overlaps its last 16 bytes.
  badOut[0] = out[0];
  badOut[0].data = reinterpret_cast<void *>(uintptr_t(0x10ff0));
  expectStatus(run("mlp", in, 2, badOut, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'mlp' output 0 ('y') overlaps input 0 ('x'): only "
         "an inout parameter's new value may share its input's buffer");
  badOut[0].data = reinterpret_cast<void *>(uintptr_t(0x11000));
  // Just past x: accepted (the run then stops at the driver or loading).
  CHECK(run("mlp", in, 2, badOut, 1) != FKRT_ERROR_INVALID_ARGUMENT);

  // The i1 graph: one-byte elements are 16-byte aligned too; a rank-0
  // output needs no shape.
  fkrt_tensor maskIn[1] = {{reinterpret_cast<void *>(uintptr_t(0x10010)),
                            FKRT_I1, 1, nullptr}};
  int64_t seven = 7;
  maskIn[0].shape = &seven;
  fkrt_tensor maskOut[1] = {{p, FKRT_F32, 0, nullptr}};
  fkrt_status maskStatus = run("mask", maskIn, 1, maskOut, 1);

  // Valid arguments: only then does the driver matter.
  fkrt_status status = run("mlp", in, 2, out, 1);
  std::string message = fkrt_last_error();
  if (fkrt_driver_available() == FKRT_SUCCESS) {
    CHECK(message.find("fkrt_run: the module is not loaded on CUDA") == 0);
    CHECK_EQ(status, FKRT_ERROR_NOT_LOADED);
    CHECK_EQ(maskStatus, FKRT_ERROR_NOT_LOADED);
  } else {
    CHECK(message.find("fkrt_run: CUDA driver library libcuda.so.1 not "
                       "found: ") == 0);
    CHECK_EQ(status, FKRT_ERROR_NO_DRIVER);
    CHECK_EQ(maskStatus, FKRT_ERROR_NO_DRIVER);
  }
  fkrt_module_destroy(m);
}

void testNoDriver() {
  if (fkrt_driver_available() == FKRT_SUCCESS) {
    std::printf("libcuda.so.1 present: skipping the no-driver checks\n");
    return;
  }
  CHECK(std::strstr(fkrt_last_error(),
                    "CUDA driver library libcuda.so.1 not found: "));
  fkrt_module m = nullptr;
  CHECK_EQ(fkrt_module_load_file(kSamplePath.c_str(), &m), FKRT_SUCCESS);
  CHECK_EQ(fkrt_module_load_cuda(m, 0), FKRT_ERROR_NO_DRIVER);
  CHECK(std::strstr(fkrt_last_error(),
                    "CUDA driver library libcuda.so.1 not found: "));
  // The manifest stays usable after the failure.
  CHECK_EQ(fkrt_manifest_graph_count(m), 2u);
  fkrt_module_destroy(m);
  CHECK_EQ(fkrt_module_load_cuda(nullptr, 0), FKRT_ERROR_INVALID_ARGUMENT);
}

/// The device API checks its arguments before it needs a driver, and
/// without one reports the driver's absence from every call.
void testDeviceApiWithoutGpu() {
  void *p = reinterpret_cast<void *>(uintptr_t(0x1000));
  int count = 7;
  char name[16];
  fkrt_event event = nullptr;
  float ms;
  auto expectArg = [&](fkrt_status status, const char *message) {
    bool ok = status == FKRT_ERROR_INVALID_ARGUMENT &&
              std::strstr(fkrt_last_error(), message);
    CHECK(ok);
    if (!ok)
      std::printf("  expected: %s\n", message);
  };
  expectArg(fkrt_device_count(nullptr), "fkrt_device_count: count is null");
  expectArg(fkrt_device_name(0, nullptr, 16),
            "fkrt_device_name: name is null or size is 0");
  expectArg(fkrt_device_name(-1, name, sizeof(name)),
            "fkrt_device_name: device -1 is not a device ordinal");
  expectArg(fkrt_device_sm_count(0, nullptr),
            "fkrt_device_sm_count: count is null");
  expectArg(fkrt_device_sm_count(-1, &count),
            "fkrt_device_sm_count: device -1 is not a device ordinal");
  expectArg(fkrt_device_alloc(0, 16, nullptr),
            "fkrt_device_alloc: pointer is null");
  expectArg(fkrt_device_alloc(-2, 16, &p),
            "fkrt_device_alloc: device -2 is not a device ordinal");
  CHECK(p == nullptr);
  expectArg(fkrt_device_free(-1, nullptr),
            "fkrt_device_free: device -1 is not a device ordinal");
  CHECK_EQ(fkrt_device_free(0, nullptr), FKRT_SUCCESS);
  expectArg(fkrt_device_copy_to_device(0, nullptr, name, 4),
            "fkrt_device_copy_to_device: dst is null");
  expectArg(fkrt_device_copy_to_host(0, name, nullptr, 4),
            "fkrt_device_copy_to_host: src is null");
  expectArg(fkrt_device_fill(0, nullptr, 0xFF, 4, nullptr),
            "fkrt_device_fill: pointer is null");
  expectArg(fkrt_device_synchronize(-1),
            "fkrt_device_synchronize: device -1 is not a device ordinal");
  expectArg(fkrt_event_create(0, nullptr), "fkrt_event_create: event is null");
  expectArg(fkrt_event_record(nullptr, nullptr),
            "fkrt_event_record: event is null");
  expectArg(fkrt_event_elapsed_ms(nullptr, nullptr, &ms),
            "fkrt_event_elapsed_ms: null argument");
  fkrt_event_destroy(nullptr);

  if (fkrt_driver_available() == FKRT_SUCCESS) {
    std::printf("libcuda.so.1 present: skipping the device API's no-driver "
                "checks\n");
    return;
  }
  auto expectNoDriver = [&](fkrt_status status, const std::string &function) {
    bool ok = status == FKRT_ERROR_NO_DRIVER &&
              std::string(fkrt_last_error())
                      .find(function + ": CUDA driver library libcuda.so.1 "
                                       "not found: ") == 0;
    CHECK(ok);
    if (!ok)
      std::printf("  expected the no-driver error of %s\n", function.c_str());
  };
  expectNoDriver(fkrt_device_count(&count), "fkrt_device_count");
  CHECK_EQ(count, 0);
  expectNoDriver(fkrt_device_name(0, name, sizeof(name)), "fkrt_device_name");
  expectNoDriver(fkrt_device_sm_count(0, &count), "fkrt_device_sm_count");
  CHECK_EQ(name[0], '\0');
  expectNoDriver(fkrt_device_alloc(0, 16, &p), "fkrt_device_alloc");
  expectNoDriver(fkrt_device_free(0, name), "fkrt_device_free");
  expectNoDriver(fkrt_device_copy_to_device(0, name, name, 4),
                 "fkrt_device_copy_to_device");
  expectNoDriver(fkrt_device_copy_to_host(0, name, name, 4),
                 "fkrt_device_copy_to_host");
  expectNoDriver(fkrt_device_fill(0, name, 0xFF, 4, nullptr),
                 "fkrt_device_fill");
  expectNoDriver(fkrt_device_synchronize(0), "fkrt_device_synchronize");
  expectNoDriver(fkrt_event_create(0, &event), "fkrt_event_create");
  CHECK(event == nullptr);

  // The C++ wrapper turns the same failures into exceptions.
  try {
    fkrt::DeviceBuffer buffer(0, 64);
    CHECK(false);
  } catch (const fkrt::Error &e) {
    CHECK_EQ(e.status(), FKRT_ERROR_NO_DRIVER);
    CHECK(std::strstr(e.what(), "CUDA driver not available: "
                                "fkrt_device_alloc: CUDA driver library"));
  }
}

void testStatusAndDtypes() {
  for (int s = FKRT_SUCCESS; s <= FKRT_ERROR_OUT_OF_MEMORY; ++s)
    CHECK(std::string(fkrt_status_string(static_cast<fkrt_status>(s))) !=
          "unknown status");
  CHECK_EQ(std::string(fkrt_status_string(static_cast<fkrt_status>(15))),
           "unknown status");
  CHECK_EQ(fkrt_dtype_size(FKRT_F32), 4u);
  CHECK_EQ(fkrt_dtype_size(FKRT_BF16), 2u);
  CHECK_EQ(fkrt_dtype_size(FKRT_I1), 1u);
  CHECK_EQ(fkrt_dtype_size(FKRT_I64), 8u);
  CHECK_EQ(std::string(fkrt_dtype_name(FKRT_I64)), "i64");
  CHECK_EQ(fkrt_dtype_size(static_cast<fkrt_dtype>(7)), 0u);
  CHECK_EQ(std::string(fkrt_dtype_name(FKRT_BF16)), "bf16");
  CHECK(fkrt_dtype_name(static_cast<fkrt_dtype>(7)) == nullptr);
  // Null handles are tolerated by every query.
  CHECK_EQ(fkrt_manifest_graph_count(nullptr), 0u);
  CHECK(fkrt_manifest_target(nullptr) == nullptr);
  fkrt_module_destroy(nullptr);
}

void testThreadLocalError() {
  std::string error;
  load("garbage", error);
  std::string seen = "unset";
  std::thread([&] { seen = fkrt_last_error(); }).join();
  CHECK_EQ(seen, "");
  CHECK(std::strstr(fkrt_last_error(), "no '// fkc-manifest-begin'"));
}

/// Concurrent loads and queries of one module from several threads.
void testConcurrentQueries() {
  fkrt_module m = nullptr;
  CHECK_EQ(fkrt_module_load_file(kSamplePath.c_str(), &m), FKRT_SUCCESS);
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        size_t g;
        fkrt_tensor_info info;
        ok[t] += fkrt_manifest_find_graph(m, "mlp", &g) == FKRT_SUCCESS &&
                 fkrt_manifest_input(m, g, 0, &info) == FKRT_SUCCESS &&
                 info.shape[0] == 64;
      }
    });
  for (std::thread &t : threads)
    t.join();
  for (int count : ok)
    CHECK_EQ(count, 200);
  fkrt_module_destroy(m);
}

/// docs/artifact.md numbers the format's rules in a table whose rows start
/// with "| Rn |" and name the status each yields (FKRT_ERROR_...). Every
/// documented rule must have been tested above with that status and no
/// other, every tested rule must be documented, and the rules are numbered
/// R1, R2, ... without gaps.
void testRuleIndex() {
  std::string doc = fkrt_test::readFile(kArtifactDoc);
  CHECK(!doc.empty());
  const std::map<std::string, int> statusNames = {
      {"FKRT_ERROR_INVALID_ARTIFACT", FKRT_ERROR_INVALID_ARTIFACT},
      {"FKRT_ERROR_UNSUPPORTED_VERSION", FKRT_ERROR_UNSUPPORTED_VERSION}};
  std::map<std::string, int> documented;
  std::istringstream lines(doc);
  std::string line;
  size_t expectedNumber = 1;
  while (std::getline(lines, line)) {
    if (line.compare(0, 3, "| R") != 0 || line.size() < 4 ||
        line[3] < '0' || line[3] > '9')
      continue;
    std::string rule = line.substr(2, line.find(' ', 2) - 2);
    if (rule != "R" + std::to_string(expectedNumber)) {
      std::printf("FAIL: %s: rule %s where R%zu was expected\n",
                  kArtifactDoc.c_str(), rule.c_str(), expectedNumber);
      ++fkrt_test::failed;
    }
    ++expectedNumber;
    int status = -1;
    size_t at = line.find("FKRT_ERROR_");
    if (at != std::string::npos) {
      size_t end = line.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_", at);
      auto it = statusNames.find(line.substr(at, end - at));
      if (it != statusNames.end())
        status = it->second;
    }
    if (status < 0) {
      std::printf("FAIL: %s: rule %s names no status\n", kArtifactDoc.c_str(),
                  rule.c_str());
      ++fkrt_test::failed;
    }
    documented[rule] = status;
  }
  CHECK(documented.size() > 40);
  size_t tested = 0;
  for (const auto &[rule, status] : documented) {
    auto it = rulesTested.find(rule);
    bool ok = it != rulesTested.end() && it->second == std::set<int>{status};
    tested += it != rulesTested.end();
    CHECK(ok);
    if (!ok) {
      std::string seen;
      if (it != rulesTested.end())
        for (int s : it->second)
          seen += " " + std::to_string(s);
      std::printf("  rule %s: documented with status %d, tested with:%s\n",
                  rule.c_str(), status, seen.empty() ? " none" : seen.c_str());
    }
  }
  for (const auto &entry : rulesTested) {
    bool ok = documented.count(entry.first) != 0;
    CHECK(ok);
    if (!ok)
      std::printf("  rule %s is tested but not in %s\n", entry.first.c_str(),
                  kArtifactDoc.c_str());
  }
  std::printf("rules: %zu documented in artifact.md, %zu of them tested\n",
              documented.size(), tested);
}

} // namespace

int main() {
  testSample();
  testCppWrapper();
  testAliases();
  testSymbols();
  testSymbolicTensorMaps();
  testRunPlacedBuffers();
  testLaunchLimits();
  testPersistentLaunches();
  testCppWrapperSymbols();
  testBaseValid();
  testFileRules();
  testFraming();
  testJson();
  testVersioning();
  testAllowTf32();
  testFieldErrors();
  testBufferErrors();
  testLaunchErrors();
  testTensorMaps();
  testOutputs();
  testPtxStructure();
  testKernels();
  testTruncation();
  testByteFlips();
  testRunValidation();
  testNoDriver();
  testDeviceApiWithoutGpu();
  testStatusAndDtypes();
  testThreadLocalError();
  testConcurrentQueries();
  testRuleIndex();
  return fkrt_test::finish();
}

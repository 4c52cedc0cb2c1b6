//===- host_tests.cpp - fkrt tests that need no GPU -----------------------===//
//
// Manifest parsing and validation, robustness against truncated and
// corrupted artifacts, fkrt_run's argument checks and the no-driver path.
// Prints "N passed, M failed" last; exits non-zero on any failure.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"
#include "fkrt/runtime.h"
#include "fkrt/runtime.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>

namespace {




const std::string kSamplePath = std::string(FKRT_TEST_DATA_DIR) + "/sample.ptx";

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

const std::string kPtx = "\n.version 8.0\n.target sm_90\n.address_size 64\n"
                         ".visible .entry k0()\n{\n\tret;\n}\n";

std::string artifact(const std::string &json) {
  return "// fkc-manifest-begin\n// " + json + "\n// fkc-manifest-end\n" + kPtx;
}

/// kBase with its only occurrence of `from` replaced by `to`.
std::string edited(const std::string &from, const std::string &to) {
  size_t at = kBase.find(from);
  if (at == std::string::npos || kBase.find(from, at + 1) != std::string::npos) {
    std::printf("bad test edit: '%s'\n", from.c_str());
    return "";
  }
  return kBase.substr(0, at) + to + kBase.substr(at + from.size());
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

/// Expects loading `text` to fail with `status` and a message containing
/// `message`.
void expectError(const std::string &text, fkrt_status status,
                 const std::string &message) {
  std::string error;
  fkrt_status got = load(text, error);
  bool ok = got == status && error.find(message) != std::string::npos;
  if (ok) {
    ++fkrt_test::passed;
    return;
  }
  ++fkrt_test::failed;
  std::printf("FAIL: expected status %d with '%s', got %d: '%s'\n", status,
              message.c_str(), got, error.c_str());
}

void expectInvalid(const std::string &json, const std::string &message) {
  expectError(artifact(json), FKRT_ERROR_INVALID_ARTIFACT, message);
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
  expectInvalid(edited(R"("name": "g")", R"("name": "g\u0001")"),
                "manifest: graphs[0].name: control character in a name");
}

void testVersioning() {
  CHECK_EQ(FKRT_ARTIFACT_VERSION, 2);
  expectError(artifact(edited(R"("version": 1)", R"("version": 3)")),
              FKRT_ERROR_UNSUPPORTED_VERSION,
              "manifest: unsupported artifact version 3 (this runtime reads "
              "versions 1 to 2)");
  expectError(artifact(edited(R"("version": 1)", R"("version": 0)")),
              FKRT_ERROR_UNSUPPORTED_VERSION,
              "manifest: unsupported artifact version 0 (this runtime reads "
              "versions 1 to 2)");
  // Version 1 is version 2 without tensor maps: the same manifest loads
  // under both numbers.
  fkrt_module m = nullptr;
  std::string v2 = artifact(edited(R"("version": 1)", R"("version": 2)"));
  CHECK_EQ(fkrt_module_load_memory(v2.data(), v2.size(), &m), FKRT_SUCCESS);
  CHECK_EQ(fkrt_manifest_version(m), 2);
  fkrt_module_destroy(m);
  // The version is checked before any other field, so a future layout
  // still gets the version message.
  expectError(artifact(R"({"format": "fkc-artifact", "version": 3})"),
              FKRT_ERROR_UNSUPPORTED_VERSION, "unsupported artifact version 3");
  expectInvalid(edited(R"("version": 1)", R"("version": "1")"),
                "manifest: version: expected a positive integer");
  expectInvalid(edited(R"("version": 1)", R"("version": 1.0)"),
                "manifest: version: expected a positive integer");
  expectInvalid(edited(R"("version": 1, )", ""),
                "manifest: missing field 'version'");
  expectInvalid(edited(R"("format": "fkc-artifact")", R"("format": "onnx")"),
                "manifest: format: expected \"fkc-artifact\"");
  expectInvalid(edited(R"("format": "fkc-artifact", )", ""),
                "manifest: missing field 'format'");
}

void testFieldErrors() {
  expectInvalid("[1, 2]", "manifest: expected a JSON object");
  expectInvalid(edited(R"("target": "sm_90")", R"("target": "gfx90a")"),
                "manifest: target: expected an architecture like \"sm_90\"");
  expectInvalid(edited(R"("target": "sm_90")", R"("target": 90)"),
                "manifest: target: expected a string");
  expectInvalid(edited(R"("target": "sm_90", )", ""),
                "manifest: missing field 'target'");
  expectInvalid(R"({"format": "fkc-artifact", "version": 1, "target": "sm_90"})",
                "manifest: missing field 'graphs'");
  expectInvalid(
      R"({"format": "fkc-artifact", "version": 1, "target": "sm_90", "graphs": {}})",
      "manifest: graphs: expected an array");
  expectInvalid(
      R"({"format": "fkc-artifact", "version": 1, "target": "sm_90", "graphs": []})",
      "manifest: graphs: expected at least one graph");
  expectInvalid(
      R"({"format": "fkc-artifact", "version": 1, "target": "sm_90", "graphs": [7]})",
      "manifest: graphs[0]: expected an object");
  expectInvalid(edited(R"("name": "g", )", ""),
                "manifest: graphs[0]: missing field 'name'");
  expectInvalid(edited(R"("name": "g")", R"("name": "")"),
                "manifest: graphs[0].name: expected a non-empty string");
  expectInvalid(edited(R"("inputs": )", R"("ins": )"),
                "manifest: graphs[0]: missing field 'inputs'");
  expectInvalid(edited(R"("dtype": "f32", "shape": [4, 8]}], "outputs)",
                       R"("dtype": "f64", "shape": [4, 8]}], "outputs)"),
                "manifest: graphs[0].inputs[0].dtype: unknown dtype \"f64\"");
  expectInvalid(edited(R"("name": "y", "dtype": "f32")",
                       R"("name": "y", "dtype": 32)"),
                "manifest: graphs[0].outputs[0].dtype: expected a string");
  expectInvalid(edited(R"("name": "x", "dtype": "f32", "shape": [4, 8])",
                       R"("name": "x", "dtype": "f32", "shape": [4, -8])"),
                "manifest: graphs[0].inputs[0].shape[1]: expected a "
                "non-negative integer, found -8");
  expectInvalid(edited(R"("name": "x", "dtype": "f32", "shape": [4, 8])",
                       R"("name": "x", "dtype": "f32", "shape": [4, 8.5])"),
                "manifest: graphs[0].inputs[0].shape[1]: expected a "
                "non-negative integer");
  expectInvalid(edited(R"("name": "x", "dtype": "f32", "shape": [4, 8])",
                       R"("name": "x", "dtype": "f32", "shape": [4, "8"])"),
                "manifest: graphs[0].inputs[0].shape[1]: expected a "
                "non-negative integer");
  expectInvalid(edited(R"("name": "x", "dtype": "f32", "shape": [4, 8])",
                       R"("name": "x", "dtype": "f32", "shape": 8)"),
                "manifest: graphs[0].inputs[0].shape: expected an array");
  expectInvalid(edited(R"("name": "x", "dtype": "f32", "shape": [4, 8])",
                       R"("name": "x", "dtype": "f32", "shape": [99999999999999999999])"),
                "manifest: graphs[0].inputs[0].shape[0]: integer "
                "99999999999999999999 out of range");
  expectInvalid(edited(R"("name": "x", "dtype": "f32", "shape": [4, 8])",
                       R"("name": "x", "dtype": "f32", "shape": [4611686018427387904, 2])"),
                "manifest: graphs[0].inputs[0].shape: tensor size overflows 64 bits");
  expectInvalid(edited(R"("name": "x", "dtype": "f32", "shape": [4, 8])",
                       R"("name": "x", "dtype": "f32", "shape": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1])"),
                "manifest: graphs[0].inputs[0].shape: rank 17 exceeds the limit of 16");
  expectInvalid(edited(R"("name": "y")", R"("name": "x")"),
                "manifest: graphs[0].outputs[0].name: duplicate tensor name \"x\"");
  expectInvalid(
      edited(R"("graphs": [{"name": "g", )",
             R"("graphs": [{"name": "g", "inputs": [], "outputs": [], "workspace_bytes": 0, "buffers": [], "launches": []}, {"name": "g", )"),
      "manifest: graphs[1].name: duplicate graph name \"g\"");
  expectInvalid(edited(R"("workspace_bytes": 8192)", R"("workspace_bytes": -1)"),
                "manifest: graphs[0].workspace_bytes: expected a non-negative integer");
}

void testBufferErrors() {
  expectInvalid(edited(R"("offset": 256)", R"("offset": 100)"),
                "manifest: graphs[0].buffers[2].offset: offset 100 is not a "
                "multiple of 256");
  expectInvalid(edited(R"("bytes": 1024)", R"("bytes": 8000)"),
                "manifest: graphs[0].buffers[2]: workspace range [256, 8256) "
                "exceeds workspace_bytes 8192");
  expectInvalid(edited(R"("offset": 256, "bytes": 1024)",
                       R"("offset": 9223372036854775552, "bytes": 9223372036854775807)"),
                "exceeds workspace_bytes 8192");
  expectInvalid(edited(R"("kind": "input", "index": 0)",
                       R"("kind": "input", "index": 1)"),
                "manifest: graphs[0].buffers[0].index: expected an input "
                "index in [0, 0], found 1");
  expectInvalid(edited(R"("kind": "output", "index": 0)", R"("kind": "output")"),
                "manifest: graphs[0].buffers[1]: missing field 'index'");
  expectInvalid(edited(R"("kind": "output")", R"("kind": "scratch")"),
                "manifest: graphs[0].buffers[1].kind: unknown buffer kind \"scratch\"");
  expectInvalid(edited(R"({"id": 1, )", R"({"id": 0, )"),
                "manifest: graphs[0].buffers[1].id: duplicate buffer id 0");
  expectInvalid(edited(R"({"id": 1, )", R"({"id": true, )"),
                "manifest: graphs[0].buffers[1].id: expected a non-negative integer");
}

void testLaunchErrors() {
  expectInvalid(edited(R"({"buffer": 2})", R"({"buffer": 42})"),
                "manifest: graphs[0].launches[0].args[1].buffer: unknown buffer id 42");
  expectInvalid(edited(R"({"buffer": 2})", R"({"buffer": 2, "i64": 1})"),
                "manifest: graphs[0].launches[0].args[1]: expected an object "
                "with exactly one of 'buffer', 'i64', 'i32'");
  expectInvalid(edited(R"({"buffer": 2})", R"({"f32": 2})"),
                "manifest: graphs[0].launches[0].args[1]: unknown argument kind 'f32'");
  expectInvalid(edited(R"({"i32": 7})", R"({"i32": 3000000000})"),
                "manifest: graphs[0].launches[0].args[4].i32: expected a "
                "32-bit integer, found 3000000000");
  expectInvalid(edited(R"({"i64": 32})", R"({"i64": 9223372036854775808})"),
                "manifest: graphs[0].launches[0].args[3].i64: integer "
                "9223372036854775808 out of range");
  CHECK_EQ([] {
    std::string error;
    return load(artifact(edited(R"({"i64": 32})", R"({"i64": -9223372036854775808})")),
                error);
  }(), FKRT_SUCCESS);
  expectInvalid(edited(R"("kernel": "k0")", R"("kernel": "k1")"),
                "manifest: graphs[0].launches[0].kernel: kernel \"k1\" is not "
                "an .entry of the PTX");
  expectInvalid(edited(R"("kernel": "k0")", R"("kernel": "k0; ret")"),
                "manifest: graphs[0].launches[0].kernel: \"k0; ret\" is not a "
                "PTX identifier");
  expectInvalid(edited(R"("grid": [1, 1, 1])", R"("grid": [0, 1, 1])"),
                "manifest: graphs[0].launches[0].grid[0]: expected an integer "
                "in [1, 2147483647], found 0");
  expectInvalid(edited(R"("grid": [1, 1, 1])", R"("grid": [1, 1])"),
                "manifest: graphs[0].launches[0].grid: expected 3 dimensions, found 2");
  expectInvalid(edited(R"("block": [32, 1, 1])", R"("block": [32, 1, 65])"),
                "manifest: graphs[0].launches[0].block[2]: expected an integer "
                "in [1, 64], found 65");
  expectInvalid(edited(R"("block": [32, 1, 1])", R"("block": [1024, 2, 1])"),
                "manifest: graphs[0].launches[0].block: 2048 threads per block "
                "exceed 1024");
  expectInvalid(edited(R"("shared_bytes": 0)", R"("shared_bytes": 4294967296)"),
                "manifest: graphs[0].launches[0].shared_bytes: expected a "
                "non-negative 32-bit integer");
  expectInvalid(edited(R"("shared_bytes": 0, )", ""),
                "manifest: graphs[0].launches[0]: missing field 'shared_bytes'");
  // A kernel mentioned only in a comment or as a prefix of an entry's name
  // does not count.
  std::string text = artifact(edited(R"("kernel": "k0")", R"("kernel": "k")"));
  expectError(text, FKRT_ERROR_INVALID_ARTIFACT, "kernel \"k\" is not an .entry");
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
    R"("launches": [{"kernel": "k0", "grid": [1, 1, 1], "block": [32, 1, 1], )"
    R"("shared_bytes": 0, "args": [{"tensor_map": {"buffer": 0, )"
    R"("dtype": "f16", "dims": [128, 64], "strides": [256], "box": [64, 32], )"
    R"("swizzle": 128}}, {"buffer": 1}]}, )"
    R"({"kernel": "k0", "grid": [1, 1, 1], "block": [32, 1, 1], )"
    R"("shared_bytes": 0, "args": [{"i32": 1}, {"tensor_map": {"buffer": 2, )"
    R"("dtype": "f32", "dims": [8, 5, 2], "strides": [32, 160], )"
    R"("box": [4, 5, 1], "swizzle": 0}}, )"
    R"({"tensor_map": {"buffer": 1, "dtype": "f32", "dims": [32], )"
    R"("strides": [], "box": [32], "swizzle": 0}}]}]}]})";

/// kMapBase with its only occurrence of `from` replaced by `to`.
std::string mapEdited(const std::string &from, const std::string &to) {
  size_t at = kMapBase.find(from);
  if (at == std::string::npos ||
      kMapBase.find(from, at + 1) != std::string::npos) {
    std::printf("bad test edit: '%s'\n", from.c_str());
    return "";
  }
  return kMapBase.substr(0, at) + to + kMapBase.substr(at + from.size());
}

void testTensorMaps() {
  // The first launch's map, the second launch's map over the workspace
  // buffer, and its map over the output.
  const std::string a0 = "manifest: graphs[0].launches[0].args[0].tensor_map";
  const std::string a1 = "manifest: graphs[0].launches[1].args[1].tensor_map";
  const std::string a2 = "manifest: graphs[0].launches[1].args[2].tensor_map";
  fkrt_module m = nullptr;
  std::string text = artifact(kMapBase);
  CHECK_EQ(fkrt_module_load_memory(text.data(), text.size(), &m),
           FKRT_SUCCESS);
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
  expectInvalid(mapEdited(R"("version": 2)", R"("version": 1)"),
                "manifest: graphs[0].launches[0].args[0]: a 'tensor_map' "
                "argument needs artifact version 2, the manifest says "
                "version 1");
  expectInvalid(mapEdited(R"({"buffer": 1}]})", R"({"f32": 1}]})"),
                "manifest: graphs[0].launches[0].args[1]: unknown argument "
                "kind 'f32' (expected 'buffer', 'i64', 'i32' or "
                "'tensor_map')");
  expectInvalid(mapEdited(R"({"tensor_map": {"buffer": 0, )",
                          R"({"tensor_map": 3, "x": {"buffer": 0, )"),
                "manifest: graphs[0].launches[0].args[0]: expected an object "
                "with exactly one of 'buffer', 'i64', 'i32', 'tensor_map'");
  expectInvalid(mapEdited(R"({"tensor_map": {"buffer": 1, "dtype": "f32", "dims": [32], "strides": [], "box": [32], "swizzle": 0}})",
                          R"({"tensor_map": [1]})"),
                a2 + ": expected an object");

  // buffer
  expectInvalid(mapEdited(R"({"tensor_map": {"buffer": 0, )",
                          R"({"tensor_map": {"buffer": 42, )"),
                a0 + ".buffer: unknown buffer id 42");
  expectInvalid(mapEdited(R"({"tensor_map": {"buffer": 0, )",
                          R"({"tensor_map": {"buffer": "0", )"),
                a0 + ".buffer: expected a buffer id");
  expectInvalid(mapEdited(R"({"tensor_map": {"buffer": 0, )",
                          R"({"tensor_map": {)"),
                a0 + ": missing field 'buffer'");

  // dtype
  expectInvalid(mapEdited(R"("dtype": "f16", "dims")",
                          R"("dtype": "i32", "dims")"),
                a0 + ".dtype: unsupported tensor map dtype \"i32\" "
                     "(expected one of f16, bf16, f32)");
  expectInvalid(mapEdited(R"("dtype": "f16", "dims")", R"("dtype": 2, "dims")"),
                a0 + ".dtype: expected a string");

  // dims
  expectInvalid(mapEdited(R"("dims": [128, 64], )", ""),
                a0 + ": missing field 'dims'");
  expectInvalid(mapEdited(R"("dims": [128, 64])", R"("dims": [])"),
                a0 + ".dims: expected 1 to 5 dimensions, found 0");
  expectInvalid(mapEdited(R"("dims": [128, 64])",
                          R"("dims": [128, 64, 1, 1, 1, 1])"),
                a0 + ".dims: expected 1 to 5 dimensions, found 6");
  expectInvalid(mapEdited(R"("dims": [128, 64])", R"("dims": [128, 0])"),
                a0 + ".dims[1]: expected an integer in [1, 4294967296], "
                     "found 0");
  expectInvalid(mapEdited(R"("dims": [128, 64])",
                          R"("dims": [4294967297, 1])"),
                a0 + ".dims[0]: expected an integer in [1, 4294967296], "
                     "found 4294967297");

  // strides
  expectInvalid(mapEdited(R"("strides": [32, 160])", R"("strides": [32])"),
                a1 + ".strides: expected 2 strides (one per dimension after "
                     "the first), found 1");
  expectInvalid(mapEdited(R"("strides": [], )", R"("strides": [16], )"),
                a2 + ".strides: expected 0 strides (one per dimension after "
                     "the first), found 1");
  expectInvalid(mapEdited(R"("strides": [32, 160])", R"("strides": [8, 160])"),
                a1 + ".strides[0]: expected an integer in [16, 2^40), found 8");
  expectInvalid(mapEdited(R"("strides": [32, 160])",
                          R"("strides": [32, 1099511627776])"),
                a1 + ".strides[1]: expected an integer in [16, 2^40), found "
                     "1099511627776");
  expectInvalid(mapEdited(R"("strides": [32, 160])", R"("strides": [40, 160])"),
                a1 + ".strides[0]: stride 40 is not a multiple of 16");
  expectInvalid(mapEdited(R"("strides": [256])", R"("strides": 256)"),
                a0 + ".strides: expected an array");

  // box
  expectInvalid(mapEdited(R"("box": [4, 5, 1])", R"("box": [4, 5])"),
                a1 + ".box: expected 3 entries (one per dimension), found 2");
  expectInvalid(mapEdited(R"("box": [4, 5, 1])", R"("box": [4, 257, 1])"),
                a1 + ".box[1]: expected an integer in [1, 256], found 257");
  expectInvalid(mapEdited(R"("box": [4, 5, 1])", R"("box": [0, 5, 1])"),
                a1 + ".box[0]: expected an integer in [1, 256], found 0");
  expectInvalid(mapEdited(R"("box": [64, 32])", R"("box": [12, 32])"),
                a0 + ".box[0]: 12 f16 elements are 24 bytes, not a multiple "
                     "of 16");
  expectInvalid(mapEdited(R"("box": [4, 5, 1])", R"("box": [6, 5, 1])"),
                a1 + ".box[0]: 6 f32 elements are 24 bytes, not a multiple "
                     "of 16");

  // swizzle
  expectInvalid(mapEdited(R"("swizzle": 128)", R"("swizzle": 16)"),
                a0 + ".swizzle: expected 0, 32, 64 or 128, found 16");
  expectInvalid(mapEdited(R"("swizzle": 128)", R"("swizzle": 256)"),
                a0 + ".swizzle: expected 0, 32, 64 or 128, found 256");
  expectInvalid(mapEdited(R"("swizzle": 128)", R"("swizzle": true)"),
                a0 + ".swizzle: expected 0, 32, 64 or 128");
  expectInvalid(mapEdited(R"("swizzle": 128)", R"("swizzle": 64)"),
                a0 + ".box[0]: 64 f16 elements are 128 bytes, more than the "
                     "swizzle of 64");
  expectInvalid(mapEdited(R"("box": [64, 32], "swizzle": 128)",
                          R"("box": [128, 32], "swizzle": 128)"),
                a0 + ".box[0]: 128 f16 elements are 256 bytes, more than the "
                     "swizzle of 128");
  expectInvalid(mapEdited(R"("swizzle": 128)", R"("swizzle": 128.0)"),
                a0 + ".swizzle: expected 0, 32, 64 or 128");

  // The bytes a map reaches must lie in its buffer: the input's 16384, the
  // workspace buffer's 744, the output's 128.
  expectInvalid(mapEdited(R"("dims": [128, 64])", R"("dims": [128, 65])"),
                a0 + ": the map reaches 16640 bytes (dims[0] * element size + "
                     "the sum of (dims[i] - 1) * strides[i - 1]), more than "
                     "the 16384 bytes of buffer 0");
  expectInvalid(mapEdited(R"("dims": [128, 64], "strides": [256])",
                          R"("dims": [64, 64], "strides": [272])"),
                a0 + ": the map reaches 17264 bytes");
  expectInvalid(mapEdited(R"("dims": [8, 5, 2])", R"("dims": [8, 5, 5])"),
                a1 + ": the map reaches 800 bytes");
  CHECK_EQ(load(artifact(mapEdited(R"("strides": [32, 160])",
                                   R"("strides": [32, 576])")),
                error),
           FKRT_SUCCESS);
  expectInvalid(mapEdited(R"("strides": [32, 160])", R"("strides": [32, 592])"),
                a1 + ": the map reaches 752 bytes (dims[0] * element size + "
                     "the sum of (dims[i] - 1) * strides[i - 1]), more than "
                     "the 744 bytes of buffer 2");
  expectInvalid(mapEdited(R"("dims": [32], )", R"("dims": [36], )"),
                a2 + ": the map reaches 144 bytes (dims[0] * element size + "
                     "the sum of (dims[i] - 1) * strides[i - 1]), more than "
                     "the 128 bytes of buffer 1");
  // Reaches beyond 2^63: one term alone, and a sum of terms that each fit
  // (2^63 - 2^27 + 2^40 - 16).
  expectInvalid(mapEdited(R"("dims": [8, 5, 2], "strides": [32, 160])",
                          R"("dims": [8, 4294967296, 4294967296], )"
                          R"("strides": [1099511627760, 1099511627760])"),
                a1 + ": the map reaches more than 2^63 bytes");
  expectInvalid(mapEdited(R"("dims": [8, 5, 2], "strides": [32, 160])",
                          R"("dims": [8, 8388609, 2], )"
                          R"("strides": [1099511627760, 1099511627760])"),
                a1 + ": the map reaches more than 2^63 bytes");

  // Without a driver, a run of a graph with tensor maps fails like any
  // other (the arguments are checked first).
  CHECK_EQ(fkrt_module_load_memory(text.data(), text.size(), &m),
           FKRT_SUCCESS);
  int64_t xShape[] = {64, 128}, yShape[] = {4, 8};
  void *p = reinterpret_cast<void *>(uintptr_t(0x10000));
  fkrt_tensor in[1] = {{p, FKRT_F16, 2, xShape}};
  fkrt_tensor out[1] = {{p, FKRT_F32, 2, yShape}};
  fkrt_status status = fkrt_run(m, "g", in, 1, out, 1, nullptr);
  CHECK_EQ(status, fkrt_driver_available() == FKRT_SUCCESS
                       ? FKRT_ERROR_NOT_LOADED
                       : FKRT_ERROR_NO_DRIVER);
  fkrt_module_destroy(m);
}

void testSyntaxErrors() {
  expectInvalid(edited(R"({"i32": 7}])", R"({"i32": 7},])"),
                "manifest: line 2, column");
  expectInvalid(edited(R"("version": 1, )", R"("version": 1, "version": 1, )"),
                "duplicate member 'version'");
  expectInvalid(edited(R"("target": "sm_90")", R"("target": "sm_\x90")"),
                "invalid escape '\\x'");
  expectInvalid(edited(R"("target": "sm_90")", "\"target\": \"sm\t90\""),
                "control character byte 0x09 in a string");
  expectInvalid(edited(R"("target": "sm_90")", R"("target": "\ud800")"),
                "unpaired surrogate");
  expectInvalid(kBase + " x", "unexpected text after the JSON value");
  expectInvalid(edited(R"("version": 1)", R"("version": tru)"),
                "invalid literal, expected 'true'");
  expectInvalid(edited(R"("version": 1)", R"("version": -)"), "invalid number");
  expectInvalid(edited(R"("version": 1)", R"("version": 01)"),
                "expected ',' or '}'");
  expectInvalid(std::string(100000, '['), "nesting deeper than 64");
  // 64 levels counting the outer object are allowed, 65 are not.
  expectInvalid(edited(R"("version": 1)",
                       R"("version": 1, "x": )" + std::string(64, '[') +
                           std::string(64, ']')),
                "nesting deeper than 64");
  std::string error;
  CHECK_EQ(load(artifact(edited(R"("version": 1)",
                                R"("version": 1, "x": )" + std::string(63, '[') +
                                    std::string(63, ']'))),
                error),
           FKRT_SUCCESS);
  // The reported position is the artifact's own line and column.
  std::string multiLine = "// a comment\n// fkc-manifest-begin\n// {\n//  \"format\": ]\n// }\n// fkc-manifest-end\n";
  expectError(multiLine, FKRT_ERROR_INVALID_ARTIFACT,
              "manifest: line 4, column 15: expected a value, found ']'");
}

void testFraming() {
  expectError(kPtx, FKRT_ERROR_INVALID_ARTIFACT,
              "manifest: no '// fkc-manifest-begin' line in the artifact's "
              "leading comment block");
  expectError("", FKRT_ERROR_INVALID_ARTIFACT, "no '// fkc-manifest-begin'");
  // A manifest after the leading comment block is not looked for.
  expectError(kPtx + artifact(kBase), FKRT_ERROR_INVALID_ARTIFACT,
              "no '// fkc-manifest-begin'");
  expectError("// fkc-manifest-begin\n// " + kBase + "\n" + kPtx,
              FKRT_ERROR_INVALID_ARTIFACT,
              "manifest: no '// fkc-manifest-end' line after the '// "
              "fkc-manifest-begin' of line 1");
  expectError("// fkc-manifest-begin\n//" + kBase + "\n// fkc-manifest-end\n",
              FKRT_ERROR_INVALID_ARTIFACT,
              "manifest: line 2: expected a line starting with '// ' inside "
              "the manifest");
  std::string withNul = artifact(kBase);
  withNul[withNul.size() - 3] = '\0';
  expectError(withNul, FKRT_ERROR_INVALID_ARTIFACT, "artifact: NUL byte at offset");
  fkrt_module m = reinterpret_cast<fkrt_module>(1);
  CHECK_EQ(fkrt_module_load_memory(nullptr, 5, &m), FKRT_ERROR_INVALID_ARGUMENT);
  CHECK(m == nullptr);
  CHECK_EQ(fkrt_module_load_memory("x", 1, nullptr), FKRT_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(fkrt_module_load_file(nullptr, &m), FKRT_ERROR_INVALID_ARGUMENT);
  CHECK_EQ(fkrt_module_load_file("/nonexistent/a.ptx", &m), FKRT_ERROR_IO);
  CHECK(std::strstr(fkrt_last_error(), "/nonexistent/a.ptx: cannot open: "));
  // A directory opens but cannot be read.
  CHECK_EQ(fkrt_module_load_file(FKRT_TEST_DATA_DIR, &m), FKRT_ERROR_IO);
  CHECK(std::strstr(fkrt_last_error(), FKRT_TEST_DATA_DIR ": read error"));
}

/// Every proper prefix of the sample artifact fails to load, except those
/// that keep the whole manifest and every kernel name: a textual check
/// cannot see that the PTX after the last name is cut (the JIT does).
void testTruncation() {
  std::string sample = fkrt_test::readFile(kSamplePath);
  CHECK(!sample.empty());
  size_t lastEntry = sample.rfind(".entry mask_k0");
  CHECK(lastEntry != std::string::npos);
  size_t needed = lastEntry + std::strlen(".entry mask_k0");
  size_t wrong = 0;
  for (size_t n = 0; n < sample.size(); ++n) {
    std::string error;
    fkrt_status status = load(sample.substr(0, n), error);
    bool expectOk = n >= needed;
    if ((status == FKRT_SUCCESS) != expectOk || (!expectOk && error.empty()))
      ++wrong;
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
  void *p = reinterpret_cast<void *>(uintptr_t(0x10000));
  fkrt_tensor in[2] = {{p, FKRT_F16, 2, xShape}, {p, FKRT_F16, 2, wShape}};
  fkrt_tensor out[1] = {{p, FKRT_F16, 2, yShape}};

  auto run = [&](const char *graph, const fkrt_tensor *i, size_t ni,
                 fkrt_tensor *o, size_t no) {
    return fkrt_run(m, graph, i, ni, o, no, nullptr);
  };
  auto expect = [&](fkrt_status got, fkrt_status status, const char *text) {
    bool ok = got == status && std::strstr(fkrt_last_error(), text);
    CHECK(ok);
    if (!ok)
      std::printf("  got %d: '%s', expected '%s'\n", got, fkrt_last_error(),
                  text);
  };

  expect(fkrt_run(nullptr, "mlp", in, 2, out, 1, nullptr),
         FKRT_ERROR_INVALID_ARGUMENT, "fkrt_run: module is null");
  expect(run(nullptr, in, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph_name is null");
  expect(run("mlp2", in, 2, out, 1), FKRT_ERROR_NOT_FOUND,
         "fkrt_run: no graph named 'mlp2'");
  expect(run("mlp", in, 1, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'mlp' takes 2 inputs, got 1");
  expect(run("mlp", nullptr, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'mlp': inputs array is null");
  expect(run("mlp", in, 2, out, 0), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'mlp' takes 1 outputs, got 0");

  fkrt_tensor bad[2] = {in[0], in[1]};
  bad[1].data = nullptr;
  expect(run("mlp", bad, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'mlp' input 1 ('w'): data is null");
  bad[1] = in[1];
  bad[1].data = reinterpret_cast<void *>(uintptr_t(0x10001));
  expect(run("mlp", bad, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "input 1 ('w'): data is not aligned to 16 bytes");
  // Aligned to the element size is not enough: kernels use 16-byte vectors.
  bad[1].data = reinterpret_cast<void *>(uintptr_t(0x10008));
  expect(run("mlp", bad, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "input 1 ('w'): data is not aligned to 16 bytes");
  bad[1] = in[1];
  bad[1].dtype = FKRT_BF16;
  expect(run("mlp", bad, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "input 1 ('w'): expected dtype f16, got bf16");
  bad[1].dtype = 42;
  expect(run("mlp", bad, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "input 1 ('w'): unknown dtype 42");
  bad[1] = in[1];
  bad[1].rank = 3;
  expect(run("mlp", bad, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "input 1 ('w'): expected rank 2, got 3");
  bad[1] = in[1];
  bad[1].shape = nullptr;
  expect(run("mlp", bad, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "input 1 ('w'): shape is null");
  int64_t wrongShape[] = {32, 31};
  bad[1].shape = wrongShape;
  expect(run("mlp", bad, 2, out, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "input 1 ('w'): dimension 1 is 31, expected 32");
  fkrt_tensor badOut[1] = {out[0]};
  badOut[0].dtype = FKRT_F32;
  expect(run("mlp", in, 2, badOut, 1), FKRT_ERROR_INVALID_ARGUMENT,
         "fkrt_run: graph 'mlp' output 0 ('y'): expected dtype f16, got f32");

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

} // namespace

int main() {
  testSample();
  testCppWrapper();
  testBaseValid();
  testVersioning();
  testFieldErrors();
  testBufferErrors();
  testLaunchErrors();
  testTensorMaps();
  testSyntaxErrors();
  testFraming();
  testTruncation();
  testByteFlips();
  testRunValidation();
  testNoDriver();
  testDeviceApiWithoutGpu();
  testStatusAndDtypes();
  testThreadLocalError();
  testConcurrentQueries();
  return fkrt_test::finish();
}

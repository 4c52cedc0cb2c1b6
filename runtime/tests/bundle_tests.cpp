//===- bundle_tests.cpp - Tests of the tensor bundle library --------------===//
//
// The exact encoding, round trips through memory and files, every rule of
// the reader and the writer with its message, every truncation and many
// corruptions of a valid bundle (never a crash; what still parses encodes
// back to the same bytes). Prints "N passed, M failed" last.
//
//===----------------------------------------------------------------------===//

#include "BundleTestSupport.h"
#include "fkrt/bundle.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

namespace {

using namespace fkrt_bundle_test;

using namespace fkrt::bundle;

/// Builds bundle bytes field by field, for inputs the writer refuses to make.
struct Bytes {
  std::string s;
  Bytes &raw(const std::string &b) {
    s += b;
    return *this;
  }
  Bytes &le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      s += static_cast<char>(v >> (8 * i));
    return *this;
  }
  Bytes &u32(uint32_t v) { return le(v, 4); }
  Bytes &u64(uint64_t v) { return le(v, 8); }
  Bytes &i64(int64_t v) { return le(static_cast<uint64_t>(v), 8); }
  Bytes &str(const std::string &v) { return u32(v.size()).raw(v); }
  /// A magic number and a graph header.
  static Bytes graph(const std::string &name, uint32_t inputs,
                     uint32_t outputs) {
    Bytes b;
    b.raw(std::string(kMagic, 8))
        .u32(1)
        .str(name)
        .u64(7)
        .u32(inputs)
        .u32(outputs);
    return b;
  }
};

/// Two graphs with every dtype, a scalar and an empty tensor.
Bundle sample() {
  Bundle b;
  b.graphs.push_back(
      {"mlp",
       42,
       {tensor("x", FKRT_F16, {2, 3}), tensor("w", FKRT_BF16, {3, 4}, 9)},
       {tensor("y", FKRT_F32, {2, 4}, 3)}});
  b.graphs.push_back(
      {"misc",
       0xFFFFFFFFFFFFFFFFull,
       {tensor("i", FKRT_I32, {5}), tensor("m", FKRT_I1, {7}),
        tensor("s", FKRT_F32, {})},
       {tensor("e", FKRT_F32, {4, 0, 3}), tensor("b", FKRT_I1, {1, 1, 2})}});
  return b;
}

bool same(const Bundle &a, const Bundle &b) {
  if (a.graphs.size() != b.graphs.size())
    return false;
  for (size_t g = 0; g < a.graphs.size(); ++g) {
    const Graph &x = a.graphs[g], &y = b.graphs[g];
    if (x.name != y.name || x.seed != y.seed ||
        x.inputs.size() != y.inputs.size() ||
        x.outputs.size() != y.outputs.size())
      return false;
    for (int pass = 0; pass < 2; ++pass) {
      const auto &l = pass ? x.outputs : x.inputs;
      const auto &r = pass ? y.outputs : y.inputs;
      for (size_t t = 0; t < l.size(); ++t)
        if (l[t].name != r[t].name || l[t].dtype != r[t].dtype ||
            l[t].shape != r[t].shape || l[t].data != r[t].data)
          return false;
    }
  }
  return true;
}

/// Expects `bytes` to be rejected with an error containing `message`.
void expectError(const std::string &bytes, const std::string &message) {
  Bundle b;
  std::string error;
  bool ok = !parse(bytes.data(), bytes.size(), b, error) &&
            error.find(message) != std::string::npos && b.graphs.empty();
  CHECK(ok);
  if (!ok)
    std::printf("  expected an error containing: %s\n  got: %s\n",
                message.c_str(), error.c_str());
}

/// Expects the writer to refuse `bundle` with a message containing
/// `message`.
void expectInvalid(const Bundle &bundle, const std::string &message) {
  std::string bytes, error;
  bool ok = !serialize(bundle, bytes, error) &&
            error.find(message) != std::string::npos;
  CHECK(ok);
  if (!ok)
    std::printf("  expected a writer error containing: %s\n  got: %s\n",
                message.c_str(), error.c_str());
}

void testEncoding() {
  // One graph, one i1 input and one f32 scalar output, byte for byte.
  Bundle b;
  b.graphs.push_back({"g",
                      0x0102030405060708ull,
                      {{"m", FKRT_I1, {3}, {1, 0, 1}}},
                      {{"y", FKRT_F32, {}, {0, 0, 0x80, 0x3f}}}});
  std::string bytes, error;
  CHECK(serialize(b, bytes, error));
  Bytes want;
  want.raw("FKTNSR01").u32(1).str("g").u64(0x0102030405060708ull);
  want.u32(1).u32(1);
  want.str("m").u32(4).u32(1).i64(3).u64(3).raw(std::string("\1\0\1", 3));
  want.str("y").u32(0).u32(0).u64(4).raw(std::string("\0\0\x80\x3f", 4));
  CHECK(bytes == want.s);
  CHECK(bytes.compare(0, 12, std::string("FKTNSR01\1\0\0\0", 12)) == 0);
}

void testRoundTrip() {
  Bundle b = sample(), back;
  std::string bytes, error;
  CHECK(validate(b, error));
  CHECK(serialize(b, bytes, error));
  CHECK(parse(bytes.data(), bytes.size(), back, error));
  CHECK(same(b, back));
  CHECK(back.find("misc") == &back.graphs[1]);
  CHECK(back.find("nope") == nullptr);
  CHECK(back.graphs[1].outputs[0].data.empty());
  CHECK(back.graphs[1].inputs[2].elementCount() == 1);

  // Through a file; the writer leaves no temporary file behind.
  std::string dir = tempDir("fkrt-bundle-tests"), path = dir + "/b.fkt";
  CHECK(write(path, b, error));
  CHECK(readFile(path) == bytes);
  CHECK(access((path + ".partial").c_str(), F_OK) != 0);
  CHECK(read(path, back, error));
  CHECK(same(b, back));

  // An empty bundle is valid.
  Bundle empty;
  std::string emptyBytes;
  CHECK(serialize(empty, emptyBytes, error));
  CHECK(emptyBytes.size() == 12);
  CHECK(parse(emptyBytes.data(), emptyBytes.size(), back, error) &&
        back.graphs.empty());

  // File errors.
  CHECK(!read(dir + "/missing.fkt", back, error));
  CHECK(error == dir + "/missing.fkt: cannot open: No such file or directory");
  CHECK(!read(dir, back, error));
  CHECK(error == dir + ": not a regular file");
  CHECK(!write(dir + "/no/such/dir/b.fkt", b, error));
  CHECK(error.find("/no/such/dir/b.fkt.partial: cannot create: No such file "
                   "or directory") != std::string::npos);
  std::string bad = dir + "/bad.fkt";
  std::ofstream(bad, std::ios::binary) << std::string("FKTNSR01\1\0\0\0", 12);
  CHECK(!read(bad, back, error));
  CHECK(error == bad + ": byte 12: graphs[0]: truncated: name_len needs 4 "
                       "bytes, 0 left");
  Bundle invalid = sample();
  invalid.graphs[0].inputs[0].data.pop_back();
  CHECK(!write(path, invalid, error));
  CHECK(error.find(path + ": graphs[0] ('mlp').inputs[0] ('x'): holds 11 "
                          "bytes, f16[2, 3] takes 12") == 0);
  CHECK(readFile(path) == bytes); // the old file is left alone
  std::remove(path.c_str());
  std::remove(bad.c_str());
  rmdir(dir.c_str());
}

void testReaderErrors() {
  std::string magic(kMagic, 8);
  expectError("", "byte 0: truncated: the magic number needs 8 bytes, 0 left");
  expectError("FKTNSR0", "truncated: the magic number needs 8 bytes, 7 left");
  expectError("FKTNSRXX\1\0\0\0", "byte 6: unsupported bundle version \"XX\"");
  expectError("GGUF0001\0\0\0\0",
              "byte 0: not a tensor bundle (it does not start with "
              "\"FKTNSR01\")");
  expectError(magic + "\1\0", "byte 8: truncated: graph_count needs 4 bytes");
  expectError(Bytes().raw(magic).u32(0).raw("x").s,
              "byte 12: 1 trailing bytes after the last graph");
  // Counts and lengths far beyond the data are truncations, found before
  // anything is allocated for them.
  expectError(Bytes().raw(magic).u32(0xFFFFFFFF).s,
              "byte 12: graphs[0]: truncated: name_len needs 4 bytes");
  expectError(Bytes().raw(magic).u32(1).u32(0xFFFFFFFF).raw("g").s,
              "byte 16: graphs[0]: truncated: name needs 4294967295 bytes, 1 "
              "left");
  expectError(Bytes::graph("g", 0xFFFFFFFF, 0xFFFFFFFF).s,
              "graphs[0] ('g').inputs[0]: truncated: name_len needs 4 bytes");
  expectError(Bytes().raw(magic).u32(1).str("").s,
              "byte 16: graphs[0]: empty name");
  expectError(Bytes().raw(magic).u32(1).str("a\nb").s,
              "byte 16: graphs[0]: name contains a control character");
  expectError(
      Bytes().raw(magic).u32(2).str("g").u64(0).u32(0).u32(0).str("g").s,
      "byte 33: graphs[1] ('g'): duplicate graph name");

  // Tensor fields.
  auto t = [](const std::string &name, uint32_t dtype,
              std::vector<int64_t> dims, uint64_t bytes) {
    Bytes b = Bytes::graph("g", 1, 0);
    b.str(name).u32(dtype).u32(dims.size());
    for (int64_t d : dims)
      b.i64(d);
    return b.u64(bytes);
  };
  const std::string x = "graphs[0] ('g').inputs[0] ('x'): ";
  expectError(t("x", 6, {}, 4).s, "byte 38: " + x + "unknown dtype 6");
  // An i64 scalar holds 8 bytes.
  expectError(t("x", FKRT_I64, {}, 4).s, x + "byte_count is 4, i64[] takes 8");
  expectError(t("x", 0xFFFFFFFF, {}, 4).s, "unknown dtype 4294967295");
  expectError(t("x", 0, std::vector<int64_t>(17, 1), 4).s,
              "byte 42: " + x + "rank 17 exceeds 16");
  expectError(t("x", 0, {2, -3}, 0).s,
              "byte 46: " + x + "dimension 1 is negative (-3)");
  expectError(t("x", 0, {int64_t(1) << 40, int64_t(1) << 40}, 0).s,
              x + "size of f32[1099511627776, 1099511627776] overflows 64 "
                  "bits");
  expectError(t("x", 2, {int64_t(1) << 62}, 0).s,
              "size of bf16[4611686018427387904] overflows 64 bits");
  // A zero dimension makes the tensor empty, however large the others.
  expectError(t("x", 0, {0, int64_t(1) << 62, 8}, 8).s,
              x + "byte_count is 8, f32[0, 4611686018427387904, 8] takes 0");
  expectError(t("x", 0, {2, 3}, 12).s,
              "byte 62: " + x + "byte_count is 12, f32[2, 3] takes 24");
  expectError(t("x", 0, {2, 3}, 24).raw("abc").s,
              "byte 70: " + x + "truncated: data needs 24 bytes, 3 left");
  expectError(t("x", 4, {4}, 4).raw(std::string("\1\0\2\1", 4)).s,
              "byte 64: " + x + "i1 element 2 is 2, not 0 or 1");
  expectError(t("", 0, {}, 4).s, "graphs[0] ('g').inputs[0]: empty name");
  Bytes dup = Bytes::graph("g", 1, 1);
  dup.str("x").u32(0).u32(0).u64(4).raw("abcd");
  dup.str("x").u32(0).u32(0).u64(4).raw("abcd");
  expectError(dup.s, "graphs[0] ('g').outputs[0] ('x'): duplicate tensor name");
  // Accepted: the same tensor, well formed.
  Bundle b;
  std::string error, ok = t("x", 0, {2}, 8).raw("12345678").s;
  CHECK(parse(ok.data(), ok.size(), b, error));
  CHECK(b.graphs.size() == 1 && b.graphs[0].seed == 7 &&
        b.graphs[0].inputs[0].shape == std::vector<int64_t>{2});
  CHECK(parse(nullptr, 0, b, error) == false);
}

void testWriterErrors() {
  Bundle b = sample();
  b.graphs[1].name = "mlp";
  expectInvalid(b, "graphs[1] ('mlp'): duplicate graph name");
  b = sample();
  b.graphs[0].name = "";
  expectInvalid(b, "graphs[0] (''): empty name");
  b = sample();
  b.graphs[0].outputs[0].name = "x";
  expectInvalid(b, "graphs[0] ('mlp').outputs[0] ('x'): duplicate tensor name");
  b = sample();
  b.graphs[0].inputs[1].name = "tab\there";
  expectInvalid(b, "name contains a control character");
  b = sample();
  b.graphs[0].inputs[0].dtype = static_cast<fkrt_dtype>(9);
  expectInvalid(b, "inputs[0] ('x'): unknown dtype 9");
  b = sample();
  b.graphs[0].inputs[0].shape.assign(17, 1);
  expectInvalid(b, "rank 17 exceeds 16");
  b = sample();
  b.graphs[0].inputs[0].shape = {-1};
  expectInvalid(b, "dimension 0 is negative (-1)");
  b = sample();
  b.graphs[0].inputs[0].shape = {int64_t(1) << 62, 4};
  expectInvalid(b, "overflows 64 bits");
  b = sample();
  b.graphs[1].inputs[1].data[3] = 7;
  expectInvalid(b, "graphs[1] ('misc').inputs[1] ('m'): i1 element 3 is 7, "
                   "not 0 or 1");
  b = sample();
  b.graphs[0].outputs[0].data.push_back(0);
  expectInvalid(b, "outputs[0] ('y'): holds 33 bytes, f32[2, 4] takes 32");
}

/// Every strict prefix of a valid bundle is a truncation.
void testTruncation() {
  std::string bytes, error;
  serialize(sample(), bytes, error);
  int wrong = 0;
  for (size_t n = 0; n < bytes.size(); ++n) {
    Bundle b;
    if (parse(bytes.data(), n, b, error) ||
        error.find("truncated") == std::string::npos) {
      if (++wrong < 5)
        std::printf("prefix of %zu bytes: %s\n", n, error.c_str());
    }
  }
  CHECK(wrong == 0);
}

/// Single-byte changes at every offset and random multi-byte corruptions:
/// no crash, an error message on failure, and what parses encodes back to
/// exactly the bytes it came from.
void testCorruption() {
  std::string bytes, error;
  serialize(sample(), bytes, error);
  int wrong = 0, parsed = 0, total = 0;
  auto attempt = [&](const std::string &input) {
    Bundle b;
    std::string out;
    ++total;
    if (!parse(input.data(), input.size(), b, error)) {
      wrong += error.empty();
      return;
    }
    ++parsed;
    wrong += !serialize(b, out, error) || out != input;
  };
  for (size_t i = 0; i < bytes.size(); ++i)
    for (int v : {0x00, 0x01, 0x02, 0x7f, 0x80, 0xff}) {
      std::string c = bytes;
      c[i] = static_cast<char>(c[i] ^ v);
      attempt(c);
    }
  std::mt19937 random(12345);
  for (int k = 0; k < 20000; ++k) {
    std::string c = bytes;
    int flips = 1 + static_cast<int>(random() % 4);
    for (int f = 0; f < flips; ++f)
      c[random() % c.size()] = static_cast<char>(random());
    if (random() % 4 == 0)
      c.resize(random() % (c.size() + 1));
    attempt(c);
  }
  CHECK(wrong == 0);
  std::printf("corruptions: %d of %d still parsed\n", parsed, total);
}

} // namespace

int main() {
  testEncoding();
  testRoundTrip();
  testReaderErrors();
  testWriterErrors();
  testTruncation();
  testCorruption();
  return finish();
}

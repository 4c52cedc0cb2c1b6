//===- safetensors_tests.cpp - Tests of the .safetensors library ----------===//
//
// The writer's exact layout, round trips through memory and files, every
// rejection of the reader and the writer with its message, every truncation
// and many corruptions of a valid file (never a crash; what still parses
// writes and reads back to the same tensors), and the binding of tensors to
// parameters by name. Prints "N passed, M failed" last.
//
//===----------------------------------------------------------------------===//

#include "BundleTestSupport.h"
#include "fkrt/safetensors.hpp"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

namespace {

using namespace fkrt_bundle_test;

using namespace fkrt::safetensors;
using fkrt::bundle::Tensor;

/// Every dtype, a scalar, an empty tensor and metadata.
File sample() {
  File f;
  f.tensors = {tensor("x", FKRT_F16, {2, 3}),     tensor("w", FKRT_BF16, {3}, 9),
               tensor("y", FKRT_F32, {2, 2}, 3),  tensor("i", FKRT_I32, {5}),
               tensor("m", FKRT_I1, {7}),         tensor("s", FKRT_F32, {}),
               tensor("e", FKRT_F32, {4, 0, 3}), tensor("l", FKRT_I64, {2})};
  f.metadata = {{"format", "pt"}, {"note", "a \"quoted\" value"}};
  return f;
}

/// Whether `a` and `b` hold the same tensors (in any order) and metadata.
bool same(const File &a, const File &b) {
  if (a.tensors.size() != b.tensors.size() || a.metadata != b.metadata)
    return false;
  for (const Tensor &t : a.tensors) {
    const Tensor *u = b.find(t.name);
    if (!u || u->dtype != t.dtype || u->shape != t.shape || u->data != t.data)
      return false;
  }
  return true;
}

/// A file of `header` (the JSON text as is) and `data` bytes.
std::string fileOf(const std::string &header, size_t data = 0) {
  std::string s;
  for (int i = 0; i < 8; ++i)
    s += static_cast<char>(static_cast<uint64_t>(header.size()) >> (8 * i));
  return s + header + std::string(data, '\0');
}

/// Expects `bytes` to be rejected with an error containing `message`.
void expectError(const std::string &bytes, const std::string &message) {
  File f;
  std::string error;
  bool ok = !parse(bytes.data(), bytes.size(), f, error) &&
            error.find(message) != std::string::npos && f.tensors.empty();
  CHECK(ok);
  if (!ok)
    std::printf("  expected an error containing: %s\n  got: %s\n",
                message.c_str(), error.c_str());
}

void expectInvalid(const File &file, const std::string &message) {
  std::string bytes, error;
  bool ok = !serialize(file, bytes, error) &&
            error.find(message) != std::string::npos;
  CHECK(ok);
  if (!ok)
    std::printf("  expected a writer error containing: %s\n  got: %s\n",
                message.c_str(), error.c_str());
}

void testLayout() {
  File f;
  f.tensors = {{"b", FKRT_I1, {3}, {1, 0, 1}},
               {"a", FKRT_F16, {1}, {0x00, 0x3c}},
               {"c", FKRT_I64, {}, {1, 0, 0, 0, 0, 0, 0, 0}}};
  std::string bytes, error;
  CHECK(serialize(f, bytes, error));
  // Largest elements first, the header padded with spaces to 8 bytes.
  std::string header =
      "{\"c\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[0,8]},"
      "\"a\":{\"dtype\":\"F16\",\"shape\":[1],\"data_offsets\":[8,10]},"
      "\"b\":{\"dtype\":\"BOOL\",\"shape\":[3],\"data_offsets\":[10,13]}}";
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string want = fileOf(header);
  want += std::string("\1\0\0\0\0\0\0\0\0\x3c\1\0\1", 13);
  CHECK(bytes == want);
  CHECK((bytes.size() - 13) % 8 == 0);
  File back;
  CHECK(parse(bytes.data(), bytes.size(), back, error));
  CHECK(same(f, back));
  // Read back in file order.
  CHECK(back.tensors.size() == 3 && back.tensors[0].name == "c" &&
        back.tensors[2].name == "b");

  // Metadata comes first; an empty file is "{}" padded.
  File empty;
  CHECK(serialize(empty, bytes, error));
  CHECK(bytes == fileOf("{}      "));
  CHECK(parse(bytes.data(), bytes.size(), back, error) &&
        back.tensors.empty() && back.metadata.empty());
  empty.metadata = {{"k", "v"}};
  CHECK(serialize(empty, bytes, error));
  CHECK(bytes == fileOf("{\"__metadata__\":{\"k\":\"v\"}}      "));
}

void testRoundTrip() {
  File f = sample(), back;
  std::string bytes, error;
  CHECK(serialize(f, bytes, error));
  CHECK(parse(bytes.data(), bytes.size(), back, error));
  CHECK(same(f, back));
  CHECK(back.find("s") && back.find("s")->shape.empty() &&
        back.find("s")->data.size() == 4);
  CHECK(back.find("e") && back.find("e")->data.empty());
  CHECK(back.find("nope") == nullptr);

  std::string dir = tempDir("fkrt-safetensors-tests"), path = dir + "/f.safetensors";
  CHECK(write(path, f, error));
  CHECK(readFile(path) == bytes);
  CHECK(access((path + ".partial").c_str(), F_OK) != 0);
  CHECK(read(path, back, error));
  CHECK(same(f, back));

  // A header with spaces, keys in any order, metadata anywhere, and
  // zero-byte tensors sharing an offset, as other writers may make.
  std::string loose = fileOf(
      " { \"b\" : {\"data_offsets\": [4, 6], \"shape\": [1], \"dtype\": "
      "\"F16\"}, \"__metadata__\": {}, \"z\": {\"dtype\": \"F32\", "
      "\"shape\": [0, 5], \"data_offsets\": [4, 4]}, \"a\": {\"dtype\": "
      "\"I32\", \"shape\": [1], \"data_offsets\": [0, 4]}, \"y\": "
      "{\"dtype\": \"BOOL\", \"shape\": [0], \"data_offsets\": [4, 4]} } ",
      6);
  CHECK(parse(loose.data(), loose.size(), back, error));
  CHECK(back.tensors.size() == 4 && back.tensors[0].name == "a" &&
        back.tensors[3].name == "b");

  // File errors.
  CHECK(!read(dir + "/missing.safetensors", back, error));
  CHECK(error ==
        dir + "/missing.safetensors: cannot open: No such file or directory");
  CHECK(!read(dir, back, error));
  CHECK(error == dir + ": not a regular file");
  CHECK(!write(dir + "/no/such/dir/f.safetensors", f, error));
  CHECK(error.find("cannot create") != std::string::npos);

  // Several files taken together; a name in two of them is an error.
  File other;
  other.tensors = {tensor("q", FKRT_F32, {1})};
  CHECK(write(dir + "/g.safetensors", other, error));
  std::vector<Tensor> tensors;
  std::vector<std::string> origins;
  CHECK(readAll({path, dir + "/g.safetensors"}, tensors, origins, error));
  CHECK(tensors.size() == 9 && origins.size() == 9 &&
        tensors.back().name == "q" && origins.back() == dir + "/g.safetensors");
  CHECK(!readAll({path, dir + "/g.safetensors", path}, tensors, origins,
                 error));
  CHECK(error.find("' is in both " + path + " and " + path) !=
        std::string::npos);
  CHECK(!readAll({dir + "/missing.safetensors"}, tensors, origins, error));
  CHECK(error.find("missing.safetensors: cannot open") != std::string::npos);
}

/// A header holding one tensor entry `entry` named "t", then `data` bytes.
std::string oneTensor(const std::string &entry, size_t data) {
  return fileOf("{\"t\":" + entry + "}", data);
}

void testReaderErrors() {
  expectError("", "truncated: 0 bytes, the header length alone takes 8");
  expectError(std::string("\1\0\0\0", 4), "truncated: 4 bytes");
  std::string huge(8, '\0');
  huge[4] = 1; // 2^32
  expectError(huge, "header length 4294967296 exceeds the limit of 100000000");
  expectError(std::string("\x10\0\0\0\0\0\0\0{}", 10),
              "truncated: header length 16 runs past the end of the file (10 "
              "bytes)");
  expectError(fileOf("{\"a\xff\":1}"), "header: byte 11 is not valid UTF-8");
  expectError(fileOf("{"), "header: line 1, column 2: expected a member name");
  expectError(fileOf(""), "header: line 1, column 1: expected a value");
  expectError(fileOf("[]"), "header: not a JSON object");
  expectError(fileOf("{\"t\":{\"dtype\":\"F32\",\"shape\":[],"
                     "\"data_offsets\":[0,4]},\"t\":{}}",
                     4),
              "duplicate member 't'");
  expectError(fileOf("{\"t\":{\"dtype\":{\"a\":{\"b\":[1]}}}}"),
              "nesting deeper than 4");
  expectError(fileOf("{\"__metadata__\":[]}"),
              "header: __metadata__ is not an object of strings");
  expectError(fileOf("{\"__metadata__\":{\"k\":1}}"),
              "header: __metadata__ 'k' is not a string");

  expectError(oneTensor("[]", 0),
              "tensor 't': not an object with dtype, shape and data_offsets");
  expectError(oneTensor("{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,"
                        "4],\"stride\":[]}",
                        4),
              "tensor 't': unknown field 'stride'");
  expectError(oneTensor("{\"shape\":[],\"data_offsets\":[0,4]}", 4),
              "tensor 't': no dtype");
  expectError(oneTensor("{\"dtype\":\"F32\",\"data_offsets\":[0,4]}", 4),
              "tensor 't': no shape");
  expectError(oneTensor("{\"dtype\":\"F32\",\"shape\":[]}", 4),
              "tensor 't': no data_offsets");
  expectError(oneTensor("{\"dtype\":3,\"shape\":[],\"data_offsets\":[0,4]}", 4),
              "tensor 't': dtype is not a string");
  expectError(
      oneTensor("{\"dtype\":\"F64\",\"shape\":[],\"data_offsets\":[0,8]}", 8),
      "tensor 't': dtype F64 is not one fkc supports (F32, F16, BF16, I32, "
      "BOOL, I64)");
  expectError(
      oneTensor("{\"dtype\":\"f32\",\"shape\":[],\"data_offsets\":[0,4]}", 4),
      "tensor 't': dtype f32 is not one fkc supports");
  expectError(
      oneTensor("{\"dtype\":\"F32\",\"shape\":1,\"data_offsets\":[0,4]}", 4),
      "tensor 't': shape is not an array");
  expectError(oneTensor("{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1,1,1,"
                        "1,1,1,1,1,1],\"data_offsets\":[0,4]}",
                        4),
              "tensor 't': rank 17 exceeds 16");
  for (const char *bad : {"-1", "1.5", "1e3", "\"2\"", "9223372036854775808"})
    expectError(oneTensor(std::string("{\"dtype\":\"F32\",\"shape\":[1,") +
                              bad + "],\"data_offsets\":[0,4]}",
                          4),
                "tensor 't': shape[1] is not an integer in [0, 2^63)");
  expectError(oneTensor("{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],"
                        "\"data_offsets\":[0,4]}",
                        4),
              "tensor 't': size of f32[4294967296, 4294967296] overflows");
  for (const char *bad : {"[0]", "[0,4,4]", "{}", "[0,-4]", "[0,4.0]"})
    expectError(oneTensor(std::string("{\"dtype\":\"F32\",\"shape\":[],"
                                      "\"data_offsets\":") +
                              bad + "}",
                          4),
                "tensor 't': data_offsets is not two integers in [0, 2^63)");
  expectError(
      oneTensor("{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[4,0]}", 4),
      "tensor 't': data_offsets [4, 0] end before they begin");
  expectError(
      oneTensor("{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}", 4),
      "tensor 't': data_offsets [0, 8] run past the end of the data section "
      "(4 bytes)");
  expectError(
      oneTensor("{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}", 4),
      "tensor 't': data_offsets [0, 4] hold 4 bytes, f32[2] takes 8");
  expectError(fileOf("{\"\":{\"dtype\":\"F32\",\"shape\":[],"
                     "\"data_offsets\":[0,4]}}",
                     4),
              "tensor '': empty name");
  expectError(fileOf("{\"a\\nb\":{\"dtype\":\"F32\",\"shape\":[],"
                     "\"data_offsets\":[0,4]}}",
                     4),
              "name contains a control character");

  // The byte ranges must tile the data section.
  auto entry = [](const char *name, int begin, int end) {
    return std::string("\"") + name +
           "\":{\"dtype\":\"I32\",\"shape\":[" + std::to_string((end - begin) / 4) +
           "],\"data_offsets\":[" + std::to_string(begin) + "," +
           std::to_string(end) + "]}";
  };
  expectError(fileOf("{" + entry("a", 0, 8) + "," + entry("b", 4, 12) + "}",
                     12),
              "tensor 'b': data_offsets [4, 12] overlap those of tensor 'a' "
              "[0, 8]");
  expectError(fileOf("{" + entry("a", 0, 8) + "," + entry("b", 0, 8) + "}", 8),
              "overlap those of tensor");
  expectError(fileOf("{" + entry("a", 0, 4) + "," + entry("b", 8, 12) + "}",
                     12),
              "bytes [4, 8) of the data section belong to no tensor");
  expectError(fileOf("{" + entry("a", 4, 8) + "}", 8),
              "bytes [0, 4) of the data section belong to no tensor");
  expectError(fileOf("{" + entry("a", 0, 4) + "}", 6),
              "bytes [4, 6) of the data section belong to no tensor");
  expectError(fileOf("{}", 1),
              "bytes [0, 1) of the data section belong to no tensor");

  // BOOL elements are 0 or 1.
  std::string bools =
      oneTensor("{\"dtype\":\"BOOL\",\"shape\":[3],\"data_offsets\":[0,3]}", 3);
  bools[bools.size() - 1] = 2;
  expectError(bools, "tensor 't': BOOL element 2 is 2, not 0 or 1");
}

void testWriterErrors() {
  File f;
  f.tensors = {tensor("a", FKRT_F32, {2}), tensor("a", FKRT_F32, {1})};
  expectInvalid(f, "tensor 1 ('a'): duplicate tensor name");
  f.tensors = {tensor("__metadata__", FKRT_F32, {1})};
  expectInvalid(f, "tensor 0 ('__metadata__'): a tensor may not be called "
                   "__metadata__");
  f.tensors = {tensor("a", FKRT_F32, {2})};
  f.tensors[0].data.pop_back();
  expectInvalid(f, "tensor 0 ('a'): holds 7 bytes, f32[2] takes 8");
  f.tensors = {tensor("", FKRT_F32, {1})};
  expectInvalid(f, "tensor 0 (''): empty name");
  f.tensors = {{"a", FKRT_F32, {-1}, {}}};
  expectInvalid(f, "dimension 0 is negative (-1)");
  f.tensors = {tensor("m", FKRT_I1, {2})};
  f.tensors[0].data[1] = 5;
  expectInvalid(f, "i1 element 1 is 5, not 0 or 1");
  f.tensors = {tensor("a\xff", FKRT_F32, {1})};
  expectInvalid(f, "tensor 0 ('a\xff'): name is not valid UTF-8");
  f.tensors = {tensor("a", FKRT_F32, {1})};
  f.metadata = {{"k", "\xc0\x80"}};
  expectInvalid(f, "__metadata__ 'k' is not valid UTF-8");
  f.metadata.clear();
  f.tensors = {tensor("m", FKRT_I1, {2})};
  f.tensors[0].data[1] = 5;
  std::string error;
  CHECK(!write("/nonexistent-dir/x.safetensors", f, error));
  CHECK(error.find("/nonexistent-dir/x.safetensors: tensor 0") == 0);
}

void testTruncation() {
  std::string bytes, error;
  serialize(sample(), bytes, error);
  int wrong = 0;
  for (size_t n = 0; n < bytes.size(); ++n) {
    File f;
    if (parse(bytes.data(), n, f, error) || error.empty())
      ++wrong;
  }
  CHECK(wrong == 0);
}

/// Single-byte changes at every offset and random multi-byte corruptions:
/// no crash, an error message on failure, and what parses writes and reads
/// back to the same tensors.
void testCorruption() {
  std::string bytes, error;
  serialize(sample(), bytes, error);
  int wrong = 0, parsed = 0, total = 0;
  auto attempt = [&](const std::string &input) {
    File f, back;
    std::string out;
    ++total;
    if (!parse(input.data(), input.size(), f, error)) {
      wrong += error.empty();
      return;
    }
    ++parsed;
    wrong += !serialize(f, out, error) ||
             !parse(out.data(), out.size(), back, error) || !same(f, back);
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

void testDtypes() {
  fkrt_dtype d;
  const char *names[] = {"F32", "F16", "BF16", "I32", "BOOL", "I64"};
  for (int i = 0; i < 6; ++i) {
    CHECK(parseDtype(names[i], d) && d == static_cast<fkrt_dtype>(i));
    CHECK(std::strcmp(dtypeName(static_cast<fkrt_dtype>(i)), names[i]) == 0);
  }
  for (const char *other : {"F64", "U8", "I8", "F8_E4M3", "bool", ""})
    CHECK(!parseDtype(other, d));
  CHECK(std::strcmp(dtypeName(static_cast<fkrt_dtype>(6)), "?") == 0);
}

void testBinding() {
  std::vector<Signature> parameters = {{"x", FKRT_F16, {2, 3}},
                                       {"w", FKRT_F16, {3, 4}},
                                       {"b", FKRT_F32, {4}},
                                       {"n", FKRT_I32, {}}};
  // Everything bound, in any order.
  std::vector<Signature> tensors = {{"n", FKRT_I32, {}},
                                    {"b", FKRT_F32, {4}},
                                    {"x", FKRT_F16, {2, 3}},
                                    {"w", FKRT_F16, {3, 4}}};
  Match m = matchByName(parameters, tensors);
  CHECK((m.tensorOf == std::vector<int64_t>{2, 3, 1, 0}));
  CHECK(m.missing.empty() && m.mismatched.empty() && m.unused.empty());
  CHECK(describeProblems(m, parameters, tensors, "graph 'g'", true).empty());

  // A subset (weights): what is missing is the caller's to pass.
  tensors = {{"w", FKRT_F16, {3, 4}}, {"b", FKRT_F32, {4}}};
  m = matchByName(parameters, tensors);
  CHECK((m.tensorOf == std::vector<int64_t>{-1, 0, 1, -1}));
  CHECK((m.missing == std::vector<size_t>{0, 3}));
  CHECK(describeProblems(m, parameters, tensors, "graph 'g'", false).empty());
  CHECK(describeProblems(m, parameters, tensors, "graph 'g'", true) ==
        "no tensor for parameters 'x' and 'n' of graph 'g'");

  // Every problem at once.
  tensors = {{"w", FKRT_F32, {3, 4}}, {"b", FKRT_F32, {1, 4}},
             {"extra", FKRT_F32, {1}}, {"x", FKRT_F16, {2, 3}},
             {"more", FKRT_I1, {2}},  {"most", FKRT_I1, {2}}};
  m = matchByName(parameters, tensors);
  CHECK((m.mismatched == std::vector<size_t>{1, 2}));
  CHECK((m.missing == std::vector<size_t>{3}));
  CHECK((m.unused == std::vector<size_t>{2, 4, 5}));
  CHECK(describeProblems(m, parameters, tensors, "graph 'g'", true) ==
        "tensor 'w' is f32[3, 4], parameter 'w' of graph 'g' is f16[3, 4]; "
        "tensor 'b' is f32[1, 4], parameter 'b' of graph 'g' is f32[4]; "
        "no tensor for parameter 'n' of graph 'g'; tensors 'extra', 'more' "
        "and 'most' are no parameter of graph 'g'");
  CHECK(describeProblems(matchByName({}, {{"t", FKRT_F32, {}}}), {},
                         {{"t", FKRT_F32, {}}}, "graph 'h'", true) ==
        "tensor 't' is no parameter of graph 'h'");
  // A symbolic dimension (-1) takes any size, the others and the rank must
  // agree.
  parameters = {{"x", FKRT_F16, {-1, 3}}, {"m", FKRT_F32, {-1, -1}}};
  tensors = {{"x", FKRT_F16, {7, 3}}, {"m", FKRT_F32, {0, 5}}};
  m = matchByName(parameters, tensors);
  CHECK(m.missing.empty() && m.mismatched.empty() && m.unused.empty());
  tensors = {{"x", FKRT_F16, {7, 4}}, {"m", FKRT_F32, {5}}};
  m = matchByName(parameters, tensors);
  CHECK((m.mismatched == std::vector<size_t>{0, 1}));
  Tensor t = tensor("q", FKRT_BF16, {2, 1});
  Signature s = signatureOf(t);
  CHECK(s.name == "q" && s.dtype == FKRT_BF16 &&
        (s.shape == std::vector<int64_t>{2, 1}));
}

} // namespace

int main() {
  testLayout();
  testRoundTrip();
  testReaderErrors();
  testWriterErrors();
  testTruncation();
  testCorruption();
  testDtypes();
  testBinding();
  return finish();
}

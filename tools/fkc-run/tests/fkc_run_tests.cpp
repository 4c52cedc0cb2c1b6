//===- fkc_run_tests.cpp - Unit tests of fkc-run's host side --------------===//
//
// What fkc-run computes without a GPU: f16/bf16 rounding (exhaustively
// where it can), the seeded inputs, output statistics, the comparison and
// its tolerances, and the command line. Prints "N passed, M failed" last.
//
//===----------------------------------------------------------------------===//

#include "Compare.h"
#include "Elements.h"
#include "Options.h"
#include "RandomInputs.h"
#include "Statistics.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace fkcrun;

namespace {

int passed = 0, failed = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      ++passed;                                                                \
    } else {                                                                   \
      ++failed;                                                                \
      std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);              \
    }                                                                          \
  } while (0)

void testHalf() {
  CHECK(toHalf(1.0) == 0x3C00);
  CHECK(toHalf(-2.0) == 0xC000);
  CHECK(toHalf(0.1) == 0x2E66);
  CHECK(toHalf(-0.0) == 0x8000);
  CHECK(toHalf(65504) == 0x7BFF);
  CHECK(toHalf(65519.99) == 0x7BFF);
  CHECK(toHalf(65520) == 0x7C00); // the tie above the largest rounds up
  CHECK(toHalf(-1e300) == 0xFC00);
  CHECK(toHalf(HUGE_VAL) == 0x7C00);
  CHECK(toHalf(std::nan("")) == 0x7E00);
  CHECK(toHalf(std::ldexp(1, -14)) == 0x0400); // smallest normal
  CHECK(toHalf(std::ldexp(1, -24)) == 0x0001); // smallest subnormal
  CHECK(toHalf(std::ldexp(1, -25)) == 0x0000); // tie to even: zero
  CHECK(toHalf(std::ldexp(3, -26)) == 0x0001);
  CHECK(toHalf(std::ldexp(3, -25)) == 0x0002); // tie to even: 2
  CHECK(toHalf(1 + std::ldexp(1, -11)) == 0x3C00);
  CHECK(toHalf(1 + std::ldexp(3, -11)) == 0x3C02);
  CHECK(toHalf(std::ldexp(1023, -24) + std::ldexp(1, -25)) == 0x0400);
  CHECK(fromHalf(0x3C00) == 1.0 && fromHalf(0xC000) == -2.0);
  CHECK(fromHalf(0x0001) == std::ldexp(1, -24));
  CHECK(fromHalf(0x7C00) == HUGE_VAL && std::isnan(fromHalf(0x7E01)));
  CHECK(std::signbit(fromHalf(0x8000)));

  // Every pattern survives a round trip; the midpoint between neighbours
  // rounds to the even one, and anything nearer to the nearer one.
  int wrong = 0;
  for (uint32_t b = 0; b < 0x10000; ++b) {
    double v = fromHalf(uint16_t(b));
    if (std::isnan(v))
      continue;
    wrong += toHalf(v) != b;
    if ((b & 0x7FFF) >= 0x7BFF)
      continue;
    double next = fromHalf(uint16_t(b + 1));
    double mid = v + (next - v) / 2;
    uint16_t even = (b & 1) ? uint16_t(b + 1) : uint16_t(b);
    wrong += toHalf(mid) != even;
    wrong += toHalf(v + (next - v) / 4) != b;
    wrong += toHalf(v + 3 * (next - v) / 4) != b + 1;
  }
  CHECK(wrong == 0);
}

/// bfloat16 against the usual float bit trick, exact for values that are
/// floats.
uint16_t bfloat16OfFloat(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f))
    return 0x7FC0;
  return uint16_t((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

void testBFloat16() {
  CHECK(toBFloat16(1.0) == 0x3F80);
  CHECK(toBFloat16(-0.5) == 0xBF00);
  CHECK(toBFloat16(3.3895e38) == 0x7F7F);
  CHECK(toBFloat16(3.4e38) == 0x7F80);
  CHECK(toBFloat16(std::nan("")) == 0x7FC0);
  CHECK(fromBFloat16(0x3F80) == 1.0);
  int wrong = 0;
  for (uint32_t b = 0; b < 0x10000; ++b) {
    double v = fromBFloat16(uint16_t(b));
    if (!std::isnan(v))
      wrong += toBFloat16(v) != b;
  }
  std::mt19937 random(7);
  for (int i = 0; i < 200000; ++i) {
    uint32_t u = random();
    float f;
    std::memcpy(&f, &u, 4);
    if (!std::isnan(f))
      wrong += toBFloat16(f) != bfloat16OfFloat(f);
  }
  CHECK(wrong == 0);
}

void testElements() {
  uint8_t b[8];
  writeElement(FKRT_F32, 0.1, b);
  CHECK(readElement(FKRT_F32, b) == double(0.1f));
  writeElement(FKRT_I32, -7, b);
  CHECK(readElement(FKRT_I32, b) == -7);
  writeElement(FKRT_I64, -7, b);
  CHECK(readElement(FKRT_I64, b) == -7 && b[7] == 0xFF);
  writeElement(FKRT_I64, 0x1p63, b); // INT64_MAX read as a double
  CHECK(b[7] == 0x7F && b[0] == 0xFF);
  writeElement(FKRT_I1, 5, b);
  CHECK(b[0] == 1);
  b[0] = 0xFF;
  CHECK(readElement(FKRT_I1, b) == 255);
  CHECK(elementSize(FKRT_BF16) == 2 && elementSize(fkrt_dtype(9)) == 0);
  CHECK(isFloat(FKRT_BF16) && !isFloat(FKRT_I32));
}

void testRandomInputs() {
  SplitMix64 zero(0), one(1);
  CHECK(zero.next() == 0xe220a8397b1dcdafULL);
  CHECK(one.next() == 0x910a2dec89025cc1ULL);

  // Deterministic per seed; one sequence runs on from tensor to tensor.
  SplitMix64 a(5), b(5), c(6);
  std::vector<uint8_t> x = randomElements(FKRT_F32, 1000, a);
  CHECK(x == randomElements(FKRT_F32, 1000, b));
  CHECK(x != randomElements(FKRT_F32, 1000, c));
  CHECK(randomElements(FKRT_F32, 10, a) != randomElements(FKRT_F32, 10, c));

  bool inRange = true;
  int ones = 0;
  for (fkrt_dtype t :
       {FKRT_F32, FKRT_F16, FKRT_BF16, FKRT_I32, FKRT_I1, FKRT_I64}) {
    SplitMix64 r(42);
    std::vector<uint8_t> data = randomElements(t, 4000, r);
    CHECK(data.size() == 4000 * elementSize(t));
    for (size_t i = 0; i < 4000; ++i) {
      double v = readElement(t, &data[i * elementSize(t)]);
      if (isFloat(t))
        inRange = inRange && v >= -1 && v <= 1;
      else if (t == FKRT_I32 || t == FKRT_I64)
        inRange = inRange && v >= -8 && v <= 8 && v == std::floor(v);
      else
        inRange = inRange && (v == 0 || v == 1), ones += v == 1;
    }
  }
  CHECK(inRange);
  CHECK(ones > 1800 && ones < 2200);
  // The first f32 value for seed 1, as fkc's interpreter computes it:
  // 2 * (0x910a2dec89025cc1 >> 11) * 2^-53 - 1, rounded to f32.
  SplitMix64 s(1);
  std::vector<uint8_t> first = randomElements(FKRT_F32, 1, s);
  double expected =
      2 * static_cast<double>(0x910a2dec89025cc1ULL >> 11) * 0x1.0p-53 - 1;
  CHECK(readElement(FKRT_F32, first.data()) == double(float(expected)));
}

std::vector<uint8_t> floats(std::vector<float> v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

void testStatistics() {
  float nan = std::nanf(""), inf = HUGE_VALF;
  std::vector<uint8_t> d = floats({1, -2, nan, 4, inf, 0.5f, 3, 3, 3, 3});
  std::memset(&d[9 * 4], 0xFF, 4); // a poisoned element, a NaN too
  Statistics s = summarize(FKRT_F32, d.data(), 10, 4);
  CHECK(s.count == 10 && s.finite == 7 && s.nan == 2 && s.inf == 1);
  CHECK(s.poisoned == 1);
  CHECK(s.min == -2 && s.max == 4 && s.mean == 12.5 / 7);
  CHECK(formatStatistics(FKRT_F32, s) ==
        "min -2 max 4 mean 1.78571 nan 2 inf 1 poisoned 1 first [1, -2, nan, "
        "4, ...]");
  Statistics none = summarize(FKRT_F32, floats({nan}).data(), 1);
  CHECK(formatStatistics(FKRT_F32, none) ==
        "min - max - mean - nan 1 inf 0 first [nan]");
  std::vector<uint8_t> ints(12);
  int32_t iv[3] = {7, -3, 2};
  std::memcpy(ints.data(), iv, 12);
  CHECK(formatStatistics(FKRT_I32, summarize(FKRT_I32, ints.data(), 3)) ==
        "min -3 max 7 mean 2 nan 0 inf 0 first [7, -3, 2]");
  CHECK(formatStatistics(FKRT_F32, summarize(FKRT_F32, nullptr, 0)) ==
        "min - max - mean - nan 0 inf 0 first []");
  CHECK(formatValue(FKRT_F32, -HUGE_VAL) == "-inf");
  CHECK(formatIndex({2, 3, 4}, 23) == "[1, 2, 3]");
  CHECK(formatIndex({}, 0) == "[]");
  CHECK(formatIndex({5}, 4) == "[4]");
}

void testCompare() {
  float nan = std::nanf(""), inf = HUGE_VALF;
  auto cmp = [](std::vector<float> got, std::vector<float> want) {
    return compare(FKRT_F32, floats(got).data(), floats(want).data(),
                   got.size());
  };
  Comparison c = cmp({1, 2, 3}, {1, 2, 3});
  CHECK(c.ok && c.relativeError == 0 && !c.hasWorst);
  CHECK(cmp({0, 0}, {0, 0}).ok);
  CHECK(!cmp({1e-30f, 0}, {0, 0}).ok); // any error against an all-zero want
  c = cmp({1, 2, 3.0001f}, {1, 2, 3});
  CHECK(c.ok && c.relativeError > 0 && c.relativeError < 1e-4);
  c = cmp({1, 2.1f, 3.01f}, {1, 2, 3});
  CHECK(!c.ok && c.mismatches == 0 && c.hasWorst && c.worst == 1);
  CHECK(formatComparison(FKRT_F32, c, {3})
            .find("MISMATCH rel. L2 error 0.0269 (tolerance 1e-04), largest at "
                  "[1]: "
                  "got 2.1, want 2") == 0);
  // NaN and infinities must be where they are expected.
  CHECK(cmp({nan, inf, -inf, 1}, {nan, inf, -inf, 1}).ok);
  c = cmp({1, 2, nan, 4}, {1, 2, 3, 4});
  CHECK(!c.ok && c.mismatches == 1 && c.worst == 2 && c.relativeError == 0);
  CHECK(formatComparison(FKRT_F32, c, {2, 2}) ==
        "MISMATCH rel. L2 error 0 (tolerance 1e-04), NaN/Inf differ at 1 "
        "positions, first at [1, 0]: got nan, want 3");
  CHECK(!cmp({inf}, {-inf}).ok);
  CHECK(!cmp({1}, {inf}).ok);
  CHECK(formatComparison(FKRT_F32, cmp({1}, {1}), {1}) ==
        "ok rel. L2 error 0 (tolerance 1e-04)");

  // f16 and bf16 at their tolerances.
  std::vector<uint8_t> w(200), g(200);
  for (int i = 0; i < 100; ++i) {
    writeElement(FKRT_F16, 1, &w[2 * i]);
    writeElement(FKRT_F16, i == 0 ? 1.0625 : 1, &g[2 * i]);
  }
  CHECK(compare(FKRT_F16, g.data(), w.data(), 100).ok); // 0.00625 < 1e-2
  writeElement(FKRT_F16, 1.25, &g[0]);
  CHECK(!compare(FKRT_F16, g.data(), w.data(), 100).ok); // 0.025
  CHECK(tolerance(FKRT_BF16) == 5e-2 && tolerance(FKRT_F32) == 1e-4 &&
        tolerance(FKRT_I32) == 0);

  // Integers and booleans: exact.
  int32_t a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 5, 6};
  c = compare(FKRT_I32, reinterpret_cast<uint8_t *>(a),
              reinterpret_cast<uint8_t *>(b), 4);
  CHECK(!c.ok && c.mismatches == 2 && c.worst == 2);
  CHECK(formatComparison(FKRT_I32, c, {4}) ==
        "MISMATCH, 2 elements differ, first at [2]: got 3, want 5");
  CHECK(formatComparison(FKRT_I32,
                         compare(FKRT_I32, reinterpret_cast<uint8_t *>(a),
                                 reinterpret_cast<uint8_t *>(a), 4),
                         {4}) == "ok (exact)");
  uint8_t m1[3] = {0, 1, 0xFF}, m2[3] = {0, 1, 1};
  c = compare(FKRT_I1, m1, m2, 3);
  CHECK(!c.ok && c.mismatches == 1 && c.got == 255);
}

/// Parses a command line given as one string split at spaces.
bool parse(const std::string &line, Options &o, std::string &error) {
  std::vector<std::string> words = {"fkc-run"};
  size_t at = 0;
  while (at < line.size()) {
    size_t space = line.find(' ', at);
    if (space == std::string::npos)
      space = line.size();
    words.push_back(line.substr(at, space - at));
    at = space + 1;
  }
  std::vector<const char *> argv;
  for (const std::string &w : words)
    argv.push_back(w.c_str());
  o = Options();
  error.clear();
  return parseOptions(int(argv.size()), argv.data(), o, error);
}

void expectUsageError(const std::string &line, const std::string &message) {
  Options o;
  std::string error;
  bool ok = !parse(line, o, error) && error == message;
  CHECK(ok);
  if (!ok)
    std::printf("  '%s': expected '%s', got '%s'\n", line.c_str(),
                message.c_str(), error.c_str());
}

void testOptions() {
  Options o;
  std::string error;
  CHECK(parse("m.ptx", o, error) && o.artifact == "m.ptx" && o.seed == 1 &&
        o.graph.empty() && o.check.empty() && !o.bench && o.iterations == 100 &&
        o.warmup == 10 && o.device == 0);
  CHECK(parse("--graph g --seed=18446744073709551615 --device 3 m.ptx", o,
              error) &&
        o.graph == "g" && o.seed == 18446744073709551615ULL && o.device == 3);
  CHECK(parse("m.ptx --check b.fkt --bench --iterations 5 --warmup=0", o,
              error) &&
        o.check == "b.fkt" && o.bench && o.iterations == 5 && o.warmup == 0);
  CHECK(parse("--list m.ptx", o, error) && o.list && o.cudaGraphs);
  CHECK(parse("m.ptx --no-cuda-graphs", o, error) && !o.cudaGraphs &&
        o.concurrentLaunches);
  CHECK(parse("m.ptx --serial-launches", o, error) && o.cudaGraphs &&
        !o.concurrentLaunches);
  CHECK(parse("m.ptx --help --bogus", o, error) && o.help);
  CHECK(parse("-- -odd.ptx", o, error) && o.artifact == "-odd.ptx");
  CHECK(usage().find("--check FILE.fkt") != std::string::npos);
  CHECK(parse("m.ptx --inputs a.safetensors --inputs=b.safetensors --outputs "
              "o.safetensors",
              o, error) &&
        (o.inputs == std::vector<std::string>{"a.safetensors",
                                              "b.safetensors"}) &&
        o.outputs == "o.safetensors");
  CHECK(parse("m.ptx --check b.fkt --outputs o.safetensors", o, error) &&
        o.check == "b.fkt" && o.outputs == "o.safetensors" && o.inputs.empty());
  CHECK(usage().find("--inputs FILE.safetensors") != std::string::npos &&
        usage().find("--outputs FILE.safetensors") != std::string::npos);

  expectUsageError("", "no artifact given (fkc-run MODEL.ptx ...)");
  expectUsageError("a.ptx b.ptx",
                   "unexpected argument 'b.ptx' (one artifact at a time)");
  expectUsageError("m.ptx --frobnicate", "unknown option '--frobnicate'");
  expectUsageError("m.ptx -x", "unknown option '-x'");
  expectUsageError("m.ptx --bench=1", "unknown option '--bench'");
  expectUsageError("m.ptx --graph", "option '--graph' needs a value");
  expectUsageError("m.ptx --graph=",
                   "option '--graph' needs a non-empty value");
  expectUsageError("m.ptx --seed -1", "--seed: '-1' is not an integer in [0, "
                                      "18446744073709551615]");
  expectUsageError("m.ptx --seed 18446744073709551616",
                   "--seed: '18446744073709551616' is not an integer in [0, "
                   "18446744073709551615]");
  expectUsageError("m.ptx --seed 1x", "--seed: '1x' is not an integer in [0, "
                                      "18446744073709551615]");
  expectUsageError("m.ptx --bench --iterations 0",
                   "--iterations: '0' is not an integer in [1, 1000000]");
  expectUsageError("m.ptx --iterations 5", "--iterations needs --bench");
  expectUsageError("m.ptx --warmup 5", "--warmup needs --bench");
  expectUsageError("m.ptx --device 2147483648",
                   "--device: '2147483648' is not a device ordinal");
  expectUsageError("m.ptx --device=-1", "--device: '-1' is not a device "
                                        "ordinal");
  expectUsageError("m.ptx --inputs", "option '--inputs' needs a value");
  expectUsageError("m.ptx --outputs=",
                   "option '--outputs' needs a non-empty value");
  expectUsageError("m.ptx --inputs a.safetensors --seed 3",
                   "--inputs and --seed exclude each other: the inputs come "
                   "from one source");
  expectUsageError("m.ptx --check b.fkt --inputs a.safetensors",
                   "--inputs and --check exclude each other: the inputs come "
                   "from one source");
  expectUsageError("m.ptx --check b.fkt --seed 3",
                   "--seed and --check exclude each other: with --check the "
                   "inputs come from the bundle");
}

} // namespace

int main() {
  testHalf();
  testBFloat16();
  testElements();
  testRandomInputs();
  testStatistics();
  testCompare();
  testOptions();
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

//===- main.cpp - An application running a compiled fkc graph -------------===//
//
// Loads an artifact written by fkc, runs one of its graphs on CUDA device 0
// with inputs made up here, and prints the start of every output. Uses only
// the installed runtime (fkrt/runtime.hpp): device memory, copies and
// synchronisation go through fkrt as well, so no CUDA toolkit is needed.
//
// Usage: fkrt-embed MODEL.ptx [GRAPH]    (default: the artifact's first graph)
//
//===----------------------------------------------------------------------===//

#include "fkrt/runtime.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// float -> IEEE half and bfloat16, rounding to nearest-even. toHalf covers
/// what the inputs here need, values in [-1, 1]: tiny ones become zero.
uint16_t toHalf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000;
  int exponent = int((u >> 23) & 0xFF) - 127 + 15;
  uint32_t mantissa = u & 0x7FFFFF;
  if (exponent <= 0) // too small for a normal half: flush to zero
    return uint16_t(sign);
  uint32_t half = (uint32_t(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return uint16_t(sign | half);
}
uint16_t toBFloat16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return uint16_t((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}
float fromHalf(uint16_t h) {
  int exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  float magnitude = exponent == 0 ? std::ldexp(float(mantissa), -24)
                    : exponent == 31
                        ? (mantissa ? NAN : INFINITY)
                        : std::ldexp(float(mantissa | 0x400), exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}
float fromBFloat16(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Element `i` of input `k`: a smooth pattern in [-1, 1] (its phase set by
/// `k`), small integers, alternating booleans.
void writeInput(fkrt_dtype dtype, size_t k, size_t i, uint8_t *p) {
  float v = std::sin(0.1f * float(i) + 0.5f * float(k + 1));
  switch (dtype) {
  case FKRT_F32:
    std::memcpy(p, &v, 4);
    break;
  case FKRT_F16: {
    uint16_t h = toHalf(v);
    std::memcpy(p, &h, 2);
    break;
  }
  case FKRT_BF16: {
    uint16_t h = toBFloat16(v);
    std::memcpy(p, &h, 2);
    break;
  }
  case FKRT_I32: {
    int32_t n = int32_t(i % 7) - 3;
    std::memcpy(p, &n, 4);
    break;
  }
  case FKRT_I64: {
    int64_t n = int64_t(i % 7) - 3;
    std::memcpy(p, &n, 8);
    break;
  }
  case FKRT_I1:
    *p = i % 2;
    break;
  }
}

double readOutput(fkrt_dtype dtype, const uint8_t *p) {
  uint16_t h;
  switch (dtype) {
  case FKRT_F32: {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  case FKRT_F16:
    std::memcpy(&h, p, 2);
    return fromHalf(h);
  case FKRT_BF16:
    std::memcpy(&h, p, 2);
    return fromBFloat16(h);
  case FKRT_I32: {
    int32_t n;
    std::memcpy(&n, p, 4);
    return n;
  }
  case FKRT_I64: {
    int64_t n;
    std::memcpy(&n, p, 8);
    return static_cast<double>(n);
  }
  case FKRT_I1:
    return *p;
  }
  return 0;
}

std::string describe(const fkrt::TensorInfo &t) {
  std::string s = t.name + ": " + fkrt_dtype_name(t.dtype) + "[";
  for (size_t d = 0; d < t.shape.size(); ++d)
    s += (d ? ", " : "") + std::to_string(t.shape[d]);
  return s + "]";
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: fkrt-embed MODEL.ptx [GRAPH]\n");
    return 2;
  }
  try {
    // Parsing and validating the artifact needs no GPU.
    fkrt::Module module = fkrt::Module::fromFile(argv[1]);
    std::string graph = argc == 3 ? argv[2] : module.graphName(0);
    size_t index = module.findGraph(graph);
    std::vector<fkrt::TensorInfo> inputInfo = module.inputs(index);
    std::vector<fkrt::TensorInfo> outputInfo = module.outputs(index);
    std::printf("graph %s (target %s)\n", graph.c_str(),
                module.target().c_str());

    const int device = 0;
    module.loadCuda(device);
    std::printf("device %d: %s\n", device, fkrt::deviceName(device).c_str());

    // Inputs: made on the host, copied to the device.
    std::vector<fkrt::DeviceBuffer> buffers;
    std::vector<fkrt_tensor> inputs, outputs;
    for (size_t k = 0; k < inputInfo.size(); ++k) {
      const fkrt::TensorInfo &t = inputInfo[k];
      std::vector<uint8_t> host(t.bytes);
      size_t size = fkrt_dtype_size(t.dtype);
      for (size_t i = 0; i < t.bytes / size; ++i)
        writeInput(t.dtype, k, i, &host[i * size]);
      buffers.emplace_back(device, t.bytes);
      buffers.back().copyFrom(host.data());
      inputs.push_back(buffers.back().tensor(t.dtype, t.shape));
      std::printf("input  %s\n", describe(t).c_str());
    }
    for (const fkrt::TensorInfo &t : outputInfo) {
      buffers.emplace_back(device, t.bytes);
      outputs.push_back(buffers.back().tensor(t.dtype, t.shape));
    }

    // The run is asynchronous: wait for it before reading the outputs.
    module.run(graph, inputs, outputs);
    fkrt::synchronize(device);

    for (size_t o = 0; o < outputInfo.size(); ++o) {
      const fkrt::TensorInfo &t = outputInfo[o];
      std::vector<uint8_t> host(t.bytes);
      buffers[inputInfo.size() + o].copyTo(host.data());
      size_t size = fkrt_dtype_size(t.dtype), count = t.bytes / size;
      double sum = 0;
      for (size_t i = 0; i < count; ++i)
        sum += readOutput(t.dtype, &host[i * size]);
      std::printf("output %s sum %.6g:", describe(t).c_str(), sum);
      for (size_t i = 0; i < count && i < 6; ++i)
        std::printf(" %.6g", readOutput(t.dtype, &host[i * size]));
      std::printf("%s\n", count > 6 ? " ..." : "");
    }
    return 0;
  } catch (const fkrt::Error &e) {
    std::fprintf(stderr, "fkrt-embed: %s\n", e.what());
    return 1;
  }
}

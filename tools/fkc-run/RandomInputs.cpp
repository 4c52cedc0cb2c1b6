//===- RandomInputs.cpp - Seeded random graph inputs ----------------------===//

#include "RandomInputs.h"

#include "Elements.h"

using namespace fkcrun;

std::vector<uint8_t> fkcrun::randomElements(fkrt_dtype dtype, uint64_t count,
                                            SplitMix64 &random) {
  size_t size = elementSize(dtype);
  std::vector<uint8_t> data(count * size);
  for (uint64_t i = 0; i < count; ++i) {
    double value;
    if (dtype == FKRT_I1)
      value = static_cast<double>(random.next() >> 63);
    else if (dtype == FKRT_I32)
      value = static_cast<double>(static_cast<int64_t>(random.next() % 17) - 8);
    else
      value = 2 * random.nextUnit() - 1;
    writeElement(dtype, value, &data[i * size]);
  }
  return data;
}

//===- RandomInputs.cpp - Seeded random graph inputs ----------------------===//

#include "RandomInputs.h"

#include "Elements.h"

using namespace fkcrun;

std::vector<uint8_t> fkcrun::randomElements(fkrt_dtype dtype, uint64_t count,
                                            SplitMix64 &random) {
  size_t size = elementSize(dtype);
  std::vector<uint8_t> data(count * size);
  for (uint64_t i = 0; i < count; ++i)
    writeElement(dtype, random.nextInput(dtype), &data[i * size]);
  return data;
}

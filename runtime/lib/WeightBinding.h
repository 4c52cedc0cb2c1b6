//===- WeightBinding.h - Weights bound to a graph's inputs ------*- C++ -*-===//
//
// Which inputs of a graph the tensors of a .safetensors file bind to, for
// fkrt_bind_weights: by name (fkrt::safetensors::matchByName, as fkc and
// fkc-run bind), with the dtype and shape of the input. A pure function, so
// that every rejection is tested without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef FKRT_LIB_WEIGHTBINDING_H
#define FKRT_LIB_WEIGHTBINDING_H

#include "Manifest.h"
#include "fkrt/safetensors.hpp"

#include <string>
#include <vector>

namespace fkrt {

/// Matches the tensors of `file` to the inputs of `graph`, of which those
/// with `bound[i]` set are bound already. Sets `tensorOf[i]` to the index
/// of input i's tensor in `file.tensors`, or -1. Returns "" on success,
/// else one message listing every problem: a tensor of another dtype or
/// shape than its input, a tensor named after no input, a tensor for an
/// inout input (runs update it in place, so it is the caller's to pass) or
/// for an input bound already.
std::string matchWeights(const GraphSpec &graph, const std::vector<bool> &bound,
                         const safetensors::File &file,
                         std::vector<int64_t> &tensorOf);

} // namespace fkrt

#endif // FKRT_LIB_WEIGHTBINDING_H

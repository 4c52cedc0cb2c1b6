// A fusion whose body block is empty is reported as such; the verifier must
// not look for a terminator that is not there.
// RUN: fkc-opt %s -verify-diagnostics
func.func @empty_body(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expects its body to end with 'fk.yield'}}
  %0 = "fk.fusion"(%x) <{kind = #fk<fusion_kind loop>}> ({
  ^bb0(%a: tensor<4xf32>):
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

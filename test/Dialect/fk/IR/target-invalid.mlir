// #fk.target names a chip fkc supports and facts that fit it: a made-up
// target may have less than its chip, never an instruction the chip's PTX
// lacks. `fk.target` is a #fk.target on the builtin module.
// RUN: fkc-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{unsupported chip 'sm_42'; expected one of sm_70, sm_72, sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_120, sm_120a}}
module attributes {fk.target = #fk.target<chip = "sm_42">} {
}

// -----

// expected-error @+1 {{compute_capability 80 is not that of 'sm_90a' (90)}}
module attributes {fk.target = #fk.target<chip = "sm_90a", compute_capability = 80>} {
}

// -----

// expected-error @+1 {{'sm_90' has no wgmma}}
module attributes {fk.target = #fk.target<chip = "sm_90", wgmma = true>} {
}

// -----

// expected-error @+1 {{'sm_80' has no TMA}}
module attributes {fk.target = #fk.target<chip = "sm_80", tma = true>} {
}

// -----

// expected-error @+1 {{shared_memory_per_block exceeds shared_memory_per_sm}}
module attributes {fk.target = #fk.target<chip = "sm_90a", shared_memory_per_sm = 65536>} {
}

// -----

// expected-error @+1 {{sm_count, shared_memory_per_block and registers_per_thread must be positive}}
module attributes {fk.target = #fk.target<chip = "sm_90a", sm_count = 0>} {
}

// -----

// expected-error @+1 {{registers_per_thread exceeds 255, the most PTX gives a thread}}
module attributes {fk.target = #fk.target<chip = "sm_90a", registers_per_thread = 256>} {
}

// -----

// expected-error @+1 {{unknown target parameter 'sms'}}
module attributes {fk.target = #fk.target<chip = "sm_90a", sms = 132>} {
}

// -----

// expected-error @+1 {{'sm_count' is given twice}}
module attributes {fk.target = #fk.target<chip = "sm_90a", sm_count = 1, sm_count = 2>} {
}

// -----

// expected-error @+1 {{expected 'true' or 'false'}}
module attributes {fk.target = #fk.target<chip = "sm_90a", wgmma = 1>} {
}

// -----

// expected-error @+1 {{'fk.target' must be a #fk.target attribute}}
module attributes {fk.target = "sm_90a"} {
}

// -----

// expected-error @+1 {{'fk.target' belongs on the builtin module}}
func.func @target_on_a_function() attributes {fk.target = #fk.target<chip = "sm_90a">} {
  return
}

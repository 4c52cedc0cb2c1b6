// #fk.target prints every fact of the target. Parsed, the facts after the
// chip are optional, each defaulting to the chip's, in any order: a test
// names a real target by its chip and makes one up by overriding facts.
// RUN: fkc-opt %s --split-input-file | FileCheck %s
// RUN: fkc-opt %s --split-input-file | fkc-opt --split-input-file | FileCheck %s

// CHECK: module attributes {fk.target = #fk.target<chip = "sm_90a", compute_capability = 90, sm_count = 132, shared_memory_per_block = 232448, shared_memory_per_sm = 233472, registers_per_thread = 255, wgmma = true, tma = true>}
module attributes {fk.target = #fk.target<chip = "sm_90a">} {
}

// -----

// CHECK: module attributes {fk.target = #fk.target<chip = "sm_80", compute_capability = 80, sm_count = 108, shared_memory_per_block = 166912, shared_memory_per_sm = 167936, registers_per_thread = 255, wgmma = false, tma = false>}
module attributes {fk.target = #fk.target<chip = "sm_80">} {
}

// -----

// A made-up target: a small Hopper without wgmma.
// CHECK: module attributes {fk.target = #fk.target<chip = "sm_90a", compute_capability = 90, sm_count = 4, shared_memory_per_block = 49152, shared_memory_per_sm = 65536, registers_per_thread = 128, wgmma = false, tma = true>}
module attributes {fk.target = #fk.target<chip = "sm_90a", wgmma = false, sm_count = 4, shared_memory_per_sm = 65536, shared_memory_per_block = 49152, registers_per_thread = 128>} {
}

// -----

// The printed form parses as written.
// CHECK: module attributes {fk.target = #fk.target<chip = "sm_120", compute_capability = 120, sm_count = 170, shared_memory_per_block = 101376, shared_memory_per_sm = 102400, registers_per_thread = 255, wgmma = false, tma = true>}
module attributes {fk.target = #fk.target<chip = "sm_120", compute_capability = 120, sm_count = 170, shared_memory_per_block = 101376, shared_memory_per_sm = 102400, registers_per_thread = 255, wgmma = false, tma = true>} {
}

#![cfg(lab_sm90)]
//! FP8 weight-only decode w6 — w5 with **three steps in flight a warp** at 8 tokens
//! (`layout::fp8::weights::w6_depth`: three operand buffers taking turns in registers), the only change.
//!
//! Why: w5 streams the LM head at 95% of the copy rate but gate/up (896 blocks: 3.4 waves of 264) at 80%
//! and QKV (192 blocks: 0.73 of a wave) at 54%: where fewer blocks than slots run — a partial last wave,
//! a grid smaller than one — each block's 32 KiB in flight (8 warps × 2 steps × 2 KiB) is what the DRAM
//! sees. A third buffer is 24 more registers at 8 tokens (w5 t8: 92; at 16 and 32 tokens three sets
//! would not fit 128, so w6 keeps two there). Session 75's first w6 (the first steps staged in shared
//! memory by `cp.async` before the PDL wait, `33b1c58`) was slower alone and in the runner.
//!
//! Prediction (before running, H200): 1×28672×4096 34.5 → ~33 µs, 1×6144×4096 10.9 → ~10, the LM head
//! unchanged (±1%); the FP8 runner's batch-1 step ~2.67 → ~2.58 ms GPU.
use crate::fp8::weight_only::weight_only_entries;
use crate::hgemm::elem::{Bf16, F16};

weight_only_entries! {
    true, crate::fp8::weight_only::w6_depth, "`layout::fp8::weights::packed_len(n, k)` bytes in the packed layout (`packed_index`), the padding zero";
    fp8_w6_t8_bf16, 1, Bf16, 8;
    fp8_w6_t8_f16, 1, F16, 8;
}

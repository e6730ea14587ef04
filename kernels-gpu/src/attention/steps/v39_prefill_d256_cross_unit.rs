#![cfg(lab_sm90)]
//! Attention step a31 (Hopper): a28 with each unit's **first S and softmax run under the last unit's last
//! P·V** — `hopper_wide.rs` with `CROSS`.
//!
//! Diff from a28: at a unit's last key tile a consumer warpgroup takes the next unit from the walk, waits
//! for its first K tile and Q (the producer loads that Q once every consumer warp released this unit's,
//! after this unit's last S), issues its S with this unit's last P·V (S first, as a tile of the loop),
//! runs its softmax while that P·V finishes, then stores this unit's O and starts the next unit at its
//! second tile. Before, a unit's first S and softmax ran with the tensor cores idle for this warpgroup
//! and its last P·V alone.
//!
//! Why (session 93, call 6): short prompts are per-unit cost — a29 keeps the tensor pipe 43% busy at
//! 8×32×32×512×96 (4 key tiles a unit) against 64% at 2048 tokens, cuDNN 61% at 512; a25 ran 0.74–0.87×
//! cuDNN at short sequences or many at once (session 62). D = 256 has the simplest loop to try it on.
//!
//! Prediction (before any run), H200, bf16, against a28 in the same process: a unit's first S (16
//! `m64n80k16`, ~0.6 µs for both warpgroups) and softmax leave the critical path once a unit: **1.03–1.08× at
//! 8×16×8×512** (7 key tiles a unit), 1.00–1.02× at 2k–8k tokens.
//!
//! Measured (H200, bf16, `results/2026-12-04-h200-session93` calls 7 and 8, a28 interleaved in the same
//! process, median of 3 processes): **the prediction was wrong both ways** — 1.000× at 8×16×8×512 (causal
//! 0.977×), 1.036× at 8×16×8×1024 (causal 0.977×), but **1.04–1.08× at ≥ 2048 tokens without the mask**
//! (1×16×8×2048 1.043, 8×16×8×2048 1.055, 2×16×8×4096 1.061, 4×8×4×4096 1.041, 1×16×8×8192 1.077,
//! 2×16×8×8192 1.060) and 1.00–1.06× causal; against cuDNN (sustained) **1.03–1.09× without the mask at
//! L ≥ 4096** and at 8×16×8×2048, 1.03–1.15× causal; 0.81× / 0.73× at 8×16×8×512. A per-unit saving
//! cannot be 6% of a 52-tile unit: the gain is the steady state's. Not explained yet; a guess to test:
//! the two warpgroups, no longer finishing and restarting units together, drift out of phase and fill
//! each other's softmax gaps (a8's turns without the barriers). `ncu` (call 12, 2×16×8×4096): tensor pipe 91.1%
//! active against a28's 83.6%, the same issue rate (36.6% / 35.7%). ptxas: 24 bytes of spill (accepted in
//! `bench/tests/ptxas.rs`). The library's kernel at D = 256 since.
use super::hopper_wide::prefill_d256_entry;
use crate::hgemm::elem::{Bf16, F16};

prefill_d256_entry!(attn_a31_d256_f16, F16, true, 80, true);
prefill_d256_entry!(attn_a31_d256_bf16, Bf16, true, 80, true);

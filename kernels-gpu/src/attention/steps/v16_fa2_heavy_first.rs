//! Attention step a16 (`mma.sync`, sm_80): a11 with **each head's query tiles launched longest first** —
//! a10's change, on FlashAttention-2's tiles.
//!
//! With the causal mask, query tile qt of a11 walks its key tiles up to the diagonal, so one head's
//! blocks range from 1 to L/64 (D = 128) or L/128 (D = 64) key tiles of work. Blocks start in index
//! order, x fastest: each head's shortest first, and the launch's last wave holds the longest blocks
//! of the last heads while other SMs run dry. a16 maps block x to query tile `⌈L/128⌉ − 1 − x`.
//! Without the mask every block does the same work and the order does not matter.
//!
//! Why now: session 22 timed a11 against torch's FA2 like with like
//! (`results/2026-11-26-h100-session22/`): at or above it sustained at D = 128, but 0.96–0.99× in the
//! causal D = 64 rows (bursts from idle, and call 4 sustained) — the rows a tail would cost.
//!
//! Diff from a11: `flash_fa2_tiles::<…, ORDER_A16>` (one line in a11's body, `fa2_mma_tiles.rs`).
//!
//! Prediction (before the run): causal 1.02–1.05× a11 at L = 4096 (2048 blocks, 2 per SM: 7.8 waves)
//! and at L = 16384; non-causal 1.00×.
//!
//! Measured (H100, `results/2026-11-26-h100-session22/call7-a16`):
//! - Correct: the GPU tests pass (every fused step against the f64 reference). ptxas: 255 registers,
//!   no spill, as a11 (whose PTX is unchanged).
//! - `ab a11 a16` (interleaved, sustained), causal:
//!   - D = 64: 1.004× at L = 4096, 1.020× at 16384;
//!   - D = 128: 1.004× and 1.020×.
//! - Non-causal 0.988–1.004×: the same work in another order.
//! - The prediction held at L = 16384, at its low end. At L = 4096 the tail was smaller than
//!   estimated: 2 blocks per SM share each SM.
//! - Against torch's FA2 in the same call (best of a11 and a16):
//!   - sustained: 0.981–1.043 (under 1.0 only at 4×16×4096×64 causal: 0.981 bf16, 0.992 f16);
//!   - bursts from idle: 0.964–1.014.
//! - The library's default off Hopper.
use super::fa2_mma_tiles::fa2_tiles_entry;
use crate::hgemm::elem::{Bf16, F16};

fa2_tiles_entry!(attn_a16_d64_f16, F16, 64, ORDER_A16);
fa2_tiles_entry!(attn_a16_d128_f16, F16, 128, ORDER_A16);
fa2_tiles_entry!(attn_a16_d64_bf16, Bf16, 64, ORDER_A16);
fa2_tiles_entry!(attn_a16_d128_bf16, Bf16, 128, ORDER_A16);

#![cfg(lab_sm90)]
//! FP8 weight-only decode w7 — w5 with **each warp one contiguous run of the packed weights' steps**,
//! the grid's warps sharing them evenly, and no block barrier (`weight_only::w7`).
//!
//! Why: w5's block is 32 weight rows, so its grid is a number of tiles, not of SMs. Llama-3-8B's QKV
//! projection (192 tiles on 132 SMs × 2 slots) leaves 60 SMs streaming two tiles and 72 one; gate/up
//! (896 tiles) takes 3.4 rounds of the 264 slots, its last a third full, each block starting cold; O and
//! down (128 tiles) split K in two and sum through a last-block ticket after a block barrier. In the
//! packed layout the `tiles · ⌈K/64⌉` warp steps of 2 KiB lie in one run (tile by tile, step by step),
//! so warp `gw` of `G` can take steps `⌊gw·S/G⌋ .. ⌊(gw+1)·S/G⌋`: every warp the same bytes (±2 KiB),
//! contiguous, two steps in flight as in w5, the grid one resident wave (2 blocks an SM). A warp's run
//! covers whole tiles (it stores their rows itself) and at most two partial ones (its first and last):
//! those partials go to the warp's own two slots and the tile's last warp (a ticket on its counter) sums
//! them in warp order — deterministic for a grid, no block barrier anywhere. w3 (persistent blocks,
//! session 54) lost 0.71× to a block barrier at every unit's end; here a warp meets only itself.
//!
//! **Not yet run on a GPU** (session 99 was lent none): the library's plan keeps w5 and runs w7 only
//! when asked (`W8Plan::for_step(…, W8Step::W7)`, the runner's `KERNEL_LAB_W8_STEP=w7`, `kernel-lab w8
//! --against w7`); `scripts/gpu-s99-w7.sh` verifies and times it. The runs' arithmetic is
//! `layout::fp8::weights::{run_warps, run_range, run_owner, run_slot}`, checked on the CPU.
//!
//! A tile's end inside the run only stores (Y's rows, or the partial into the warp's slot); the tickets
//! and sums of the run's shared tiles (its first and last) come after the run, when no operands are in
//! flight (`RunEnd::part`, `RunEnd::settle`). With the tickets inside the loop the 8-token kernels took
//! 128 registers and the 16- and 32-token ones spilled 104–1,112 bytes; now 113–122 without spills at 8
//! tokens, 4–24 bytes at 16 (two spill loads in the f16 kernel's loop) and 136–208 at 32 (two steps of
//! 49-register operands and 32 accumulators: w5's t32 spills too). Only the 8-token kernels are built;
//! the plan runs w5 above 8 tokens.
//!
//! Prediction (before running, H200, bf16, one token; w5 in the same process): the unsplit shapes gain
//! what their rounds lose — 1×6144×4096 (QKV) ~10.8 → ~8.5 µs, 1×28672×4096 (gate/up) 33.8 → ~30 (the LM
//! head's 4.1 TB/s plus a ramp); the split ones (1×4096×4096, 1×4096×14336) within ±5% (already one
//! wave); the LM head unchanged (±2%); the FP8 runner's batch-1 step 2.67 → ~2.50 ms (≥ 1.7× bf16's if
//! both hold).
use crate::fp8::weight_only::warp_range_entries;
use crate::hgemm::elem::{Bf16, F16};

warp_range_entries! {
    fp8_w7_t8_bf16, 1, Bf16, 8;
    fp8_w7_t8_f16, 1, F16, 8;
}

#![cfg(lab_sm90)]
//! Decode-ladder step d21 — d19 with the **tile height a parameter**: tiles of `rows` activation rows
//! (80, 96, 144 or 160: `layout::hopper::tma_hgemm::D21_ROWS`) × 128 weight columns, chosen per
//! shape so that the tiles fill the SMs in whole rounds.
//!
//! Why: d19's 128-row tiles leave SMs idle wherever ⌈M/128⌉·⌈N/128⌉ falls short of a round —
//! 384×4096² makes 96 tiles on 132 SMs and ran at 80% of cuBLAS (session 27), 288×4096² likewise 96
//! tiles (84%). `ncu` of cuBLAS at these shapes (`results/2026-11-26-h100-session28/call1`) shows it
//! choosing the tile height per shape in the same transposed form: `nvjet_sm90_hsh_128x96` at 384 rows
//! (4 × 32 = 128 CTAs), `64x144` at 288, `128x160` at 640, `320x128` at 1280 — 128–130 CTAs each.
//!
//! Diff from d19 (`decode_v19_rows128.rs`):
//! * the tile is `rows = 2·NH` rows: a stage is the `rows`-row activation box and the two weight
//!   boxes (`d21_stage_bytes`), the ring as deep as fits beside the staging (`d21_stages`: 7 stages at
//!   80 and 96 rows, 5 at 144 and 160);
//! * each consumer warpgroup runs `wgmma.m64n{rows}k16` on its weight box and all the rows (`NH`
//!   accumulators a thread, one flat array: nvptx-std's `FlatWgmma`, `decode_swapped::RowsAcc`);
//! * C leaves through **one** staged box per warpgroup as high as the tile (the C map's boxes are
//!   `rows` × 64: `Args::TmaSplitKCRows` on the host), the staged rows rotated across it for a ragged M
//!   (`layout::hopper::tma_hgemm::d21_staging_row`, `tma_store::stage_c_rows_trans`);
//! * a split tile's last CTA reads every split's sums back from the workspace, its own included (d19
//!   added its own from registers: at 80 sums a thread three copies would not fit beside the rest).
//!
//! Prediction (before running), from the rounds: at 384×4096² 128 tiles of 96 rows in one round
//! against d19's 96 of 128 — each CTA 0.75 of d19's MMAs and bytes: **~1.25× d19** (80% → ~100% of
//! cuBLAS); at 288×4096² 80-row tiles (4 × 32 = 128) 1.35–1.45× on paper, less as the L2 bytes per
//! MMA grow (128 + 80 rows of operands per 128×80 outputs); at 640×4096² 160-row tiles (128) against
//! h11's 110 tiles of 128×192: 192/160 → ~1.15×; at 1280×4096² two rounds of 160-row tiles (256)
//! against h11's two rounds of 128×192: ~1.15×.
//!
//! Measured (H100, `results/2026-11-26-h100-session28/call2`, `call3`; `ab`, 6 rounds): 80 rows
//! **1.24–1.27× d19** at 257–320 × 4096², 96 rows **1.14–1.17×** at 300–384 × 4096² — less than
//! predicted: a round's time is ~0.154 µs a row over rows + 64, not proportional to the rows — 144 rows
//! 1.12× h11 at 576×4096² and 1.30× at 1152, 160 rows 1.06–1.08× h11 at 600–640 and 1.12–1.14× at
//! 1280 × 4096²; 144 rows 0.89× d19 at 512×4096², and a 192-row form level with h11 at 768 and 1536
//! (0.99×, no longer built). The entry point weighs the heights by that fit (`gemm::transposed_rows`,
//! `gemm::d21_over_h11`): 384×4096² went from 80% to 94% of cuBLAS, 1280×4096² from 83% to 95%.
use super::decode_rows::{decode_rows, decode_rows_entries};
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::tma::TensorMap;

decode_rows_entries!(1, 80, 40, hgemm_decode_v21_r80, hgemm_decode_v21_r80_bf16);
decode_rows_entries!(1, 96, 48, hgemm_decode_v21_r96, hgemm_decode_v21_r96_bf16);
decode_rows_entries!(1, 144, 72, hgemm_decode_v21_r144, hgemm_decode_v21_r144_bf16);
decode_rows_entries!(1, 160, 80, hgemm_decode_v21_r160, hgemm_decode_v21_r160_bf16);

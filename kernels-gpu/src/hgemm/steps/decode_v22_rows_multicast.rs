#![cfg(lab_sm90)]
//! Decode-ladder step d22 — d21 in **clusters of 2 CTAs** on vertically adjacent tiles sharing the
//! weight boxes by TMA multicast: each CTA loads its own activation box and one of the stage's two
//! weight boxes into both CTAs' stage, and every consumer warp releases a stage in both.
//!
//! Why: `ncu` of d21 against cuBLAS's kernel of the same tile (`results/2026-11-26-h100-session28/`
//! `call6`): at 384×4096² d21r96 runs 33.0 k SM cycles where `nvjet_sm90_hsh_128x96_64x7_1x2` runs
//! 29.9 k, tensor pipe 72% against 80% — ~515 cycles a K tile for 28 KiB of operands per CTA against
//! ~384 cycles of MMAs. cuBLAS launches its 128 CTAs in clusters of 2 along the activation rows, so the
//! pair shares the 16 KiB of weights a K tile: 20 KiB a CTA. At 288 and 640 rows it does the same
//! (`64x144_2x1`, `128x160_2x1`).
//!
//! Diff from d21: the body is d21's (`decode_rows::decode_rows`) with `CLUSTER = 2` — cluster tiles
//! of two tile rows (`tiles_m2`), CTA `rank` on tile row `2·tm2 + rank`, the stage's loads by
//! `decode_rows128::issue_cluster::<2>` (its activation box and weight box `rank`, multicast), the
//! consumers' releases in both CTAs (`consume::<_, _, 2>`), the producer's tail (`Ring::drain`, d11)
//! instead of a last cluster barrier; a tile row past M (⌈M/rows⌉ odd) stores nothing.
//!
//! Prediction (before running): if a K tile's time is the bytes a CTA ingests (~55 B a cycle at
//! 384×4096²), 20 KiB instead of 28 puts it at the MMAs' ~384–420 cycles: **~1.2× d21 at 96 rows**,
//! ~1.3× at 80 rows (26 → 18 KiB against 320 cycles of MMAs), ~1.05× at 160 rows (MMA-bound: 640
//! cycles). Against it: the lab's multicast on 64-row tiles (d8, d11) measured 0.84–0.91× d7 at aligned
//! shapes, with ~6% lost to the cluster launch alone (session 21) — the same costs here would leave
//! ~1.1× at 96 rows and a loss at 160.
//!
//! Measured (H100, `results/2026-11-26-h100-session28/call7`; `ab` against d21, 6 rounds): 96 rows
//! **1.03–1.04×**, 144 rows **1.05×**, 160 rows **1.03–1.04×** at 352–1280 rows of 4096² and 288×8192²;
//! 80 rows 0.96–1.02×; 0.67× at 448×11008×4096, whose odd 3 tile rows cost a round. So the ingest model
//! was not the whole story (as with d8); the entry point takes d22 for 96–160 rows where the tile rows
//! pair up (`gemm::d21_or_d22`). At d19's own 128 rows (`hgemm_decode_v22_r128`, `call9`): 1.00–1.05×
//! d19 at seven shapes of 256–512 rows, so the entry point takes it where d19's tile rows pair up.
use super::decode_rows::{decode_rows, decode_rows_entries};
use super::elem::{Bf16, F16};
use crate::launch_bounds::launch_bounds;
use crate::prim::{cluster_dims, tma::TensorMap};

decode_rows_entries!(2, 80, 40, hgemm_decode_v22_r80, hgemm_decode_v22_r80_bf16);
decode_rows_entries!(2, 96, 48, hgemm_decode_v22_r96, hgemm_decode_v22_r96_bf16);
decode_rows_entries!(2, 128, 64, hgemm_decode_v22_r128, hgemm_decode_v22_r128_bf16);
decode_rows_entries!(2, 144, 72, hgemm_decode_v22_r144, hgemm_decode_v22_r144_bf16);
decode_rows_entries!(2, 160, 80, hgemm_decode_v22_r160, hgemm_decode_v22_r160_bf16);

//! Tensor-core HGEMM (seeds 000 and 001): three ladders, one file per step in `steps/` (declared by
//! `kernels-gpu/build.rs`; each file's doc says what changes from the previous step). A step file
//! imports shared machinery from the modules below, never another step; a variant that changes one
//! choice of its step (`v5s2`, `v9h`, …) is a configuration in that step's file. README beside this file.
//!
//! **Warp ladder** (seed 001): `C = A · B` for one 16×16×16 tile, f16 in and out, f16 accumulation, one
//! warp.
//!
//! | step | file | idea |
//! |------|------|------|
//! | v1 | `steps/warp_v1_wmma_global.rs` | `wmma.load`/`wmma.mma`/`wmma.store` straight from global memory |
//! | v2 | `steps/warp_v2_wmma_shared.rs` | staged through shared memory with 128-bit stores; `wmma.load` conflicts |
//! | v3 | `steps/warp_v3_wmma_padded.rs` | rows padded by 8 halves: loads conflict-free, stores now conflict |
//! | v4 | `steps/warp_v4_ldmatrix_mma.rs` | `ldmatrix.x4(.trans)` + 2 `mma.sync.m16n8k16`, C by a `shfl.sync` stmatrix (and native `stmatrix` on sm_90: `v4s`) |
//! | v5 | `steps/warp_v5_swizzle.rs` | v4 with `Swizzle<3,1,3>` on every tile: no conflicts, no extra memory |
//!
//! **Block ladder** (seed 000): `C (M×N) = A · B`, f16 in and out, f32 accumulation, row-major, B is
//! K×N; `mma.sync`, 256 threads per 128×256 block tile.
//!
//! | step | file | idea |
//! |------|------|------|
//! | v1 | `steps/block_v1_warp_global.rs` | one warp per 16×16 of C, fragments straight from global memory |
//! | v2 | `steps/block_v2_smem.rs` | seed 000's 128×256×32 block tile through shared memory, unpadded |
//! | v3 | `steps/block_v3_padded.rs` | rows padded by `storage_align` |
//! | v4 | `steps/block_v4_swizzled.rs` | the solver's swizzles instead of padding |
//! | v5 | `steps/block_v5_cp_async.rs` | 3-stage `cp.async` pipeline (`v5s2`, `v5s4`: 2 and 4 stages) |
//! | v6 | `steps/block_v6_grouped_order.rs` | v5 with the grouped block order (L2 reuse) |
//! | v7 | `steps/block_v7_wide_k.rs` | 64-deep K stages |
//! | v8 | `steps/block_v8_smem_epilogue.rs` | C through a swizzled shared tile, 128-bit stores |
//! | v9 | `steps/block_v9_frag_double_buffer.rs` | fragments double-buffered across stages (`v9s4`: 4 stages, `v9p`: padded tiles, `v9h`: f16 accumulation) |
//! | v10 | `steps/block_v10_ldmatrix_bases.rs` | `ldmatrix` addresses from 8 bases + immediates |
//!
//! **Hopper ladder** (issue 6, sm_90a only: the files start with `#![cfg(lab_sm90)]`): the block
//! ladder's problem with TMA and `wgmma`.
//!
//! | step | file | idea |
//! |------|------|------|
//! | h1 | `steps/tma_v1_wgmma.rs` | TMA loads + `wgmma`, one stage |
//! | h2 | `steps/tma_v2_pipeline.rs` | a ring of stages, one mbarrier each |
//! | h3 | `steps/tma_v3_warp_specialized.rs` | one producer warpgroup, two consumer warpgroups, full/empty mbarrier rings, `setmaxnreg` |
//! | h4 | `steps/tma_v4_wide.rs` | 128×256 tile: one `wgmma.m64n256k16` per K step, one `wgmma` group in flight |
//! | h5 | `steps/tma_v5_persistent.rs` | persistent CTAs over grouped tiles, the ring running on across tiles |
//! | h6 | `steps/tma_v6_tma_store.rs` | the epilogue through shared memory and TMA stores (`h6-bf16` on bf16) |
//! | h7 | `steps/tma_v7_split_k.rs` | h5 with split-K over (tile, split) units when the tiles are fewer than the SMs (`h7-bf16`) |
//! | h8 | `steps/tma_v8_cluster_split_k.rs` | K split over the CTAs of a cluster (2 … 8), partials summed through distributed shared memory (`h8x2` … `h8x8`, `-bf16`) |
//! | h9 | `steps/tma_v9_multicast.rs` | h6 in clusters of 2 sharing B by TMA multicast; `h9s4` with 4 stages and C stored in two halves; `h6s4` (h6's file): the 4 stages alone, the entry point's choice (`-bf16` twins) |
//! | h10 | `steps/tma_v10_stream_k.rs` | h6s4 with a stream-K tail: the partial last wave's K iterations spread over every CTA, partials summed by each tile's last contributor (`h10-bf16`) |
//! | h11 | `steps/tma_v11_wide192.rs` | h6s4 on 128×192 tiles (`wgmma.m64n192k16`, three B boxes a stage) where 128×256 tiles leave the last wave partly empty (`h11-bf16`) |
//! | h12 | `steps/tma_v12_wide320.rs` | h11 on 128×320 tiles (`m64n256k16` + `m64n64k16`, five B boxes a stage, three stages, C stored two boxes at a time) where 128×256 and 128×192 tiles leave a round mostly empty (`h12-bf16`) |
//!
//! **Decode ladder** (issue 15): small M, bound by reading the weights (d1–d2 `mma.sync`, d3–d8 sm_90a
//! TMA + `wgmma`); d7 also takes the prefill shapes just above it.
//!
//! | step | file | idea |
//! |------|------|------|
//! | d1 | `steps/decode_v1_split_k.rs` | 16×64 tiles, K split to fill the SMs, `red.add` of the splits, last block converts |
//! | d2 | `steps/decode_v2_warp_columns.rs` | warps own columns, splits' partials stored and summed by the last block (`d2m64`, `d2m128`: 64/128-row tiles; `-bf16` twins) |
//! | d3 | `steps/decode_v3_tma_swapped.rs` | Hopper: `Cᵀ = Bᵀ·Aᵀ` (weights as `wgmma`'s MN-major A), 64×128 tiles, TMA ring, persistent split-K |
//! | d4 | `steps/decode_v4_whole_k.rs` | d3 without split-K: whole-K 64×64 tiles, consumer warpgroups on alternate stages |
//! | d7 | `steps/decode_v7_tma_store.rs` | d3 with C staged by `stmatrix.trans` and written by TMA stores |
//! | d8 | `steps/decode_v8_multicast_tma_store.rs` | d7 in clusters of 2 sharing the weight boxes |
//! | d9 | `steps/decode_v9_pdl.rs` | d4 with programmatic dependent launch |
//! | d10 | `steps/decode_v10_cp_async.rs` | d7 with its stages copied by `cp.async` |
//! | d11 | `steps/decode_v11_producer_tail.rs` | d8 ending in the producer's tail, no last cluster barrier |
//! | d12 | `steps/decode_v12_param_maps.rs` | d9 with the tensor maps passed by value |
//! | d13 | `steps/decode_v13_sized_activations.rs` | d9 with 16-row activation tiles (`m64n16k16`), 12 stages of 10 KiB (`d13s8`, `d13s16`, `d13s22`: other depths) |
//! | d14 | `steps/decode_v14_one_consumer.rs` | d13 with one consumer warpgroup, no exchange |
//! | d15 | `steps/decode_v15_early_first_stages.rs` | d14 with the first stages issued before the block barrier |
//! | d16 | `steps/decode_v16_one_consumer_64.rs` | d15's CTA on 64-row activation tiles (16 < M ≤ 64) |
//! | d19 | `steps/decode_v19_rows128.rs` | d7 on 128-row tiles (`m64n128k16`), split tiles summed in fragment order and written by TMA stores |
//! | d21 | `steps/decode_v21_rows.rs` | d19 with the tile height a parameter (80, 96, 144, 160 rows), C as one box per warpgroup; the entry point picks the height by rounds |
//! | d22 | `steps/decode_v22_rows_multicast.rs` | d21 in clusters of 2 sharing the weight boxes by TMA multicast (d21's body with `CLUSTER = 2`) |
//! | d23 | `steps/decode_v23_registers.rs` | the weights streamed through registers (`ld.global.nc`), no ring or barrier in the K loop, the warps' sums added once (slower: a measured negative) |
//! | d24 | `steps/decode_v24_ragged_weights.rs` | d2 with the weights read where they lie: any N, B and C at any 2-byte alignment (raw 16-byte chunks per row, fragments gathered by `ld.shared.u16`) |
//! | d25 | `steps/decode_v25_split_one_consumer.rs` | d16 with K split across CTAs where its 64×64 tiles leave SMs idle, split tiles summed by their last CTA (the cost model's candidate) |
//! | d27 | `steps/decode_v27_rows32.rs` | d16's CTA on 32-row activation tiles (`m64n32k16`): twice the tiles where d16's leave SMs idle (the cost model's candidate) |
//! | d28 | `steps/decode_v28_cluster_split.rs` | d15's / d16's CTA with K split over a cluster of 2, 4 or 8, the partials summed through distributed shared memory (`d28x2` … `d28m64x8`; `d28m128x2` … `x8` on 128-row tiles; in place of d2/d25 where the cost model predicts it faster) |
//!
//! Shared machinery:
//!
//! | module | what | used by |
//! |--------|------|---------|
//! | `warp_tile_16x16.rs` | the warp ladder's tile copies, `ldmatrix` addresses, `stmatrix` emulation, `ldmatrix` + `mma` product | warp v2–v5 |
//! | `block.rs` | the block tile: `BlockConfig` (a step's named numbers), accumulators, copies, `ldmatrix` + `mma` of a stage, direct epilogue, v2–v4's loop | block v2–v10 |
//! | `block_pipeline.rs` | the multistage `cp.async` main loop | block v5–v8, v9/v10's edge blocks |
//! | `block_smem_epilogue.rs` | the epilogue through a swizzled shared C tile | block v8–v10 |
//! | `block_cross_stage_prefetch.rs` | the main loop with fragments double-buffered across stages, the interior copy, `FragAddrs` | block v9, v10 |
//! | `tma.rs` | the Hopper CTA tile: TMA boxes, `wgmma` descriptors, one stage's loads and MMAs, the epilogue from fragments | h1–h6 |
//! | `tma_warp_specialized.rs` | `warp_specialized!` (the producer/consumer skeleton, written once) and the mbarrier `Ring` | h3–h7, FP8 f1–f2 |
//! | `tma_wide_tile.rs` | the 128×256 tile: wide stage loads (multicast in a cluster), `m64n256k16` MMAs, the consumers' K loop; the 192- and 320-wide accumulators | h4–h12 |
//! | `tma_wide_body.rs` | the persistent body of the wave-filling widths (the stage of `BN / 64` B boxes, the K loop, each accumulator width's TMA-store epilogue: `WideStore`) | h11, h12 |
//! | `tma_persistent.rs` | the persistent producer and tile order (`TileWalk`, clusters of tile rows) | h5–h7, h9, FP8 f1–f11 |
//! | `tma_store.rs` | the TMA-store epilogue's pieces: a 64×64 accumulator block staged as f16/bf16 in a `SWIZZLE_128B` box, the consumer warpgroup's named barrier | h6, FP8 f1–f2 |
//! | `tma_store_body.rs` | h6's body: the persistent 128×256 tile with the TMA-store epilogue, in clusters of 2 sharing B for h9 | h6, h9 |
//! | `decode_columns.rs` | d2's column-owning split-K body, generic over how a stage holds the weights (`Weights`) | d2, d24 |
//! | `cluster_split_k.rs` | split-K inside a cluster: `cluster_split_k!` (h8's body, a step plugging in its stage loads and K loop), the partial tile's stores and the cluster's sum over distributed shared memory | h8, FP8 f21 |
//! | `split_k.rs` | the split-K steps' sum across splits: the last CTA's ticket and the sum of the partial slices; the (tile, split) unit walk (`unit`) | d2, h7, d3, h10, FP8 f14 |
//! | `decode_swapped.rs` | the transposed product `Cᵀ = Bᵀ·Aᵀ`: stage loads, descriptors, d3's K loop, the transposed epilogue's pair stores and staged row stores (`store_staged`), d3's split-K body (`decode`, `decode_with` with the stage loads plugged in), `SwappedTile` (a whole-K tile: its stage, load and store) | d3–d17 |
//! | `decode_rows128.rs` | d19's 128-row tile: its stage load (boxes moved up / left at ragged edges), the layout of a thread's sums outside its registers, the epilogue through two row boxes | d19, d20, d21 and d22 (stage loads, producer, sums' layout) |
//! | `decode_rows.rs` | d21's body on tiles of any height (`RowsAcc<NH>`, one C box per warpgroup), generic over the cluster | d21, d22 |
//! | `decode_whole_k.rs` | d4's whole-K CTA: the two consumers' alternate stages (`consume` on `SwappedAcc`: 32 or 8 accumulators), their sum through shared memory, d4's tile `Rows64`, the body on any `WholeKTile` | d4, d5, d9, d12, d13, d16 (`Rows64`) |
//! | `decode_one_consumer.rs` | d13's 16-row tile `Rows16` (its stage load and store); d14's one-consumer CTA: its K loop, `OneConsumerTile`, the body (d17's L2 prefetch window as `AHEAD`); d25's split-K body (`decode_split`); d28's cluster split-K body (`decode_cluster`) | d13–d17, d25, d28 |
//! | `stream_k.rs` | the stream-K tail: `stream_k_wide!` (the wide kernel body with the tail, a step plugging in its stage loads and K loop) and the workspace slots' stores and adds | h10, FP8 f14, f16 (its `@body` form: any accumulator width, C staging and epilogue) |
//! | `elem.rs` | `Elem16`: f16 or bf16 inputs (the `mma`/`wgmma` type and the epilogue's conversion) | d2, h4–h7 |
//!
//! All shared tiles are described by a `layout::Layout`; the same layout gives the 16-byte store
//! addresses, the `ldmatrix`/`wmma` addresses and the host's predicted bank conflicts. Names of the
//! shared modules are part of the PTX: see the crate doc ("Where code lives and the PTX").
mod block;
mod block_cross_stage_prefetch;
mod block_pipeline;
mod block_smem_epilogue;
#[cfg(lab_sm90)]
pub(crate) mod cluster_split_k;
mod decode_columns;
#[cfg(lab_sm90)]
mod decode_one_consumer;
#[cfg(lab_sm90)]
mod decode_rows;
#[cfg(lab_sm90)]
mod decode_rows128;
#[cfg(lab_sm90)]
mod decode_swapped;
#[cfg(lab_sm90)]
mod decode_whole_k;
pub(crate) mod elem;
pub(crate) mod split_k;
#[cfg(lab_sm90)]
pub(crate) mod stream_k;
#[cfg(lab_sm90)]
mod tma;
#[cfg(lab_sm90)]
pub(crate) mod tma_persistent;
#[cfg(lab_sm90)]
pub(crate) mod tma_store;
#[cfg(lab_sm90)]
mod tma_store_body;
#[cfg(lab_sm90)]
pub(crate) mod tma_warp_specialized;
#[cfg(lab_sm90)]
mod tma_wide_body;
#[cfg(lab_sm90)]
mod tma_wide_tile;
mod warp_tile_16x16;
// The steps: one module per file of `src/hgemm/steps/`, declared by kernels-gpu/build.rs.
include!(concat!(env!("OUT_DIR"), "/hgemm_steps.rs"));

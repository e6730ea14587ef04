//! The SGEMM ladder of seed 004 on CUDA cores: `C (M×N) = A (M×K) · B (K×N)`, row-major f32, any M, N, K
//! (every load is predicated and zero-filled outside the matrices; every store is guarded). One file per
//! step in `steps/` (declared by `kernels-gpu/build.rs`; each file's doc says what changes from the
//! previous step):
//!
//! | step | file | idea |
//! |------|------|------|
//! | v0 | `steps/v0_naive.rs` | one thread per output, straight from global memory |
//! | v1 | `steps/v1_smem_tile.rs` | 32×32 block tile staged through shared memory |
//! | v2 | `steps/v2_register_tile.rs` | 128×128 block, 8×8 outputs per thread: outer products in registers |
//! | v3 | `steps/v3_conflict_free_store.rs` | thread-to-element mapping that stores the transposed A tile conflict-free |
//! | v4 | `steps/v4_strided_threads.rs` | strided ("virtual thread") output mapping: conflict-free shared reads |
//! | v5 | `steps/v5_vec4.rs` | 128-bit global and shared loads, A tile padded by `storage_align` |
//! | v6 | `steps/v6_double_buffer.rs` | two shared stages, next tile prefetched into registers |
//! | v7 | `steps/v7_wide_k_frag_prefetch.rs` | 16-deep K stages, fragments of the next k read before the FMAs |
//! | v8 | `steps/v8_grouped_blocks.rs` | grouped block order: panels of A and B reused from L2 |
//! | v9 | `steps/v9_warp_tile.rs` | warp tiles with a bank-aware lane arrangement (model said 8 wavefronts per k; the GPU, 12) |
//! | v10 | `steps/v10_cp_async_pipeline.rs` | 3-stage cp.async pipeline, A row-major in shared memory (K, N multiples of 4) |
//! | v11 | `steps/v11_interior_split.rs` | v9 with the interior test made once per block: a loop without bounds logic for interior blocks |
//! | v12 | `steps/v12_split_k.rs` | v11 with K split across blocks (atomic adds into a zeroed C) when the tiles are few |
//! | v13 | `steps/v13_skinny.rs` | small M: 16×32 strips, B streamed once, K split across the block's threads, sums met in shared memory |
//! | v14 | `steps/v14_half_tile.rs` | v12 with 64×128 tiles and 128 threads: three blocks per SM, no rows past M at M = 64 |
//! | v15 | `steps/v15_quarter_tile.rs` | v14 with 32×128 tiles and 64 threads: six blocks per SM, twice the tiles, half the splits |
//! | v16 | `steps/v16_clamped_edges.rs` | v14 with clamped edge tiles: past M or N (or N off 4) full K stages load unpredicated |
//! | v17 | `steps/v17_b_ring.rs` | v16 with B streamed global → shared by a 4-stage `cp.async` ring (K, N multiples of 4) |
//! | v18 | `steps/v18_half_unroll.rs` | v17 with each stage's 16 k-steps as a loop of two 8-step halves: half the unrolled body |
//! | v19 | `steps/v19_one_loop_per_launch.rs` | v16 with one loop per launch: with N % 4 == 0 every tile runs the interior loop from a clamped base row and column |
//! | v20 | `steps/v20_one_loop_128.rs` | v11 with v19's one loop per launch (128×128 tiles, two blocks per SM) |
//! | v21 | `steps/v21_overlapped_zeroing.rs` | v19 with C zeroed by a grid the GEMM overlaps (programmatic dependent launch; sm_90a) |
//! | v22 | `steps/v22_quarter_overlapped.rs` | v15 with v21's overlapped zeroing (sm_90a) |
//! | v23 | `steps/v23_vector_reductions.rs` | v22 with the split-K adds as `red.global.add.v4.f32` (sm_90a) |
//! | v24 | `steps/v24_vector_reductions_64.rs` | v21 with v23's vector reductions (sm_90a) |
//! | v25 | `steps/v25_widest_reductions.rs` | v24 for any N: each split-K add as wide as its address's alignment allows (sm_90a) |
//! | v26 | `steps/v26_quarter_widest.rs` | v22 with v25's widest reductions (sm_90a) |
//! | v27 | `steps/v27_widest_128.rs` | v25 on v12's 128×128 tiles (256 threads, one block per SM; sm_90a) |
//! | v29 | `steps/v29_odd_n_unclamped.rs` | v25 with N off 4 on the aligned loop: B as four unclamped scalar loads (sm_90a) |
//! | v30 | `steps/v30_odd_n_lanes.rs` | v29 with B's scalar loads across the warp: each warp load one 128-byte run (sm_90a) |
//! | v31 | `steps/v31_odd_n_cp_async.rs` | v30 with B copied global → shared by `cp.async` word by word (sm_90a) |
//! | v32 | `steps/v32_odd_n_k_tail.rs` | v31 for K off 16 too: the last partial stage predicated (sm_90a) |
//! | v33 | `steps/v33_skinny_odd_n.rs` | v13 with N off 4 on the interior loop (lanes own columns l + 8j) and K split by waves |
//!
//! Shared machinery, each module named for what it is (a step file imports these, never another step):
//!
//! | module | what | used by |
//! |--------|------|---------|
//! | `elementwise.rs` | `fma`, loads and stores guarded by the matrix bounds | every step (directly or through the loops) |
//! | `register_tile.rs` | the 128×128 register-tile main loop, parameterised by a thread `Mapping` | v2–v4 |
//! | `wide_k_loop.rs` | v7's loop: 16-deep stages, ping-pong fragments, unpredicated interior tiles; 128, 64 or 32 block rows; the split-K kernel body of v14–v16 and v19; v20's clamped 128-row loop; `stage_products(_halves)` and `epilogue` | v7–v9, v11, v12, v14–v20 |
//! | `frag_map.rs` | `FragMap` (who owns which outputs): `Strided4` (v5's), `WarpTiled` (v9's) | v7–v9, v11, v12, v14–v20 |
//! | `b_ring_loop.rs` | v17's loop: B by a `cp.async` ring, A through registers; whole or halved stages | v17, v18 |
//! | `skinny.rs` | v13's body, generic over which four columns of a strip a lane owns (`StripCols`) | v13, v33 |
//! | `zero_before_dependent.rs` | the grid that zeroes C and lets the GEMM after it start at once (sm_90a) | v21–v26 (the host launches it) |
//!
//! The grouped block order (v8 on) is `crate::util::grouped`. Tile shapes and shared layouts come from
//! `layout::sgemm`, which the host also uses.
pub use layout::sgemm::{BK, BM, BN, THREADS};

mod b_ring_loop;
mod elementwise;
mod frag_map;
mod register_tile;
mod skinny;
mod wide_k_loop;
mod zero_before_dependent;
// The steps: one module per file of `src/sgemm/steps/`, declared by kernels-gpu/build.rs.
include!(concat!(env!("OUT_DIR"), "/sgemm_steps.rs"));

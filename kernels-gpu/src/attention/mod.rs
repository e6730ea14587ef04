//! Attention forward (issue 17): `O = softmax(Q·Kᵀ · scale [+ causal mask]) · V` and the log-sum-exp
//! of each row, per (batch, head); Q, K, V, O stored `[B·H][L][D]` row-major, f16 or bf16 ([`layout::attention`]).
//! One file per step in `steps/` (declared by `kernels-gpu/build.rs`); README beside this file.
//!
//! | step | file | idea |
//! |------|------|------|
//! | a1 | `steps/v1_unfused_softmax.rs` | the unfused baseline users write first: S = QKᵀ and O = PV by cuBLAS (host), this row softmax between them (S and P in global memory) |
//! | a2 | `steps/v2_flash_mma.rs` | FlashAttention-2: one block per 64 query rows, 4 warps × 16 rows, K/V tiles streamed through swizzled shared memory (`cp.async`, 2 stages), S and P in registers (`mma.sync`, `ldmatrix`, `.trans` for V), online softmax in base 2 |
//! | a3 | `steps/v3_wide_query_tile.rs` | a2 with 128 query rows per block (8 warps): each K/V tile serves twice the rows, twice the warps per SM |
//! | a4 | `steps/v4_two_mtiles_per_warp.rs` | a2's 4 warps with 32 query rows each (D = 64): each V fragment feeds two `mma`s |
//! | a5 | `steps/v5_reduction_chains.rs` | a2 with the per-tile row max and sum as four independent chains (ILP against the `wait` stalls ncu shows) |
//! | a6 | `steps/v6_hopper_wgmma.rs` | Hopper: TMA K/V ring, `wgmma` for S = QKᵀ and for O += PV with P in registers, 1 producer + 2 consumer warpgroups (sm_90a) |
//! | a7 | `steps/v7_softmax_overlap.rs` | a6 with the next tile's S = QKᵀ issued before this tile's softmax: the tensor cores work while the warpgroup exponentiates |
//! | a8 | `steps/v8_pingpong.rs` | a7 with the two consumer warpgroups taking turns at the tensor cores (named barriers: FA3's ping-pong) |
//! | a9 | `steps/v9_lazy_rescale.rs` | a7 with the exponentials not waiting for the row max, and O rescaled only when a row's max moves by more than 2^8 (FA4's lazy rescaling) |
//! | a10 | `steps/v10_heavy_first.rs` | a9 with each head's query tiles launched longest first (the causal mask's last wave holds short blocks) |
//! | a11 | `steps/v11_fa2_tiles.rs` | FlashAttention-2's own forward tiles on `mma.sync` (sm_80): 4 warps × 32 query rows, K/V tiles of 128 keys at D = 64 and 64 at D = 128, S of both m-tiles in one k-loop (each K and V fragment feeds four `mma`s), `ldmatrix` addresses as bases plus immediates |
//! | a12 | `steps/v12_persistent.rs` | a9 as a persistent kernel: one CTA per SM walks pairs of query tiles (longest with shortest), its K/V ring and Q load running ahead across tiles |
//! | a15 | `steps/v15_cluster_multicast.rs` | a12 in clusters of 2 CTAs (adjacent query tiles of one head) sharing every K/V stage by TMA multicast: each CTA loads half, half the K/V bytes from L2 |
//! | a16 | `steps/v16_fa2_heavy_first.rs` | a11 with each head's query tiles launched longest first (a10's change on FA2's tiles, sm_80) |
//! | a17 | `steps/v17_fa2_longest_first_all_heads.rs` | a11 on a grouped grid: the longest query tiles of a whole group of heads first (heads grouped so their K and V fit half the L2) — the causal default off Hopper |
//! | a19 | `steps/v19_prefill_varlen.rs` | a10 on packed sequences of different lengths (`cu_seqlens`), grouped-query heads, the causal mask bottom-right, head dim 96 in the 128 kernel: 3-D TMA boxes of one head's tokens |
//! | a24 | `steps/v24_prefill_d256.rs` | a19 at head dim 256 (`hopper_wide.rs`): 64-key tiles (S by `m64n64k16`, P·V by `m64n256k16` with P in registers), K and V as separate ring entries released as each GEMM retires |
//! | a25 | `steps/v25_prefill_d256_persistent.rs` | a24 persistent: one CTA per SM walks the host's (sequence, query tile, head) units sorted by key tiles in snake order, the K/V ring running on across units |
//! | a26 | `steps/v26_prefill_persistent.rs` | a19 persistent: one CTA per SM walks the host's (sequence, query tile, head) units sorted by key tiles in snake order, the K/V ring running on across units |
//! | a27 | `steps/v30_prefill_pingpong.rs` | a26 with its two consumer warpgroups taking turns at the tensor cores (a8's turns on the lazy softmax): the prefill kernel at head dim 64 |
//! | a28 | `steps/v37_prefill_d256_keys80.rs` | a25 with 80-key tiles (FlashAttention-3's 128 × 80 at D = 256): S by `m64n80k16`, P·V five K-steps; the prefill kernel at head dim 256 |
//! | a29 | `steps/v38_prefill_d96.rs` | a26 at head dim 96 with S over the head's 96 dims (six K-steps, not eight over zeros): the prefill kernel at head dim 96 |
//! | a31 | `steps/v39_prefill_d256_cross_unit.rs` | a28 with each unit's first S and softmax under the last unit's last P·V: the prefill kernel at head dim 256 |
//! | a33 | `steps/v40_prefill_fa2_varlen.rs` | a19's problem (packed sequences, grouped heads, the causal mask bottom-right) on a11's `mma.sync` tiles: the prefill kernel where `sm_90a` does not run |
//! | b1 | `steps/v20_backward_fa2.rs` | the backward (dQ, dK, dV) as FlashAttention-2's on `mma.sync`: a CTA per 128 keys and K/V head walks the query tiles of its group's heads, dK and dV in registers, dQ by f32 atomics |
//! | b2 | `steps/v21_backward_deterministic.rs` | b1 with a deterministic dQ: b1's dK/dV without dQ, and a dQ kernel per 64 query rows recomputing S and dP over its keys (each dQ element summed by one thread in order; bitwise stable) |
//! | b3 | `steps/v23_backward_wgmma.rs` | b2's two kernels on Hopper's `wgmma` (sm_90a): two warpgroups of 64 resident rows each, Sᵀ/dPᵀ (S/dP) read both operands from 128-byte-swizzled shared memory, P and dS stay in registers as the A operand of dV, dK, dQ; `cp.async` stages |
//! | b4 | `steps/v27_backward_wgmma_atomic.rs` | b3's dK/dV kernel computing dQ too (atomic dQ): dSᵀ also to shared memory, dQ = dS·K on `wgmma` by both warpgroups (half of D each), added by `red.global.add.v2.f32` — five products a tile for b3's seven |
//! | b5 | `steps/v33_backward_fa2_warps.rs` | b1 on FlashAttention-2's own warp layout: Sᵀ/dPᵀ by 4 × 2 warps of 32 × 32, Pᵀ and dSᵀ through shared memory, dV/dK by 4 × 2 warps of 32 keys × D/2, dQ by 2 × 4 warps of 32 queries × D/4 (0.78× b1's `ldmatrix` bytes); the atomic dQ on `mma.sync` |
//! | b9 | `steps/v41_backward_producer.rs` | b4 with a producer warpgroup (384 threads): Q, dO and the statistics issued onto full/empty barriers a stage, the two computing warpgroups at 240 registers (`setmaxnreg`), meeting at a named barrier of their own |
//! | b6 | `steps/v34_backward_dq_blocks.rs` | b5 adding dQ into padded 64-row tile blocks in the order its reductions leave the registers (FlashAttention-2's `dq_accum`): each warp's `red` 128 consecutive bytes, no guards; its own conversion kernel |
//! | b7 | `steps/v35_backward_longest_first.rs` | b6 with its CTAs longest first: key blocks slowest in the order the GPU starts them (with the causal mask a key block's work falls with its index); the atomic dQ on `mma.sync` at D = 128 |
//! | b8 | `steps/v36_backward_q128.rs` | b7 on 128-query tiles at D = 64 (FlashAttention-2's tiles there): Sᵀ, dPᵀ by 4 × 2 warps of 32 keys × 64 queries, dQ by 4 × 2 warps of 32 × 32; 0.82× b7's `ldmatrix` traffic; the atomic dQ on `mma.sync` at D = 64 |
// The decode body (ad1, ad2).
mod decode_body;
// The backward's body and helpers (b1, b2; b3 takes `sequence`).
mod fa2_backward;
// FlashAttention-2's tiles: a11's body and entries' macro (a11, a16, a17), a33's over packed sequences.
mod fa2_mma_tiles;
// b5's body on FlashAttention-2's warp layout, generic over where dQ goes (b5, b6).
mod fa2_warps_backward;
// The fused kernels' body (a2–a5; a11 takes its tile loader and quad reductions).
mod flash;
// The Hopper body and its entries' macro `hopper_entry!` (a6–a10, a12, a15).
mod hopper;
// The Hopper backward steps' shared pieces (b3, b4).
mod wgmma_backward;
// The Hopper body at head dim 256 and its entries' macro `prefill_d256_entry!` (a24).
mod hopper_wide;
mod units;
// The steps: one module per file of `src/attention/steps/`, declared by kernels-gpu/build.rs.
include!(concat!(env!("OUT_DIR"), "/attention_steps.rs"));

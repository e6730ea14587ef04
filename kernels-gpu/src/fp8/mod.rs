//! FP8 GEMM on Hopper (issue 16, sm_90a only): `C (M×N, bf16) = dequant(A) · dequant(B)ᵀ` with A stored
//! M×K and B stored **N×K** (both K-major: 8-bit `wgmma` reads only K-major operands), e4m3 inputs and
//! f32 scales ([`layout::fp8`]: the format, the scale layouts, the tiles). One file per step in
//! `steps/` (declared by `kernels-gpu/build.rs`); README beside this file.
//!
//! | step | file | idea |
//! |------|------|------|
//! | f1 | `steps/v1_per_tensor.rs` | h6's warp-specialized persistent CTA on e4m3: 128×256 tiles, 128-deep K stages, `wgmma.m64n256k32`, per-tensor scales in the epilogue; all of K accumulated in the tensor core |
//! | f2 | `steps/v2_block_scaled.rs` | DeepGEMM's block scaling: 128×128 tiles, each 128-deep K block's MMAs into fresh registers, promoted into f32 accumulators with the block's scales |
//! | f3 | `steps/v3_scales_ahead.rs` | f2 with each block's scales loaded one block ahead |
//! | f4 | `steps/v4_promotion_overlap.rs` | two block-accumulator sets: block kb promoted while block kb + 1's MMAs run |
//! | f5 | `steps/v5_multicast.rs` | f1 in clusters of two CTAs that share B through TMA multicast |
//! | f6 | `steps/v6_block_multicast.rs` | f4 in clusters of two sharing B |
//! | f7 | `steps/v7_wide_block_scaled.rs` | block scales on f1's 128×256 tiles, each K block promoted in two halves of 128 columns |
//! | f8 | `steps/v8_pingpong.rs` | f3 with the two consumer warpgroups taking turns to issue each K block's `wgmma`s |
//! | f9 | `steps/v9_wide_192.rs` | f3 on 128×192 tiles: the widest whose two accumulator sets fit; two B scale blocks per tile |
//! | f10 | `steps/v10_wide_multicast.rs` | f9 in clusters of two sharing B (measured slower) |
//! | f11 | `steps/v11_scales_ahead_multicast.rs` | f3 in clusters of two sharing B (measured slower) |
//! | f12, f13 | `steps/v12_four_stages.rs` | f1 / f5 with a fourth stage, C stored in two halves (HGEMM h6s4's change) |
//! | f14 | `steps/v14_stream_k.rs` | f12 with HGEMM h10's stream-K tail: a last wave at most a third full spread over every CTA by K |
//! | f15 | `steps/v15_staged_scales.rs` | f9 with each K block's scales put into its stage by the producer (A's by TMA), read from shared memory |
//! | f16 | `steps/v16_staged_stream_k.rs` | f15 with HGEMM h10's stream-K tail (the block-scaled default where that tail streams) |
//! | f17 | `steps/v17_three_consumers.rs` | per-tensor scales on 192×192 tiles with three consumer warpgroups (cuBLASLt's tile at 2048×11008×4096): fewer, fuller waves where 128×256 tiles leave the last one mostly empty |
//! | f18 | `steps/v18_three_consumers_four_stages.rs` | f17 with a fourth stage, each consumer's C staged one box at a time |
//! | f19 | `steps/v19_three_consumers_block_scaled.rs` | block scales on 192×128 tiles: f18's three consumers with f15's staged scales, a third warpgroup's `wgmma`s running while two promote |
//! | f20 | `steps/v20_three_consumers_stream_k.rs` | f19 with HGEMM h10's stream-K tail (three consumers' partials, the ticket on barrier 4) |
//! | f21 | `steps/v21_cluster_split_k.rs` | f12's per-tensor 128×256 tiles with K split over a cluster of 2 … 8 CTAs, the partials summed through distributed shared memory (HGEMM h8's body, `hgemm::cluster_split_k!`): few tiles over deep K |
//! | f22 | `steps/v22_swapped_small_tiles.rs` | per tensor on 64×64 tiles computed transposed (the weights on `wgmma`'s M side, the activation tile on its N side): one consumer warpgroup, 8 × 16 KiB stages, C by `stmatrix.trans` and TMA — few tiles without splitting K |
//! | f23 | `steps/v23_block_small_tiles.rs` | block scales on f22's 64×64 tiles, not transposed (A's rows on `wgmma`'s M side: two A scales a thread), each K tile's sums promoted with its scales as f3 does — few tiles with block scales |
//! | f25 | `steps/v25_swapped_deep_ring.rs` | cuBLASLt's 32-row tile: 128 weight rows × 32 activation rows computed transposed, a 10-deep ring of 20 KiB stages (160 KiB of weights in flight), one CTA per tile — the weights of ≤ 32-row shapes streamed at ~4 TB/s (1.28–1.75× f22 beyond a round of its tiles; the per-tensor choice's pick up to 32 rows where `F25_COST` says so) |
//! | f26 | `steps/v25_swapped_deep_ring.rs` | f25 on 64 activation rows (`m64n64k32`, 9 × 24 KiB): 1.08–1.18× at 33–56 rows, slower than f22 at 64 (an experiment) |
//! | f27 | `steps/v27_wave_tiles.rs` | f12's CTA on 128 × 192, 320 or 384 tiles (`tile::Wide320`, `tile::Wide384`; B by two TMA boxes beyond 256 rows): the width whose tile count fills the SMs' rounds best, chosen by the wave model beside f14's 256 |
//! | f28 | `steps/v28_pair_tiles.rs` | per tensor on 64 × 128 tiles (cuBLASLt's at 128–256-row few-tile shapes) in cluster pairs sharing the weight box by multicast, two consumer warpgroups of 64 columns (an experiment, session 111: not yet run) |
//! | w1 | `steps/w1_weight_only.rs` | weight-only decode (issue 51): e4m3 weights with power-of-two block scales widened in registers, bf16/f16 activations, 16-bit `mma.sync`, M ≤ 32 (`weight_only.rs`: the shared widening, MMAs and block end); its FP8 routes fw2 (per tensor) and fwb (block scales applied to each 64-deep step's sums) read e4m3 activations |
//! | w5 | `steps/w5_packed_weights.rs` | w1 on weights packed in the order its lanes load them (each load of a warp four whole 128-byte lines), the library's FP8-weights decode step |
//!
//! Shared machinery: `tile.rs` (stage loads with or without multicast, descriptors, the persistent tile
//! walk and producer, the accumulators by tile width, the per-tensor K loop), `wide.rs` (f1/f5/f7's 128×256 kernel body with the step's K loop plugged in), `block_scaled.rs`
//! (f2–f4/f6/f8/f9/f15's kernel body, generic over the tile width, with the step's K loop plugged in, the scales, the promotion, the loops of f3/f8, f4/f6 and f9/f10), `staged.rs` (f15/f16's producer and K loop: the scales staged in each stage), `tall.rs` (f17/f18's three-consumer 192×192 body and f19's block-scaled 192×128 one), `quantize.rs`
//! (not a step: the kernels that produce FP8 inputs — also the weight-only format's — and the dequantized reference inputs), `weight_only.rs` (w1's widening, MMAs and block end). The
//! warp-specialized skeleton, the ring, the tile order and the C staging are the Hopper HGEMM ladder's
//! (`hgemm::tma_warp_specialized`, `hgemm::tma_persistent`, `hgemm::tma_store`).
#[cfg(lab_sm90)]
mod block_scaled;
#[cfg(lab_sm90)]
mod wide;
#[cfg(lab_sm90)]
pub(crate) mod weight_only;
#[cfg(lab_sm90)]
pub mod quantize;
#[cfg(lab_sm90)]
mod staged;
#[cfg(lab_sm90)]
mod tall;
#[cfg(lab_sm90)]
mod tile;
// The steps: one module per file of `src/fp8/steps/`, declared by kernels-gpu/build.rs.
include!(concat!(env!("OUT_DIR"), "/fp8_steps.rs"));

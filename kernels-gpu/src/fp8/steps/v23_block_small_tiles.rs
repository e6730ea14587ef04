#![cfg(lab_sm90)]
//! FP8 step f23 — f22's small tiles for **block-scaled** operands: 64×64 tiles of C, one consumer
//! warpgroup, f22's 8-deep ring of 16 KiB stages, each K tile's four `m64n64k32` into a fresh block of
//! sums promoted into the running ones with its scales while the next K tile's `wgmma`s run (two blocks
//! of sums in turn, f4's loop), the scales staged beside each stage by the producer warp, C staged and
//! stored by TMA.
//!
//! Diff from f22: **not transposed.** f22 puts the weights on `wgmma`'s M side; a block scale of A is per
//! row of A, so transposed each thread's 32 accumulators would span 16 rows of A and need 16 A scales a
//! K tile. Here A's 64 rows are on the M side (a thread's accumulators: 2 rows of A, its A scales 2 a K
//! tile) and B's 64 columns, inside one 128-row scale block, on the N side (one B scale): the promotion
//! f3 does on a 128-row tile. For 64×64 tiles the two orientations are the same work otherwise.
//!
//! Why: at few-tile shapes the block-scaled choice ran f3's 128×128 tiles (0.61× cuBLASLt's faster
//! per-tensor mode at 256×768×1536, 0.75× at 256×2048×1024: session 72's headline), bound by how few SMs
//! pull data, as f14 was before f22.
//!
//! **The scales staged by the producer warp.** The first version loaded each K tile's three scales in
//! the consumer one K tile ahead (f3's loop): 0.49 µs a K tile a round (512×4096×14336: 220 µs, f3 67),
//! where f22 takes 0.10–0.16 — the SASS shows why: the loaded values are copied into the registers the
//! next promotion reads at the top of the next iteration, so each K tile waited out a global load's
//! latency. Staging them through the producer warp's registers (each lane loading its scales before the
//! empty wait, then storing them into a slot beside the stage) measured the same (224 µs): the producer
//! then waited out one load a stage. Now all 32 lanes of the producer warp copy the stage's scales with
//! `cp.async` (lane l: A's rows l and l + 32, lane 0 also B's and the TMA boxes) into the stage's slot and
//! arrive on its full barrier when those copies land (`cp.async.mbarrier.arrive.noinc`; the barrier counts
//! the 32 lanes, lane 0 expecting the boxes' bytes first): no register waits for a load, and the consumer
//! reads the scales from shared memory after the full wait, as f15 does.
//!
//! Prediction (H200, before the first run): f22's costs (4.3 µs + 0.10–0.16 µs a K tile) plus the promotion
//! serialized after each K tile's `wgmma`s (f3's loop: ~0.05 µs a K tile): 256×768×1536 ~6.5 µs (f3
//! ~10: 1.5×), 256×2048×1024 ~6.5 µs (f3 8.0: 1.2×); at or above cuBLASLt's block mode wherever f22
//! beats f14 per tensor.
//!
//! Measured (H200, `results/2026-12-01-h200-session73` call 3, medians of 3 processes): 0.946× cuBLASLt's
//! block mode over 22 few-tile shapes (f3 0.808×; 128×3584×7168 15.1 µs, f3 28.6; 32×2048×8192 15.8, f3 31.3;
//! 512×4096×14336 122 — four rounds of tiles — where f3 takes 68), 0–25% above f22's per-tensor times; the
//! library weighs it against f3 by measured costs (`steps::fp8::F23_COST`). memcheck and synccheck clean;
//! racecheck reports the slot's copies against the consumers' reads as it reports f15's staged scales (it does
//! not follow the mbarrier ordering: a slot is written after its stage's empty phase, read after its full one).
use crate::hgemm::{elem::Bf16, tma_store::{stage_c_box, store_tile}, tma_warp_specialized::{Ring, warp_specialized}};
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    cp_async::{cp_async_ca_4, cp_async_ca_4_zfill, cp_async_mbarrier_arrive_noinc},
    mbarrier::mbarrier_expect_tx,
    shared::ld_shared_f32,
    sync::sync_warp,
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s, cp_async_bulk_wait_group0},
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_m64n64k32_f32_e4m3, wgmma_wait_group},
};
use crate::fp8::block_scaled::promote_block;
use layout::fp8::{scale_a_index, scale_b_index};
use layout::fp8::tiles::{BK, F22_STAGE_BYTES as STAGE_BYTES, F22_STAGES as STAGES, F22_TILE as T, F23_SLOT_B as SLOT_B, F23_SLOT_BYTES as SLOT_BYTES};
use layout::hopper::WgmmaDesc;

/// Bytes of A's box at the start of a stage (64 rows × 128 B); B's box follows.
const A_BYTES: u32 = T * BK;

/// The scale slot of running index `it` (one per stage, after the C box at `s_c`).
#[inline(always)]
fn slot(s_c: u32, it: u32) -> u32 {
    s_c + layout::hopper::tma_hgemm::C_BOX_BYTES + (it % STAGES) * SLOT_BYTES
}

/// Waits for stage `it`, reads this thread's scales from its slot (`(sa[r] · sb, sa[r + 8] · sb)` for
/// tile row `r`), and issues its four `wgmma`s into `blk` (the first with `scale-d = 0`) as one
/// committed group, not waited for.
///
/// # Safety
/// All 128 threads of the consumer warpgroup; `r + 8 < 64`; `blk` not read until a wait retires the group.
#[inline(always)]
unsafe fn issue(ring: Ring, s_c: u32, it: u32, r: u32, blk: &mut [f32; 32]) -> (f32, f32) {
    // SAFETY: forwarded to the caller; the slot was written (and published by its writers' arrivals)
    // before the phase waited for completed, and is rewritten only after this stage's release.
    unsafe {
        ring.wait_full(it);
        let (s_stage, s_slot) = (ring.at(it).0, slot(s_c, it));
        let (a_lo, a_hi, b) = (ld_shared_f32(s_slot + 4 * r), ld_shared_f32(s_slot + 4 * (r + 8)), ld_shared_f32(s_slot + SLOT_B));
        let (d_a, d_b) = (WgmmaDesc::K_MAJOR_SW128.advance(s_stage), WgmmaDesc::K_MAJOR_SW128.advance(s_stage + A_BYTES));
        wgmma_fence_operand(blk);
        wgmma_fence();
        for ks in 0..BK / 32 {
            wgmma_m64n64k32_f32_e4m3(blk, d_a.advance(32 * ks).0, d_b.advance(32 * ks).0, ks > 0);
        }
        wgmma_commit_group();
        (a_lo * b, a_hi * b)
    }
}

/// Retires the older of (at most) two pending groups — the one that wrote `blk` from stage `it` (with
/// `LAST`, every group) — releases the stage and promotes `blk` into `acc` with its `scale`.
///
/// # Safety
/// All 128 threads of the consumer warpgroup; `blk`'s group is the older pending one (or the only one).
#[inline(always)]
unsafe fn retire<const LAST: bool>(ring: Ring, it: u32, acc: &mut [f32; 32], blk: &mut [f32; 32], scale: (f32, f32)) {
    // SAFETY: forwarded to the caller. The warp barrier orders every lane's slot reads (in `issue`)
    // before lane 0's release, hence before the producer's next write of the slot (as f15).
    unsafe {
        if LAST { wgmma_wait_group::<0>() } else { wgmma_wait_group::<1>() }
        wgmma_fence_operand(blk);
        sync_warp();
        ring.release_cluster::<1>(it);
    }
    promote_block(acc, blk, scale);
}

/// `C = Σ_kb sa[·, kb] · sb[kb] · qA_kb · qB_kbᵀ` (bf16) on 64×64 tiles, scales per 1×128 of A and per
/// 128×128 block of B.
///
/// # Safety
/// Tensor maps (in global memory) of qA (M×K e4m3, box 64 rows × 128 B), qB (N×K e4m3, box 64 rows ×
/// 128 B), both `SWIZZLE_128B`, and C (M×N bf16, box 64 × 64, `SWIZZLE_128B`); `sa` A's `⌈k/128⌉ · m`
/// and `sb` B's `⌈n/128⌉ · ⌈k/128⌉` f32 scales (`layout::fp8::{scale_a_index, scale_b_index}`); `m, n, k`
/// the tensors' sizes, `k ≥ 1`; 256 threads, `F23_DYN_SMEM` bytes of dynamic shared memory, a 1-D grid of
/// at most one CTA per tile.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v23(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, sa: *const f32, sb: *const f32,
                                              m: u32, n: u32, k: u32) {
    // SAFETY: f22's ring protocol and epilogue (one consumer warpgroup; producer and consumer walk the
    // same tiles and K tiles; each stage use released once per consumer warp after its `wgmma`s retired,
    // at most two groups pending and each block of sums rewritten only after its group retired and it
    // was promoted); the full barriers count the producer warp's 32 arrivals (`producer_threads: 32`),
    // each triggered when that lane's `cp.async` copies into the slot have landed; lane 0 expects the
    // transaction of both whole 8 KiB boxes (1024-aligned in the stage) before its own arrival is issued,
    // so no phase completes without them; a slot is written only after its stage's empty wait. Scale
    // reads: row min(r, m − 1) < m (m ≥ 1) and K block kt < ⌈k/128⌉ of `sa` (4-byte aligned words; rows
    // ≥ m copy no byte and fill zeros), block (n0 / 128, kt) of `sb` with n0 < n.
    unsafe {
        warp_specialized! {
            consumers: 1, registers: (40, 232), producer_threads: 32;
            ring: let (ring, s_c) = (STAGES, STAGE_BYTES, layout::hopper::tma_hgemm::C_BOX_BYTES + STAGES * SLOT_BYTES);
            thread: tid, warpgroup: wg;
            setup: {
                // >= 1: `t % tiles_n` cannot trap (the host never sends n = 0).
                let (tiles_m, tiles_n) = (m.div_ceil(T), n.div_ceil(T).max(1));
                let tiles = tiles_m * tiles_n;
                let k_tiles = k.div_ceil(BK);
                let (g, ctas) = (block_idx_x(), grid_dim_x());
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let lane = tid % 32;
                let mut it = 0u32;
                let mut t = g;
                while t < tiles {
                    // Consecutive CTAs share the row of A and walk B's columns.
                    let (tn, tm) = (t % tiles_n, t / tiles_n);
                    let (m0, n0) = (tm * T, tn * T);
                    for kt in 0..k_tiles {
                        let (s_stage, full, _, _) = ring.at(it);
                        ring.wait_empty(it);
                        let s_slot = slot(s_c, it);
                        if lane == 0 {
                            // The boxes' bytes expected before this lane's arrival below can be triggered.
                            mbarrier_expect_tx(full, STAGE_BYTES);
                            cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, (kt * BK) as i32, m0 as i32, full);
                            cp_async_bulk_tensor_2d_g2s(s_stage + A_BYTES, tmap_b, (kt * BK) as i32, n0 as i32, full);
                            cp_async_ca_4(s_slot + SLOT_B, sb.add(scale_b_index(n0, kt * BK, k) as usize) as *const u8);
                        }
                        // This lane's A scales (rows l and l + 32; zeros past M, read from nowhere), copied
                        // without a register round trip: the arrival fires when they have landed.
                        let a_word = |r: u32| (sa.add(scale_a_index(r.min(m - 1), kt * BK, m) as usize) as *const u8, if r < m { 4 } else { 0 });
                        let ((p0, n0b), (p1, n1b)) = (a_word(m0 + lane), a_word(m0 + lane + 32));
                        cp_async_ca_4_zfill(s_slot + 4 * lane, p0, n0b);
                        cp_async_ca_4_zfill(s_slot + 4 * (lane + 32), p1, n1b);
                        cp_async_mbarrier_arrive_noinc(full);
                        it += 1;
                    }
                    t += ctas;
                }
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                // This thread's accumulator rows in the tile: fragment rows g and g + 8 of its warp's 16.
                let r = 16 * warp + lane / 4;
                let mut it = 0u32;
                let mut t = g;
                while t < tiles {
                    let (tn, tm) = (t % tiles_n, t / tiles_n);
                    let mut acc = [0f32; 32];
                    let (mut blk0, mut blk1) = ([0f32; 32], [0f32; 32]);
                    // K tile j lives in block j % 2; at most two groups pending (k_tiles ≥ 1: k ≥ 1).
                    let mut s0 = issue(ring, s_c, it, r, &mut blk0);
                    let mut j = 1;
                    loop {
                        if j >= k_tiles {
                            retire::<true>(ring, it + j - 1, &mut acc, &mut blk0, s0);
                            break;
                        }
                        let s1 = issue(ring, s_c, it + j, r, &mut blk1);
                        retire::<false>(ring, it + j - 1, &mut acc, &mut blk0, s0);
                        if j + 1 >= k_tiles {
                            retire::<true>(ring, it + j, &mut acc, &mut blk1, s1);
                            break;
                        }
                        s0 = issue(ring, s_c, it + j + 1, r, &mut blk0);
                        retire::<false>(ring, it + j, &mut acc, &mut blk1, s1);
                        j += 2;
                    }
                    it += k_tiles;
                    store_tile::<1>(tmap_c, s_c, tm * T, tn * T, mh, tid % 128 == 0, || stage_c_box::<Bf16>(&acc, s_c, warp, lane));
                    t += ctas;
                }
                if tid % 128 == 0 {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}

// 256 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v23, 256, 1);

#![cfg(lab_sm90)]
//! FP8 step f2: **block scaling with promotion** (DeepGEMM's scheme): A has one f32 scale per 1×128 row
//! segment along K, B one per 128×128 block ([`layout::fp8`]: `sa[kb · M + m]`, `sb[nb · ⌈K/128⌉ + kb]`).
//!
//! Diff from f1:
//! * the C tile is 128×128 (each consumer 64×128, `wgmma.m64n128k32`): the tile's columns are one
//!   scale block of B, so one `sb` per K block; and the consumer needs two sets of accumulators, 64
//!   registers each, where f1's one set of 128 already filled the budget;
//! * per 128-deep K block (= one stage = one scale block), the four `wgmma`s start from zero
//!   (`scale-d = 0` on the first) into `r_blk`; while they run, each thread loads the scales of its two
//!   rows and the tile's `sb`; after `wait_group 0`, `r_acc += r_blk · (sa[row] · sb)` — 64 FFMAs in
//!   f32, the **promotion**: the tensor core's reduced-precision accumulation never spans more than 128
//!   of K, so the error no longer grows with K;
//! * six 32 KiB stages; C staged as two 64×64 bf16 boxes per consumer.
//!
//! The price: `wait_group 0` every stage (the promotion reads the block's sums), so a consumer's
//! tensor-core work no longer overlaps its own FFMAs — the two consumer warpgroups interleave instead —
//! and 128-wide tiles move 1.5× the shared-memory bytes per MMA of f1's 256-wide ones.
//!
//! Prediction: ~0.80–0.90× f1 at 4096³–8192³ (DeepGEMM reaches ~1.2× CUTLASS with many more tricks:
//! TMA multicast, unaligned block N, FFMA interleaving in SASS).
use crate::fp8::tile::{a_desc, b_desc, produce};
use crate::hgemm::{
    elem::Bf16,
    tma_persistent::persistent_tile,
    tma_store::{consumer_barrier, stage_c_box},
    tma_warp_specialized::{Ring, warp_specialized},
};
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    mbarrier::fence_proxy_async_shared_cta,
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::{TensorMap, cp_async_bulk_commit_group, cp_async_bulk_tensor_2d_s2g, cp_async_bulk_wait_group0, cp_async_bulk_wait_group_read0},
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_m64n128k32_f32_e4m3, wgmma_wait_group},
};
use layout::fp8::{scale_a_index, scale_b_index, tiles::{BK, BM, F2_BN as BN, F2_C_STAGE_BYTES as C_STAGE_BYTES, F2_STAGE_BYTES as STAGE_BYTES, F2_STAGES as STAGES}};

/// `C[m][n] = Σ_kb sa[kb][m] · sb[n/128][kb] · Σ_{k in kb} qA[m][k] · qB[n][k]`: tensor maps as
/// [`super::v1_per_tensor::fp8_gemm_v1`]'s with B's box 128 rows; `sa` (⌈K/128⌉ · M f32) and `sb`
/// (⌈N/128⌉ · ⌈K/128⌉ f32) in the layouts of [`layout::fp8`].
///
/// # Safety
/// As `fp8_gemm_v1`, with `sa` and `sb` readable arrays of those lengths and `F2_DYN_SMEM` bytes of
/// dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v2(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                             sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: ring and epilogue as f1 (same proof); scale reads are inside the arrays (rows < m checked,
    // kb < ⌈k/128⌉ and the tile's n0 < n by construction).
    unsafe {
        warp_specialized! {
            ring: let (ring, s_cstage) = (STAGES, STAGE_BYTES, 2 * C_STAGE_BYTES);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(BN));
                let tiles = tiles_m * tiles_n;
                let k_tiles = k.div_ceil(BK);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                produce::<BN>(ring, tmap_a, tmap_b, tiles_m, tiles_n, k_tiles);
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let mut it = 0u32;
                let mut tile = block_idx_x();
                while tile < tiles {
                    let (tm, tn) = persistent_tile(tile, tiles_m, tiles_n);
                    let (row0, n0) = (tm * BM + 64 * mh, tn * BN);
                    // This thread's two accumulator rows (fragment rows g and g + 8 of its warp's 16).
                    let row = row0 + 16 * warp + lane / 4;
                    let r_acc = consume_tile(ring, &mut it, k_tiles, mh, Scales { sa, sb, m, k, row, n0 });
                    let s_c = s_cstage + mh * C_STAGE_BYTES;
                    let leader = tid % 128 == 0;
                    if leader {
                        cp_async_bulk_wait_group_read0();
                    }
                    consumer_barrier(mh);
                    let [acc0, acc1] = &r_acc;
                    stage_c_box::<Bf16>(acc0, s_c, warp, lane);
                    stage_c_box::<Bf16>(acc1, s_c + 8192, warp, lane);
                    fence_proxy_async_shared_cta();
                    consumer_barrier(mh);
                    if leader {
                        for nb in 0..2 {
                            cp_async_bulk_tensor_2d_s2g(tmap_c, (n0 + 64 * nb) as i32, row0 as i32, s_c + nb * 8192);
                        }
                        cp_async_bulk_commit_group();
                    }
                    tile += grid_dim_x();
                }
                if tid % 128 == 0 {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}

/// Where one thread's scales come from: the arrays, the shape, its first accumulator row, the tile's
/// first column.
#[derive(Clone, Copy)]
struct Scales {
    sa: *const f32,
    sb: *const f32,
    m: u32,
    k: u32,
    row: u32,
    n0: u32,
}

impl Scales {
    /// `(sa[row] · sb, sa[row + 8] · sb)` of K block `kb` (0 for rows ≥ M: those rows are clipped by the
    /// TMA store).
    ///
    /// # Safety
    /// The arrays have the lengths `fp8_gemm_v2` states; `kb < ⌈k/128⌉`; `n0 < n`.
    #[inline(always)]
    unsafe fn of_block(self, kb: u32) -> (f32, f32) {
        let k0 = kb * BK;
        let ld = |r: u32| if r < self.m {
            // SAFETY: r < m and k0 < k: inside `sa` (caller).
            unsafe { *self.sa.add(scale_a_index(r, k0, self.m) as usize) }
        } else {
            0.0
        };
        // SAFETY: n0 < n and k0 < k: inside `sb` (caller).
        let s_b = unsafe { *self.sb.add(scale_b_index(self.n0, k0, self.k) as usize) };
        (ld(self.row) * s_b, ld(self.row + 8) * s_b)
    }
}

/// One consumer warpgroup's K loop over a tile with promotion: per stage, four `m64n128k32` into a
/// fresh `r_blk` (the first with `scale-d = 0`), the block's scales loaded meanwhile, `wait_group 0`,
/// the stage released, then `r_acc += r_blk · scale` per row. Advances `it` by `k_tiles`.
///
/// # Safety
/// All 128 threads of a consumer warpgroup; the ring initialized; the producer issues the same tiles;
/// `sc` as [`Scales::of_block`] requires.
#[inline(always)]
unsafe fn consume_tile(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32, sc: Scales) -> [[f32; 32]; 2] {
    let mut r_acc = [[0f32; 32]; 2];
    let mut r_blk = [[0f32; 32]; 2];
    // SAFETY: forwarded to the caller; `r_blk` is pinned around the fence and the wait.
    unsafe {
        for kt in 0..k_tiles {
            ring.wait_full(*it);
            let s_stage = ring.at(*it).0;
            let (d_a, d_b) = (a_desc(s_stage, mh), b_desc(s_stage));
            for blk in r_blk.iter_mut() {
                wgmma_fence_operand(blk);
            }
            wgmma_fence();
            for ks in 0..BK / 32 {
                wgmma_m64n128k32_f32_e4m3(&mut r_blk, d_a.advance(32 * ks).0, d_b.advance(32 * ks).0, ks > 0);
            }
            wgmma_commit_group();
            let (s_lo, s_hi) = sc.of_block(kt);
            wgmma_wait_group::<0>();
            for blk in r_blk.iter_mut() {
                wgmma_fence_operand(blk);
            }
            ring.release(*it);
            *it += 1;
            for (acc, blk) in r_acc.iter_mut().zip(r_blk.iter()) {
                for i in 0..32 {
                    // Fragment element i: row g for i % 4 < 2, row g + 8 otherwise.
                    // One FFMA each (a plain `a * b + c` stays a separate mul and add: no contraction in Rust).
                    acc[i] = core::intrinsics::fmaf32(blk[i], if i % 4 < 2 { s_lo } else { s_hi }, acc[i]);
                }
            }
        }
    }
    r_acc
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v2, 384, 1);

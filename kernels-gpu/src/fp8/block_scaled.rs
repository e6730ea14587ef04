//! The block-scaled CTA of the FP8 steps f2 and f3 (introduced by f2, whose file explains it): the
//! warp-specialized persistent kernel over 128×128 tiles with the bf16 TMA-store epilogue, written once;
//! a step supplies its consumers' K loop ([`ConsumeTile`]), the part in which f2 and f3 differ.
use super::tile::produce;
use crate::hgemm::{
    elem::Bf16,
    tma_persistent::persistent_tile,
    tma_store::{consumer_barrier, stage_c_box},
    tma_warp_specialized::{Ring, warp_specialized},
};
use crate::prim::{
    mbarrier::fence_proxy_async_shared_cta,
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::{TensorMap, cp_async_bulk_commit_group, cp_async_bulk_tensor_2d_s2g, cp_async_bulk_wait_group0, cp_async_bulk_wait_group_read0},
};
use layout::fp8::{scale_a_index, scale_b_index, tiles::{BK, BM, F2_BN as BN, F2_C_STAGE_BYTES as C_STAGE_BYTES, F2_STAGE_BYTES as STAGE_BYTES, F2_STAGES as STAGES}};

/// Where one thread's scales come from: the arrays, the shape, its first accumulator row, the tile's
/// first column.
#[derive(Clone, Copy)]
pub(super) struct Scales {
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
    /// The arrays have the lengths the kernels state; `kb < ⌈k/128⌉`; `n0 < n`.
    #[inline(always)]
    pub(super) unsafe fn of_block(self, kb: u32) -> (f32, f32) {
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

/// `r_acc += r_blk · scale` per row: fragment element `i` is in row g for `i % 4 < 2`, in row g + 8
/// otherwise. One FFMA each (a plain `a * b + c` stays a separate mul and add: Rust does not contract).
#[inline(always)]
pub(super) fn promote(r_acc: &mut [[f32; 32]; 2], r_blk: &[[f32; 32]; 2], (s_lo, s_hi): (f32, f32)) {
    for (acc, blk) in r_acc.iter_mut().zip(r_blk.iter()) {
        for i in 0..32 {
            acc[i] = core::intrinsics::fmaf32(blk[i], if i % 4 < 2 { s_lo } else { s_hi }, acc[i]);
        }
    }
}

/// A consumer warpgroup's K loop over one tile: returns rows `64·mh ..` × 128 columns of the tile,
/// promoted and scaled, having released every stage use it consumed; advances `it` by `k_tiles`.
pub(super) trait ConsumeTile {
    /// # Safety
    /// All 128 threads of a consumer warpgroup; the ring initialized; the producer issues the same
    /// tiles; `sc` as [`Scales::of_block`] requires.
    unsafe fn consume(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32, sc: Scales) -> [[f32; 32]; 2];
}

/// The block-scaled kernel body with K loop `C`: tensor maps and scales as `fp8_gemm_v2` states.
///
/// # Safety
/// As `fp8_gemm_v2`.
#[inline(always)]
pub(super) unsafe fn block_scaled<C: ConsumeTile>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                                  sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: the ring protocol and the epilogue as f1 (same proof: every stage use is issued once by
    // the producer and released once by each consumer warp after its `wgmma`s retired; a staging tile is
    // rewritten only after its previous TMA store finished reading it); scale reads as `Scales` states.
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
                    let r_acc = C::consume(ring, &mut it, k_tiles, mh, Scales { sa, sb, m, k, row, n0 });
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

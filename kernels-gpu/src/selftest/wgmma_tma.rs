//! TMA → `wgmma` round trip (sm_90a): the smallest complete Hopper data path, checking in one kernel that
//! (1) the TMA's `SWIZZLE_128B` layout, (2) the descriptor [`WgmmaDesc::k_major`] builds for it, and
//! (3) the `m64n64k16` accumulator fragment all agree with the layout crate.
//!
//! `D₀ (64×64, f32) = A (64×64, f16, row-major M×K) · Bᵀ`, with `B` given as `64×64` row-major N×K (both
//! operands K-major, as `wgmma` reads them untransposed), and `D₁ = A · C` with `C` row-major K×N (N
//! contiguous: MN-major, read with `imm-trans-b = 1`, the HGEMM problem's layout). One warpgroup, one CTA.
use crate::prim::{
    mbarrier::{fence_mbarrier_init, mbarrier_arrive_expect_tx, mbarrier_init, mbarrier_wait_parity},
    shared::static_alloc_aligned,
    sync::sync_threads,
    thread::{lane_id, thread_idx_x},
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s, prefetch_tensormap},
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_m64n64k16_f32_f16, wgmma_wait_group},
};
use layout::fragment::WgmmaAcc;
use layout::hopper::{TmaSwizzle, WgmmaDesc};

/// Rows (M = N) and K of the test tile.
const T: u32 = 64;
/// Bytes of one 64×64 f16 operand (one TMA box of 64 rows × 128 bytes).
const TILE_BYTES: u32 = T * T * 2;

/// `g_d[m·64 + n] = Σ_k A[m][k] · B[n][k]` and `g_d[4096 + m·64 + n] = Σ_k A[m][k] · C[k][n]` through
/// TMA (128B swizzle) and four `wgmma.m64n64k16` each.
///
/// # Safety
/// sm_90a; one CTA of 128 threads; `tmap_a`/`tmap_b`/`tmap_c` point to tensor maps in global memory for
/// 64×64 f16 row-major tensors with box 64×64 and `SWIZZLE_128B`; `g_d` has 8192 writable `f32`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn selftest_wgmma_tma(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                                     g_d: *mut f32) {
    // A at +0, B at +8192, C at +16384 (all 1024-aligned, the 128B pattern's period), the mbarrier after.
    let s_base = static_alloc_aligned::<{ 3 * TILE_BYTES as usize + 16 }, 1024>();
    let (s_a, s_b, s_c, s_bar) = (s_base, s_base + TILE_BYTES, s_base + 2 * TILE_BYTES, s_base + 3 * TILE_BYTES);
    let tid = thread_idx_x();
    // SAFETY: thread 0 alone initializes the barrier and issues the copies, after which everyone waits
    // for phase 0, which completes when thread 0 has arrived and all three boxes (24 KiB) have landed.
    // Each box fits its 8 KiB at s_a/s_b/s_c, aligned to 1024. The wgmma operands are those tiles, untouched
    // after the wait; the accumulators are read only after wgmma_wait_group::<0>.
    unsafe {
        if tid == 0 {
            prefetch_tensormap(tmap_a);
            prefetch_tensormap(tmap_b);
            prefetch_tensormap(tmap_c);
            mbarrier_init(s_bar, 1);
            fence_mbarrier_init();
        }
        sync_threads();
        if tid == 0 {
            mbarrier_arrive_expect_tx(s_bar, 3 * TILE_BYTES);
            cp_async_bulk_tensor_2d_g2s(s_a, tmap_a, 0, 0, s_bar);
            cp_async_bulk_tensor_2d_g2s(s_b, tmap_b, 0, 0, s_bar);
            cp_async_bulk_tensor_2d_g2s(s_c, tmap_c, 0, 0, s_bar);
        }
        mbarrier_wait_parity(s_bar, 0);

        let desc = |d: Result<WgmmaDesc, layout::hopper::DescError>| match d {
            Ok(d) => d,
            Err(_) => core::arch::nvptx::trap(),
        };
        let d_a = desc(WgmmaDesc::k_major(s_a, T, 128, TmaSwizzle::B128));
        let d_b = desc(WgmmaDesc::k_major(s_b, T, 128, TmaSwizzle::B128));
        let d_c = desc(WgmmaDesc::mn_major_sw128(s_c, T));
        let (warp, lane) = (tid / 32, lane_id());
        // WgmmaAcc's place of d_i (i = 4j + h) for (warp, lane) is a sum: the warp's origin d(warp, 0, 0),
        // the lane's place of d_0 d(0, lane, 0), and thread 0's place of d_i, d(0, 0, 4j) + d(0, 0, h).
        // (Summed in the order this kernel's PTX has always had.)
        let d = WgmmaAcc::<64>::warp_lane_rc;
        let lane_row = d(0, lane, 0).0;
        for product in 0..2u32 {
            let mut r_acc = [0f32; 32];
            wgmma_fence_operand(&mut r_acc);
            wgmma_fence();
            for k in 0..T / 16 {
                // K step k: 16 f16 further along K — 32 bytes along a K-major row, 16 rows (2048 bytes)
                // down an MN-major tile.
                if product == 0 {
                    wgmma_m64n64k16_f32_f16::<0, 0>(&mut r_acc, d_a.advance(32 * k).0, d_b.advance(32 * k).0, k > 0);
                } else {
                    wgmma_m64n64k16_f32_f16::<0, 1>(&mut r_acc, d_a.advance(32 * k).0, d_c.advance(2048 * k).0, k > 0);
                }
            }
            wgmma_commit_group();
            wgmma_wait_group::<0>();
            wgmma_fence_operand(&mut r_acc);
            for j in 0..8u32 {
                for h in 0..4u32 {
                    let row = d(warp, 0, 0).0 + lane_row + d(0, 0, h).0;
                    let col = d(0, 0, 4 * j).1 + d(0, lane, 0).1 + d(0, 0, h).1;
                    *g_d.add((product * T * T + row * T + col) as usize) = r_acc[(4 * j + h) as usize];
                }
            }
        }
    }
}

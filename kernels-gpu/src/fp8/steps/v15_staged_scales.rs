#![cfg(lab_sm90)]
//! FP8 step f15: f9 with **each K block's scales delivered into its stage by the producer**.
//!
//! Diff from f9: f9's consumers fetch the next block's scales themselves — per thread and K block two
//! `LDG`s of `sa` (its two rows), two of `sb` (the tile's two B scale blocks) and their address
//! arithmetic, issued under the block's `QGMMA`s. f15 gives each stage a 1 KiB slot after A and B
//! (`layout::fp8::tiles::SCALE_SLOT_BYTES`): the producer loads the tile's 128 A scales of the block
//! with one more TMA box (`sa` seen as ⌈K/128⌉ rows of M f32: row `kb`'s 128 values from the tile's
//! first row, 512 bytes, announced with `mbarrier.expect_tx` before the stage's own `arrive.expect_tx`;
//! the map's row stride, 4M bytes, must be a multiple of 16, so f15 takes M % 4 == 0) and writes the
//! two B scales with `st.shared` before that arrival (whose release publishes them). A consumer reads
//! its four values with `ld.shared` right after the full barrier and multiplies them at the promotion,
//! as f9: no global loads are left in the consumers' K loop. (DeepGEMM stages its A scales by TMA the
//! same way.)
//!
//! Why: in f9's per-instruction stall samples (H100, session 13 call 4, 8192×8192×4096) the next
//! block's scale loads held ~20% of the consumer warps' samples, most as *dispatch* stalls on one
//! `LDG` (1404 of 1713), while the tensor pipe was 67% busy.
//!
//! Prediction: if those issue slots come back to the `QGMMA` issue and the promotion, 1.04–1.08× f9 at
//! every shape (the share of the stall samples, less what the `LDS`s cost); if the dispatch stall was a
//! symptom of the in-flight `QGMMA`s rather than of the loads, ~1.00×.
//!
//! Measured: README (session 17).
use crate::fp8::block_scaled::{ConsumeTile, Scales, block_scaled_staged, issue, promote_block, retire_all};
use crate::fp8::tile::{TileWalk, issue_stage};
use crate::hgemm::tma_warp_specialized::Ring;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    mbarrier::mbarrier_expect_tx,
    shared::{ld_shared_f32, ld_shared_v2_u32, st_shared_v2_u32},
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s},
};
use layout::fp8::tiles::{BM, F9_BN, SCALE_SLOT_B, block_stage_bytes, f9_mid_block_is_first};

/// [`super::v9_wide_192::fp8_gemm_v9`] with the scales staged: `tmap_sa` is a tensor map over `sa` as
/// `⌈K/128⌉` rows of `M` f32 (row stride `4M` bytes, so M % 4 == 0; box 1 row × 128, no swizzle, zero
/// fill), `F15_DYN_SMEM` bytes of dynamic shared memory.
///
/// # Safety
/// As `fp8_gemm_v9`, with that map over the same `sa` and that shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v15(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, tmap_sa: *const TensorMap,
                                              sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded (the skeleton's proof in `fp8::block_scaled`; this step's producer and K loop below).
    unsafe { block_scaled_staged::<Staged192, F9_BN, 1>(tmap_a, tmap_b, tmap_c, tmap_sa, sa, sb, m, n, k) }
}

/// f15's producer and K loop: f9's, with the scales in the stage.
struct Staged192;

/// One thread's scales of one K block as read from the stage's slot: its two rows' A scales and the
/// tile's two B scales.
#[derive(Clone, Copy, Default)]
struct SlotScales {
    a_lo: f32,
    a_hi: f32,
    b_first: f32,
    b_second: f32,
}

impl SlotScales {
    /// Reads them from the slot at `s_slot` for tile row `r` (and `r + 8`): the 8 rows of a warp's lane
    /// quads are 8 consecutive words (no bank conflict), the B pair one 8-byte broadcast.
    ///
    /// # Safety
    /// The stage's full barrier has completed for this use and the stage is not yet released; `r + 8 < 128`.
    #[inline(always)]
    unsafe fn read(s_slot: u32, r: u32) -> SlotScales {
        // SAFETY: inside the slot (r + 8 < 128 words, then the pair at SCALE_SLOT_B, 8-byte aligned),
        // written before the phase the caller waited for completed, rewritten only after the release.
        unsafe {
            let [b0, b1] = ld_shared_v2_u32(s_slot + SCALE_SLOT_B);
            SlotScales { a_lo: ld_shared_f32(s_slot + 4 * r), a_hi: ld_shared_f32(s_slot + 4 * (r + 8)), b_first: f32::from_bits(b0), b_second: f32::from_bits(b1) }
        }
    }
}

impl ConsumeTile for Staged192 {
    type Acc = [[f32; 32]; 3];
    const STAGED_SCALES: bool = true;

    #[inline(always)]
    unsafe fn consume<const CLUSTER: u32>(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32, sc: Scales) -> [[f32; 32]; 3] {
        let mut r_acc = [[0f32; 32]; 3];
        let mut r_blk = [[0f32; 32]; 3];
        let mid_first = f9_mid_block_is_first(sc.n0());
        let r = sc.tile_row();
        // SAFETY: forwarded to the caller; the slot is read after `issue`'s full-barrier wait and before
        // `retire_all` releases the stage; `r` is a fragment row of rows 0..64 of the warpgroup's half
        // (r % 16 < 8), so r + 8 < 128; `r_blk` is pinned around the fence and the wait.
        unsafe {
            for _ in 0..k_tiles {
                let cur = *it;
                let mut s = SlotScales::default();
                issue(ring, cur, mh, &mut r_blk, || s = SlotScales::read(ring.at(cur).0 + block_stage_bytes(F9_BN), r));
                retire_all::<_, CLUSTER>(ring, cur, &mut r_blk);
                *it += 1;
                let first = (s.a_lo * s.b_first, s.a_hi * s.b_first);
                let second = (s.a_lo * s.b_second, s.a_hi * s.b_second);
                let [acc0, acc1, acc2] = &mut r_acc;
                let [blk0, blk1, blk2] = &r_blk;
                promote_block(acc0, blk0, first);
                promote_block(acc1, blk1, if mid_first { first } else { second });
                promote_block(acc2, blk2, second);
            }
        }
        r_acc
    }

    /// Per stage: the block's two B scales loaded (before the empty-barrier wait, which hides their
    /// latency), the stage waited for, the pair stored in the slot, the A scales' 512 bytes expected and
    /// their box issued, then `tile::issue_stage` (its `arrive.expect_tx` is the phase's one arrival, a
    /// release that publishes the stored pair).
    #[inline(always)]
    unsafe fn produce<const BN: u32, const CLUSTER: u32>(ring: Ring, tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_sa: *const TensorMap,
                                                         sc: Scales, tiles_m: u32, tiles_n: u32, k_tiles: u32) {
        const { assert!(CLUSTER == 1 && BN == F9_BN, "f15 stages the scales of one CTA's 128x192 tiles") };
        let mut it = 0u32;
        for (tm, tn) in TileWalk::<1>::new(tiles_m, tiles_n) {
            let sc = sc.at_column(tn * BN);
            for kt in 0..k_tiles {
                let (s_stage, full, _, _) = ring.at(it);
                let s_slot = s_stage + block_stage_bytes(BN);
                // SAFETY: forwarded to the caller (kt < ⌈k/128⌉, tn · BN < n); the slot is written only
                // after the stage's previous use was released; the expectation precedes the box and the
                // arrival, so the phase cannot complete without the box; the box (row kt, columns
                // tm · 128 ..) is inside the map but for columns past M, which it zero-fills; its 512
                // bytes fit the 128-aligned slot.
                unsafe {
                    let (b_first, b_second) = sc.load_b_pair(kt);
                    ring.wait_empty(it);
                    st_shared_v2_u32(s_slot + SCALE_SLOT_B, [b_first.to_bits(), b_second.to_bits()]);
                    mbarrier_expect_tx(full, BM * 4);
                    cp_async_bulk_tensor_2d_g2s(s_slot, tmap_sa, (tm * BM) as i32, kt as i32, full);
                    issue_stage::<BN, 1>(s_stage, full, tmap_a, tmap_b, tm * BM, tn * BN, kt, 0);
                }
                it += 1;
            }
        }
    }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(fp8_gemm_v15, 384, 1);

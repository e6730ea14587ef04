//! The 128×256 wide tile of the Hopper steps h4–h6 (introduced by h4, whose file explains it): a stage
//! holds A (128×64) and four 64×64 B boxes under one `expect_tx`; each consumer warpgroup computes its
//! 64×256 with one `wgmma.m64n256k16` per K step (B's four boxes under one descriptor) and keeps one
//! `wgmma` group in flight (`wait_group 1`), releasing the previous stage while the current one's MMAs
//! run.
use super::elem::Elem16;
use super::tma::{A_BYTES, B_HALF_BYTES, BK, WIDE_STAGE_BYTES, a_desc, b_desc, store_block};
use super::tma_warp_specialized::Ring;
use layout::hopper::WgmmaDesc;
use crate::prim::{
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s, cp_async_bulk_tensor_2d_g2s_multicast},
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_wait_group},
};

/// The wide steps' `tma::issue_stage`: A (128×64) and four B boxes (64 K × 64 N each, N columns
/// `n0 .. n0 + 256`) of K tile `kt` into the stage at `s_stage`, announced on `bar` as one
/// [`WIDE_STAGE_BYTES`] transaction.
///
/// # Safety
/// As `tma::issue_stage`, with a stage of [`WIDE_STAGE_BYTES`].
#[inline(always)]
pub(super) unsafe fn issue_wide_stage(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m0: u32, n0: u32, kt: u32) {
    let k0 = (kt * BK) as i32;
    // SAFETY: forwarded to the caller.
    unsafe {
        crate::prim::mbarrier::mbarrier_arrive_expect_tx(bar, WIDE_STAGE_BYTES);
        cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, k0, m0 as i32, bar);
        for nb in 0..4 {
            cp_async_bulk_tensor_2d_g2s(s_stage + A_BYTES + nb * B_HALF_BYTES, tmap_b, (n0 + 64 * nb) as i32, k0, bar);
        }
    }
}

/// [`issue_wide_stage`] in a cluster of `CLUSTER` CTAs (1 or 2) on vertically adjacent tiles of the
/// same columns (h9): each CTA loads its own A box and B boxes `rank · 4/CLUSTER ..` only, **multicast**
/// into the stage of every CTA of the cluster (the peer loads the other boxes into this stage and
/// signals this `bar`, which expects the whole stage either way). `CLUSTER = 1` is `issue_wide_stage`.
///
/// ```text
/// stage of CTA r:  | A (own rows, 16 KiB) | B box 0 | B box 1 | B box 2 | B box 3 |
///                                           └ rank 0 loads ┘   └ rank 1 loads ┘   (each into both CTAs)
/// ```
///
/// # Safety
/// As [`issue_wide_stage`]; with `CLUSTER = 2` a cluster launch of 2 CTAs whose stage at `s_stage` is
/// free in both (the consumers of both released it) and whose barrier at `bar`'s offset expects the
/// stage in both; `rank` this CTA's rank.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn issue_wide_stage_cluster<const CLUSTER: u32>(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap,
                                                                   m0: u32, n0: u32, kt: u32, rank: u32) {
    const { assert!(CLUSTER == 1 || CLUSTER == 2, "the wide stage's four B boxes are shared by 1 or 2 CTAs") };
    // SAFETY: forwarded to the caller.
    unsafe {
        if CLUSTER == 1 {
            issue_wide_stage(s_stage, bar, tmap_a, tmap_b, m0, n0, kt);
        } else {
            let k0 = (kt * BK) as i32;
            crate::prim::mbarrier::mbarrier_arrive_expect_tx(bar, WIDE_STAGE_BYTES);
            cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, k0, m0 as i32, bar);
            for i in 0..4 / CLUSTER {
                let nb = rank * (4 / CLUSTER) + i;
                cp_async_bulk_tensor_2d_g2s_multicast(s_stage + A_BYTES + nb * B_HALF_BYTES, tmap_b, (n0 + 64 * nb) as i32, k0, bar,
                                                      ((1u32 << CLUSTER) - 1) as u16);
            }
        }
    }
}

/// One consumer warpgroup's MMAs on a wide stage (inputs of type `E`): rows `64·mh ..` of A times all 256 columns of B, as
/// 4 K steps of one `wgmma.m64n256k16` each (B's four boxes under one descriptor, LBO = one box), into
/// `r_acc` (`[nb]`: columns `64·nb ..`), committed as one group and **not waited for** (the caller
/// chooses `wait_group 0` or `1`).
///
/// # Safety
/// All 128 threads of the warpgroup; the stage's TMA phase has completed; nobody writes the stage or
/// reads `r_acc` until a `wgmma_wait_group` has retired this group (the caller pins `r_acc` after it).
#[inline(always)]
pub(super) unsafe fn mma_wide_stage<E: Elem16, A: WideAcc<E>>(r_acc: &mut A, s_stage: u32, mh: u32) {
    let d_a = a_desc(s_stage, mh);
    let d_b = b_desc(s_stage, 0); // LBO = B_HALF_BYTES: the next 64 columns are the next box
    r_acc.fence();
    // SAFETY: forwarded to the caller.
    unsafe {
        wgmma_fence();
        for ks in 0..BK / 16 {
            // K step ks: 32 bytes along A's K-major rows, 16 rows (2048 B) down every B box.
            r_acc.mma(d_a.advance(32 * ks).0, d_b.advance(2048 * ks).0);
        }
        wgmma_commit_group();
    }
}

/// A consumer warpgroup's accumulators for a wide tile, 64 rows × 64·B columns as `[[f32; 32]; B]`
/// (block `b`: columns `64·b ..`): B = 4 (h4–h10, `wgmma.m64n256k16`) or 3 (h11, `m64n192k16`).
pub(super) trait WideAcc<E: Elem16>: Sized {
    /// Fresh accumulators.
    fn zero() -> Self;
    /// `wgmma.fence`'s operand fence on every accumulator register.
    fn fence(&mut self);
    /// One K step of 16, accumulating: `self += A(d_a) · B(d_b)`, A K-major, B MN-major.
    ///
    /// # Safety
    /// As the `Elem16` wrapper it calls: all 128 threads of a warpgroup, descriptors of staged boxes.
    unsafe fn mma(&mut self, d_a: u64, d_b: u64);
}

/// [`WideAcc`] for `[[f32; 32]; $groups]` (64 × `32·$groups` accumulators a warpgroup), its K step the
/// `Elem16` wrapper `$mma`: the impls differ only in that wrapper.
macro_rules! wide_acc {
    ($groups:literal, $mma:ident) => {
        impl<E: Elem16> WideAcc<E> for [[f32; 32]; $groups] {
            #[inline(always)]
            fn zero() -> Self {
                [[0f32; 32]; $groups]
            }
            #[inline(always)]
            fn fence(&mut self) {
                for acc in self.iter_mut() {
                    wgmma_fence_operand(acc);
                }
            }
            #[inline(always)]
            unsafe fn mma(&mut self, d_a: u64, d_b: u64) {
                // SAFETY: forwarded to the caller.
                unsafe { E::$mma::<0, 1>(self, d_a, d_b, true) }
            }
        }
    };
}
wide_acc!(4, wgmma_256);
wide_acc!(3, wgmma_192);

/// h12's 320-wide accumulators: four 64-column blocks under one `wgmma.m64n256k16` (B's boxes 0–3) and
/// a fifth under one `m64n64k16` (box 4, four boxes further on). Two fields, not a `[[f32; 32]; 5]`: a
/// run-time split of one array put it in local memory (f27's `Wide320`, the same reason).
#[derive(Clone, Copy)]
pub(super) struct Wide320 {
    pub(super) head: [[f32; 32]; 4],
    pub(super) tail: [f32; 32],
}

impl<E: Elem16> WideAcc<E> for Wide320 {
    #[inline(always)]
    fn zero() -> Self {
        Wide320 { head: [[0f32; 32]; 4], tail: [0f32; 32] }
    }
    #[inline(always)]
    fn fence(&mut self) {
        for acc in self.head.iter_mut() {
            wgmma_fence_operand(acc);
        }
        wgmma_fence_operand(&mut self.tail);
    }
    #[inline(always)]
    unsafe fn mma(&mut self, d_a: u64, d_b: u64) {
        // SAFETY: forwarded to the caller (the stage holds five B boxes: the tail's is box 4).
        unsafe {
            E::wgmma_256::<0, 1>(&mut self.head, d_a, d_b, true);
            E::wgmma_64::<0, 1>(&mut self.tail, d_a, WgmmaDesc(d_b).advance(4 * B_HALF_BYTES).0, true);
        }
    }
}

/// One consumer warpgroup's K loop over a tile of the persistent wide steps: accumulates rows `64·mh ..`
/// × 256 (h11: 192) columns into a fresh `r_acc` and returns it final (after `wait_group 0`), having released every
/// stage use it consumed — stage `it − 1` after stage `it`'s group was committed and `wait_group 1`
/// retired the older one, and the tile's last stage after `wait_group 0`. Advances `it` by `k_tiles`.
/// With `CLUSTER = 2` (h9) each release arrives on the stage's empty barrier in both CTAs
/// ([`Ring::release_cluster`]): either producer refills the stage in both.
///
/// # Safety
/// All 128 threads of a consumer warpgroup; the ring initialized by [`Ring::init`]; the producer walks
/// the same tiles and K tiles, issuing each stage use once (as h4's loop or
/// `tma_persistent::produce_persistent` does); `CLUSTER` as [`Ring::release_cluster`] requires (1
/// wherever the ring is the CTA's own, as in h4–h8).
#[inline(always)]
pub(super) unsafe fn consume_wide_tile<E: Elem16, A: WideAcc<E>, const CLUSTER: u32>(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32) -> A {
    let mut r_acc = A::zero(); // [nb]: columns 64·nb .. of the tile
    // SAFETY: forwarded to the caller; the accumulators are pinned after every wait.
    unsafe {
        for kt in 0..k_tiles {
            ring.wait_full(*it);
            mma_wide_stage::<E, A>(&mut r_acc, ring.at(*it).0, mh);
            wgmma_wait_group::<1>();
            r_acc.fence();
            if kt > 0 {
                ring.release_cluster::<CLUSTER>(*it - 1);
            }
            *it += 1;
        }
        wgmma_wait_group::<0>();
        r_acc.fence();
        if k_tiles > 0 {
            ring.release_cluster::<CLUSTER>(*it - 1);
        }
    }
    r_acc
}

/// Writes one consumer's 64×256 result (the four accumulator blocks of [`consume_wide_tile`]) to C at
/// `(row0, n0)` with `tma::store_block`.
///
/// # Safety
/// As `tma::store_block`.
#[inline(always)]
pub(super) unsafe fn store_wide(r_acc: &[[f32; 32]; 4], g_c: *mut u16, m: u32, n: u32, row0: u32, n0: u32, warp: u32) {
    let [acc0, acc1, acc2, acc3] = r_acc;
    // SAFETY: forwarded to the caller. Constant indices keep the accumulators in registers.
    unsafe {
        store_block(acc0, g_c, m, n, row0, n0, warp);
        store_block(acc1, g_c, m, n, row0, n0 + 64, warp);
        store_block(acc2, g_c, m, n, row0, n0 + 128, warp);
        store_block(acc3, g_c, m, n, row0, n0 + 192, warp);
    }
}

//! The transposed product of the Hopper decode steps (introduced by d3, whose file explains it):
//! `Cᵀ = Bᵀ · Aᵀ` with the weights as `wgmma`'s MN-major A and the activations as its K-major B. The
//! stage loads (one or two weight boxes beside the activation box, multicast in a cluster), the
//! descriptors at shared address 0, d3's K loop (one `wgmma` group in flight), the transposed
//! epilogue's places and 16-bit pair stores (d3's split tiles) or a warp's staged 16-byte rows
//! (`store_staged`: the whole-K tiles), and d3's persistent split-K body ([`decode`]; with the
//! stage loads plugged in, [`decode_with`]). The body runs d3, d6, d7, d8 (`decode`) and d10, d11
//! (`decode_with`); its pieces serve d4, d5 (`decode_whole_k`), d13, d14 (`decode_one_consumer`) and d16.
use super::elem::Elem16;
use super::split_k::{Units, last_split, reset_counter, sum_splits};
use super::tma_store::{stage_c_box_trans, store_tile};
use super::tma_warp_specialized::{Ring, warp_specialized};
use crate::util::unroll::{unroll2, unroll8};
use crate::prim::{
    cluster::cluster_ctarank,
    sync::sync_named,
    thread::{block_idx_x, grid_dim_x, lane_id},
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s, cp_async_bulk_tensor_2d_g2s_multicast, cp_async_bulk_wait_group0},
    wgmma::{FlatWgmma, wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_fence_operand8, wgmma_wait_group},
};
use layout::fragment::WgmmaAcc;
use layout::hopper::WgmmaDesc;
use layout::hopper::tma_hgemm::{B_BOX_BYTES, BK, D13_A_BYTES, D19_A_BYTES, D3_COLS as COLS, decode_a_box_row0, decode_a_box_rows, D3_ROWS as ROWS, D3_STAGE_BYTES as STAGE_BYTES, D3_STAGES as STAGES,
                                D7_STAGES, D7_STAGING_BYTES, d7_weight_box_col};

/// Bytes of the activation box at the start of a stage.
pub(super) const A_BYTES: u32 = ROWS * BK * 2;
/// The weights' descriptor (MN-major, one 64-column box, 64 K rows) and the activations' (K-major,
/// 128-byte rows) at shared address 0; moved to a stage by plain adds (no run-time check in the loop).
pub(super) const W_DESC_0: WgmmaDesc = match WgmmaDesc::mn_major_sw128(0, BK) {
    Ok(d) => d,
    Err(_) => panic!("weights descriptor"),
};
pub(super) const X_DESC_0: WgmmaDesc = WgmmaDesc::K_MAJOR_SW128;

/// A transposed tile's accumulators as the K loops fill them ([`consume`]; d4's alternate stages,
/// `decode_whole_k::consume`): d3–d11's 64 activation rows (`[f32; 32]`, `wgmma.m64n64k16`), d13's 16
/// (`[f32; 8]`, `m64n16k16`), d19's 128 (`[[f32; 32]; 2]`, `m64n128k16`) or d21's `2·NH` (`RowsAcc<NH>`), with the bytes of the
/// activation box at the start of each stage (the weight boxes follow it).
pub(super) trait SwappedAcc<E: Elem16>: Sized {
    /// Bytes of a stage's activation box (`rows · BK · 2`).
    const A_BYTES: u32;
    /// Fresh accumulators.
    fn zero() -> Self;
    /// `wgmma.fence`'s operand fence on every accumulator register.
    fn fence(&mut self);
    /// One `k16` step: `self (+)= W(d_w)ᵀ · X(d_x)ᵀ`, the weights MN-major (`TA = 1`).
    ///
    /// # Safety
    /// As the `Elem16` wrapper it calls: all 128 threads of a warpgroup, descriptors of staged boxes.
    unsafe fn mma(&mut self, d_w: u64, d_x: u64, scale_d: bool);
}

impl<E: Elem16> SwappedAcc<E> for [f32; 32] {
    const A_BYTES: u32 = A_BYTES;
    #[inline(always)]
    fn zero() -> Self {
        [0.0f32; 32]
    }
    #[inline(always)]
    fn fence(&mut self) {
        wgmma_fence_operand(self);
    }
    #[inline(always)]
    unsafe fn mma(&mut self, d_w: u64, d_x: u64, scale_d: bool) {
        // SAFETY: forwarded to the caller.
        unsafe { E::wgmma_64::<1, 0>(self, d_w, d_x, scale_d) }
    }
}

impl<E: Elem16> SwappedAcc<E> for [f32; 8] {
    const A_BYTES: u32 = D13_A_BYTES;
    #[inline(always)]
    fn zero() -> Self {
        [0.0f32; 8]
    }
    #[inline(always)]
    fn fence(&mut self) {
        wgmma_fence_operand8(self);
    }
    #[inline(always)]
    unsafe fn mma(&mut self, d_w: u64, d_x: u64, scale_d: bool) {
        // SAFETY: forwarded to the caller.
        unsafe { E::wgmma_16::<1, 0>(self, d_w, d_x, scale_d) }
    }
}

impl<E: Elem16> SwappedAcc<E> for [[f32; 32]; 2] {
    const A_BYTES: u32 = D19_A_BYTES;
    #[inline(always)]
    fn zero() -> Self {
        [[0.0f32; 32]; 2]
    }
    #[inline(always)]
    fn fence(&mut self) {
        let [lo, hi] = self;
        wgmma_fence_operand(lo);
        wgmma_fence_operand(hi);
    }
    #[inline(always)]
    unsafe fn mma(&mut self, d_w: u64, d_x: u64, scale_d: bool) {
        // SAFETY: forwarded to the caller.
        unsafe { E::wgmma_128::<1, 0>(self, d_w, d_x, scale_d as u32) }
    }
}

/// d21's accumulator: `wgmma.m64nNk16` on one flat array of `NH` registers, N = 2·NH activation rows
/// (the heights `FlatWgmma` has; a stage's activation box is N rows of 128 B).
pub(super) struct RowsAcc<const NH: usize>(pub(super) [f32; NH]);

impl<const NH: usize> AsRef<[f32]> for RowsAcc<NH> {
    #[inline(always)]
    fn as_ref(&self) -> &[f32] {
        &self.0
    }
}

impl<E: Elem16, const NH: usize> SwappedAcc<E> for RowsAcc<NH>
where
    [f32; NH]: FlatWgmma,
{
    const A_BYTES: u32 = layout::hopper::tma_hgemm::d21_a_bytes(2 * NH as u32);
    #[inline(always)]
    fn zero() -> Self {
        RowsAcc([0.0f32; NH])
    }
    #[inline(always)]
    fn fence(&mut self) {
        self.0.fence_operand();
    }
    #[inline(always)]
    unsafe fn mma(&mut self, d_w: u64, d_x: u64, scale_d: bool) {
        // SAFETY: forwarded to the caller.
        unsafe { E::wgmma_flat::<1, 0, _>(&mut self.0, d_w, d_x, scale_d) }
    }
}

/// The activation box of the tile whose rows start at `m0` (`layout::hopper::tma_hgemm::decode_a_box_*`:
/// never past M) and `BOXES` weight boxes (columns `n0 ..`, 64 each) of K tile `kt` into the stage at
/// `s_stage`, announced on `bar` as one transaction of their bytes. d3 loads two weight boxes, d4 and
/// d5 one.
///
/// # Safety
/// As `tma::issue_stage`, with a stage of at least `A_BYTES + BOXES · B_BOX_BYTES`; A's tensor map
/// encoded with `decode_a_box_rows(m)` rows.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn issue_stage<const BOXES: u32>(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m: u32, m0: u32, n0: u32,
                                                   kt: u32) {
    let k0 = (kt * BK) as i32;
    // SAFETY: forwarded to the caller.
    unsafe {
        crate::prim::mbarrier::mbarrier_arrive_expect_tx(bar, decode_a_box_rows(m) * BK * 2 + BOXES * B_BOX_BYTES);
        cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, k0, decode_a_box_row0(m, m0) as i32, bar);
        for nb in 0..BOXES {
            cp_async_bulk_tensor_2d_g2s(s_stage + A_BYTES + nb * B_BOX_BYTES, tmap_b, (n0 + 64 * nb) as i32, k0, bar);
        }
    }
}

/// d3's stage loads in a cluster of `CLUSTER` CTAs (1 or 2) whose tiles share their columns: as
/// [`issue_stage`]`::<2>` for `CLUSTER = 1`; for 2, this CTA loads its own activation box and weight box
/// `rank` only, multicast into both CTAs' stage (the peer loads the other box into this stage and
/// signals this `bar`). Either way `bar` expects the whole stage's bytes. With `CLAMP_N` (d7, d8) a
/// weight box that would reach past N starts at N − 64 instead
/// (`layout::hopper::tma_hgemm::d7_weight_box_col`).
///
/// # Safety
/// As [`issue_stage`]; with `CLUSTER = 2` a cluster launch of 2 CTAs whose stage at `s_stage` is free and
/// whose `bar` expects the stage in both (the consumers of both released it).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn issue_stage_cluster<const CLUSTER: u32, const CLAMP_N: bool>(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap,
                                                                                  m: u32, n: u32, m0: u32, n0: u32, kt: u32, rank: u32) {
    const { assert!(CLUSTER == 1 || CLUSTER == 2, "d3's two weight boxes are shared by at most 2 CTAs") };
    // SAFETY: forwarded to the caller.
    unsafe {
        if CLUSTER == 1 && !CLAMP_N {
            issue_stage::<2>(s_stage, bar, tmap_a, tmap_b, m, m0, n0, kt);
        } else {
            let k0 = (kt * BK) as i32;
            crate::prim::mbarrier::mbarrier_arrive_expect_tx(bar, decode_a_box_rows(m) * BK * 2 + 2 * B_BOX_BYTES);
            cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, k0, decode_a_box_row0(m, m0) as i32, bar);
            for nb in 0..2 {
                let col = if CLAMP_N { d7_weight_box_col(n, n0 + 64 * nb) } else { n0 + 64 * nb };
                if CLUSTER == 1 {
                    cp_async_bulk_tensor_2d_g2s(s_stage + A_BYTES + nb * B_BOX_BYTES, tmap_b, col as i32, k0, bar);
                } else if nb == rank {
                    cp_async_bulk_tensor_2d_g2s_multicast(s_stage + A_BYTES + nb * B_BOX_BYTES, tmap_b, col as i32, k0, bar, 0b11);
                }
            }
        }
    }
}

/// How the producer of d3's body fills a stage: by TMA from one thread ([`TmaLoads`]: d3, d6, d7, d8)
/// or by `cp.async` from the producer warpgroup (d10's `CpAsyncLoads`). The producer loop is the
/// body's: it walks the units and K tiles, waits for each stage to be empty, and hands it here.
pub(super) trait StageLoads: Copy {
    /// Producer threads (the first of warpgroup 0) that run the loop: the full barriers' arrival count.
    const THREADS: u32;
    /// In a cluster: end with the producer's tail ([`Ring::drain`]) instead of a last cluster barrier
    /// that every thread waits in (d11).
    const PRODUCER_TAIL: bool = false;
    /// Fills the stage of running index `it` (empty: the loop waited) with K tile `kt` of the unit
    /// whose tile starts at row `m0`, column `n0`, and announces it now or later.
    ///
    /// # Safety
    /// Called by every producer thread for every stage in running order; the stage is free.
    #[allow(clippy::too_many_arguments)]
    unsafe fn stage(self, ring: Ring, it: u32, m: u32, n: u32, k: u32, m0: u32, n0: u32, kt: u32, rank: u32);
    /// After the last stage (`end` stages issued): announces whatever [`StageLoads::stage`] left pending.
    ///
    /// # Safety
    /// Once per producer thread, after its last `stage`.
    unsafe fn finish(self, ring: Ring, end: u32);
}

/// d3's loads: one thread issues the activation box and two weight boxes by TMA
/// ([`issue_stage_cluster`]), announced by their transaction bytes.
#[derive(Clone, Copy)]
pub(super) struct TmaLoads<const CLUSTER: u32, const CLAMP_N: bool> {
    /// The activations' tensor map.
    pub tmap_a: *const TensorMap,
    /// The weights' tensor map.
    pub tmap_b: *const TensorMap,
}

impl<const CLUSTER: u32, const CLAMP_N: bool> StageLoads for TmaLoads<CLUSTER, CLAMP_N> {
    const THREADS: u32 = 1;
    #[inline(always)]
    unsafe fn stage(self, ring: Ring, it: u32, m: u32, n: u32, _k: u32, m0: u32, n0: u32, kt: u32, rank: u32) {
        let (s_stage, full, _, _) = ring.at(it);
        // SAFETY: forwarded to the caller (the stage is free, the maps are the kernel's).
        unsafe { issue_stage_cluster::<CLUSTER, CLAMP_N>(s_stage, full, self.tmap_a, self.tmap_b, m, n, m0, n0, kt, rank) }
    }
    #[inline(always)]
    unsafe fn finish(self, _ring: Ring, _end: u32) {}
}

/// One consumer warpgroup's K loop over a unit: `r_acc` (fresh) += weight box `mh`ᵀ · activationsᵀ over
/// `kts` stages from running index `*it`, with one `wgmma` group in flight (h4's loop): stage `it − 1`
/// is released after stage `it`'s group is committed and `wait_group 1` retired the older one, the
/// unit's last stage after `wait_group 0`.
///
/// # Safety
/// All 128 threads of consumer warpgroup `mh`; the producer issues the same stages; `CLUSTER` as the
/// ring's empty barriers count (each warp arrives on the stage's empty barrier of every CTA of the
/// cluster, [`Ring::release_cluster`]).
#[inline(always)]
pub(super) unsafe fn consume<E: Elem16, A: SwappedAcc<E>, const CLUSTER: u32>(ring: Ring, it: &mut u32, kts: u32, mh: u32) -> A {
    let mut r_acc = A::zero();
    let mut i = 0;
    // SAFETY: forwarded to the caller; a stage is read only after its phase completed and released
    // only after the `wait_group` that retired the group reading it; the accumulators are pinned
    // after every wait.
    unsafe {
        while i < kts {
            let (s_stage, _, _, _) = ring.at(*it);
            let d_w = W_DESC_0.advance(s_stage + A::A_BYTES + mh * B_BOX_BYTES);
            let d_x = X_DESC_0.advance(s_stage);
            ring.wait_full(*it);
            r_acc.fence();
            wgmma_fence();
            for ks in 0..BK / 16 {
                // K step ks: 16 rows (2048 B) down the weight box, 32 bytes along the activation rows.
                r_acc.mma(d_w.advance(2048 * ks).0, d_x.advance(32 * ks).0, i > 0 || ks > 0);
            }
            wgmma_commit_group();
            wgmma_wait_group::<1>();
            r_acc.fence();
            if i > 0 {
                ring.release_cluster::<CLUSTER>(*it - 1);
            }
            *it += 1;
            i += 1;
        }
        wgmma_wait_group::<0>();
        r_acc.fence();
        if kts > 0 {
            ring.release_cluster::<CLUSTER>(*it - 1);
        }
    }
    r_acc
}

/// Where accumulator pair `p` (elements `2p`, `2p + 1`) of this thread lies in the transposed tile:
/// `(col, row)` of C relative to the warpgroup's 64 columns and the tile's rows; the pair is rows
/// `row`, `row + 1` of column `col`.
#[inline(always)]
pub(super) fn place(warp: u32, lane: u32, p: u32) -> (u32, u32) {
    WgmmaAcc::<64>::warp_lane_rc(warp, lane, 2 * p)
}

/// Rows `row`, `row + 1` of column `col` of C, each stored if it lies in `row_lo .. m` (the tile's own
/// rows: a shifted activation box also covers the previous tile's) and `col < n`.
///
/// # Safety
/// `g_c` has `m·n` writable 16-bit elements.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn store_pair<E: Elem16>(g_c: *mut u16, m: u32, n: u32, row_lo: u32, row: u32, col: u32, x: f32, y: f32) {
    if col < n {
        let v = E::pack(x, y);
        // SAFETY: row < m (resp. row + 1 < m) and col < n: inside C.
        unsafe {
            if row >= row_lo && row < m {
                *g_c.add(row as usize * n as usize + col as usize) = v as u16;
            }
            if row + 1 >= row_lo && row + 1 < m {
                *g_c.add((row + 1) as usize * n as usize + col as usize) = (v >> 16) as u16;
            }
        }
    }
}

/// Stores a run of 4 consecutive columns `col .. col + 4` of C's row `row` (f32 rounded to `E` in pairs,
/// as [`store_pair`] rounds them): one 8-byte store where the run lies inside C and `aligned` (C's base
/// 8-byte aligned: with `n` and `col` multiples of 4 so is the run), else element by element up to
/// column `n`; nothing where `row` is outside `row_lo .. m` (the rows of an activation box moved up
/// that belong to the previous tile, or past M).
///
/// # Safety
/// `g_c` is C, `m × n` of `E` in row-major order; `aligned` only where `g_c` is 8-byte aligned.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn store_run<E: Elem16>(g_c: *mut u16, m: u32, n: u32, row_lo: u32, row: u32, col: u32, v: [f32; 4], aligned: bool) {
    if row < row_lo || row >= m || col >= n {
        return;
    }
    let (lo, hi) = (E::pack(v[0], v[1]), E::pack(v[2], v[3]));
    let at = row as usize * n as usize + col as usize;
    // SAFETY: row < m and col < n (each element below checked against n): inside C; the vector store
    // only where all four lie in the row and the address is 8-byte aligned (`aligned`, n % 4 == 0 and
    // col % 4 == 0 make `at` a multiple of 4 elements).
    unsafe {
        if aligned && col + 4 <= n && n.is_multiple_of(4) && col.is_multiple_of(4) {
            crate::prim::global::st_global_v2_u32(g_c.add(at) as *mut u32, [lo, hi]);
        } else {
            let e = [lo as u16, (lo >> 16) as u16, hi as u16, (hi >> 16) as u16];
            for (i, &x) in e.iter().enumerate() {
                if col + (i as u32) < n {
                    *g_c.add(at + i) = x;
                }
            }
        }
    }
}

/// Stores 8 consecutive columns `col .. col + 8` of C's row `row` given as 4 packed pairs of `E` (a row of a
/// warp's C staging): one 16-byte store where the run lies inside C and `aligned` (C's base 16-byte aligned:
/// with `n` and `col` multiples of 8 so is the run), else element by element up to column `n`; nothing where
/// `row` is outside `row_lo .. m` (as [`store_run`]).
///
/// # Safety
/// `g_c` is C, `m × n` of `E` in row-major order; `aligned` only where `g_c` is 16-byte aligned.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn store_run8(g_c: *mut u16, m: u32, n: u32, row_lo: u32, row: u32, col: u32, v: [u32; 4], aligned: bool) {
    if row < row_lo || row >= m || col >= n {
        return;
    }
    let at = row as usize * n as usize + col as usize;
    // SAFETY: row < m and col < n (each element below checked against n): inside C; the vector store only
    // where all eight lie in the row and the address is 16-byte aligned (`aligned`, n % 8 == 0 and
    // col % 8 == 0 make `at` a multiple of 8 elements).
    unsafe {
        if aligned && col + 8 <= n && n.is_multiple_of(8) && col.is_multiple_of(8) {
            crate::prim::global::st_global_v4_u32(g_c.add(at) as *mut u32, v);
        } else {
            unroll8!(i => {
                if col + i < n {
                    *g_c.add(at + i as usize) = (v[(i / 2) as usize] >> (16 * (i % 2))) as u16;
                }
            });
        }
    }
}

/// Stores a warpgroup's transposed tile of `R` activation rows × 64 weight columns (its `wgmma.m64nRk16`
/// accumulators `acc`, `R / 2` f32 a thread) to C through each warp's own staging (session 98). Warp `w`
/// holds weight columns `16·w .. 16·w + 16` of every row: it rounds them to `E` and writes them with
/// `R / 16` `stmatrix.x4.trans` (lane addresses `d7_stmatrix_row`) into its `32·R` bytes at
/// `s_wg + w · decode_warp_staging_bytes(R)` (`decode_staging_at`: conflict-free), then reads them back two
/// lanes a row (`decode_staging_read`) and stores each half row of C as 16 bytes ([`store_run8`]): `R / 16`
/// 16-byte stores a thread, whole 32-byte sectors, where [`store_pair`] took `R / 2` 2-byte stores.
/// Staging row `r` is C row `a_row0 + r`, stored where it lies in `row_lo .. m`; columns from `col0`.
/// No block barrier: a warp meets only itself (`bar.warp.sync` before the staging is written, so the
/// previous tile's reads are done, and before it is read).
///
/// # Safety
/// All 32 lanes of each warp of the warpgroup, `warp` (0..4) and `lane` the thread's; `s_wg` 16-byte
/// aligned with `decode_staging_bytes(R)` bytes that no one else touches until every warp's call returns;
/// `g_c` is C, `m × n` of `E`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn store_staged<E: Elem16, const R: u32>(acc: &[f32], s_wg: u32, g_c: *mut u16, m: u32, n: u32, row_lo: u32, a_row0: u32, col0: u32,
                                                            warp: u32, lane: u32) {
    use layout::hopper::tma_hgemm::{d7_stmatrix_row, decode_staging_at, decode_staging_read, decode_warp_staging_bytes};
    const { assert!(R % 16 == 0 && R <= 128, "whole stmatrix.x4 calls: 16 rows each, at most 8") };
    let s_warp = s_wg + warp * decode_warp_staging_bytes(R);
    let aligned = (g_c as usize).is_multiple_of(16);
    // SAFETY: every address is inside the warp's `32·R` bytes (`decode_staging_at(r, h) + 16 ≤ 32·R` for
    // r < R, h < 2; the layout tests), 16-byte aligned; all lanes take part (caller); C addresses are
    // checked by `store_run8`.
    unsafe {
        crate::prim::sync::sync_warp();
        unroll8!(jp => {
            if jp < R / 16 {
                let (r, c) = d7_stmatrix_row(warp, lane, jp);
                let e = 8 * jp as usize;
                let v = [E::pack(acc[e], acc[e + 1]), E::pack(acc[e + 2], acc[e + 3]), E::pack(acc[e + 4], acc[e + 5]), E::pack(acc[e + 6], acc[e + 7])];
                crate::prim::stmatrix::stmatrix_x4_trans(s_warp + decode_staging_at(r, (c / 8) % 2), v);
            }
        });
        crate::prim::sync::sync_warp();
        unroll8!(i => {
            if i < R / 16 {
                let (r, h) = decode_staging_read(i, lane);
                let v = crate::prim::shared::ld_shared_v4_u32(s_warp + decode_staging_at(r, h));
                store_run8(g_c, m, n, row_lo, a_row0 + r, col0 + 16 * warp + 8 * h, v, aligned);
            }
        });
    }
}

/// A whole-K tile of the transposed product `Cᵀ = Bᵀ·Aᵀ` — 64 weight columns × `ROWS` activation rows
/// (d4's 64: `decode_whole_k::Rows64`; d13's 16: `decode_one_consumer::Rows16`): its stage, how a
/// stage is filled and how C is stored from a warpgroup's accumulators. The CTAs that run such tiles
/// add their own parts: two consumers exchanging sums (`decode_whole_k::WholeKTile`: d4, d9, d12, d13)
/// or one consumer with its K loop (`decode_one_consumer::OneConsumerTile`: d14–d17).
pub(super) trait SwappedTile<E: Elem16> {
    /// Activation rows of a tile (the rows of `Cᵀ`'s tile are 64 weight columns).
    const ROWS: u32;
    /// Bytes of one stage.
    const STAGE_BYTES: u32;
    /// A consumer warpgroup's accumulators.
    type Acc;
    /// Loads K tile `kt` of the tile at rows `m0 ..`, columns `n0 ..` into the stage at `s_stage`,
    /// announced on its full barrier `bar`.
    ///
    /// # Safety
    /// One thread; the stage is free; the maps as the kernel's contract says.
    #[allow(clippy::too_many_arguments)]
    unsafe fn issue(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m: u32, m0: u32, n0: u32, kt: u32);
    /// Stores the tile at rows `row0 ..`, columns `col0 ..` of C from the warpgroup's accumulators through
    /// its C staging at `s_wg` ([`store_staged`]).
    ///
    /// # Safety
    /// All 128 threads of the warpgroup, which holds the whole tile's sums; `warp` (0..4) and `lane` the
    /// thread's in it; `s_wg` as [`store_staged`] says (`decode_staging_bytes(ROWS)` bytes); `g_c` has
    /// `m·n` writable 16-bit elements.
    #[allow(clippy::too_many_arguments)]
    unsafe fn store(r_acc: &Self::Acc, s_wg: u32, g_c: *mut u16, m: u32, n: u32, row0: u32, col0: u32, warp: u32, lane: u32);
}

/// The body of d3 for inputs and output of type `E`, and of d6 (`CLUSTER = 2`): the CTAs of a cluster
/// walk the same units of *cluster tiles* (`CLUSTER` vertically adjacent tiles, the same columns and K
/// range), CTA `rank` taking tile row `CLUSTER · tm2 + rank`; a CTA whose tile row lies past M
/// (`⌈M/64⌉` odd) still loads and multicasts its share of the weights and stores nothing.
///
/// With `TMA_C` (d7) the ring has `D7_STAGES` stages and two 8 KiB staging boxes after it, and a tile
/// that needs no split of K is written through them: `stmatrix.trans` into the box
/// (`tma_store::stage_c_box_trans`; a shifted activation box's rows rotated so that the previous
/// tile's rows fall past M, `layout::hopper::tma_hgemm::d7_staging_row`), then one TMA store per
/// consumer warpgroup at the tile's first row (`tma_store::store_tile`; the TMA clips rows ≥ M and
/// columns ≥ N). Split-K tiles store as d3 does.
///
/// # Safety
/// As [`hgemm_decode_v3`](super::decode_v3_tma_swapped::hgemm_decode_v3); with `CLUSTER = 2` (d6) a cluster launch of 2 CTAs along x; with `TMA_C`,
/// `tmap_c` describes C (M×N of the element type, box 64 × 64, `SWIZZLE_128B`) and the launch provides
/// `D7_DYN_SMEM` bytes (`tmap_c` is not read otherwise).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn decode<E: Elem16, const CLUSTER: u32, const TMA_C: bool>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                                                              g_c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32,
                                                                              splits: u32) {
    let loads = TmaLoads::<CLUSTER, TMA_C> { tmap_a, tmap_b };
    // SAFETY: forwarded; the TMA loads are d3's.
    unsafe { decode_with::<E, CLUSTER, TMA_C, _>(loads, tmap_a, tmap_b, tmap_c, g_c, ws, count, m, n, k, splits) }
}

/// [`decode`] with the stages filled by `loads` (d10: `cp.async`); `tmap_a`, `tmap_b` are still
/// prefetched by the ring's initialization.
///
/// # Safety
/// As [`decode`]; `loads` reads A and B as the tensor maps describe them.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn decode_with<E: Elem16, const CLUSTER: u32, const TMA_C: bool, L: StageLoads>(loads: L, tmap_a: *const TensorMap, tmap_b: *const TensorMap,
                                                                                                  tmap_c: *const TensorMap, g_c: *mut u16, ws: *mut f32,
                                                                                                  count: *mut u32, m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: the main loop as h7 (both roles walk the same units and K tiles, so their ring indices
    // agree; every stage use is released once per consumer warp). Epilogue: every C address is checked
    // (row < m, col < n); every workspace address is inside the padded workspace (col < 128·tiles_n,
    // row < 64·tiles_m, split < splits); the last-CTA protocol is h7's (fence, named barrier 3 over
    // the 256 consumer threads, acq_rel ticket, flag read after a second barrier, L2 loads).
    // Cluster (d6): both CTAs walk the same units (`u0`, `u_step` from the cluster's index) and K tiles,
    // so their rings agree stage for stage: each stage is filled by both producers (one weight box each,
    // multicast, plus each CTA's own activation box) and released by all 16 consumer warps of the pair
    // (empty barriers initialized for 16 by the skeleton's `cluster:` arm) before either refills it; the
    // skeleton's cluster barriers publish the barrier initialization before any remote access and keep
    // both CTAs alive until no peer can arrive or multicast. A tile row past M stores nothing and takes
    // no counter (its index would lie outside `count`).
    unsafe {
        warp_specialized! {
            cluster: CLUSTER, producer_threads: L::THREADS, final_sync: !(L::PRODUCER_TAIL && CLUSTER > 1);
            ring: let (ring, s_extra) = (if TMA_C { D7_STAGES } else { STAGES }, STAGE_BYTES, if TMA_C { D7_STAGING_BYTES + 16 } else { 16 });
            thread: tid, warpgroup: wg;
            setup: {
                // d7: the two staging boxes (1024-aligned: the ring's stages are), then the flag.
                let s_flag = if TMA_C { s_extra + D7_STAGING_BYTES } else { s_extra };
                let (tiles_m, tiles_n) = (m.div_ceil(ROWS), n.div_ceil(COLS));
                // Cluster tiles: CLUSTER tile rows each (d3: the tiles themselves).
                let g = Units::new(tiles_m.div_ceil(CLUSTER), tiles_n, k, BK, splits);
                let (splits, units) = (g.splits, g.units);
                let rank = if CLUSTER > 1 { cluster_ctarank() } else { 0 };
                let (u0, u_step) = (block_idx_x() / CLUSTER, grid_dim_x() / CLUSTER);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                let mut it = 0u32;
                let mut u = u0;
                while u < units {
                    let (tm2, tn, _, kt0, kt1) = g.unit(u);
                    let tm = CLUSTER * tm2 + rank;
                    let mut kt = kt0;
                    while kt < kt1 {
                        ring.wait_empty(it);
                        loads.stage(ring, it, m, n, k, tm * ROWS, tn * COLS, kt, rank);
                        it += 1;
                        kt += 1;
                    }
                    u += u_step;
                }
                loads.finish(ring, it);
                if L::PRODUCER_TAIL && CLUSTER > 1 {
                    ring.drain(it);
                }
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let m_pad = (tiles_m * ROWS) as usize;
                let col_stride = m_pad; // workspace: [split][col][row], rows adjacent
                let slice_len = (tiles_n * COLS) as usize * m_pad;
                let mut it = 0u32;
                let mut u = u0;
                while u < units {
                    let (tm2, tn, split, kt0, kt1) = g.unit(u);
                    let tm = CLUSTER * tm2 + rank;
                    // Accumulator column r is row a_row0 + r of C; the tile's own rows start at row0.
                    // Accumulator row c is column colb + c; the warpgroup's own columns start at col0
                    // (d7, d8: a weight box moved left to end at N overlaps the columns before col0).
                    let (row0, a_row0, col0) = (tm * ROWS, decode_a_box_row0(m, tm * ROWS), tn * COLS + 64 * mh);
                    let colb = if TMA_C { d7_weight_box_col(n, col0) } else { col0 };
                    let r_acc: [f32; 32] = consume::<E, _, CLUSTER>(ring, &mut it, kt1 - kt0, mh);
                    // Each of the 16 pairs with a constant index (unrolled), so r_acc stays in registers.
                    if CLUSTER > 1 && tm >= tiles_m {
                        // A tile row past M (the cluster's second CTA, ⌈M/64⌉ odd): nothing to store,
                        // and no counter of its own (the whole consumer warpgroup pair skips together).
                    } else if TMA_C && splits == 1 {
                        // Rows and columns rotated by the boxes' shifts so the store at (col0, row0)
                        // writes only this tile's own elements (`d7_staging_row`).
                        let s_c = s_extra + mh * (D7_STAGING_BYTES / 2);
                        store_tile::<1>(tmap_c, s_c, row0, col0, mh, tid % 128 == 0, || {
                            stage_c_box_trans::<E>(&r_acc, s_c, warp, lane, row0 - a_row0, (col0 - colb) & 63)
                        });
                    } else if splits == 1 {
                        unroll2!(h => { unroll8!(q => {
                            let p = 8 * h + q;
                            let (c, r) = place(warp, lane, p);
                            store_pair::<E>(g_c, m, n, row0, a_row0 + r, col0 + c, r_acc[2 * p as usize], r_acc[2 * p as usize + 1]);
                        })});
                    } else {
                        let slice = ws.add(split as usize * slice_len);
                        unroll2!(h => { unroll8!(q => {
                            let p = 8 * h + q;
                            let (c, r) = place(warp, lane, p);
                            if a_row0 + r < m && colb + c >= col0 {
                                let bits = (r_acc[2 * p as usize].to_bits() as u64) | (r_acc[2 * p as usize + 1].to_bits() as u64) << 32;
                                // Slot row0 + r (the tile's own 64 slots, by accumulator column) of column
                                // colb + c (≥ col0: the warpgroup's own): inside the padded slice; r even and
                                // m_pad even: 8-byte aligned.
                                *(slice.add((colb + c) as usize * col_stride + (row0 + r) as usize) as *mut u64) = bits;
                            }
                        })});
                        let counter = count.add((tm * tiles_n + tn) as usize);
                        if last_split(counter, splits, s_flag, tid, 128) {
                            unroll2!(h => { unroll8!(q => {
                                let (c, r) = place(warp, lane, 8 * h + q);
                                let (row, col) = (a_row0 + r, colb + c);
                                if row < m && row + 1 >= row0 && col < n && col >= col0 {
                                    let (x, y) = sum_splits(ws, splits, slice_len, col as usize * col_stride + (row0 + r) as usize);
                                    store_pair::<E>(g_c, m, n, row0, row, col, x, y);
                                }
                            })});
                            if tid == 128 {
                                reset_counter(counter);
                            }
                        }
                        // The flag is rewritten by the next unit's ticket only after every consumer
                        // thread has read it.
                        sync_named(3, 256);
                    }
                    u += u_step;
                }
                if TMA_C && tid % 128 == 0 {
                    // The TMA stores have finished before the CTA (and its staging boxes) goes away.
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}

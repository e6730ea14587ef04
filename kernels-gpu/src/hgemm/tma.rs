//! Pieces shared by the Hopper HGEMM steps (`tma_v*`): the 128×128×64 CTA tile as TMA boxes and
//! `wgmma` descriptors, the 2×2 grid of `m64n64k16` accumulators of one warpgroup, and the epilogue.
//! Each step file keeps only what it changes (the pipeline around these).
use crate::prim::{
    mma::pack_f16x2,
    thread::lane_id,
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s},
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_m64n64k16_f32_f16, wgmma_m64n256k16_f32_f16,
            wgmma_wait_group},
};
use crate::util::grouped::{GROUP, grouped_block};
use layout::hopper::{TmaSwizzle, WgmmaDesc};

// Tile shapes and stage sizes: `layout::hopper::tma_hgemm`, shared with the host's launch sizes.
// `B_HALF_BYTES` is one 64×64 B box (two per stage in h1–h3, four in h4–h6); one `expect_tx` waits for
// a whole stage.
pub(super) use layout::hopper::tma_hgemm::{A_BYTES, B_BOX_BYTES as B_HALF_BYTES, BK, BM, BN, BN_WIDE, STAGE_BYTES, WIDE_STAGE_BYTES};

/// The accumulators of one warpgroup: `[2·mh + nh]` is the 64×64 block (rows `64·mh..`, cols `64·nh..`).
pub(super) type Acc = [[f32; 32]; 4];

/// The descriptors' fixed fields, checked when the crate is compiled (a bad layout is a build error):
/// A's 64-row K-major half and B's MN-major box at shared address 0. [`a_desc`]/[`b_desc`] move them
/// to a stage with [`WgmmaDesc::advance`], plain integer adds — no run-time check, so no `trap` branch
/// between the `wgmma`s (ptxas serializes every `wgmma` of a loop that holds one: C7518, measured
/// 0.8× on h4 and h6 before this).
const A_DESC_0: WgmmaDesc = match WgmmaDesc::k_major(0, 64, 128, TmaSwizzle::B128) {
    Ok(d) => d,
    Err(_) => panic!("A descriptor"),
};
const B_DESC_0: WgmmaDesc = match WgmmaDesc::mn_major_sw128(0, BK) {
    Ok(d) => d,
    Err(_) => panic!("B descriptor"),
};

/// Issues the three TMA loads of K tile `kt` into the stage at `s_stage` (A at +0, B halves after it),
/// completing on `bar`, after announcing the stage's bytes on it.
///
/// # Safety
/// One thread; `s_stage` is a 1024-aligned `.shared` address of [`STAGE_BYTES`] bytes nobody reads until
/// `bar`'s current phase completes; `bar` an initialized mbarrier expecting one arrival; the tensor maps
/// as the step kernels' `# Safety` says.
#[inline(always)]
pub(super) unsafe fn issue_stage(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m0: u32, n0: u32, kt: u32) {
    let k0 = (kt * BK) as i32;
    // SAFETY: forwarded to the caller.
    unsafe {
        crate::prim::mbarrier::mbarrier_arrive_expect_tx(bar, STAGE_BYTES);
        cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, k0, m0 as i32, bar);
        cp_async_bulk_tensor_2d_g2s(s_stage + A_BYTES, tmap_b, n0 as i32, k0, bar);
        cp_async_bulk_tensor_2d_g2s(s_stage + A_BYTES + B_HALF_BYTES, tmap_b, n0 as i32 + 64, k0, bar);
    }
}

/// Descriptor of rows `64·mh .. 64·mh + 64` of the stage's A tile (K-major, 128-byte rows).
/// `s_stage` is a 1024-aligned `.shared` address; every such address of a CTA is below 228 KiB, so the
/// descriptor's 14-bit address field (`addr >> 4`, up to 256 KiB) holds it exactly.
#[inline(always)]
pub(super) fn a_desc(s_stage: u32, mh: u32) -> WgmmaDesc {
    A_DESC_0.advance(s_stage + mh * (A_BYTES / 2))
}

/// Descriptor of columns `64·nh .. 64·nh + 64` of the stage's B tile (MN-major, one 64×64 box).
/// Address bound as [`a_desc`].
#[inline(always)]
pub(super) fn b_desc(s_stage: u32, nh: u32) -> WgmmaDesc {
    B_DESC_0.advance(s_stage + A_BYTES + nh * B_HALF_BYTES)
}

/// `r_acc += A_tile · B_tile` for the stage at `s_stage`: 4 K steps × 2×2 `wgmma.m64n64k16` (A K-major,
/// B MN-major), one commit group, waited for before returning.
///
/// # Safety
/// All 128 threads of the warpgroup; the stage's TMA phase has completed; nobody writes the stage until
/// this returns.
#[inline(always)]
pub(super) unsafe fn mma_stage(r_acc: &mut Acc, s_stage: u32) {
    let d_a = [a_desc(s_stage, 0), a_desc(s_stage, 1)];
    let d_b = [b_desc(s_stage, 0), b_desc(s_stage, 1)];
    for acc in r_acc.iter_mut() {
        wgmma_fence_operand(acc);
    }
    // SAFETY: forwarded to the caller; the accumulators are pinned before and after the async group.
    unsafe {
        wgmma_fence();
        for ks in 0..BK / 16 {
            for mh in 0..2 {
                for nh in 0..2 {
                    // K step ks: 32 bytes along A's K-major rows, 16 rows (2048 B) down B's tile.
                    wgmma_m64n64k16_f32_f16::<0, 1>(&mut r_acc[2 * mh + nh], d_a[mh].advance(32 * ks).0,
                                                     d_b[nh].advance(2048 * ks).0, true);
                }
            }
        }
        wgmma_commit_group();
        wgmma_wait_group::<0>();
    }
    for acc in r_acc.iter_mut() {
        wgmma_fence_operand(acc);
    }
}

/// Writes one 64×64 accumulator block (fragment layout in `prim::wgmma`) to C at `(row0, col0)`: each
/// thread's column pairs as one f16x2 store. N is even and every column even, so a pair is wholly in or
/// out of N.
///
/// # Safety
/// `g_c` has `m·n` writable f16; `n` even; `warp` is the warp's index within its warpgroup.
#[inline(always)]
pub(super) unsafe fn store_block(acc: &[f32; 32], g_c: *mut u16, m: u32, n: u32, row0: u32, col0: u32, warp: u32) {
    let lane = lane_id();
    let (g, t) = (lane / 4, lane % 4);
    for j in 0..8u32 {
        for half in 0..2u32 {
            let row = row0 + 16 * warp + g + 8 * half;
            let col = col0 + 8 * j + 2 * t;
            if row < m && col < n {
                let i = (4 * j + 2 * half) as usize;
                // SAFETY: row < m, col + 1 < n (n even, col even): inside C; 4-byte aligned.
                unsafe { *(g_c.add((row * n + col) as usize) as *mut u32) = pack_f16x2(acc[i], acc[i + 1]) };
            }
        }
    }
}

/// Writes the CTA's 128×128 C tile from the 2×2 accumulator blocks of one warpgroup.
///
/// # Safety
/// As [`store_block`].
#[inline(always)]
pub(super) unsafe fn store_c(r_acc: &Acc, g_c: *mut u16, m: u32, n: u32, m0: u32, n0: u32, warp: u32) {
    for mh in 0..2u32 {
        for nh in 0..2u32 {
            // SAFETY: forwarded to the caller.
            unsafe { store_block(&r_acc[(2 * mh + nh) as usize], g_c, m, n, m0 + 64 * mh, n0 + 64 * nh, warp) };
        }
    }
}

/// Consumer warps of the warp-specialized steps (two warpgroups): the empty barriers' arrival count.
pub(super) const CONSUMER_WARPS: u32 = 8;

/// The wide steps' [`issue_stage`]: A (128×64) and four B boxes (64 K × 64 N each, N columns
/// `n0 .. n0 + 256`) of K tile `kt` into the stage at `s_stage`, announced on `bar` as one
/// [`WIDE_STAGE_BYTES`] transaction.
///
/// # Safety
/// As [`issue_stage`], with a stage of [`WIDE_STAGE_BYTES`].
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

/// One consumer warpgroup's MMAs on a wide stage: rows `64·mh ..` of A times all 256 columns of B, as
/// 4 K steps of one `wgmma.m64n256k16` each (B's four boxes under one descriptor, LBO = one box), into
/// `r_acc` (`[nb]`: columns `64·nb ..`), committed as one group and **not waited for** (the caller
/// chooses `wait_group 0` or `1`).
///
/// # Safety
/// All 128 threads of the warpgroup; the stage's TMA phase has completed; nobody writes the stage or
/// reads `r_acc` until a `wgmma_wait_group` has retired this group (the caller pins `r_acc` after it).
#[inline(always)]
pub(super) unsafe fn mma_wide_stage(r_acc: &mut [[f32; 32]; 4], s_stage: u32, mh: u32) {
    let d_a = a_desc(s_stage, mh);
    let d_b = b_desc(s_stage, 0); // LBO = B_HALF_BYTES: the next 64 columns are the next box
    for acc in r_acc.iter_mut() {
        wgmma_fence_operand(acc);
    }
    // SAFETY: forwarded to the caller.
    unsafe {
        wgmma_fence();
        for ks in 0..BK / 16 {
            // K step ks: 32 bytes along A's K-major rows, 16 rows (2048 B) down every B box.
            wgmma_m64n256k16_f32_f16::<0, 1>(r_acc, d_a.advance(32 * ks).0, d_b.advance(2048 * ks).0, true);
        }
        wgmma_commit_group();
    }
}

/// The stage ring of the warp-specialized steps (h3–h6) and its full and empty mbarriers, laid out in the
/// launch's dynamic shared memory by [`Ring::in_dynamic_smem`]:
///
/// ```text
/// dynamic smem ─┬ ≤ 1023 B of alignment slack
///   s_ring ─────┼ stage 0 | stage 1 | … | stage stages−1      (stage_bytes each, 1024-aligned)
///   s_extra ────┼ extra bytes (h6: the C staging tiles)
///   s_full ─────┼ stages × 8 B: full barriers (the TMA landed the stage; 1 arrival + tx bytes)
///   s_empty ────┴ stages × 8 B: empty barriers (every consumer warp is done; CONSUMER_WARPS arrivals)
/// ```
#[derive(Clone, Copy)]
pub(super) struct Ring {
    /// First stage.
    s_ring: u32,
    /// Full barriers.
    s_full: u32,
    /// Empty barriers.
    s_empty: u32,
    /// Stages.
    stages: u32,
    /// Bytes per stage (a multiple of 1024, so every stage stays aligned to the 128B pattern's period).
    stage_bytes: u32,
}

impl Ring {
    /// Lays out `stages` stages of `stage_bytes`, then `extra_bytes`, then the barriers, from the dynamic
    /// shared memory's start rounded up to 1024 bytes; returns the ring and the extra region's address.
    /// The launch must provide `layout::hopper::tma_hgemm::dyn_smem(stages, stage_bytes, extra_bytes, 2)`
    /// bytes (the host registry asks for exactly that).
    #[inline(always)]
    pub(super) fn in_dynamic_smem(stages: u32, stage_bytes: u32, extra_bytes: u32) -> (Ring, u32) {
        use crate::prim::shared::{Align16, addr_of, dynamic};
        let s_ring = (addr_of(dynamic::<Align16>()) + 1023) & !1023;
        let s_extra = s_ring + stages * stage_bytes;
        let s_full = s_extra + extra_bytes;
        (Ring { s_ring, s_full, s_empty: s_full + 8 * stages, stages, stage_bytes }, s_extra)
    }

    /// Stage, full barrier and empty barrier of running K-tile index `it`, and its use `u = it / stages`.
    #[inline(always)]
    pub(super) fn at(self, it: u32) -> (u32, u32, u32, u32) {
        let s = it % self.stages;
        (self.s_ring + s * self.stage_bytes, self.s_full + 8 * s, self.s_empty + 8 * s, it / self.stages)
    }

    /// Thread 0 of the block: prefetches both tensor maps, initializes the full barriers (one arrival:
    /// the producer's `expect_tx`) and the empty barriers ([`CONSUMER_WARPS`] arrivals), then fences the
    /// initialization for the async proxy. The caller follows with a block barrier.
    ///
    /// # Safety
    /// One thread, before any other use of the barriers; the launch provides the bytes
    /// [`Ring::in_dynamic_smem`] names; the tensor maps are valid.
    #[inline(always)]
    pub(super) unsafe fn init(self, tmap_a: *const TensorMap, tmap_b: *const TensorMap) {
        use crate::prim::mbarrier::{fence_mbarrier_init, mbarrier_init};
        // SAFETY: forwarded to the caller; the barriers lie inside the dynamic shared memory.
        unsafe {
            crate::prim::tma::prefetch_tensormap(tmap_a);
            crate::prim::tma::prefetch_tensormap(tmap_b);
            for i in 0..self.stages {
                mbarrier_init(self.s_full + 8 * i, 1);
                mbarrier_init(self.s_empty + 8 * i, CONSUMER_WARPS);
            }
            fence_mbarrier_init();
        }
    }

    /// The producer's wait before refilling the stage of running index `it`: use `u − 1` of that stage
    /// must have been released by every consumer warp (nothing to wait for on the first use).
    ///
    /// # Safety
    /// One producer thread; barriers initialized.
    #[inline(always)]
    pub(super) unsafe fn wait_empty(self, it: u32) {
        let (_, _, empty, u) = self.at(it);
        if u > 0 {
            // SAFETY: forwarded to the caller.
            unsafe { crate::prim::mbarrier::mbarrier_wait_parity(empty, (u - 1) & 1) };
        }
    }

    /// A consumer's wait until the stage of running index `it` has landed (phase `u` of its full barrier).
    ///
    /// # Safety
    /// Barriers initialized; the producer issues this stage.
    #[inline(always)]
    pub(super) unsafe fn wait_full(self, it: u32) {
        let (_, full, _, u) = self.at(it);
        // SAFETY: forwarded to the caller.
        unsafe { crate::prim::mbarrier::mbarrier_wait_parity(full, u & 1) };
    }

    /// One consumer warp's release of the stage of running index `it` (lane 0 arrives for the warp).
    ///
    /// # Safety
    /// Called once per warp per use, after the warp's `wgmma`s reading that stage have retired.
    #[inline(always)]
    pub(super) unsafe fn release(self, it: u32) {
        if lane_id() == 0 {
            // SAFETY: forwarded to the caller.
            unsafe { crate::prim::mbarrier::mbarrier_arrive(self.at(it).2) };
        }
    }
}

/// The tile (row, column) the persistent steps give to position `tile` of a CTA's sequence
/// `b, b + grid, …`: the grouped order of [`crate::util::grouped`] ([`GROUP`] tile rows per group).
#[inline(always)]
pub(super) fn persistent_tile(tile: u32, tiles_m: u32, tiles_n: u32) -> (u32, u32) {
    grouped_block(tile, tiles_m, tiles_n, GROUP)
}

/// The producer of the persistent wide steps (h5, h6), run by one thread: for each of this CTA's tiles
/// and each K tile, wait until the stage's previous use is released, then issue its loads. `it` runs on
/// across tiles, so stages and phases continue where the previous tile stopped.
///
/// # Safety
/// One thread; the ring (of [`WIDE_STAGE_BYTES`] stages) initialized by [`Ring::init`]; the consumers walk the same tiles and K tiles and
/// release every stage use (as [`consume_wide_tile`] does); tensor maps as the kernels' `# Safety`.
#[inline(always)]
pub(super) unsafe fn produce_persistent(ring: Ring, tmap_a: *const TensorMap, tmap_b: *const TensorMap,
                                        tiles_m: u32, tiles_n: u32, k_tiles: u32) {
    use crate::prim::thread::{block_idx_x, grid_dim_x};
    let mut it = 0u32;
    let mut tile = block_idx_x();
    while tile < tiles_m * tiles_n {
        let (tm, tn) = persistent_tile(tile, tiles_m, tiles_n);
        for kt in 0..k_tiles {
            let (s_stage, full, _, _) = ring.at(it);
            // SAFETY: forwarded to the caller; use u − 1 of this stage is released before it is refilled.
            unsafe {
                ring.wait_empty(it);
                issue_wide_stage(s_stage, full, tmap_a, tmap_b, tm * BM, tn * BN_WIDE, kt);
            }
            it += 1;
        }
        tile += grid_dim_x();
    }
}

/// One consumer warpgroup's K loop over a tile of the persistent wide steps: accumulates rows `64·mh ..`
/// × 256 columns into a fresh `r_acc` and returns it final (after `wait_group 0`), having released every
/// stage use it consumed — stage `it − 1` after stage `it`'s group was committed and `wait_group 1`
/// retired the older one, and the tile's last stage after `wait_group 0`. Advances `it` by `k_tiles`.
///
/// # Safety
/// All 128 threads of a consumer warpgroup; the ring and the producer as [`produce_persistent`].
#[inline(always)]
pub(super) unsafe fn consume_wide_tile(ring: Ring, it: &mut u32, k_tiles: u32, mh: u32) -> [[f32; 32]; 4] {
    let mut r_acc = [[0f32; 32]; 4]; // [nb]: columns 64·nb .. of the tile
    // SAFETY: forwarded to the caller; the accumulators are pinned after every wait.
    unsafe {
        for kt in 0..k_tiles {
            ring.wait_full(*it);
            mma_wide_stage(&mut r_acc, ring.at(*it).0, mh);
            wgmma_wait_group::<1>();
            for acc in r_acc.iter_mut() {
                wgmma_fence_operand(acc);
            }
            if kt > 0 {
                ring.release(*it - 1);
            }
            *it += 1;
        }
        wgmma_wait_group::<0>();
        for acc in r_acc.iter_mut() {
            wgmma_fence_operand(acc);
        }
        if k_tiles > 0 {
            ring.release(*it - 1);
        }
    }
    r_acc
}

/// Writes one consumer's 64×256 result (the four accumulator blocks of [`consume_wide_tile`]) to C at
/// `(row0, n0)` with [`store_block`].
///
/// # Safety
/// As [`store_block`].
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

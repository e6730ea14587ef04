//! The block ladder's main loop with fragments double-buffered **across** stages (introduced by block
//! v9, whose file explains it; v10 changes only where the `ldmatrix` addresses come from, through
//! [`FragAddrs`]).
//!
//! Interior blocks (tile and K range inside the matrices) run [`main_loop`]: the wait and barrier for
//! stage t + 1 come before stage t's last k16 step, the next stage's first fragments load under its
//! MMAs, and the copy runs from one pointer per operand ([`Interior`]). Edge blocks run v8's loop
//! (`block_pipeline::pipeline`). Both end with v8's epilogue through shared memory.
use super::block::{Accumulator, BlockConfig, Epilogue, Frags, mma_frags};
use super::block_pipeline::pipeline;
use super::block_smem_epilogue::store_c_through_smem;
use crate::prim::{
    cp_async::{cp_async_cg_16, cp_async_commit_group, cp_async_wait_group, cp_async_wait_group_n},
    shared,
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, grid_dim_x, thread_idx_x},
};
use crate::util::grouped::{GROUP, grouped_block};
use crate::util::unroll::unroll4;
use layout::hgemm::{A_SWIZZLED_WIDE, B_SWIZZLED_WIDE, BK_WIDE, BM, BN, THREADS, copy_chunk};
use layout::{Layout, RowMajor, Swizzled};

/// k16 steps per stage.
const K16: u32 = BK_WIDE / 16;
/// 16-byte chunks per row of the A tile (8) and of the B tile (32).
const A_CHUNKS_PER_ROW: u32 = BK_WIDE / 8;
const B_CHUNKS_PER_ROW: u32 = BN / 8;
/// A thread's A chunks are `THREADS / A_CHUNKS_PER_ROW` = 32 rows apart; its B chunks 8 rows apart.
pub(crate) const A_ROWS_APART: u32 = THREADS / A_CHUNKS_PER_ROW;
pub(crate) const B_ROWS_APART: u32 = THREADS / B_CHUNKS_PER_ROW;
// `copy_chunk(tid + THREADS·i)` is `copy_chunk(tid)` moved down `i · ROWS_APART` rows only if a row's
// chunks divide the block's threads.
const _: () = assert!(THREADS % A_CHUNKS_PER_ROW == 0 && THREADS % B_CHUNKS_PER_ROW == 0);
/// Chunks per thread per stage: 4 of A, 8 of B.
const A_CHUNKS: u32 = BM * BK_WIDE / 8 / THREADS;
const B_CHUNKS: u32 = BK_WIDE * BN / 8 / THREADS;
/// The stage layouts of a cross-stage kernel and the shared-offset steps between a thread's chunks (from the
/// layouts' `row_step`; a compile error where a swizzle would make them depend on the row).
pub(crate) struct Tiles<LA, LB> {
    pub(crate) la: LA,
    pub(crate) lb: LB,
    pub(crate) a_step: u32,
    pub(crate) b_step: u32,
}

/// `row_step`'s promise, unwrapped at compile time (used in `const` items only).
pub(crate) const fn step(d: Option<u32>) -> u32 {
    match d {
        Some(d) => d,
        None => panic!("the layout's offsets do not move by a constant over that many rows"),
    }
}

/// v9's and v10's tiles: v7's swizzles.
pub(crate) const SWIZZLED: Tiles<Swizzled<RowMajor>, Swizzled<RowMajor>> = Tiles {
    la: A_SWIZZLED_WIDE,
    lb: B_SWIZZLED_WIDE,
    a_step: step(A_SWIZZLED_WIDE.row_step(A_ROWS_APART)),
    b_step: step(B_SWIZZLED_WIDE.row_step(B_ROWS_APART)),
};

impl<LA: Layout, LB: Layout> Tiles<LA, LB> {
    /// Shared addresses of stage `s`'s A and B tiles.
    #[inline(always)]
    fn stage(&self, base: u32, s: u32) -> (u32, u32) {
        let bytes = 2 * (self.la.size() + self.lb.size());
        (base + s * bytes, base + s * bytes + 2 * self.la.size())
    }
}

/// `p`, hidden from the optimizers: an empty `asm!` that takes and returns it, so values derived from
/// it are recomputed where used instead of hoisted out of the K loop and kept in registers.
#[inline(always)]
fn opaque_ptr(mut p: *const u16) -> *const u16 {
    // SAFETY: emits no instruction (a PTX comment); the same pointer comes back. Not `pure`, so LLVM
    // does not hoist it out of the loop either.
    unsafe { core::arch::asm!("// opaque {0}", inout(reg64) p, options(nomem, nostack)) };
    p
}

/// The interior copy: the block's 128×K panel of A and K×256 panel of B lie inside the matrices and
/// `k % 64 == 0`, so no chunk needs a check. Per thread: `g_a` → its first A chunk of K tile 0 (row
/// `tid / 8`, column `8 (tid % 8)`), `g_b` → its first B chunk (row `tid / 32`, column `8 (tid % 32)`),
/// and those chunks' shared offsets `s_a0`, `s_b0`; chunk `i` adds `i · a_step` (`b_step`) in shared
/// memory and `i · 32` rows of A (`i · 8` rows of B) in global memory.
struct Interior<'t, LA, LB> {
    tiles: &'t Tiles<LA, LB>,
    g_a: *const u16,
    g_b: *const u16,
    n: u32,
    k: u32,
    base: u32,
    s_a0: u32,
    s_b0: u32,
}

impl<LA: Layout, LB: Layout> Interior<'_, LA, LB> {
    /// Issues the `cp.async` of K tile `t` into stage `s`.
    ///
    /// # Safety
    /// Stage `s` is not read by any thread until this thread's group is waited for and a barrier
    /// follows; `t` is a K tile of the problem.
    #[inline(always)]
    unsafe fn copy(&self, t: u32, s: u32) {
        let (s_a, s_b) = self.tiles.stage(self.base, s);
        let (s_a, s_b) = (s_a + 2 * self.s_a0, s_b + 2 * self.s_b0);
        let (a_step, b_step) = (self.tiles.a_step, self.tiles.b_step);
        // SAFETY: the block is interior (kernel test), so every chunk address is inside A or B and
        // 16-byte aligned (k, n multiples of 8); shared offsets are the layouts' (`row_step`), inside
        // the stage; the stage is free (caller).
        unsafe {
            let g_a = opaque_ptr(self.g_a).add((t * BK_WIDE) as usize);
            for i in 0..A_CHUNKS {
                cp_async_cg_16(s_a + 2 * i * a_step, g_a.add((i * A_ROWS_APART) as usize * self.k as usize) as *const u8);
            }
            let g_b = opaque_ptr(self.g_b).add((t * BK_WIDE) as usize * self.n as usize);
            for i in 0..B_CHUNKS {
                cp_async_cg_16(s_b + 2 * i * b_step, g_b.add((i * B_ROWS_APART) as usize * self.n as usize) as *const u8);
            }
        }
    }
}

/// Where a warp's `ldmatrix` rows are: `load(s_a, s_b, k16)` loads k16 step `k16` of the stage whose
/// tiles start at `s_a`, `s_b`; `fresh()` is called once per K tile (v10 hides its bases there).
pub(crate) trait FragAddrs {
    /// The per-tile copy of the addresses.
    fn fresh(&self) -> Self;
    /// # Safety
    /// All 32 lanes of every warp call it; the stage is complete (after a barrier).
    unsafe fn load(&self, s_a: u32, s_b: u32, k16: u32) -> Frags;
}

/// The main loop with the cross-stage fragment prefetch, then v8's epilogue (interior blocks), for a
/// configuration of 64-deep stages (`C::STAGES` of them).
///
/// # Safety
/// The kernel's launch contract; `copy` fills stages for this block's `(m0, n0)`.
#[inline(always)]
unsafe fn main_loop<C: BlockConfig, LA: Layout, LB: Layout, F: FragAddrs>(
    copy: &Interior<'_, LA, LB>, frags: &F, c: *mut u16, m: u32, n: u32, k: u32, m0: u32, n0: u32, base: u32,
) {
    let t_ = copy.tiles;
    let tiles = k.div_ceil(BK_WIDE);
    let mut acc = C::Acc::ZERO;
    // SAFETY: group accounting: the prologue commits tiles 0 … STAGES − 1 (one group each, empty past
    // the end); the end of tile t commits one group (tile t + STAGES). Before tile t's last k16 step
    // STAGES + t groups are committed and tile t + 1 is group t + 1, so `wait_group(STAGES − 2)`
    // completes it; the barrier after it publishes it to every warp and certifies that every warp has
    // loaded its last fragments of tile t (they are in `f`), so tile t's stage may be refilled with
    // tile t + STAGES after it. `tiles ≥ 1` (K ≥ 1). Loop bounds are uniform: every thread reaches
    // every barrier.
    unsafe {
        for t in 0..C::STAGES {
            if t < tiles {
                copy.copy(t, t);
            }
            cp_async_commit_group();
        }
        cp_async_wait_group_n(C::STAGES - 1);
        sync_threads();
        let (s_a, s_b) = t_.stage(base, 0);
        // `first`: k16 step 0 of the current tile, loaded before the tile begins.
        let mut first: Frags = frags.load(s_a, s_b, 0);
        let mut s_cur = 0u32;
        for t in 0..tiles {
            let more = t + 1 < tiles;
            let s_next = if s_cur + 1 == C::STAGES { 0 } else { s_cur + 1 };
            let (s_a, s_b) = t_.stage(base, s_cur);
            let frags = frags.fresh();
            mma_frags(&mut acc, &first);
            unroll4!(k16 => { if k16 >= 1 {
                let f = frags.load(s_a, s_b, k16);
                if k16 + 1 == K16 && more {
                    cp_async_wait_group_n(C::STAGES - 2);
                    sync_threads();
                    let (n_a, n_b) = t_.stage(base, s_next);
                    first = frags.load(n_a, n_b, 0);
                }
                mma_frags(&mut acc, &f);
                if k16 + 1 == K16 && more {
                    if t + C::STAGES < tiles {
                        copy.copy(t + C::STAGES, s_cur);
                    }
                    cp_async_commit_group();
                }
            }});
            s_cur = s_next;
        }
        cp_async_wait_group::<0>();
        sync_threads(); // every warp is done with the stages before the epilogue reuses them
        store_c_through_smem(c, m, n, m0, n0, &acc, base);
    }
}

/// Picks the loop for block `(bm, bn)`: v9's for interior blocks, v8's for the edge.
///
/// # Safety
/// As `hgemm_block_v9` with `C::STAGES` stages of dynamic shared memory.
#[inline(always)]
pub(crate) unsafe fn block<C: BlockConfig, LA: Layout, LB: Layout, F: FragAddrs>(
    tiles: &Tiles<LA, LB>, frags: &F, a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32,
) {
    // The interior loop is written for 64-deep stages and v8's epilogue; the edge loop takes them from C.
    const { assert!(C::K16_PER_STAGE == K16 && matches!(C::EPILOGUE, Epilogue::ThroughSharedTile)) };
    let grid_n = grid_dim_x();
    let (bm, bn) = grouped_block(block_idx_y() * grid_n + block_idx_x(), m.div_ceil(BM), grid_n, GROUP);
    let (m0, n0) = (bm * BM, bn * BN);
    let base = shared::addr_of(shared::dynamic::<shared::Align16>());
    let interior = m0 + BM <= m && n0 + BN <= n && k % BK_WIDE == 0;
    // SAFETY: forwarded launch contract; `Interior` only for blocks whose panels lie inside A and B
    // (the test above, uniform per block, so both branches keep every barrier block-wide); edge
    // blocks take v8's pipeline with its checked, zero-filling copy.
    unsafe {
        if interior {
            let tid = thread_idx_x();
            // The thread's first chunks (i = 0) in `copy_chunk`'s numbering, as v8's copy.
            let (ra, ca) = copy_chunk(tid, BK_WIDE);
            let (rb, cb) = copy_chunk(tid, BN);
            let copy = Interior {
                tiles,
                g_a: a.add((m0 + ra) as usize * k as usize + ca as usize),
                g_b: b.add(rb as usize * n as usize + (n0 + cb) as usize),
                n,
                k,
                base,
                s_a0: tiles.la.offset(ra, ca),
                s_b0: tiles.lb.offset(rb, cb),
            };
            main_loop::<C, _, _, F>(&copy, frags, c, m, n, k, m0, n0, base);
        } else {
            pipeline::<C>(a, b, c, m, n, k, bm, bn, &tiles.la, &tiles.lb);
        }
    }
}

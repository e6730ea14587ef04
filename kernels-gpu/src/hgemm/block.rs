//! The block tile shared by the block-level HGEMM steps (`block_v2` … `block_v10`): seed 000's 128×256
//! block tile, 8 warps as 2 (M) × 4 (N), each warp 64×64 = 4 × 8 `mma.m16n8k16` tiles with f32 (or f16)
//! accumulators; a step's numbers as a [`BlockConfig`]; the `ldmatrix` + `mma` of a stage, the direct
//! epilogue, and v2–v4's synchronous main loop ([`run_sync`]). Shared tiles are described by a
//! `Layout`, which gives the 16-byte store addresses and the `ldmatrix` row addresses alike.
//!
//! The later steps' machinery: `block_pipeline` (v5's `cp.async` pipeline), `block_smem_epilogue`
//! (v8's epilogue), `block_cross_stage_prefetch` (v9's main loop).
use crate::prim::{
    global::ld_global_nc_v4_u32,
    ldmatrix::{ldmatrix_x4, ldmatrix_x4_trans},
    mma::{mma_m16n8k16_f16_f16, mma_m16n8k16_f32_f16, pack_f16x2},
    shared,
    thread::thread_idx_x,
};
use crate::util::unroll::{unroll2, unroll4, unroll8};
use layout::Layout;
use layout::fragment::{Ldmatrix, MmaM16N8K16};
pub(crate) use layout::hgemm::{WM, WN};
use layout::hgemm::{BK, BM, BN, THREADS, copy_chunk};

/// f32 accumulators of one warp: `[mi][ni]` is the m16n8 tile `(16 mi, 8 ni)` of the warp's 64×64.
pub(crate) type Acc = [[[f32; 4]; 8]; 4];

/// f16 accumulators of one warp (`v9h`): the same tiles, each m16n8 in two `u32` of f16 pairs — 64
/// registers instead of 128.
pub(crate) type AccF16 = [[[u32; 2]; 8]; 4];

/// What a warp accumulates its 64×64 into: one `mma.m16n8k16` per m16n8 tile, and the f16 pair of
/// elements `c_2h`, `c_2h+1` the epilogue stores (places: [`MmaM16N8K16::c_rc`]).
pub(crate) trait Accumulator {
    /// All zeros.
    const ZERO: Self;
    /// `self[mi][ni] += a · b` with one `mma.sync.m16n8k16`.
    ///
    /// # Safety
    /// All 32 lanes of the warp call it together (`mma.sync` is warp-collective).
    unsafe fn mma(&mut self, mi: usize, ni: usize, a: [u32; 4], b: [u32; 2]);
    /// Tile `[mi][ni]`'s two f16 `c_2h`, `c_2h+1` (one row, columns `c`, `c + 1` of
    /// [`MmaM16N8K16::c_rc`]), packed low-first.
    fn packed(&self, mi: usize, ni: usize, h: usize) -> u32;
}

impl Accumulator for Acc {
    const ZERO: Self = [[[0.0; 4]; 8]; 4];
    #[inline(always)]
    unsafe fn mma(&mut self, mi: usize, ni: usize, a: [u32; 4], b: [u32; 2]) {
        // SAFETY: forwarded to the caller.
        unsafe { mma_m16n8k16_f32_f16(&mut self[mi][ni], a, b) }
    }
    #[inline(always)]
    fn packed(&self, mi: usize, ni: usize, h: usize) -> u32 {
        pack_f16x2(self[mi][ni][2 * h], self[mi][ni][2 * h + 1])
    }
}

impl Accumulator for AccF16 {
    const ZERO: Self = [[[0; 2]; 8]; 4];
    #[inline(always)]
    unsafe fn mma(&mut self, mi: usize, ni: usize, a: [u32; 4], b: [u32; 2]) {
        // SAFETY: forwarded to the caller.
        unsafe { mma_m16n8k16_f16_f16(&mut self[mi][ni], a, b) }
    }
    #[inline(always)]
    fn packed(&self, mi: usize, ni: usize, h: usize) -> u32 {
        self[mi][ni][h]
    }
}

/// A block-HGEMM step's configuration: each step file defines one (a unit struct) and names its numbers
/// there, so `pipeline::<V7>` reads as "v7's pipeline" (`block_pipeline::pipeline`).
pub(crate) trait BlockConfig {
    /// Shared stages: 1 for v2–v4 ([`run_sync`]); 2–4 in the `cp.async` ring of v5 on, where
    /// `STAGES − 1` K tiles are in flight during compute.
    const STAGES: u32;
    /// `k16` steps per stage: 2 (32-deep K tiles, v5–v6) or 4 (64-deep, v7 on).
    const K16_PER_STAGE: u32;
    /// How C leaves the block.
    const EPILOGUE: Epilogue;
    /// What a warp accumulates its 64×64 into: f32 ([`Acc`]) or f16 ([`AccF16`], v9h).
    type Acc: Accumulator;
}

/// How a block writes its 128×256 C tile.
pub(crate) enum Epilogue {
    /// Every lane stores its f16 pairs straight from the `mma` fragments ([`store_c`]; v2–v7).
    FromFragments,
    /// Through a swizzled C tile in the idle stage memory, then 128-bit coalesced stores
    /// (`block_smem_epilogue::store_c_through_smem`; v8 on).
    ThroughSharedTile,
}

/// v2–v4: one 32-deep stage loaded through registers, C straight from the fragments.
pub(crate) struct Unpipelined;

impl BlockConfig for Unpipelined {
    const STAGES: u32 = 1;
    const K16_PER_STAGE: u32 = 2;
    const EPILOGUE: Epilogue = Epilogue::FromFragments;
    type Acc = Acc;
}

/// 16 bytes (8 halves) of `p` at `(row, col)` if the chunk is inside `rows × cols`, else zeros.
/// Requires `cols % 8 == 0` (so a chunk is all in or all out, and 16-byte aligned).
///
/// # Safety
/// `p` is a 16-byte-aligned row-major `rows × cols` f16 matrix, not written during the kernel.
#[inline(always)]
pub(crate) unsafe fn chunk_or_zero(p: *const u16, row: u32, col: u32, rows: u32, cols: u32) -> [u32; 4] {
    if row < rows && col < cols {
        // SAFETY: in bounds and aligned (caller contract, cols % 8 == 0, col % 8 == 0).
        unsafe { ld_global_nc_v4_u32(p.add(row as usize * cols as usize + col as usize) as *const u32) }
    } else {
        [0; 4]
    }
}

/// This thread's 16-byte chunks of the A tile (2) and the B tile (4) for K offset `k0`: chunk `c` of A
/// is row `c / 4`, column `8 (c % 4)`; of B row `c / 32`, column `8 (c % 32)`; `c = tid + 256 i`.
#[inline(always)]
pub(crate) fn a_chunk(tid: u32, i: u32) -> (u32, u32) {
    let c = tid + THREADS * i;
    copy_chunk(c, BK)
}

/// See [`a_chunk`].
#[inline(always)]
pub(crate) fn b_chunk(tid: u32, i: u32) -> (u32, u32) {
    let c = tid + THREADS * i;
    copy_chunk(c, BN)
}

/// Loads the block's A and B tiles for `k0` from global memory into registers (6 × 16 bytes).
///
/// # Safety
/// As [`chunk_or_zero`] for `a` (M×K) and `b` (K×N), with `k % 8 == 0` and `n % 8 == 0`.
#[inline(always)]
pub(crate) unsafe fn fetch(a: *const u16, b: *const u16, m: u32, n: u32, k: u32, m0: u32, n0: u32, k0: u32) -> [[u32; 4]; 6] {
    let tid = thread_idx_x();
    // SAFETY: forwarded.
    unsafe {
        core::array::from_fn(|j| {
            if j < 2 {
                let (r, c) = a_chunk(tid, j as u32);
                chunk_or_zero(a, m0 + r, k0 + c, m, k)
            } else {
                let (r, c) = b_chunk(tid, j as u32 - 2);
                chunk_or_zero(b, k0 + r, n0 + c, k, n)
            }
        })
    }
}

/// Stores fetched chunks into the shared tiles at `s_a`, `s_b` (128-bit stores at layout offsets).
///
/// # Safety
/// `s_a`, `s_b` are 16-byte-aligned shared addresses of `2 · la.size()` and `2 · lb.size()` bytes that
/// no thread reads until a barrier; the layouts keep 8-element chunks contiguous and aligned.
#[inline(always)]
pub(crate) unsafe fn store_tiles(s_a: u32, s_b: u32, v: &[[u32; 4]; 6], la: &impl Layout, lb: &impl Layout) {
    let tid = thread_idx_x();
    // SAFETY: forwarded.
    unsafe {
        for i in 0..2u32 {
            let (r, c) = a_chunk(tid, i);
            shared::st_shared_v4_u32(s_a + 2 * la.offset(r, c), v[i as usize]);
        }
        for i in 0..4u32 {
            let (r, c) = b_chunk(tid, i);
            shared::st_shared_v4_u32(s_b + 2 * lb.offset(r, c), v[2 + i as usize]);
        }
    }
}

/// `ldmatrix.x4` of the A fragments, `ldmatrix.x4.trans` of the B fragments: the lane → tile row-start
/// maps of [`load_frags`]. (Row and column are taken as `.0` and `.1` of separate calls so that the
/// row's sum is formed before the column's, as the PTX has always had it.)
const A_X4: Ldmatrix = Ldmatrix::X4;
const B_X4: Ldmatrix = Ldmatrix::X4_TRANS;

/// The `ldmatrix` fragments of one k16 step of a warp's 64×64: `a[mi]` (`ldmatrix.x4`, rows
/// `16 mi ..` of the warp's A rows) and `b[nj]` (`ldmatrix.x4.trans`, columns `16 nj ..`).
pub(crate) type Frags = ([[u32; 4]; 4], [[u32; 4]; 4]);

/// Loads the fragments of k16 step `k16` of the tiles at `s_a` (BM × 16·K16, layout `la`) and `s_b`
/// (16·K16 × BN, layout `lb`): 4 `ldmatrix.x4` and 4 `ldmatrix.x4.trans`.
///
/// # Safety
/// All 32 lanes of every warp call it; the tiles are complete (after a barrier).
#[inline(always)]
pub(crate) unsafe fn load_frags(s_a: u32, s_b: u32, k16: u32, la: &impl Layout, lb: &impl Layout) -> Frags {
    let tid = thread_idx_x();
    let (warp, lane) = (tid / 32, tid % 32);
    let (wm, wn) = (warp / (BN / WN), warp % (BN / WN));
    let (mut a, mut b) = ([[0u32; 4]; 4], [[0u32; 4]; 4]);
    // SAFETY: forwarded; offsets come from the layouts (inside the tiles, 16-byte rows).
    unsafe {
        unroll4!(mi => {
            let (row, col) = (wm * WM + 16 * mi + A_X4.tile_addr_rc(lane).0, 16 * k16 + A_X4.tile_addr_rc(lane).1);
            a[mi as usize] = ldmatrix_x4(s_a + 2 * la.offset(row, col));
        });
        unroll4!(nj => {
            let (row, col) = (16 * k16 + B_X4.tile_addr_rc(lane).0, wn * WN + 16 * nj + B_X4.tile_addr_rc(lane).1);
            b[nj as usize] = ldmatrix_x4_trans(s_b + 2 * lb.offset(row, col));
        });
    }
    (a, b)
}

/// The 32 `mma.m16n8k16` of one k16 step: `acc[mi][ni] += a[mi] · b[ni / 2] (half ni % 2)`.
///
/// # Safety
/// All 32 lanes of the warp call it together (`mma.sync` is warp-collective).
#[inline(always)]
pub(crate) unsafe fn mma_frags<A: Accumulator>(acc: &mut A, (a, b): &Frags) {
    // SAFETY: forwarded to the caller.
    unsafe {
        unroll4!(mi => {
            unroll8!(ni => {
                let (q, r) = ((ni / 2) as usize, 2 * (ni % 2) as usize);
                acc.mma(mi as usize, ni as usize, a[mi as usize], [b[q][r], b[q][r + 1]]);
            });
        });
    }
}

/// One stage's K tile of the warp's 64×64: `C::K16_PER_STAGE` k16 steps (2 or 4: a 32- or 64-deep
/// tile) of 4 `ldmatrix.x4` (A), 4 `ldmatrix.x4.trans` (B) and 32 `mma.m16n8k16`, fully unrolled.
///
/// # Safety
/// All 32 lanes of every warp call it; the tiles at `s_a`, `s_b` are complete (after a barrier).
#[inline(always)]
pub(crate) unsafe fn compute_k16s<C: BlockConfig>(acc: &mut C::Acc, s_a: u32, s_b: u32, la: &impl Layout, lb: &impl Layout) {
    // Fully unrolled (constant indices only), so the 128 accumulators stay in registers.
    const { assert!(C::K16_PER_STAGE == 2 || C::K16_PER_STAGE == 4) };
    // SAFETY: collective calls by full warps on complete tiles (caller contract).
    unsafe {
        unroll4!(k16 => { if k16 < C::K16_PER_STAGE {
            let f = load_frags(s_a, s_b, k16, la, lb);
            mma_frags(acc, &f);
        }});
    }
}

/// Writes the warp's accumulators to `c` as f16 (round to nearest), 32 bits per fragment pair, guarded.
///
/// # Safety
/// `c` is a writable row-major `m × n` f16 matrix with `n % 8 == 0`.
#[inline(always)]
pub(crate) unsafe fn store_c<A: Accumulator>(c: *mut u16, m: u32, n: u32, m0: u32, n0: u32, acc: &A) {
    let tid = thread_idx_x();
    let (warp, lane) = (tid / 32, tid % 32);
    let (wm, wn) = (warp / (BN / WN), warp % (BN / WN));
    unroll4!(mi => {
        unroll8!(ni => {
            unroll2!(h => {
                // Pair h (c_2h, c_2h+1) of m16n8 tile (mi, ni); this grouping and order keep the PTX as it was.
                let (fr, fc) = MmaM16N8K16::c_rc(lane, 2 * h);
                let col = n0 + wn * WN + (8 * ni + fc);
                let row = m0 + wm * WM + (16 * mi + fr);
                if row < m && col < n {
                    // SAFETY: in bounds; col even and n even, so the 32-bit store is aligned.
                    unsafe { *(c.add(row as usize * n as usize + col as usize) as *mut u32) = acc.packed(mi as usize, ni as usize, h as usize) };
                }
            });
        });
    });
}

/// v2–v4's main loop ([`Unpipelined`]): load a K tile into registers, store it to shared memory,
/// barrier, compute, barrier. Only the layouts differ between those steps.
///
/// # Safety
/// 256 threads, dynamic shared memory of `2 · (la.size() + lb.size())` bytes (16-byte aligned), grid
/// `(ceil(N / 256), ceil(M / 128))`; `a`, `b`, `c` hold M·K, K·N, M·N f16, 16-byte aligned; `k % 8 == 0`,
/// `n % 8 == 0`.
#[inline(always)]
pub(crate) unsafe fn run_sync(a: *const u16, b: *const u16, c: *mut u16, m: u32, n: u32, k: u32,
                              la: &impl Layout, lb: &impl Layout, bm: u32, bn: u32) {
    let s_a = shared::addr_of(shared::dynamic::<shared::Align16>());
    let s_b = s_a + 2 * la.size();
    let (m0, n0) = (bm * BM, bn * BN);
    let mut acc: Acc = [[[0.0; 4]; 8]; 4];
    // SAFETY: forwarded launch contract; uniform loop bound (every thread reaches every barrier).
    unsafe {
        let mut k0 = 0;
        while k0 < k {
            let v = fetch(a, b, m, n, k, m0, n0, k0);
            store_tiles(s_a, s_b, &v, la, lb);
            crate::prim::sync::sync_threads();
            compute_k16s::<Unpipelined>(&mut acc, s_a, s_b, la, lb);
            crate::prim::sync::sync_threads();
            k0 += BK;
        }
        store_c(c, m, n, m0, n0, &acc);
    }
}

//! The body of the skinny SGEMM steps (v13, v33, v34; introduced by v13, whose file explains the schedule):
//! a block streams a 32-column strip of B once for at most 16 rows of C, its 256 threads splitting K
//! (32 groups × 8 lanes, each lane four columns), the groups' sums met in shared memory. What differs
//! between the steps is which four columns of the strip a lane owns ([`StripCols`]): v13's four
//! consecutive ones, read as one `ld.global.nc.v4.f32` (N % 4 == 0 for the interior loop), or v33's
//! columns `lane + 8j`, four scalar loads a row that each read 32 contiguous bytes across the 8 lanes
//! (any N).
use super::elementwise::{add4_if, fma, load_or_zero, load4_or_zero, store_if, store4_if};
use crate::util::unroll::{unroll4, unroll16};
use crate::prim::{
    atomic::red_add_relaxed_gpu_f32,
    global::{ld_global_nc_f32, ld_global_nc_v4_f32},
    shared::{self, ld_shared_v4_f32, st_shared_v4_f32},
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, grid_dim_x, grid_dim_y, thread_idx_x},
    warp::shuffle_xor_f32,
};
use layout::sgemm::{SKINNY_COLS, SKINNY_GROUPS, SKINNY_KSTEP, SKINNY_LANES, SKINNY_ROWS, THREADS, skinny_block, skinny_rows, skinny_sum_word, skinny_thread};

/// Quarter-warps: the groups one warp holds (8 lanes each), and the sums one lane adds at the end.
const QUARTERS: u32 = 32 / SKINNY_LANES;

/// Which four columns of a 32-column strip lane `lane` (0..8) of a group owns, and how it reads them
/// from a row of B and writes them to C.
pub(crate) trait StripCols {
    /// Whether the interior loop needs `N % 4 == 0` (16-byte aligned rows of B).
    const NEEDS_N4: bool;
    /// Row `kr` of B at the lane's four columns of the strip at `n0`, unchecked.
    ///
    /// # Safety
    /// `kr < K`, `n0 + 32 ≤ n`, B holds `K × n` f32 not written during the kernel; with `NEEDS_N4`,
    /// `n % 4 == 0` and B 16-byte aligned.
    unsafe fn row(b: *const f32, kr: u32, n: u32, n0: u32, lane: u32) -> [f32; 4];
    /// As [`StripCols::row`], zero at rows `≥ k_end` and columns `≥ n`.
    ///
    /// # Safety
    /// B holds `k_end × n` f32 at least, not written during the kernel.
    unsafe fn row_or_zero(b: *const f32, kr: u32, k_end: u32, n: u32, n0: u32, lane: u32) -> [f32; 4];
    /// Stores (or, `add`, adds by `red.global.add.f32`) the lane's four sums `v` of row `row` of C,
    /// only inside `m × n`.
    ///
    /// # Safety
    /// C holds `m × n` f32, 16-byte aligned; with `add`, only atomic adds touch it meanwhile.
    #[allow(clippy::too_many_arguments)]
    unsafe fn put(c: *mut f32, row: u32, m: u32, n: u32, n0: u32, lane: u32, v: [f32; 4], add: bool);
}

/// v13's lanes: columns `4·lane .. 4·lane + 4`, one 16-byte load a row.
pub(crate) struct Quad;

impl StripCols for Quad {
    const NEEDS_N4: bool = true;

    #[inline(always)]
    unsafe fn row(b: *const f32, kr: u32, n: u32, n0: u32, lane: u32) -> [f32; 4] {
        // SAFETY: inside and 16-byte aligned (the contract: n % 4 == 0, n0 + 4·lane + 3 < n).
        unsafe { ld_global_nc_v4_f32(b.add(kr as usize * n as usize + (n0 + 4 * lane) as usize)) }
    }

    #[inline(always)]
    unsafe fn row_or_zero(b: *const f32, kr: u32, k_end: u32, n: u32, n0: u32, lane: u32) -> [f32; 4] {
        // SAFETY: bounds-checked against k_end × n.
        unsafe { load4_or_zero(b, kr, n0 + 4 * lane, k_end, n, n) }
    }

    #[inline(always)]
    unsafe fn put(c: *mut f32, row: u32, m: u32, n: u32, n0: u32, lane: u32, v: [f32; 4], add: bool) {
        // SAFETY: bounds-checked; the caller's contract on concurrent access.
        unsafe { if add { add4_if(c, row, n0 + 4 * lane, m, n, v) } else { store4_if(c, row, n0 + 4 * lane, m, n, n, v) } }
    }
}

/// v33's lanes: columns `lane + 8j` (j = 0..4). A row's load `j` by the 8 lanes of a group is 32
/// contiguous bytes at any alignment, so N need not be a multiple of 4.
pub(crate) struct Strided;

impl StripCols for Strided {
    const NEEDS_N4: bool = false;

    #[inline(always)]
    unsafe fn row(b: *const f32, kr: u32, n: u32, n0: u32, lane: u32) -> [f32; 4] {
        let at = kr as usize * n as usize + (n0 + lane) as usize;
        // SAFETY: inside (the contract: n0 + lane + 24 < n0 + 32 ≤ n, kr < K); 4-byte aligned.
        core::array::from_fn(|j| unsafe { ld_global_nc_f32(b.add(at + 8 * j)) })
    }

    #[inline(always)]
    unsafe fn row_or_zero(b: *const f32, kr: u32, k_end: u32, n: u32, n0: u32, lane: u32) -> [f32; 4] {
        // SAFETY: bounds-checked against k_end × n.
        core::array::from_fn(|j| unsafe { load_or_zero(b, kr, n0 + lane + 8 * j as u32, k_end, n, n) })
    }

    #[inline(always)]
    unsafe fn put(c: *mut f32, row: u32, m: u32, n: u32, n0: u32, lane: u32, v: [f32; 4], add: bool) {
        let mut j = 0;
        while j < 4 {
            let col = n0 + lane + 8 * j;
            if add {
                if row < m && col < n {
                    // SAFETY: in bounds; the caller's contract on concurrent access (atomic adds only).
                    unsafe { red_add_relaxed_gpu_f32(c.add(row as usize * n as usize + col as usize), v[j as usize]) };
                }
            } else {
                // SAFETY: bounds-checked.
                unsafe { store_if(c, row, col, m, n, n, v[j as usize]) };
            }
            j += 1;
        }
    }
}

/// The skinny kernels' body: `C = A · B` (row-major) for small M, in row groups of `GROUP` rows (16:
/// v13, v33; 4: v34), K split into `grid_dim_y / ⌈M/GROUP⌉` ranges of `k_split`, a lane's four columns
/// of each 32-column strip placed by `C`. With `GROUP = 4` only the 1- and 4-row loops are compiled.
///
/// # Safety
/// 256 threads and `SKINNY_SMEM_BYTES` of dynamic shared memory; `a`, `b`, `c` hold `M·K`, `K·N`,
/// `M·N` f32, 16-byte aligned, A and B not written meanwhile; `M ≥ 1`; grid `(⌈N/32⌉, ⌈M/GROUP⌉ ·
/// splits)` with `splits = ⌈K / k_split⌉`, `k_split` a positive multiple of 128 (or `K` itself when
/// `splits = 1`); when `splits > 1`, C is zero at launch and touched by nothing else.
#[inline(always)]
pub(crate) unsafe fn skinny<C: StripCols, const GROUP: u32>(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    const { assert!(GROUP == 4 || GROUP == SKINNY_ROWS) };
    let row_groups = m.div_ceil(GROUP).max(1); // >= 1: the divisions below cannot trap
    let (y, split) = (block_idx_y() % row_groups, block_idx_y() / row_groups);
    let add = grid_dim_y() / row_groups > 1;
    let (gm, strip) = skinny_block(y * grid_dim_x() + block_idx_x(), row_groups);
    let (m0, n0) = (gm * GROUP, strip * SKINNY_COLS);
    let k_begin = split * k_split;
    let k_end = if k - k_begin < k_split { k } else { k_begin + k_split };
    // Uniform per block: every load of the strip and the K range is inside and aligned as `C` needs.
    let interior = n0 + SKINNY_COLS <= n && (!C::NEEDS_N4 || n % 4 == 0) && k % 4 == 0 && (k_end - k_begin) % SKINNY_KSTEP == 0;
    // SAFETY: forwarded; `INTERIOR = true` only when the test above holds; `m0 < M` (gm < ⌈M/GROUP⌉);
    // a block computes at most GROUP rows (at most 4 rows left take the 4-row loop).
    unsafe {
        if GROUP == 4 {
            match (skinny_rows(m - m0), interior) {
                (1, true) => strip_sums::<1, true, C>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
                (1, false) => strip_sums::<1, false, C>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
                (_, true) => strip_sums::<4, true, C>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
                (_, false) => strip_sums::<4, false, C>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
            }
        } else {
            match (skinny_rows(m - m0), interior) {
                (1, true) => strip_sums::<1, true, C>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
                (1, false) => strip_sums::<1, false, C>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
                (4, true) => strip_sums::<4, true, C>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
                (4, false) => strip_sums::<4, false, C>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
                (8, true) => strip_sums::<8, true, C>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
                (8, false) => strip_sums::<8, false, C>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
                (_, true) => strip_sums::<16, true, C>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
                (_, false) => strip_sums::<16, false, C>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
            }
        }
    }
}

/// One pass of a thread: its `ROWS × 4` sums += A's rows (`a_quad(r, kq)`: k `kq .. kq+4` of row r) ×
/// the four rows `g_b` of B at its columns. Unrolled by constants (a loop LLVM kept would index `r_acc`
/// dynamically: local memory), and a function forced inline: as a closure, once the body became
/// generic over [`StripCols`], LLVM left it a call and the sums went through a 400-byte stack frame.
#[inline(always)]
fn pass<const ROWS: usize>(r_acc: &mut [[f32; 4]; ROWS], kq: u32, g_b: &[[f32; 4]; 4], a_quad: &impl Fn(u32, u32) -> [f32; 4]) {
    unroll16!(r => {
        if (r as usize) < ROWS {
            let g_a = a_quad(r, kq);
            unroll4!(i => {
                unroll4!(j => {
                    r_acc[r as usize][j as usize] = fma(g_a[i as usize], g_b[i as usize][j as usize], r_acc[r as usize][j as usize]);
                });
            });
        }
    });
}

/// The block's `ROWS × 32` outputs over `k_begin .. k_end`, stored (or added, `add`) into C, each
/// lane's four columns placed by `C` ([`StripCols`]).
///
/// # Safety
/// As [`skinny`]; `m0 < M`; with `INTERIOR`, `n0 + 32 ≤ N`, `K % 4 == 0`, `k_end − k_begin` a
/// multiple of 128 and, where `C::NEEDS_N4`, `N % 4 == 0`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn strip_sums<const ROWS: usize, const INTERIOR: bool, C: StripCols>(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, m0: u32, n0: u32,
                                                              k_begin: u32, k_end: u32, add: bool) {
    let tid = thread_idx_x();
    let (g, lane) = skinny_thread(tid);
    // Rows past M read the last row of A (a valid address) and are never stored.
    let row = |r: u32| if m0 + r < m { m0 + r } else { m - 1 };
    let mut r_acc = [[0.0f32; 4]; ROWS];
    // SAFETY: interior loads are inside B (kq + 3 < k_end <= K, the strip inside N) and aligned as
    // `C` needs (`C::row`'s contract); edge loads are bounds-checked.
    let b_rows = |kq: u32| -> [[f32; 4]; 4] {
        core::array::from_fn(|i| unsafe {
            if INTERIOR { C::row(b, kq + i as u32, n, n0, lane) } else { C::row_or_zero(b, kq + i as u32, k_end, n, n0, lane) }
        })
    };
    // SAFETY: A's rows clamped into A; interior: k `kq .. kq+4` inside and 16-byte aligned (K and kq
    // multiples of 4); edge loads bounds-checked.
    let a_quad = |r: u32, kq: u32| -> [f32; 4] {
        unsafe {
            if INTERIOR { ld_global_nc_v4_f32(a.add(row(r) as usize * k as usize + kq as usize)) }
            else { load4_or_zero(a, row(r), kq, m, k_end, k) }
        }
    };
    let mut kq = k_begin + 4 * g;
    if ROWS <= 8 {
        // Two passes per iteration: B's eight float4 loads issued before the first FMA.
        while kq + SKINNY_KSTEP < k_end {
            let (b0, b1) = (b_rows(kq), b_rows(kq + SKINNY_KSTEP));
            pass(&mut r_acc, kq, &b0, &a_quad);
            pass(&mut r_acc, kq + SKINNY_KSTEP, &b1, &a_quad);
            kq += 2 * SKINNY_KSTEP;
        }
    }
    // 16 rows (and the last pass of fewer): one pass per iteration (see the module doc: loading the
    // next pass's B first was slower).
    while kq < k_end {
        let b0 = b_rows(kq);
        pass(&mut r_acc, kq, &b0, &a_quad);
        kq += SKINNY_KSTEP;
    }
    // The 32 groups' sums through shared memory; warp w adds rows w, w + 8 (every lane the sums of
    // groups `quarter + 4i`), the quarters meet by shuffles, quarter 0 stores.
    let s_sums = shared::addr_of(shared::dynamic::<shared::Align16>());
    let (warp, quarter, ln) = (tid / 32, (tid % 32) / SKINNY_LANES, tid % SKINNY_LANES);
    // SAFETY: `skinny_sum_word` stays inside SKINNY_SMEM_BYTES (layout test) and is 16-byte aligned;
    // every thread reaches the barrier; the loop over rows is uniform per warp (all 32 lanes shuffle);
    // stores are bounds-checked (`C::put`), and with `add` only these adds touch C.
    unsafe {
        unroll16!(r => {
            if (r as usize) < ROWS {
                st_shared_v4_f32(s_sums + 4 * skinny_sum_word(g, r, lane), r_acc[r as usize]);
            }
        });
        sync_threads();
        let mut r = warp;
        while r < ROWS as u32 {
            let mut s = [0.0f32; 4];
            for i in 0..SKINNY_GROUPS / QUARTERS {
                let v = ld_shared_v4_f32(s_sums + 4 * skinny_sum_word(quarter + QUARTERS * i, r, ln));
                for e in 0..4 {
                    s[e] += v[e];
                }
            }
            let mut mask = SKINNY_LANES;
            while mask < 32 {
                for e in 0..4 {
                    s[e] += shuffle_xor_f32(s[e], mask);
                }
                mask *= 2;
            }
            if quarter == 0 {
                C::put(c, m0 + r, m, n, n0, ln, s, add);
            }
            r += THREADS / 32;
        }
    }
}


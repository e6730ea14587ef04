//! v13 — skinny M (decode, small prefill): each block streams a 32-column strip of B once, all its
//! threads splitting K, for at most 16 rows of C.
//!
//! Change from v12: no 128×128 tile, no shared-memory staging of A and B. A block owns C rows
//! `m0 .. m0+16` and columns `n0 .. n0+32`; its 256 threads are 32 groups × 8 lanes
//! (`layout::sgemm::skinny_thread`): lane l keeps the sums of columns `4l .. 4l+4` for the block's rows
//! (`16 × 4` at most) and group g takes k `4g .. 4g+4` of every 128 (one *pass*). Per pass a thread
//! loads 4 rows × 4 columns of B (four `ld.global.nc.v4`; each B element is read by exactly one
//! thread, once) and for each row one float4 of A (4 consecutive k; the 8 lanes of a group read the
//! same address), then makes `rows × 16` FMAs. At the end the 32 groups' sums meet in shared memory
//! (`skinny_sum_word`, conflict-free) and each warp adds them for two rows (8 conflict-free
//! `ld.shared.v4` and two shuffles per lane). Rows past M read a valid row of A (clamped) and are
//! dropped at the store; the loop is compiled for 1, 4, 8 or 16 rows (`skinny_rows`), so M = 1 makes
//! one row's FMAs. K is split across blocks only when the blocks (row groups × strips)
//! are at most half the SMs (`layout::sgemm::SKINNY_SPLIT`); the splits then add into a zeroed C as v12's do.
//!
//! Why: at M ≤ 64 a 128-row tile computes mostly rows that do not exist (v12 at 64×4096²: 61% of
//! cuBLAS, H100) and at M ≤ 16 the product is a read of B: what counts is bytes of B in flight, not
//! FMAs. Here every SM streams its own strips of B with 32 KiB of loads in flight per block.
//! Predicted (H100, weights beyond L2): M = 1 … 16 at ≥ 85% of the same run's copy bandwidth and
//! ≥ 1.0× cuBLAS; M = 64 (four row groups reading each strip from L2) ≥ 0.9× cuBLAS.
//! Measured (H100, `results/2026-11-23-h100-session10/`, interleaved with cuBLAS, held timing): M = 1,
//! 4, 16 × 4096² at 101%, 244%, 213% of cuBLAS (91%, 88%, 65% of the copy bandwidth: right at M ≤ 4,
//! short at 16); 1–16 × 4096×14336 100–113%, 1–16 × 14336×4096 91–92%; but M = 32 72% and M = 64 51%
//! (v12 also 51%; v14 then took 48 ≤ M), 128–256 × 4096² 45% — the prediction held for decode and failed from M = 32 on,
//! where the row groups re-read B and one block per SM (ptxas wants 240 registers for 16 rows: capped
//! at 128 it spilled 300–800 bytes) leaves 8 warps to hide it.
//!
//! Tried and reverted: at 16 rows a pass loads its B and then computes, one pass in flight (16 KiB of
//! loads per SM), and M = 16 reads B at 65% of the copy bandwidth where M = 4 (two passes in flight)
//! reads at 88%. Loading the next pass's B before this pass's FMAs (226–254 registers, no spill) was
//! predicted to bring M = 16 to ≈ 80–85% of copy and M = 32 from 73% to ≈ 85% of cuBLAS; it made them
//! slower (`call7-v13-pipelined`: 16×4096² 37 → 39 µs, 32×4096² 62 → 70 µs, 16×14336×4096 134 → 146 µs).
//! Two whole passes per iteration at 16 rows put the sums in local memory (464-byte stack frame).
use super::elementwise::{add4_if, fma, load4_or_zero, store4_if};
use crate::launch_bounds::launch_bounds;
use crate::util::unroll::{unroll4, unroll16};
use crate::prim::{
    global::ld_global_nc_v4_f32,
    shared::{self, ld_shared_v4_f32, st_shared_v4_f32},
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, grid_dim_x, grid_dim_y, thread_idx_x},
    warp::shuffle_xor_f32,
};
use layout::sgemm::{SKINNY_COLS, SKINNY_GROUPS, SKINNY_KSTEP, SKINNY_LANES, SKINNY_ROWS, THREADS, skinny_block, skinny_rows, skinny_sum_word, skinny_thread};

/// Quarter-warps: the groups one warp holds (8 lanes each), and the sums one lane adds at the end.
const QUARTERS: u32 = 32 / SKINNY_LANES;

/// `C = A · B` (row-major) for small M, K split into `grid_dim_y / ⌈M/16⌉` ranges of `k_split`.
///
/// # Safety
/// 256 threads and `SKINNY_SMEM_BYTES` of dynamic shared memory; `a`, `b`, `c` hold `M·K`, `K·N`,
/// `M·N` f32, 16-byte aligned, A and B not written meanwhile; `M ≥ 1`; grid `(⌈N/32⌉, ⌈M/16⌉ ·
/// splits)` with `splits = ⌈K / k_split⌉`, `k_split` a positive multiple of 128 (or `K` itself when
/// `splits = 1`); when `splits > 1`, C is zero at launch and touched by nothing else.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn sgemm_v13(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, k_split: u32) {
    let row_groups = m.div_ceil(SKINNY_ROWS).max(1); // >= 1: the divisions below cannot trap
    let (y, split) = (block_idx_y() % row_groups, block_idx_y() / row_groups);
    let add = grid_dim_y() / row_groups > 1;
    let (gm, strip) = skinny_block(y * grid_dim_x() + block_idx_x(), row_groups);
    let (m0, n0) = (gm * SKINNY_ROWS, strip * SKINNY_COLS);
    let k_begin = split * k_split;
    let k_end = if k - k_begin < k_split { k } else { k_begin + k_split };
    // Uniform per block: every load of the strip and the K range is inside and 16-byte aligned.
    let interior = n0 + SKINNY_COLS <= n && n % 4 == 0 && k % 4 == 0 && (k_end - k_begin) % SKINNY_KSTEP == 0;
    // SAFETY: forwarded; `INTERIOR = true` only when the test above holds; `m0 < M` (gm < ⌈M/16⌉).
    unsafe {
        match (skinny_rows(m - m0), interior) {
            (1, true) => strip_sums::<1, true>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
            (1, false) => strip_sums::<1, false>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
            (4, true) => strip_sums::<4, true>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
            (4, false) => strip_sums::<4, false>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
            (8, true) => strip_sums::<8, true>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
            (8, false) => strip_sums::<8, false>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
            (_, true) => strip_sums::<16, true>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
            (_, false) => strip_sums::<16, false>(a, b, c, m, n, k, m0, n0, k_begin, k_end, add),
        }
    }
}

/// The block's `ROWS × 32` outputs over `k_begin .. k_end`, stored (or added, `add`) into C.
///
/// # Safety
/// As [`sgemm_v13`]; `m0 < M`; with `INTERIOR`, `n0 + 32 ≤ N`, `N % 4 == 0`, `K % 4 == 0` and
/// `k_end − k_begin` a multiple of 128.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn strip_sums<const ROWS: usize, const INTERIOR: bool>(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, m0: u32, n0: u32,
                                                              k_begin: u32, k_end: u32, add: bool) {
    let tid = thread_idx_x();
    let (g, lane) = skinny_thread(tid);
    let col = n0 + 4 * lane;
    // Rows past M read the last row of A (a valid address) and are never stored.
    let row = |r: u32| if m0 + r < m { m0 + r } else { m - 1 };
    let mut r_acc = [[0.0f32; 4]; ROWS];
    // SAFETY: interior loads are inside A and B and 16-byte aligned (k, kq multiples of 4 with
    // kq + 3 < k_end <= K, col + 3 < N, N % 4 == 0); edge loads are bounds-checked.
    let b_rows = |kq: u32| -> [[f32; 4]; 4] {
        core::array::from_fn(|i| unsafe {
            if INTERIOR { ld_global_nc_v4_f32(b.add((kq + i as u32) as usize * n as usize + col as usize)) }
            else { load4_or_zero(b, kq + i as u32, col, k_end, n, n) }
        })
    };
    // SAFETY: as above, for A's rows (clamped into A) and k `kq .. kq+4`.
    let a_quad = |r: u32, kq: u32| -> [f32; 4] {
        unsafe {
            if INTERIOR { ld_global_nc_v4_f32(a.add(row(r) as usize * k as usize + kq as usize)) }
            else { load4_or_zero(a, row(r), kq, m, k_end, k) }
        }
    };
    // Unrolled by constants (a loop LLVM kept would index `r_acc` dynamically: local memory).
    let pass = |r_acc: &mut [[f32; 4]; ROWS], kq: u32, g_b: &[[f32; 4]; 4]| {
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
    };
    let mut kq = k_begin + 4 * g;
    if ROWS <= 8 {
        // Two passes per iteration: B's eight float4 loads issued before the first FMA.
        while kq + SKINNY_KSTEP < k_end {
            let (b0, b1) = (b_rows(kq), b_rows(kq + SKINNY_KSTEP));
            pass(&mut r_acc, kq, &b0);
            pass(&mut r_acc, kq + SKINNY_KSTEP, &b1);
            kq += 2 * SKINNY_KSTEP;
        }
    }
    // 16 rows (and the last pass of fewer): one pass per iteration (see the module doc: loading the
    // next pass's B first was slower).
    while kq < k_end {
        let b0 = b_rows(kq);
        pass(&mut r_acc, kq, &b0);
        kq += SKINNY_KSTEP;
    }
    // The 32 groups' sums through shared memory; warp w adds rows w, w + 8 (every lane the sums of
    // groups `quarter + 4i`), the quarters meet by shuffles, quarter 0 stores.
    let s_sums = shared::addr_of(shared::dynamic::<shared::Align16>());
    let (warp, quarter, ln) = (tid / 32, (tid % 32) / SKINNY_LANES, tid % SKINNY_LANES);
    // SAFETY: `skinny_sum_word` stays inside SKINNY_SMEM_BYTES (layout test) and is 16-byte aligned;
    // every thread reaches the barrier; the loop over rows is uniform per warp (all 32 lanes shuffle);
    // stores are bounds-checked (`store4_if`, `add4_if`), and with `add` only these adds touch C.
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
                if add { add4_if(c, m0 + r, n0 + 4 * ln, m, n, s) } else { store4_if(c, m0 + r, n0 + 4 * ln, m, n, n, s) }
            }
            r += THREADS / 32;
        }
    }
}

// One block per SM: ptxas wants 240 registers for the 16-row loop (capped at 128 for two blocks it
// spilled 300-800 bytes).
launch_bounds!(sgemm_v13, 256, 1);

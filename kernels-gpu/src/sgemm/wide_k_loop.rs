//! The wide-K main loop of the SGEMM ladder (introduced by v7, whose file explains it; used by v7, v8,
//! v9, v11, v12, v20 and, with 64- and 32-row tiles, v14–v16 and v19; v17/v18's loop, `b_ring_loop`, takes its
//! stage products, epilogue and split-K block indexing from here): 16-deep K stages double-buffered in shared memory, the next stage fetched into registers
//! during compute, fragments of the next k read before the current k's FMAs (ping-pong), and plain
//! 128-bit loads for blocks whose tile lies inside the matrices. What the steps vary: the thread →
//! output mapping ([`FragMap`], `frag_map`), the block order (v8) and when the interior test is made
//! ([`Interior`], v11), and whether one loop serves the whole launch (v19, v20: the clamped interior loops).
use super::frag_map::{FragMap, WarpTiled};
use super::elementwise::{add4_if, add4v_if, add4w_if, fma, load4_or_zero, store4_if};
use crate::prim::{cp_async::{cp_async_ca_4, cp_async_ca_4_zfill, cp_async_commit_group, cp_async_wait_group}, global::ld_global_nc_v4_f32, shared, sync::sync_threads,
                  thread::{block_idx_x, block_idx_y, grid_dim_x, grid_dim_y, thread_idx_x}};
use crate::util::grouped::{GROUP, grouped_block};
use crate::util::unroll::{unroll2, unroll4, unroll8};
use core::marker::ConstParamTy;

/// `acc += a ⊗ b` for one k: 64 FMAs.
#[inline(always)]
pub(crate) fn outer_product(acc: &mut [[f32; 8]; 8], (a, b): &([f32; 8], [f32; 8])) {
    for i in 0..8 {
        for j in 0..8 {
            acc[i][j] = fma(a[i], b[j], acc[i][j]);
        }
    }
}
use layout::Layout;
use layout::sgemm::{BK_WIDE, BM, BN, a_tile_t_wide_rows, b_tile_wide, stage_words};

/// One block's tile `(bm, bn)` of `C = A · B`.
///
/// # Safety
/// 256 threads, `2 · (16·132 + 16·128) · 4` bytes of dynamic shared memory; `a`, `b`, `c` hold
/// `M·K`, `K·N`, `M·N` f32, 16-byte aligned; `bm < ceil(M / 128)`, `bn < ceil(N / 128)`.
#[inline(always)]
pub(crate) unsafe fn block_tile<F: FragMap>(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32, bm: u32, bn: u32) {
    // SAFETY: forwarded; `Interior::Runtime` decides per block, as every step up to v9 did.
    unsafe { block_tile_as::<F, { Interior::RUNTIME }, { Epi::STORE }, BM, 4>(a, b, c, m, n, k, bm, bn, 0, k) }
}

/// How [`block_tile_as`]'s sums reach C (its `EPI`): one of the named forms below.
///
/// A named `u8` rather than an enum: rustc orders the crate's functions by mangled symbol, and an
/// instance's symbol spells its const arguments — a `u8` inside this type is spelled (and ordered) as
/// the bare `u8`s these forms were, so the kernels' PTX did not move (an enum, spelled by variant name,
/// reordered `block_tile_as`'s instances and changed v11–v20's PTX). Likewise [`Interior`].
#[derive(ConstParamTy, PartialEq, Eq, Clone, Copy)]
pub(crate) struct Epi(u8);

impl Epi {
    /// Stored, each guarded by M and N (one K range per tile: v7–v11, and split-K steps with one split).
    pub(crate) const STORE: Epi = Epi(0);
    /// Added with `red.global.add.f32` into a C zeroed before the launch (v12's split-K).
    pub(crate) const ADD: Epi = Epi(1);
    /// `griddepcontrol.wait`, then added as `ADD`: C was zeroed by the grid launched just before this
    /// one, which this grid may overlap under programmatic dependent launch (v21, v22, and the forms below; sm_90). The
    /// wait returns once that grid has completed and its stores are visible.
    pub(crate) const WAIT_ADD: Epi = Epi(2);
    /// `WAIT_ADD` with each thread's four consecutive sums added by one `red.global.add.v4.f32` (sm_90:
    /// a quarter of the L2 reductions; v23, v24), four scalar adds where N is off 4 or past the edge.
    pub(crate) const WAIT_ADD_V4: Epi = Epi(3);
    /// `WAIT_ADD_V4` for any N: the four sums in the widest reductions each address allows (v25: a
    /// `.v4`, two `.v2`, or a scalar, a `.v2` and a scalar, by the element's alignment).
    pub(crate) const WAIT_ADD_WIDE: Epi = Epi(4);

    /// Whether `epi` is one of the `WAIT_` forms: its grid may start before the previous one completes,
    /// so it waits (`griddepcontrol.wait`) before touching C — or, with one split, before anything.
    pub(crate) const fn waits(epi: Epi) -> bool {
        epi.0 >= Self::WAIT_ADD.0
    }
}

/// `is!(P, A | B)`: whether the const parameter `P` (an [`Interior`] or [`Epi`]) is `A` or `B`, as
/// `P == A || P == B` on their `u8`s — the MIR the bare `u8` modes gave (a `matches!`, or the derived
/// `==`, builds other branches and moved the PTX).
macro_rules! is {
    ($p:ident, $($v:path)|+) => {
        ($(const { $p.0 } == const { $v.0 })||+)
    };
}

/// `is_not!(P, A)`: `P != A` as `is!` compares (`!is!` lays its branches out the other way round).
macro_rules! is_not {
    ($p:ident, $v:path) => {
        (const { $p.0 } != const { $v.0 })
    };
}

/// How [`block_tile_as`] knows whether the block's tile lies wholly inside A, B and C (its `MODE`):
/// one of the named modes below (a named `u8`, as [`Epi`] says why).
#[derive(ConstParamTy, PartialEq, Eq, Clone, Copy)]
pub(crate) struct Interior(u8);

impl Interior {
    /// Decided at run time inside the loop (one uniform branch per K stage): v7–v9.
    pub(crate) const RUNTIME: Interior = Interior(0);
    /// Known interior: the loop has no bounds logic at all (v11's main path).
    pub(crate) const YES: Interior = Interior(1);
    /// Known edge: every load predicated (v11's ragged blocks).
    pub(crate) const NO: Interior = Interior(2);
    /// The tile is inside and K, N are multiples of 4, but the K range ends off a 16-k stage (v14 at
    /// K = 1000): every full stage unpredicated, the last partial one predicated (one uniform test
    /// per stage, `k0 + 16 ≤ k_end`).
    pub(crate) const K_TAIL: Interior = Interior(3);
    /// An edge tile (past M or N) or N off 4, with K a multiple of 4 (v16): every full stage loads
    /// without predicates — A's rows past M read row M − 1 and B's columns past N read columns inside
    /// N (their products reach only rows and columns of C that are never stored), B element by element
    /// when N is off 4 — and the last partial stage predicated as under `K_TAIL`.
    pub(crate) const CLAMP: Interior = Interior(4);
    /// `YES`'s loop (K % 16 == 0, N % 4 == 0) on any tile, its base row and column clamped into the
    /// matrices once (`min(row, M − 1)`, `min(col, N − 4)`): an edge tile runs the interior tiles'
    /// instructions (v19), its rows and columns past M and N computing products that are never stored.
    pub(crate) const YES_CLAMPED: Interior = Interior(5);
    /// `K_TAIL`'s loop (K % 4 == 0, N % 4 == 0) with `YES_CLAMPED`'s clamped base on any tile (v19).
    pub(crate) const K_TAIL_CLAMPED: Interior = Interior(6);
    /// `YES_CLAMPED`'s loop (K, k_end % 16 == 0) for N off 4 (v29): A's row clamped as there, B read as
    /// four scalar loads from the thread's own column, **not clamped** — columns past N read the next
    /// row's first elements (inside B, products never stored) — except in the stage that holds B's last
    /// row, which runs `CLAMP`'s element-wise clamped loads (the only one whose reads past N would leave B).
    pub(crate) const YES_ODD_N: Interior = Interior(7);
    /// `YES_ODD_N` with B's four elements per thread taken **across the warp** (v30): columns `lane`,
    /// `lane + 32`, `lane + 64`, `lane + 96` of the tile, so each warp load reads one run of 128 bytes
    /// (two L1 lines) instead of four 4-byte pieces of each 16 bytes over 512 (five lines), and each
    /// element is stored to shared memory on its own (a warp's 32 consecutive words: conflict-free).
    /// The stage holding B's last row clamps each column into N, in the same mapping.
    pub(crate) const YES_ODD_N_LANES: Interior = Interior(8);
    /// `YES_ODD_N_LANES` with B copied **global → shared by `cp.async`** word by word (v31), in the same
    /// lane mapping, straight into the stage the next K step reads: no registers in between and no
    /// `st.shared` for B. The copies of the next stage are issued before this stage's FMAs and awaited
    /// (`cp.async.wait_group 0`) before the barrier that ends the step, as the registers' store was.
    pub(crate) const YES_ODD_N_ASYNC: Interior = Interior(9);
    /// `YES_ODD_N_ASYNC` for K off 16 with K % 4 == 0 and N ≥ 32 (v32): every full stage as there, the
    /// last partial stage of the range predicated — A's float4s past `k_end` zero (`load4_or_zero`), B's
    /// rows past `k_end` zero-filled by `cp.async` (nothing read), its columns clamped into N. (With K
    /// and `k_end` multiples of 16 v32's launches run `YES_ODD_N_ASYNC` itself.)
    pub(crate) const YES_ODD_N_ASYNC_TAIL: Interior = Interior(10);
}

/// How [`split_k_tile`] picks each block's loop ([`Interior`]): its `SELECT`.
#[derive(ConstParamTy, PartialEq, Eq, Clone, Copy)]
pub(crate) enum LoopSelect {
    /// Per tile: `YES` (`K_TAIL` when K is off 16) for a tile inside M and N with N % 4 == 0, the
    /// predicated `NO` for every other tile (v14, v15).
    PerTile,
    /// `PerTile` with the tiles that are not inside (or N off 4) on `CLAMP` where K % 4 == 0 (v16).
    PerTileClampedEdges,
    /// Per launch: every block on one loop, [`uniform_tile`]'s (v19: the clamped interior loops, `CLAMP`
    /// for N off 4).
    PerLaunch,
}

/// [`block_tile`] with the interior question answered by `MODE` ([`Interior`]); with `YES` the caller
/// guarantees what the run-time test checks (`m0 + ROWS ≤ M`, `n0 + 128 ≤ N`, `K % 16 == 0`, `N % 4 == 0`);
/// with `K_TAIL`, the same with `K % 4 == 0` in place of `K % 16 == 0` (and any `k_end`); with
/// `YES_CLAMPED` / `K_TAIL_CLAMPED` those guarantees but for the tile's place (any tile).
/// Over the K range `k_begin .. k_end` (v7–v11: `0 .. K`), the results stored (`EPI = Epi::STORE`) or
/// added to C with `red.global.add.f32` (`Epi::ADD`: v12's split-K, C zeroed before the launch;
/// `Epi::WAIT_ADD`: the same after `griddepcontrol.wait`, C zeroed by the previous grid). The block
/// computes `ROWS × 128` of C with `2·ROWS` threads: `ROWS = 128` (v7–v12: 8 warps), 64 (v14: the
/// first 4 warps of the same warp tiling; B's 16×128 stage then takes 4 float4 loads per thread, not 2)
/// or 32 (v15: the first 2 warps, 8 float4 loads of B per thread).
///
/// # Safety
/// As [`block_tile`] with `2·ROWS` threads and `2 · (16·(ROWS+4) + 16·128) · 4` bytes of shared memory,
/// plus that guarantee for `MODE == Interior::YES` or `YES_CLAMPED` (and `k_end % 16 == 0` then) or
/// `K_TAIL` / `K_TAIL_CLAMPED`, and `K % 4 == 0` for `CLAMP`; `k_begin % 16 == 0`,
/// `k_begin < k_end <= K`; with `Epi::ADD`, C is zero at launch and nothing but these adds touches it
/// meanwhile; with `Epi::WAIT_ADD`, the same once the grid this one depends on (by programmatic
/// dependent launch, or none) has completed: nothing before the wait touches C, and A and B are not
/// written by that grid (sm_90).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn block_tile_as<F: FragMap, const MODE: Interior, const EPI: Epi, const ROWS: u32, const LOADS: usize>(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32,
                                                                                               bm: u32, bn: u32, k_begin: u32, k_end: u32) {
    let (la, lb) = (a_tile_t_wide_rows(ROWS), b_tile_wide());
    let stage = stage_words(&la, &lb);
    let base = shared::addr_of(shared::dynamic::<shared::Align16>());
    let tid = thread_idx_x();
    let (m0, n0) = (bm * ROWS, bn * BN);
    // Loader mapping: float4 `i` (0, 1) of A is rows `tid / 2`, k `(tid % 2)·4 + 8·i` (as v5, whose
    // transposed stores hit 32 distinct banks); of B, k `tid / 32 + (threads/32)·i` (i < 512/threads),
    // columns `(tid % 32)·4`.
    let (am, ak) = (tid / 2, (tid % 2) * 4);
    let (bk, bn4) = (tid / 32, (tid % 32) * 4);
    // B float4s per thread and the k between them: 2 and 8 (256 threads), 4 and 4 (128), 8 and 2 (64). `LOADS` (the
    // fetched float4s: A's 2 and B's) is a parameter so each size's arrays are exactly that long.
    let (b_loads, b_step) = ((BK_WIDE * BN / 4) / (2 * ROWS), 2 * ROWS / 32);
    const { assert!(LOADS == 2 + ((BK_WIDE * BN / 4) / (2 * ROWS)) as usize, "LOADS = 2 + B's float4s per thread") };
    let sa = |s: u32| base + 4 * s * stage;
    let sb = |s: u32| base + 4 * (s * stage + la.rows * la.stride);
    let mut acc = [[0.0f32; 8]; 8];
    // SAFETY: as v6: shared offsets from the layouts (k < 16, m < ROWS, n < 128; rows 16-byte aligned),
    // global loads predicated or, on interior blocks, provably inside and aligned (m0 + ROWS <= M,
    // n0 + 128 <= N, N % 4 == 0, and K % 16 == 0 — or, under K_TAIL, K % 4 == 0 with only the stages
    // that end at or before k_end unpredicated — so every float4 is in bounds and 16-byte aligned;
    // under CLAMP the full stages' rows min(row, M − 1) and columns min(col, N − 4) (N % 4 == 0) or
    // min(col + c, N − 1) are inside, k < k_end ≤ K, and K % 4 == 0 aligns A's float4s; under
    // YES_CLAMPED / K_TAIL_CLAMPED the interior loop's loads from row min(row, M − 1) and column
    // min(col, N − 4), inside and aligned by the same argument with N % 4 == 0; under YES_ODD_N A as
    // YES_CLAMPED, and B's four scalars at row r ≤ K − 17 (every stage but the one holding row K − 1,
    // which loads as CLAMP: K % 16 == 0), column col + j ≤ N + 126: element r·N + col + j <
    // (K − 16)·N + 127 ≤ K·N for N ≥ 8, inside B); under YES_ODD_N_LANES the same rows and columns
    // n0 + lane + 32·j ≤ N + 126 by the same bound, the last row's stage clamped element by element;
    // YES_ODD_N_ASYNC the same words through cp.async into 4-byte-aligned words of the stage the next
    // step reads, which no thread reads until the wait and the barrier that end this step;
    // YES_ODD_N_ASYNC_TAIL (K % 4 == 0, N ≥ 32): full stages end at or below k_end and, when K is off
    // 16, at or below K − 4, so their rows are ≤ K − 5 and columns ≤ N + 126 < 4N: inside B; the last
    // partial stage reads rows < k_end at columns clamped into N and zero-fills the rest without
    // reading, and A's loads there are predicated),
    // uniform loop bounds (every thread reaches every barrier), and a stage is rewritten only after the
    // barrier that ends the reads of it.
    unsafe {
        // Uniform per block: the tile (and, but for K_TAIL's last stage, the K range) is inside and
        // 16-byte aligned.
        // (`const`: the mode's answer is taken when the function is instantiated, the untaken branch never
        // compiled — what a `match` on the bare `u8` mode did.)
        let interior = if const { MODE.0 != Interior::RUNTIME.0 } {
            const { MODE.0 != Interior::NO.0 && MODE.0 != Interior::CLAMP.0 }
        } else {
            m0 + ROWS <= m && n0 + BN <= n && k % BK_WIDE == 0 && k_end % BK_WIDE == 0 && n % 4 == 0
        };
        // A's two float4s, then B's `b_loads`. The 256-thread case is written out as v7 wrote it: the
        // loop form changed LLVM's address hoisting enough that ptxas spilled v7/v9 at 128 registers.
        let fetch = |k0: u32| -> [[f32; 4]; LOADS] {
            let mut v = [[0.0f32; 4]; LOADS];
            if is!(MODE, Interior::YES_ODD_N_ASYNC_TAIL) && k0 + BK_WIDE > k_end {
                // v32: the last partial stage's A, predicated (zeros past k_end and past M).
                (v[0], v[1]) = (load4_or_zero(a, m0 + am, k0 + ak, m, k_end, k), load4_or_zero(a, m0 + am, k0 + ak + 8, m, k_end, k));
                return v;
            }
            if is!(MODE, Interior::YES_ODD_N_ASYNC | Interior::YES_ODD_N_ASYNC_TAIL) {
                // v31: only A comes through the registers (its row clamped, as YES_CLAMPED's); B is `issue_b`'s.
                let ga = a.add((m0 + am).min(m - 1) as usize * k as usize + (k0 + ak) as usize);
                (v[0], v[1]) = (ld_global_nc_v4_f32(ga), ld_global_nc_v4_f32(ga.add(8)));
                return v;
            }
            // K_TAIL: a stage is unpredicated when it ends inside the K range (uniform per block).
            let tail_test = is!(MODE, Interior::K_TAIL | Interior::CLAMP | Interior::K_TAIL_CLAMPED);
            let unpredicated = if tail_test { k0 + BK_WIDE <= k_end } else { interior };
            // YES_ODD_N: the stage holding B's last row (K % 16 == 0: k0 + 16 == K) loads as CLAMP.
            let last_rows = is!(MODE, Interior::YES_ODD_N | Interior::YES_ODD_N_LANES) && k0 + BK_WIDE >= k;
            if unpredicated && is!(MODE, Interior::YES_ODD_N_LANES) && last_rows {
                // v30's last stage: A as CLAMP's, B's columns lane + 32·j each clamped into N.
                let ga = a.add((m0 + am).min(m - 1) as usize * k as usize + (k0 + ak) as usize);
                (v[0], v[1]) = (ld_global_nc_v4_f32(ga), ld_global_nc_v4_f32(ga.add(8)));
                let col = n0 + tid % 32;
                unroll8!(i => { if i < b_loads {
                    let row = b.add((k0 + bk + b_step * i) as usize * n as usize);
                    v[2 + i as usize] = [*row.add(col.min(n - 1) as usize), *row.add((col + 32).min(n - 1) as usize),
                                         *row.add((col + 64).min(n - 1) as usize), *row.add((col + 96).min(n - 1) as usize)];
                }});
            } else if unpredicated && (is!(MODE, Interior::CLAMP) || last_rows) {
                // A full stage of an edge tile: A's row and B's columns clamped into the matrices (K % 4
                // == 0, so A's float4 is aligned; B's is when N % 4 == 0, else 4 scalar loads).
                let ga = a.add((m0 + am).min(m - 1) as usize * k as usize + (k0 + ak) as usize);
                (v[0], v[1]) = (ld_global_nc_v4_f32(ga), ld_global_nc_v4_f32(ga.add(8)));
                let col = n0 + bn4;
                unroll8!(i => { if i < b_loads {
                    let row = b.add((k0 + bk + b_step * i) as usize * n as usize);
                    v[2 + i as usize] = if n % 4 == 0 {
                        ld_global_nc_v4_f32(row.add(col.min(n - 4) as usize))
                    } else {
                        [*row.add(col.min(n - 1) as usize), *row.add((col + 1).min(n - 1) as usize),
                         *row.add((col + 2).min(n - 1) as usize), *row.add((col + 3).min(n - 1) as usize)]
                    };
                }});
            } else if unpredicated {
                // The tile's row and column of this thread's loads (v19: clamped into M and N).
                let (row, col) = if is!(MODE, Interior::YES_CLAMPED | Interior::K_TAIL_CLAMPED | Interior::YES_ODD_N | Interior::YES_ODD_N_LANES) {
                    ((m0 + am).min(m - 1), (n0 + bn4).min(n - 4))
                } else {
                    (m0 + am, n0 + bn4)
                };
                let ga = a.add(row as usize * k as usize + (k0 + ak) as usize);
                if is!(MODE, Interior::YES_ODD_N) {
                    // The thread's own column, unclamped: a row's elements past N are the next row's first
                    // ones, and this stage does not hold B's last row (`last_rows` above).
                    let gb = b.add((k0 + bk) as usize * n as usize + (n0 + bn4) as usize);
                    (v[0], v[1]) = (ld_global_nc_v4_f32(ga), ld_global_nc_v4_f32(ga.add(8)));
                    unroll8!(i => { if i < b_loads {
                        let p = gb.add((b_step * i) as usize * n as usize);
                        v[2 + i as usize] = [*p, *p.add(1), *p.add(2), *p.add(3)];
                    }});
                    return v;
                }
                if is!(MODE, Interior::YES_ODD_N_LANES) {
                    // v30: the warp's 32 lanes read 32 consecutive columns per load, unclamped as v29's.
                    let gb = b.add((k0 + bk) as usize * n as usize + (n0 + tid % 32) as usize);
                    (v[0], v[1]) = (ld_global_nc_v4_f32(ga), ld_global_nc_v4_f32(ga.add(8)));
                    unroll8!(i => { if i < b_loads {
                        let p = gb.add((b_step * i) as usize * n as usize);
                        v[2 + i as usize] = [*p, *p.add(32), *p.add(64), *p.add(96)];
                    }});
                    return v;
                }
                let gb = b.add((k0 + bk) as usize * n as usize + col as usize);
                if LOADS == 4 {
                    (v[0], v[1], v[2], v[3]) = (ld_global_nc_v4_f32(ga), ld_global_nc_v4_f32(ga.add(8)),
                                                ld_global_nc_v4_f32(gb), ld_global_nc_v4_f32(gb.add(8 * n as usize)));
                } else {
                    (v[0], v[1]) = (ld_global_nc_v4_f32(ga), ld_global_nc_v4_f32(ga.add(8)));
                    if LOADS <= 6 {
                        for i in 0..b_loads {
                            v[2 + i as usize] = ld_global_nc_v4_f32(gb.add((b_step * i) as usize * n as usize));
                        }
                    } else {
                        // v15's 8 loads: as the loop above LLVM left the fetched array in local memory
                        // (320 bytes); unrolled with a constant guard it stays in registers.
                        unroll8!(i => { if i < b_loads {
                            v[2 + i as usize] = ld_global_nc_v4_f32(gb.add((b_step * i) as usize * n as usize));
                        }});
                    }
                }
            } else {
                if LOADS == 4 {
                    (v[0], v[1], v[2], v[3]) = (load4_or_zero(a, m0 + am, k0 + ak, m, k_end, k), load4_or_zero(a, m0 + am, k0 + ak + 8, m, k_end, k),
                                                load4_or_zero(b, k0 + bk, n0 + bn4, k_end, n, n), load4_or_zero(b, k0 + bk + 8, n0 + bn4, k_end, n, n));
                } else {
                    (v[0], v[1]) = (load4_or_zero(a, m0 + am, k0 + ak, m, k_end, k), load4_or_zero(a, m0 + am, k0 + ak + 8, m, k_end, k));
                    if LOADS <= 6 {
                        for i in 0..b_loads {
                            v[2 + i as usize] = load4_or_zero(b, k0 + bk + b_step * i, n0 + bn4, k_end, n, n);
                        }
                    } else {
                        unroll8!(i => { if i < b_loads {
                            v[2 + i as usize] = load4_or_zero(b, k0 + bk + b_step * i, n0 + bn4, k_end, n, n);
                        }});
                    }
                }
            }
            v
        };
        // v31: stage `s`'s B rows for the K step at `k0`, copied by `cp.async` ([`issue_b_words`]).
        let issue_b = |s: u32, k0: u32| {
            if is!(MODE, Interior::YES_ODD_N_ASYNC) {
                issue_b_words(b, n, k, n0, tid, k0, sb(s), &lb, bk, b_step, b_loads);
            }
        };
        // v32's copies: full stages as v31's, the range's last partial stage predicated. (A macro, not
        // a closure: as a closure this stayed out of line and took the accumulators to local memory.)
        macro_rules! issue_b_tail {
            ($s:expr, $k0:expr) => {{
                let (s, k0): (u32, u32) = ($s, $k0);
                if is!(MODE, Interior::YES_ODD_N_ASYNC_TAIL) {
                    if k0 + BK_WIDE <= k_end {
                        issue_b_words(b, n, k, n0, tid, k0, sb(s), &lb, bk, b_step, b_loads);
                    } else {
                        issue_b_tail_words(b, n, n0, tid, k0, k_end, sb(s), &lb, bk, b_step, b_loads);
                    }
                }
            }};
        }
        // A's two float4s, transposed into stage `s` (v30–v32's stores; the older loop interleaves them
        // with B's float4 stores below).
        let store_a = |s: u32, v: &[[f32; 4]; LOADS]| {
            for i in 0..2u32 {
                for c in 0..4u32 {
                    shared::st_shared_f32(sa(s) + 4 * la.offset(ak + 8 * i + c, am), v[i as usize][c as usize]);
                }
            }
        };
        let store = |s: u32, v: [[f32; 4]; LOADS]| {
            if is!(MODE, Interior::YES_ODD_N_ASYNC | Interior::YES_ODD_N_ASYNC_TAIL) {
                // v31: A through the registers as always; B has been copied by `issue_b`: wait for it.
                store_a(s, &v);
                cp_async_wait_group::<0>();
                return;
            }
            if is!(MODE, Interior::YES_ODD_N_LANES) {
                // v30: B's elements at columns lane + 32·j, one word each.
                store_a(s, &v);
                unroll8!(i => { if i < b_loads {
                    for j in 0..4u32 {
                        shared::st_shared_f32(sb(s) + 4 * lb.offset(bk + b_step * i, tid % 32 + 32 * j), v[2 + i as usize][j as usize]);
                    }
                }});
                return;
            }
            for i in 0..2u32 {
                for c in 0..4u32 {
                    shared::st_shared_f32(sa(s) + 4 * la.offset(ak + 8 * i + c, am), v[i as usize][c as usize]);
                }
                shared::st_shared_v4_f32(sb(s) + 4 * lb.offset(bk + b_step * i, bn4), v[2 + i as usize]);
            }
            if LOADS <= 6 {
                for i in 2..b_loads {
                    shared::st_shared_v4_f32(sb(s) + 4 * lb.offset(bk + b_step * i, bn4), v[2 + i as usize]);
                }
            } else {
                unroll8!(i => { if i >= 2 && i < b_loads {
                    shared::st_shared_v4_f32(sb(s) + 4 * lb.offset(bk + b_step * i, bn4), v[2 + i as usize]);
                }});
            }
        };
        // Byte offsets of this thread's fragments at k = 0; step kk adds whole rows (`offset(kk, x) =
        // offset(0, x) + kk · stride` for these padded row-major tiles), a constant once unrolled.
        let (oa, ob) = ([4 * la.offset(0, F::row(tid, 0)), 4 * la.offset(0, F::row(tid, 1))],
                        [4 * lb.offset(0, F::col(tid, 0)), 4 * lb.offset(0, F::col(tid, 1))]);
        let frag = |s: u32, kk: u32| -> ([f32; 8], [f32; 8]) {
            let (ka, kb) = (sa(s) + 4 * kk * la.stride, sb(s) + 4 * kk * lb.stride);
            let a_lo = shared::ld_shared_v4_f32(ka + oa[0]);
            let a_hi = shared::ld_shared_v4_f32(ka + oa[1]);
            let b_lo = shared::ld_shared_v4_f32(kb + ob[0]);
            let b_hi = shared::ld_shared_v4_f32(kb + ob[1]);
            ([a_lo[0], a_lo[1], a_lo[2], a_lo[3], a_hi[0], a_hi[1], a_hi[2], a_hi[3]],
             [b_lo[0], b_lo[1], b_lo[2], b_lo[3], b_hi[0], b_hi[1], b_hi[2], b_hi[3]])
        };
        issue_b(0, k_begin);
        issue_b_tail!(0, k_begin);
        store(0, fetch(k_begin));
        sync_threads();
        let mut cur = 0;
        let mut k0 = k_begin;
        while k0 < k_end {
            let next = k0 + BK_WIDE;
            if next < k_end {
                // v31 / v32 only: the next stage's B straight into the other buffer (free since the last barrier).
                issue_b(1 - cur, next);
                issue_b_tail!(1 - cur, next);
            }
            let prefetch = if next < k_end { fetch(next) } else { [[0.0; 4]; LOADS] };
            // Ping-pong: set 0 holds even steps, set 1 odd steps; each is read one step ahead.
            let mut f0 = frag(cur, 0);
            unroll8!(p => {
                let f1 = frag(cur, 2 * p + 1);
                outer_product(&mut acc, &f0);
                if p < 7 {
                    f0 = frag(cur, 2 * p + 2);
                }
                outer_product(&mut acc, &f1);
            });
            if next < k_end {
                store(1 - cur, prefetch);
            }
            sync_threads();
            cur = 1 - cur;
            k0 = next;
        }
        if is_not!(EPI, Epi::STORE) {
            if Epi::waits(EPI) {
                // C is the previous grid's output (its zeros): wait for it, and only here, after the K loop.
                crate::prim::sync::griddepcontrol_wait();
            }
            unroll2!(h => {
                unroll4!(r => {
                    let i = (4 * h + r) as usize;
                    unroll2!(h2 => {
                        let j = 4 * h2 as usize;
                        let v = [acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]];
                        if is!(EPI, Epi::WAIT_ADD_V4) {
                            add4v_if(c, m0 + F::row(tid, h) + r, n0 + F::col(tid, h2), m, n, v);
                        } else if is!(EPI, Epi::WAIT_ADD_WIDE) {
                            add4w_if(c, m0 + F::row(tid, h) + r, n0 + F::col(tid, h2), m, n, v);
                        } else {
                            add4_if(c, m0 + F::row(tid, h) + r, n0 + F::col(tid, h2), m, n, v);
                        }
                    });
                });
            });
        } else {
            for h in 0..2 {
                for r in 0..4 {
                    let i = (4 * h + r) as usize;
                    for h2 in 0..2u32 {
                        let j = 4 * h2 as usize;
                        store4_if(c, m0 + F::row(tid, h) + r, n0 + F::col(tid, h2), m, n, n,
                                  [acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]]);
                    }
                }
            }
        }
    }
}

/// Which tile and K range block `(x, y)` of a split-K grid `(⌈N/128⌉, ⌈M/rows⌉ · splits)` computes:
/// tile `y % ⌈M/rows⌉` in the grouped order (v8), K range `split · k_split ..` with `split = y /
/// ⌈M/rows⌉` (the last range ends at K). Returns `(bm, bn, k_begin, k_end, splits)`. One source for
/// v14–v19's blocks (v12 spells out the same arithmetic for its 128-row tiles).
#[inline(always)]
pub(crate) fn split_k_block(rows: u32, m: u32, k: u32, k_split: u32) -> (u32, u32, u32, u32, u32) {
    let grid_n = grid_dim_x();
    let tiles_m = m.div_ceil(rows).max(1); // >= 1: the divisions below cannot trap
    let (ty, split) = (block_idx_y() % tiles_m, block_idx_y() / tiles_m);
    let splits = grid_dim_y() / tiles_m;
    let (bm, bn) = grouped_block(ty * grid_n + block_idx_x(), tiles_m, grid_n, GROUP);
    let k_begin = split * k_split;
    let k_end = if k - k_begin < k_split { k } else { k_begin + k_split };
    (bm, bn, k_begin, k_end, splits)
}

/// v31's copy of one stage of B, global → shared by `cp.async.ca` word by word: rows `k0 + bk + b_step·i`
/// (`i < b_loads`), columns `n0 + lane + 32·j` (`j < 4`) — each clamped into N only in the stage holding
/// B's last row (`k0 + 16 ≥ K`) — into the `lb` layout at `s_b`; one commit group. A function rather
/// than a closure so that it is always inlined: as a closure called twice LLVM kept it out of line and
/// its captures, and with them the accumulators, went to local memory (a 440-byte stack frame).
///
/// # Safety
/// `block_tile_as`'s conditions for the stage: `b` holds `K·N` f32, every row read lies below K
/// (`k0 + 16 ≤ K`), and unless the stage holds row K − 1 its unclamped columns (up to N + 126) stay
/// inside B — under `YES_ODD_N_ASYNC` (N ≥ 8, K % 16 == 0) because such a stage's rows are ≤ K − 17,
/// under `YES_ODD_N_ASYNC_TAIL`'s full stages (N ≥ 32, K % 4 == 0 off 16) because they are ≤ K − 5;
/// `s_b` is a 16-byte-aligned stage of `lb` in this block's shared memory that no thread reads until
/// this thread's wait and the next barrier.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn issue_b_words(b: *const f32, n: u32, k: u32, n0: u32, tid: u32, k0: u32, s_b: u32, lb: &layout::Padded, bk: u32, b_step: u32, b_loads: u32) {
    let last = k0 + BK_WIDE >= k;
    let lane = tid % 32;
    unroll8!(i => { if i < b_loads {
        // SAFETY: the caller's bounds (see above).
        let row = unsafe { b.add((k0 + bk + b_step * i) as usize * n as usize) };
        unroll4!(j => {
            let col = n0 + lane + 32 * j;
            let col = if last { col.min(n - 1) } else { col };
            // SAFETY: a 4-byte word inside B and a 4-byte-aligned word of the stage (the caller's).
            unsafe { cp_async_ca_4(s_b + 4 * lb.offset(bk + b_step * i, lane + 32 * j), row.add(col as usize) as *const u8) };
        });
    }});
    cp_async_commit_group();
}

/// v32's copy of the range's last, partial stage of B (`k0 + 16 > k_end`): rows `k0 + bk + b_step·i`
/// below `k_end` at columns `n0 + lane + 32·j` clamped into N, rows at or past `k_end` zero-filled
/// (`cp.async` with no source bytes: nothing read); one commit group.
///
/// # Safety
/// `b` holds `K·N` f32 with `k_end ≤ K`; `s_b` as [`issue_b_words`]'s.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn issue_b_tail_words(b: *const f32, n: u32, n0: u32, tid: u32, k0: u32, k_end: u32, s_b: u32, lb: &layout::Padded, bk: u32, b_step: u32, b_loads: u32) {
    let lane = tid % 32;
    unroll8!(i => { if i < b_loads {
        let r = k0 + bk + b_step * i;
        let inside = r < k_end;
        // SAFETY: row r < k_end ≤ K is inside B; past k_end the copy reads nothing (B's first row stands in).
        let row = unsafe { b.add(if inside { r as usize * n as usize } else { 0 }) };
        unroll4!(j => {
            let col = (n0 + lane + 32 * j).min(n - 1);
            // SAFETY: a word inside B (or none read), a 4-byte-aligned word of the stage (the caller's).
            unsafe { cp_async_ca_4_zfill(s_b + 4 * lb.offset(bk + b_step * i, lane + 32 * j), row.add(col as usize) as *const u8, if inside { 4 } else { 0 }) };
        });
    }});
    cp_async_commit_group();
}

/// The kernel body of the split-K steps with `ROWS × 128` tiles (v14 and v16: 64 rows and 128 threads,
/// v15: 32 rows and 64 threads): block `(x, y)` computes tile `y % ⌈M/ROWS⌉` (grouped as v8) over the K range
/// `split · k_split ..` with `split = y / ⌈M/ROWS⌉`, on the loop monomorphized for its interior case
/// (v11's [`Interior::YES`], v14's [`Interior::K_TAIL`], with [`LoopSelect::PerTileClampedEdges`] v16's
/// [`Interior::CLAMP`] for edge tiles and N off 4, or predicated), storing its sums (one split) or adding
/// them to a zeroed C (several). With [`LoopSelect::PerLaunch`] (v19) the case is the launch's, not the
/// tile's: every block runs the same loop.
///
/// # Safety
/// Grid `(⌈N/128⌉, ⌈M/ROWS⌉ · splits)` with `splits = ⌈K / k_split⌉` and `k_split` a positive multiple
/// of 16; `2·ROWS` threads and `2 · (16·(ROWS+4) + 16·128) · 4` bytes of dynamic shared memory; `a`, `b`,
/// `c` hold `M·K`, `K·N`, `M·N` f32, 16-byte aligned; `SPLIT_EPI` is `Epi::ADD`, or one of the `WAIT_`
/// forms (sm_90, C zeroed by the previous grid).
/// When `splits > 1`, C is zero at launch (`ADD`) or once the grid this one depends on has completed
/// (the `WAIT_` forms: that grid zeroes C and writes nothing else this one reads), and touched by nothing
/// else. With a `WAIT_` form and one split the kernel waits for the previous grid before any access.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn split_k_tile<const ROWS: u32, const LOADS: usize, const SELECT: LoopSelect, const SPLIT_EPI: Epi>(a: *const f32, b: *const f32, c: *mut f32, m: u32,
                                                                                                             n: u32, k: u32, k_split: u32) {
    let (bm, bn, k_begin, k_end, splits) = split_k_block(ROWS, m, k, k_split);
    if Epi::waits(SPLIT_EPI) && splits == 1 {
        // One split: no zeroing grid ran before this one, so whatever grid did may have written A, B or
        // C — wait for it before the first access (a PDL-aware kernel's rule).
        crate::prim::sync::griddepcontrol_wait();
    }
    // The `SELECT` tests are `const` blocks: decided when the function is instantiated, the untaken
    // branches never compiled, as with the two `bool` parameters they replace.
    if const { matches!(SELECT, LoopSelect::PerLaunch) } {
        // SAFETY: forwarded (the caller's contract is split_k_tile's).
        return unsafe { uniform_tile::<ROWS, LOADS, SPLIT_EPI, { Interior::CLAMP }>(a, b, c, m, n, k, bm, bn, k_begin, k_end, splits) };
    }
    let inside = bm * ROWS + ROWS <= m && bn * BN + BN <= n && n % 4 == 0;
    let mode = match (inside, k % BK_WIDE == 0 && k_end % BK_WIDE == 0, k % 4 == 0) {
        (true, true, _) => Interior::YES,
        (true, false, true) => Interior::K_TAIL,
        (false, _, true) if const { !matches!(SELECT, LoopSelect::PerTile) } => Interior::CLAMP,
        _ => Interior::NO,
    };
    // SAFETY: block_tile_as's contract for these ROWS (the caller's launch gives the threads and the
    // shared memory); `YES`, `K_TAIL` and `CLAMP` only when the tests above give what they need (CLAMP:
    // K % 4 == 0); with several splits every block only adds to C.
    unsafe {
        match (mode, splits > 1) {
            (Interior::YES, false) => block_tile_as::<WarpTiled, { Interior::YES }, { Epi::STORE }, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::K_TAIL, false) => block_tile_as::<WarpTiled, { Interior::K_TAIL }, { Epi::STORE }, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::CLAMP, false) if const { !matches!(SELECT, LoopSelect::PerTile) } => block_tile_as::<WarpTiled, { Interior::CLAMP }, { Epi::STORE }, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (_, false) => block_tile_as::<WarpTiled, { Interior::NO }, { Epi::STORE }, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::YES, true) => block_tile_as::<WarpTiled, { Interior::YES }, SPLIT_EPI, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::K_TAIL, true) => block_tile_as::<WarpTiled, { Interior::K_TAIL }, SPLIT_EPI, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::CLAMP, true) if const { !matches!(SELECT, LoopSelect::PerTile) } => block_tile_as::<WarpTiled, { Interior::CLAMP }, SPLIT_EPI, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (_, true) => block_tile_as::<WarpTiled, { Interior::NO }, SPLIT_EPI, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
        }
    }
}

/// [`split_k_tile`] with [`LoopSelect::PerLaunch`] (every block on one loop) whose launches with N off 4 (and N ≥ 8, K
/// and the split's end multiples of 16) run `ODD` — [`Interior::YES_ODD_N`] (v29),
/// [`Interior::YES_ODD_N_LANES`] (v30) or [`Interior::YES_ODD_N_ASYNC`] (v31) — instead of `CLAMP`; with
/// [`Interior::YES_ODD_N_ASYNC_TAIL`] (v32) also where K % 4 == 0 is off 16 and N ≥ 32.
///
/// # Safety
/// As [`split_k_tile`].
#[cfg(lab_sm90)]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn split_k_tile_odd_n<const ROWS: u32, const LOADS: usize, const SPLIT_EPI: Epi, const ODD: Interior>(a: *const f32, b: *const f32, c: *mut f32, m: u32,
                                                                                                          n: u32, k: u32, k_split: u32) {
    const { assert!(matches!(ODD, Interior::YES_ODD_N | Interior::YES_ODD_N_LANES | Interior::YES_ODD_N_ASYNC | Interior::YES_ODD_N_ASYNC_TAIL),
                    "an unclamped odd-N loop") };
    let (bm, bn, k_begin, k_end, splits) = split_k_block(ROWS, m, k, k_split);
    if Epi::waits(SPLIT_EPI) && splits == 1 {
        // As split_k_tile: one split, nothing zeroed C before this grid; wait before any access.
        crate::prim::sync::griddepcontrol_wait();
    }
    // SAFETY: forwarded (the caller's contract is split_k_tile's).
    unsafe { uniform_tile::<ROWS, LOADS, SPLIT_EPI, ODD>(a, b, c, m, n, k, bm, bn, k_begin, k_end, splits) }
}

/// v19's half of [`split_k_tile`]: one loop for the whole launch. With N % 4 == 0 every tile, inside or
/// not, runs the interior loop from a clamped base (`YES_CLAMPED` when K and the range end are multiples
/// of 16, else `K_TAIL_CLAMPED` with K % 4 == 0; the clamp is a no-op inside M and N); N off 4 runs
/// `CLAMP` on every tile (each one is an edge tile then) — or `ODD` (v29: `YES_ODD_N`, v30:
/// `YES_ODD_N_LANES`) where K and the range end are multiples of 16 and N ≥ 8 —, K off 4 the predicated
/// loop. `ODD == CLAMP` keeps `CLAMP` for every N off 4.
///
/// # Safety
/// As [`split_k_tile`], for the block `(bm, bn, k_begin .. k_end)` of [`split_k_block`] in a grid of
/// `splits` K ranges.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn uniform_tile<const ROWS: u32, const LOADS: usize, const SPLIT_EPI: Epi, const ODD: Interior>(a: *const f32, b: *const f32, c: *mut f32, m: u32, n: u32, k: u32,
                                                                                             bm: u32, bn: u32, k_begin: u32, k_end: u32, splits: u32) {
    let mode = match (n % 4 == 0, k % BK_WIDE == 0 && k_end % BK_WIDE == 0, k % 4 == 0) {
        (true, true, _) => Interior::YES_CLAMPED,
        (true, false, true) => Interior::K_TAIL_CLAMPED,
        (false, true, _) if is_not!(ODD, Interior::CLAMP) && n >= 8 => ODD,
        (false, _, true) => Interior::CLAMP,
        _ => Interior::NO,
    };
    // v32: K off 16 (K % 4 == 0) with N ≥ 32 on its tail loop too, not CLAMP; with K and the range end
    // multiples of 16, v31's loop itself (the tail loop's per-stage tests cost 2–3% there, call 8).
    // (A statement of its own: as arms of the match above it changed how LLVM laid out the other
    // steps' selection.)
    // (`const`: decided for `ODD` when the function is instantiated, as a `match` on the bare `u8` was.)
    let mode = if const { ODD.0 == Interior::YES_ODD_N_ASYNC_TAIL.0 } {
        if mode.0 == Interior::YES_ODD_N_ASYNC_TAIL.0 {
            Interior::YES_ODD_N_ASYNC
        } else if mode.0 == Interior::CLAMP.0 && n >= 32 {
            ODD
        } else {
            mode
        }
    } else {
        mode
    };
    // SAFETY: block_tile_as's contract for these ROWS (the caller's launch gives the threads and the
    // shared memory); the clamped loops only with N % 4 == 0 and K as YES (K, k_end % 16 == 0) or K_TAIL
    // (K % 4 == 0) need it, CLAMP only with K % 4 == 0, the odd-N loops with K, k_end % 16 == 0 and N ≥ 8,
    // v32's tail loop otherwise only with K % 4 == 0 and N ≥ 32 (the `mode` reassignment above); with
    // several splits every block only adds to C.
    unsafe {
        match (mode, splits > 1) {
            (Interior::YES_CLAMPED, false) => block_tile_as::<WarpTiled, { Interior::YES_CLAMPED }, { Epi::STORE }, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::K_TAIL_CLAMPED, false) => block_tile_as::<WarpTiled, { Interior::K_TAIL_CLAMPED }, { Epi::STORE }, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::CLAMP, false) => block_tile_as::<WarpTiled, { Interior::CLAMP }, { Epi::STORE }, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::YES_ODD_N, false) if is!(ODD, Interior::YES_ODD_N) => block_tile_as::<WarpTiled, { Interior::YES_ODD_N }, { Epi::STORE }, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::YES_ODD_N_LANES, false) if is!(ODD, Interior::YES_ODD_N_LANES) => block_tile_as::<WarpTiled, { Interior::YES_ODD_N_LANES }, { Epi::STORE }, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::YES_ODD_N_ASYNC, false) if is!(ODD, Interior::YES_ODD_N_ASYNC | Interior::YES_ODD_N_ASYNC_TAIL) => block_tile_as::<WarpTiled, { Interior::YES_ODD_N_ASYNC }, { Epi::STORE }, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::YES_ODD_N_ASYNC_TAIL, false) if is!(ODD, Interior::YES_ODD_N_ASYNC_TAIL) => block_tile_as::<WarpTiled, { Interior::YES_ODD_N_ASYNC_TAIL }, { Epi::STORE }, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (_, false) => block_tile_as::<WarpTiled, { Interior::NO }, { Epi::STORE }, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::YES_CLAMPED, true) => block_tile_as::<WarpTiled, { Interior::YES_CLAMPED }, SPLIT_EPI, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::K_TAIL_CLAMPED, true) => block_tile_as::<WarpTiled, { Interior::K_TAIL_CLAMPED }, SPLIT_EPI, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::CLAMP, true) => block_tile_as::<WarpTiled, { Interior::CLAMP }, SPLIT_EPI, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::YES_ODD_N, true) if is!(ODD, Interior::YES_ODD_N) => block_tile_as::<WarpTiled, { Interior::YES_ODD_N }, SPLIT_EPI, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::YES_ODD_N_LANES, true) if is!(ODD, Interior::YES_ODD_N_LANES) => block_tile_as::<WarpTiled, { Interior::YES_ODD_N_LANES }, SPLIT_EPI, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::YES_ODD_N_ASYNC, true) if is!(ODD, Interior::YES_ODD_N_ASYNC | Interior::YES_ODD_N_ASYNC_TAIL) => block_tile_as::<WarpTiled, { Interior::YES_ODD_N_ASYNC }, SPLIT_EPI, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (Interior::YES_ODD_N_ASYNC_TAIL, true) if is!(ODD, Interior::YES_ODD_N_ASYNC_TAIL) => block_tile_as::<WarpTiled, { Interior::YES_ODD_N_ASYNC_TAIL }, SPLIT_EPI, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
            (_, true) => block_tile_as::<WarpTiled, { Interior::NO }, SPLIT_EPI, ROWS, LOADS>(a, b, c, m, n, k, bm, bn, k_begin, k_end),
        }
    }
}

/// The 16 k-steps of one stage: fragments of step `kk` from `frag(kk)`, ping-ponged — set 0 holds even
/// steps, set 1 odd steps, each read one step ahead of its FMAs. (v17's loop. [`block_tile_as`] keeps
/// its own written-out copy of this and of [`epilogue`]: routed through these two, its PTX moved enough
/// that ptxas spilled v9 and v11 on sm_80 at 128 registers — 24 and 16 bytes, CI's ptxas test.)
#[inline(always)]
#[allow(unused_assignments)] // the last step's `f0 = …` sits behind a constant-false `if p < 7`
pub(crate) fn stage_products(acc: &mut [[f32; 8]; 8], frag: impl Fn(u32) -> ([f32; 8], [f32; 8])) {
    let mut f0 = frag(0);
    unroll8!(p => {
        let f1 = frag(2 * p + 1);
        outer_product(acc, &f0);
        if p < 7 {
            f0 = frag(2 * p + 2);
        }
        outer_product(acc, &f1);
    });
}

/// [`stage_products`] as a loop of two 8-step halves (v18): half the unrolled body in the instruction
/// stream. `halves` is 2 passed through `util::opaque` (no instruction), so LLVM cannot unroll the loop
/// back into [`stage_products`]; the fragments of step 8 are read at the end of the first half, one
/// step ahead as everywhere else.
#[inline(always)]
#[allow(unused_assignments)] // as stage_products
pub(crate) fn stage_products_halves(acc: &mut [[f32; 8]; 8], frag: impl Fn(u32) -> ([f32; 8], [f32; 8])) {
    let halves = crate::util::opaque(2);
    let mut f0 = frag(0);
    let mut h = 0;
    while h < halves {
        let k0 = 8 * h;
        unroll4!(p => {
            let f1 = frag(k0 + 2 * p + 1);
            outer_product(acc, &f0);
            if p < 3 {
                f0 = frag(k0 + 2 * p + 2);
            } else if h + 1 < halves {
                f0 = frag(k0 + 8);
            }
            outer_product(acc, &f1);
        });
        h += 1;
    }
}

/// Thread `tid`'s 8×8 sums (rows `F::row(tid, h) + r`, columns `F::col(tid, h2) + c` of the tile at
/// `(m0, n0)`) stored into C (`EPI` = `Epi::STORE`), or with `Epi::ADD` added to it (`red.global.add.f32`),
/// each guarded by M and N.
///
/// # Safety
/// `c` holds `M·N` f32, 16-byte aligned; with `ADD`, nothing but these adds touches C meanwhile.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn epilogue<F: FragMap, const EPI: Epi>(acc: &[[f32; 8]; 8], c: *mut f32, m0: u32, n0: u32, m: u32, n: u32, tid: u32) {
    const { assert!(matches!(EPI, Epi::STORE | Epi::ADD), "no wait: STORE or ADD") };
    // SAFETY: every store and add is guarded by M and N (store4_if, add4_if); the caller's contract.
    unsafe {
        if const { EPI.0 == Epi::ADD.0 } {
            unroll2!(h => {
                unroll4!(r => {
                    let i = (4 * h + r) as usize;
                    unroll2!(h2 => {
                        let j = 4 * h2 as usize;
                        add4_if(c, m0 + F::row(tid, h) + r, n0 + F::col(tid, h2), m, n, [acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]]);
                    });
                });
            });
        } else {
            for h in 0..2 {
                for r in 0..4 {
                    let i = (4 * h + r) as usize;
                    for h2 in 0..2u32 {
                        let j = 4 * h2 as usize;
                        store4_if(c, m0 + F::row(tid, h) + r, n0 + F::col(tid, h2), m, n, n,
                                  [acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]]);
                    }
                }
            }
        }
    }
}

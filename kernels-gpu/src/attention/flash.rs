//! The fused attention kernel body of a2–a4 (introduced by a2, whose file explains it), generic over
//! the element type, the head dimension, the warps per block and the query rows per warp.
use crate::hgemm::elem::Elem16;
use crate::prim::{
    cp_async::{cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group},
    ldmatrix::{ldmatrix_x4, ldmatrix_x4_trans},
    math::{ex2_approx_f32, lg2_approx_f32},
    shared::{Align16, addr_of, dynamic},
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, lane_id, thread_idx_x},
    warp::shuffle_xor_f32,
};
use crate::util::unroll::{unroll2, unroll4, unroll8};
use layout::{
    Layout,
    attention::{BKV, TileOf, flash_tile_bytes, kv_tiles, needs_mask, query_rows, threads, tile},
};

/// Copies rows `row0 .. row0 + rows` of a head's `l × D` matrix at `g` into the swizzled tile at
/// `s_tile` (16-byte `cp.async` chunks, thread `tid` of `nthreads` taking chunks `tid, tid + nthreads, …`; rows past `l`
/// zero-filled, their source clamped to row 0 so no address leaves the matrix).
///
/// # Safety
/// `g` holds `l · D` readable 16-bit elements (`l ≥ 1`), 16-byte aligned rows (D = 64 or 128);
/// `s_tile` is a `.shared` tile of `rows × D` elements nobody reads until the copy group completes.
#[inline(always)]
pub(super) unsafe fn load_tile<const D: u32>(s_tile: u32, g: *const u16, row0: u32, rows: u32, l: u32, tid: u32, nthreads: u32) {
    let t = tile(rows, D);
    let mut c = tid;
    while c < rows * D / 8 {
        let (r, col) = (c / (D / 8), 8 * (c % (D / 8)));
        let valid = row0 + r < l;
        let src_row = if valid { row0 + r } else { 0 };
        // SAFETY: src_row < l: inside the head's matrix; 16 bytes at an 8-element boundary (aligned);
        // the destination chunk lies inside the tile (the layout maps (r, col) inside `size()`).
        unsafe {
            cp_async_cg_16_zfill(s_tile + 2 * t.offset(r, col), g.add((src_row * D + col) as usize) as *const u8, if valid { 16 } else { 0 });
        }
        c += nthreads;
    }
}

/// [`load_tile`] from rows `ld` elements apart whose first `cols` (a multiple of 8, at most `D`) columns
/// are the head's — one head of a packed `[tokens][heads][head_dim]` tensor (`ld = heads · head_dim`);
/// the columns from `cols` to `D` are zero-filled (head dim 96 in a 128-wide tile), as are rows past `l`.
/// Row offsets in 64 bits (a packed tensor may hold more than 2^32 elements); [`load_tile`] keeps its
/// 32-bit offsets (a head's matrix), so the kernels that use it compile as before.
///
/// # Safety
/// Row `r < l` of `g` (at `r · ld`) holds `cols` readable 16-bit elements, `g` and `ld · 2` bytes
/// 16-byte aligned; `s_tile` as for [`load_tile`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn load_rows<const D: u32>(s_tile: u32, g: *const u16, ld: u32, cols: u32, row0: u32, rows: u32, l: u32, tid: u32, nthreads: u32) {
    let t = tile(rows, D);
    let mut c = tid;
    while c < rows * D / 8 {
        let (r, col) = (c / (D / 8), 8 * (c % (D / 8)));
        let valid = row0 + r < l && col < cols;
        let (src_row, src_col) = if valid { (row0 + r, col) } else { (0, 0) };
        // SAFETY: src_row < l and src_col + 8 ≤ cols: inside the head's rows (or row 0, column 0, read for
        // nothing: 0 bytes copied); 16 bytes at an 8-element boundary of a 16-byte aligned row (aligned); the
        // destination chunk lies inside the tile (the layout maps (r, col) inside `size()`).
        unsafe {
            cp_async_cg_16_zfill(s_tile + 2 * t.offset(r, col), g.add(src_row as usize * ld as usize + src_col as usize) as *const u8, if valid { 16 } else { 0 });
        }
        c += nthreads;
    }
}

/// `ldmatrix` address of lane `lane` for the four 8×8 matrices at rows `row0 + 8·(m % 2)`, columns
/// `col0 + 8·(m / 2)` (`m = lane / 8`): Q's A fragment and V's `.trans` B fragments use this order.
#[inline(always)]
fn addr_rows_then_cols<const D: u32>(s_tile: u32, rows: u32, row0: u32, col0: u32, lane: u32) -> u32 {
    let m = lane / 8;
    s_tile + 2 * tile(rows, D).offset(row0 + 8 * (m % 2) + lane % 8, col0 + 8 * (m / 2))
}

/// `ldmatrix` address for K's B fragments: matrices at key rows `row0 + 8·(m / 2)`, columns
/// `col0 + 8·(m % 2)` (two k-halves of one n-tile, then the next n-tile).
#[inline(always)]
fn addr_cols_then_rows<const D: u32>(s_tile: u32, rows: u32, row0: u32, col0: u32, lane: u32) -> u32 {
    let m = lane / 8;
    s_tile + 2 * tile(rows, D).offset(row0 + 8 * (m / 2) + lane % 8, col0 + 8 * (m % 2))
}

/// The max over the 4 threads of a quad (lanes `4g .. 4g + 4`: one row's 64 columns).
///
/// # Safety
/// All 32 lanes, converged.
#[inline(always)]
pub(super) unsafe fn quad_max(v: f32) -> f32 {
    // SAFETY: forwarded.
    unsafe {
        let v = v.max(shuffle_xor_f32(v, 1));
        v.max(shuffle_xor_f32(v, 2))
    }
}

/// The sum over the 4 threads of a quad.
///
/// # Safety
/// All 32 lanes, converged.
#[inline(always)]
pub(super) unsafe fn quad_sum(v: f32) -> f32 {
    // SAFETY: forwarded.
    unsafe {
        let v = v + shuffle_xor_f32(v, 1);
        v + shuffle_xor_f32(v, 2)
    }
}

/// The kernel body for input type `E`, head dim `D` (64 or 128), `WARPS` warps per block and `MT`
/// m-tiles of 16 query rows per warp (`BQ = 16 · MT · WARPS` rows per block): a2 is (4, 1), a3 (8, 1),
/// a4 (4, 2). With `MT = 2` each K and V fragment loaded by `ldmatrix` feeds two `mma`s, and Q's
/// fragments are reloaded from shared memory per K step instead of held in registers (the two m-tiles'
/// O accumulators need them). `CHAINS` (1, 2 or 4): independent partial maxima and sums per row while
/// reducing a tile's 16 scores per thread — 1 is one dependent chain of 16 `max`/`add` (a2–a4), 4 is
/// four chains of 4 joined by a tree (a5 at D = 64; 2 at D = 128, where 4 spilled).
///
/// # Safety
/// As `attn_fa2_d64_f16` for `D`, with grid `(⌈l/BQ⌉, heads)`, `32 · WARPS` threads and
/// `flash_smem(BQ, D)` bytes of dynamic shared memory.
#[inline(always)]
pub(super) unsafe fn flash<E: Elem16, const D: u32, const WARPS: u32, const MT: u32, const CHAINS: u32>(g_q: *const u16, g_k: *const u16, g_v: *const u16, g_o: *mut u16,
                                                                                   g_lse: *mut f32, l: u32, scale: f32, causal: u32) {
    let bq = query_rows(WARPS, MT);
    let (qt, head) = (block_idx_x(), block_idx_y());
    let (tid, lane) = (thread_idx_x(), lane_id());
    let warp = tid / 32;
    let (g, t) = (lane / 4, lane % 4);
    let head_off = head as usize * l as usize * D as usize;
    let q0 = qt * bq;
    let s_base = addr_of(dynamic::<Align16>());
    let nthreads = threads(WARPS);
    let s_q = s_base + flash_tile_bytes(bq, D, TileOf::Q, 0);
    let s_k = |st: u32| s_base + flash_tile_bytes(bq, D, TileOf::K, st);
    let s_v = |st: u32| s_base + flash_tile_bytes(bq, D, TileOf::V, st);
    let n_tiles = kv_tiles(l, bq, qt, causal != 0);
    let scale2 = scale * core::f32::consts::LOG2_E;
    // This thread's query rows: m-tile mt, half h (rows g and g + 8) → row_of(mt, h).
    let warp_row0 = q0 + 16 * MT * warp;
    let row_of = |mt: u32, h: u32| warp_row0 + 16 * mt + g + 8 * h;

    // SAFETY (the whole body): global reads and writes stay inside the head's matrices (`load_tile`'s
    // clamping, stores only for rows < l); shared tiles are written by `cp.async` groups and read only
    // after `cp_async_wait_group` and a block barrier, and a stage is refilled only after the barrier that
    // ends the iteration which read it; all `ldmatrix`/`mma`/shuffles are executed by full warps (no
    // divergence before them: every branch below is uniform per block or per warp).
    unsafe {
        let (gq, gk, gv) = (g_q.add(head_off), g_k.add(head_off), g_v.add(head_off));
        load_tile::<D>(s_q, gq, q0, bq, l, tid, nthreads);
        load_tile::<D>(s_k(0), gk, 0, BKV, l, tid, nthreads);
        load_tile::<D>(s_v(0), gv, 0, BKV, l, tid, nthreads);
        cp_async_commit_group();

        // Loops over fragments are `unroll!`ed (with `D`/`MT`-dependent bounds folded per instantiation),
        // so every fragment array index is a constant and the arrays stay in registers (plain loops left
        // r_o and r_q in local memory: 256/448-byte stack frames).
        let mut r_q = [[0u32; 4]; 8]; // MT = 1: Q's A fragments [k-step], loaded at the first iteration
        let mut r_o = [[[0f32; 4]; 16]; 2]; // [m-tile][n-tile of 8 columns of D]
        let mut r_m = [[-1e30f32; 2]; 2]; // running max [m-tile][half]
        let mut r_l = [[0f32; 2]; 2]; // running (per-thread) sum [m-tile][half]
        let q_frag = |mt: u32, ks: u32| ldmatrix_x4(addr_rows_then_cols::<D>(s_q, bq, 16 * MT * warp + 16 * mt, 16 * ks, lane));

        for j in 0..n_tiles {
            let st = j % 2;
            if j + 1 < n_tiles {
                load_tile::<D>(s_k(1 - st), gk, (j + 1) * BKV, BKV, l, tid, nthreads);
                load_tile::<D>(s_v(1 - st), gv, (j + 1) * BKV, BKV, l, tid, nthreads);
            }
            cp_async_commit_group();
            cp_async_wait_group::<1>();
            sync_threads();
            if MT == 1 && j == 0 {
                unroll8!(ks => {
                    if ks < D / 16 {
                        r_q[ks as usize] = q_frag(0, ks);
                    }
                });
            }
            // Per m-tile: S = Q · Kᵀ (8 n-tiles of 8 keys), the online softmax, P packed. One m-tile's S
            // at a time keeps the registers for two m-tiles of O (K fragments are loaded per m-tile; the V
            // fragments below feed both).
            let kv0 = j * BKV;
            // Key tiles past the query tile's first row need the causal mask (the diagonal ones).
            let diagonal = causal != 0 && needs_mask(bq, qt, j);
            let mut r_p = [[[0u32; 4]; 4]; 2]; // P's A fragments [m-tile][k-step of 16 keys]
            unroll2!(mt => {
                if mt < MT {
                    let mut s = [[0f32; 4]; 8];
                    unroll8!(ks => {
                        if ks < D / 16 {
                            let a = if MT == 1 { r_q[ks as usize] } else { q_frag(mt, ks) };
                            unroll4!(np => {
                                let b = ldmatrix_x4(addr_cols_then_rows::<D>(s_k(st), BKV, 16 * np, 16 * ks, lane));
                                E::mma(&mut s[2 * np as usize], a, [b[0], b[1]]);
                                E::mma(&mut s[2 * np as usize + 1], a, [b[2], b[3]]);
                            });
                        }
                    });
                    let (m, lsum, p_frag) = (&mut r_m[mt as usize], &mut r_l[mt as usize], &mut r_p[mt as usize]);
                    // Scale to base 2, mask, row max.
                    let mut mxc = [[-1e30f32; 4]; 2]; // [half][chain]
                    unroll8!(nt => {
                        unroll4!(e => {
                            let col = kv0 + 8 * nt + 2 * t + e % 2;
                            let masked = col >= l || (diagonal && col > row_of(mt, e / 2));
                            let x = &mut s[nt as usize][e as usize];
                            *x = if masked { f32::NEG_INFINITY } else { *x * scale2 };
                            let c = &mut mxc[(e / 2) as usize][(nt % CHAINS) as usize];
                            *c = c.max(*x);
                        });
                    });
                    let mx = if CHAINS == 1 {
                        [mxc[0][0], mxc[1][0]]
                    } else if CHAINS == 2 {
                        [mxc[0][0].max(mxc[0][1]), mxc[1][0].max(mxc[1][1])]
                    } else {
                        [mxc[0][0].max(mxc[0][1]).max(mxc[0][2].max(mxc[0][3])), mxc[1][0].max(mxc[1][1]).max(mxc[1][2].max(mxc[1][3]))]
                    };
                    let m_new = [m[0].max(quad_max(mx[0])), m[1].max(quad_max(mx[1]))];
                    let corr = [ex2_approx_f32(m[0] - m_new[0]), ex2_approx_f32(m[1] - m_new[1])];
                    *m = m_new;
                    // P = 2^(s - m), packed into the A fragments of P·V; running sums and O rescaled.
                    let mut sumc = [[0f32; 4]; 2]; // [half][chain]
                    unroll8!(nt => {
                        let x = &s[nt as usize];
                        let p = [ex2_approx_f32(x[0] - m[0]), ex2_approx_f32(x[1] - m[0]), ex2_approx_f32(x[2] - m[1]), ex2_approx_f32(x[3] - m[1])];
                        sumc[0][(nt % CHAINS) as usize] += p[0] + p[1];
                        sumc[1][(nt % CHAINS) as usize] += p[2] + p[3];
                        // n-tile nt is half (nt % 2) of k-step nt / 2: registers {0, 1} or {2, 3}.
                        p_frag[(nt / 2) as usize][(2 * (nt % 2)) as usize] = E::pack(p[0], p[1]);
                        p_frag[(nt / 2) as usize][(2 * (nt % 2) + 1) as usize] = E::pack(p[2], p[3]);
                    });
                    let sum = if CHAINS == 1 {
                        [sumc[0][0], sumc[1][0]]
                    } else if CHAINS == 2 {
                        [sumc[0][0] + sumc[0][1], sumc[1][0] + sumc[1][1]]
                    } else {
                        [(sumc[0][0] + sumc[0][1]) + (sumc[0][2] + sumc[0][3]), (sumc[1][0] + sumc[1][1]) + (sumc[1][2] + sumc[1][3])]
                    };
                    lsum[0] = lsum[0] * corr[0] + sum[0];
                    lsum[1] = lsum[1] * corr[1] + sum[1];
                    let o = &mut r_o[mt as usize];
                    unroll2!(h => {
                        unroll8!(i => {
                            if 8 * h + i < D / 8 {
                                let o = &mut o[(8 * h + i) as usize];
                                o[0] *= corr[0];
                                o[1] *= corr[0];
                                o[2] *= corr[1];
                                o[3] *= corr[1];
                            }
                        });
                    });
                }
            });
            // O += P · V: D/8 n-tiles, 4 k-steps of 16 keys; each V fragment feeds every m-tile.
            unroll4!(ks => {
                unroll8!(np => {
                    if np < D / 16 {
                        let b = ldmatrix_x4_trans(addr_rows_then_cols::<D>(s_v(st), BKV, 16 * ks, 16 * np, lane));
                        unroll2!(mt => {
                            if mt < MT {
                                E::mma(&mut r_o[mt as usize][2 * np as usize], r_p[mt as usize][ks as usize], [b[0], b[1]]);
                                E::mma(&mut r_o[mt as usize][2 * np as usize + 1], r_p[mt as usize][ks as usize], [b[2], b[3]]);
                            }
                        });
                    }
                });
            });
            // Everyone is done reading stage `st` before the next iteration's copy refills it.
            sync_threads();
        }

        // Epilogue: each m-tile's rows (`store_mtile`).
        let go = g_o.add(head_off);
        let lse = g_lse.add(head as usize * l as usize);
        unroll2!(mt => {
            if mt < MT {
                store_mtile::<E, D>(go, lse, l, [row_of(mt, 0), row_of(mt, 1)], t, &r_o[mt as usize], r_m[mt as usize], r_l[mt as usize]);
            }
        });
    }
}

/// The epilogue of one m-tile of 16 query rows, written once for a2–a5 and a11: this thread's rows
/// `row` (g and g + 8; stored only below `l`) get O / Σ — `o` is their `mma` C fragments, one per
/// 8 columns of D (columns 8nt + 2t, + 1), `sum` the per-thread running sums (summed across the quad
/// here) — and lane `t = 0` writes their natural log-sum-exp `(m + log2 Σ) · ln 2` (`m` in base 2).
///
/// # Safety
/// All 32 lanes of the warp, converged (quad shuffles); `go` and `lse` hold the head's `l · D` and `l`
/// elements.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn store_mtile<E: Elem16, const D: u32>(go: *mut u16, lse: *mut f32, l: u32, row: [u32; 2], t: u32, o: &[[f32; 4]; 16], m: [f32; 2], sum: [f32; 2]) {
    // SAFETY: forwarded (converged warp; stores only for rows < l and columns < D of the head).
    unsafe {
        let sum = [quad_sum(sum[0]), quad_sum(sum[1])];
        let inv = [1.0 / sum[0], 1.0 / sum[1]];
        unroll2!(h => {
            unroll8!(i => {
                let nt = 8 * h + i;
                if nt < D / 8 {
                    let o = &o[nt as usize];
                    let col = 8 * nt + 2 * t;
                    if row[0] < l {
                        *(go.add((row[0] * D + col) as usize) as *mut u32) = E::pack(o[0] * inv[0], o[1] * inv[0]);
                    }
                    if row[1] < l {
                        *(go.add((row[1] * D + col) as usize) as *mut u32) = E::pack(o[2] * inv[1], o[3] * inv[1]);
                    }
                }
            });
        });
        if t == 0 {
            if row[0] < l {
                *lse.add(row[0] as usize) = (m[0] + lg2_approx_f32(sum[0])) * core::f32::consts::LN_2;
            }
            if row[1] < l {
                *lse.add(row[1] as usize) = (m[1] + lg2_approx_f32(sum[1])) * core::f32::consts::LN_2;
            }
        }
    }
}

/// [`store_mtile`] into rows `ld` elements apart of which only the first `cols` columns are the head's
/// (one head of a packed `[tokens][heads][head_dim]` O: `ld = heads · head_dim`), the LSE of row `r` at
/// `lse + r · lse_ld`; offsets in 64 bits, as [`load_rows`]'s.
///
/// # Safety
/// All 32 lanes of the warp, converged; row `r < l` of `go` (at `r · ld`) holds `cols` writable elements
/// (4-byte aligned) and `lse + r · lse_ld` one f32.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn store_rows<E: Elem16, const D: u32>(go: *mut u16, ld: u32, cols: u32, lse: *mut f32, lse_ld: u32, l: u32, row: [u32; 2], t: u32, o: &[[f32; 4]; 16],
                                                        m: [f32; 2], sum: [f32; 2]) {
    // SAFETY: forwarded (converged warp; stores only for rows < l and columns < cols of the head).
    unsafe {
        let sum = [quad_sum(sum[0]), quad_sum(sum[1])];
        let inv = [1.0 / sum[0], 1.0 / sum[1]];
        unroll2!(h => {
            unroll8!(i => {
                let nt = 8 * h + i;
                if nt < D / 8 {
                    let o = &o[nt as usize];
                    let col = 8 * nt + 2 * t;
                    if row[0] < l && col < cols {
                        *(go.add(row[0] as usize * ld as usize + col as usize) as *mut u32) = E::pack(o[0] * inv[0], o[1] * inv[0]);
                    }
                    if row[1] < l && col < cols {
                        *(go.add(row[1] as usize * ld as usize + col as usize) as *mut u32) = E::pack(o[2] * inv[1], o[3] * inv[1]);
                    }
                }
            });
        });
        if t == 0 {
            if row[0] < l {
                *lse.add(row[0] as usize * lse_ld as usize) = (m[0] + lg2_approx_f32(sum[0])) * core::f32::consts::LN_2;
            }
            if row[1] < l {
                *lse.add(row[1] as usize * lse_ld as usize) = (m[1] + lg2_approx_f32(sum[1])) * core::f32::consts::LN_2;
            }
        }
    }
}

//! Attention step a2: **FlashAttention-2** with `mma.sync` — S and P never leave the registers.
//!
//! Diff from a1 (S = QKᵀ in global memory, a softmax kernel, O = PV): one block per 64 query rows of
//! one head; each of its 4 warps owns 16 rows for the whole key range, so no warp ever needs another's
//! partial results. Per tile of 64 keys:
//! * K and V tiles arrive by `cp.async` (16-byte chunks, rows past L zero-filled) into a 2-stage ring,
//!   the next tile's copy in flight while this one computes; every tile is `Swizzle<log2(D)-3, 3, 3>`
//!   ([`layout::attention::tile`]), so the `ldmatrix` phases are conflict-free (8-way unswizzled);
//! * `S (16×64) = Q·Kᵀ`: Q's A fragments loaded once (`ldmatrix.x4`), K's B fragments by `ldmatrix.x4`
//!   (K rows are B's columns: no transpose), 8 × D/16 `mma.m16n8k16`, f32;
//! * online softmax in base 2 on the fragments (each thread holds 2 rows × 16 columns; row max and sum
//!   over the 4 threads of a quad with 2 shuffles): masked scores (key ≥ L, or key > query with the causal
//!   mask) are −∞; `m_new = max(m, rowmax)`, `p = 2^(s − m_new)`, the running sum and O rescaled by
//!   `2^(m − m_new)`; the sum stays per-thread until the end (one quad reduction per row in total);
//! * `O (16×D) += P·V`: P's f32 C fragments *are* the A fragments of the next `mma` once packed to 16
//!   bits (the m16n8 C layout of two adjacent n-tiles is the m16k16 A layout); V's B fragments by
//!   `ldmatrix.x4.trans` (V rows are B's k).
//! The epilogue divides by the row sums and writes O and `lse = (m + log2 Σ) · ln 2`. With the causal
//! mask a query tile visits key tiles 0 ..= its own ([`layout::attention::kv_tiles`]).
//!
//! Prediction: FA2's published forward on an H100 is ~330–340 TFLOP/s at head dim 128 (`mma.sync`
//! cannot feed Hopper's tensor cores); this first version, without FA2's tuned tile shapes (128 query
//! rows × 8 warps at D = 64), should reach 0.6–0.8× torch's flash backend, and 3–6× the unfused path at
//! L ≥ 4096 (which moves L² f32 twice per head).
use crate::hgemm::elem::{Bf16, Elem16, F16};
use crate::launch_bounds::launch_bounds;
use crate::util::unroll::{unroll2, unroll4, unroll8};
use crate::prim::{
    cp_async::{cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group},
    ldmatrix::{ldmatrix_x4, ldmatrix_x4_trans},
    math::{ex2_approx_f32, lg2_approx_f32},
    shared::{Align16, addr_of, dynamic},
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, lane_id, thread_idx_x},
    warp::shuffle_xor_f32,
};
use layout::{
    Layout,
    attention::{BKV, BQ, THREADS, TileOf, fa2_tile_bytes, kv_tiles, tile},
};

/// Flash attention forward, head dim 64, f16: `o = softmax(q·kᵀ · scale) · v` per head (causal if
/// `causal != 0`), `lse` the natural log-sum-exp of each row.
///
/// # Safety
/// `q`, `k`, `v` readable and `o` writable with `heads · l · 64` elements (`[heads][l][64]`), `lse` with
/// `heads · l` f32; launched with grid `(⌈l/64⌉, heads)`, 128 threads and `fa2_smem(64)` bytes of
/// dynamic shared memory.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2_d64_f16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<F16, 64>(q, k, v, o, lse, l, scale, causal) }
}

/// [`attn_fa2_d64_f16`] with head dim 128 (`fa2_smem(128)` bytes of shared memory).
///
/// # Safety
/// As [`attn_fa2_d64_f16`] with 128 for 64.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2_d128_f16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<F16, 128>(q, k, v, o, lse, l, scale, causal) }
}

/// [`attn_fa2_d64_f16`] on bf16.
///
/// # Safety
/// As [`attn_fa2_d64_f16`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2_d64_bf16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<Bf16, 64>(q, k, v, o, lse, l, scale, causal) }
}

/// [`attn_fa2_d128_f16`] on bf16.
///
/// # Safety
/// As [`attn_fa2_d128_f16`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_fa2_d128_bf16(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
    // SAFETY: forwarded.
    unsafe { flash::<Bf16, 128>(q, k, v, o, lse, l, scale, causal) }
}

/// Copies rows `row0 .. row0 + rows` of a head's `l × D` matrix at `g` into the swizzled tile at
/// `s_tile` (16-byte `cp.async` chunks, thread `tid` taking chunks `tid, tid + 128, …`; rows past `l`
/// zero-filled, their source clamped to row 0 so no address leaves the matrix).
///
/// # Safety
/// `g` holds `l · D` readable 16-bit elements (`l ≥ 1`), 16-byte aligned rows (D = 64 or 128);
/// `s_tile` is a `.shared` tile of `rows × D` elements nobody reads until the copy group completes.
#[inline(always)]
unsafe fn load_tile<const D: u32>(s_tile: u32, g: *const u16, row0: u32, rows: u32, l: u32, tid: u32) {
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
        c += THREADS;
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
unsafe fn quad_max(v: f32) -> f32 {
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
unsafe fn quad_sum(v: f32) -> f32 {
    // SAFETY: forwarded.
    unsafe {
        let v = v + shuffle_xor_f32(v, 1);
        v + shuffle_xor_f32(v, 2)
    }
}

/// The kernel body for input type `E` and head dim `D` (64 or 128).
///
/// # Safety
/// As [`attn_fa2_d64_f16`] for `D`.
#[inline(always)]
unsafe fn flash<E: Elem16, const D: u32>(g_q: *const u16, g_k: *const u16, g_v: *const u16, g_o: *mut u16, g_lse: *mut f32, l: u32, scale: f32, causal: u32) {
    let (qt, head) = (block_idx_x(), block_idx_y());
    let (tid, lane) = (thread_idx_x(), lane_id());
    let warp = tid / 32;
    let (g, t) = (lane / 4, lane % 4);
    let head_off = head as usize * l as usize * D as usize;
    let q0 = qt * BQ;
    let s_base = addr_of(dynamic::<Align16>());
    let s_q = s_base + fa2_tile_bytes(D, TileOf::Q, 0);
    let s_k = |st: u32| s_base + fa2_tile_bytes(D, TileOf::K, st);
    let s_v = |st: u32| s_base + fa2_tile_bytes(D, TileOf::V, st);
    let n_tiles = kv_tiles(l, qt, causal != 0);
    let scale2 = scale * core::f32::consts::LOG2_E;
    // This thread's two query rows.
    let (row_lo, row_hi) = (q0 + 16 * warp + g, q0 + 16 * warp + g + 8);

    // SAFETY (the whole body): global reads and writes stay inside the head's matrices (`load_tile`'s
    // clamping, stores only for rows < l); shared tiles are written by `cp.async` groups and read only
    // after `cp_async_wait_group` and a block barrier, and a stage is refilled only after the barrier that
    // ends the iteration which read it; all `ldmatrix`/`mma`/shuffles are executed by full warps (no
    // divergence before them: every branch below is uniform per block or per warp).
    unsafe {
        let (gq, gk, gv) = (g_q.add(head_off), g_k.add(head_off), g_v.add(head_off));
        load_tile::<D>(s_q, gq, q0, BQ, l, tid);
        load_tile::<D>(s_k(0), gk, 0, BKV, l, tid);
        load_tile::<D>(s_v(0), gv, 0, BKV, l, tid);
        cp_async_commit_group();

        // Q's A fragments (16 rows of this warp × D), loaded at the first iteration.
        let mut r_q = [[0u32; 4]; 8]; // [k-step] (D/16 ≤ 8)
        let mut r_o = [[0f32; 4]; 16]; // [n-tile of 8 columns of D] (D/8 ≤ 16)
        let (mut m_lo, mut m_hi) = (-1e30f32, -1e30f32);
        let (mut l_lo, mut l_hi) = (0f32, 0f32);

        for j in 0..n_tiles {
            let st = j % 2;
            if j + 1 < n_tiles {
                load_tile::<D>(s_k(1 - st), gk, (j + 1) * BKV, BKV, l, tid);
                load_tile::<D>(s_v(1 - st), gv, (j + 1) * BKV, BKV, l, tid);
            }
            cp_async_commit_group();
            cp_async_wait_group::<1>();
            sync_threads();
            // Loops over fragments are `unroll!`ed (with `D`-dependent bounds folded per instantiation), so
            // every fragment array index is a constant and the arrays stay in registers (plain loops left
            // r_o and r_q in local memory: 256/448-byte stack frames).
            if j == 0 {
                unroll8!(ks => {
                    if ks < D / 16 {
                        r_q[ks as usize] = ldmatrix_x4(addr_rows_then_cols::<D>(s_q, BQ, 16 * warp, 16 * ks, lane));
                    }
                });
            }
            // S = Q · Kᵀ: 8 n-tiles of 8 keys.
            let mut r_s = [[0f32; 4]; 8];
            unroll8!(ks => {
                if ks < D / 16 {
                    unroll4!(np => {
                        let b = ldmatrix_x4(addr_cols_then_rows::<D>(s_k(st), BKV, 16 * np, 16 * ks, lane));
                        E::mma(&mut r_s[2 * np as usize], r_q[ks as usize], [b[0], b[1]]);
                        E::mma(&mut r_s[2 * np as usize + 1], r_q[ks as usize], [b[2], b[3]]);
                    });
                }
            });
            // Scale to base 2, mask, row max.
            let kv0 = j * BKV;
            let diagonal = causal != 0 && j == qt;
            let (mut mx_lo, mut mx_hi) = (-1e30f32, -1e30f32);
            unroll8!(nt => {
                unroll4!(e => {
                    let col = kv0 + 8 * nt + 2 * t + e % 2;
                    let row = if e < 2 { row_lo } else { row_hi };
                    let masked = col >= l || (diagonal && col > row);
                    let x = &mut r_s[nt as usize][e as usize];
                    *x = if masked { f32::NEG_INFINITY } else { *x * scale2 };
                    if e < 2 { mx_lo = mx_lo.max(*x) } else { mx_hi = mx_hi.max(*x) }
                });
            });
            let (m_new_lo, m_new_hi) = (m_lo.max(quad_max(mx_lo)), m_hi.max(quad_max(mx_hi)));
            let (c_lo, c_hi) = (ex2_approx_f32(m_lo - m_new_lo), ex2_approx_f32(m_hi - m_new_hi));
            (m_lo, m_hi) = (m_new_lo, m_new_hi);
            // P = 2^(s - m), packed into the A fragments of P·V; running sums and O rescaled.
            let mut r_p = [[0u32; 4]; 4]; // [k-step of 16 keys]
            let (mut sum_lo, mut sum_hi) = (0f32, 0f32);
            unroll8!(nt => {
                let s = &r_s[nt as usize];
                let p = [ex2_approx_f32(s[0] - m_lo), ex2_approx_f32(s[1] - m_lo), ex2_approx_f32(s[2] - m_hi), ex2_approx_f32(s[3] - m_hi)];
                sum_lo += p[0] + p[1];
                sum_hi += p[2] + p[3];
                // n-tile nt is half (nt % 2) of k-step nt / 2: registers {0, 1} or {2, 3}.
                r_p[(nt / 2) as usize][(2 * (nt % 2)) as usize] = E::pack(p[0], p[1]);
                r_p[(nt / 2) as usize][(2 * (nt % 2) + 1) as usize] = E::pack(p[2], p[3]);
            });
            l_lo = l_lo * c_lo + sum_lo;
            l_hi = l_hi * c_hi + sum_hi;
            unroll2!(h => {
                unroll8!(i => {
                    if 8 * h + i < D / 8 {
                        let o = &mut r_o[(8 * h + i) as usize];
                        o[0] *= c_lo;
                        o[1] *= c_lo;
                        o[2] *= c_hi;
                        o[3] *= c_hi;
                    }
                });
            });
            // O += P · V: D/8 n-tiles, 4 k-steps of 16 keys.
            unroll4!(ks => {
                unroll8!(np => {
                    if np < D / 16 {
                        let b = ldmatrix_x4_trans(addr_rows_then_cols::<D>(s_v(st), BKV, 16 * ks, 16 * np, lane));
                        E::mma(&mut r_o[2 * np as usize], r_p[ks as usize], [b[0], b[1]]);
                        E::mma(&mut r_o[2 * np as usize + 1], r_p[ks as usize], [b[2], b[3]]);
                    }
                });
            });
            // Everyone is done reading stage `st` before the next iteration's copy refills it.
            sync_threads();
        }

        // Epilogue: the rows' full sums, O / sum, lse.
        let (sum_lo, sum_hi) = (quad_sum(l_lo), quad_sum(l_hi));
        let (inv_lo, inv_hi) = (1.0 / sum_lo, 1.0 / sum_hi);
        let go = g_o.add(head_off);
        unroll2!(h => {
            unroll8!(i => {
                let nt = 8 * h + i;
                if nt < D / 8 {
                    let o = &r_o[nt as usize];
                    let col = 8 * nt + 2 * t;
                    if row_lo < l {
                        *(go.add((row_lo * D + col) as usize) as *mut u32) = E::pack(o[0] * inv_lo, o[1] * inv_lo);
                    }
                    if row_hi < l {
                        *(go.add((row_hi * D + col) as usize) as *mut u32) = E::pack(o[2] * inv_hi, o[3] * inv_hi);
                    }
                }
            });
        });
        if t == 0 {
            let lse = g_lse.add(head as usize * l as usize);
            if row_lo < l {
                *lse.add(row_lo as usize) = (m_lo + lg2_approx_f32(sum_lo)) * core::f32::consts::LN_2;
            }
            if row_hi < l {
                *lse.add(row_hi as usize) = (m_hi + lg2_approx_f32(sum_hi)) * core::f32::consts::LN_2;
            }
        }
    }
}

launch_bounds!(attn_fa2_d64_f16, 128);
launch_bounds!(attn_fa2_d128_f16, 128);
launch_bounds!(attn_fa2_d64_bf16, 128);
launch_bounds!(attn_fa2_d128_bf16, 128);

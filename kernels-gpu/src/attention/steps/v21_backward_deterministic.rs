//! Backward step b2 (issue 50): b1 with a **deterministic dQ** — bitwise the same gradients on every run.
//!
//! b1 adds each key block's share of dQ with `red.global.add.f32`, in whatever order the CTAs reach it,
//! so dQ's last bits move from run to run (dK and dV do not: one CTA sums each). b2 computes dQ where no
//! order can change, at the price of recomputing the scores:
//! * [`attn_bwd_b2kv_d128_bf16`] (and the other types and widths): b1's body without the dQ products —
//!   no dSᵀ tile, no atomics, no f32 accumulator (the same barrier count per tile);
//! * [`attn_bwd_b2dq_d128_bf16`]: one CTA per (64 query rows, query head, sequence), 4 warps of 16 rows, the
//!   forward's shape: it streams its K/V head's 64-key tiles (`cp.async`, 2 stages) and per tile recomputes
//!   `S = Q · Kᵀ`, `P = 2^(S · scale · log2 e − log2(e) · LSE)`, `dP = dO · Vᵀ`, `dS = P ∘ (dP − D)`, then
//!   `dQ += dS · K` with dS straight from the accumulators (as P in the forward's P·V, K's fragments
//!   `.trans`). Each dQ element is summed by one thread over the keys in order and stored once.
//! The preprocessing kernel is b1's; no memset and no conversion kernel.
//!
//! Prediction (before any run, H200, bf16): seven GEMMs' work instead of five (Sᵀ and dPᵀ twice), but the
//! dQ kernel streams K and V once per query tile like the forward and skips b1's dSᵀ round trip and 8192
//! atomics per tile; b1 is bound by shared-memory bytes (0.58 `ldmatrix` per `mma`), and the dQ kernel
//! reads 0.58 per `mma` too (per 64-key tile and warp: 8 + 8 Q/dO, 32 + 32 K/V, 32 K `.trans` for 192
//! `mma`). So time ≈ b1 × (1 − dQ's share ≈ 0.2) + the dQ kernel (≈ 3/5 of b1's per-`mma` rate on 3/5 of
//! its products): **1.3–1.5× b1's time**, i.e. 130–150 TFLOP/s at D = 128.
//!
//! Measured (H200, bf16, `results/2026-11-29-h200-session51/call2-b2`, 3 processes, interleaved with b1):
//! **0.86–0.93× b1's time** — faster, not slower: 181–215 TFLOP/s at D = 128, 171–201 at D = 64, 0.69–0.81×
//! torch's FA2. The prediction was wrong in sign: b1's dQ share (the dSᵀ store, a third barrier's worth of
//! waiting, 64 × D atomics per tile through L2) cost more than recomputing Sᵀ and dPᵀ in a kernel that
//! runs 2 CTAs per SM at 178 registers (`ncu`: 723 of ~1680 µs, L1 75%, SM 44%). Every gradient bitwise
//! equal over 10 runs; b2 became the library's default (`DqMode::Deterministic`; since session 67 the default,
//! `DqMode::Fastest`, runs b2 where the GPU has no `wgmma` and b4 where it has).
use super::fa2_backward::{COL64, backward, load_rows, row16, sequence, xor};
use crate::hgemm::elem::{Bf16, Elem16, F16};
use crate::prim::{
    cp_async::{cp_async_commit_group, cp_async_wait_group},
    ldmatrix::{ldmatrix_x4, ldmatrix_x4_trans},
    math::{ex2_approx_f32, fma_rn_f32},
    shared::{Align16, addr_of, dynamic},
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, block_idx_z, lane_id, thread_idx_x},
};
use crate::util::{
    opaque,
    unroll::{unroll2, unroll4, unroll8, unroll16},
};
use layout::{
    Layout,
    attention::{BWD_DQ_BKV, BWD_DQ_BQ, BackwardDims as Dims, BwdTile, bwd_dq_offset, kv_tiles_off, needs_mask_off, tile},
};

/// The dQ kernel's body for element type `E` and head dim `D` (64 or 128): grid `(⌈max q_len / 64⌉,
/// heads, batch)`, 128 threads, `bwd_dq_smem(D)` bytes.
///
/// # Safety
/// As the entries.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn backward_dq<E: Elem16, const D: u32>(q: *const u16, k: *const u16, v: *const u16, d_o: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32,
                                                dq: *mut u16, dims: Dims) {
    let (qt, h, b) = (block_idx_x(), block_idx_y(), block_idx_z());
    let (tid, lane) = (thread_idx_x(), lane_id());
    let warp = tid / 32;
    let (g, t) = (lane / 4, lane % 4);
    // SAFETY (the whole body): global reads stay inside the sequence's rows (`load_rows` clamps and
    // zero-fills past the lengths; the row statistics are read for rows below q_len only), stores only
    // for rows below q_len; shared tiles are written by `cp.async` groups and read after
    // `cp_async_wait_group` and a barrier, and a stage is refilled only after the barrier that ends the
    // tile which read it; every `ldmatrix`, `mma` runs in full warps (branches before them are uniform).
    unsafe {
        let (q_start, q_len, k_start, k_len) = sequence(cu_q, cu_k, b);
        if qt * BWD_DQ_BQ >= q_len {
            return;
        }
        let causal = dims.causal != 0;
        let off = k_len.wrapping_sub(q_len); // bottom-right alignment (k_len ≥ q_len when causal)
        let hk = h / dims.group.max(1);
        let kv_heads = dims.heads / dims.group.max(1);
        let qbase = q_start as usize * (dims.heads * D) as usize + h as usize * dims.q_head as usize;
        let kbase = k_start as usize * (kv_heads * D) as usize + hk as usize * dims.k_head as usize;
        let n_kt = kv_tiles_off(k_len, BWD_DQ_BQ, BWD_DQ_BKV, qt, causal, off);
        let s_base = addr_of(dynamic::<Align16>());
        let (s_q, s_do) = (s_base + bwd_dq_offset(D, BwdTile::Q, 0), s_base + bwd_dq_offset(D, BwdTile::DO, 0));
        let s_k = |st: u32| s_base + bwd_dq_offset(D, BwdTile::K, st);
        let v_off = bwd_dq_offset(D, BwdTile::V, 0) - bwd_dq_offset(D, BwdTile::K, 0);
        let threads = 32 * layout::attention::BWD_DQ_WARPS;
        let load_kv = |j: u32, st: u32| {
            load_rows::<D>(s_k(st), k.add(kbase), dims.k_tok, j * BWD_DQ_BKV, BWD_DQ_BKV, k_len, tid, threads);
            load_rows::<D>(s_k(st) + v_off, v.add(kbase), dims.k_tok, j * BWD_DQ_BKV, BWD_DQ_BKV, k_len, tid, threads);
        };
        load_rows::<D>(s_q, q.add(qbase), dims.q_tok, qt * BWD_DQ_BQ, BWD_DQ_BQ, q_len, tid, threads);
        load_rows::<D>(s_do, d_o.add(qbase), dims.q_tok, qt * BWD_DQ_BQ, BWD_DQ_BQ, q_len, tid, threads);
        if n_kt > 0 {
            load_kv(0, 0);
        }
        cp_async_commit_group();

        // This thread's rows qt·64 + 16w + g (+ 8): their log2(e)·LSE and D (0 past q_len, rows not stored).
        let row = |hh: u32| qt * BWD_DQ_BQ + 16 * warp + g + 8 * hh;
        let stat = |which: u32, hh: u32| {
            let r = row(hh);
            if r < q_len { *stats.add((which * dims.heads + h) as usize * dims.tokens_q as usize + (q_start + r) as usize) } else { 0.0 }
        };
        let (l2, dd) = ([stat(0, 0), stat(0, 1)], [stat(1, 0), stat(1, 1)]);
        let scale2 = dims.scale * core::f32::consts::LOG2_E;
        let (tq, tkv) = (tile(BWD_DQ_BQ, D), tile(BWD_DQ_BKV, D));
        const { assert!(BWD_DQ_BQ == 64 && BWD_DQ_BKV == 64) };
        let row16 = const { row16::<D>() };
        // Lane offsets at column block 0: Q's and dO's A fragments (rows 16w..), K's and V's B fragments
        // for Kᵀ, Vᵀ (key rows 0..16), K's `.trans` B fragments (k = key rows 0..16).
        let a_base = 2 * tq.offset(16 * warp + lane % 16, 8 * (lane / 16));
        let b_base = 2 * tkv.offset(8 * (lane / 16) + lane % 8, 8 * (lane / 8 % 2));
        let t_base = 2 * tkv.offset(lane % 16, 8 * (lane / 16));
        let mut r_dq = [[0f32; 4]; 16]; // [n-tile of 8 columns of D]
        for j in 0..n_kt {
            let st = j % 2;
            if j + 1 < n_kt {
                load_kv(j + 1, 1 - st);
            }
            cp_async_commit_group();
            cp_async_wait_group::<1>();
            sync_threads();
            let sk = s_k(st);
            let (a0, b0, t0) = (opaque(a_base), opaque(b_base), opaque(t_base));
            // S = Q · Kᵀ and dP = dO · Vᵀ: the warp's 16 rows × the tile's 64 keys.
            let mut s = [[0f32; 4]; 8];
            let mut dp = [[0f32; 4]; 8];
            unroll8!(ks => {
                if ks < D / 16 {
                    let a_at = (a0 ^ xor::<D>(ks)) + (ks / 4) * COL64;
                    let (aq, ado) = (ldmatrix_x4(s_q + a_at), ldmatrix_x4(s_do + a_at));
                    unroll4!(np => {
                        let b_at = sk + (b0 ^ xor::<D>(ks)) + (ks / 4) * COL64 + np * row16;
                        let bk = ldmatrix_x4(b_at);
                        E::mma(&mut s[2 * np as usize], aq, [bk[0], bk[1]]);
                        E::mma(&mut s[2 * np as usize + 1], aq, [bk[2], bk[3]]);
                        let bv = ldmatrix_x4(b_at + v_off);
                        E::mma(&mut dp[2 * np as usize], ado, [bv[0], bv[1]]);
                        E::mma(&mut dp[2 * np as usize + 1], ado, [bv[2], bv[3]]);
                    });
                }
            });
            // P (the mask only on the tiles that need it, below), dS packed into the A fragments of dS · K.
            unroll8!(nt => {
                unroll4!(e => {
                    let x = &mut s[nt as usize][e as usize];
                    *x = ex2_approx_f32(fma_rn_f32(*x, scale2, -l2[(e / 2) as usize]));
                });
            });
            // The mask also runs on the tile past the keys' end (P = 0 there: zero K rows would give P =
            // e^(−LSE), and dS · 0 = NaN once dS overflows); key 64j + 8nt + 2t + e % 2 is hidden past
            // min(row + off, k_len − 1) (causal) or k_len − 1.
            if (j + 1) * BWD_DQ_BKV > k_len || (causal && needs_mask_off(BWD_DQ_BQ, BWD_DQ_BKV, qt, j, off)) {
                let lim: [i32; 2] = core::array::from_fn(|hh| {
                    let last = if causal { (row(hh as u32) + off).min(k_len - 1) } else { k_len - 1 };
                    last as i32 - (j * BWD_DQ_BKV + 2 * t) as i32
                });
                unroll8!(nt => {
                    unroll4!(e => {
                        if (8 * nt + e % 2) as i32 > lim[(e / 2) as usize] {
                            s[nt as usize][e as usize] = 0.0;
                        }
                    });
                });
            }
            let mut r_ds = [[0u32; 4]; 4]; // [k-step of 16 keys]
            unroll8!(nt => {
                let p = &s[nt as usize];
                let x = &dp[nt as usize];
                let ds = [p[0] * (x[0] - dd[0]), p[1] * (x[1] - dd[0]), p[2] * (x[2] - dd[1]), p[3] * (x[3] - dd[1])];
                r_ds[(nt / 2) as usize][(2 * (nt % 2)) as usize] = E::pack(ds[0], ds[1]);
                r_ds[(nt / 2) as usize][(2 * (nt % 2) + 1) as usize] = E::pack(ds[2], ds[3]);
            });
            // dQ += dS · K: k-steps of 16 keys, K's B fragments `.trans` (16 columns of D each).
            unroll4!(ks => {
                unroll8!(np => {
                    if np < D / 16 {
                        let bk = ldmatrix_x4_trans(sk + (t0 ^ xor::<D>(np)) + (np / 4) * COL64 + ks * row16);
                        E::mma(&mut r_dq[2 * np as usize], r_ds[ks as usize], [bk[0], bk[1]]);
                        E::mma(&mut r_dq[2 * np as usize + 1], r_ds[ks as usize], [bk[2], bk[3]]);
                    }
                });
            });
            // Everyone is done reading stage `st` before the next tile's copy refills it.
            sync_threads();
        }
        // Epilogue: dQ = scale · Σ, this thread's two rows below q_len, columns 8nt + 2t.
        let go = dq.add(qbase);
        unroll2!(hh => {
            let r = row(hh);
            if r < q_len {
                let p = go.add(r as usize * dims.q_tok as usize);
                unroll16!(nt => {
                    if nt < D / 8 {
                        let x = &r_dq[nt as usize];
                        *(p.add((8 * nt + 2 * t) as usize) as *mut u32) = E::pack(x[2 * hh as usize] * dims.scale, x[2 * hh as usize + 1] * dims.scale);
                    }
                });
            }
        });
    }
}

/// The entries of one element type and head dim.
macro_rules! deterministic_entries {
    ($kv:ident, $dq:ident, $e:ty, $d:literal) => {
        /// b2's dK and dV: b1 without dQ (its `dq_acc` argument is not touched and may be null).
        ///
        /// # Safety
        /// As `attn_bwd_b1_d128_bf16`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $kv(q: *const u16, k: *const u16, v: *const u16, d_o: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32,
                                              dq_acc: *mut f32, dk: *mut u16, dv: *mut u16, dims: Dims) {
            // SAFETY: forwarded.
            unsafe { backward::<$e, $d, false>(q, k, v, d_o, stats, cu_q, cu_k, dq_acc, dk, dv, dims) }
        }
        $crate::launch_bounds::launch_bounds!($kv, 256, 1);

        /// b2's dQ: each element summed over the keys by one thread, in order, and stored once (see the
        /// module docs).
        ///
        /// # Safety
        /// Q, K, V, dO, `stats`, the offsets as in `attn_bwd_b1_d128_bf16`; `dq` holds Q's elements, written
        /// by nothing else meanwhile. Grid `(⌈max q_len / 64⌉, heads, batch)`, 128 threads, `bwd_dq_smem(D)`
        /// bytes of dynamic shared memory.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $dq(q: *const u16, k: *const u16, v: *const u16, d_o: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32,
                                              dq: *mut u16, dims: Dims) {
            // SAFETY: forwarded.
            unsafe { backward_dq::<$e, $d>(q, k, v, d_o, stats, cu_q, cu_k, dq, dims) }
        }
        $crate::launch_bounds::launch_bounds!($dq, 128);
    };
}

deterministic_entries!(attn_bwd_b2kv_d64_f16, attn_bwd_b2dq_d64_f16, F16, 64);
deterministic_entries!(attn_bwd_b2kv_d128_f16, attn_bwd_b2dq_d128_f16, F16, 128);
deterministic_entries!(attn_bwd_b2kv_d64_bf16, attn_bwd_b2dq_d64_bf16, Bf16, 64);
deterministic_entries!(attn_bwd_b2kv_d128_bf16, attn_bwd_b2dq_d128_bf16, Bf16, 128);

//! The attention backward's shared pieces (issue 50): b1's body [`backward`] (with `DQ = false` b2's
//! dK/dV kernel), the preprocessing [`prep`], dQ's conversion [`convert_dq`], and the tile helpers b2's dQ
//! kernel also uses. Steps b1 (`steps/v20_backward_fa2.rs`, whose file explains the kernel) and b2
//! (`steps/v21_backward_deterministic.rs`) hold the entries.
use crate::hgemm::elem::Elem16;
use crate::prim::{
    atomic::red_add_relaxed_gpu_f32,
    cp_async::{cp_async_ca_4_zfill, cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group},
    global::ld_global_nc_s32,
    ldmatrix::{ldmatrix_x4, ldmatrix_x4_trans},
    math::{ex2_approx_f32, fma_rn_f32},
    shared::{Align16, addr_of, dynamic},
    sync::sync_threads,
    thread::{block_dim_x, block_idx_x, block_idx_y, block_idx_z, grid_dim_x, lane_id, thread_idx_x},
    warp::shuffle_xor_f32,
};
use crate::util::{
    opaque,
    unroll::{unroll2, unroll4, unroll8},
};
use layout::{
    Layout,
    attention::{BWD_BKV, BWD_BQ, BWD_WARPS, BackwardDims as Dims, BwdTile, bwd_first_q_tile, bwd_needs_mask, bwd_offset, threads, tile},
};

/// A constant offset the layout promises (`row_step`, `col_step`, `col_xor`); a compile error where it has none.
pub(super) const fn step(d: Option<u32>) -> u32 {
    match d {
        Some(d) => d,
        None => panic!("the layout's offsets do not move by a constant over that step"),
    }
}

/// Bytes between 16 rows of the Q, dO, K and V tiles (their rows are all `D` wide; `D` 64 or 128).
pub(super) const fn row16<const D: u32>() -> u32 {
    2 * step(tile(BWD_BQ, D).row_step(16))
}
/// Bytes between the two 64-column halves of a D = 128 row.
pub(super) const COL64: u32 = 2 * step(tile(BWD_BQ, 128).col_step(64));
/// Byte XOR from column block 0 to column block `16·(i % 4)` of a `D`-wide tile.
pub(super) const fn xor<const D: u32>(i: u32) -> u32 {
    2 * step(tile(BWD_BQ, D).col_xor(16 * (i % 4)))
}
/// Bytes between 8 rows, and 16 rows, of the dSᵀ tile (`BWD_BKV × BWD_BQ`).
pub(super) const DS_ROW8: u32 = 2 * step(tile(BWD_BKV, BWD_BQ).row_step(8));
pub(super) const DS_ROW16: u32 = 2 * step(tile(BWD_BKV, BWD_BQ).row_step(16));

/// This lane's byte offsets at column block 0 in b1's tiles; every other fragment is one of these XOR a
/// column block ([`xor`]) plus immediates (16 rows, 64 columns), all promised by the layout:
/// * `ka`: K's and V's A fragments, rows `16w..16w + 16` (non-transposed: matrices (r 0–7, c 0–7),
///   (8–15, 0–7), (0–7, 8–15), (8–15, 8–15));
/// * `qb`: Q's and dO's B fragments for `Qᵀ`, `dOᵀ` (matrices (0–7, 0–7), (0–7, 8–15), (8–15, 0–7),
///   (8–15, 8–15): two k-halves of one n-tile, then the next);
/// * `qt`: Q's and dO's `.trans` B fragments (k = query rows), `ka`'s matrix order at rows 0..16;
/// * `ds_st`: this thread's dSᵀ store (key row 16w + g, columns 2t);
/// * `dsa`: dS's `.trans` A fragments from dSᵀ (rows = keys, columns the warp's 16 query rows `m0`);
/// * `kt`: K's `.trans` B fragments for dQ, columns from the warp's `c0`.
#[derive(Clone, Copy)]
struct Bases {
    ka: u32,
    qb: u32,
    qt: u32,
    ds_st: u32,
    dsa: u32,
    kt: u32,
}

impl Bases {
    #[inline(always)]
    fn new<const D: u32>(warp: u32, lane: u32) -> Bases {
        let (tq, tkv, tds) = (tile(BWD_BQ, D), tile(BWD_BKV, D), tile(BWD_BKV, BWD_BQ));
        let (r_rc, c_rc) = (lane % 16, 8 * (lane / 16));
        let (r_cr, c_cr) = (8 * (lane / 16) + lane % 8, 8 * (lane / 8 % 2));
        let (m0, c0) = (16 * (warp % 4), (warp / 4) * (D / 2));
        Bases {
            ka: 2 * tkv.offset(16 * warp + r_rc, c_rc),
            qb: 2 * tq.offset(r_cr, c_cr),
            qt: 2 * tq.offset(r_rc, c_rc),
            ds_st: bwd_offset(D, BwdTile::DS, 0) + 2 * tds.offset(16 * warp + lane / 4, 2 * (lane % 4)),
            dsa: 2 * tds.offset(r_cr, m0 + c_cr),
            kt: 2 * tkv.offset(r_rc, c0 + c_rc),
        }
    }

    /// The same offsets through [`opaque`] (no instruction).
    #[inline(always)]
    fn fresh(&self) -> Bases {
        Bases { ka: opaque(self.ka), qb: opaque(self.qb), qt: opaque(self.qt), ds_st: opaque(self.ds_st), dsa: opaque(self.dsa), kt: opaque(self.kt) }
    }
}

/// Copies rows `row0 .. row0 + rows` (of `len`) of a matrix whose row `r` starts at `g + r · stride`
/// (16-bit elements, `D` of them) into the swizzled `rows × D` tile at `s_tile`, 16-byte `cp.async`
/// chunks taken by thread `tid` of `nthreads`; rows past `len` zero-filled from a clamped source.
///
/// # Safety
/// `g + r · stride` is `D` readable elements, 16-byte aligned, for every `r < len` (`len ≥ 1` where any
/// row is valid); `s_tile` is a `.shared` tile nobody reads until the copy group completes.
#[inline(always)]
pub(super) unsafe fn load_rows<const D: u32>(s_tile: u32, g: *const u16, stride: u32, row0: u32, rows: u32, len: u32, tid: u32, nthreads: u32) {
    let t = tile(rows, D);
    let mut c = tid;
    while c < rows * D / 8 {
        let (r, col) = (c / (D / 8), 8 * (c % (D / 8)));
        let valid = row0 + r < len;
        let src = if valid { (row0 + r) as usize * stride as usize } else { 0 };
        // SAFETY: a valid row is inside the matrix (the caller), an invalid one reads 0 bytes from the
        // matrix's first row; the destination chunk lies inside the tile.
        unsafe { cp_async_cg_16_zfill(s_tile + 2 * t.offset(r, col), g.add(src + col as usize) as *const u8, if valid { 16 } else { 0 }) };
        c += nthreads;
    }
}

/// The sequence's offsets `(q0, q_len, k0, k_len)` from the `batch + 1` offsets `cu_q`, `cu_k`.
///
/// # Safety
/// `cu_q` and `cu_k` hold `block_idx_z() + 2` readable i32 each.
#[inline(always)]
pub(super) unsafe fn sequence(cu_q: *const i32, cu_k: *const i32, b: u32) -> (u32, u32, u32, u32) {
    // SAFETY: forwarded.
    unsafe {
        let (q0, q1) = (ld_global_nc_s32(cu_q.add(b as usize)) as u32, ld_global_nc_s32(cu_q.add(b as usize + 1)) as u32);
        let (k0, k1) = (ld_global_nc_s32(cu_k.add(b as usize)) as u32, ld_global_nc_s32(cu_k.add(b as usize + 1)) as u32);
        (q0, q1 - q0, k0, k1 - k0)
    }
}

/// The b1 body for element type `E` and head dim `D` (64 or 128): grid `(⌈max k_len / 128⌉, kv_heads,
/// batch)`, 256 threads, `bwd_smem(D)` bytes. Without `DQ` (b2's dK/dV kernel) the dS tile, the dQ
/// products and the atomics are left out (`dq_acc` is not touched).
///
/// # Safety
/// As the entries.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn backward<E: Elem16, const D: u32, const DQ: bool>(q: *const u16, k: *const u16, v: *const u16, d_o: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32,
                                             dq_acc: *mut f32, dk: *mut u16, dv: *mut u16, dims: Dims) {
    let (kb, hk, b) = (block_idx_x(), block_idx_y(), block_idx_z());
    let (tid, lane) = (thread_idx_x(), lane_id());
    let warp = tid / 32;
    let (g, t) = (lane / 4, lane % 4);
    // SAFETY (the whole body): every global address is a sequence's row below its length (loads
    // clamp, stores and atomics check), inside the tensors the entry's contract describes; shared tiles
    // are written by `cp.async` groups and read after `cp_async_wait_group` and a barrier, a stage is
    // refilled only after the barrier that follows its last read (b2's kernel: the tile's second; b1,
    // whose dK products read it after dQ: the next tile's first), and dSᵀ is
    // written after the first barrier of a tile and read after the second; every `ldmatrix`, `mma` and
    // shuffle runs in full warps (all branches before them are uniform per block).
    unsafe {
        let (q_start, q_len, k_start, k_len) = sequence(cu_q, cu_k, b);
        let k0 = kb * BWD_BKV;
        if k0 >= k_len {
            return;
        }
        let causal = dims.causal != 0;
        let off = k_len.wrapping_sub(q_len); // bottom-right alignment (k_len ≥ q_len when causal)
        let first = bwd_first_q_tile(k0, off, causal);
        let q_tiles = q_len.div_ceil(BWD_BQ);
        let per_head = q_tiles.saturating_sub(first);
        let items = per_head * dims.group;
        let kv_heads = dims.heads / dims.group.max(1); // group ≥ 1 (the host's rule); max: no divide-by-zero path
        let kbase = k_start as usize * (kv_heads * D) as usize + hk as usize * dims.k_head as usize;
        let my_key = |h: u32| k0 + 16 * warp + g + 8 * h;

        let mut r_dv = [[0f32; 4]; 16]; // [n-tile of 8 columns of D] of the warp's 16 keys
        let mut r_dk = [[0f32; 4]; 16];
        if items > 0 {
            let s_base = addr_of(dynamic::<Align16>());
            let s_k = s_base + bwd_offset(D, BwdTile::K, 0);
            let s_v = s_base + bwd_offset(D, BwdTile::V, 0);
            let s_q = |st: u32| s_base + bwd_offset(D, BwdTile::Q, st);
            let s_do = |st: u32| s_base + bwd_offset(D, BwdTile::DO, st);
            let s_ds = s_base + bwd_offset(D, BwdTile::DS, 0);
            let smem = dynamic::<Align16>() as *mut u8;
            let s_stat = |what: BwdTile, st: u32| smem.add(bwd_offset(D, what, st) as usize).cast::<f32>();
            let qbase = q_start as usize * (dims.heads * D) as usize;
            // Item i: query head `hk · group + i / per_head`, query tile `first + i % per_head` (per_head ≥ 1
            // here; `max` keeps a divide-by-zero path out of the code).
            let per = per_head.max(1);
            let item = |i: u32| (hk * dims.group + i / per, first + i % per);
            let load_item = |i: u32, st: u32| {
                let (h, qt) = item(i);
                let hq = qbase + h as usize * dims.q_head as usize;
                load_rows::<D>(s_q(st), q.add(hq), dims.q_tok, qt * BWD_BQ, BWD_BQ, q_len, tid, threads(BWD_WARPS));
                load_rows::<D>(s_do(st), d_o.add(hq), dims.q_tok, qt * BWD_BQ, BWD_BQ, q_len, tid, threads(BWD_WARPS));
                // The row statistics: threads 0..64 the LSE, 64..128 D, 4 bytes each.
                if tid < 2 * BWD_BQ {
                    let (what, which) = if tid < BWD_BQ { (BwdTile::Lse, 0) } else { (BwdTile::Delta, 1) };
                    let r = tid % BWD_BQ;
                    let row = qt * BWD_BQ + r;
                    let valid = row < q_len;
                    let src = (which * dims.heads + h) as usize * dims.tokens_q as usize + (q_start + if valid { row } else { 0 }) as usize;
                    cp_async_ca_4_zfill(addr_of(s_stat(what, st).add(r as usize)), stats.add(src) as *const u8, if valid { 4 } else { 0 });
                }
            };
            load_rows::<D>(s_k, k.add(kbase), dims.k_tok, k0, BWD_BKV, k_len, tid, threads(BWD_WARPS));
            load_rows::<D>(s_v, v.add(kbase), dims.k_tok, k0, BWD_BKV, k_len, tid, threads(BWD_WARPS));
            load_item(0, 0);
            cp_async_commit_group();

            let scale2 = dims.scale * core::f32::consts::LOG2_E;
            let bases = Bases::new::<D>(warp, lane);
            // Key `key` is hidden from query `q` past `q + off` (causal; that bound never passes k_len − 1 for
            // a query of the sequence) or past `k_len − 1`: one bound held through the loop, and whether
            // this block runs past the keys' end.
            let last = if causal { off } else { k_len - 1 };
            let tail = k0 + BWD_BKV > k_len;
            let row16 = const { row16::<D>() };
            for i in 0..items {
                let st = i % 2;
                if DQ {
                    // b1: the tile's copies were issued at the top of the last tile; after this barrier
                    // every warp is done with the last tile (its dK products read the other stage, its dQ
                    // products dSᵀ), so the next tile's copies may refill that stage.
                    cp_async_wait_group::<0>();
                    sync_threads();
                    if i + 1 < items {
                        load_item(i + 1, 1 - st);
                    }
                    cp_async_commit_group();
                } else {
                    if i + 1 < items {
                        load_item(i + 1, 1 - st);
                    }
                    cp_async_commit_group();
                    cp_async_wait_group::<1>();
                    sync_threads();
                }
                let (h, qt) = item(i);
                let (sq, sdo) = (s_q(st), s_do(st));
                // The lane offsets hidden from the optimizers: every fragment address below is formed
                // where it is used (a base, an XOR and immediates), not held in registers across the loop.
                let b = bases.fresh();
                // Sᵀ = K · Qᵀ and dPᵀ = V · dOᵀ: the warp's 16 keys × the tile's 64 queries.
                let mut s = [[0f32; 4]; 8];
                let mut dp = [[0f32; 4]; 8];
                unroll8!(ks => {
                    if ks < D / 16 {
                        let a_at = (b.ka ^ xor::<D>(ks)) + (ks / 4) * COL64;
                        let (ak, av) = (ldmatrix_x4(s_k + a_at), ldmatrix_x4(s_v + a_at));
                        unroll4!(np => {
                            let b_at = (b.qb ^ xor::<D>(ks)) + (ks / 4) * COL64 + np * row16;
                            let bq = ldmatrix_x4(sq + b_at);
                            E::mma(&mut s[2 * np as usize], ak, [bq[0], bq[1]]);
                            E::mma(&mut s[2 * np as usize + 1], ak, [bq[2], bq[3]]);
                            let bo = ldmatrix_x4(sdo + b_at);
                            E::mma(&mut dp[2 * np as usize], av, [bo[0], bo[1]]);
                            E::mma(&mut dp[2 * np as usize + 1], av, [bo[2], bo[3]]);
                        });
                    }
                });
                // Pᵀ and dSᵀ; element e of n-tile nt is key row g + 8·(e / 2), query column 8nt + 2t + e % 2.
                // The mask runs on the key block past the sequence's end (its zero K rows would give P =
                // e^(−LSE), unbounded where the LSE is very negative, and dS · 0 = NaN in dQ) and on the
                // causal diagonal tiles: a uniform condition, false on most tiles.
                let masked = tail || (causal && bwd_needs_mask(k0, qt, off));
                let (lse, delta) = (s_stat(BwdTile::Lse, st), s_stat(BwdTile::Delta, st));
                let mut r_p = [[0u32; 4]; 4]; // A fragments [k-step of 16 queries]
                let mut r_ds = [[0u32; 4]; 4];
                unroll8!(nt => {
                    let c = 8 * nt + 2 * t;
                    let l2 = *(lse.add(c as usize) as *const [f32; 2]);
                    let dd = *(delta.add(c as usize) as *const [f32; 2]);
                    let mut p = [0f32; 4];
                    let mut ds = [0f32; 4];
                    unroll4!(e => {
                        let x = ex2_approx_f32(fma_rn_f32(s[nt as usize][e as usize], scale2, -l2[(e % 2) as usize]));
                        let hidden = masked && my_key(e / 2) > if causal { qt * BWD_BQ + c + e % 2 } else { 0 } + last;
                        p[e as usize] = if hidden { 0.0 } else { x };
                        ds[e as usize] = p[e as usize] * (dp[nt as usize][e as usize] - dd[(e % 2) as usize]);
                    });
                    let (lo, hi) = (E::pack(ds[0], ds[1]), E::pack(ds[2], ds[3]));
                    r_p[(nt / 2) as usize][(2 * (nt % 2)) as usize] = E::pack(p[0], p[1]);
                    r_p[(nt / 2) as usize][(2 * (nt % 2) + 1) as usize] = E::pack(p[2], p[3]);
                    r_ds[(nt / 2) as usize][(2 * (nt % 2)) as usize] = lo;
                    r_ds[(nt / 2) as usize][(2 * (nt % 2) + 1) as usize] = hi;
                    // dSᵀ rows (keys) 16w + g and + 8, columns c, c + 1: 8 rows × 4 words of one 16-byte
                    // chunk each, the swizzle spreading the rows' chunks: conflict-free.
                    if DQ {
                        let at = b.ds_st ^ (16 * nt);
                        *(smem.add(at as usize) as *mut u32) = lo;
                        *(smem.add((at + DS_ROW8) as usize) as *mut u32) = hi;
                    }
                });
                // dV += Pᵀ · dO, dK += dSᵀ · Q: k-steps of 16 queries, B fragments `.trans` from the row-major
                // tiles. b1 leaves dK for after dQ (below); b2's dK/dV kernel does both here.
                unroll4!(ks => {
                    unroll8!(np => {
                        if np < D / 16 {
                            let at = (b.qt ^ xor::<D>(np)) + (np / 4) * COL64 + ks * row16;
                            let bo = ldmatrix_x4_trans(sdo + at);
                            E::mma(&mut r_dv[2 * np as usize], r_p[ks as usize], [bo[0], bo[1]]);
                            E::mma(&mut r_dv[2 * np as usize + 1], r_p[ks as usize], [bo[2], bo[3]]);
                            if !DQ {
                                let bq = ldmatrix_x4_trans(sq + at);
                                E::mma(&mut r_dk[2 * np as usize], r_ds[ks as usize], [bq[0], bq[1]]);
                                E::mma(&mut r_dk[2 * np as usize + 1], r_ds[ks as usize], [bq[2], bq[3]]);
                            }
                        }
                    });
                });
                // b1: every warp has written its dSᵀ before the dQ products read it. b2: every warp is done
                // with this stage's Q and dO before the next tile's copy refills the stage.
                sync_threads();
                if DQ {
                    // dQ += dS · K: warp w takes query rows 16·(w % 4).. and columns (w / 4)·D/2..; dS's A
                    // fragments `.trans` from dSᵀ, K's B fragments `.trans` from its rows.
                    let b = bases.fresh();
                    let mut dq = [[0f32; 4]; 8];
                    unroll8!(ks => {
                        let a = ldmatrix_x4_trans(s_ds + b.dsa + ks * DS_ROW16);
                        unroll4!(np => {
                            if np < D / 32 {
                                let bk = ldmatrix_x4_trans(s_k + (b.kt ^ xor::<D>(np)) + ks * row16);
                                E::mma(&mut dq[2 * np as usize], a, [bk[0], bk[1]]);
                                E::mma(&mut dq[2 * np as usize + 1], a, [bk[2], bk[3]]);
                            }
                        });
                    });
                    // dK's products with dQ's reductions spread among them, FA2's way: all 32 (D = 128; 16 at
                    // D = 64) issued back to back filled the LSU's queue and stalled the warps (session 68:
                    // 0.88–0.92× b1's time so). Iteration k = ks·(D/16) + np issues reduction k = (hh·(D/16) +
                    // nt)·2 + j — as many iterations as reductions.
                    let (m0, c0) = (16 * (warp % 4), (warp / 4) * (D / 2));
                    let acc = dq_acc.add(qbase + h as usize * dims.q_head as usize);
                    let rows = [qt * BWD_BQ + m0 + g, qt * BWD_BQ + m0 + g + 8];
                    // `wrapping_add`: a row past q_len may lie past the accumulator; its address is formed, never used.
                    let rp = [acc.wrapping_add(rows[0] as usize * dims.q_tok as usize), acc.wrapping_add(rows[1] as usize * dims.q_tok as usize)];
                    unroll4!(ks => {
                        unroll8!(np => {
                            if np < D / 16 {
                                let at = (b.qt ^ xor::<D>(np)) + (np / 4) * COL64 + ks * row16;
                                let bq = ldmatrix_x4_trans(sq + at);
                                let k = ks * (D / 16) + np;
                                let (hh, nt, j) = (k / (2 * (D / 16)), (k / 2) % (D / 16), k % 2);
                                if rows[hh as usize] < q_len {
                                    let col = (c0 + 8 * nt + 2 * t + j) as usize;
                                    red_add_relaxed_gpu_f32(rp[hh as usize].add(col), dq[nt as usize][(2 * hh + j) as usize]);
                                }
                                E::mma(&mut r_dk[2 * np as usize], r_ds[ks as usize], [bq[0], bq[1]]);
                                E::mma(&mut r_dk[2 * np as usize + 1], r_ds[ks as usize], [bq[2], bq[3]]);
                            }
                        });
                    });
                }
            }
        }
        // Epilogue: the warp's 16 keys' dK (· scale) and dV, rows below k_len.
        unroll2!(hh => {
            let key = my_key(hh);
            if key < k_len {
                let at = kbase + key as usize * dims.k_tok as usize;
                let (pk, pv) = (dk.add(at), dv.add(at));
                unroll8!(i => {
                    unroll2!(j => {
                        let nt = 8 * j + i;
                        if nt < D / 8 {
                            let col = (8 * nt + 2 * t) as usize;
                            let (a, c) = (&r_dk[nt as usize], &r_dv[nt as usize]);
                            *(pk.add(col) as *mut u32) = E::pack(a[2 * hh as usize] * dims.scale, a[2 * hh as usize + 1] * dims.scale);
                            *(pv.add(col) as *mut u32) = E::pack(c[2 * hh as usize], c[2 * hh as usize + 1]);
                        }
                    });
                });
            }
        });
    }
}

/// The preprocessing body: for query row `(sequence z, token x·8 + warp, head y)` writes `log2(e) · LSE`
/// to `stats[y][q_start + token]` and `D = Σ dO ∘ O` to `stats[heads + y][q_start + token]`.
///
/// # Safety
/// As the entries.
#[inline(always)]
pub(super) unsafe fn prep<E: Elem16, const D: u32>(o: *const u16, d_o: *const u16, lse: *const f32, cu_q: *const i32, stats: *mut f32, dims: Dims) {
    let (tid, lane) = (thread_idx_x(), lane_id());
    let (h, b) = (block_idx_y(), block_idx_z());
    // SAFETY: rows below the sequence's length only; each lane reads D/32 elements of the row (4 or 8
    // bytes, aligned: D is a multiple of 64 and rows start at multiples of D); full warps shuffle.
    unsafe {
        let (q_start, q1) = (ld_global_nc_s32(cu_q.add(b as usize)) as u32, ld_global_nc_s32(cu_q.add(b as usize + 1)) as u32);
        let row = block_idx_x() * (block_dim_x() / 32) + tid / 32;
        if row >= q1 - q_start {
            return;
        }
        let at = q_start as usize * (dims.heads * D) as usize + h as usize * dims.q_head as usize + row as usize * dims.q_tok as usize + (lane * (D / 32)) as usize;
        let mut sum = 0f32;
        unroll2!(w => {
            if w < D / 64 {
                let (x, y) = (*(o.add(at + 2 * w as usize) as *const u32), *(d_o.add(at + 2 * w as usize) as *const u32));
                let (x, y) = (E::unpack(x), E::unpack(y));
                sum += x[0] * y[0] + x[1] * y[1];
            }
        });
        for m in [16, 8, 4, 2, 1] {
            sum += shuffle_xor_f32(sum, m);
        }
        if lane == 0 {
            let lse_at = q_start as usize * dims.heads as usize + h as usize * dims.lse_head as usize + row as usize * dims.lse_tok as usize;
            let ws = h as usize * dims.tokens_q as usize + (q_start + row) as usize;
            *stats.add(ws) = *lse.add(lse_at) * core::f32::consts::LOG2_E;
            *stats.add(dims.heads as usize * dims.tokens_q as usize + ws) = sum;
        }
    }
}

/// The dQ conversion body: `dq[i] = scale · acc[i]` for `i < n`, four per thread, grid-stride.
///
/// # Safety
/// As the entries.
#[inline(always)]
pub(super) unsafe fn convert_dq<E: Elem16>(acc: *const f32, dq: *mut u16, n: u32, scale: f32) {
    let stride = grid_dim_x() * block_dim_x();
    let mut i = block_idx_x() * block_dim_x() + thread_idx_x();
    // SAFETY: chunk i covers elements 4i..4i + 4 < n (n a multiple of 4), 16- and 8-byte aligned.
    unsafe {
        while i < n / 4 {
            let a = *(acc.add(4 * i as usize) as *const [f32; 4]);
            *(dq.add(4 * i as usize) as *mut [u32; 2]) = [E::pack(a[0] * scale, a[1] * scale), E::pack(a[2] * scale, a[3] * scale)];
            i += stride;
        }
    }
}

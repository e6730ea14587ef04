//! Step b5's body (`steps/v33_backward_fa2_warps.rs`, whose file explains the kernel): b1 on
//! FlashAttention-2's own warp layout, generic over where dQ goes ([`DqSink`]: b5's [`RowMajor`]
//! accumulator, b6's and b7's [`TileBlocks`]) and over which block a CTA takes ([`BlockOrder`]: b7's
//! [`LongestFirst`]).
use super::fa2_backward::{COL64, load_rows, row16, sequence, step, xor};
use crate::hgemm::elem::Elem16;
use crate::prim::{
    atomic::{red_add_relaxed_gpu_f32, red_add_relaxed_gpu_f32_if},
    cp_async::{cp_async_ca_4_zfill, cp_async_commit_group, cp_async_wait_group},
    ldmatrix::{ldmatrix_x4, ldmatrix_x4_trans},
    math::{ex2_approx_f32, fma_rn_f32},
    shared::{Align16, addr_of, dynamic, ld_shared_v2_u32, st_shared_u32},
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, block_idx_z, grid_dim_x, grid_dim_y, grid_dim_z, lane_id, thread_idx_x},
};
use crate::util::{
    opaque,
    unroll::{unroll2, unroll4, unroll8},
};
use layout::{
    Layout,
    attention::{BWD_BKV, BWD_BQ, BWD_WARPS, BackwardDims as Dims, BwdTile, bwd_dq_block_rc, bwd_dq_tile_of, bwd_first_q_tile_of, bwd_needs_mask_of, bwd_qt_offset, bwd_qt_pt_offset, threads, tile},
};

const _: () = assert!(BWD_WARPS == 8 && BWD_BKV == 128 && BWD_BQ == 64);

/// dQ columns a warp owns at head dim `d` with query tiles of `qt` rows: the 8 warps take the tile's `qt × d`
/// as `qt / 32` groups of 32 rows × `8 / (qt / 32)` column blocks — b5–b7 (`qt` = 64) 2 × 4 (`d / 4` columns),
/// b8 (`qt` = 128, D = 64) 4 × 2 (32).
pub(super) const fn dq_cols(d: u32, qt: u32) -> u32 {
    d * qt / 256
}

/// Bytes between `rows` rows of the Pᵀ and dSᵀ tiles (`BWD_BKV × QT`, keys as rows).
const fn ds_row<const QT: u32>(rows: u32) -> u32 {
    2 * step(tile(BWD_BKV, QT).row_step(rows))
}

/// This lane's byte offsets in the tiles (query tiles of `QT` rows), each at the lane's rows and its warp's
/// columns, so that every fragment below is one of these XOR a constant column block ([`xor`]) plus constant
/// rows:
/// * `ka`: Sᵀ/dPᵀ's A (K, V: rows 32·wk + 0..16, non-transposed matrix order);
/// * `qb`: Sᵀ/dPᵀ's B (Q, dO as `Qᵀ`: rows QT/2·wq + 0..16, two k-halves of one n-tile, then the next);
/// * `st`: this thread's Pᵀ/dSᵀ stores (key row 32·wk + g, query column QT/2·wq + 2t);
/// * `pa`: dV/dK's A (Pᵀ, dSᵀ: rows 32·wk + 0..16);
/// * `vt`: dV/dK's B (dO, Q `.trans`: k = query rows 0..16, columns from D/2 · wd);
/// * `dsa`: dQ's A (dS `.trans` from dSᵀ: rows = keys 0..16, columns = queries from 32·wq2);
/// * `kt`: dQ's B (K `.trans`: k = key rows 0..16, columns from [`dq_cols`] · wdq).
#[derive(Clone, Copy)]
struct Bases {
    ka: u32,
    qb: u32,
    st: u32,
    pa: u32,
    vt: u32,
    dsa: u32,
    kt: u32,
}

impl Bases {
    #[inline(always)]
    fn new<const D: u32, const QT: u32>(warp: u32, lane: u32) -> Bases {
        let (tq, tkv, tds) = (tile(QT, D), tile(BWD_BKV, D), tile(BWD_BKV, QT));
        // Lane l's row and column in an x4 load: matrices (r 0–7, c 0–7), (8–15, 0–7), (0–7, 8–15),
        // (8–15, 8–15) (`rc`, A and `.trans` B), or (0–7, 0–7), (0–7, 8–15), (8–15, 0–7), (8–15, 8–15) (`cr`).
        let (r_rc, c_rc) = (lane % 16, 8 * (lane / 16));
        let (r_cr, c_cr) = (8 * (lane / 16) + lane % 8, 8 * (lane / 8 % 2));
        let (g, t) = (lane / 4, lane % 4);
        let (wk, wq) = (warp % 4, warp / 4); // Sᵀ, dPᵀ; dV, dK take (wk, wd = wq)
        let (wq2, wdq) = (warp % (QT / 32), warp / (QT / 32)); // dQ
        Bases {
            ka: 2 * tkv.offset(32 * wk + r_rc, c_rc),
            qb: 2 * tq.offset(QT / 2 * wq + r_cr, c_cr),
            st: 2 * tds.offset(32 * wk + g, QT / 2 * wq + 2 * t),
            pa: 2 * tds.offset(32 * wk + r_rc, c_rc),
            vt: 2 * tq.offset(r_rc, (D / 2) * wq + c_rc),
            dsa: 2 * tds.offset(r_cr, 32 * wq2 + c_cr),
            kt: 2 * tkv.offset(r_rc, dq_cols(D, QT) * wdq + c_rc),
        }
    }

    /// The same offsets through [`opaque`] (no instruction): formed where used, not held across the loop.
    #[inline(always)]
    fn fresh(&self) -> Bases {
        Bases { ka: opaque(self.ka), qb: opaque(self.qb), st: opaque(self.st), pa: opaque(self.pa), vt: opaque(self.vt), dsa: opaque(self.dsa), kt: opaque(self.kt) }
    }
}

/// Where [`probs`] reads the row statistics and writes Pᵀ and dSᵀ (shared addresses; `st` the lane's
/// [`Bases::st`]).
#[derive(Clone, Copy)]
struct Tiles {
    lse: u32,
    delta: u32,
    pt: u32,
    ds: u32,
    st: u32,
}

/// The mask of a thread's elements: key `key0 + 16·mt + 8·(e / 2)` is hidden from query `q0 + 8·nt + e % 2`
/// past `q + last` (causal) or past `last` = k_len − 1.
#[derive(Clone, Copy)]
struct Mask {
    key0: u32,
    q0: u32,
    causal: bool,
    last: u32,
}

/// Where the body adds dQ — a kernel policy: [`RowMajor`] (b5: the f32 accumulator in Q's layout) or
/// [`TileBlocks`] (b6–b8). With `C` = [`dq_cols`]`(D, QT)` and `N` = QT / 32, a lane's reduction `r` (0..C) is its
/// dQ fragment `dq[mt][nt][e]` with `(mt, nt, e) = (r / (C/2), (r / 4) % (C/8), r % 4)`: row `16·mt + g + 8·(e / 2)`
/// of the warp's 32 (from `32·(warp % N)`), column `8·nt + 2t + e % 2` of its C (from `C · (warp / N)`).
pub(super) trait DqSink {
    /// A lane's target for one item (query head, query tile), formed once an item.
    type At: Copy;
    /// The target of query head `h`'s tile `qt` of sequence `b` (`q_start`, `q_len`) for this lane.
    ///
    /// # Safety
    /// `acc` is the accumulator the policy describes for the launch's sequences and heads.
    #[allow(clippy::too_many_arguments)]
    unsafe fn at<const D: u32, const QT: u32>(acc: *mut f32, dims: &Dims, q_start: u32, q_len: u32, b: u32, h: u32, qt: u32, warp: u32, lane: u32) -> Self::At;
    /// Adds `x`, the lane's reduction `r`, into the accumulator.
    ///
    /// # Safety
    /// `at` from [`DqSink::at`] of the same `D`, `QT`; `r < dq_cols(D, QT)`.
    unsafe fn add<const D: u32, const QT: u32>(at: Self::At, r: u32, x: f32);
}

/// b5's dQ accumulator: f32 in Q's layout (`dims.q_tok`, `dims.q_head`), rows past q_len skipped — a warp's
/// `red` covers 8 rows × 4 f32 at every other column (8 sectors, half of each used).
pub(super) struct RowMajor;

/// [`RowMajor`]'s target: the head's accumulator rows, the lane's first row and column, and the bounds.
#[derive(Clone, Copy)]
pub(super) struct RowMajorAt {
    acc: *mut f32,
    row0: u32,
    col0: u32,
    q_tok: u32,
    q_len: u32,
}

impl DqSink for RowMajor {
    type At = RowMajorAt;
    #[inline(always)]
    unsafe fn at<const D: u32, const QT: u32>(acc: *mut f32, dims: &Dims, q_start: u32, q_len: u32, _b: u32, h: u32, qt: u32, warp: u32, lane: u32) -> RowMajorAt {
        let qbase = q_start as usize * (dims.heads * D) as usize;
        // SAFETY: the head's rows of the sequence start inside the accumulator (the caller's).
        let acc = unsafe { acc.add(qbase + h as usize * dims.q_head as usize) };
        let n = QT / 32;
        RowMajorAt { acc, row0: qt * QT + 32 * (warp % n) + lane / 4, col0: dq_cols(D, QT) * (warp / n) + 2 * (lane % 4), q_tok: dims.q_tok, q_len }
    }
    #[inline(always)]
    unsafe fn add<const D: u32, const QT: u32>(at: RowMajorAt, r: u32, x: f32) {
        let c = dq_cols(D, QT);
        let (mt, nt, e) = (r / (c / 2), (r / 4) % (c / 8), r % 4);
        let row = at.row0 + 16 * mt + 8 * (e / 2);
        // Predicated, not branched around (a branch here waits for the loads in flight); a row past q_len
        // forms its address (`wrapping_add`) but adds nothing.
        let i = row as usize * at.q_tok as usize + (at.col0 + 8 * nt + e % 2) as usize;
        // SAFETY: a row below q_len lies in the sequence's rows of the head (the caller's accumulator).
        unsafe { red_add_relaxed_gpu_f32_if(at.acc.wrapping_add(i), x, row < at.q_len) };
    }
}

/// b6–b8's dQ accumulator: b4's padded 64-row tile blocks (`bwd_h4_dq_tiles(tokens_q, batch) × heads` blocks of
/// 64 · D f32) in `layout::attention::bwd_dq_block_at`'s order for `dq_cols(D, QT)`: a lane's target is its
/// 32-row block's slot `(warp % N) % 2 + 2 · (warp / N)` (N = QT / 32) of its 64-row tile, place `32·C·slot +
/// lane`, reduction `r` at `+ 32·r`.
pub(super) struct TileBlocks;

impl DqSink for TileBlocks {
    type At = *mut f32;
    #[inline(always)]
    unsafe fn at<const D: u32, const QT: u32>(acc: *mut f32, dims: &Dims, q_start: u32, _q_len: u32, b: u32, h: u32, qt: u32, warp: u32, lane: u32) -> *mut f32 {
        let (n, c) = (QT / 32, dq_cols(D, QT));
        let tile64 = bwd_dq_tile_of(q_start, b, QT) + qt * (QT / BWD_BQ) + (warp % n) / 2;
        let block = (tile64 as usize * dims.heads as usize + h as usize) * (BWD_BQ * D) as usize;
        let slot = (warp % n) % 2 + 2 * (warp / n);
        // SAFETY: tile `qt` < ⌈q_len / QT⌉ of sequence b: its 64-row blocks lie below `bwd_dq_tiles_of(tokens_q,
        // batch, QT)` and before sequence b + 1's (`bwd_dq_tile_of`), h < heads (the caller's accumulator: that
        // many blocks × heads); the place is inside the block (slot < 2 · D / C, lane < 32).
        unsafe { acc.add(block + (32 * c * slot + lane) as usize) }
    }
    #[inline(always)]
    unsafe fn add<const D: u32, const QT: u32>(at: *mut f32, r: u32, x: f32) {
        // SAFETY: r < C: place 32·C·slot + 32·r + lane < 64·D of the lane's block.
        unsafe { red_add_relaxed_gpu_f32(at.add(32 * r as usize), x) }
    }
}

/// Which (key block, K/V head, sequence) a CTA of the grid `(⌈max k_len / 128⌉, kv_heads, batch)` takes — a
/// kernel policy: [`GridOrder`] (b5, b6) or [`LongestFirst`] (b7).
pub(super) trait BlockOrder {
    /// `(kb, hk, b)` of this CTA.
    fn block() -> (u32, u32, u32);
}

/// The grid's own order: key blocks fastest (the GPU starts CTAs in linear block order), then heads, then
/// sequences.
pub(super) struct GridOrder;

impl BlockOrder for GridOrder {
    #[inline(always)]
    fn block() -> (u32, u32, u32) {
        (block_idx_x(), block_idx_y(), block_idx_z())
    }
}

/// Key blocks slowest: the CTAs the GPU starts first are key block 0 of every head and sequence, then key
/// block 1, … With the causal mask a key block's work shrinks with its index (its first query tile is
/// `2·kb` past the diagonal's offset), so this is longest first — the last CTAs to start are the shortest —
/// where the grid's order starts the shortest CTAs of one head before the longest of the next.
pub(super) struct LongestFirst;

impl BlockOrder for LongestFirst {
    #[inline(always)]
    fn block() -> (u32, u32, u32) {
        let (hy, bz) = (grid_dim_y(), grid_dim_z());
        let lin = block_idx_x() + grid_dim_x() * (block_idx_y() + hy * block_idx_z());
        let rest = lin % (hy * bz);
        (lin / (hy * bz), rest % hy, rest / hy)
    }
}

/// `acc += A·Bᵀ` over D for the warp's 32 keys (2 m-tiles) × QT/2 queries (QT/16 n-tiles): Sᵀ = K·Qᵀ (`s_a` K,
/// `s_b` Q) or dPᵀ = V·dOᵀ (V, dO), A's fragments at `bb.ka`, B's (`Qᵀ`, `dOᵀ`) at `bb.qb`.
///
/// # Safety
/// Full warps; `s_a` a `BWD_BKV × D` and `s_b` a `QT × D` tile ([`tile`]) in shared memory, written and
/// waited for.
#[inline(always)]
unsafe fn keys_by_queries<E: Elem16, const D: u32, const QT: u32>(acc: &mut [[[f32; 4]; 8]; 2], s_a: u32, s_b: u32, bb: Bases) {
    let row16 = const { row16::<D>() };
    // SAFETY: every address is the lane's base plus column blocks below D and rows below the tiles' heights.
    unsafe {
        unroll8!(ks => {
            if ks < D / 16 {
                let a_at = (bb.ka ^ xor::<D>(ks)) + (ks / 4) * COL64;
                let a = [ldmatrix_x4(s_a + a_at), ldmatrix_x4(s_a + a_at + row16)];
                unroll4!(np => {
                  if np < QT / 32 {
                    let b = ldmatrix_x4(s_b + (bb.qb ^ xor::<D>(ks)) + (ks / 4) * COL64 + np * row16);
                    unroll2!(mt => {
                        E::mma(&mut acc[mt as usize][2 * np as usize], a[mt as usize], [b[0], b[1]]);
                        E::mma(&mut acc[mt as usize][2 * np as usize + 1], a[mt as usize], [b[2], b[3]]);
                    });
                  }
                });
            }
        });
    }
}

/// Pᵀ = 2^(Sᵀ·scale·log2 e − log2 e·LSE) and dSᵀ = Pᵀ ∘ (dPᵀ − D) of the warp's 32 keys × QT/2 queries,
/// rounded and stored to their tiles; the mask's compares only with `MASK` (a branch a tile, not a select an
/// element: session 65 measured b3 0.90–0.91× the time so). Element e of (mt, nt) is key row
/// 16·mt + g + 8·(e / 2) of the warp's, query column 8·nt + 2t + e % 2 of its QT/2.
///
/// # Safety
/// The statistics' tile holds the tile's QT rows; `tiles.st` is this lane's store offset; full warps.
#[inline(always)]
unsafe fn probs<E: Elem16, const MASK: bool, const QT: u32>(s: &[[[f32; 4]; 8]; 2], dp: &[[[f32; 4]; 8]; 2], tiles: Tiles, scale2: f32, m: Mask) {
    // SAFETY: columns below QT of the statistics (8-byte pairs at even columns); stores inside the 128 × QT
    // tiles (the caller's base, rows below 32 more, column chunks below QT/16 more within the warp's 64-column
    // block).
    unsafe {
        unroll8!(nt => {
          if nt < QT / 16 {
            let c = m.q0 % QT + 8 * nt; // the thread's column pair in the tile (q0 = qt·QT + QT/2·wq + 2t)
            let l2 = ld_shared_v2_u32(tiles.lse + 4 * c).map(f32::from_bits);
            let dd = ld_shared_v2_u32(tiles.delta + 4 * c).map(f32::from_bits);
            unroll2!(mt => {
                let mut p = [0f32; 4];
                let mut ds = [0f32; 4];
                unroll4!(e => {
                    let x = ex2_approx_f32(fma_rn_f32(s[mt as usize][nt as usize][e as usize], scale2, -l2[(e % 2) as usize]));
                    let hidden = MASK && m.key0 + 16 * mt + 8 * (e / 2) > if m.causal { m.q0 + 8 * nt + e % 2 } else { 0 } + m.last;
                    p[e as usize] = if hidden { 0.0 } else { x };
                    ds[e as usize] = p[e as usize] * (dp[mt as usize][nt as usize][e as usize] - dd[(e % 2) as usize]);
                });
                // Rows g and g + 8 of the m-tile, 4 words of one 16-byte chunk each: the swizzle spreads the 8
                // rows' chunks over the banks (conflict-free).
                let at = (tiles.st + mt * ds_row::<QT>(16)) ^ (16 * nt);
                st_shared_u32(tiles.pt + at, E::pack(p[0], p[1]));
                st_shared_u32(tiles.pt + at + ds_row::<QT>(8), E::pack(p[2], p[3]));
                st_shared_u32(tiles.ds + at, E::pack(ds[0], ds[1]));
                st_shared_u32(tiles.ds + at + ds_row::<QT>(8), E::pack(ds[2], ds[3]));
            });
          }
        });
    }
}

/// The b5 body (see the module docs) for element type `E`, head dim `D` (64 or 128) and query tiles of `QT` rows
/// (64; b8: 128 at D = 64), adding dQ through `S` (b5: [`RowMajor`]; b6–b8: tile blocks), its CTAs' blocks in
/// order `O` (b7, b8: [`LongestFirst`]): grid `(⌈max k_len / 128⌉, kv_heads, batch)`, 256 threads,
/// `bwd_qt_smem(D, QT)` bytes.
///
/// # Safety
/// As the entries.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn body<E: Elem16, const D: u32, const QT: u32, S: DqSink, O: BlockOrder>(q: *const u16, k: *const u16, v: *const u16, d_o: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32, dq_acc: *mut f32,
                                        dk: *mut u16, dv: *mut u16, dims: Dims) {
    let (kb, hk, b) = O::block();
    let (tid, lane) = (thread_idx_x(), lane_id());
    let warp = tid / 32;
    let (g, t) = (lane / 4, lane % 4);
    let (wk, wq) = (warp % 4, warp / 4);
    // SAFETY (the whole body): every global address is a sequence's row below its length (loads clamp, the
    // stores check, the reductions go where `S` says), inside the tensors the entry's contract describes. Shared tiles: tile
    // i's Q, dO and statistics (stage i % 2) are written by `cp.async` groups, waited for (`wait_group 0`)
    // by every thread before tile i's first barrier and read after it; stage (i + 1) % 2 is refilled after
    // that barrier, when every warp is done with tile i − 1 (whose products read it). Pᵀ and dSᵀ are
    // written after tile i's first barrier (their last readers, tile i − 1's products, finished before it)
    // and read after its second. K and V are written once, before tile 0's first barrier. Every `ldmatrix`,
    // `mma` runs in full warps (all branches before them uniform per block); every shared address lies in
    // its tile (`Bases` plus column blocks below the tile's width and rows below its height).
    unsafe {
        let (q_start, q_len, k_start, k_len) = sequence(cu_q, cu_k, b);
        let k0 = kb * BWD_BKV;
        if k0 >= k_len {
            return;
        }
        let causal = dims.causal != 0;
        let off = k_len.wrapping_sub(q_len); // bottom-right alignment (k_len ≥ q_len when causal)
        let first = bwd_first_q_tile_of(k0, off, causal, QT);
        let per_head = q_len.div_ceil(QT).saturating_sub(first);
        let items = per_head * dims.group;
        let kv_heads = dims.heads / dims.group.max(1);
        let kbase = k_start as usize * (kv_heads * D) as usize + hk as usize * dims.k_head as usize;

        // dV, dK: [m-tile of 16 keys][n-tile of 8 columns of D] (D / 16 n-tiles of the warp's D / 2).
        let mut r_dv = [[[0f32; 4]; 8]; 2];
        let mut r_dk = [[[0f32; 4]; 8]; 2];
        if items > 0 {
            let s_base = addr_of(dynamic::<Align16>());
            let (s_k, s_v) = (s_base + bwd_qt_offset(D, QT, BwdTile::K, 0), s_base + bwd_qt_offset(D, QT, BwdTile::V, 0));
            let s_q = |st: u32| s_base + bwd_qt_offset(D, QT, BwdTile::Q, st);
            let s_do = |st: u32| s_base + bwd_qt_offset(D, QT, BwdTile::DO, st);
            let (s_pt, s_ds) = (s_base + bwd_qt_pt_offset(D, QT), s_base + bwd_qt_offset(D, QT, BwdTile::DS, 0));
            let s_stat = |what: BwdTile, st: u32| s_base + bwd_qt_offset(D, QT, what, st);
            let qbase = q_start as usize * (dims.heads * D) as usize;
            let per = per_head.max(1);
            let item = |i: u32| (hk * dims.group + i / per, first + i % per);
            let load_item = |i: u32, st: u32| {
                let (h, qt) = item(i);
                let hq = qbase + h as usize * dims.q_head as usize;
                load_rows::<D>(s_q(st), q.add(hq), dims.q_tok, qt * QT, QT, q_len, tid, threads(BWD_WARPS));
                load_rows::<D>(s_do(st), d_o.add(hq), dims.q_tok, qt * QT, QT, q_len, tid, threads(BWD_WARPS));
                // The row statistics: threads 0..QT the LSE, QT..2·QT D, 4 bytes each (zeros past q_len).
                if tid < 2 * QT {
                    let (what, which) = if tid < QT { (BwdTile::Lse, 0) } else { (BwdTile::Delta, 1) };
                    let r = tid % QT;
                    let row = qt * QT + r;
                    let valid = row < q_len;
                    let src = (which * dims.heads + h) as usize * dims.tokens_q as usize + (q_start + if valid { row } else { 0 }) as usize;
                    cp_async_ca_4_zfill(s_stat(what, st) + 4 * r, stats.add(src) as *const u8, if valid { 4 } else { 0 });
                }
            };
            load_rows::<D>(s_k, k.add(kbase), dims.k_tok, k0, BWD_BKV, k_len, tid, threads(BWD_WARPS));
            load_rows::<D>(s_v, v.add(kbase), dims.k_tok, k0, BWD_BKV, k_len, tid, threads(BWD_WARPS));
            load_item(0, 0);
            cp_async_commit_group();

            let scale2 = dims.scale * core::f32::consts::LOG2_E;
            let bases = Bases::new::<D, QT>(warp, lane);
            // Key `key` is hidden from query `q` past `q + off` (causal) or past `k_len − 1`.
            let last = if causal { off } else { k_len - 1 };
            let tail = k0 + BWD_BKV > k_len;
            let row16 = const { row16::<D>() };
            for i in 0..items {
                let st = i % 2;
                // Tile i's copies landed for every thread, and every warp is done with tile i − 1.
                cp_async_wait_group::<0>();
                sync_threads();
                if i + 1 < items {
                    load_item(i + 1, 1 - st);
                }
                cp_async_commit_group();
                let (h, qt) = item(i);
                let (sq, sdo) = (s_q(st), s_do(st));
                let bb = bases.fresh();
                // Sᵀ = K·Qᵀ, then dPᵀ = V·dOᵀ: the warp's 32 keys (2 m-tiles) × QT/2 queries (QT/16 n-tiles).
                let mut s = [[[0f32; 4]; 8]; 2];
                let mut dp = [[[0f32; 4]; 8]; 2];
                keys_by_queries::<E, D, QT>(&mut s, s_k, sq, bb);
                keys_by_queries::<E, D, QT>(&mut dp, s_v, sdo, bb);
                // Pᵀ and dSᵀ. The mask on the key block past the sequence's end and on the causal diagonal's
                // tiles (uniform, false on most tiles), as b1's.
                let masked = tail || (causal && bwd_needs_mask_of(k0, qt, off, QT));
                let (s_lse, s_delta) = (s_stat(BwdTile::Lse, st), s_stat(BwdTile::Delta, st));
                let tiles = Tiles { lse: s_lse, delta: s_delta, pt: s_pt, ds: s_ds, st: bb.st };
                let mask = Mask { key0: k0 + 32 * wk + g, q0: qt * QT + QT / 2 * wq + 2 * t, causal, last };
                if masked {
                    probs::<E, true, QT>(&s, &dp, tiles, scale2, mask);
                } else {
                    probs::<E, false, QT>(&s, &dp, tiles, scale2, mask);
                }
                // Pᵀ and dSᵀ written by every warp.
                sync_threads();
                let bb = bases.fresh();
                // dV += Pᵀ·dO: the warp's 32 keys × D/2 columns (wd = wq), k-steps of 16 queries.
                unroll8!(ks => {
                  if ks < QT / 16 {
                    let a_at = (bb.pa ^ xor::<QT>(ks)) + (ks / 4) * COL64;
                    let a = [ldmatrix_x4(s_pt + a_at), ldmatrix_x4(s_pt + a_at + ds_row::<QT>(16))];
                    unroll4!(np => {
                        if np < D / 32 {
                            let bo = ldmatrix_x4_trans(sdo + (bb.vt ^ xor::<D>(np)) + ks * row16);
                            unroll2!(mt => {
                                E::mma(&mut r_dv[mt as usize][2 * np as usize], a[mt as usize], [bo[0], bo[1]]);
                                E::mma(&mut r_dv[mt as usize][2 * np as usize + 1], a[mt as usize], [bo[2], bo[3]]);
                            });
                        }
                    });
                  }
                });
                // dQ = dS·K: the warp's 32 queries (2 m-tiles, from 32·wq2) × C = dq_cols(D, QT) columns (from C · wdq)
                // over the 128 keys; dS's A fragments `.trans` from dSᵀ, K's B fragments `.trans` from its rows.
                let mut dq = [[[0f32; 4]; 4]; 2];
                unroll8!(ks => {
                    let a = [ldmatrix_x4_trans(s_ds + (bb.dsa ^ xor::<QT>(0)) + ks * ds_row::<QT>(16)),
                             ldmatrix_x4_trans(s_ds + (bb.dsa ^ xor::<QT>(1)) + ks * ds_row::<QT>(16))];
                    unroll2!(np => {
                        if np < dq_cols(D, QT) / 16 {
                            let bk = ldmatrix_x4_trans(s_k + (bb.kt ^ xor::<D>(np)) + ks * row16);
                            unroll2!(mt => {
                                E::mma(&mut dq[mt as usize][2 * np as usize], a[mt as usize], [bk[0], bk[1]]);
                                E::mma(&mut dq[mt as usize][2 * np as usize + 1], a[mt as usize], [bk[2], bk[3]]);
                            });
                        }
                    });
                });
                // dK += dSᵀ·Q with dQ's C reductions spread among its (QT/16)·(D/32) = C/2 steps, two a step:
                // reduction r is dq[mt][nt][e] with mt = r / (C/2), nt = (r / 4) % (C/8), e = r % 4 (row 16·mt + g +
                // 8·(e / 2) of the warp's, column 8·nt + 2t + e % 2 of its C).
                let at = S::at::<D, QT>(dq_acc, &dims, q_start, q_len, b, h, qt, warp, lane);
                let c = dq_cols(D, QT);
                unroll8!(ks => {
                  if ks < QT / 16 {
                    let a_at = (bb.pa ^ xor::<QT>(ks)) + (ks / 4) * COL64;
                    let a = [ldmatrix_x4(s_ds + a_at), ldmatrix_x4(s_ds + a_at + ds_row::<QT>(16))];
                    unroll4!(np => {
                        if np < D / 32 {
                            let bq = ldmatrix_x4_trans(sq + (bb.vt ^ xor::<D>(np)) + ks * row16);
                            unroll2!(j => {
                                let r = 2 * (ks * (D / 32) + np) + j;
                                let (mt, nt, e) = (r / (c / 2), (r / 4) % (c / 8), r % 4);
                                S::add::<D, QT>(at, r, dq[mt as usize][nt as usize][e as usize]);
                            });
                            unroll2!(mt => {
                                E::mma(&mut r_dk[mt as usize][2 * np as usize], a[mt as usize], [bq[0], bq[1]]);
                                E::mma(&mut r_dk[mt as usize][2 * np as usize + 1], a[mt as usize], [bq[2], bq[3]]);
                            });
                        }
                    });
                  }
                });
            }
        }
        // Epilogue: the warp's 32 keys' dK (· scale) and dV over its D/2 columns, rows below k_len.
        unroll2!(mt => {
            unroll2!(hh => {
                let key = k0 + 32 * wk + 16 * mt + g + 8 * hh;
                if key < k_len {
                    let at = kbase + key as usize * dims.k_tok as usize;
                    let (pk, pv) = (dk.add(at), dv.add(at));
                    unroll8!(nt => {
                        if nt < D / 16 {
                            let col = ((D / 2) * wq + 8 * nt + 2 * t) as usize;
                            let (a, c) = (&r_dk[mt as usize][nt as usize], &r_dv[mt as usize][nt as usize]);
                            *(pk.add(col) as *mut u32) = E::pack(a[2 * hh as usize] * dims.scale, a[2 * hh as usize + 1] * dims.scale);
                            *(pv.add(col) as *mut u32) = E::pack(c[2 * hh as usize], c[2 * hh as usize + 1]);
                        }
                    });
                }
            });
        });
    }
}

/// The tile blocks' dQ conversion (b6–b8; `C` columns a warp, `QT`-row query tiles: `bwd_dq_tile_of`'s
/// padding): 64-row tile `block_idx_x` of sequence `block_idx_z`, query head `block_idx_y` — the tile's
/// block read in order, a thread's pair (places p and p + 32: columns c, c + 1 of one row) at a time, and
/// its rows below q_len written to dQ (Q's layout) as scale × the sums, rounded to `E`.
///
/// # Safety
/// As the entries.
#[inline(always)]
pub(super) unsafe fn convert_tile_blocks<E: Elem16, const D: u32, const C: u32, const QT: u32>(acc: *const f32, cu_q: *const i32, cu_k: *const i32, dq: *mut u16, dims: Dims) {
    let (qt, h, b) = (block_idx_x(), block_idx_y(), block_idx_z());
    // SAFETY: the block is inside the accumulator (tile < bwd_dq_tiles_of, head < heads); each written row is
    // below q_len of the sequence, its column even and below D (4-byte aligned) in head h.
    unsafe {
        let (q_start, q_len, _, _) = sequence(cu_q, cu_k, b);
        if qt * BWD_BQ >= q_len {
            return;
        }
        let block = ((bwd_dq_tile_of(q_start, b, QT) + qt) as usize * dims.heads as usize + h as usize) * (BWD_BQ * D) as usize;
        let qbase = q_start as usize * (dims.heads * D) as usize + h as usize * dims.q_head as usize;
        let mut j = thread_idx_x();
        while j < 32 * D {
            // Pair j: slot w's block (32·C places), its even reduction k = 2·((j % 16C) / 32), lane j % 32.
            let p = (j / (16 * C)) * 32 * C + 64 * ((j % (16 * C)) / 32) + j % 32;
            let (r, c) = bwd_dq_block_rc(C, p);
            let (x, y) = (*acc.add(block + p as usize), *acc.add(block + p as usize + 32));
            let row = qt * BWD_BQ + r;
            if row < q_len {
                *(dq.add(qbase + row as usize * dims.q_tok as usize + c as usize) as *mut u32) = E::pack(x * dims.scale, y * dims.scale);
            }
            j += 256;
        }
    }
}

//! The decode body (steps ad1, ad2, ad3, ad2p and ad5; their files explain it): one CTA per (split, K/V head,
//! sequence) reads its keys' K/V tiles, merges its 4 warps' partials and writes the split's output — with
//! one split the result, with more the split's partial for a combine. With `FUSE` (ad2, ad3) the last CTA
//! of each (sequence, K/V head) to finish, counted in `counters`, combines that pair's splits itself; with
//! `EARLY` (ad3) the length and the first tiles' older keys are read before the PDL wait; with `AHEAD` (ad2p)
//! the key loop reads a paged tile's table entry one tile ahead of its copies; with `LANES` (ad5) a warp's
//! table entries (at most 32 tiles) are read once, one a lane, with the length, and shuffled to the copies.
use crate::hgemm::elem::Elem16;
use crate::prim::{
    atomic::{atom_add_acq_rel_gpu_u32, st_relaxed_gpu_u32},
    global::{ld_global_cg_f32, ld_global_cg_v4_f32, ld_global_nc_s32},
    cp_async::{cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group},
    ldmatrix::{ldmatrix_x4, ldmatrix_x4_trans},
    math::{ex2_approx_f32, lg2_approx_f32},
    shared::{Align16, addr_of, dynamic},
    sync::{sync_threads, sync_warp, thread_fence},
    thread::{block_idx_x, block_idx_y, block_idx_z, grid_dim_x, grid_dim_y, lane_id, thread_idx_x},
    warp::{shuffle_idx_u32, shuffle_xor_f32},
};
use crate::util::unroll::{unroll2, unroll4, unroll16, unroll32};
use layout::{
    Layout,
    attention::{DECODE_KEYS, DECODE_ROWS, DECODE_WARPS, DecodeCache as Cache, DecodeDims as Dims, decode_kv_offset, decode_merge_offset, decode_stages, decode_width, tile},
};

/// The decode body for element type `E` and head dim `D` (64, 96, 128, 256). Grid `(splits, kv_heads,
/// batch)`, 128 threads, `decode_smem(D)` bytes. Writes, per query row `(b, t, h)`: with one split the
/// output `o[b][t][h][D]` (`E`) and `lse[b][t][h]`; with more, the split's normalized output to
/// `o_part[s][b][t][h][D]` (f32) and its log-sum-exp to `lse_part[s][b][t][h]` for the combine — and with
/// `FUSE`, the pair's last CTA to finish combines them into `o` and `lse` ([`combine_pair`]).
///
/// # Safety
/// See the entries; with `EARLY`, the grid before this one on the stream (and any still running) writes no
/// length, no table entry and no cache row but each sequence's last `q_len` (stale values otherwise, never
/// an access outside the buffers); with `FUSE` and more than one split, `counters` holds `batch · kv_heads` u32, zero
/// before the launch (each launch leaves them zero), used by no other grid meanwhile, and `o` is 8-byte
/// aligned.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn decode<E: Elem16, const D: u32, const FUSE: bool, const EARLY: bool, const AHEAD: bool, const LANES: bool>(q: *const u16, k: *const u16, v: *const u16, seq_lens: *const i32, cache: Cache,
                                                                      dims: Dims, o: *mut u16, lse: *mut f32, o_part: *mut f32, lse_part: *mut f32,
                                                                      counters: *mut u32) {
    let dp = const { decode_width(D) };
    let stages = const { decode_stages(D) };
    const { assert!(D % 16 == 0 && D <= 256 && DECODE_KEYS == 16 && DECODE_ROWS == 16 && decode_stages(D) >= 2 && decode_stages(D) <= 6) };
    // ad5's entries replace ad2p's read-ahead and are read after the wait (ad3 reads its own before it).
    const { assert!(!LANES || (!AHEAD && !EARLY)) };
    let (split, kvh, b) = (block_idx_x(), block_idx_y(), block_idx_z());
    let n_splits = grid_dim_x();
    let (tid, lane) = (thread_idx_x(), lane_id());
    let warp = tid / 32;
    let (g, t) = (lane / 4, lane % 4);
    // Runtime divisors made provably nonzero (the host never passes 0): no division-by-zero panic path.
    let (group, page_size) = (dims.group.max(1), cache.page_size.max(1));
    let rows = group * dims.q_len;
    let s_base = addr_of(dynamic::<Align16>());
    let tq = tile(DECODE_ROWS, dp);
    let tkv = tile(DECODE_KEYS, dp);
    // SAFETY (the whole body): every global read is inside the buffers the entry's contract names —
    // Q rows r < rows of this (b, group), cache rows of keys below the sequence's clamped length in
    // pages inside the cache (a table entry outside it is never dereferenced), the table's own row b;
    // every shared address is a tile's base plus its layout's offset of an in-tile (row, col) or the
    // merge area inside `decode_smem(D)`; a warp's stage is refilled only after the `sync_warp` that
    // ends the iteration which read it, and read only after `cp_async_wait_group` and `sync_warp`; all
    // shuffles, `ldmatrix` and `mma` run on full, converged warps (every branch in the key loop is
    // uniform per warp); outputs are written only for rows r < rows and columns < D.
    unsafe {
        let start = split * dims.chunk;
        // This sequence's length, clamped to the cache (a negative length is 0).
        let read_len = || (*seq_lens.add(b as usize)).max(0).min(cache.capacity as i32) as u32;
        // `EARLY` (ad3, the host's `CacheReady::AtLaunch`): the previous grid writes no length, no table
        // entry and no cache row but each sequence's last `q_len` keys, so the length and the older keys of
        // the first tiles are read before the wait; the new keys and Q only after it. A constant: ad1 and
        // ad2 compile to their code before it (as a run-time flag it cost them 3–7% at one split).
        let early = EARLY;
        let mut len = if early { read_len() } else { 0 };
        let end = |len: u32| len.min(start + dims.chunk);
        // Query row r = (token r / group, head kvh·group + r % group); its global row in [B][q_len][H].
        let q_row = |r: u32| (b * dims.q_len + r / group) * dims.heads + kvh * group + r % group;
        // This warp's tiles: keys start + 16·(warp + 4·i) for i < n_mine.
        let n_mine_of = |len: u32| {
            let end = end(len);
            let n_tiles = if end > start { (end - start).div_ceil(DECODE_KEYS) } else { 0 };
            if n_tiles > warp { (n_tiles - warp).div_ceil(DECODE_WARPS) } else { 0 }
        };
        let key0_of = |i: u32| start + DECODE_KEYS * (warp + DECODE_WARPS * i);
        // Tile i's table entry (paged caches only).
        let entry = |i: u32| ld_global_nc_s32((cache.table as *const i32).add((b * cache.max_pages + key0_of(i) / page_size) as usize));
        let s_k = |st: u32| s_base + decode_kv_offset(D, warp, st, false);
        let s_v = |st: u32| s_base + decode_kv_offset(D, warp, st, true);
        // One warp's copy of the rows of tile i (16 keys × D of K and of V) of keys in `lo..hi` into stage st,
        // for a sequence of `len` keys: the tile lies in one page; those rows past the split's end are
        // zero-filled (source clamped to the tile's first row). Only where the cache is ready at launch:
        // the first stages in two parts (`..fresh` before the wait, `fresh..` after: disjoint rows); every
        // other copy is `load` below, without the range (the range test in the key loop cost 7–24%).
        let load_part = |i: u32, st: u32, len: u32, lo: u32, hi: u32| {
            let key0 = key0_of(i);
            if key0 >= hi || key0 + DECODE_KEYS <= lo {
                return;
            }
            let end = end(len);
            let (page, row0) = if cache.table == 0 {
                (b, key0)
            } else {
                let p = ld_global_nc_s32((cache.table as *const i32).add((b * cache.max_pages + key0 / page_size) as usize));
                (if p >= 0 && (p as u32) < cache.num_pages { p as u32 } else { u32::MAX }, key0 % page_size)
            };
            let base = page as u64 * cache.page_stride + kvh as u64 * cache.head_stride;
            let mut c = lane;
            while c < DECODE_KEYS * D / 8 {
                let (r, col) = (c / (D / 8), 8 * (c % (D / 8)));
                let key = key0 + r;
                if key >= lo && key < hi {
                    let valid = key < end && page != u32::MAX;
                    let off = if valid { base + (row0 + r) as u64 * cache.row_stride + col as u64 } else { 0 };
                    let sz = if valid { 16 } else { 0 };
                    let so = 2 * tkv.offset(r, col);
                    cp_async_cg_16_zfill(s_k(st) + so, k.add(off as usize) as *const u8, sz);
                    cp_async_cg_16_zfill(s_v(st) + so, v.add(off as usize) as *const u8, sz);
                }
                c += 32;
            }
        };
        // The first stages' older keys (one group each), before the wait.
        let fresh = len.saturating_sub(dims.q_len);
        if early {
            let n_mine = n_mine_of(len);
            let mut i_load = 0;
            while i_load < stages - 1 {
                if i_load < n_mine {
                    load_part(i_load, i_load, len, 0, fresh);
                }
                cp_async_commit_group();
                i_load += 1;
            }
        }
        // sm_90: launched with PDL (`util::pdl`): wait for the previous grid before touching what it may write.
        crate::util::pdl::wait_then_release();
        // `LANES` (ad5, paged): lane l's entry is the page of this warp's tile l, read here with the length (it
        // does not depend on it: a split's keys start at a fixed `start`), so no copy waits for a table read
        // issued after the length; tiles at or past the capacity (or lane ≥ the warp's tiles, unused) read
        // nothing. The host runs ad5 where a warp walks at most 32 tiles (`DECODE_LANES_MAX_KEYS`).
        let lane_page = if LANES && cache.table != 0 && key0_of(lane) < cache.capacity { entry(lane) } else { -1 };
        if !early {
            len = read_len();
        }
        let end = end(len);
        let n_mine = n_mine_of(len);
        // The key loop's copy of tile i into stage st (every row; past `end` zero-filled). Its page lookup
        // repeats `load_part`'s on purpose: shared through one closure, ad1/ad2's SASS changed (session 70),
        // and their measured speed is that of this form.
        let load = |i: u32, st: u32| {
            let key0 = key0_of(i);
            let (page, row0) = if cache.table == 0 {
                (b, key0)
            } else {
                let p = ld_global_nc_s32((cache.table as *const i32).add((b * cache.max_pages + key0 / page_size) as usize));
                (if p >= 0 && (p as u32) < cache.num_pages { p as u32 } else { u32::MAX }, key0 % page_size)
            };
            let base = page as u64 * cache.page_stride + kvh as u64 * cache.head_stride;
            let mut c = lane;
            while c < DECODE_KEYS * D / 8 {
                let (r, col) = (c / (D / 8), 8 * (c % (D / 8)));
                let valid = key0 + r < end && page != u32::MAX;
                let off = if valid { base + (row0 + r) as u64 * cache.row_stride + col as u64 } else { 0 };
                let sz = if valid { 16 } else { 0 };
                let so = 2 * tkv.offset(r, col);
                cp_async_cg_16_zfill(s_k(st) + so, k.add(off as usize) as *const u8, sz);
                cp_async_cg_16_zfill(s_v(st) + so, v.add(off as usize) as *const u8, sz);
                c += 32;
            }
        };
        // `AHEAD` (ad2p, paged caches): the key loop's copy with the tile's table entry `p` read beforehand,
        // one tile ahead (`entry`); ad1–ad3 keep `load`: written as `load_at(i, st, entry(i))` their PTX changed
        // (1,745 diff lines at D = 128/256, session 71), as sharing with `load_part` changed their SASS in session 70.
        let load_at = |i: u32, st: u32, p: i32| {
            let key0 = key0_of(i);
            let (page, row0) = if cache.table == 0 {
                (b, key0)
            } else {
                (if p >= 0 && (p as u32) < cache.num_pages { p as u32 } else { u32::MAX }, key0 % page_size)
            };
            let base = page as u64 * cache.page_stride + kvh as u64 * cache.head_stride;
            let mut c = lane;
            while c < DECODE_KEYS * D / 8 {
                let (r, col) = (c / (D / 8), 8 * (c % (D / 8)));
                let valid = key0 + r < end && page != u32::MAX;
                let off = if valid { base + (row0 + r) as u64 * cache.row_stride + col as u64 } else { 0 };
                let sz = if valid { 16 } else { 0 };
                let so = 2 * tkv.offset(r, col);
                cp_async_cg_16_zfill(s_k(st) + so, k.add(off as usize) as *const u8, sz);
                cp_async_cg_16_zfill(s_v(st) + so, v.add(off as usize) as *const u8, sz);
                c += 32;
            }
        };
        // Q tile: 16 rows × D (rows ≥ R and columns ≥ D zero), by the whole block.
        let mut c = tid;
        while c < DECODE_ROWS * dp / 8 {
            let (r, col) = (c / (dp / 8), 8 * (c % (dp / 8)));
            let valid = r < rows && col < D;
            let src = if valid { q.add((q_row(r) * D + col) as usize) } else { q };
            cp_async_cg_16_zfill(s_base + 2 * tq.offset(r, col), src as *const u8, if valid { 16 } else { 0 });
            c += 32 * DECODE_WARPS;
        }
        if early {
            // Q and the first stages' new keys as one group; every group so far complete before the loop.
            let mut i_load = 0;
            while i_load < stages - 1 {
                if i_load < n_mine {
                    load_part(i_load, i_load, len, fresh, u32::MAX);
                }
                i_load += 1;
            }
            cp_async_commit_group();
            cp_async_wait_group::<0>();
        } else {
            cp_async_commit_group();
            let mut i_load = 0;
            while i_load < stages - 1 {
                if i_load < n_mine {
                    if LANES {
                        load_at(i_load, i_load, shuffle_idx_u32(lane_page as u32, i_load) as i32);
                    } else {
                        load(i_load, i_load);
                    }
                }
                cp_async_commit_group();
                i_load += 1;
            }
            // The Q tile (the first group) complete, K/V copies still in flight.
            wait_all_but(stages - 1);
        }
        // Every warp meets here (the Q tile written by the whole block).
        sync_threads();
        let scale2 = dims.scale * core::f32::consts::LOG2_E;
        let mut r_o = [[0f32; 4]; 32]; // [n-tile of 8 columns of D][C fragment]
        let mut r_m = [-1e30f32; 2]; // running max of rows g, g + 8 (base 2)
        let mut r_l = [0f32; 2]; // running per-thread sums
        // The last key each of this thread's rows sees: token t = r / group sees len − (q_len − 1 − t).
        let row_end = |r: u32| {
            let last = dims.q_len.saturating_sub(1);
            let back = last - (r / group).min(last);
            end.min(len.saturating_sub(back))
        };
        let ends = [row_end(g), row_end(g + 8)];
        // Lane addresses (at column block 0): Q's A fragments and V's `.trans` B fragments take rows
        // lane % 16, columns 8·(lane / 16); K's B fragments rows 8·(lane / 16) + lane % 8, columns 8·(lane / 8 % 2).
        let (r_qv, c_qv) = (lane % 16, 8 * (lane / 16));
        let (r_k, c_k) = (8 * (lane / 16) + lane % 8, 8 * (lane / 8 % 2));
        // With `AHEAD`: tile i + stages − 1's entry, read while tile i − 1 computed.
        let mut ahead = if AHEAD && cache.table != 0 && stages - 1 < n_mine { entry(stages - 1) } else { 0 };
        for i in 0..n_mine {
            let st = i % stages;
            if i + stages - 1 < n_mine {
                if AHEAD {
                    load_at(i + stages - 1, (i + stages - 1) % stages, ahead);
                    if cache.table != 0 && i + stages < n_mine {
                        ahead = entry(i + stages);
                    }
                } else if LANES {
                    // (Past 32 tiles, never planned, the entry is read here.)
                    let j = i + stages - 1;
                    let p = if j < 32 { shuffle_idx_u32(lane_page as u32, j) as i32 } else if cache.table != 0 { entry(j) } else { 0 };
                    load_at(j, j % stages, p);
                } else {
                    load(i + stages - 1, (i + stages - 1) % stages);
                }
            }
            cp_async_commit_group();
            wait_all_but(stages - 1);
            sync_warp();
            // S (16 rows × 16 keys) = Q · Kᵀ.
            let mut s = [[0f32; 4]; 2];
            unroll16!(ks => {
                if ks < D / 16 {
                    let a = ldmatrix_x4(s_base + 2 * tq.offset(r_qv, 16 * ks + c_qv));
                    let kb = ldmatrix_x4(s_k(st) + 2 * tkv.offset(r_k, 16 * ks + c_k));
                    E::mma(&mut s[0], a, [kb[0], kb[1]]);
                    E::mma(&mut s[1], a, [kb[2], kb[3]]);
                }
            });
            // Scale to base 2, mask keys past each row's end (only on a tile that reaches one).
            let key0 = key0_of(i);
            unroll2!(nt => {
                unroll4!(e => {
                    s[nt as usize][e as usize] *= scale2;
                });
            });
            if key0 + DECODE_KEYS > ends[0].min(ends[1]) {
                unroll2!(nt => {
                    unroll4!(e => {
                        let key = key0 + 8 * nt + 2 * t + e % 2;
                        if key >= ends[(e / 2) as usize] {
                            s[nt as usize][e as usize] = f32::NEG_INFINITY;
                        }
                    });
                });
            }
            // Online softmax: row max over the quad, P = 2^(s − m), O and the sums rescaled.
            let mut p_frag = [0u32; 4];
            unroll2!(h => {
                let h = h as usize;
                let mx = s[0][2 * h].max(s[0][2 * h + 1]).max(s[1][2 * h].max(s[1][2 * h + 1]));
                let mx = mx.max(shuffle_xor_f32(mx, 1));
                let mx = mx.max(shuffle_xor_f32(mx, 2));
                let m_new = r_m[h].max(mx);
                let corr = ex2_approx_f32(r_m[h] - m_new);
                r_m[h] = m_new;
                let p = [ex2_approx_f32(s[0][2 * h] - m_new), ex2_approx_f32(s[0][2 * h + 1] - m_new),
                         ex2_approx_f32(s[1][2 * h] - m_new), ex2_approx_f32(s[1][2 * h + 1] - m_new)];
                r_l[h] = r_l[h] * corr + (p[0] + p[1]) + (p[2] + p[3]);
                // A fragment of P (16 rows × 16 keys): regs 0/1 keys 0–7 of rows g/g+8, regs 2/3 keys 8–15.
                p_frag[h] = E::pack(p[0], p[1]);
                p_frag[2 + h] = E::pack(p[2], p[3]);
                unroll32!(nt => {
                    if nt < D / 8 {
                        r_o[nt as usize][2 * h] *= corr;
                        r_o[nt as usize][2 * h + 1] *= corr;
                    }
                });
            });
            // O += P · V: per 16 columns of D one `.trans` V fragment into two `mma`s.
            unroll16!(np => {
                if np < D / 16 {
                    let vb = ldmatrix_x4_trans(s_v(st) + 2 * tkv.offset(r_qv, 16 * np + c_qv));
                    E::mma(&mut r_o[2 * np as usize], p_frag, [vb[0], vb[1]]);
                    E::mma(&mut r_o[2 * np as usize + 1], p_frag, [vb[2], vb[3]]);
                }
            });
            sync_warp(); // every lane is done with stage st before it is refilled
        }
        cp_async_wait_group::<0>();
        // Every warp is done with its stages: the merge area may overwrite them.
        sync_threads();

        // Merge the 4 warps' partials through shared memory (the K/V stages, free now).
        let merge = (dynamic::<Align16>() as *mut u8).add(decode_merge_offset(D) as usize) as *mut f32;
        let (s_m, s_l, s_o) = (merge, merge.add(64), merge.add(128));
        let l_row = [r_l[0] + shuffle_xor_f32(r_l[0], 1), r_l[1] + shuffle_xor_f32(r_l[1], 1)];
        let l_row = [l_row[0] + shuffle_xor_f32(l_row[0], 2), l_row[1] + shuffle_xor_f32(l_row[1], 2)];
        if t == 0 {
            unroll2!(h => {
                *s_m.add((16 * warp + g + 8 * h) as usize) = r_m[h as usize];
                *s_l.add((16 * warp + g + 8 * h) as usize) = l_row[h as usize];
            });
        }
        unroll32!(nt => {
            if nt < D / 8 {
                unroll4!(e => {
                    let (r, col) = (g + 8 * (e / 2), 8 * nt + 2 * t + e % 2);
                    *s_o.add(((warp * 16 + r) * D + col) as usize) = r_o[nt as usize][e as usize];
                });
            }
        });
        sync_threads();
        // Thread tid: columns tid, tid + 128, … of every row r < rows.
        let mut r = 0;
        while r < rows {
            let mut m = -1e30f32;
            for w in 0..DECODE_WARPS {
                m = m.max(*s_m.add((16 * w + r) as usize));
            }
            let mut wsum = [0f32; DECODE_WARPS as usize];
            let mut l = 0f32;
            for w in 0..DECODE_WARPS {
                wsum[w as usize] = ex2_approx_f32(*s_m.add((16 * w + r) as usize) - m);
                l += wsum[w as usize] * *s_l.add((16 * w + r) as usize);
            }
            let inv = if l > 0.0 { 1.0 / l } else { 0.0 };
            // Natural log-sum-exp of the split's keys; −∞ where it has none for this row.
            let row_lse = if l > 0.0 { (m + lg2_approx_f32(l)) * core::f32::consts::LN_2 } else { f32::NEG_INFINITY };
            let out_row = q_row(r);
            let mut col = tid;
            while col < D {
                let mut acc = 0f32;
                for w in 0..DECODE_WARPS {
                    acc += wsum[w as usize] * *s_o.add(((w * 16 + r) * D + col) as usize);
                }
                if n_splits == 1 {
                    *o.add((out_row * D + col) as usize) = (E::pack(acc * inv, 0.0) & 0xffff) as u16;
                } else {
                    *o_part.add(((split * all_rows(dims) + out_row) * D + col) as usize) = acc * inv;
                }
                col += 32 * DECODE_WARPS;
            }
            if tid == 0 {
                if n_splits == 1 {
                    *lse.add(out_row as usize) = row_lse;
                } else {
                    *lse_part.add((split * all_rows(dims) + out_row) as usize) = row_lse;
                }
            }
            r += 1;
        }
        if FUSE && n_splits > 1 {
            // Every thread's partial stores before its fence, every fence before thread 0's count (the
            // barrier), which releases them; the merge area is free again after this barrier too.
            thread_fence();
            sync_threads();
            let s_last = merge as *mut u32;
            if tid == 0 {
                let ctr = counters.add((b * grid_dim_y() + kvh) as usize);
                let last = atom_add_acq_rel_gpu_u32(ctr, 1) + 1 == n_splits;
                if last {
                    // Every split of the pair has counted: none touches it again in this launch.
                    st_relaxed_gpu_u32(ctr, 0);
                }
                *s_last = last as u32;
            }
            sync_threads();
            if *s_last == 0 {
                return;
            }
            // The last CTA: thread 0's acquire saw every split's release; the barrier orders the rest.
            combine_pair::<E, D>(o_part, lse_part, o, lse, rows, all_rows(dims), n_splits, q_row);
        }
    }
}

/// The combine of one (sequence, K/V head) pair's `rows` query rows (global rows `q_row(r)`) over its
/// `splits` partials (row stride `all_rows`) into `o` and `lse`, as `attn_decode_combine_*` does for
/// every row but inside the decode grid: warp `w` takes rows `w, w + 4, …`, lane `i` 4 columns at
/// `4·(i + 32·j)`; the partials are weighted by `e^(lse_s − max)`. One round trip to L2 at D ≤ 128 with
/// ≤ 16 splits (session 70): the first 16 splits' `v4` partials are loaded together with the lanes'
/// log-sum-exps (lane `s` holds split `s`'s), before the max and the weights are known; the weights of
/// splits below 32 are then shuffled from their lanes, later ones loaded again. (Before: the
/// log-sum-exps for the max, again for the weight sum, then the partials, 8 splits a round.)
///
/// # Safety
/// All 128 threads of the CTA; every split's partials written and made visible (the caller's count);
/// `o_part` `splits · all_rows · D` f32, `lse_part` `splits · all_rows`, `o` and `lse` hold the rows, `o`
/// 8-byte aligned (4 outputs are stored at once; D is a multiple of 16).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn combine_pair<E: Elem16, const D: u32>(o_part: *const f32, lse_part: *const f32, o: *mut u16, lse: *mut f32, rows: u32, all_rows: u32, splits: u32,
                                                 q_row: impl Fn(u32) -> u32) {
    let (warp, lane) = (thread_idx_x() / 32, lane_id());
    let ln2 = core::f32::consts::LN_2;
    let log2e = core::f32::consts::LOG2_E;
    // Column groups of 4 per lane: 1 at D ≤ 128, 2 at D = 256.
    let groups = const { (D / 4).div_ceil(32) };
    // SAFETY: reads at splits s < `splits` of the pair's rows, columns < D; writes to the pair's rows. Every
    // shuffle runs on the whole warp: the loops around them are uniform (rows, splits and groups are).
    unsafe {
        let mut r = warp;
        while r < rows {
            let row = q_row(r);
            let lse_at = |s: u32| ld_global_cg_f32(lse_part.add((s * all_rows + row) as usize));
            let part = |s: u32, c: u32| ld_global_cg_v4_f32(o_part.add(((s * all_rows + row) * D + 4 * c) as usize));
            // Splits s0 … s0 + 7 of column group c (zeros past `splits` or past D).
            let load8 = |s0: u32, c: u32| -> [[f32; 4]; 8] {
                core::array::from_fn(|j| if s0 + (j as u32) < splits && c < D / 4 { part(s0 + j as u32, c) } else { [0.0; 4] })
            };
            // The first 16 splits of the first column group, in flight with the log-sum-exps.
            let head = [load8(0, lane), load8(8, lane)];
            let my_lse = if lane < splits { lse_at(lane) } else { f32::NEG_INFINITY };
            let mut m = my_lse;
            let mut s = lane + 32;
            while s < splits {
                m = m.max(lse_at(s));
                s += 32;
            }
            let mut x = 16;
            while x > 0 {
                m = m.max(shuffle_xor_f32(m, x));
                x /= 2;
            }
            if m == f32::NEG_INFINITY {
                // No keys for this row in any split: output 0 and a log-sum-exp of −∞, as the combine.
                let mut c = lane;
                while c < D / 4 {
                    *(o.add((row * D + 4 * c) as usize) as *mut [u32; 2]) = [0, 0];
                    c += 32;
                }
                if lane == 0 {
                    *lse.add(row as usize) = f32::NEG_INFINITY;
                }
                r += DECODE_WARPS;
                continue;
            }
            let my_w = if lane < splits { ex2_approx_f32((my_lse - m) * log2e) } else { 0.0 };
            let mut wsum = my_w;
            let mut s = lane + 32;
            while s < splits {
                wsum += ex2_approx_f32((lse_at(s) - m) * log2e);
                s += 32;
            }
            let mut x = 16;
            while x > 0 {
                wsum += shuffle_xor_f32(wsum, x);
                x /= 2;
            }
            let inv = 1.0 / wsum;
            // acc += Σ_j w_(s0 + j) · x[j] over the splits below `splits` (uniform: every lane shuffles).
            let add8 = |acc: &mut [f32; 4], s0: u32, x: &[[f32; 4]; 8]| {
                for j in 0..8 {
                    let s = s0 + j as u32;
                    if s < splits {
                        let w = if s < 32 { f32::from_bits(shuffle_idx_u32(my_w.to_bits(), s)) } else { ex2_approx_f32((lse_at(s) - m) * log2e) };
                        for e in 0..4 {
                            acc[e] += w * x[j][e];
                        }
                    }
                }
            };
            let mut gi = 0;
            while gi < groups {
                let c = lane + 32 * gi;
                let mut acc = [0f32; 4];
                let mut s0 = 0;
                if gi == 0 {
                    add8(&mut acc, 0, &head[0]);
                    add8(&mut acc, 8, &head[1]);
                    s0 = 16;
                }
                while s0 < splits {
                    let x = load8(s0, c);
                    add8(&mut acc, s0, &x);
                    s0 += 8;
                }
                if c < D / 4 {
                    *(o.add((row * D + 4 * c) as usize) as *mut [u32; 2]) = [E::pack(acc[0] * inv, acc[1] * inv), E::pack(acc[2] * inv, acc[3] * inv)];
                }
                gi += 1;
            }
            if lane == 0 {
                *lse.add(row as usize) = m + lg2_approx_f32(wsum) * ln2;
            }
            r += DECODE_WARPS;
        }
    }
}

/// `cp.async.wait_group n` for the ring's `n = decode_stages(D) − 1` (a constant per head dim, 1 to 5: a
/// deeper ring needs no change here).
#[inline(always)]
fn wait_all_but(n: u32) {
    match n {
        1 => cp_async_wait_group::<1>(),
        2 => cp_async_wait_group::<2>(),
        3 => cp_async_wait_group::<3>(),
        4 => cp_async_wait_group::<4>(),
        _ => cp_async_wait_group::<5>(),
    }
}

/// Query rows of the whole batch, `batch · q_len · heads` (the grid's z is the batch): the partial
/// buffers' stride from one split to the next.
#[inline(always)]
pub(super) fn all_rows(dims: Dims) -> u32 {
    crate::prim::thread::grid_dim_z() * dims.q_len * dims.heads
}

/// The entries of the decode steps that combine in the grid (ad2, ad3, ad2p, ad5), one per `(name, element type,
/// head dim)`, written once: `$step` names the step in each entry's doc, `$safety` what its contract adds to ad1's,
/// and `$early`, `$ahead`, `$lanes` are the body's `EARLY`, `AHEAD` and `LANES` (`FUSE` is on). Expands in a step
/// file (which imports `decode`, `Cache`, `Dims` and the element types); each entry gets its `launch_bounds` (128
/// threads).
macro_rules! fused_decode_entries {
    ($step:literal, $safety:literal, $early:literal, $ahead:literal, $lanes:literal; $($name:ident, $e:ty, $d:literal;)*) => {$(
        #[doc = concat!("Decode attention (step ", $step, ") for head dim `", stringify!($d), "`: see the module doc.")]
        ///
        /// # Safety
        #[doc = $safety]
        #[unsafe(no_mangle)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name(q: *const u16, k: *const u16, v: *const u16, seq_lens: *const i32, cache: Cache, dims: Dims,
                                                o: *mut u16, lse: *mut f32, o_part: *mut f32, lse_part: *mut f32, counters: *mut u32) {
            // SAFETY: forwarded.
            unsafe { decode::<$e, $d, true, $early, $ahead, $lanes>(q, k, v, seq_lens, cache, dims, o, lse, o_part, lse_part, counters) }
        }
        $crate::launch_bounds::launch_bounds!($name, 128);
    )*};
}
pub(super) use fused_decode_entries;

//! Decode step ad1 (issue 49): a few new query tokens per sequence against a **KV cache**, contiguous or
//! paged, with grouped heads, the keys split across CTAs (flash-decoding) and a combine step.
//!
//! Prefill (a1–a17) has thousands of query rows per head to share each K/V tile; decode has one (or a
//! few, speculating) per sequence, so the kernel is a read of the cache and nothing else matters as much
//! as reading it once and at full bandwidth:
//! * **grouped heads in one tile**: a CTA takes one (sequence, K/V head) and every query row that reads
//!   it — the `G = heads / kv_heads` query heads times the `q_len` new tokens, `R = G·q_len ≤ 16` rows,
//!   padded to one `mma` m-tile — so each K/V byte is read once per group, not once per query head;
//! * **split-KV**: the grid is `(splits, kv_heads, batch)` and split `s` takes keys `[s·chunk, (s+1)·chunk)`:
//!   at batch 1 with 8 K/V heads one CTA per head would leave 124 of 132 SMs idle; the host picks
//!   `splits` to fill the GPU (`kernel_lab::attention::decode`), and a second kernel,
//!   [`attn_decode_combine_f16`], merges the splits' normalized outputs by their log-sum-exps;
//! * **warps on their own tiles**: each of the 4 warps streams its own 16-key tiles (tiles `w, w + 4, …`
//!   of the split) through its own `cp.async` ring (3 stages; 2 at D = 256) and keeps its own online
//!   softmax — no block barrier in the key loop — and the warps' partials are merged through shared
//!   memory at the end;
//! * **the cache's layout as strides**: key `k` of sequence `b`, K/V head `h` is at
//!   `page·page_stride + h·head_stride + (k % page_size)·row_stride` with `page = table[b][k / page_size]`
//!   (paged; a 16-key tile never crosses a page, page sizes being multiples of 16) or `page = b` with
//!   `page_size = max_len` (contiguous): FlashInfer's HND pages, vLLM's NHD pages and `[B][H_kv][L][D]`
//!   are three sets of strides;
//! * S = Q·Kᵀ and O += P·V on `mma.sync.m16n8k16` (a2's fragments: Q and V by `ldmatrix`, V `.trans`),
//!   online softmax in base 2; the causal mask of speculative tokens aligned bottom-right (token `t` of
//!   `q_len` sees the first `len − (q_len − 1 − t)` keys).
//!
//! Prediction (before any run, H200): the cache read at ≥ 85% of a device copy's bandwidth where it
//! holds ≥ 256 MiB (batch 32–64 at 4–8k, cuDNN 92–104%); at batch 1, 4k–32k, split-KV makes it ~1.5–3×
//! cuDNN's SDPA (17.3 µs at 4k: ours ~6–8 µs, two launches); paged within 5% of contiguous.
//!
//! Measured (H200, bf16, session 49, 3 processes, `results/2026-11-28-h200-session49/`): 99–104% of copy
//! on 0.5–2 GiB caches at D = 128/256 (0.99× cuDNN at D = 128, 1.23× at 256), 73% at D = 64; batch 1,
//! 4k: 24.2 µs (1.22× cuDNN), 32k: 51.0 µs (0.80×) — the batch-1 prediction missed: ~20 µs of launches,
//! first-tile latency and merge sit above the bytes' time. Paged 0.94–1.01× contiguous. The attention
//! README's decode section has the table.
use crate::hgemm::elem::{Bf16, Elem16, F16};
use crate::prim::{
    global::ld_global_nc_s32,
    cp_async::{cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group},
    ldmatrix::{ldmatrix_x4, ldmatrix_x4_trans},
    math::{ex2_approx_f32, lg2_approx_f32},
    shared::{Align16, addr_of, dynamic},
    sync::{sync_threads, sync_warp},
    thread::{block_idx_x, block_idx_y, block_idx_z, grid_dim_x, lane_id, thread_idx_x},
    warp::shuffle_xor_f32,
};
use crate::util::unroll::{unroll2, unroll4, unroll16, unroll32};
use layout::{
    Layout,
    attention::{DECODE_KEYS, DECODE_ROWS, DECODE_WARPS, DecodeCache as Cache, DecodeDims as Dims, decode_kv_offset, decode_merge_offset, decode_stages, decode_width, tile},
};

/// The decode body for element type `E` and head dim `D` (64, 96, 128, 256). Grid `(splits, kv_heads,
/// batch)`, 128 threads, `decode_smem(D)` bytes. Writes, per query row `(b, t, h)`: with one split the
/// output `o[b][t][h][D]` (`E`) and `lse[b][t][h]`; with more, the split's normalized output to
/// `o_part[s][b][t][h][D]` (f32) and its log-sum-exp to `lse_part[s][b][t][h]` for the combine.
///
/// # Safety
/// See the entries.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn decode<E: Elem16, const D: u32>(q: *const u16, k: *const u16, v: *const u16, seq_lens: *const i32, cache: Cache, dims: Dims,
                                          o: *mut u16, lse: *mut f32, o_part: *mut f32, lse_part: *mut f32) {
    let dp = const { decode_width(D) };
    let stages = const { decode_stages(D) };
    const { assert!(D % 16 == 0 && D <= 256 && DECODE_KEYS == 16 && DECODE_ROWS == 16) };
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
        // This sequence's length, clamped to the cache (a negative length is 0).
        let len = (*seq_lens.add(b as usize)).max(0).min(cache.capacity as i32) as u32;
        let start = split * dims.chunk;
        let end = len.min(start + dims.chunk);
        // Query row r = (token r / group, head kvh·group + r % group); its global row in [B][q_len][H].
        let q_row = |r: u32| (b * dims.q_len + r / group) * dims.heads + kvh * group + r % group;
        // Q tile: 16 rows × D (rows ≥ R and columns ≥ D zero), by the whole block.
        let mut c = tid;
        while c < DECODE_ROWS * dp / 8 {
            let (r, col) = (c / (dp / 8), 8 * (c % (dp / 8)));
            let valid = r < rows && col < D;
            let src = if valid { q.add((q_row(r) * D + col) as usize) } else { q };
            cp_async_cg_16_zfill(s_base + 2 * tq.offset(r, col), src as *const u8, if valid { 16 } else { 0 });
            c += 32 * DECODE_WARPS;
        }
        cp_async_commit_group();

        // This warp's tiles: keys start + 16·(warp + 4·i) for i < n_mine.
        let n_tiles = if end > start { (end - start).div_ceil(DECODE_KEYS) } else { 0 };
        let n_mine = if n_tiles > warp { (n_tiles - warp).div_ceil(DECODE_WARPS) } else { 0 };
        let key0_of = |i: u32| start + DECODE_KEYS * (warp + DECODE_WARPS * i);
        let s_k = |st: u32| s_base + decode_kv_offset(D, warp, st, false);
        let s_v = |st: u32| s_base + decode_kv_offset(D, warp, st, true);
        // One warp's copy of tile i (16 keys × D of K and of V) into stage st: the tile lies in one
        // page; rows past `end` zero-filled (source clamped to the tile's first row).
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
        let mut i_load = 0;
        while i_load < stages - 1 {
            if i_load < n_mine {
                load(i_load, i_load);
            }
            cp_async_commit_group();
            i_load += 1;
        }

        // The Q tile (the first group) complete, K/V copies still in flight; every warp meets here.
        if stages == 3 {
            cp_async_wait_group::<2>();
        } else {
            cp_async_wait_group::<1>();
        }
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
        for i in 0..n_mine {
            let st = i % stages;
            if i + stages - 1 < n_mine {
                load(i + stages - 1, (i + stages - 1) % stages);
            }
            cp_async_commit_group();
            if stages == 3 {
                cp_async_wait_group::<2>();
            } else {
                cp_async_wait_group::<1>();
            }
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
    }
}

/// Query rows of the whole batch, `batch · q_len · heads` (the grid's z is the batch): the partial
/// buffers' stride from one split to the next.
#[inline(always)]
fn all_rows(dims: Dims) -> u32 {
    crate::prim::thread::grid_dim_z() * dims.q_len * dims.heads
}

/// The combine of split-KV partials: row `(b, t, h)` = Σ_s w_s · o_part[s] / Σ_s w_s with
/// `w_s = e^(lse_s − max lse)`, its log-sum-exp `max + ln Σ w_s` (rows without keys: 0 and −∞). One warp
/// per row, 8 rows per 256-thread block, lane `i` columns `i, i + 32, …`.
///
/// # Safety
/// `o_part` holds `splits · rows · d` f32, `lse_part` `splits · rows`, `o` `rows · d` 16-bit, `lse` `rows`
/// f32; grid `⌈rows / 8⌉` blocks of 256 threads.
#[inline(always)]
unsafe fn combine<E: Elem16>(o_part: *const f32, lse_part: *const f32, o: *mut u16, lse: *mut f32, rows: u32, d: u32, splits: u32) {
    let row = block_idx_x() * 8 + thread_idx_x() / 32;
    let lane = lane_id();
    if row >= rows {
        return;
    }
    // SAFETY: row < rows; reads at s < splits and columns < d; the contract's sizes.
    unsafe {
        let mut m = f32::NEG_INFINITY;
        for s in 0..splits {
            m = m.max(*lse_part.add((s * rows + row) as usize));
        }
        let mut col = lane;
        if m == f32::NEG_INFINITY {
            while col < d {
                *o.add((row * d + col) as usize) = 0;
                col += 32;
            }
            if lane == 0 {
                *lse.add(row as usize) = f32::NEG_INFINITY;
            }
            return;
        }
        let mut wsum = 0f32;
        for s in 0..splits {
            wsum += ex2_approx_f32((*lse_part.add((s * rows + row) as usize) - m) * core::f32::consts::LOG2_E);
        }
        let inv = 1.0 / wsum;
        while col < d {
            let mut acc = 0f32;
            for s in 0..splits {
                let w = ex2_approx_f32((*lse_part.add((s * rows + row) as usize) - m) * core::f32::consts::LOG2_E);
                acc += w * *o_part.add(((s * rows + row) * d + col) as usize);
            }
            *o.add((row * d + col) as usize) = (E::pack(acc * inv, 0.0) & 0xffff) as u16;
            col += 32;
        }
        if lane == 0 {
            *lse.add(row as usize) = m + lg2_approx_f32(wsum) * core::f32::consts::LN_2;
        }
    }
}

/// New K/V rows into the cache: token `t` of sequence `b` (`k_new`, `v_new` `[batch][q_len][kv_heads][d]`)
/// goes to position `seq_lens[b] − q_len + t` (the lengths already count the new tokens), through the
/// page table like the decode kernel reads it. One thread per 16-byte chunk; rows whose position falls
/// outside the cache or in a page outside it are skipped.
///
/// # Safety
/// `k_new`, `v_new` hold `batch · q_len · kv_heads · d` 16-bit, `d % 8 == 0`; `k`, `v` and the table as
/// for the decode kernel; grid `⌈batch · q_len · kv_heads · d / 8 / 256⌉` blocks of 256 threads.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_kv_append(k_new: *const u16, v_new: *const u16, k: *mut u16, v: *mut u16, seq_lens: *const i32, cache: Cache, batch: u32,
                                                  q_len: u32, kv_heads: u32, d: u32) {
    let c = block_idx_x() * 256 + thread_idx_x();
    // Runtime divisors made provably nonzero (the host never passes 0): no division-by-zero panic path.
    let (per_row, kv_heads, q_len) = ((d / 8).max(1), kv_heads.max(1), q_len.max(1));
    if c >= batch * q_len * kv_heads * per_row {
        return;
    }
    let (row, col) = (c / per_row, 8 * (c % per_row));
    let (h, tok) = (row % kv_heads, row / kv_heads);
    let (b, t) = (tok / q_len, tok % q_len);
    // SAFETY: c indexes a chunk of the new rows (checked above); the destination is written only where
    // the position is inside the sequence's capacity and its page inside the cache.
    unsafe {
        let len = *seq_lens.add(b as usize);
        let pos = len - q_len as i32 + t as i32;
        if pos < 0 || pos as u32 >= cache.capacity {
            return;
        }
        let pos = pos as u32;
        let (page, r) = if cache.table == 0 {
            (b, pos)
        } else {
            let p = ld_global_nc_s32((cache.table as *const i32).add((b * cache.max_pages + pos / cache.page_size.max(1)) as usize));
            if p < 0 || p as u32 >= cache.num_pages {
                return;
            }
            (p as u32, pos % cache.page_size.max(1))
        };
        let dst = page as u64 * cache.page_stride + h as u64 * cache.head_stride + r as u64 * cache.row_stride + col as u64;
        let src = (row * d + col) as usize;
        *(k.add(dst as usize) as *mut [u32; 4]) = *(k_new.add(src) as *const [u32; 4]);
        *(v.add(dst as usize) as *mut [u32; 4]) = *(v_new.add(src) as *const [u32; 4]);
    }
}
crate::launch_bounds::launch_bounds!(attn_kv_append, 256);

macro_rules! decode_entry {
    ($name:ident, $e:ty, $d:literal) => {
        /// Decode attention (step ad1) for head dim `$d`: see the module doc.
        ///
        /// # Safety
        /// `q` holds `batch · q_len · heads · D` 16-bit (`[B][q_len][H][D]`), `seq_lens` `batch` i32; `k`,
        /// `v` the cache the strides and table describe (every page `< num_pages` whole), the table
        /// `batch · max_pages` i32 (or null: contiguous); with one split `o` (`batch · q_len · heads · D`)
        /// and `lse` (`batch · q_len · heads` f32), with more `o_part` and `lse_part` that many times the
        /// splits; `group · q_len ≤ 16`; grid `(splits, kv_heads, batch)`, 128 threads, `decode_smem(D)` bytes.
        #[unsafe(no_mangle)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name(q: *const u16, k: *const u16, v: *const u16, seq_lens: *const i32, cache: Cache, dims: Dims,
                                                o: *mut u16, lse: *mut f32, o_part: *mut f32, lse_part: *mut f32) {
            // SAFETY: forwarded.
            unsafe { decode::<$e, $d>(q, k, v, seq_lens, cache, dims, o, lse, o_part, lse_part) }
        }
        crate::launch_bounds::launch_bounds!($name, 128);
    };
}

decode_entry!(attn_decode_d64_f16, F16, 64);
decode_entry!(attn_decode_d96_f16, F16, 96);
decode_entry!(attn_decode_d128_f16, F16, 128);
decode_entry!(attn_decode_d256_f16, F16, 256);
decode_entry!(attn_decode_d64_bf16, Bf16, 64);
decode_entry!(attn_decode_d96_bf16, Bf16, 96);
decode_entry!(attn_decode_d128_bf16, Bf16, 128);
decode_entry!(attn_decode_d256_bf16, Bf16, 256);

/// The split-KV combine, f16 output: see [`combine`].
///
/// # Safety
/// As [`combine`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_decode_combine_f16(o_part: *const f32, lse_part: *const f32, o: *mut u16, lse: *mut f32, rows: u32, d: u32, splits: u32) {
    // SAFETY: forwarded.
    unsafe { combine::<F16>(o_part, lse_part, o, lse, rows, d, splits) }
}
crate::launch_bounds::launch_bounds!(attn_decode_combine_f16, 256);

/// The split-KV combine, bf16 output: see [`combine`].
///
/// # Safety
/// As [`combine`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_decode_combine_bf16(o_part: *const f32, lse_part: *const f32, o: *mut u16, lse: *mut f32, rows: u32, d: u32, splits: u32) {
    // SAFETY: forwarded.
    unsafe { combine::<Bf16>(o_part, lse_part, o, lse, rows, d, splits) }
}
crate::launch_bounds::launch_bounds!(attn_decode_combine_bf16, 256);

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
use super::decode_body::decode;
use crate::hgemm::elem::{Bf16, Elem16, F16};
use crate::prim::{
    global::ld_global_nc_s32,
    math::{ex2_approx_f32, lg2_approx_f32},
    thread::{block_idx_x, lane_id, thread_idx_x},
};
use layout::attention::DecodeCache as Cache;
use layout::attention::DecodeDims as Dims;

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
    // sm_90: launched with PDL; a decode launched after it with `CacheReady::AtLaunch` may read the older
    // rows while this grid still writes the new ones.
    crate::util::pdl::wait_then_release();
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
            unsafe { decode::<$e, $d, false, false, false, false>(q, k, v, seq_lens, cache, dims, o, lse, o_part, lse_part, core::ptr::null_mut()) }
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

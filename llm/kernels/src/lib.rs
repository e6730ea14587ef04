//! The model runner's own kernels: what runs between the lab's GEMMs and attention in a Llama-family
//! forward pass — the embedding gather, the residual add fused with RMSNorm, the rotary embedding (with
//! the Q/K/V biases, splitting the fused projection into Q, K and V), the cached K/V rows a prompt's chunk
//! attends to, SiLU·mul, the greedy argmax, and the weight transpose done once at load. One `#[kernel]` per element type (`_bf16`, `_f16`: 16-bit bits).
//!
//! The arithmetic copies Hugging Face's rounding steps, so that the runner's logits can be compared with
//! transformers' at bf16 tolerance: every value torch holds as a 16-bit tensor is rounded here too (the
//! residual sum, the normalized row before the weight, `cos`/`sin`, each product of the rotation, SiLU's
//! output), with f32 in between.
#![no_std]
#![feature(abi_ptx, asm_experimental_arch, core_float_math)]
use nvptx_std::{
    atomic::{atom_add_acq_rel_gpu_u32, ld_relaxed_gpu_u64, st_relaxed_gpu_u32, st_release_sys_u64},
    global::{ld_global_cg_v4_f32, ld_global_nc_v4_u32, st_global_v4_u32},
    kernel, unroll8,
    math::ex2_approx_f32,
    half16::{Bf16, F16, Half, chunk, halves},
    shared,
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, grid_dim_y, thread_idx_x},
    warp::{block_reduce_f32, shuffle_xor_u32},
};

/// Threads per block of every kernel here: 8 warps.
pub const THREADS: u32 = 256;
/// Widest row the RMSNorm kernel keeps in registers: 8 chunks of 8 elements per thread.
pub const MAX_HIDDEN: u32 = 8 * 8 * THREADS;

/// The prologue of every kernel of a decode step, in the sm_90 build: wait for the previous grid on the
/// stream (complete, its writes visible), then let the next grid's CTAs be scheduled. The host launches
/// a kernel whose PTX holds the wait with programmatic dependent launch (`kernel_lab`'s `launch_pdl`), so
/// its CTAs can be resident, and their launch paid, while the previous grid finishes; nothing is read or
/// written before the wait. Empty in the sm_80 build (no PDL before sm_90; launched plainly there).
#[inline(always)]
fn pdl() {
    #[cfg(lab_sm90)]
    {
        nvptx_std::sync::griddepcontrol_wait();
        nvptx_std::sync::griddepcontrol_launch_dependents();
    }
}

/// Row `blockIdx.x` of `table` (`vocab × hidden`) for token `ids[blockIdx.x]` into `out`; an id outside
/// `0..vocab` gives a zero row (the host refuses such ids before launching).
///
/// # Safety
/// `THREADS` threads, one block per token; `ids` holds the grid's tokens, `table` `vocab · hidden` and
/// `out` `tokens · hidden` elements, 16-byte aligned; `hidden % 8 == 0`.
unsafe fn embed(ids: *const i32, table: *const u16, out: *mut u16, hidden: u32, vocab: u32) {
    pdl();
    let t = block_idx_x() as usize;
    // SAFETY: t < tokens (the grid).
    let id = unsafe { *ids.add(t) };
    let ok = id >= 0 && (id as u32) < vocab;
    let mut c = 8 * thread_idx_x();
    while c < hidden {
        // SAFETY: c + 8 ≤ hidden (hidden % 8 == 0), 16-byte aligned; row `id` < vocab when read.
        unsafe {
            let v = if ok { ld_global_nc_v4_u32(table.add(id as usize * hidden as usize + c as usize) as *const u32) } else { [0; 4] };
            st_global_v4_u32(out.add(t * hidden as usize + c as usize) as *mut u32, v);
        }
        c += 8 * THREADS;
    }
}

/// [`embed`] for bf16.
///
/// # Safety
/// As [`embed`].
#[kernel(threads = 256)]
pub unsafe fn embed_bf16(ids: *const i32, table: *const u16, out: *mut u16, hidden: u32, vocab: u32) {
    unsafe { embed(ids, table, out, hidden, vocab) }
}

/// [`embed`] for f16 (the same bits: the copy does not look at them).
///
/// # Safety
/// As [`embed`].
#[kernel(threads = 256)]
pub unsafe fn embed_f16(ids: *const i32, table: *const u16, out: *mut u16, hidden: u32, vocab: u32) {
    unsafe { embed(ids, table, out, hidden, vocab) }
}

/// Row `blockIdx.x`: with `add ≠ 0`, the residual stream `x += delta` (rounded, written back); then
/// `y = w · (x / √(mean x² + ε))`, the normalized row rounded before the weight multiplies it (Hugging
/// Face's `LlamaRMSNorm`: `weight * hidden.to(dtype)`).
///
/// # Safety
/// `THREADS` threads and 32 bytes of dynamic shared memory per block, one block per row; `x`, `y` (and
/// `delta` when `add ≠ 0`) hold `rows · hidden` elements and `w` `hidden`, all 16-byte aligned;
/// `hidden % 8 == 0`, `hidden ≤ MAX_HIDDEN`; `y` does not overlap `x`.
unsafe fn add_rmsnorm<E: Half>(x: *mut u16, delta: *const u16, w: *const u16, y: *mut u16, hidden: u32, eps: f32, add: u32) {
    pdl();
    let row = block_idx_x() as usize * hidden as usize;
    let tid = thread_idx_x();
    let mut keep = [[0u32; 4]; 8];
    // The weight's chunks too, loaded with the row's (they do not depend on the sum): one memory round
    // trip less after the reduction.
    let mut wk = [[0u32; 4]; 8];
    let mut sq = 0f32;
    // Both passes unrolled (`unroll8!`): a loop over `keep` put it in local memory.
    unroll8!(i => {
        let c = (8 * tid + 8 * THREADS * i as u32) as usize;
        if c < hidden as usize {
            // SAFETY: c + 8 ≤ hidden, 16-byte aligned, inside row `row` and `w`; `delta` read only when given.
            unsafe {
                wk[i] = ld_global_nc_v4_u32(w.add(c) as *const u32);
                // `x` is written below: read through L2 (`.cg`), not the read-only path.
                let mut h = halves(ld_global_cg_v4_f32(x.add(row + c) as *const f32).map(f32::to_bits));
                if add != 0 {
                    let d = halves(ld_global_nc_v4_u32(delta.add(row + c) as *const u32));
                    h = core::array::from_fn(|j| E::bits(E::f(h[j]) + E::f(d[j])));
                    st_global_v4_u32(x.add(row + c) as *mut u32, chunk(h));
                }
                sq += h.iter().map(|&b| E::f(b) * E::f(b)).sum::<f32>();
                keep[i] = chunk(h);
            }
        }
    });
    // SAFETY: every thread reaches the reduction (no early return); 8 slots in 32 bytes of shared memory.
    let total = unsafe { block_reduce_f32::<{ THREADS / 32 }>(sq, shared::dynamic(), |a, b| a + b) };
    let r = 1.0 / core::f32::math::sqrt(total / hidden as f32 + eps);
    unroll8!(i => {
        let c = (8 * tid + 8 * THREADS * i as u32) as usize;
        if c < hidden as usize {
            // SAFETY: as above, for `y`.
            unsafe {
                let (h, g) = (halves(keep[i]), halves(wk[i]));
                st_global_v4_u32(y.add(row + c) as *mut u32, chunk(core::array::from_fn(|j| E::bits(E::f(g[j]) * E::rnd(E::f(h[j]) * r)))));
            }
        }
    });
}

/// [`add_rmsnorm`] for bf16.
///
/// # Safety
/// As [`add_rmsnorm`].
#[kernel(threads = 256)]
pub unsafe fn add_rmsnorm_bf16(x: *mut u16, delta: *const u16, w: *const u16, y: *mut u16, hidden: u32, eps: f32, add: u32) {
    unsafe { add_rmsnorm::<Bf16>(x, delta, w, y, hidden, eps, add) }
}

/// [`add_rmsnorm`] for f16.
///
/// # Safety
/// As [`add_rmsnorm`].
#[kernel(threads = 256)]
pub unsafe fn add_rmsnorm_f16(x: *mut u16, delta: *const u16, w: *const u16, y: *mut u16, hidden: u32, eps: f32, add: u32) {
    unsafe { add_rmsnorm::<F16>(x, delta, w, y, hidden, eps, add) }
}

/// Token `blockIdx.x` (its items `blockIdx.y · THREADS + threadIdx.x`, striding by the grid's y: one
/// rotated pair of Q or K or one element of V each, so a decode step's few tokens still spread over
/// many blocks) of the fused projection `qkv` (`[tokens][(heads + 2·kv_heads)·D]`: Q's heads, K's,
/// V's), plus `bias` (same row layout) when `has_bias ≠ 0`, split into `q` (`[tokens][heads][D]`), `k`
/// and `v` (`[tokens][kv_heads][D]`), Q and K rotated by the token's position `pos[t]` (Hugging Face's
/// `rotate_half` form: dimension `i < D/2` pairs with `i + D/2`), `cos_sin` `[max_pos][D/2][2]` f32 (the
/// host's table, rope scaling included). A position outside `0..max_pos` takes the last row (refused by
/// the host). K and V also go to the KV cache (contiguous `[slots][kv_heads][max_len][D]` or paged:
/// [`CacheLayout`]) at the token's position in its slot `cache.slot[t]`; `k` and `v` are written only with
/// `packed_kv ≠ 0` (prefill, where the attention reads them packed; decode reads the cache).
///
/// # Safety
/// `THREADS` threads, one block row per token (any grid y); the buffers hold the grid's tokens in those layouts, `bias`
/// `(heads + 2·kv_heads)·D` elements when used, `cos_sin` `max_pos · D` f32, `pos` and `cache.slot` the
/// tokens, each `slot` and `pos` inside the cache (`pos < max_len`; paged, on a page the slot holds:
/// [`CacheLayout::row`]); `D` even.
#[allow(clippy::too_many_arguments)]
unsafe fn rope<E: Half>(qkv: *const u16, bias: *const u16, pos: *const i32, cos_sin: *const f32, q: *mut u16, k: *mut u16, v: *mut u16, cache: Cache, dims: RopeDims) {
    pdl();
    let RopeDims { heads, kv_heads, head_dim, has_bias, max_pos, packed_kv } = dims;
    let t = block_idx_x() as usize;
    let (d, half) = (head_dim as usize, head_dim as usize / 2);
    let width = (heads + 2 * kv_heads) as usize * d;
    // SAFETY: t < tokens.
    let p = unsafe { *pos.add(t) }.clamp(0, max_pos as i32 - 1) as usize;
    let at = |col: usize| -> f32 {
        // SAFETY: col < width: inside token t's row (and the bias).
        unsafe { if has_bias != 0 { E::rnd(E::f(*qkv.add(t * width + col)) + E::f(*bias.add(col))) } else { E::f(*qkv.add(t * width + col)) } }
    };
    let rotated = (heads + kv_heads) as usize * half;
    let vw = kv_heads as usize * d;
    let stride = (THREADS * grid_dim_y()) as usize;
    let mut i = (block_idx_y() * THREADS + thread_idx_x()) as usize;
    while i < rotated + vw {
        if i < rotated {
            let (hh, j) = (i / half, i % half);
            let (x1, x2) = (at(hh * d + j), at(hh * d + j + half));
            // SAFETY: p < max_pos, j < D/2: inside the table.
            let (c, s) = unsafe { (E::rnd(*cos_sin.add(2 * (p * half + j))), E::rnd(*cos_sin.add(2 * (p * half + j) + 1))) };
            let (o1, o2) = (E::bits(E::rnd(x1 * c) - E::rnd(x2 * s)), E::bits(E::rnd(x2 * c) + E::rnd(x1 * s)));
            // SAFETY (stores): j + D/2 < D inside the head's row of Q, of packed K, or of the cache.
            if hh < heads as usize {
                unsafe {
                    let dst = q.add((t * heads as usize + hh) * d);
                    *dst.add(j) = o1;
                    *dst.add(j + half) = o2;
                }
            } else {
                let kh = hh - heads as usize;
                unsafe {
                    let c = cache.k.add(cache.row(t, kh, kv_heads, d));
                    *c.add(j) = o1;
                    *c.add(j + half) = o2;
                    if packed_kv != 0 {
                        let dst = k.add((t * kv_heads as usize + kh) * d);
                        *dst.add(j) = o1;
                        *dst.add(j + half) = o2;
                    }
                }
            }
        } else {
            let e = i - rotated;
            let x = E::bits(at((heads + kv_heads) as usize * d + e));
            // SAFETY: e < kv_heads·D: token t's row of V, and head e / D's row of the cache.
            unsafe {
                *cache.v.add(cache.row(t, e / d, kv_heads, d) + e % d) = x;
                if packed_kv != 0 {
                    *v.add(t * vw + e) = x;
                }
            }
        }
        i += stride;
    }
}

/// A KV cache's layout: contiguous, `[slots][kv_heads][max_len][D]` (`page_size` 0), or paged — pages
/// `[pages][kv_heads][page_size][D]` (FlashInfer's HND, as the library's paged decode reads them), slot
/// `s`'s position `p` on page `table[s · max_pages + p / page_size]`.
#[derive(Clone, Copy)]
struct CacheLayout {
    /// Positions per slot (contiguous).
    max_len: u32,
    /// The block table `[slots][max_pages]` (paged).
    table: *const i32,
    max_pages: u32,
    /// Tokens per page; 0: contiguous.
    page_size: u32,
}

impl CacheLayout {
    /// Element offset of position `p` of slot `s`'s row of K/V head `h`.
    ///
    /// # Safety
    /// `s` a slot of the cache and `p` a position inside it (`p < max_len`); paged, `p` on a page the
    /// slot holds: its table entry `s · max_pages + p / page_size` in the table, a page of the cache.
    #[inline(always)]
    unsafe fn row(&self, s: usize, p: usize, h: usize, kv_heads: u32, d: usize) -> usize {
        let kv = kv_heads as usize;
        if self.page_size == 0 {
            return ((s * kv + h) * self.max_len as usize + p) * d;
        }
        let ps = self.page_size as usize;
        // SAFETY: forwarded (the entry inside the table).
        let page = unsafe { *self.table.add(s * self.max_pages as usize + p / ps) } as usize;
        ((page * kv + h) * ps + p % ps) * d
    }
}

/// Where [`rope`] writes K and V in the KV cache.
#[derive(Clone, Copy)]
struct Cache {
    /// K and V caches, in `layout`.
    k: *mut u16,
    v: *mut u16,
    /// Each token's slot (sequence) in the cache.
    slot: *const i32,
    /// Each token's position (the `pos` the rotation uses).
    pos: *const i32,
    layout: CacheLayout,
}

impl Cache {
    /// Element offset of token `t`'s row of K/V head `h` in the cache.
    ///
    /// # Safety
    /// `t` a token of the grid (its slot and position read here), its slot and position inside the cache
    /// ([`CacheLayout::row`]).
    #[inline(always)]
    unsafe fn row(&self, t: usize, h: usize, kv_heads: u32, d: usize) -> usize {
        // SAFETY: forwarded.
        unsafe {
            let (s, p) = (*self.slot.add(t) as usize, *self.pos.add(t) as usize);
            self.layout.row(s, p, h, kv_heads, d)
        }
    }
}

/// [`rope`]'s sizes.
#[derive(Clone, Copy)]
struct RopeDims {
    heads: u32,
    kv_heads: u32,
    head_dim: u32,
    /// Q/K/V biases to add (1) or none (0).
    has_bias: u32,
    /// Rows of the `cos`/`sin` table.
    max_pos: u32,
    /// Write K and V packed too (1: prefill) or only into the cache (0: decode).
    packed_kv: u32,
}

/// [`rope`] for bf16.
///
/// # Safety
/// As [`rope`].
#[kernel(threads = 256)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn rope_bf16(qkv: *const u16, bias: *const u16, pos: *const i32, cos_sin: *const f32, q: *mut u16, k: *mut u16, v: *mut u16, cache_k: *mut u16,
                       cache_v: *mut u16, slot: *const i32, max_len: u32, heads: u32, kv_heads: u32, head_dim: u32, has_bias: u32, max_pos: u32, packed_kv: u32,
                       table: *const i32, max_pages: u32, page_size: u32) {
    let cache = Cache { k: cache_k, v: cache_v, slot, pos, layout: CacheLayout { max_len, table, max_pages, page_size } };
    unsafe { rope::<Bf16>(qkv, bias, pos, cos_sin, q, k, v, cache, RopeDims { heads, kv_heads, head_dim, has_bias, max_pos, packed_kv }) }
}

/// [`rope`] for f16.
///
/// # Safety
/// As [`rope`].
#[kernel(threads = 256)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn rope_f16(qkv: *const u16, bias: *const u16, pos: *const i32, cos_sin: *const f32, q: *mut u16, k: *mut u16, v: *mut u16, cache_k: *mut u16,
                      cache_v: *mut u16, slot: *const i32, max_len: u32, heads: u32, kv_heads: u32, head_dim: u32, has_bias: u32, max_pos: u32, packed_kv: u32,
                      table: *const i32, max_pages: u32, page_size: u32) {
    let cache = Cache { k: cache_k, v: cache_v, slot, pos, layout: CacheLayout { max_len, table, max_pages, page_size } };
    unsafe { rope::<F16>(qkv, bias, pos, cos_sin, q, k, v, cache, RopeDims { heads, kv_heads, head_dim, has_bias, max_pos, packed_kv }) }
}

/// Key row `blockIdx.x` of a chunk's packed K and V (`[rows][kv_heads][D]`), copied from the KV cache
/// (contiguous `[slots][kv_heads][max_len][D]`, or paged through `table`: [`CacheLayout`]): slot
/// `slot[r]`'s row at position `pos[r]`, every K/V head. What a chunk of a prompt after a cached prefix
/// attends to — the prefix's rows and the chunk's own, which [`rope`] wrote into the cache just before.
/// Element-type agnostic (16-bit bits).
///
/// # Safety
/// `THREADS` threads, one block per row; `slot` and `pos` hold the grid's rows, each inside the cache
/// ([`CacheLayout::row`]); `k` and `v` hold `rows · kv_heads · D` elements; all 16-byte aligned;
/// `D % 8 == 0`.
#[kernel(threads = 256)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn gather_kv(cache_k: *const u16, cache_v: *const u16, slot: *const i32, pos: *const i32, k: *mut u16, v: *mut u16, kv_heads: u32, head_dim: u32,
                        max_len: u32, table: *const i32, max_pages: u32, page_size: u32) {
    pdl();
    let layout = CacheLayout { max_len, table, max_pages, page_size };
    let r = block_idx_x() as usize;
    // SAFETY: r < rows (the grid).
    let (s, p) = unsafe { (*slot.add(r) as usize, *pos.add(r) as usize) };
    let d = head_dim as usize;
    let width = kv_heads as usize * d;
    let mut c = 8 * thread_idx_x() as usize;
    while c < width {
        // SAFETY: c + 8 ≤ width and c % d + 8 ≤ d (both multiples of 8): inside row r of k and v and inside
        // head c / d's cached row (slot and position inside the cache); 16-byte aligned.
        unsafe {
            let src = layout.row(s, p, c / d, kv_heads, d) + c % d;
            st_global_v4_u32(k.add(r * width + c) as *mut u32, ld_global_nc_v4_u32(cache_k.add(src) as *const u32));
            st_global_v4_u32(v.add(r * width + c) as *mut u32, ld_global_nc_v4_u32(cache_v.add(src) as *const u32));
        }
        c += 8 * THREADS as usize;
    }
}

/// Token `blockIdx.x`: `out[j] = silu(gate[j]) · up[j]` with `gu` `[tokens][2·inter]` (the gate's columns,
/// then the up projection's), SiLU's output rounded before the product (torch's `act_fn(gate) * up`).
/// Chunks of 8 elements, chunk `blockIdx.y · THREADS + threadIdx.x` first, striding by the grid's y.
///
/// # Safety
/// `THREADS` threads, one block row per token (any grid y); `gu` holds `tokens · 2·inter` and `out`
/// `tokens · inter` elements, 16-byte aligned; `inter % 8 == 0`.
unsafe fn silu_mul<E: Half>(gu: *const u16, out: *mut u16, inter: u32) {
    pdl();
    let t = block_idx_x() as usize;
    let n = inter as usize;
    let mut c = 8 * (block_idx_y() * THREADS + thread_idx_x()) as usize;
    while c < n {
        // SAFETY: c + 8 ≤ inter, 16-byte aligned: inside token t's gate and up halves and its output row.
        unsafe {
            let (g, u) = (halves(ld_global_nc_v4_u32(gu.add(t * 2 * n + c) as *const u32)), halves(ld_global_nc_v4_u32(gu.add(t * 2 * n + n + c) as *const u32)));
            let o = core::array::from_fn(|j| {
                let x = E::f(g[j]);
                let silu = E::rnd(x / (1.0 + ex2_approx_f32(-x * core::f32::consts::LOG2_E)));
                E::bits(silu * E::f(u[j]))
            });
            st_global_v4_u32(out.add(t * n + c) as *mut u32, chunk(o));
        }
        c += 8 * (THREADS * grid_dim_y()) as usize;
    }
}

/// [`silu_mul`] for bf16.
///
/// # Safety
/// As [`silu_mul`].
#[kernel(threads = 256)]
pub unsafe fn silu_mul_bf16(gu: *const u16, out: *mut u16, inter: u32) {
    unsafe { silu_mul::<Bf16>(gu, out, inter) }
}

/// [`silu_mul`] for f16.
///
/// # Safety
/// As [`silu_mul`].
#[kernel(threads = 256)]
pub unsafe fn silu_mul_f16(gu: *const u16, out: *mut u16, inter: u32) {
    unsafe { silu_mul::<F16>(gu, out, inter) }
}

/// Dynamic shared memory of an argmax block: 16 words for the warps' bests, one for the last-block flag
/// (the host's `llm::grid::ARGMAX_SMEM` launches with it: keep the two equal).
pub const ARGMAX_SMEM: u32 = 80;

/// A (value, index) pair as one `u64` whose unsigned order is the argmax's: the value's bits mapped to an
/// order-preserving `u32` above, the index's complement below (so on a tie the smaller index is larger).
/// 0 is no candidate: every value, −∞ included, maps above it.
#[inline(always)]
fn key(x: f32, j: u32) -> u64 {
    // −0 and +0 are equal (the first index wins, as `torch.argmax`): both as +0.
    let b = if x == 0.0 { 0 } else { x.to_bits() };
    let ordered = if b >> 31 != 0 { !b } else { b | 0x8000_0000 };
    (ordered as u64) << 32 | (!j) as u64
}

/// The largest key of the block, in thread 0 (the others' results are partial).
///
/// # Safety
/// All `THREADS` threads; `slots` is 64 bytes of shared memory that nothing else touches from the call
/// until the caller's next barrier (thread 0 reads them after this function's own barrier).
#[inline(always)]
unsafe fn block_max_key(mut best: u64, slots: *mut u32) -> u64 {
    // A counted loop (an array of masks iterated would live in local memory).
    let mut m = 16;
    while m > 0 {
        // SAFETY: all 32 lanes of each warp (the caller's contract).
        let other = unsafe { (shuffle_xor_u32((best >> 32) as u32, m) as u64) << 32 | shuffle_xor_u32(best as u32, m) as u64 };
        best = best.max(other);
        m /= 2;
    }
    let tid = thread_idx_x();
    let warp = (tid / 32) as usize;
    if tid % 32 == 0 {
        // SAFETY: slots 2·warp, 2·warp + 1 of 16 (64 bytes).
        unsafe {
            *slots.add(2 * warp) = (best >> 32) as u32;
            *slots.add(2 * warp + 1) = best as u32;
        }
    }
    // SAFETY: every thread reaches it (the caller's contract).
    unsafe { sync_threads() };
    if tid == 0 {
        for w in 0..(THREADS / 32) as usize {
            // SAFETY: written by lane 0 of warp w before the barrier.
            best = best.max(unsafe { (*slots.add(2 * w) as u64) << 32 | *slots.add(2 * w + 1) as u64 });
        }
    }
    best
}

/// Row `blockIdx.x` of `logits` (`rows × vocab`): the index of its largest value into `out` (the first
/// on a tie, as `torch.argmax`; NaNs skipped; −1 for a row of NaNs). The row is split over the grid's y
/// blocks (chunks of 8 elements, chunk `blockIdx.y · THREADS + threadIdx.x` first, striding by the
/// grid's y; single elements when `vocab % 8 ≠ 0`): each block leaves its best in
/// `partial[row · grid.y + blockIdx.y]` and counts itself in `count[row]`; the last block of the row
/// takes the best of the partials, writes `out` and sets the count back to 0 for the next launch.
///
/// With `step.on ≠ 0` (a greedy decode step, session 70) that block also makes the next step's inputs
/// from this one's, on the device: `ids[row] = max(out, 0)` (the token the host reads back), `pos[row] += 1`
/// and `lens[row] += 1` — so a following step of the same sequences needs no copies from the host.
///
/// With `ring.len ≠ 0` (session 109) it also posts the token to the host without a copy: `k = ticks[row]`
/// (the row's launches so far), `ring.at[(k % ring.len) · ring.rows + row] = (k + 1) << 32 | out as u32`
/// (one 8-byte store at system scope into mapped host memory: the host sees the count and the token
/// together or neither), `ticks[row] = k + 1`.
///
/// # Safety
/// `THREADS` threads and [`ARGMAX_SMEM`] bytes of dynamic shared memory per block, one block row per row; `logits`
/// holds `rows · vocab` elements (16-byte aligned), `out` `rows`, `partial` `rows · grid.y` and `count`
/// `rows` (zero before the first launch; each launch leaves it zero), not used by another grid at the
/// same time; with `step.on ≠ 0`, `step.ids`, `step.pos` and `step.lens` hold `rows` i32 each, read by no
/// other grid meanwhile; with `ring.len ≠ 0`, `rows ≤ ring.rows`, `ring.at` holds `ring.len · ring.rows`
/// u64 (8-byte aligned; device memory or mapped host memory) and `ring.ticks` `rows` u32, neither written
/// by another grid meanwhile.
unsafe fn argmax<E: Half>(logits: *const u16, out: *mut i32, vocab: u32, partial: *mut u64, count: *mut u32, step: Advance, ring: Ring) {
    pdl();
    let r = block_idx_x() as usize;
    let row = r * vocab as usize;
    let tid = thread_idx_x();
    let parts = grid_dim_y();
    let mut best = 0u64;
    let stride = THREADS * parts;
    let mut c = block_idx_y() * THREADS + tid;
    if vocab % 8 == 0 {
        while 8 * c < vocab {
            // SAFETY: 8c + 8 ≤ vocab, the row starts 16-byte aligned (vocab % 8 == 0).
            let h = halves(unsafe { ld_global_nc_v4_u32(logits.add(row + 8 * c as usize) as *const u32) });
            for (i, &b) in h.iter().enumerate() {
                let x = E::f(b);
                if !x.is_nan() {
                    best = best.max(key(x, 8 * c + i as u32));
                }
            }
            c += stride;
        }
    } else {
        while c < vocab {
            // SAFETY: c < vocab: inside the row.
            let x = E::f(unsafe { *logits.add(row + c as usize) });
            if !x.is_nan() {
                best = best.max(key(x, c));
            }
            c += stride;
        }
    }
    let slots = shared::dynamic::<u32>();
    // SAFETY: every thread gets here; the first 64 of the ARGMAX_SMEM bytes are the kernel's.
    best = unsafe { block_max_key(best, slots) };
    let flag = slots.wrapping_add(16);
    if tid == 0 {
        // SAFETY: partial slot (r, y) < rows · grid.y; count[r] is only touched atomically by this
        // grid's blocks (and reset by the last); the release orders the partial's store before the
        // count, the acquire in the last block orders every block's partial before its reads.
        unsafe {
            *partial.add(r * parts as usize + block_idx_y() as usize) = best;
            let done = atom_add_acq_rel_gpu_u32(count.add(r), 1);
            *flag = (done + 1 == parts) as u32;
        }
    }
    // SAFETY: every thread reaches it; thread 0 wrote the flag before it.
    unsafe { sync_threads() };
    // SAFETY: the flag word written before the barrier.
    if unsafe { *flag } == 0 {
        return;
    }
    // The last block: every partial is visible (thread 0's acquire, then the barrier).
    let mut best = 0u64;
    let mut y = tid;
    while y < parts {
        // SAFETY: y < grid.y: row r's partial y, written by its block before its release.
        best = best.max(unsafe { ld_relaxed_gpu_u64(partial.add(r * parts as usize + y as usize)) });
        y += THREADS;
    }
    // SAFETY: every thread of this block reaches it (the flag is the block's); the slots are free again
    // (the first reduction's reads finished before the flag's barrier).
    best = unsafe { block_max_key(best, slots) };
    if tid == 0 {
        // SAFETY: r < rows; the count is this row's, every block of it counted.
        unsafe {
            let t = if best == 0 { -1 } else { !(best as u32) as i32 };
            *out.add(r) = t;
            if step.on != 0 {
                // SAFETY: r < rows: inside the three (the contract).
                *step.ids.add(r) = t.max(0);
                *step.pos.add(r) += 1;
                *step.lens.add(r) += 1;
            }
            if ring.len != 0 {
                // SAFETY: r < rows ≤ ring.rows: ticks[r] and the slot inside the two (the contract); only
                // this thread of this grid touches them.
                let k = *ring.ticks.add(r);
                let at = (k % ring.len) as usize * ring.rows as usize + r;
                st_release_sys_u64(ring.at.add(at), ((k.wrapping_add(1) as u64) << 32) | t as u32 as u64);
                *ring.ticks.add(r) = k.wrapping_add(1);
            }
            st_relaxed_gpu_u32(count.add(r), 0);
        }
    }
}

/// What [`argmax`] advances for the next decode step (`on = 0`: nothing, the pointers unused).
#[derive(Clone, Copy)]
struct Advance {
    ids: *mut i32,
    pos: *mut i32,
    lens: *mut i32,
    on: u32,
}

/// Where [`argmax`] posts each row's token for the host (`len = 0`: nowhere, the pointers unused): a ring of
/// `len` slots of `rows` words and each row's launch count.
#[derive(Clone, Copy)]
struct Ring {
    at: *mut u64,
    ticks: *mut u32,
    len: u32,
    rows: u32,
}

/// [`argmax`] for bf16.
///
/// # Safety
/// As [`argmax`] (`advance` is its `step.on`; `ring`, `ticks`, `ring_len`, `ring_rows` its `ring`).
#[kernel(threads = 256)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn argmax_bf16(logits: *const u16, out: *mut i32, vocab: u32, partial: *mut u64, count: *mut u32, ids: *mut i32, pos: *mut i32, lens: *mut i32,
                          advance: u32, ring: *mut u64, ticks: *mut u32, ring_len: u32, ring_rows: u32) {
    unsafe { argmax::<Bf16>(logits, out, vocab, partial, count, Advance { ids, pos, lens, on: advance }, Ring { at: ring, ticks, len: ring_len, rows: ring_rows }) }
}

/// [`argmax`] for f16.
///
/// # Safety
/// As [`argmax`] (`advance` is its `step.on`; `ring`, `ticks`, `ring_len`, `ring_rows` its `ring`).
#[kernel(threads = 256)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn argmax_f16(logits: *const u16, out: *mut i32, vocab: u32, partial: *mut u64, count: *mut u32, ids: *mut i32, pos: *mut i32, lens: *mut i32,
                         advance: u32, ring: *mut u64, ticks: *mut u32, ring_len: u32, ring_rows: u32) {
    unsafe { argmax::<F16>(logits, out, vocab, partial, count, Advance { ids, pos, lens, on: advance }, Ring { at: ring, ticks, len: ring_len, rows: ring_rows }) }
}

/// `dst` (`cols × rows`) = `src` (`rows × cols`) transposed, 16-bit elements, through a 32 × 33 tile of
/// shared memory per block (the extra column keeps the column reads on distinct banks).
///
/// # Safety
/// `THREADS` threads and 4224 bytes of dynamic shared memory per block, grid `(⌈cols/32⌉, ⌈rows/32⌉)`;
/// `src` holds `rows · cols` elements, `dst` as many, not overlapping.
#[kernel(threads = 256)]
pub unsafe fn transpose16(src: *const u16, dst: *mut u16, rows: u32, cols: u32) {
    let tile = shared::dynamic::<u32>();
    let (tx, ty) = (thread_idx_x() % 32, thread_idx_x() / 32);
    let (c0, r0) = (32 * block_idx_x(), 32 * block_idx_y());
    let mut r = ty;
    while r < 32 {
        if r0 + r < rows && c0 + tx < cols {
            // SAFETY: (r0 + r, c0 + tx) inside src; tile index < 32·33.
            unsafe { *tile.add((r * 33 + tx) as usize) = *src.add((r0 + r) as usize * cols as usize + (c0 + tx) as usize) as u32 };
        }
        r += 8;
    }
    sync_threads();
    let mut c = ty;
    while c < 32 {
        if c0 + c < cols && r0 + tx < rows {
            // SAFETY: (c0 + c, r0 + tx) inside dst (cols × rows); the tile entry written above.
            unsafe { *dst.add((c0 + c) as usize * rows as usize + (r0 + tx) as usize) = *tile.add((tx * 33 + c) as usize) as u16 };
        }
        c += 8;
    }
}

#![cfg(lab_sm90)]
//! Backward step b3 (issue 50): b2's two kernels — dK/dV per key block, dQ per query block, each
//! gradient summed by one thread in a fixed order — with every product on Hopper's **`wgmma`**, its
//! shared operands read by the tensor cores straight from shared memory.
//!
//! Why: `ncu` of b1 (session 51) put the limit on shared-memory bytes, not on the tensor cores: each of
//! its 8 warps owns 16 keys and `ldmatrix`es the whole Q and dO tiles into registers, twice (0.58
//! `ldmatrix` per `mma`, L1/shared 69%, SM 30%). A `wgmma` reads its shared operand once per warpgroup
//! of 4 warps, and P, dS never leave the registers: the accumulator of Sᵀ = K·Qᵀ is, packed to 16 bits,
//! the A operand of dV += Pᵀ·dO — the forward's P·V trick.
//!
//! Both kernels are one body ([`body`]) with the roles of the tiles swapped. A CTA is two warpgroups
//! (256 threads) of 64 rows each; it keeps two resident tiles X, Y of 128 rows and streams tiles A, B of
//! 64 rows through three `cp.async` stages (128-byte swizzled boxes, the layout `wgmma`'s descriptors read:
//! `layout::attention::sw128_byte`):
//!
//! ```text
//!              X, Y (resident)  A, B (streamed)  per tile, each warpgroup (64 rows × 64 streamed rows)
//! dK/dV  (KV)  K, V of 128 keys Q, dO of 64 q    Sᵀ = K·Qᵀ, dPᵀ = V·dOᵀ   (A, B K-major: ss)
//!                                                 Pᵀ = 2^(Sᵀ·scale·log2 e − log2 e·LSE[q]), dSᵀ = Pᵀ∘(dPᵀ − D[q])
//!                                                 dV += Pᵀ·dO, dK += dSᵀ·Q (Pᵀ, dSᵀ from registers; dO, Q MN-major)
//! dQ     (Q)   Q, dO of 128 q   K, V of 64 keys  S = Q·Kᵀ, dP = dO·Vᵀ; P, dS as above by rows; dQ += dS·K
//! ```
//!
//! The dK/dV kernel walks b1's grid (a CTA per 128 keys, K/V head and sequence, over every query tile
//! of its group's heads), the dQ kernel one CTA per 128 queries, head and sequence over its keys (the
//! causal entries `…kvc…`, `…dqc…`: a CTA per block and its mirror, the same work for every CTA); the
//! statistics (`log2 e · LSE`, `D = rowsum(dO ∘ O)`) come from b1's preprocessing kernel. Masking as
//! b1/b2: a key past the sequence's end or (causal, bottom-right) past a query's last visible key gets
//! P = 0, on the tiles where any can occur; a warpgroup whose 64 rows see none of a tile skips it.
//!
//! Prediction (before any run, H200, bf16, D = 128, L = 4096–8192): b2 moves ~0.45 MB of shared memory
//! per 64×128×128 product through `ldmatrix`; `wgmma` reads 16 KB of B per warpgroup-GEMM and nothing
//! for the register A of dV, dK, dQ. With the tensor cores no longer starved, but one tile at a time per
//! warpgroup (no producer warp, no overlap of the exponentials with the next tile's products, the
//! `cp.async` copies issued by the same threads), expect ~45–55% of the dense `wgmma` rate on the seven
//! products: **330–420 TFLOP/s** counted as 2.5× the forward — 1.6–2.0× b2, ~1.1–1.4× torch's FA2,
//! 0.62–0.80× cuDNN.
//!
//! Measured (H200, bf16, `git show a873563:results/2026-11-30-h200-session60/README.md`, 3 processes, interleaved with b2): first form
//! (two stages, each tile drained) 310–321 TFLOP/s — under the range; `ncu` found ~14 integer instructions
//! per 16-byte copy (the swizzle per chunk) and the tensor pipe drained at every tile. With one copy offset
//! per thread, three stages (the tile's dK or dQ product running on into the next tile) and, with the causal
//! mask, a block and its mirror per CTA: **341–356 TFLOP/s at D = 128, causal 312–346; 252 / 228 at D = 64**:
//! 0.53–0.60× b2's time, 1.19–1.30× torch's FA2 at D = 128, 0.57–0.69× cuDNN. With the mask's compares in
//! a branch of their own (session 65, `probs`; they had run as selects on every tile): 0.90–0.91× that
//! time, 376–394 TFLOP/s at D = 128, 0.63–0.75× cuDNN. The rest of the gap is in the attention README
//! (backward).
use super::fa2_backward::sequence;
use super::wgmma_backward::{Lanes, Place, issue_rs, issue_ss, load_query_item, load_tile, pin_frags, probs, put, store_rows};
use crate::attention::hopper::{pin, unset_block};
use crate::hgemm::elem::{Bf16, Elem16, F16};
use crate::prim::{
    cp_async::{cp_async_commit_group, cp_async_wait_group},
    mbarrier::fence_proxy_async_shared_cta,
    shared::{Align16, addr_of, dynamic, ld_shared_v2_u32},
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, block_idx_z, lane_id, thread_idx_x},
    wgmma::{wgmma_fence_operand, wgmma_wait_group},
};
use crate::util::unroll::{unroll4, unroll8};
use layout::attention::{BWD_H_ROWS as ROWS, BWD_H_STAGES as STAGES, BWD_H_STREAM as STREAM, BackwardDims as Dims, BwdHTile, bwd_first_q_tile, bwd_h_offset, bwd_needs_mask,
                        kv_tiles_off, needs_mask_off};

/// The b3 body (see the module docs): `KV` the dK/dV kernel — grid `(⌈max k_len / 128⌉, kv_heads,
/// batch)` (causal: half of x, rounded up — a CTA per block and its mirror), `out0` = dK, `out1` = dV — else
/// the dQ kernel — grid `(⌈max q_len / 128⌉, heads, batch)` (causal: half of x likewise),
/// `out0` = dQ; 256 threads, `bwd_h_smem(D)` bytes.
///
/// # Safety
/// As the entries.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn body<E: Elem16, const D: u32, const KV: bool, const PAIRS: bool>(q: *const u16, k: *const u16, v: *const u16, d_o: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32,
                                                        out0: *mut u16, out1: *mut u16, dims: Dims) {
    let (bx, head, b) = (block_idx_x(), block_idx_y(), block_idx_z());
    let tid = thread_idx_x();
    let (wg, warp, lane) = (tid / 128, (tid / 32) % 4, lane_id());
    let (g, t) = (lane / 4, lane % 4);
    // SAFETY (the whole body): global reads stay inside the sequence's rows (`load_tile` zero-fills past
    // the lengths; statistics are read for rows below q_len only), stores only for rows below the
    // lengths, inside the tensors the entries' contract describes. Shared tiles are written by `cp.async`
    // and read by `wgmma` only after this thread's `cp.async.wait_group 0`, its
    // `fence.proxy.async.shared::cta` and a CTA barrier. Three stages: the copies issued after the barrier
    // of tile i refill the stage of tile i − 2, whose products every warpgroup retired before that barrier
    // (its S wait of tile i − 1 retires all but that tile's dP; a warpgroup that skips a tile waits for
    // everything first) — only tile i − 1's dK (dQ) may still run, reading tile i − 1's stage. The dS
    // fragments it reads are pinned until the wait that retires it. Every `wgmma` is issued by
    // all 128 threads of a warpgroup (the branches around them are uniform per warpgroup, the barriers
    // outside them), with accumulators pinned across the waits; descriptors name 1024-byte-aligned tiles
    // inside the launch's `bwd_h_smem(D)` bytes.
    unsafe {
        let (q_start, q_len, k_start, k_len) = sequence(cu_q, cu_k, b);
        let causal = dims.causal != 0;
        let off = k_len.wrapping_sub(q_len); // bottom-right alignment (k_len ≥ q_len when causal)
        let kv_heads = dims.heads / dims.group.max(1);
        let qbase = q_start as usize * (dims.heads * D) as usize;
        let kbase0 = k_start as usize * (kv_heads * D) as usize;
        // The CTA's blocks of resident rows. Without the causal mask block x. With it a block's work
        // shrinks along the sequence (dK/dV: later keys are seen by fewer queries) or grows (dQ: later
        // queries see more keys), so a CTA takes block x and its mirror n − 1 − x: every CTA the same work,
        // whatever the wave count (a12's pairs).
        let n_blk = if KV { k_len } else { q_len }.div_ceil(ROWS);
        // (`PAIRS`: the causal entries; the others keep one block per CTA, without the pass loop's registers.)
        let pairs = PAIRS && causal;
        if bx >= if pairs { n_blk.div_ceil(2) } else { n_blk } {
            return;
        }
        let passes = if pairs && n_blk - 1 - bx != bx { 2 } else { 1 };
        for pass in 0..passes {
            if pass > 0 {
                sync_threads(); // every warpgroup is done with the first block's resident tiles
            }
            let blk = if pass == 0 { bx } else { n_blk - 1 - bx };
            let blk0 = blk * ROWS; // the CTA's first resident row (a key, or a query)
            let w0 = blk0 + 64 * wg; // the warpgroup's first resident row
            let w_rows = if KV { k_len } else { q_len }.saturating_sub(w0).min(64); // its rows inside the sequence
            // The streamed tiles: KV — item i is query head `head·group + i / per`, query tile `first + i % per`;
            // dQ — key tile i of the query block's K/V head.
            let (first, per, items) = if KV {
                let first = bwd_first_q_tile(blk0, off, causal);
                let per = q_len.div_ceil(STREAM).saturating_sub(first);
                (first, per.max(1), per * dims.group)
            } else {
                (0, 1, if k_len == 0 { 0 } else { kv_tiles_off(k_len, ROWS, STREAM, blk, causal, off) })
            };
            let hk = if KV { head } else { head / dims.group.max(1) };
            let kbase = kbase0 + hk as usize * dims.k_head as usize;
            // dQ: the rows' statistics, in registers (rows past q_len: 0, their gradients never stored).
            let row = |h: u32| w0 + 16 * warp + g + 8 * h;
            let stat = |which: u32, r: u32| {
                if r < q_len { *stats.add((which * dims.heads + head) as usize * dims.tokens_q as usize + (q_start + r) as usize) } else { 0.0 }
            };
            let (r_lse, r_delta) = if KV { ([0.0; 2], [0.0; 2]) } else { ([stat(0, row(0)), stat(0, row(1))], [stat(1, row(0)), stat(1, row(1))]) };

            // dK, dV (KV) or dQ and its unused twin: [64-column block] of the warpgroup's 64 rows.
            let mut acc0 = [[0f32; 32]; 2];
            let mut acc1 = [[0f32; 32]; 2];
            if items > 0 {
                let raw = addr_of(dynamic::<Align16>());
                let base = (raw + 1023) & !1023;
                let at = |what: BwdHTile, st: u32| base + bwd_h_offset(D, what, st);
                let (s_x, s_y) = (at(BwdHTile::X, 0), at(BwdHTile::Y, 0));
                let item = |i: u32| (hk * dims.group + i / per, first + i % per);
                let load_item = |i: u32, st: u32| {
                    if KV {
                        let (h, qt) = item(i);
                        let stage = [at(BwdHTile::A, st), at(BwdHTile::B, st), at(BwdHTile::Stats, st)];
                        load_query_item::<D>(stage, [q, d_o], stats, qbase, h, qt, q_start, q_len, dims, tid);
                    } else {
                        load_tile::<D, STREAM>(at(BwdHTile::A, st), k.add(kbase), dims.k_tok, i * STREAM, k_len, tid);
                        load_tile::<D, STREAM>(at(BwdHTile::B, st), v.add(kbase), dims.k_tok, i * STREAM, k_len, tid);
                    }
                };
                if KV {
                    load_tile::<D, ROWS>(s_x, k.add(kbase), dims.k_tok, blk0, k_len, tid);
                    load_tile::<D, ROWS>(s_y, v.add(kbase), dims.k_tok, blk0, k_len, tid);
                } else {
                    let hq = qbase + head as usize * dims.q_head as usize;
                    load_tile::<D, ROWS>(s_x, q.add(hq), dims.q_tok, blk0, q_len, tid);
                    load_tile::<D, ROWS>(s_y, d_o.add(hq), dims.q_tok, blk0, q_len, tid);
                }
                load_item(0, 0);
                cp_async_commit_group();
                let scale2 = dims.scale * core::f32::consts::LOG2_E;
                // The last tile's dS fragments: its dK (dQ) product may still run when the next tile starts.
                let mut r_ds = [[0u32; 4]; 4];
                for i in 0..items {
                    let st = i % STAGES;
                    cp_async_wait_group::<0>();
                    fence_proxy_async_shared_cta(); // this thread's copies, to the async proxy `wgmma` reads through
                    // Everyone's copies of this tile landed; every warpgroup is past the wait that retired the
                    // products of tile i − 2 (its S wait of tile i − 1), whose stage the copies below refill —
                    // only tile i − 1's last product may still run.
                    sync_threads();
                    if i + 1 < items {
                        load_item(i + 1, (i + 1) % STAGES);
                    }
                    cp_async_commit_group();
                    // The tile's streamed rows and whether this warpgroup sees any of them (uniform per warpgroup).
                    let s0 = if KV { item(i).1 * STREAM } else { i * STREAM };
                    let w_last = w0 + w_rows.max(1) - 1;
                    let sees = w_rows > 0 && !(causal && if KV { w0 > s0 + STREAM - 1 + off } else { s0 > w_last + off });
                    if !sees {
                        // Nothing of this warpgroup's may run into the tile after (whose copies refill the
                        // stage of the product still running).
                        wgmma_wait_group::<0>();
                        pin_frags(&mut r_ds);
                        pin(&mut acc0);
                        pin(&mut acc1);
                        continue;
                    }
                    let (s_a, s_b) = (at(BwdHTile::A, st), at(BwdHTile::B, st));
                    let mut s = unset_block();
                    let mut dp = unset_block();
                    issue_ss::<E, D>(&mut s, s_x, 64 * wg, s_a);
                    issue_ss::<E, D>(&mut dp, s_y, 64 * wg, s_b);
                    // The mask: keys past the end or past a query's last visible key, on the tiles where some may be.
                    let masked = if KV {
                        blk0 + ROWS > k_len || (causal && bwd_needs_mask(blk0, item(i).1, off))
                    } else {
                        s0 + STREAM > k_len || (causal && needs_mask_off(ROWS, STREAM, blk, i, off))
                    };
                    let place = Place { row0: w0, col0: s0, k_len, q_len, causal, off };
                    let s_st = at(BwdHTile::Stats, st);
                    wgmma_wait_group::<1>(); // the last tile's dK (dQ) and this tile's S retired
                    pin_frags(&mut r_ds);
                    wgmma_fence_operand(&mut s);
                    // P = 2^(S·scale·log2 e − log2 e·LSE) in place (0 where hidden), and (KV) its A fragments;
                    // the mask's compares only on the tiles that need them.
                    let mut r_p = [[0u32; 4]; 4];
                    let lanes = Lanes { warp, g, t };
                    if masked {
                        probs::<E, KV, true>(&mut s, &mut r_p, s_st, r_lse, scale2, place, lanes);
                    } else {
                        probs::<E, KV, false>(&mut s, &mut r_p, s_st, r_lse, scale2, place, lanes);
                    }
                    if KV {
                        issue_rs::<E, D>(&mut acc1, &r_p, s_b); // dV += Pᵀ·dO
                        wgmma_wait_group::<1>(); // dPᵀ retired (dV may still run)
                    } else {
                        wgmma_wait_group::<0>(); // dP retired
                    }
                    wgmma_fence_operand(&mut dp);
                    // dS = P ∘ (dP − D), its A fragments.
                    unroll8!(nt => {
                        let c = 8 * nt + 2 * t;
                        let dd = if KV { ld_shared_v2_u32(s_st + 4 * (STREAM + c)).map(f32::from_bits) } else { [0.0; 2] };
                        let mut x = [0f32; 4];
                        unroll4!(e => {
                            let delta = if KV { dd[(e % 2) as usize] } else { r_delta[(e / 2) as usize] };
                            x[e as usize] = s[(4 * nt + e) as usize] * (dp[(4 * nt + e) as usize] - delta);
                        });
                        put::<E>(&mut r_ds, nt, x);
                    });
                    issue_rs::<E, D>(&mut acc0, &r_ds, s_a); // dK += dSᵀ·Q, or dQ += dS·K
                    if KV {
                        wgmma_wait_group::<1>(); // dV retired: Pᵀ's registers free; dK runs on into the next tile
                        pin(&mut acc1);
                    }
                }
                wgmma_wait_group::<0>();
                pin_frags(&mut r_ds);
                pin(&mut acc0);
                pin(&mut acc1);
            }
            // Epilogue: the warpgroup's rows below their length; dK and dQ times the scale.
            let (base_out, tok) = if KV { (kbase, dims.k_tok) } else { (qbase + head as usize * dims.q_head as usize, dims.q_tok) };
            store_rows::<E, D, KV>(&acc0, &acc1, [out0, out1], base_out, tok, [row(0), row(1)], w0 + w_rows, dims.scale, t);
        }
    }
}

/// The entries of one element type and head dim: `$kv`, `$dq` without the causal mask's pairs, `$kvc`,
/// `$dqc` with them (the host launches those for a causal problem, on half the grid's x).
macro_rules! wgmma_entries {
    ($kv:ident, $dq:ident, $kvc:ident, $dqc:ident, $e:ty, $d:literal) => {
        wgmma_entries!(@one $kv, $dq, $e, $d, false);
        wgmma_entries!(@one $kvc, $dqc, $e, $d, true);
    };
    (@one $kv:ident, $dq:ident, $e:ty, $d:literal, $pairs:literal) => {
        /// b3's dK and dV (see the module docs), each summed by one thread in a fixed order.
        ///
        /// # Safety
        /// Q, K, V, dO, `stats` and the offsets as in `attn_bwd_b1_d128_bf16`; `dk`, `dv` hold K's elements,
        /// written by nothing else meanwhile. Grid `(⌈max k_len / 128⌉, kv_heads, batch)` (the causal entries
        /// with the causal mask: `⌈⌈max k_len / 128⌉ / 2⌉` in x), 256 threads,
        /// `layout::attention::bwd_h_smem(D)` bytes of dynamic shared memory; sm_90a.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $kv(q: *const u16, k: *const u16, v: *const u16, d_o: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32,
                                              dk: *mut u16, dv: *mut u16, dims: Dims) {
            // SAFETY: forwarded.
            unsafe { body::<$e, $d, true, $pairs>(q, k, v, d_o, stats, cu_q, cu_k, dk, dv, dims) }
        }
        $crate::launch_bounds::launch_bounds!($kv, 256, 1);

        /// b3's dQ (see the module docs): each element summed over the keys by one thread, in order.
        ///
        /// # Safety
        /// As the dK/dV entry with `dq` holding Q's elements; grid `(⌈max q_len / 128⌉, heads, batch)` (the
        /// causal entries with the causal mask: `⌈⌈max q_len / 128⌉ / 2⌉` in x).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $dq(q: *const u16, k: *const u16, v: *const u16, d_o: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32,
                                              dq: *mut u16, dims: Dims) {
            // SAFETY: forwarded (the second output is not written by the dQ kernel).
            unsafe { body::<$e, $d, false, $pairs>(q, k, v, d_o, stats, cu_q, cu_k, dq, core::ptr::null_mut(), dims) }
        }
        $crate::launch_bounds::launch_bounds!($dq, 256, 1);
    };
}

wgmma_entries!(attn_bwd_b3kv_d64_f16, attn_bwd_b3dq_d64_f16, attn_bwd_b3kvc_d64_f16, attn_bwd_b3dqc_d64_f16, F16, 64);
wgmma_entries!(attn_bwd_b3kv_d128_f16, attn_bwd_b3dq_d128_f16, attn_bwd_b3kvc_d128_f16, attn_bwd_b3dqc_d128_f16, F16, 128);
wgmma_entries!(attn_bwd_b3kv_d64_bf16, attn_bwd_b3dq_d64_bf16, attn_bwd_b3kvc_d64_bf16, attn_bwd_b3dqc_d64_bf16, Bf16, 64);
wgmma_entries!(attn_bwd_b3kv_d128_bf16, attn_bwd_b3dq_d128_bf16, attn_bwd_b3kvc_d128_bf16, attn_bwd_b3dqc_d128_bf16, Bf16, 128);

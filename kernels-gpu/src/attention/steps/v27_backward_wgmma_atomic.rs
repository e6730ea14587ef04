#![cfg(lab_sm90)]
//! Backward step b4 (issue 50): b3's dK/dV kernel that also produces dQ — **five products a tile where
//! b3 does seven** — with dQ summed in f32 by atomic reductions (FlashAttention-2's and -3's `dq_accum`),
//! so its last bits may change from run to run (`DqMode::Atomic`; b3 stays the deterministic mode).
//!
//! Why: b3's dQ kernel recomputes S and dP (two of its seven 64×64×D products a tile, 1.4× the tensor
//! work of five) to keep dQ deterministic. Here the dK/dV kernel's dSᵀ — already in registers as dK's A
//! operand — also goes to shared memory, and both warpgroups take half of dQ's columns:
//!
//! ```text
//! per 64-query tile, warpgroup w (keys 64w .. 64w + 64 of the CTA's 128):
//!   wait for the stage's barrier      (Q and dO by the TMA, issued two tiles ahead by thread 0)
//!   Sᵀ = K·Qᵀ, dPᵀ = V·dOᵀ           (ss, as b3)
//!   Pᵀ, dV += Pᵀ·dO                  (rs, as b3)
//!   dSᵀ → registers and shared memory (BwdHTile::Ds: 128 keys × 64 queries, 128-byte swizzle, two
//!                                     buffers by the tile's parity)
//!   — the tile's one CTA barrier: both halves of dSᵀ written, the next tile's statistics landed; then
//!     the copies of the tile after it —
//!   dQ[:, D/2·w ..] = dS · K[:, D/2·w ..]   (ss: A = dS MN-major from Ds, B = the resident K MN-major;
//!                                     m64n64k16 at D = 128, m64n32k16 at D = 64, over all 128 keys)
//!   dK += dSᵀ·Q                       (rs, runs on into the next tile as in b3)
//!   dQ's 64 × D/2 f32 → shared memory (BwdHTile::Dq, in the registers' order) → one
//!                                     cp.reduce.async.bulk .add.f32 of the half into the accumulator
//! ```
//! The accumulator holds padded 64-row tiles (`layout::attention::bwd_h4_dq_tile`: FlashAttention-3's
//! padding, so a tile's block never holds two sequences' rows), a block of 64·D f32 per tile and head in
//! `bwd_h4_dq_at`'s order; `attn_bwd_b4dq_*` writes dQ = scale × its rows below q_len. Every warpgroup
//! computes every tile its CTA sees (b3 let a warpgroup skip a tile none of its keys sees; here the other
//! warpgroup needs its zero dS): the mask makes such a warpgroup's P, and so its dS, zero. The TMA loads
//! rows past q_len as they are in the tensor (the next sequence's, or zeros past its end): on a sequence's
//! last tile the threads zero them in shared memory, four a row, before a CTA barrier (a NaN there would
//! otherwise reach dK and dV as 0 × NaN), and the mask hides their queries.
//!
//! Prediction (before any run, H200, bf16, L = 4096–8192): b3 measured 341–356 TFLOP/s at D = 128 with
//! its two kernels at ~45–50% of the dense `wgmma` rate. b4 does 5/7 of the tensor work; its extra costs
//! are the dSᵀ stores (16 `st.shared.b32` per thread a tile), a second CTA barrier a tile (the warpgroups
//! in lockstep), 16 `red.global.add.v2.f32` per thread a tile at D = 128 (32 KiB of f32 a tile and CTA into
//! the L2, ~1.3 TB/s at the predicted rate) and the accumulator's zeroing and conversion (~3 passes over
//! a 4-byte copy of dQ). Expect 1.2–1.3× b3's speed: **410–460 TFLOP/s at D = 128**, 0.78–0.87× cuDNN;
//! at D = 64 (b3 252) 290–320.
//!
//! Measured (H200, bf16, session 65 — `git show bb433c1:results/2026-11-30-h200-session65/README.md` —
//! 3–5 processes, interleaved): as first
//! written (two CTA barriers a tile) 363–377 TFLOP/s at D = 128, 0.92–0.94× b3's time — under the range;
//! `ncu`: latency-bound (tensor pipe 40%, issue 32%, the warpgroups in lockstep). One barrier a tile with
//! the copies a tile ahead (0.97–0.99×, 0.91× at D = 64) and the mask's compares in a branch of their own
//! (0.95–0.97×, 0.91–0.93× at D = 64): 395–411 TFLOP/s at D = 128, 0.95–0.96× b3's time.
//!
//! Session 66 (`results/2026-11-30-h200-session66`): ablations (timing-only builds, each without one
//! piece) put **the register atomics at 40% of the time**: without them b4 took 0.59× b3's time (651
//! TFLOP/s), without the in-loop copies 0.84×, without the CTA barrier 0.92×. `ncu`: the warps stalled on
//! `long_scoreboard` at the instructions overwriting the `red`'s address and data registers — the L2's
//! reductions drained slower than 16 `red.v2` a thread and tile came, and held their registers. Predicted
//! for dQ through shared memory and one 16 KiB bulk reduce a warpgroup (FlashAttention-3's way; no
//! registers held, whole lines to the L2): 0.65–0.75× b3's time. Measured 0.83–0.87× the register atomics'
//! time at D = 128 (b4 0.81–0.82× b3's), 0.96–0.98× at D = 64; the dSᵀ stores' addresses recomputed a
//! tile (spills 44 → 0 bytes) 0.96–0.99× at D = 128 (1.01–1.02× at D = 64); Q and dO by the TMA (spills
//! none at D = 128, causal too) 0.97–0.99× (causal ~1.0×, D = 64 1.02×). Final: **469–495 TFLOP/s at
//! D = 128 (causal 406–452), 329 (290) at D = 64; 0.83–0.85× cuDNN (causal 0.86–0.89×), 0.74× (0.84×)
//! at D = 64; 1.64–1.71× FA2**.
//!
//! Session 67 (`results/2026-11-30-h200-session67`): the stores' row `opaque` only at D = 128 (0.98–0.99× at
//! D = 64); the statistics loaded negated (0.99–1.01×, reverted: b3's causal frame grew); the warpgroups out of phase through mbarriers
//! (1.05–1.09×, reverted: the hand-off cost more than the overlap bought); the L2's f32 reduce rate alone
//! 3.2–3.7 TB/s, twice b4's. b4 then became the library's default on Hopper, once it zeroed the rows its TMA
//! box brings past a sequence's last query (the ragged tile only).
//!
//! Session 68 (`results/2026-11-30-h200-session68`): that zeroing, with the items stepped along, cost
//! 1.02–1.04× the time of f56c045's b4 (no ragged tile needed); zeroing four threads a row without a loop
//! 0.98–1.00× of that; the default now 1.01–1.04× f56c045's. Starting each CTA's walk at a different query
//! tile (against same-address contention in the L2): 0.995–1.007×, not kept.
//!
//! Session 83 (`results/2026-12-02-h200-session83`): the wait for the last bulk reduce to have read a
//! warpgroup's dQ buffer (`wait_group.read`), which the elected thread does before the tile's CTA
//! barrier — so a lagging reduce would hold both warpgroups. At D = 64 shared memory has room for a
//! second buffer (146.5 KiB): the tiles alternate, and the wait leaves one group pending (the last
//! tile's, from the other buffer). At D = 128 (226.5 KiB, no room) the wait was moved after the tile's
//! products, just before the warpgroup's stores, behind a named barrier of the warpgroup. Predicted
//! (before the run): D = 64 0.87–0.95× the time (session 66's ablation put dQ's traffic at 0.63 / 0.86
//! of b3's time there, and the bulk reduce bought only 2–4% at D = 64, unlike D = 128's 13–17%); D = 128
//! 0.95–1.00×. Measured (3 processes, interleaved): **D = 64 0.987–0.996×** (kept); D = 128 0.993–1.009×
//! (reverted), and a timing-only build without any wait at D = 128 (racy) 0.977–1.003×. The wait costs
//! at most 1–2%: what dQ's traffic costs b4 (0.59 → 0.81 of b3's time in session 66's ablations) is not
//! the reducing thread's wait — so a dQ warp of its own would not buy it back either.
//!
//! Session 87: at D = 64 the warpgroup's 64 K rows and 64 V rows are held in registers as A fragments
//! (`ldmatrix` once a pass, 32 registers; ptxas 188 → 229, causal 210 → 236, spill-free), so Sᵀ = K·Qᵀ and
//! dPᵀ = V·dOᵀ become register-A `wgmma`s reading only Q and dO from shared memory. Why: per CTA and tile b4
//! reads ~144 KiB of operands from shared memory at D = 64 (Sᵀ, dPᵀ 16 KiB each a warpgroup with both operands
//! there; dV, dK 8 KiB; dQ's m64n32 24 KiB) for ~1,280 cycles of tensor work — 1,150 cycles at 128 B/clock,
//! before the TMA's writes, the dSᵀ and dQ stores: the shared memory, not the tensor pipe, sets the pace. The
//! register A saves 32 of the 144 KiB. Predicted (before the run): **0.88–0.95× the time at D = 64**, causal
//! alike; D = 128 unchanged (its registers have no room: 246 / 255). **Measured** (H200, bf16, 3 processes,
//! the build before alternating, `results/2026-12-02-h200-session87`): **0.959–0.975× the time at D = 64**
//! (2×16×16×4096 1037 → 1000 µs, causal 587 → 568; 1×32×8×8192 3852 → 3703, causal 2037 → 1954), D = 128
//! 1.000 / 1.007× (the same code). Under the range: the shared memory is not the whole limit (session 84's
//! ablations: the products' issue). Against cuDNN at D = 64: 0.74–0.78× → **0.76–0.81×**, causal 0.83–0.85× →
//! 0.85–0.88×. Kept.
use super::fa2_backward::sequence;
use super::wgmma_backward::{Lanes, Place, issue_dq, issue_rs, issue_rs64_kmajor, issue_ss, load_a_frags64, load_tile, low16, pin_frags, probs, put, store_rows};
use crate::attention::hopper::{pin, unset_block};
use crate::hgemm::elem::{Bf16, Elem16, F16};
use crate::prim::{
    cp_async::{cp_async_ca_4_zfill, cp_async_commit_group, cp_async_wait_group},
    mbarrier::{fence_mbarrier_init, fence_proxy_async_shared_cta, mbarrier_arrive_expect_tx, mbarrier_init, mbarrier_wait_parity},
    shared::{Align16, addr_of, dynamic, ld_shared_v2_u32, st_shared_u32, st_shared_v2_u32, st_shared_v4_u32},
    sync::{sync_named, sync_threads},
    thread::{block_idx_x, block_idx_y, block_idx_z, lane_id, thread_idx_x},
    tma::{TensorMap, TensorMapParam, cp_async_bulk_commit_group, cp_async_bulk_tensor_3d_g2s, cp_async_bulk_wait_group_read, cp_async_bulk_wait_group0,
          cp_reduce_async_bulk_add_f32},
    wgmma::{FlatWgmma, wgmma_fence_operand, wgmma_wait_group},
};
use crate::util::{
    opaque,
    unroll::{unroll2, unroll4, unroll8},
};
use layout::attention::{BWD_BKV, BWD_BQ, BWD_H_ROWS as ROWS, BWD_H_STAGES as STAGES, BWD_H_STREAM as STREAM, BackwardDims as Dims, BwdHTile, bwd_first_q_tile, bwd_h4_bars,
                        bwd_h4_dq_bufs, bwd_h4_dq_bytes, bwd_h4_dq_tile, bwd_h4_offset, bwd_needs_mask, sw128_box_bytes, sw128_byte};
use nvptx_std::{grid_constant_tensor_maps, param_tensor_map};

const _: () = assert!(BWD_BKV == ROWS && BWD_BQ == STREAM && ROWS == 2 * 64 && STREAM == 64);

/// The b4 body (see the module docs): grid `(⌈max k_len / 128⌉, kv_heads, batch)` (`PAIRS` with the
/// causal mask: half of x, rounded up — a CTA per block and its mirror, as b3), 256 threads,
/// `bwd_h4_smem(D)` bytes.
///
/// # Safety
/// As the entries.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn body<E: Elem16, const D: u32, const PAIRS: bool>(k: *const u16, v: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32, dq_acc: *mut f32, dk: *mut u16,
                                                           dv: *mut u16, dims: Dims, tmap_q: *const TensorMap, tmap_do: *const TensorMap) {
    let (bx, head, b) = (block_idx_x(), block_idx_y(), block_idx_z());
    let tid = thread_idx_x();
    let (wg, warp, lane) = (tid / 128, (tid / 32) % 4, lane_id());
    let (g, t) = (lane / 4, lane % 4);
    // SAFETY (the whole body): b3's dK/dV kernel's argument (v23's `body`) for the tiles, waits and stores,
    // with every warpgroup computing every tile (no skip) and one CTA barrier a tile, after the dSᵀ stores.
    // Copies: tile i + 1's are issued after tile i − 1's barrier (the prologue: tiles 0 and 1). Its
    // statistics (`cp.async`) are waited for (`wait_group 0`) by every thread before tile i's barrier; its Q
    // and dO (the TMA, thread 0, onto the stage's barrier with their byte count: one arrival, the barrier
    // initialized to 1 and fenced before the CTA barrier that precedes any copy) are waited for by every
    // thread at tile i + 1's top, on the parity of the stage's use count (`done + i`, carried across passes:
    // each pass consumes every copy it issues). Tile i + 2's are issued after tile i's barrier into stage
    // (i − 1) % 3, whose last readers (tile i − 1's products, its statistics' loads) every warpgroup
    // finished before that barrier (its dK retired at its first wait of tile i). The TMA's boxes lie inside
    // the maps (rows past the tensor are zero-filled, never read out of it); the rows past q_len they bring
    // are overwritten with zeros on the sequence's last tile after the stage's barrier (which made the TMA's
    // bytes visible) and before a CTA barrier that precedes every product reading them (each writer fenced to
    // the async proxy; the tile's other stages are untouched), and hidden by the mask, so they reach neither
    // dK nor dV; their dQ rows land in the tile's block, never converted. dSᵀ buffer i % 2 is written by
    // `st.shared` after tile i − 1's barrier: its last readers, tile i − 2's dQ products, were retired by
    // every warpgroup before that barrier;
    // each writer's `fence.proxy.async` and tile i's barrier come before either warpgroup's dQ reads it.
    // At D = 64 each warp's `ldmatrix` of its K and V rows runs after the barrier that follows the resident
    // tiles' copies (waited for by every thread), and nothing writes those tiles until the pass's end.
    // dQ: warpgroup w's half (BwdHTile::Dq, its own; buffer i % bufs, two at D = 64) is written after tile
    // i's barrier, before which its elected thread waited until the last reduce from that buffer had read
    // it (`wait_group.read`; one group a tile, each committed by that thread: with one buffer 0 left
    // pending, with two 1 — tile i − 1's, from the other buffer); each writer fences to the
    // async proxy and the warpgroup's named barrier (1 + w, 128 threads) precedes the reduce. The reduce
    // adds 32·D f32 to half w of block (tile, head `item.0`), tile = `bwd_h4_dq_tile(q_start, b) + qt` <
    // `bwd_h4_dq_tiles(tokens_q, batch)` (the host sizes the accumulator so, heads blocks a tile), which
    // only such reduces touch during the launch; 16-byte aligned (256-byte base, blocks of 256·D bytes).
    // The elected thread waits for its reduces to complete before the pass ends (the half is reused, or
    // the CTA exits).
    unsafe {
        let (q_start, q_len, k_start, k_len) = sequence(cu_q, cu_k, b);
        let causal = dims.causal != 0;
        let off = k_len.wrapping_sub(q_len); // bottom-right alignment (k_len ≥ q_len when causal)
        let kv_heads = dims.heads / dims.group.max(1);
        let kbase = k_start as usize * (kv_heads * D) as usize + head as usize * dims.k_head as usize;
        let n_blk = k_len.div_ceil(ROWS);
        let pairs = PAIRS && causal;
        if bx >= if pairs { n_blk.div_ceil(2) } else { n_blk } {
            return;
        }
        let passes = if pairs && n_blk - 1 - bx != bx { 2 } else { 1 };
        let raw = addr_of(dynamic::<Align16>());
        let base = (raw + 1023) & !1023;
        let at = |what: BwdHTile, st: u32| base + bwd_h4_offset(D, what, st);
        // Stage st's barrier: one arrival (the producer thread's, with the bytes of Q's and dO's tiles).
        let bar = |st: u32| base + bwd_h4_bars(D) + 8 * st;
        if tid == 0 {
            unroll4!(st => {
                if st < STAGES {
                    mbarrier_init(bar(st), 1);
                }
            });
            fence_mbarrier_init();
        }
        sync_threads();
        // Tiles so far (both passes): tile i of a pass is the CTA's (done + i)-th, in stage (done + i) % 3,
        // whose barrier completes phase (done + i) / 3 with it.
        let mut done = 0u32;
        // Q's and dO's rows: element `q_start·heads·D + h·q_head + row·q_tok` is coordinate (c, h, y0 + row)
        // of the host's maps (token-major: y0 = q_start; head-major: q_start·heads).
        let y0 = (q_start as usize * (dims.heads * D) as usize / dims.q_tok.max(1) as usize) as u32;
        for pass in 0..passes {
            if pass > 0 {
                sync_threads(); // every warpgroup is done with the first block's resident tiles
            }
            let blk = if pass == 0 { bx } else { n_blk - 1 - bx };
            let blk0 = blk * ROWS; // the CTA's first key
            let w0 = blk0 + 64 * wg; // the warpgroup's first key
            let w_rows = k_len.saturating_sub(w0).min(64);
            // Item i: query head `head·group + i / per`, query tile `first + i % per`.
            let first = bwd_first_q_tile(blk0, off, causal);
            let per = q_len.div_ceil(STREAM).saturating_sub(first);
            let items = per * dims.group;
            let per = per.max(1);
            let item = |i: u32| (head * dims.group + i / per, first + i % per);
            let mut acc_dk = [[0f32; 32]; 2];
            let mut acc_dv = [[0f32; 32]; 2];
            if items > 0 {
                let (s_k, s_v) = (at(BwdHTile::X, 0), at(BwdHTile::Y, 0));
                let stage = |i: u32| (done + i) % STAGES;
                // Item i's Q and dO tiles by the TMA (thread 0: 64 × 64 boxes, two at D = 128, onto the stage's
                // barrier; rows past q_len are the next rows of the tensor, or zeros past its end — zeroed
                // on the tile, below), and its statistics by `cp.async` (zeros past q_len).
                let load_item = |i: u32| {
                    let st = stage(i);
                    let (h, qt) = item(i);
                    if tid == 0 {
                        mbarrier_arrive_expect_tx(bar(st), 2 * 2 * STREAM * D);
                        let y = (y0 + qt * STREAM) as i32;
                        unroll2!(bb => {
                            if bb < D / 64 {
                                let box_at = bb * sw128_box_bytes(STREAM);
                                cp_async_bulk_tensor_3d_g2s(at(BwdHTile::A, st) + box_at, tmap_q, (64 * bb) as i32, h as i32, y, bar(st));
                                cp_async_bulk_tensor_3d_g2s(at(BwdHTile::B, st) + box_at, tmap_do, (64 * bb) as i32, h as i32, y, bar(st));
                            }
                        });
                    }
                    // The statistics: threads 0..64 the LSE's, 64..128 D's, 4 bytes each.
                    if tid < 2 * STREAM {
                        let (which, r) = (tid / STREAM, tid % STREAM);
                        let row = qt * STREAM + r;
                        let valid = row < q_len;
                        let src = (which * dims.heads + h) as usize * dims.tokens_q as usize + (q_start + if valid { row } else { 0 }) as usize;
                        cp_async_ca_4_zfill(at(BwdHTile::Stats, st) + 4 * tid, stats.add(src) as *const u8, if valid { 4 } else { 0 });
                    }
                };
                load_tile::<D, ROWS>(s_k, k.add(kbase), dims.k_tok, blk0, k_len, tid);
                load_tile::<D, ROWS>(s_v, v.add(kbase), dims.k_tok, blk0, k_len, tid);
                load_item(0);
                cp_async_commit_group();
                // Tile 1's copies run a tile ahead: issued now, waited for at tile 0's barrier.
                if items > 1 {
                    load_item(1);
                }
                cp_async_commit_group();
                cp_async_wait_group::<1>(); // the resident tiles' and tile 0's copies
                fence_proxy_async_shared_cta(); // this thread's copies, to the async proxy `wgmma` reads through
                sync_threads();
                // At D = 64 the warpgroup's K and V rows as A fragments, held for the walk (32 registers): Sᵀ and dPᵀ
                // read only Q and dO from shared memory (session 87). At D = 128 they would take 64 registers,
                // which b4 does not have (244 / 255).
                let (r_kf, r_vf) = if D == 64 { (load_a_frags64(s_k, 64 * wg, warp, lane), load_a_frags64(s_v, 64 * wg, warp, lane)) } else { ([[0; 4]; 4], [[0; 4]; 4]) };
                let scale2 = dims.scale * core::f32::consts::LOG2_E;
                // The last tile's dS fragments: its dK product may still run when the next tile starts.
                let mut r_ds = [[0u32; 4]; 4];
                // Item i's head and query tile, stepped along (`item(i)` without its division by `per`), and the
                // sequence's ragged last tile (none when q_len is a multiple of 64).
                let (mut h, mut qt) = item(0);
                let ragged_qt = if q_len % STREAM != 0 { (q_len - 1) / STREAM } else { u32::MAX };
                for i in 0..items {
                    // One CTA barrier a tile (below, after the dSᵀ stores): this tile's copies landed and were
                    // fenced before the last tile's.
                    let st = stage(i);
                    let s0 = qt * STREAM;
                    let (s_a, s_b) = (at(BwdHTile::A, st), at(BwdHTile::B, st));
                    mbarrier_wait_parity(bar(st), ((done + i) / STAGES) & 1); // the TMA's Q and dO landed
                    if qt == ragged_qt {
                        // The sequence's last tile: the TMA brought the rows after q_len as they lie in the
                        // tensor (the next sequence's or head's). Zero them, so that no value there — a NaN
                        // or infinity included — reaches dK or dV through the masked products (0 × NaN): a
                        // row is one 128-byte line of each 64-column box (the swizzle moves 16-byte chunks
                        // within a line); four threads a row, 32 bytes of each line a thread. CTA-uniform;
                        // once a sequence and pass.
                        const { assert!(4 * STREAM == 256) }; // four threads a row of the tile, 256 threads
                        let row = tid / 4;
                        if s0 + row >= q_len {
                            let line = 128 * row + 32 * (tid % 4);
                            unroll2!(bb => {
                                if bb < D / 64 {
                                    let at = bb * sw128_box_bytes(STREAM) + line;
                                    st_shared_v4_u32(s_a + at, [0; 4]);
                                    st_shared_v4_u32(s_a + at + 16, [0; 4]);
                                    st_shared_v4_u32(s_b + at, [0; 4]);
                                    st_shared_v4_u32(s_b + at + 16, [0; 4]);
                                }
                            });
                        }
                        fence_proxy_async_shared_cta(); // the zeros, to the async proxy `wgmma` reads through
                        sync_threads();
                    }
                    let mut s = unset_block();
                    let mut dp = unset_block();
                    if D == 64 {
                        issue_rs64_kmajor::<E>(&mut s, &r_kf, s_a);
                        issue_rs64_kmajor::<E>(&mut dp, &r_vf, s_b);
                    } else {
                        issue_ss::<E, D>(&mut s, opaque(s_k), 64 * wg, s_a);
                        issue_ss::<E, D>(&mut dp, opaque(s_v), 64 * wg, s_b);
                    }
                    // The mask: keys past the end or past a query's last visible key, on the tiles where some
                    // may be (CTA-wide: a warpgroup none of whose keys sees the tile gets P = 0 everywhere).
                    let masked = blk0 + ROWS > k_len || s0 + STREAM > q_len || (causal && bwd_needs_mask(blk0, qt, off));
                    let place = Place { row0: w0, col0: s0, k_len, q_len, causal, off };
                    let s_st = at(BwdHTile::Stats, st);
                    wgmma_wait_group::<1>(); // the last tile's dK and this tile's Sᵀ retired
                    pin_frags(&mut r_ds);
                    wgmma_fence_operand(&mut s);
                    // Pᵀ = 2^(Sᵀ·scale·log2 e − log2 e·LSE) in place (0 where hidden), and its A fragments; the
                    // mask's compares only on the tiles that need them (a branch, not a select per element).
                    let mut r_p = [[0u32; 4]; 4];
                    let lanes = Lanes { warp, g, t };
                    if masked {
                        probs::<E, true, true>(&mut s, &mut r_p, s_st, [0.0; 2], scale2, place, lanes);
                    } else {
                        probs::<E, true, false>(&mut s, &mut r_p, s_st, [0.0; 2], scale2, place, lanes);
                    }
                    issue_rs::<E, D>(&mut acc_dv, &r_p, s_b); // dV += Pᵀ·dO
                    wgmma_wait_group::<1>(); // dPᵀ retired (dV may still run)
                    wgmma_fence_operand(&mut dp);
                    // dSᵀ = Pᵀ ∘ (dPᵀ − D): its A fragments, and its rows (the warpgroup's keys) into the dSᵀ tile.
                    // The tile's address hidden from the optimizers (`opaque`) here and below: the stores'
                    // and dQ's descriptors, all loop-invariant, would otherwise be hoisted out of the loop
                    // and held in registers across it (ptxas spilled 76 bytes at D = 128 that way).
                    let s_ds_now = opaque(base + bwd_h4_offset(D, BwdHTile::Ds, i % 2));
                    // The stores' first row, hidden too at D = 128: LLVM would otherwise keep their 16 addresses
                    // across the loop (ptxas spilled 44 bytes so); from it each address is a few integer ops. D = 64
                    // has the registers for them (hidden, it measured 1.006–1.021× the time).
                    let r_ds0 = if D == 128 { opaque(64 * wg + 16 * warp + g) } else { 64 * wg + 16 * warp + g };
                    unroll8!(nt => {
                        let c = 8 * nt + 2 * t;
                        let dd = ld_shared_v2_u32(s_st + 4 * (STREAM + c)).map(f32::from_bits);
                        let mut x = [0f32; 4];
                        unroll4!(e => {
                            x[e as usize] = s[(4 * nt + e) as usize] * (dp[(4 * nt + e) as usize] - dd[(e % 2) as usize]);
                        });
                        put::<E>(&mut r_ds, nt, x);
                        unroll2!(hh => {
                            let r = r_ds0 + 8 * hh;
                            st_shared_u32(s_ds_now + sw128_byte(ROWS, r, c), r_ds[(nt / 2) as usize][(2 * (nt % 2) + hh) as usize]);
                        });
                    });
                    // Tile i + 1's copies (the only group in flight) landed too.
                    cp_async_wait_group::<0>();
                    fence_proxy_async_shared_cta(); // this thread's dSᵀ and copies, to the async proxy
                    if tid % 128 == 0 {
                        // The reduce that last read the buffer this tile's dQ goes to (below, after the
                        // barrier) is done reading it: the last tile's with one buffer, the one before with two.
                        if bwd_h4_dq_bufs(D) == 2 {
                            cp_async_bulk_wait_group_read::<1>();
                        } else {
                            cp_async_bulk_wait_group_read::<0>();
                        }
                    }
                    // Both halves of dSᵀ written and tile i + 1's copies everyone's; every warpgroup retired tile
                    // i − 1's dK (its first wait of this tile), so stage (i + 2) % 3 = (i − 1) % 3 is free for
                    // the copies below, and tile i − 1's dQ, so the other dSᵀ buffer is free for tile i + 1.
                    sync_threads();
                    if i + 2 < items {
                        load_item(i + 2);
                    }
                    cp_async_commit_group();
                    let mut r_dq = unset_block();
                    issue_dq::<E, D>(&mut r_dq, s_ds_now, opaque(s_k), wg); // dQ[:, half] = dS·K[:, half]
                    issue_rs::<E, D>(&mut acc_dk, &r_ds, s_a); // dK += dSᵀ·Q
                    wgmma_wait_group::<1>(); // dV and dQ retired; dK runs on into the next tile
                    pin(&mut acc_dv);
                    // dQ's half into the warpgroup's half of the tile's block (`bwd_h4_dq_at`'s order: pair k =
                    // 2·nt + hh of thread tid at 8·(128k + tid) bytes), then one bulk reduce-add of the half.
                    if D == 128 {
                        wgmma_fence_operand(&mut r_dq);
                    } else {
                        low16(&mut r_dq).fence_operand();
                    }
                    let s_dq = at(BwdHTile::Dq, wg + 2 * (i % bwd_h4_dq_bufs(D)));
                    unroll8!(nt => {
                        if nt < D / 16 {
                            unroll2!(hh => {
                                let i = (4 * nt + 2 * hh) as usize;
                                st_shared_v2_u32(s_dq + 8 * (128 * (2 * nt + hh) + tid % 128), [r_dq[i].to_bits(), r_dq[i + 1].to_bits()]);
                            });
                        }
                    });
                    fence_proxy_async_shared_cta(); // this thread's dQ pairs, to the async proxy the reduce reads through
                    sync_named(1 + wg, 128); // the warpgroup's half written
                    if tid % 128 == 0 {
                        let tile = bwd_h4_dq_tile(q_start, b) + qt;
                        let block = (tile as usize * dims.heads as usize + h as usize) * (STREAM * D) as usize;
                        cp_reduce_async_bulk_add_f32(dq_acc.add(block + (wg * 32 * D) as usize), s_dq, bwd_h4_dq_bytes(D));
                        cp_async_bulk_commit_group();
                    }
                    qt += 1;
                    if qt == first + per {
                        (h, qt) = (h + 1, first);
                    }
                }
                if tid % 128 == 0 {
                    cp_async_bulk_wait_group0(); // the reduces done before the half is reused or the CTA exits
                }
                done += items;
                wgmma_wait_group::<0>();
                pin_frags(&mut r_ds);
                pin(&mut acc_dk);
                pin(&mut acc_dv);
            }
            // Epilogue: the warpgroup's keys below k_len; dK times the scale.
            let rows = [w0 + 16 * warp + g, w0 + 16 * warp + g + 8];
            store_rows::<E, D, true>(&acc_dk, &acc_dv, [dk, dv], kbase, dims.k_tok, rows, w0 + w_rows, dims.scale, t);
        }
    }
}

/// The entries of one element type and head dim: `$plain` without the causal mask's pairs, `$causal`
/// with them (the host launches it for a causal problem, on half the grid's x).
macro_rules! b4_entries {
    ($plain:ident, $causal:ident, $e:ty, $d:literal) => {
        b4_entries!(@one $plain, $e, $d, false);
        b4_entries!(@one $causal, $e, $d, true);
    };
    (@one $name:ident, $e:ty, $d:literal, $pairs:literal) => {
        /// b4 (see the module docs): dK and dV, each summed by one thread in a fixed order, and dQ added
        /// to `dq_acc` by bulk reduce-adds, a tile's block at a time.
        ///
        /// # Safety
        /// Q, K, V, dO, `stats` and the offsets as in `attn_bwd_b1_d128_bf16`; `dq_acc`
        /// `bwd_h4_dq_tiles(tokens_q, batch)` × heads blocks of 64·D f32 (`layout::attention::bwd_h4_dq_at`),
        /// 256-byte aligned, touched only by the reduces meanwhile (zeroed before, converted after by
        /// [`attn_bwd_b4dq_d128_bf16`] and its kin); `dk`, `dv`
        /// hold K's elements, written by nothing else meanwhile. Grid `(⌈max k_len / 128⌉, kv_heads,
        /// batch)` (the causal entry with the causal mask: `⌈⌈max k_len / 128⌉ / 2⌉` in x), 256 threads,
        /// `layout::attention::bwd_h4_smem(D)` bytes of dynamic shared memory; sm_90a.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(_q: *const u16, k: *const u16, v: *const u16, _d_o: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32,
                                                dq_acc: *mut f32, dk: *mut u16, dv: *mut u16, dims: Dims, _tmap_q: TensorMapParam, _tmap_do: TensorMapParam) {
            let (tmap_q, tmap_do) = (param_tensor_map!($name, 11), param_tensor_map!($name, 12));
            // SAFETY: forwarded.
            unsafe { body::<$e, $d, $pairs>(k, v, stats, cu_q, cu_k, dq_acc, dk, dv, dims, tmap_q, tmap_do) }
        }
        grid_constant_tensor_maps!($name, 11, 12);
        $crate::launch_bounds::launch_bounds!($name, 256, 1);
    };
}

b4_entries!(attn_bwd_b4_d64_f16, attn_bwd_b4c_d64_f16, F16, 64);
b4_entries!(attn_bwd_b4_d128_f16, attn_bwd_b4c_d128_f16, F16, 128);
b4_entries!(attn_bwd_b4_d64_bf16, attn_bwd_b4c_d64_bf16, Bf16, 64);
b4_entries!(attn_bwd_b4_d128_bf16, attn_bwd_b4c_d128_bf16, Bf16, 128);

/// b4's dQ conversion: tile `block_idx_x` of sequence `block_idx_z`, query head `block_idx_y` — the tile's
/// block of the accumulator (`bwd_h4_dq_at`'s order) read in order, 8 bytes a thread, and its rows below
/// q_len written to dQ (Q's layout) as scale × the sums, rounded to `E`.
///
/// # Safety
/// As the entries.
#[inline(always)]
unsafe fn convert<E: Elem16, const D: u32>(acc: *const f32, cu_q: *const i32, cu_k: *const i32, dq: *mut u16, dims: Dims) {
    let (qt, h, b) = (block_idx_x(), block_idx_y(), block_idx_z());
    // SAFETY: the block is inside the accumulator (tile < bwd_h4_dq_tiles, head < heads), 8-byte aligned
    // pairs; each written row is below q_len of the sequence, column below D (even: 4-byte aligned) of head h.
    unsafe {
        let (q_start, q_len, _, _) = sequence(cu_q, cu_k, b);
        if qt * STREAM >= q_len {
            return;
        }
        let block = ((bwd_h4_dq_tile(q_start, b) + qt) as usize * dims.heads as usize + h as usize) * (STREAM * D) as usize;
        let qbase = q_start as usize * (dims.heads * D) as usize + h as usize * dims.q_head as usize;
        let mut j = thread_idx_x();
        while j < 32 * D {
            let [x, y] = *(acc.add(block + 2 * j as usize) as *const [f32; 2]);
            let (w, rem) = (j / (16 * D), j % (16 * D));
            let (k, tid) = (rem / 128, rem % 128);
            let row = qt * STREAM + 16 * (tid / 32) + (tid % 32) / 4 + 8 * (k % 2);
            let col = D / 2 * w + 8 * (k / 2) + 2 * (tid % 4);
            if row < q_len {
                *(dq.add(qbase + row as usize * dims.q_tok as usize + col as usize) as *mut u32) = E::pack(x * dims.scale, y * dims.scale);
            }
            j += 256;
        }
    }
}

macro_rules! b4_convert {
    ($name:ident, $e:ty, $d:literal) => {
        /// b4's dQ: scale × the accumulator's sums (`layout::attention::bwd_h4_dq_at`'s blocks) into Q's layout.
        ///
        /// # Safety
        /// `acc` the accumulator b4 filled (its `dq_acc`), `cu_q`, `cu_k` and `dims` as b4's; `dq` Q's elements,
        /// 16-byte aligned, written by nothing else meanwhile. Grid `(⌈max q_len / 64⌉, heads, batch)`, 256 threads.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(acc: *const f32, cu_q: *const i32, cu_k: *const i32, dq: *mut u16, dims: Dims) {
            // SAFETY: forwarded.
            unsafe { convert::<$e, $d>(acc, cu_q, cu_k, dq, dims) }
        }
        $crate::launch_bounds::launch_bounds!($name, 256);
    };
}

b4_convert!(attn_bwd_b4dq_d64_f16, F16, 64);
b4_convert!(attn_bwd_b4dq_d128_f16, F16, 128);
b4_convert!(attn_bwd_b4dq_d64_bf16, Bf16, 64);
b4_convert!(attn_bwd_b4dq_d128_bf16, Bf16, 128);

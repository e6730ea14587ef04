#![cfg(lab_sm90)]
//! Backward step b9 (issue 50): b4 with **a producer warpgroup** — 384 threads, warpgroup 0 issuing every tile's
//! copies (Q and dO by the TMA, the statistics by `cp.async`) onto the stage's full barrier once the two
//! computing warpgroups have released the stage on its empty barrier, and `setmaxnreg` moving registers to the
//! computing warpgroups (240 each, the producer 24). The products, the dSᵀ hand-off, dQ's bulk reduce and the epilogue
//! are b4's (`v27_backward_wgmma_atomic.rs`; the dQ product shared in `wgmma_backward.rs`); the copies leave the computing
//! threads, and where b4's 256 threads meet at the CTA's barrier b9's computing threads meet at a named barrier of their
//! own. The two roles run disjoint code after their `setmaxnreg` (ptxas allocates each region to its own limit; with
//! shared code after the split it kept every thread at the launch's 168 and spilled 880 bytes).
//!
//! Why (session 112, `ncu` at 1×16×16×4096×128 bf16 on an H100): cuDNN's backward kernel
//! (`…sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x128_1x4x1…`) runs 132 persistent CTAs of **384 threads, 168
//! registers at launch** — three warpgroups, so a `setmaxnreg` split — in 587.5 µs, tensor pipe ~62%; b4 runs 512
//! CTAs of 256 threads at 246 registers in 694.7 µs, tensor 50.8%. In b4 thread 0 issues the TMA and 128 threads the
//! statistics' `cp.async` between their products, and every thread waits for its own copies before the tile's
//! barrier. ptxas puts b4's body at 240 registers without a spill at D = 128 (16 bytes causal; D = 64 none).
//!
//! Prediction (before any run, H100 or H200, bf16, L = 4096–8192): the copies' issue and waits off the computing
//! threads and the warpgroups free to run a stage ahead of the copies — session 66's ablation without the in-loop
//! copies took b4-then to 0.84× (D = 128) / 0.81× (D = 64) of its time; the bulk-reduce b4 spends less on them.
//! **0.92–0.97× b4's time** at D = 128 and D = 64, causal or not; ≥ 0.95× cuDNN's time only if the
//! persistent grid (cuDNN's other difference) is not the larger part.
//!
//! Measured (H100, session 112, `results/2026-12-06-h100-session112` calls 5–6; 3 processes, each b9 interleaved with
//! b4, bf16): **0.93–0.98× b4's time** — 1×16×16×4096×128 0.93–0.94 (causal 0.96), 2×16×16×4096×64 0.94–0.95
//! (0.95–0.96), 1×32×8×8192×128 0.95–0.96 (0.95–0.98), 1×16×16×8192×128 0.96–0.98 (0.95–0.97). Correct on the first
//! run; memcheck and racecheck clean. Against torch's cuDNN backward (same call): 0.83–0.90× without the mask,
//! 0.85–1.01× causal. The library's atomic dQ on Hopper since.
//!
//! The computing warpgroups' tile loop repeats b4's (its dS rows, ragged-row zeroing and dQ staging line for line).
//! Sharing them as `#[inline(always)]` helpers was tried (session 112): b4's PTX stayed the same instructions, but
//! b9's moved enough at the 240-register margin that ptxas spilled at D = 64 (8 bytes, none as measured). The measured
//! form is kept; one body for both is for a change that re-measures b9.
use super::fa2_backward::sequence;
use super::wgmma_backward::{Lanes, Place, issue_dq, issue_rs, issue_rs64_kmajor, issue_ss, load_a_frags64, load_tile, low16, pin_frags, probs, put, store_rows};
use crate::attention::hopper::{pin, unset_block};
use crate::hgemm::elem::{Bf16, Elem16, F16};
use crate::prim::{
    cp_async::{cp_async_ca_4_zfill, cp_async_commit_group, cp_async_mbarrier_arrive_noinc, cp_async_wait_group},
    mbarrier::{fence_mbarrier_init, fence_proxy_async_shared_cta, mbarrier_arrive, mbarrier_arrive_expect_tx, mbarrier_init, mbarrier_wait_parity},
    shared::{Align16, addr_of, dynamic, ld_shared_v2_u32, st_shared_u32, st_shared_v2_u32, st_shared_v4_u32},
    sync::{sync_named, sync_threads},
    thread::{block_idx_x, block_idx_y, block_idx_z, lane_id, thread_idx_x},
    tma::{TensorMap, TensorMapParam, cp_async_bulk_commit_group, cp_async_bulk_tensor_3d_g2s, cp_async_bulk_wait_group_read, cp_async_bulk_wait_group0,
          cp_reduce_async_bulk_add_f32},
    wgmma::{FlatWgmma, setmaxnreg_dec, setmaxnreg_inc, wgmma_fence_operand, wgmma_wait_group},
};
use crate::util::{
    opaque,
    unroll::{unroll2, unroll4, unroll8},
};
use layout::attention::{BWD_H_ROWS as ROWS, BWD_H_STAGES as STAGES, BWD_H_STREAM as STREAM, BackwardDims as Dims, BwdHTile, bwd_first_q_tile, bwd_h4_bars, bwd_h4_dq_bufs,
                        bwd_h4_dq_bytes, bwd_h4_dq_tile, bwd_h4_offset, bwd_needs_mask, sw128_box_bytes, sw128_byte};
use nvptx_std::{grid_constant_tensor_maps, param_tensor_map};

/// Registers each computing warpgroup takes, and the producer's: 2 · 128 · 240 + 128 · 24 = the 384 threads' 168 at
/// launch (ptxas: b4's body fits 240 without a spill at D = 128, session 112).
const COMPUTE_REGS: u32 = 240;
const PRODUCER_REGS: u32 = 24;
const _: () = assert!(2 * 128 * COMPUTE_REGS + 128 * PRODUCER_REGS <= 384 * 168 && STAGES * 16 <= 64);

/// The b9 body: b4's (`steps/v27_backward_wgmma_atomic.rs`) with warpgroup 0 the producer; grid as b4's, 384 threads,
/// `bwd_h4_smem(D)` bytes (b4's regions; the 64 bytes of barriers hold the full and the empty ones).
///
/// # Safety
/// As the entries.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn body<E: Elem16, const D: u32, const PAIRS: bool>(k: *const u16, v: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32, dq_acc: *mut f32, dk: *mut u16,
                                                           dv: *mut u16, dims: Dims, tmap_q: *const TensorMap, tmap_do: *const TensorMap) {
    let (bx, head, b) = (block_idx_x(), block_idx_y(), block_idx_z());
    let raw = thread_idx_x();
    // SAFETY (the whole body): b4's argument (its `body`) for the tiles, products, dSᵀ, dQ and the epilogue, with
    // these differences. The copies of a CTA's tile i (its (done + i)-th, stage u % 3 for u = done + i) are the
    // producer's (warpgroup 0): issued once the stage's previous use u − 3 is released — phase u / 3 − 1 of the
    // stage's empty barrier, which completes when all 256 computing threads have arrived, each after the first wait
    // of the tile after it (that wait retired its last reader, tile u − 3's dK product; its Sᵀ, dPᵀ, dV, the
    // statistics' loads and the ragged tile's zeroing came before) or, for a pass's last tile, after the pass's
    // final wait. The stage's full barrier (129 arrivals: thread 0's with the TMA's byte count, and each of the
    // producer's first 128 threads' `cp.async.mbarrier.arrive.noinc` once its statistics copy landed) completes
    // with both copies, and the computing threads wait for it as b4's wait for theirs (parity (done + i) / 3). Both
    // roles walk the same passes and items, so the uses agree. The computing threads issue no copy after their
    // resident tiles' (waited for before their first meeting), and meet at named barrier 3 of their 256 where b4's
    // meet at the CTA's (the dQ halves keep 1 and 2). `setmaxnreg` is executed by every thread of each warpgroup
    // (the roles are warpgroups), after the CTA barrier that follows the barriers' initialization; the roles' code
    // is disjoint after it. The producer waits for its statistics copies before it exits.
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
        let base = (addr_of(dynamic::<Align16>()) + 1023) & !1023;
        let at = |what: BwdHTile, st: u32| base + bwd_h4_offset(D, what, st);
        // Stage st's full barrier (the copies landed) and empty barrier (the computing threads released it).
        let full = |st: u32| base + bwd_h4_bars(D) + 8 * st;
        let empty = |st: u32| full(STAGES + st);
        if raw == 0 {
            unroll4!(st => {
                if st < STAGES {
                    mbarrier_init(full(st), 1 + 2 * STREAM);
                    mbarrier_init(empty(st), 2 * 128);
                }
            });
            fence_mbarrier_init();
        }
        sync_threads();
        // A pass's first key, first query tile, tiles a head (at least 1) and items: item i is query head
        // `head·group + i / per`, query tile `first + i % per`.
        let pass_items = |pass: u32| {
            let blk = if pass == 0 { bx } else { n_blk - 1 - bx };
            let blk0 = blk * ROWS;
            let first = bwd_first_q_tile(blk0, off, causal);
            let per = q_len.div_ceil(STREAM).saturating_sub(first);
            (blk0, first, per.max(1), per * dims.group)
        };
        if raw < 128 {
            setmaxnreg_dec::<PRODUCER_REGS>();
            let tid = raw;
            // Q's and dO's rows: element `q_start·heads·D + h·q_head + row·q_tok` is coordinate (c, h, y0 + row)
            // of the host's maps (token-major: y0 = q_start; head-major: q_start·heads).
            let y0 = (q_start as usize * (dims.heads * D) as usize / dims.q_tok.max(1) as usize) as u32;
            let mut done = 0u32;
            for pass in 0..passes {
                let (_, first, per, items) = pass_items(pass);
                for i in 0..items {
                    let u = done + i;
                    let st = u % STAGES;
                    if u >= STAGES {
                        mbarrier_wait_parity(empty(st), (u / STAGES - 1) & 1);
                    }
                    let (h, qt) = (head * dims.group + i / per, first + i % per);
                    // Q and dO by the TMA (64 × 64 boxes, two at D = 128; rows past q_len as they lie in the
                    // tensor — zeroed on the tile by the computing threads — or zeros past its end).
                    if tid == 0 {
                        mbarrier_arrive_expect_tx(full(st), 2 * 2 * STREAM * D);
                        let y = (y0 + qt * STREAM) as i32;
                        unroll2!(bb => {
                            if bb < D / 64 {
                                let box_at = bb * sw128_box_bytes(STREAM);
                                cp_async_bulk_tensor_3d_g2s(at(BwdHTile::A, st) + box_at, tmap_q, (64 * bb) as i32, h as i32, y, full(st));
                                cp_async_bulk_tensor_3d_g2s(at(BwdHTile::B, st) + box_at, tmap_do, (64 * bb) as i32, h as i32, y, full(st));
                            }
                        });
                    }
                    // The statistics: threads 0..64 the LSE's, 64..128 D's, 4 bytes each (zeros past q_len).
                    let (which, r) = (tid / STREAM, tid % STREAM);
                    let row = qt * STREAM + r;
                    let valid = row < q_len;
                    let src = (which * dims.heads + h) as usize * dims.tokens_q as usize + (q_start + if valid { row } else { 0 }) as usize;
                    cp_async_ca_4_zfill(at(BwdHTile::Stats, st) + 4 * tid, stats.add(src) as *const u8, if valid { 4 } else { 0 });
                    cp_async_mbarrier_arrive_noinc(full(st));
                }
                done += items;
            }
            cp_async_commit_group();
            cp_async_wait_group::<0>();
            return;
        }
        setmaxnreg_inc::<COMPUTE_REGS>();
        let tid = raw - 128;
        let (wg, warp, lane) = (tid / 128, (tid / 32) % 4, lane_id());
        let (g, t) = (lane / 4, lane % 4);
        let meet = || sync_named(3, 2 * 128);
        let mut done = 0u32;
        for pass in 0..passes {
            if pass > 0 {
                meet(); // every warpgroup is done with the first block's resident tiles
            }
            let (blk0, first, per, items) = pass_items(pass);
            let w0 = blk0 + 64 * wg; // the warpgroup's first key
            let w_rows = k_len.saturating_sub(w0).min(64);
            let item = |i: u32| (head * dims.group + i / per, first + i % per);
            let mut acc_dk = [[0f32; 32]; 2];
            let mut acc_dv = [[0f32; 32]; 2];
            if items > 0 {
                let (s_k, s_v) = (at(BwdHTile::X, 0), at(BwdHTile::Y, 0));
                let stage = |i: u32| (done + i) % STAGES;
                load_tile::<D, ROWS>(s_k, k.add(kbase), dims.k_tok, blk0, k_len, tid);
                load_tile::<D, ROWS>(s_v, v.add(kbase), dims.k_tok, blk0, k_len, tid);
                cp_async_commit_group();
                cp_async_wait_group::<0>(); // the resident tiles
                fence_proxy_async_shared_cta(); // this thread's copies, to the async proxy `wgmma` reads through
                meet();
                // At D = 64 the warpgroup's K and V rows as A fragments, held for the walk (b4's, session 87).
                let (r_kf, r_vf) = if D == 64 { (load_a_frags64(s_k, 64 * wg, warp, lane), load_a_frags64(s_v, 64 * wg, warp, lane)) } else { ([[0; 4]; 4], [[0; 4]; 4]) };
                let scale2 = dims.scale * core::f32::consts::LOG2_E;
                // The last tile's dS fragments: its dK product may still run when the next tile starts.
                let mut r_ds = [[0u32; 4]; 4];
                let (mut h, mut qt) = item(0);
                let ragged_qt = if q_len % STREAM != 0 { (q_len - 1) / STREAM } else { u32::MAX };
                for i in 0..items {
                    let st = stage(i);
                    let s0 = qt * STREAM;
                    let (s_a, s_b) = (at(BwdHTile::A, st), at(BwdHTile::B, st));
                    mbarrier_wait_parity(full(st), ((done + i) / STAGES) & 1); // the producer's Q, dO and statistics landed
                    if qt == ragged_qt {
                        // The sequence's last tile: the rows after q_len the TMA brought zeroed (b4's reason), four
                        // threads a row, 32 bytes of each line a thread.
                        const { assert!(4 * STREAM == 256) };
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
                        meet();
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
                    let masked = blk0 + ROWS > k_len || s0 + STREAM > q_len || (causal && bwd_needs_mask(blk0, qt, off));
                    let place = Place { row0: w0, col0: s0, k_len, q_len, causal, off };
                    let s_st = at(BwdHTile::Stats, st);
                    wgmma_wait_group::<1>(); // the last tile's dK and this tile's Sᵀ retired
                    if i > 0 {
                        mbarrier_arrive(empty(stage(i - 1))); // the last tile's stage: its last reader retired
                    }
                    pin_frags(&mut r_ds);
                    wgmma_fence_operand(&mut s);
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
                    // dSᵀ = Pᵀ ∘ (dPᵀ − D): its A fragments, and its rows into the dSᵀ tile (b4's `opaque`s).
                    let s_ds_now = opaque(base + bwd_h4_offset(D, BwdHTile::Ds, i % 2));
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
                    fence_proxy_async_shared_cta(); // this thread's dSᵀ, to the async proxy
                    if tid % 128 == 0 {
                        // The reduce that last read the buffer this tile's dQ goes to is done reading it.
                        if bwd_h4_dq_bufs(D) == 2 {
                            cp_async_bulk_wait_group_read::<1>();
                        } else {
                            cp_async_bulk_wait_group_read::<0>();
                        }
                    }
                    // Both halves of dSᵀ written; every warpgroup retired tile i − 1's dQ, so the other dSᵀ buffer
                    // is free for tile i + 1.
                    meet();
                    let mut r_dq = unset_block();
                    issue_dq::<E, D>(&mut r_dq, s_ds_now, opaque(s_k), wg); // dQ[:, half] = dS·K[:, half]
                    issue_rs::<E, D>(&mut acc_dk, &r_ds, s_a); // dK += dSᵀ·Q
                    wgmma_wait_group::<1>(); // dV and dQ retired; dK runs on into the next tile
                    pin(&mut acc_dv);
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
                let last = stage(items - 1);
                done += items;
                wgmma_wait_group::<0>();
                mbarrier_arrive(empty(last)); // the pass's last stage: its dK retired
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

/// The entries of one element type and head dim: `$plain` without the causal mask's pairs, `$causal` with them.
macro_rules! b9_entries {
    ($plain:ident, $causal:ident, $e:ty, $d:literal) => {
        b9_entries!(@one $plain, $e, $d, false);
        b9_entries!(@one $causal, $e, $d, true);
    };
    (@one $name:ident, $e:ty, $d:literal, $pairs:literal) => {
        /// b9 (see the module docs): b4's gradients with a producer warpgroup.
        ///
        /// # Safety
        /// As `attn_bwd_b4_d128_bf16`'s and its kin's, but 384 threads (`launch_bounds` 384, 1).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(_q: *const u16, k: *const u16, v: *const u16, _d_o: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32,
                                                dq_acc: *mut f32, dk: *mut u16, dv: *mut u16, dims: Dims, _tmap_q: TensorMapParam, _tmap_do: TensorMapParam) {
            let (tmap_q, tmap_do) = (param_tensor_map!($name, 11), param_tensor_map!($name, 12));
            // SAFETY: forwarded (384 threads, the launch bounds below: `setmaxnreg` holds).
            unsafe { body::<$e, $d, $pairs>(k, v, stats, cu_q, cu_k, dq_acc, dk, dv, dims, tmap_q, tmap_do) }
        }
        grid_constant_tensor_maps!($name, 11, 12);
        $crate::launch_bounds::launch_bounds!($name, 384, 1);
    };
}

b9_entries!(attn_bwd_b9_d64_f16, attn_bwd_b9c_d64_f16, F16, 64);
b9_entries!(attn_bwd_b9_d128_f16, attn_bwd_b9c_d128_f16, F16, 128);
b9_entries!(attn_bwd_b9_d64_bf16, attn_bwd_b9c_d64_bf16, Bf16, 64);
b9_entries!(attn_bwd_b9_d128_bf16, attn_bwd_b9c_d128_bf16, Bf16, 128);

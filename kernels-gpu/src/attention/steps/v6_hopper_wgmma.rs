#![cfg(lab_sm90)]
//! Attention step a6 (Hopper): **TMA loads and `wgmma` for both GEMMs, a producer warpgroup and two
//! consumer warpgroups** — the HGEMM ladder's h3/h4 machinery applied to FlashAttention.
//!
//! Diff from a2 (which is FlashAttention-2 on `mma.sync`):
//! * one CTA per 128 query rows: warpgroup 0 is the producer (one thread issues TMA loads), warpgroups
//!   1 and 2 each own 64 query rows (`hgemm::tma_warp_specialized::warp_specialized!`, the skeleton of
//!   h3–h6: `setmaxnreg` 40 / 232, full and empty mbarriers per stage);
//! * Q (with the first K/V stage's transaction), K and V tiles of 128 keys arrive by TMA as 128-row ×
//!   64-column `SWIZZLE_128B` boxes into a 2-stage ring — no `cp.async`, no `ldmatrix`: `wgmma` reads
//!   the swizzled tiles through descriptors;
//! * S = Q·Kᵀ: per K step of 16 head dims one `wgmma.m64n128k16` with both operands K-major (K stored
//!   `[key][d]` is Kᵀ's K-major form);
//! * the online softmax runs on the `wgmma` accumulator fragment, which per warp is `mma.sync`'s
//!   (rows g and g + 8, columns 8j + 2t): a2's code, on 16 n-tiles instead of 8;
//! * O += P·V: P **stays in registers** as the A operand of `wgmma … m64n{D}k16` (the register-A form:
//!   two packed n-tiles of S are one A fragment), V read MN-major from its boxes (`imm-trans-b = 1`,
//!   the h-ladder's B layout);
//! * a K/V stage is released after both GEMMs of the tile retired (`wait_group 0`): no overlap of the
//!   softmax with the tensor cores inside a warpgroup yet — only the two consumer warpgroups and the
//!   producer run concurrently (FA3's intra-warpgroup pipelining and ping-pong are the next steps).
//!
//! Key rows past `l` inside a tile (the 2-D tensor map spans all heads, so they hold the next head's
//! keys, or zeros after the last head) are masked to −∞ like the causal mask; query rows past `l` are
//! computed and not stored.
//!
//! Prediction (H100, before the run): the `mma.sync` steps are bound by shared-memory bandwidth
//! (`ldmatrix` of K and V per MMA; a2 at 196–257 TFLOP/s, tensor pipe 34–40%); `wgmma` reads operands
//! from shared memory without the register file and at twice `mma.sync`'s rate. With the softmax not
//! overlapped, expect ~1.4–1.8× a2 at D = 128 (≈ 350–450 TFLOP/s, about torch's FA2 and below cuDNN),
//! less at D = 64 (softmax work per FLOP doubles).
use crate::attention::flash::{quad_max, quad_sum};
use crate::hgemm::elem::{Bf16, Elem16, F16};
use crate::hgemm::tma_warp_specialized::warp_specialized;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    math::{ex2_approx_f32, lg2_approx_f32},
    mbarrier::mbarrier_arrive_expect_tx,
    thread::{block_idx_x, block_idx_y, lane_id},
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s},
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_wait_group},
};
use crate::util::unroll::{unroll2, unroll4, unroll8};
use layout::attention::{A6_BKV as BKV, A6_BOX_BYTES as BOX, A6_BQ as BQ, A6_STAGES as STAGES, a6_q_bytes, a6_stage_bytes, kv_tiles_of, needs_mask_of};
use layout::hopper::{TmaSwizzle, WgmmaDesc};

/// Q (A) and K (B) tiles: K-major, 128-byte swizzled rows, 8-row groups 1024 bytes apart.
const K_MAJOR: WgmmaDesc = match WgmmaDesc::k_major(0, 64, 128, TmaSwizzle::B128) {
    Ok(d) => d,
    Err(_) => panic!("K-major descriptor"),
};
/// V (B of P·V): MN-major, boxes of 128 keys × 64 head dims (LBO: the next 64 head dims' box).
const V_MN_MAJOR: WgmmaDesc = match WgmmaDesc::mn_major_sw128(0, BKV) {
    Ok(d) => d,
    Err(_) => panic!("MN-major descriptor"),
};

/// Declares a6's entry for one head dim and element type.
macro_rules! a6_entry {
    ($name:ident, $e:ty, $d:literal) => {
        /// Attention forward (a6, module doc): `o` (`[B·H][L][D]`) and the natural log-sum-exp `lse`
        /// (`[B·H][L]`) from Q, K, V given as TMA tensor maps.
        ///
        /// # Safety
        /// `tmap_q`, `tmap_k`, `tmap_v`: 2-D tensor maps (in global memory) of `B·H·l` rows × D
        /// 16-bit elements, boxes of 128 rows × 64 elements, `SWIZZLE_128B`; `o` and `lse` hold
        /// `B·H·l·D` and `B·H·l` writable elements; grid `(⌈l/128⌉, B·H)`, 384 threads,
        /// `layout::attention::a6_smem(D)` bytes of dynamic shared memory; `l ≥ 1`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(tmap_q: *const TensorMap, tmap_k: *const TensorMap, tmap_v: *const TensorMap, o: *mut u16, lse: *mut f32,
                                                l: u32, scale: f32, causal: u32) {
            // SAFETY: forwarded.
            unsafe { attention::<$e, $d>(tmap_q, tmap_k, tmap_v, o, lse, l, scale, causal) }
        }
        // 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
        launch_bounds!($name, 384, 1);
    };
}

a6_entry!(attn_a6_d64_f16, F16, 64);
a6_entry!(attn_a6_d128_f16, F16, 128);
a6_entry!(attn_a6_d64_bf16, Bf16, 64);
a6_entry!(attn_a6_d128_bf16, Bf16, 128);

/// The body of a6 for element type `E` and head dim `D` (64 or 128).
///
/// # Safety
/// As the entries.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn attention<E: Elem16, const D: u32>(tmap_q: *const TensorMap, tmap_k: *const TensorMap, tmap_v: *const TensorMap, g_o: *mut u16, g_lse: *mut f32,
                                             l: u32, scale: f32, causal: u32) {
    let boxes = D / 64; // 64-wide boxes along D
    let kv_half = boxes * BOX; // V after K in a stage
    // SAFETY (the whole body): the ring protocol as h3–h6's (producer and consumers walk the same K/V
    // tiles; each stage use is announced by one expect_tx of its bytes — Q's too on the first — and
    // released once per consumer warp after both GEMMs reading it retired). `wgmma` operands: Q, K, V
    // tiles written by the TMA and observed through the full barrier; descriptors from compile-time
    // checked constants advanced inside the tiles (Q: rows 64·mh .. + 64 of 128, K-steps inside a box;
    // V: 16-key steps inside 128 rows). Every `wgmma` is issued by all 128 threads of a consumer
    // warpgroup with warpgroup-uniform operands; accumulators are pinned (`wgmma_fence_operand`) after
    // each wait and before each fence. Global stores only for rows < l (columns < D by construction).
    unsafe {
        warp_specialized! {
            // STAGES × (K and V tiles), then Q, then the barriers (layout: `Ring`).
            ring: let (ring, s_q) = (STAGES, a6_stage_bytes(D), a6_q_bytes(D));
            thread: tid, warpgroup: wg;
            setup: {
                let (qt, head) = (block_idx_x(), block_idx_y());
                let q0 = qt * BQ;
                let row0 = head * l; // the head's first row in the 2-D maps (B·H·l < 2^31: host)
                let n_tiles = kv_tiles_of(l, BQ, BKV, qt, causal != 0);
            }
            tensor_maps: (tmap_k, tmap_v);
            producer: {
                for j in 0..n_tiles {
                    let (s_stage, full, _, _) = ring.at(j);
                    ring.wait_empty(j);
                    mbarrier_arrive_expect_tx(full, a6_stage_bytes(D) + if j == 0 { a6_q_bytes(D) } else { 0 });
                    for b in 0..boxes {
                        if j == 0 {
                            cp_async_bulk_tensor_2d_g2s(s_q + b * BOX, tmap_q, (64 * b) as i32, (row0 + q0) as i32, full);
                        }
                        cp_async_bulk_tensor_2d_g2s(s_stage + b * BOX, tmap_k, (64 * b) as i32, (row0 + j * BKV) as i32, full);
                        cp_async_bulk_tensor_2d_g2s(s_stage + kv_half + b * BOX, tmap_v, (64 * b) as i32, (row0 + j * BKV) as i32, full);
                    }
                }
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let (g, t) = (lane / 4, lane % 4);
                // This thread's query rows (h = 0, 1: rows g and g + 8 of its warp's 16).
                let row_of = |h: u32| q0 + 64 * mh + 16 * warp + g + 8 * h;
                let scale2 = scale * core::f32::consts::LOG2_E;
                let d_q = K_MAJOR.advance(s_q + mh * 64 * 128);
                let mut r_o = [[0f32; 32]; 2]; // O: [64-column block of D][fragment]; D = 64 uses block 0
                let mut r_m = [-1e30f32; 2]; // running max (base 2) per row half
                let mut r_l = [0f32; 2]; // running per-thread sum per row half
                for j in 0..n_tiles {
                    ring.wait_full(j);
                    let s_stage = ring.at(j).0;
                    // S = Q · Kᵀ: 64 rows × 128 keys, one wgmma per 16 head dims.
                    let mut s = [[0f32; 32]; 2];
                    for blk in s.iter_mut() {
                        wgmma_fence_operand(blk);
                    }
                    wgmma_fence();
                    unroll8!(ks => {
                        if ks < D / 16 {
                            let at = (ks / 4) * BOX; // box along D
                            let kb = 32 * (ks % 4); // bytes inside the 128-byte row
                            E::wgmma_128::<0, 0>(&mut s, d_q.advance(at + kb).0, K_MAJOR.advance(s_stage + at + kb).0, ks > 0);
                        }
                    });
                    wgmma_commit_group();
                    wgmma_wait_group::<0>();
                    for blk in s.iter_mut() {
                        wgmma_fence_operand(blk);
                    }
                    // Scale to base 2, mask (keys past l; the causal diagonal), row max.
                    let kv0 = j * BKV;
                    let masked_tile = kv0 + BKV > l || (causal != 0 && needs_mask_of(BQ, BKV, qt, j));
                    let mut mx = [-1e30f32; 2];
                    unroll2!(b => {
                        unroll8!(jj => {
                            unroll4!(e => {
                                let i = (4 * jj + e) as usize;
                                let col = kv0 + 64 * b + 8 * jj + 2 * t + e % 2;
                                let x = &mut s[b as usize][i];
                                *x = if masked_tile && (col >= l || (causal != 0 && col > row_of(e / 2))) { f32::NEG_INFINITY } else { *x * scale2 };
                                mx[(e / 2) as usize] = mx[(e / 2) as usize].max(*x);
                            });
                        });
                    });
                    let m_new = [r_m[0].max(quad_max(mx[0])), r_m[1].max(quad_max(mx[1]))];
                    let corr = [ex2_approx_f32(r_m[0] - m_new[0]), ex2_approx_f32(r_m[1] - m_new[1])];
                    r_m = m_new;
                    // P = 2^(s − m), packed as the A fragments of P·V (k-step kk: n-tiles 2kk, 2kk + 1).
                    let mut p = [[0u32; 4]; 8];
                    let mut sum = [0f32; 2];
                    unroll2!(b => {
                        unroll8!(jj => {
                            let x = &s[b as usize];
                            let i = (4 * jj) as usize;
                            let e = [ex2_approx_f32(x[i] - r_m[0]), ex2_approx_f32(x[i + 1] - r_m[0]), ex2_approx_f32(x[i + 2] - r_m[1]),
                                     ex2_approx_f32(x[i + 3] - r_m[1])];
                            sum[0] += e[0] + e[1];
                            sum[1] += e[2] + e[3];
                            let nt = 8 * b + jj; // n-tile of 8 keys
                            p[(nt / 2) as usize][(2 * (nt % 2)) as usize] = E::pack(e[0], e[1]);
                            p[(nt / 2) as usize][(2 * (nt % 2) + 1) as usize] = E::pack(e[2], e[3]);
                        });
                    });
                    r_l = [r_l[0] * corr[0] + sum[0], r_l[1] * corr[1] + sum[1]];
                    unroll2!(b => {
                        if b < D / 64 {
                            unroll8!(jj => {
                                let o = &mut r_o[b as usize];
                                let i = (4 * jj) as usize;
                                o[i] *= corr[0];
                                o[i + 1] *= corr[0];
                                o[i + 2] *= corr[1];
                                o[i + 3] *= corr[1];
                            });
                        }
                    });
                    // O += P · V: 8 k-steps of 16 keys, A = P from registers, B = V (MN-major).
                    let d_v = V_MN_MAJOR.advance(s_stage + kv_half);
                    for blk in r_o.iter_mut() {
                        wgmma_fence_operand(blk);
                    }
                    wgmma_fence();
                    unroll8!(kk => {
                        if D == 64 {
                            E::wgmma_64_rs::<1>(&mut r_o[0], p[kk as usize], d_v.advance(2048 * kk).0, true);
                        } else {
                            E::wgmma_128_rs::<1>(&mut r_o, p[kk as usize], d_v.advance(2048 * kk).0, true);
                        }
                    });
                    wgmma_commit_group();
                    wgmma_wait_group::<0>();
                    for blk in r_o.iter_mut() {
                        wgmma_fence_operand(blk);
                    }
                    ring.release(j);
                }
                // Epilogue: the rows' full sums, O / sum, lse (natural log).
                let sum = [quad_sum(r_l[0]), quad_sum(r_l[1])];
                let inv = [1.0 / sum[0], 1.0 / sum[1]];
                let head_off = head as usize * l as usize;
                let go = g_o.add(head_off * D as usize);
                unroll2!(b => {
                    if b < D / 64 {
                        unroll8!(jj => {
                            let o = &r_o[b as usize];
                            let i = (4 * jj) as usize;
                            let col = 64 * b + 8 * jj + 2 * t;
                            if row_of(0) < l {
                                *(go.add((row_of(0) * D + col) as usize) as *mut u32) = E::pack(o[i] * inv[0], o[i + 1] * inv[0]);
                            }
                            if row_of(1) < l {
                                *(go.add((row_of(1) * D + col) as usize) as *mut u32) = E::pack(o[i + 2] * inv[1], o[i + 3] * inv[1]);
                            }
                        });
                    }
                });
                if t == 0 {
                    let lse = g_lse.add(head_off);
                    for h in 0..2 {
                        if row_of(h) < l {
                            *lse.add(row_of(h) as usize) = (r_m[h as usize] + lg2_approx_f32(sum[h as usize])) * core::f32::consts::LN_2;
                        }
                    }
                }
            }
        }
    }
}

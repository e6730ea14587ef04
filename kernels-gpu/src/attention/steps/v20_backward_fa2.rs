//! Backward step b1 (issue 50): **FlashAttention-2's backward on `mma.sync`** — dQ, dK, dV from Q, K, V,
//! O, dO and the forward's log-sum-exp, grouped K/V heads, packed sequences of different lengths.
//!
//! Three kernels on the caller's stream (`kernel_lab::attention::backward`), after a memset of dQ's f32
//! accumulator:
//! 1. [`attn_bwd_prep_d128_bf16`] (and the other types and widths): per query row `D = rowsum(dO ∘ O)`
//!    and `log2(e) · LSE`, one warp a row, into two `[heads][tokens_q]` f32 workspaces;
//! 2. [`attn_bwd_b1_d128_bf16`]: one CTA per (block of 128 keys, K/V head, sequence); 8 warps, warp `w`
//!    owning keys `16w..16w + 16` of the block, whose dK and dV stay in its registers (f32) while the
//!    CTA walks every query tile of 64 rows that sees its keys, for each query head of the K/V head's
//!    group (so dK and dV come out summed over the group, with no second pass). Per query tile, with the
//!    warp's 16 keys as the `mma` rows (so the scores' accumulators are the next products' A fragments,
//!    as P is in the forward):
//!    - `Sᵀ = K · Qᵀ`, `Pᵀ = 2^(Sᵀ · scale · log2 e − log2(e) · LSE)` (the forward's softmax recomputed
//!      from its LSE; the causal mask on the tiles that need it, P = 0 there);
//!    - `dPᵀ = V · dOᵀ`, `dSᵀ = Pᵀ ∘ (dPᵀ − D)`;
//!    - `dV += Pᵀ · dO`, `dK += dSᵀ · Q` (dO and Q as `.trans` B fragments);
//!    - dSᵀ to shared memory, a barrier, then `dQ += dS · K` (dS read `.trans`): each warp 16 query
//!      rows × half of D, added to the f32 accumulator with `red.global.add.f32` (FA2's `dq_accum`),
//!      one reduction among each step of the dK products, which come last (session 68, FA2's order).
//!    Q, dO and the two row statistics of the next tile stream in (`cp.async`, 2 stages) while this
//!    one computes; two block barriers per tile.
//! 3. [`attn_bwd_dq_bf16`]: dQ = scale · accumulator, rounded to the element type.
//!
//! A query row past its sequence needs no mask: it loads as zeros (Q, dO; LSE and D zero), so its P is 1
//! but its dO and dS are 0 and it adds nothing to dK or dV, and its dQ is not stored. A key row past the
//! sequence is masked (P = 0): its K row is zero, so S = 0 and P would be e^(−LSE) — unbounded where a
//! query's LSE is very negative, and dS = −P·D times a zero K row is NaN in dQ once dS rounds to ±∞
//! (session 51's review; `bench/tests/backward.rs` has the case). Its dK and dV are not stored. The order of
//! the atomic adds is not fixed: dQ may differ in its last bits from run to run (a deterministic mode is
//! the next step).
//!
//! Prediction (before any run, H200, bf16, D = 128, L = 4096, 32 heads): five `mma.sync` GEMMs per
//! tile with every B fragment read from shared memory by all 8 warps (Q and dO twice each: as `Qᵀ`/`dOᵀ`
//! and `.trans`), 8 K/V `ldmatrix` per warp per GEMM: shared-memory bytes per `mma` ≈ 1.4× the forward
//! a11's, and 8192 f32 atomics per tile. FA2's backward is ~0.9× its forward in TFLOP/s (counting 2.5×
//! the forward's FLOPs); a11 runs at ~350 TFLOP/s on H200-class parts, so b1 ≈ **250–310 TFLOP/s, about
//! 0.85–1.05× torch's FA2 backward (288–301)** and ~0.5–0.6× cuDNN's (523–540): the Hopper step (TMA,
//! `wgmma`) is what cuDNN's number needs.
//!
//! Measured (H200, bf16, `results/2026-11-29-h200-session51/call1-b1`, 3 processes): correct on the first
//! run (f64 reference, sanitizers clean). **192–198 TFLOP/s at D = 128 (causal 161–175), 168 at D = 64:
//! 0.58–0.68× torch's FA2 backward**, 0.30–0.42× cuDNN's — the prediction missed by ~30%. `ncu`: shared
//! memory bound (L1 69%, SM 30%): 184 `ldmatrix.x4` per warp and tile for 320 `mma` (every warp reads the
//! whole Q and dO tiles twice); the attention README's backward section counts it.
//!
//! Session 68 (`results/2026-11-30-h200-session68`): without its reductions b1 took 0.74× its time, and
//! `ncu` showed its warps stalled on the LSU queue (LG throttle 1.72 cycles an instruction; FA2's 0.01)
//! with all 32 reductions a thread issued back to back. The hypothesis (no number was written down before
//! the run): spread one per dK step, they drain under the `mma`s. Measured (2 processes): **0.91–0.92× at D = 128, 0.88–0.89×
//! at D = 64** (v2 reductions, FA2's order alone and staggered walks had each measured 0.99–1.01×).
use super::fa2_backward::{backward, convert_dq, prep};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::BackwardDims as Dims;

/// The entries of one element type and head dim.
macro_rules! backward_entries {
    ($b1:ident, $prep:ident, $e:ty, $d:literal) => {
        /// b1: dK, dV (`[tokens_k]` rows in K's layout, dK scaled) and dQ's f32 accumulator (added to) from
        /// Q, K, V, dO and the statistics of [`attn_bwd_prep_d128_bf16`]; see the module docs.
        ///
        /// # Safety
        /// `cu_q`, `cu_k`: `batch + 1` non-decreasing i32 offsets from 0, every sequence with queries having
        /// keys and, when causal, at least as many keys as queries; Q, dO and `dq_acc` (f32) hold every
        /// element `cu_q[b]·heads·D + t·q_tok + h·q_head + c` (t < q_len, h < heads, c < D) and K, V, dK, dV
        /// every `cu_k[b]·kv_heads·D + t·k_tok + h·k_head + c` (kv_heads = heads / group), rows 16-byte
        /// aligned; `stats` holds `2 · heads · tokens_q` f32 written by the prep kernel; `dq_acc` is
        /// touched by nothing else meanwhile. Grid `(⌈max k_len / 128⌉, kv_heads, batch)`, 256 threads,
        /// `bwd_smem(D)` bytes of dynamic shared memory.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $b1(q: *const u16, k: *const u16, v: *const u16, d_o: *const u16, stats: *const f32, cu_q: *const i32, cu_k: *const i32,
                                               dq_acc: *mut f32, dk: *mut u16, dv: *mut u16, dims: Dims) {
            // SAFETY: forwarded.
            unsafe { backward::<$e, $d, true>(q, k, v, d_o, stats, cu_q, cu_k, dq_acc, dk, dv, dims) }
        }
        $crate::launch_bounds::launch_bounds!($b1, 256, 1);

        /// The backward's preprocessing: per query row `log2(e) · LSE` and `D = rowsum(dO ∘ O)` into
        /// `stats` (`[2][heads][tokens_q]` f32).
        ///
        /// # Safety
        /// O and dO as Q in [`attn_bwd_b1_d128_bf16`], `lse` every `cu_q[b]·heads + t·lse_tok + h·lse_head`,
        /// `stats` `2 · heads · tokens_q` writable f32; grid `(⌈max q_len / 8⌉, heads, batch)`, 256 threads.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $prep(o: *const u16, d_o: *const u16, lse: *const f32, cu_q: *const i32, stats: *mut f32, dims: Dims) {
            // SAFETY: forwarded.
            unsafe { prep::<$e, $d>(o, d_o, lse, cu_q, stats, dims) }
        }
        $crate::launch_bounds::launch_bounds!($prep, 256);
    };
}

backward_entries!(attn_bwd_b1_d64_f16, attn_bwd_prep_d64_f16, F16, 64);
backward_entries!(attn_bwd_b1_d128_f16, attn_bwd_prep_d128_f16, F16, 128);
backward_entries!(attn_bwd_b1_d64_bf16, attn_bwd_prep_d64_bf16, Bf16, 64);
backward_entries!(attn_bwd_b1_d128_bf16, attn_bwd_prep_d128_bf16, Bf16, 128);

/// dQ = `scale · acc`, rounded to f16, for `n` elements (a multiple of 4).
///
/// # Safety
/// `acc` holds `n` readable f32 (16-byte aligned), `dq` `n` writable f16 (8-byte aligned).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_bwd_dq_f16(acc: *const f32, dq: *mut u16, n: u32, scale: f32) {
    // SAFETY: forwarded.
    unsafe { convert_dq::<F16>(acc, dq, n, scale) }
}
crate::launch_bounds::launch_bounds!(attn_bwd_dq_f16, 256);

/// As [`attn_bwd_dq_f16`], rounded to bf16.
///
/// # Safety
/// As [`attn_bwd_dq_f16`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn attn_bwd_dq_bf16(acc: *const f32, dq: *mut u16, n: u32, scale: f32) {
    // SAFETY: forwarded.
    unsafe { convert_dq::<Bf16>(acc, dq, n, scale) }
}
crate::launch_bounds::launch_bounds!(attn_bwd_dq_bf16, 256);

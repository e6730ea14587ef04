//! Attention backward (issue 50): dQ, dK, dV from Q, K, V, O, dO and the forward's natural log-sum-exp,
//! for grouped K/V heads (dK and dV summed over each group), packed sequences of different lengths and
//! the causal mask aligned bottom-right, f16 or bf16, head dims 64 and 128. The kernels are steps b1
//! (FlashAttention-2's backward on `mma.sync`, any GPU from sm_80:
//! `kernels-gpu/src/attention/steps/v20_backward_fa2.rs`), b2 (its deterministic dQ,
//! `v21_backward_deterministic.rs`) and b3 (b2's two kernels on Hopper's `wgmma`, sm_90a:
//! `v23_backward_wgmma.rs`), b4 (b3's dK/dV kernel computing dQ too, added by bulk reductions, sm_90a:
//! `v27_backward_wgmma_atomic.rs`) and b9 (b4 with a producer warpgroup: `v41_backward_producer.rs`); [`Engine`] says
//! which of them a plan runs.
//!
//! Two tensor orders, the forward kernels' ([`Order`]):
//! ```text
//! TokenMajor  q, o, dO, dQ [tokens_q][heads][D]      k, v, dK, dV [tokens_k][kv_heads][D]   lse [tokens_q][heads]
//!             (prefill's packed sequences; [B][L][H][D] at equal lengths, as FlashAttention's API)
//! HeadMajor   q, o, dO, dQ [B·heads][L_q][D]         k, v, dK, dV [B·kv_heads][L_k][D]      lse [B·heads][L_q]
//!             (the fixed-length forward `flash`'s; every sequence the same lengths)
//! ```
//! Sequence `b` is the tokens `cu_q[b]..cu_q[b + 1]` of the queries and `cu_k[b]..cu_k[b + 1]` of the
//! keys (host offsets, checked as prefill's: [`Lens::new`]); with the causal mask query `t` sees keys
//! `0..=t + k_len − q_len`.
//!
//! [`DqMode::Deterministic`] (b2, or b3 on Hopper) computes dQ in a kernel of its own, each element summed by
//! one thread in a fixed order: bitwise the same on every run, and measured 0.86–0.93× b1's time on an
//! H200 despite recomputing the scores (b1's dSᵀ round trip and atomics cost more). [`DqMode::Atomic`]
//! (b7 — b1 on FlashAttention-2's warp layout and dQ accumulator, its CTAs longest first; b8, the same on 128-query
//! tiles, at D = 64 —, or b9 on Hopper)
//! accumulates dQ in f32 with atomic adds, so its last bits may differ from run to run; on Hopper it skips the
//! dQ kernel's recomputed S and dP (five products where b3 does seven). The default, [`DqMode::Fastest`], is
//! whichever of the two measured faster on the kernels the plan runs: b9 on Hopper (since session 112; b4 from
//! session 67), b7 elsewhere (since session 92; b5 in session 91; b2 before, when b1 was the atomic kernel) — as torch's and
//! cuDNN's backward, not bitwise reproducible unless asked. dK
//! and dV are each summed by one CTA in a fixed order either way.
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

use layout::{
    attention::{BWD_BKV, BWD_BQ, BWD_DQ_BQ, BWD_H_ROWS, BWD_H_STREAM, BWD8_BQ, BackwardDims, bwd_dq_tiles_of, bwd_h4_smem, bwd_h_smem, bwd_qt_smem, bwd_smem, bwd5_smem},
    hopper::TmaSwizzle,
};

use super::prefill::{Lens, PrefillDesc};
use crate::{
    error::{DriverContext, Error, Result},
    gemm::{Element, launch::Operand},
    launch,
    runtime::{
        gpu::{Gpu, Kernel},
        tma::{TensorMap3d, TensorMapParam},
    },
    steps::gemm::Elem,
};

/// Head dims the backward kernels take.
pub const HEAD_DIMS: [usize; 2] = [64, 128];

/// How Q, K, V, O, their gradients and the LSE are laid out (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// `[tokens][heads][D]`: packed sequences, any lengths.
    TokenMajor,
    /// `[B·heads][L][D]`: every sequence the same query length and the same key length.
    HeadMajor,
}

/// How dQ is summed over the key blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DqMode {
    /// b7, b8 at D = 64 (b9 with [`Engine`] `Wgmma`, or `Auto` where the GPU runs `sm_90a` code; b9 is b4 with a
    /// producer warpgroup, 0.93–0.98× its time on an H100, `results/2026-12-06-h100-session112`): every key block adds
    /// its share of dQ into an f32 accumulator by atomics (the order of the adds, and so dQ's last bits,
    /// may change from run to run; b4 adds a tile's block at a time by the TMA's bulk reduce). On an H200
    /// b4 took 0.79–0.80× b3's time at D = 128 without the causal mask, 0.81–0.85× with it, 0.85–0.86× at
    /// D = 64 (`results/2026-11-30-h200-session66`); b5 0.89–0.92× b1's time (`results/2026-12-04-h200-session91`),
    /// b6 0.81–0.87× b5's and b7 0.82–0.91× b6's with the causal mask, 1.00× without, b8 (D = 64) 0.85–0.89× b7's
    /// (`results/2026-12-04-h200-session92`). b6 and b7 add into padded 64-row tile blocks of the
    /// accumulator in the order the reductions leave the registers, b4's blocks, converted per tile.
    /// b4 loads Q and dO by the TMA, whose box brings in
    /// the rows after a sequence's last query; it zeroes them before use, so another sequence's values
    /// (a NaN included) never reach this one's gradients.
    Atomic,
    /// dQ by its own kernel (b2, or b3 on Hopper: [`Engine`]), one thread per element summing over the
    /// keys in order: every gradient bitwise the same on every run (b2 0.86–0.93× b1's time on an H200,
    /// `results/2026-11-29-h200-session51/call2-b2`; b3 0.53–0.60× b2's, `git show a873563:results/2026-11-30-h200-session60/README.md`;
    /// b3 1.16–1.27× b4's time, session 66).
    Deterministic,
    /// The default: [`DqMode::Atomic`] on both engines (b9 on `wgmma`; b7 on `mma.sync`, b8 at D = 64, faster than b2 since
    /// session 91 — b2 was the default there while b1, slower than b2 at D = 64, was the atomic kernel).
    /// [`BackwardPlan::desc`] reports the mode chosen.
    Fastest,
}

/// Which kernels a plan runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The `wgmma` kernels (b3, or b9 for [`DqMode::Atomic`]) where the GPU runs `sm_90a` code, b2 / b7 (b8 at D = 64)
    /// elsewhere (the default).
    Auto,
    /// b2 / b7 (b8 at D = 64) on `mma.sync` (any GPU from sm_80).
    MmaSync,
    /// b3 / b9 on `wgmma`: `sm_90a` only (a plan asked for it elsewhere is refused).
    Wgmma,
}

/// One backward problem's heads, mask and layout (the lengths come with each run).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BackwardDesc {
    /// Query heads.
    pub heads: usize,
    /// K/V heads (dividing `heads`).
    pub kv_heads: usize,
    /// Head dim: 64 or 128.
    pub head_dim: usize,
    /// Causal mask, aligned bottom-right.
    pub causal: bool,
    /// The forward's softmax scale; `None`: `1/√head_dim`.
    pub scale: Option<f32>,
    /// Tensor order.
    pub order: Order,
    /// How dQ is summed ([`DqMode::Fastest`] unless set).
    pub dq: DqMode,
    /// Which kernels run it.
    pub engine: Engine,
}

impl BackwardDesc {
    /// Token-major, non-causal, the default scale, dQ by the engine's faster mode ([`DqMode::Fastest`]).
    pub fn new(heads: usize, kv_heads: usize, head_dim: usize) -> BackwardDesc {
        BackwardDesc { heads, kv_heads, head_dim, causal: false, scale: None, order: Order::TokenMajor, dq: DqMode::Fastest, engine: Engine::Auto }
    }

    /// The same with the causal mask.
    pub fn causal(self) -> BackwardDesc {
        BackwardDesc { causal: true, ..self }
    }

    /// The same with softmax scale `scale`.
    pub fn with_scale(self, scale: f32) -> BackwardDesc {
        BackwardDesc { scale: Some(scale), ..self }
    }

    /// The same in order `order`.
    pub fn with_order(self, order: Order) -> BackwardDesc {
        BackwardDesc { order, ..self }
    }

    /// The same with dQ summed as `dq` says.
    pub fn with_dq(self, dq: DqMode) -> BackwardDesc {
        BackwardDesc { dq, ..self }
    }

    /// The same run by `engine`'s kernels.
    pub fn with_engine(self, engine: Engine) -> BackwardDesc {
        BackwardDesc { engine, ..self }
    }

    /// Query heads per K/V head.
    pub fn group(&self) -> usize {
        self.heads / self.kv_heads.max(1)
    }

    /// The softmax scale used.
    pub fn scale(&self) -> f32 {
        self.scale.unwrap_or(1.0 / (self.head_dim as f32).sqrt())
    }

    fn as_prefill(&self) -> PrefillDesc {
        PrefillDesc { heads: self.heads, kv_heads: self.kv_heads, head_dim: self.head_dim, causal: self.causal, scale: self.scale }
    }

    /// Checks the heads, head dim and scale, naming the rule broken.
    pub fn validate(&self) -> Result<()> {
        if !HEAD_DIMS.contains(&self.head_dim) {
            return Err(Error::InvalidInput(format!("attention backward: head dim {} is not supported: the kernels take {HEAD_DIMS:?}", self.head_dim)));
        }
        self.as_prefill().validate().map_err(|e| Error::InvalidInput(e.to_string().replace("prefill attention", "attention backward")))
    }

    /// Checks the offsets (as [`Lens::new`]) and, head-major, that every sequence has the same lengths.
    pub fn lens(&self, cu_q: &[u32], cu_k: &[u32]) -> Result<Lens> {
        let lens = Lens::new(&self.as_prefill(), cu_q, cu_k).map_err(|e| Error::InvalidInput(e.to_string().replace("prefill attention", "attention backward")))?;
        if self.order == Order::HeadMajor {
            for (what, cu) in [("query", cu_q), ("key", cu_k)] {
                if let Some(b) = cu.windows(2).position(|w| w[1] - w[0] != cu[1] - cu[0]) {
                    return Err(Error::InvalidInput(format!("attention backward, head-major: sequence {b} has {} {what} tokens but sequence 0 has {}: [B·H][L][D] needs one length",
                                                           cu[b + 1] - cu[b], cu[1] - cu[0])));
                }
            }
        }
        Ok(lens)
    }

    /// The kernels' sizes and strides for `lens`.
    fn dims(&self, lens: &Lens, cu_q: &[u32], cu_k: &[u32]) -> BackwardDims {
        let (h, hk, d) = (self.heads as u32, self.kv_heads as u32, self.head_dim as u32);
        let (lq, lk) = (cu_q[1] - cu_q[0], cu_k[1] - cu_k[0]);
        let (q_tok, q_head, k_tok, k_head, lse_tok, lse_head) = match self.order {
            Order::TokenMajor => (h * d, d, hk * d, d, h, 1),
            Order::HeadMajor => (d, lq * d, d, lk * d, 1, lq),
        };
        BackwardDims { heads: h, group: (self.heads / self.kv_heads) as u32, causal: self.causal as u32, scale: self.scale(), tokens_q: lens.tokens_q as u32, q_tok, q_head,
                       k_tok, k_head, lse_tok, lse_head }
    }
}

super::by_value_param!(DimsParam, BackwardDims, "[`BackwardDims`] as a by-value kernel parameter (44 bytes).");

/// b4's 3-D view of Q (and dO) for the TMA: extents (D, heads, rows) and the byte strides of heads and
/// rows, for `q_elems` > 0 elements of head dim `d` in `dims`' order. Element `cu_q[b]·heads·D + h·q_head +
/// t·q_tok` is coordinate (c, h, cu_q[b]·heads·D / q_tok + t); `rows` is the most whose last head's last
/// row ends inside the `q_elems` (token-major: the tokens; head-major: B·heads·L − (heads − 1)·L, a head's
/// rows running on into the next head's).
fn b4_query_map(dims: &BackwardDims, d: u64, q_elems: u64) -> ([u64; 3], [u64; 2]) {
    let (heads, tok, head) = (dims.heads as u64, dims.q_tok as u64, dims.q_head as u64);
    let rows = (q_elems - (heads - 1) * head - d) / tok + 1;
    ([d, heads, rows], [2 * head, 2 * tok])
}

/// The gradients of one run, the buffers [`BackwardPlan::run`] writes.
pub struct Grads<'a, DQ, DK, DV> {
    /// dQ, Q's layout.
    pub dq: &'a mut DQ,
    /// dK, K's layout (summed over each group of query heads).
    pub dk: &'a mut DK,
    /// dV, V's layout.
    pub dv: &'a mut DV,
}

/// Attention backward for one [`BackwardDesc`] and element type `T` (`half::f16`, `half::bf16`): the
/// three kernels loaded once, the offsets and the two f32 workspaces (dQ's accumulator, the row
/// statistics) grown as needed; everything enqueued on the [`Gpu`]'s stream, nothing synchronizes.
pub struct BackwardPlan<T: Element> {
    gpu: Gpu,
    desc: BackwardDesc,
    prep: Kernel,
    /// b7's kernel (atomic dQ on `mma.sync`; b8 at D = 64; b1, b5, b6 or b7 by `with_kernel`), b4's, or b2's / b3's dK/dV
    /// kernel (deterministic).
    main: Kernel,
    /// dQ's conversion from its accumulator (atomic) or b2's / b3's dQ kernel (deterministic).
    convert: Kernel,
    /// Where the main kernel adds dQ: what the accumulator holds and how `convert` launches.
    acc_layout: DqAcc,
    /// b3 / b4 (`wgmma`): 128 keys per CTA and, with the causal mask, a block and its mirror (half the
    /// grid); b3's dQ kernel 128 queries per CTA where b2 takes 64.
    wgmma: bool,
    cu: Option<CudaSlice<i32>>,
    acc: Option<CudaSlice<f32>>,
    stats: Option<CudaSlice<f32>>,
    _elem: std::marker::PhantomData<T>,
}

/// Where a plan's main kernel adds dQ.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum DqAcc {
    /// Deterministic dQ: no accumulator (b2's and b3's dQ kernels write dQ).
    None,
    /// b1, b5: f32 in Q's layout (`tokens_q · heads · D`), converted by `attn_bwd_dq_*`, a grid-stride loop.
    QLayout,
    /// b4, b6, b7, b8: `bwd_dq_tiles_of(tokens_q, batch, qt) × heads` padded blocks of 64 · D f32 in the
    /// kernel's own order (a sequence's blocks padded to its `qt`-row query tiles: 64, b8 128), converted by its
    /// `…dq_d{D}_*` kernel, a CTA per (64-row tile, head, sequence).
    TileBlocks { qt: u32 },
}

impl<T: Element> BackwardPlan<T> {
    /// Validates `desc` and loads the kernels: refused before anything runs, naming the rule.
    pub fn new(gpu: &Gpu, desc: BackwardDesc) -> Result<Self> {
        let e = super::half_suffix::<T>("attention backward")?;
        desc.validate()?;
        let d = desc.head_dim;
        // b3's causal entries walk a block and its mirror per CTA (`c`).
        let c = if desc.causal { "c" } else { "" };
        // The wgmma kernel a plan would run: b3's dK/dV kernel, or b9 (atomic dQ, and the faster mode's; b4 with a
        // producer warpgroup, launched as b4 and converted by b4's dQ kernel).
        let hopper = match desc.dq {
            DqMode::Deterministic => format!("attn_bwd_b3kv{c}_d{d}_{e}"),
            DqMode::Atomic | DqMode::Fastest => format!("attn_bwd_b9{c}_d{d}_{e}"),
        };
        let wgmma = match desc.engine {
            Engine::MmaSync => false,
            // Loading the kernel below refuses a GPU that cannot run it (`Error::Unsupported`, naming what it needs).
            Engine::Wgmma => true,
            Engine::Auto => crate::steps::find(&hopper).is_some_and(|info| gpu.cannot_run(info).is_none()),
        };
        // The faster mode on the engine chosen: atomic on both (b4 on wgmma, b7 on mma.sync).
        let atomic = match desc.dq {
            DqMode::Atomic => true,
            DqMode::Deterministic => false,
            // Atomic on both engines: b4 on wgmma; on mma.sync b5 was already 0.86–0.92× b2's time at D = 128 and
            // ~0.98× at D = 64 on an H200 (`results/2026-12-04-h200-session91`), b7 0.66–0.82× b5's
            // (`results/2026-12-04-h200-session92`), b8 at D = 64 0.85–0.89× b7's.
            DqMode::Fastest => true,
        };
        let desc = BackwardDesc { dq: if atomic { DqMode::Atomic } else { DqMode::Deterministic }, ..desc };
        let (main, convert, acc_layout) = match (atomic, wgmma) {
            (true, false) if d == 64 => (format!("attn_bwd_b8_d{d}_{e}"), format!("attn_bwd_b8dq_d{d}_{e}"), DqAcc::TileBlocks { qt: BWD8_BQ }),
            (true, false) => (format!("attn_bwd_b7_d{d}_{e}"), format!("attn_bwd_b6dq_d{d}_{e}"), DqAcc::TileBlocks { qt: BWD_BQ }),
            (true, true) => (hopper, format!("attn_bwd_b4dq_d{d}_{e}"), DqAcc::TileBlocks { qt: BWD_H_STREAM }),
            (false, false) => (format!("attn_bwd_b2kv_d{d}_{e}"), format!("attn_bwd_b2dq_d{d}_{e}"), DqAcc::None),
            (false, true) => (hopper, format!("attn_bwd_b3dq{c}_d{d}_{e}"), DqAcc::None),
        };
        Ok(BackwardPlan { gpu: gpu.clone(), desc, prep: gpu.kernel(&format!("attn_bwd_prep_d{d}_{e}"))?, main: gpu.kernel(&main)?, convert: gpu.kernel(&convert)?, acc_layout,
                          wgmma, cu: None, acc: None, stats: None, _elem: std::marker::PhantomData })
    }

    /// [`BackwardPlan::new`] running `kernel`, a named backward step, in place of the plan's main kernel
    /// (ladders and benchmarks: `kernel-lab backward --steps`). Taken where it launches as the plan's own
    /// would: on `mma.sync` with atomic dQ, b7 or b8 (the plan's own: `attn_bwd_b7_d128_{f16,bf16}`,
    /// `attn_bwd_b8_d64_…`) or a step before it — b1, b5 (dQ in Q's layout), b6 or b7 (b6's dQ conversion) — of
    /// the plan's head dim and element type; on `wgmma` with atomic dQ, b4 or b9 (the plan's own since session 112:
    /// `attn_bwd_b4{,c}_d{D}_…`, the causal entry with the mask); anything else is refused, naming the rule.
    pub fn with_kernel(gpu: &Gpu, desc: BackwardDesc, kernel: &str) -> Result<Self> {
        let mut plan = Self::new(gpu, desc)?;
        let e = super::half_suffix::<T>("attention backward")?;
        let d = plan.desc.head_dim;
        // On `wgmma` with atomic dQ: b4 (b9 without its producer warpgroup) or b9 itself, launched alike (the same
        // arguments, grid, shared memory and dQ conversion; the threads from the kernel's descriptor).
        if plan.wgmma && plan.desc.dq == DqMode::Atomic {
            let c = if plan.desc.causal { "c" } else { "" };
            let allowed = [format!("attn_bwd_b4{c}_d{d}_{e}"), format!("attn_bwd_b9{c}_d{d}_{e}")];
            if !allowed.iter().any(|a| a == kernel) {
                return Err(Error::InvalidInput(format!("attention backward {desc:?}: kernel {kernel:?} does not launch as this plan's main kernel ({}); on wgmma with \
                                                        DqMode::Atomic it may be {}", plan.main.name(), allowed.join(" or "))));
            }
            plan.main = gpu.kernel(kernel)?;
            return Ok(plan);
        }
        let mut allowed: Vec<String> = ["b1", "b5", "b6", "b7"].iter().map(|s| format!("attn_bwd_{s}_d{d}_{e}")).collect();
        if d == 64 {
            allowed.push(format!("attn_bwd_b8_d{d}_{e}"));
        }
        if plan.wgmma || plan.desc.dq != DqMode::Atomic || !allowed.iter().any(|a| a == kernel) {
            return Err(Error::InvalidInput(format!("attention backward {desc:?}: kernel {kernel:?} does not launch as this plan's main kernel ({}); with Engine::MmaSync \
                                                    and DqMode::Atomic it may be {}", plan.main.name(), allowed.join(", "))));
        }
        let (convert, acc_layout) = match kernel.split('_').nth(2) {
            Some("b1" | "b5") => (format!("attn_bwd_dq_{e}"), DqAcc::QLayout),
            Some("b8") => (format!("attn_bwd_b8dq_d{d}_{e}"), DqAcc::TileBlocks { qt: BWD8_BQ }),
            _ => (format!("attn_bwd_b6dq_d{d}_{e}"), DqAcc::TileBlocks { qt: BWD_BQ }),
        };
        plan.main = gpu.kernel(kernel)?;
        plan.convert = gpu.kernel(&convert)?;
        plan.acc_layout = acc_layout;
        Ok(plan)
    }

    /// The problem, with [`DqMode::Fastest`] resolved to the mode the plan runs.
    pub fn desc(&self) -> BackwardDesc {
        self.desc
    }

    /// Whether it runs the `wgmma` kernels (b3, or b4 for atomic dQ).
    pub fn is_wgmma(&self) -> bool {
        self.wgmma
    }

    /// The main kernel it runs.
    pub fn kernel(&self) -> &str {
        self.main.name()
    }

    /// Enqueues dQ, dK, dV (`grads`) from `q`, `k`, `v`, the forward's `o` and natural `lse`, and `d_o`
    /// for the sequences `cu_q` / `cu_k` (see the module docs). Offsets, buffer lengths, 16-byte
    /// alignment and the workspaces' memory are checked before anything is enqueued. Returns the
    /// checked lengths (`Lens::flops` is the forward's; the backward does 2.5× that).
    #[allow(clippy::too_many_arguments)]
    pub fn run<Q, K, V, O, L, DO, DQ, DK, DV>(&mut self, q: &Q, k: &K, v: &V, o: &O, lse: &L, d_o: &DO, cu_q: &[u32], cu_k: &[u32], grads: Grads<'_, DQ, DK, DV>)
                                              -> Result<Lens>
    where
        Q: DevicePtr<T>,
        K: DevicePtr<T>,
        V: DevicePtr<T>,
        O: DevicePtr<T>,
        L: DevicePtr<f32>,
        DO: DevicePtr<T>,
        DQ: DevicePtrMut<T>,
        DK: DevicePtrMut<T>,
        DV: DevicePtrMut<T>,
    {
        let d = self.desc;
        let lens = d.lens(cu_q, cu_k)?;
        let (q_elems, kv_elems) = (lens.tokens_q * d.heads * d.head_dim, lens.tokens_k * d.kv_heads * d.head_dim);
        let Grads { dq, dk, dv } = grads;
        for (what, got, want) in [("Q", q.len(), q_elems), ("K", k.len(), kv_elems), ("V", v.len(), kv_elems), ("O", o.len(), q_elems), ("LSE", lse.len(), lens.tokens_q * d.heads),
                                  ("dO", d_o.len(), q_elems), ("dQ", dq.len(), q_elems), ("dK", dk.len(), kv_elems), ("dV", dv.len(), kv_elems)] {
            if got < want {
                return Err(Error::InvalidInput(format!("attention backward {d:?}: {what} holds {got} elements, {want} needed for {} query and {} key tokens",
                                                       lens.tokens_q, lens.tokens_k)));
            }
        }
        if q_elems.max(kv_elems) >= 1 << 31 {
            return Err(Error::InvalidInput(format!("attention backward {d:?}: {} elements in Q or K exceed the kernels' 2^31", q_elems.max(kv_elems))));
        }
        let max_k = cu_k.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        if max_k == 0 {
            return Ok(lens); // no keys: dK, dV empty, and no queries either (Lens refuses queries without keys)
        }
        // The workspaces: dQ's f32 accumulator (b1, b5: Q's layout; b4, b6, b7: `bwd_h4_dq_tiles` padded 64-row
        // tiles of `heads` blocks of 64·D) and the row statistics [2][heads][tokens_q].
        let atomic = d.dq == DqMode::Atomic;
        debug_assert_eq!(atomic, self.acc_layout != DqAcc::None);
        let acc_used = match self.acc_layout {
            DqAcc::None => 0,
            DqAcc::QLayout => q_elems,
            DqAcc::TileBlocks { qt } => bwd_dq_tiles_of(lens.tokens_q as u32, lens.batch as u32, qt) as usize * d.heads * BWD_H_STREAM as usize * d.head_dim,
        };
        let (acc_len, stats_len) = (acc_used.max(4), (2 * d.heads * lens.tokens_q).max(1));
        let grow = |have: &Option<CudaSlice<f32>>, want: usize| have.as_ref().map_or(want, |a| if a.len() >= want { 0 } else { want });
        let (grow_acc, grow_stats) = (grow(&self.acc, acc_len), grow(&self.stats, stats_len));
        let extra = 4 * (grow_acc + grow_stats) as u64;
        if extra > 0 {
            crate::runtime::budget::check(&self.gpu, &format!("attention backward {d:?}: dQ's f32 accumulator and the row statistics"), extra, 0)?;
        }
        let stream = self.gpu.stream.clone();
        if grow_acc > 0 {
            self.acc = None;
            self.acc = Some(self.gpu.zeros::<f32>(acc_len)?);
        }
        if grow_stats > 0 {
            self.stats = None;
            self.stats = Some(self.gpu.zeros::<f32>(stats_len)?);
        }
        let (pq, _gq) = q.device_ptr(&stream);
        let (pk, _gk) = k.device_ptr(&stream);
        let (pv, _gv) = v.device_ptr(&stream);
        let (po, _go) = o.device_ptr(&stream);
        let (pl, _gl) = lse.device_ptr(&stream);
        let (pdo, _gdo) = d_o.device_ptr(&stream);
        let (pdq, _gdq) = dq.device_ptr_mut(&stream);
        let (pdk, _gdk) = dk.device_ptr_mut(&stream);
        let (pdv, _gdv) = dv.device_ptr_mut(&stream);
        let op = |ptr| Operand { ptr, len: 0 };
        Operand::require_aligned16(&[("Q", op(pq)), ("K", op(pk)), ("V", op(pv)), ("O", op(po)), ("LSE", op(pl)), ("dO", op(pdo)), ("dQ", op(pdq)), ("dK", op(pdk)),
                                     ("dV", op(pdv))], self.main.name(), || format!("attention backward {d:?}: "))?;
        // The offsets, q's then k's, ordered on the stream before the launches.
        let (pcu, pcu_k) = super::prefill::upload_offsets(&self.gpu, &mut self.cu, cu_q, cu_k, "attention backward")?;
        let (Some(acc), Some(stats)) = (self.acc.as_mut(), self.stats.as_mut()) else { unreachable!("allocated above") };
        if atomic {
            stream.memset_zeros(&mut acc.slice_mut(..acc_len)).during(|| "attention backward: zeroing dQ's accumulator".to_string())?;
        }
        let pacc = acc.device_ptr(&stream).0;
        let pst = stats.device_ptr(&stream).0;
        let dims = DimsParam(d.dims(&lens, cu_q, cu_k));
        let batch = lens.batch as u32;
        // b4's tensor maps of Q and dO (by value): (D, heads, rows) with Q's strides, boxes 64 × 1 × 64 under
        // the 128-byte swizzle; `rows` token rows, the last head's last row inside the buffer (token-major: the
        // tokens; head-major: its rows continue into the next heads'). None without queries (nothing loads).
        let maps = if atomic && self.wgmma && q_elems > 0 {
            let (dims3, strides) = b4_query_map(&dims.0, d.head_dim as u64, q_elems as u64);
            let map = |addr: u64, len: usize| TensorMap3d::param_16bit_at(addr, len, dims3, strides, [64, 1, BWD_H_STREAM], TmaSwizzle::B128, T::ELEM == Elem::Bf16);
            (map(pq, q.len())?, map(pdo, d_o.len())?)
        } else {
            (TensorMapParam([0; 16]), TensorMapParam([0; 16]))
        };
        debug_assert_eq!(self.main.info.dyn_smem_bytes, match (self.wgmma, atomic) {
            (true, true) => bwd_h4_smem(d.head_dim as u32),
            (true, false) => bwd_h_smem(d.head_dim as u32),
            (false, _) if ["attn_bwd_b5_", "attn_bwd_b6_", "attn_bwd_b7_"].iter().any(|p| self.main.name().starts_with(p)) => bwd5_smem(d.head_dim as u32),
            (false, _) if self.main.name().starts_with("attn_bwd_b8_") => bwd_qt_smem(d.head_dim as u32, BWD8_BQ),
            (false, _) => bwd_smem(d.head_dim as u32),
        });
        // SAFETY (the three launches): the offsets are the checked `Lens` (batch + 1 each, from 0,
        // non-decreasing, keys ≥ 1 where a sequence has queries and ≥ its queries when causal), copied
        // ahead on this stream into a buffer nothing else writes; the strides are those of the checked
        // order (head-major: one length per sequence, checked), so every row `cu[b]·heads·D + t·tok + h·head`
        // of a sequence lies inside Q, O, dO, dQ (tokens_q·heads·D elements, checked above) or K, V, dK, dV
        // (tokens_k·kv_heads·D), and the LSE's inside its tokens_q·heads; all 16-byte aligned (checked);
        // the workspaces hold dQ's accumulator (zeroed just before: b1's and b5's tokens_q·heads·D, b4's, b6's, b7's
        // `bwd_h4_dq_tiles` × heads blocks of 64·D, what their kernels index; deterministic: the dK/dV kernel
        // does not touch it, and b2's or b3's dQ kernel writes dQ, Q's size, directly) and 2·heads·tokens_q
        // f32, and are this plan's alone; b3's and b4's grids are those their entries name, half of x for
        // the causal entries; b4's maps describe Q and dO as checked above (their extents reach no element
        // past the buffers: `param_16bit_at` checks), borrowed for this call; heads = kv_heads · group
        // (validated), grids below the limits (heads and batch ≤ 65535, checked by `validate` and `Lens`),
        // blocks and shared memory from the kernels' descriptors.
        unsafe {
            if lens.max_q > 0 {
                launch!(self.gpu, &self.prep, grid = ((lens.max_q as u32).div_ceil(8), d.heads as u32, batch), &po, &pdo, &pl, &pcu, &pst, &dims)?;
            }
            if self.wgmma {
                // b3's dK/dV kernel or b4: b1's grid (128 keys per CTA); with the causal mask a CTA takes a
                // block and its mirror (half the grid). b4 adds dQ into the accumulator, b3 does not touch it.
                let blocks = |n: u32| if d.causal { n.div_ceil(2) } else { n };
                let grid = (blocks(max_k.div_ceil(BWD_H_ROWS)), d.kv_heads as u32, batch);
                if atomic {
                    launch!(self.gpu, &self.main, grid = grid, &pq, &pk, &pv, &pdo, &pst, &pcu, &pcu_k, &pacc, &pdk, &pdv, &dims, &maps.0, &maps.1)?;
                } else {
                    launch!(self.gpu, &self.main, grid = grid, &pq, &pk, &pv, &pdo, &pst, &pcu, &pcu_k, &pdk, &pdv, &dims)?;
                }
            } else {
                launch!(self.gpu, &self.main, grid = (max_k.div_ceil(BWD_BKV), d.kv_heads as u32, batch), &pq, &pk, &pv, &pdo, &pst, &pcu, &pcu_k, &pacc, &pdk, &pdv, &dims)?;
            }
            if !atomic {
                // b2's dQ kernel: one CTA per 64 query rows of a head and sequence (b3's: 128, and with the
                // causal mask a block and its mirror per CTA).
                let n = if self.wgmma { (lens.max_q as u32).div_ceil(BWD_H_ROWS) } else { (lens.max_q as u32).div_ceil(BWD_DQ_BQ) };
                let n = if self.wgmma && d.causal { n.div_ceil(2) } else { n };
                if lens.max_q > 0 {
                    launch!(self.gpu, &self.convert, grid = (n, d.heads as u32, batch), &pq, &pk, &pv, &pdo, &pst, &pcu, &pcu_k, &pdq, &dims)?;
                }
            } else if matches!(self.acc_layout, DqAcc::TileBlocks { .. }) && lens.max_q > 0 {
                // b4's, b6's or b8's conversion: a CTA per padded 64-row tile of a sequence and head.
                launch!(self.gpu, &self.convert, grid = ((lens.max_q as u32).div_ceil(BWD_H_STREAM), d.heads as u32, batch), &pacc, &pcu, &pcu_k, &pdq, &dims)?;
            } else if self.acc_layout == DqAcc::QLayout && q_elems > 0 {
                let (blocks, n, scale) = ((q_elems as u32 / 4).div_ceil(256).min(8 * self.gpu.info.sms), q_elems as u32, d.scale());
                launch!(self.gpu, &self.convert, grid = blocks, &pacc, &pdq, &n, &scale)?;
            }
        }
        Ok(lens)
    }
}

/// The backward in f64 on the CPU (the tests' reference), token-major: from `q` `[tokens_q][heads][D]`,
/// `k`, `v` `[tokens_k][kv_heads][D]` and `d_o` (Q's layout), returns (dQ, dK, dV), recomputing the
/// softmax exactly (offsets checked by [`Lens::new`] first).
pub fn reference_f64(desc: &BackwardDesc, cu_q: &[u32], cu_k: &[u32], q: &[f32], k: &[f32], v: &[f32], d_o: &[f32]) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (h, hk, d) = (desc.heads, desc.kv_heads, desc.head_dim);
    let (tq, tk) = (*cu_q.last().unwrap_or(&0) as usize, *cu_k.last().unwrap_or(&0) as usize);
    let (mut dq, mut dk, mut dv) = (vec![0.0; tq * h * d], vec![0.0; tk * hk * d], vec![0.0; tk * hk * d]);
    let scale = desc.scale() as f64;
    let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(&x, &y)| x as f64 * y as f64).sum::<f64>();
    for b in 0..cu_q.len().saturating_sub(1) {
        let (q0, ql) = (cu_q[b] as usize, (cu_q[b + 1] - cu_q[b]) as usize);
        let (k0, kl) = (cu_k[b] as usize, (cu_k[b + 1] - cu_k[b]) as usize);
        for t in 0..ql {
            for head in 0..h {
                let kh = head / (h / hk);
                let keys = if desc.causal { t + 1 + (kl - ql) } else { kl };
                let row = ((q0 + t) * h + head) * d;
                let (qr, dor) = (&q[row..row + d], &d_o[row..row + d]);
                let kr = |j: usize| ((k0 + j) * hk + kh) * d;
                let s: Vec<f64> = (0..keys).map(|j| dot(qr, &k[kr(j)..kr(j) + d]) * scale).collect();
                let m = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let e: Vec<f64> = s.iter().map(|&x| (x - m).exp()).collect();
                let sum: f64 = e.iter().sum();
                let p: Vec<f64> = e.iter().map(|x| x / sum).collect();
                // dP_j = dO · V_j; D = Σ_j P_j dP_j (= dO · O); dS_j = P_j (dP_j − D).
                let dp: Vec<f64> = (0..keys).map(|j| dot(dor, &v[kr(j)..kr(j) + d])).collect();
                let delta: f64 = p.iter().zip(&dp).map(|(a, b)| a * b).sum();
                for j in 0..keys {
                    let ds = p[j] * (dp[j] - delta) * scale;
                    for c in 0..d {
                        dq[row + c] += ds * k[kr(j) + c] as f64;
                        dk[kr(j) + c] += ds * qr[c] as f64;
                        dv[kr(j) + c] += p[j] * dor[c] as f64;
                    }
                }
            }
        }
    }
    (dq, dk, dv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_input_is_named_before_anything_runs() {
        assert!(BackwardDesc::new(8, 8, 96).validate().unwrap_err().to_string().contains("head dim 96 is not supported"));
        assert!(BackwardDesc::new(8, 3, 64).validate().unwrap_err().to_string().contains("attention backward: kv_heads = 3 does not divide"));
        let hm = BackwardDesc::new(4, 2, 64).with_order(Order::HeadMajor);
        assert!(hm.lens(&[0, 5, 9], &[0, 5, 10]).unwrap_err().to_string().contains("sequence 1 has 4 query tokens but sequence 0 has 5"));
        assert!(hm.lens(&[0, 5, 10], &[0, 7, 15]).unwrap_err().to_string().contains("sequence 1 has 8 key tokens"));
        assert!(BackwardDesc::new(4, 2, 64).causal().lens(&[0, 6], &[0, 5]).unwrap_err().to_string().contains("attention backward: sequence 0 has 6 queries but 5 keys"));
    }

    /// b4's TMA view of Q: every element of every sequence and head is coordinate (c, h, y0 + t) with y0 =
    /// cu_q[b]·heads·D / q_tok, inside the view's extents, and the view's last element inside Q.
    #[test]
    fn b4_query_map_covers_both_orders() {
        for (order, cq) in [(Order::TokenMajor, std::vec![0u32, 3, 70, 70, 200]), (Order::HeadMajor, std::vec![0u32, 50, 100, 150])] {
            for d in [64u64, 128] {
                let desc = BackwardDesc::new(4, 2, d as usize).with_order(order);
                let lens = desc.lens(&cq, &cq).unwrap();
                let dm = desc.dims(&lens, &cq, &cq);
                let q_elems = (lens.tokens_q * 4) as u64 * d;
                let ([dd, heads, rows], [sh, st]) = b4_query_map(&dm, d, q_elems);
                assert_eq!((dd, heads, sh, st), (d, 4, 2 * dm.q_head as u64, 2 * dm.q_tok as u64));
                assert!((rows - 1) * dm.q_tok as u64 + (heads - 1) * dm.q_head as u64 + d <= q_elems, "{order:?} d {d}: the view ends inside Q");
                for b in 0..cq.len() - 1 {
                    let y0 = cq[b] as u64 * 4 * d / dm.q_tok as u64;
                    for t in 0..(cq[b + 1] - cq[b]) as u64 {
                        for h in 0..4u64 {
                            let elem = cq[b] as u64 * 4 * d + h * dm.q_head as u64 + t * dm.q_tok as u64;
                            assert_eq!(elem, h * dm.q_head as u64 + (y0 + t) * dm.q_tok as u64, "{order:?} b {b} t {t} h {h}");
                            assert!(y0 + t < rows, "{order:?} d {d} b {b} t {t}: row {} of {rows}", y0 + t);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn strides_address_both_orders() {
        // Head-major 2 × 4 heads × 10 × 64 (K: 2 heads × 12): query head 3 of sequence 1, token 7 is at
        // ((1·4 + 3)·10 + 7)·64; token-major at ((10 + 7)·4 + 3)·64.
        let (cq, ck) = ([0u32, 10, 20], [0u32, 12, 24]);
        for (order, want_q, want_k, want_lse) in [(Order::HeadMajor, ((4 + 3) * 10 + 7) * 64, ((2 + 1) * 12 + 5) * 64, (4 + 3) * 10 + 7),
                                                  (Order::TokenMajor, ((10 + 7) * 4 + 3) * 64, ((12 + 5) * 2 + 1) * 64, (10 + 7) * 4 + 3)] {
            let desc = BackwardDesc::new(4, 2, 64).with_order(order);
            let lens = desc.lens(&cq, &ck).unwrap();
            let dm = desc.dims(&lens, &cq, &ck);
            assert_eq!(cq[1] * 4 * 64 + 7 * dm.q_tok + 3 * dm.q_head, want_q, "{order:?}");
            assert_eq!(ck[1] * 2 * 64 + 5 * dm.k_tok + dm.k_head, want_k, "{order:?}");
            assert_eq!(cq[1] * 4 + 7 * dm.lse_tok + 3 * dm.lse_head, want_lse, "{order:?}");
            assert_eq!((dm.group, dm.tokens_q), (2, 20));
        }
    }

    #[test]
    fn the_reference_gradients_match_finite_differences() {
        // L = Σ dO ∘ O for a small causal GQA case: dL/dq, dL/dk, dL/dv by central differences of the
        // prefill reference's O.
        let desc = BackwardDesc::new(2, 1, 64).causal().with_scale(0.3);
        let pd = PrefillDesc::new(2, 1, 64).causal().with_scale(0.3);
        let (cq, ck) = ([0u32, 2, 3], [0u32, 3, 5]);
        let mut rng = crate::runtime::verify::rng(7);
        let mut r = |n: usize| -> Vec<f32> { (0..n).map(|_| rand::Rng::random_range(&mut rng, -1.0f32..1.0)).collect() };
        let (q, k, v, d_o) = (r(3 * 2 * 64), r(5 * 64), r(5 * 64), r(3 * 2 * 64));
        let (dq, dk, dv) = reference_f64(&desc, &cq, &ck, &q, &k, &v, &d_o);
        let loss = |q: &[f32], k: &[f32], v: &[f32]| -> f64 {
            let (o, _) = super::super::prefill::reference_f64(&pd, &cq, &ck, q, k, v);
            o.iter().zip(&d_o).map(|(a, &b)| a * b as f64).sum()
        };
        let eps = 1e-2f32;
        for (which, grad) in [(0, &dq), (1, &dk), (2, &dv)] {
            for idx in [0usize, 65, 130, 200] {
                let mut x = [q.clone(), k.clone(), v.clone()];
                if idx >= x[which].len() {
                    continue;
                }
                x[which][idx] += eps;
                let up = loss(&x[0], &x[1], &x[2]);
                x[which][idx] -= 2.0 * eps;
                let down = loss(&x[0], &x[1], &x[2]);
                let fd = (up - down) / (2.0 * eps as f64);
                assert!((fd - grad[idx]).abs() < 1e-3 * (1.0 + fd.abs()), "tensor {which} element {idx}: finite difference {fd}, reference {}", grad[idx]);
            }
        }
    }
}

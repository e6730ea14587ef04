//! Prefill attention (issue 49): a packed batch of sequences of different lengths, grouped-query heads,
//! queries that may be the last tokens of longer keys (chunked prefill against a cached prefix), the
//! causal mask aligned bottom-right. The kernels (Hopper) are a26 at head dim 128
//! (`kernels-gpu/src/attention/steps/v26_prefill_persistent.rs`: a19 persistent over the host's units), a29 at
//! 96 (`steps/v38_prefill_d96.rs`: a26 with S over the head's 96 dims), a27
//! at 64 (`steps/v30_prefill_pingpong.rs`: a26 with its warpgroups taking turns at the tensor cores) and
//! a31 at 256 (`steps/v39_prefill_d256_cross_unit.rs`: a28 — a25's persistent walk on 80-key tiles — with each
//! unit's first S under the last unit's last P·V; a25, a28 by [`PrefillPlan::with_kernel`]); one CTA a tile
//! (a19, a24) on request ([`PrefillSchedule`]).
//!
//! ```text
//! q, o     [tokens_q][heads][D]       16-bit (f16 or bf16), packed: no padding between sequences
//! k, v     [tokens_k][kv_heads][D]    16-bit
//! lse      [tokens_q][heads]          f32, natural log-sum-exp of each row's scores
//! cu_q     [batch + 1]                host: sequence b's queries are tokens cu_q[b]..cu_q[b + 1]
//! cu_k     [batch + 1]                host: its keys are tokens cu_k[b]..cu_k[b + 1]
//! ```
//! With the causal mask, query `t` of a sequence's `q_len` sees keys `0..=t + k_len − q_len`
//! (FlashAttention's bottom-right alignment; `q_len = k_len` is the ordinary causal mask), which needs
//! `k_len ≥ q_len`. Without it every query sees all `k_len` keys. A sequence with no queries is
//! skipped; one with queries needs at least one key.
//!
//! The offsets are taken on the host, checked there, and copied to the plan's device buffer on the
//! stream before the launch (so every rule above is checked before anything runs).
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

use layout::{
    attention::{A6_BKV, A6_BQ, A7_STAGES, A11_BQ, A24_BKV, A28_BKV, PrefillDims, a6_smem, a11_smem, a12_smem, a24_smem, a25_smem_of, kv_tiles_off},
    hopper::TmaSwizzle,
};

use crate::{
    error::{DriverContext, Error, Result},
    gemm::{Element, launch::Operand},
    launch,
    runtime::{
        gpu::{Gpu, Kernel},
        tma::TensorMap3d,
    },
    steps::{Target, gemm::Elem},
};

/// Head dims the prefill kernels take (96 runs in the 128 kernel; 256 in a24).
pub const HEAD_DIMS: [usize; 4] = [64, 96, 128, 256];

/// One prefill problem's heads and mask (the lengths come with each run).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrefillDesc {
    /// Query heads.
    pub heads: usize,
    /// K/V heads (dividing `heads`).
    pub kv_heads: usize,
    /// Head dim: 64, 96, 128 or 256.
    pub head_dim: usize,
    /// Causal mask, aligned bottom-right.
    pub causal: bool,
    /// Softmax scale; `None`: `1/√head_dim`.
    pub scale: Option<f32>,
}

impl PrefillDesc {
    /// Non-causal, the default scale.
    pub fn new(heads: usize, kv_heads: usize, head_dim: usize) -> PrefillDesc {
        PrefillDesc { heads, kv_heads, head_dim, causal: false, scale: None }
    }

    /// The same with the causal mask.
    pub fn causal(self) -> PrefillDesc {
        PrefillDesc { causal: true, ..self }
    }

    /// The same with softmax scale `scale`.
    pub fn with_scale(self, scale: f32) -> PrefillDesc {
        PrefillDesc { scale: Some(scale), ..self }
    }

    /// Query heads per K/V head.
    pub fn group(&self) -> usize {
        self.heads / self.kv_heads.max(1)
    }

    /// The softmax scale used.
    pub fn scale(&self) -> f32 {
        self.scale.unwrap_or(1.0 / (self.head_dim as f32).sqrt())
    }

    /// The kernel width serving this head dim (64, 128 or 256).
    pub fn width(&self) -> usize {
        if self.head_dim <= 64 {
            64
        } else if self.head_dim <= 128 {
            128
        } else {
            256
        }
    }

    /// The kernel serving this head dim for element suffix `e` (`f16`, `bf16`) and `schedule`: a19 (one CTA
    /// a tile) or the persistent a27 (width 64: a26 with ping-pong turns, 1.05–1.06× a26 there), a29 at
    /// head dim 96 (a26 with S over 96 dims, 1.05–1.11× a26 there, session 93) and a26 at 128 (where the
    /// turns lost: 0.89–0.94×), a24 or a31 at 256 (a31: a28 — a25 with 80-key tiles, 1.03–1.06× a25 without
    /// the mask — with each unit's first S under the last unit's last P·V: 1.04–1.08× a28 at ≥ 2048 tokens,
    /// 0.98× at 8 × 512–1024 causal; session 93).
    pub fn kernel_name(&self, e: &str, schedule: PrefillSchedule) -> Result<String> {
        match (self.width(), schedule) {
            (256, PrefillSchedule::MmaSync) => Err(Error::InvalidInput(format!(
                "prefill attention: head dim {} has no `mma.sync` kernel (a33 takes 64–128: O of 256 columns does not fit its registers); \
                 it runs on Hopper (sm_90a) only", self.head_dim))),
            (128, PrefillSchedule::MmaSync) if self.head_dim <= 96 => Ok(format!("attn_a33_d96_{e}")),
            (w, PrefillSchedule::MmaSync) => Ok(format!("attn_a33_d{w}_{e}")),
            (256, PrefillSchedule::CtaPerTile) => Ok(format!("attn_a24_d256_{e}")),
            (256, PrefillSchedule::Persistent) => Ok(format!("attn_a31_d256_{e}")),
            (w, PrefillSchedule::CtaPerTile) => Ok(format!("attn_a19_d{w}_{e}")),
            (64, PrefillSchedule::Persistent) => Ok(format!("attn_a27_d64_{e}")),
            (128, PrefillSchedule::Persistent) if self.head_dim <= 96 => Ok(format!("attn_a29_d96_{e}")),
            (w, PrefillSchedule::Persistent) => Ok(format!("attn_a26_d{w}_{e}")),
        }
    }

    /// Keys per K/V tile of the library's persistent kernel (a31: 80, a26/a27/a29: 128): [`kv_tile_rows`] of
    /// [`PrefillDesc::kernel_name`]'s kernel.
    fn persistent_kv_rows(&self) -> u32 {
        if self.width() == 256 { A28_BKV } else { A6_BKV }
    }

    /// Checks the heads, head dim and scale, naming the rule broken.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidInput(format!("prefill attention: {m}")));
        if self.heads == 0 || self.kv_heads == 0 {
            return bad(format!("heads = {} and kv_heads = {} must both be at least 1", self.heads, self.kv_heads));
        }
        if self.heads % self.kv_heads != 0 {
            return bad(format!("kv_heads = {} does not divide heads = {}", self.kv_heads, self.heads));
        }
        if self.heads > 65_535 {
            return bad(format!("heads = {} exceeds 65535 (the grid's y)", self.heads));
        }
        if !HEAD_DIMS.contains(&self.head_dim) {
            return bad(format!("head dim {} is not supported: the prefill kernels take {HEAD_DIMS:?}", self.head_dim));
        }
        if !self.scale().is_finite() {
            return bad(format!("scale {} is not finite", self.scale()));
        }
        Ok(())
    }
}

/// How a prefill launch spreads its (sequence, query tile, head) units over the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrefillSchedule {
    /// One CTA per unit, the grid `(⌈max q_len / 128⌉, heads, batch)`, each sequence's longest tiles
    /// first (a19; a24 at head dim 256).
    CtaPerTile,
    /// One CTA per SM walking the units the host sorted by key tiles, most first, in snake order; the
    /// K/V ring runs on across units (a26; a31 at head dim 256).
    Persistent,
    /// One CTA per unit as [`PrefillSchedule::CtaPerTile`], on `mma.sync` (a33: FlashAttention-2's tiles,
    /// sm_80): any GPU from compute capability 8.0, head dims 64–128 — the library's choice where `sm_90a`
    /// does not run.
    MmaSync,
}

impl PrefillSchedule {
    /// The library's choice for `desc`: persistent at every head dim (a26 measured 1.01–1.04× a19 without
    /// the mask and 1.06–1.23× with it on issue 49's D ≤ 128 shapes, session 63; a25 0.98–1.41× a24).
    pub fn default_for(_desc: &PrefillDesc) -> PrefillSchedule {
        PrefillSchedule::Persistent
    }

    /// The library's choice for `desc` on `gpu`: [`PrefillSchedule::default_for`] where the GPU runs the
    /// Hopper kernels (`sm_90a`), else [`PrefillSchedule::MmaSync`].
    pub fn for_gpu(gpu: &Gpu, desc: &PrefillDesc) -> PrefillSchedule {
        if gpu.runs(Target::Sm90a) { PrefillSchedule::default_for(desc) } else { PrefillSchedule::MmaSync }
    }
}

/// How a persistent launch orders its (sequence, query tile, head) units; the kernel's CTAs take them in a
/// static snake (`layout::attention::a25_unit`: unit `round · grid + cta`, the CTA order reversed on odd rounds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitOrder {
    /// Every unit by the key tiles it walks, most first (sessions 62–76). Balanced, but with the causal mask
    /// the units running at once are one query tile of every head: without grouped heads each reads its own
    /// K and V, so long batches stream K/V from HBM once a unit.
    MostWorkFirst,
    /// Each (sequence, head)'s query tiles paired longest with shortest (with the causal mask every pair of a
    /// sequence walks the same key tiles); a CTA takes both tiles of a pair in consecutive rounds; pairs by
    /// their work, most first, then sequence, K/V head, tile and head — so the units in flight come from a few
    /// heads, whose K/V stay in the L2. The last two rounds of pairs and an odd middle tile as single units,
    /// most work first (the tail balanced finely). Fewer than three rounds of pairs: [`UnitOrder::MostWorkFirst`].
    Paired,
}

impl UnitOrder {
    /// The library's order for `desc`: paired with the causal mask, most work first without it. Measured
    /// (session 77, H200, the same kernel in the same process, 3 processes): with the mask paired ran
    /// 1.00–1.22× most work first where heads are not grouped (16/16 and 32/32 heads at 2k–8k tokens:
    /// 1.05–1.22×, the units in flight reading 5 K/V heads instead of ~126), 1.04–1.07× at D = 256 (16/8),
    /// 0.98–1.03× with 8-way groups; without the mask (most work first already walks head by head there)
    /// paired ran 0.97–1.00×.
    pub fn default_for(desc: &PrefillDesc) -> UnitOrder {
        if desc.causal { UnitOrder::Paired } else { UnitOrder::MostWorkFirst }
    }
}

/// Keys per K/V tile of a prefill kernel — its K/V tensor maps' box rows and the tiles its persistent work
/// list counts: a24 and a25 64, a28 and a31 80, a19, a26, a27 and a29 128 (by the step in its name).
pub fn kv_tile_rows(kernel: &str) -> u32 {
    if kernel.starts_with("attn_a28_") || kernel.starts_with("attn_a31_") {
        A28_BKV
    } else if kernel.starts_with("attn_a24_") || kernel.starts_with("attn_a25_") {
        A24_BKV
    } else {
        A6_BKV
    }
}

/// Dynamic shared memory of a prefill kernel of kernel width `width` launched by `schedule` with K/V tiles
/// of `kv_rows` keys ([`kv_tile_rows`]).
fn prefill_smem(width: usize, schedule: PrefillSchedule, kv_rows: u32) -> u32 {
    match (width, schedule) {
        (256, PrefillSchedule::Persistent) => a25_smem_of(kv_rows),
        (256, _) => a24_smem(),
        (w, PrefillSchedule::Persistent) => a12_smem(w as u32),
        (w, PrefillSchedule::MmaSync) => a11_smem(w as u32),
        (w, _) => a6_smem(w as u32, A7_STAGES),
    }
}

/// [`PrefillPlan::with_kernel`]'s rule: `kernel` a registered prefill entry of `desc`'s width and element
/// suffix `e`, with the threads of the library's kernel for `schedule` and the shared memory that
/// schedule's layout takes at the kernel's key tile (so it takes that kernel's parameters and launch).
fn named_kernel_fits(desc: &PrefillDesc, e: &str, schedule: PrefillSchedule, kernel: &str) -> Result<()> {
    let default = desc.kernel_name(e, schedule)?;
    let bad = |m: String| Err(Error::InvalidInput(format!("prefill attention: kernel `{kernel}` {m}")));
    let Some(info) = crate::steps::attention::PREFILL.iter().find(|k| k.name == kernel) else {
        return bad("is not a prefill step (steps::attention::PREFILL)".into());
    };
    let want = crate::steps::find(&default).expect("the library's prefill kernels are registered");
    // The head dims the kernel serves (`_d{N}_`: at most N, in N's kernel width; a29's 96 in the 128 layout).
    let serves = kernel.strip_suffix(&format!("_{e}")).and_then(|k| k.rsplit_once("_d")).and_then(|(_, n)| n.parse::<usize>().ok())
                       .is_some_and(|n| n >= desc.head_dim && PrefillDesc { head_dim: n, ..*desc }.width() == desc.width());
    if !serves || info.block_threads != want.block_threads
       || info.dyn_smem_bytes != prefill_smem(desc.width(), schedule, kv_tile_rows(kernel))
    {
        return bad(format!("is not launched as {schedule:?}'s `{default}` (head dim {}, {e}): its head dims, width, element type, threads or shared memory differ",
                           desc.head_dim));
    }
    Ok(())
}

/// The persistent kernels' (a25–a31) work list for `grid` CTAs: every (query tile, head) of every sequence as
/// `[sequence, query tile, head]`, in `order` ([`UnitOrder`]). Most work first, the static snake balances
/// only a list whose work never rises: ordered sequence by sequence instead (for L2), the list is a saw and
/// a25 ran 0.79× a24 at 8×16×8×2048 causal (session 62, call 4). Among equals the order keeps the units of
/// one K/V head side by side: ordered tile by tile with every head, a25 ran 0.97–0.98× a24 at 1×16×8×8192
/// without the mask (call 2). Sequences with no queries have no units. (`Lens::new` checked the offsets
/// first.)
pub fn persistent_units(desc: &PrefillDesc, cu_q: &[u32], cu_k: &[u32], order: UnitOrder, grid: u32) -> Vec<u32> {
    persistent_units_of(desc, cu_q, cu_k, order, grid, desc.persistent_kv_rows())
}

/// [`persistent_units`] for a kernel whose key tiles hold `kv_rows` keys ([`kv_tile_rows`]: a28's and a31's 80).
pub fn persistent_units_of(desc: &PrefillDesc, cu_q: &[u32], cu_k: &[u32], order: UnitOrder, grid: u32, kv_rows: u32) -> Vec<u32> {
    let group = desc.group().max(1);
    // A unit: (its work, sequence, K/V head, tile, head); equals by sequence, K/V head, tile and head.
    type Unit = (u32, u32, usize, u32, u32);
    let by_work = |x: &Unit, y: &Unit| y.0.cmp(&x.0).then((x.1, x.2, x.3, x.4).cmp(&(y.1, y.2, y.3, y.4)));
    let mut units: Vec<Unit> = vec![];
    // Paired: (the pair's work, its long unit, its short unit)
    let mut pairs: Vec<(u32, Unit, Unit)> = vec![];
    for b in 0..cu_q.len().saturating_sub(1) {
        let (q_len, k_len) = (cu_q[b + 1] - cu_q[b], cu_k[b + 1] - cu_k[b]);
        let off = if desc.causal { k_len.saturating_sub(q_len) } else { 0 };
        let qtiles = q_len.div_ceil(A6_BQ);
        for qt in 0..qtiles {
            for head in 0..desc.heads as u32 {
                let unit = |qt| (kv_tiles_off(k_len, A6_BQ, kv_rows, qt, desc.causal, off), b as u32, head as usize / group, qt, head);
                let mirror = qtiles - 1 - qt;
                if order == UnitOrder::Paired && qt < mirror {
                    let (short, long) = (unit(qt), unit(mirror));
                    pairs.push((short.0 + long.0, long, short));
                } else if order == UnitOrder::MostWorkFirst || qt == mirror {
                    units.push(unit(qt));
                }
            }
        }
    }
    // Pairs by their work, most first; equals by the short unit's sequence, K/V head, tile and head (the
    // pairs nearest the middle of a sequence last: the tail's single units then balance finely).
    pairs.sort_by(|x, y| y.0.cmp(&x.0).then((x.2.1, x.2.2, x.2.3, x.2.4).cmp(&(y.2.1, y.2.2, y.2.3, y.2.4))));
    let w = grid.max(1) as usize;
    let rounds = (pairs.len() / w).saturating_sub(2);
    // Pair round r: CTA c's pair (a snake over the pairs, as over units), its long tile in round 2r (CTA c
    // at position c) and its short one in round 2r + 1 (odd: CTA c at position w − 1 − c).
    let mut out = vec![[0u32; 3]; 2 * rounds * w];
    for r in 0..rounds {
        for c in 0..w {
            let (_, long, short) = pairs[r * w + if r % 2 == 0 { c } else { w - 1 - c }];
            out[2 * r * w + c] = [long.1, long.3, long.4];
            out[(2 * r + 1) * w + (w - 1 - c)] = [short.1, short.3, short.4];
        }
    }
    units.extend(pairs[rounds * w..].iter().flat_map(|&(_, long, short)| [long, short]));
    units.sort_by(by_work);
    out.into_iter().flatten().chain(units.into_iter().flat_map(|(_, b, _, qt, head)| [b, qt, head])).collect()
}

/// The lengths of one run, from the host offsets: checked by [`Lens::new`].
#[derive(Clone, Debug, PartialEq)]
pub struct Lens {
    /// Sequences.
    pub batch: usize,
    /// Query tokens in all.
    pub tokens_q: usize,
    /// Key tokens in all.
    pub tokens_k: usize,
    /// The longest sequence's queries.
    pub max_q: usize,
    /// Query-key pairs the mask keeps, summed over sequences (one head): the work, for TFLOP/s.
    pub pairs: f64,
}

impl Lens {
    /// Checks `cu_q` and `cu_k` (`batch + 1` offsets each, from 0, non-decreasing) against the mask:
    /// a sequence with queries has keys, and with the causal mask at least as many keys as queries.
    pub fn new(desc: &PrefillDesc, cu_q: &[u32], cu_k: &[u32]) -> Result<Lens> {
        let bad = |m: String| Err(Error::InvalidInput(format!("prefill attention: {m}")));
        if cu_q.len() < 2 || cu_q.len() != cu_k.len() {
            return bad(format!("cu_seqlens_q holds {} offsets and cu_seqlens_k {}: both need batch + 1 ≥ 2", cu_q.len(), cu_k.len()));
        }
        let batch = cu_q.len() - 1;
        if batch > 65_535 {
            return bad(format!("batch = {batch} exceeds 65535 (the grid's z)"));
        }
        if cu_q[0] != 0 || cu_k[0] != 0 {
            return bad(format!("cu_seqlens must start at 0 (q starts at {}, k at {})", cu_q[0], cu_k[0]));
        }
        let (mut max_q, mut pairs) = (0usize, 0f64);
        for b in 0..batch {
            let (q0, q1, k0, k1) = (cu_q[b], cu_q[b + 1], cu_k[b], cu_k[b + 1]);
            if q1 < q0 || k1 < k0 {
                return bad(format!("cu_seqlens not non-decreasing at sequence {b}: q {q0}..{q1}, k {k0}..{k1}"));
            }
            let (ql, kl) = ((q1 - q0) as usize, (k1 - k0) as usize);
            if ql > 0 && kl == 0 {
                return bad(format!("sequence {b} has {ql} queries and no keys"));
            }
            if desc.causal && kl < ql {
                return bad(format!("sequence {b} has {ql} queries but {kl} keys: the causal mask (bottom-right) needs keys ≥ queries"));
            }
            max_q = max_q.max(ql);
            pairs += if desc.causal { (ql * (kl - ql)) as f64 + (ql * (ql + 1) / 2) as f64 } else { (ql * kl) as f64 };
        }
        let (tokens_q, tokens_k) = (cu_q[batch] as usize, cu_k[batch] as usize);
        // 3-D TMA coordinates are signed 32-bit: a box starts up to 128 rows past a sequence's start.
        if tokens_q.max(tokens_k) + 2 * A6_BQ as usize > i32::MAX as usize {
            return bad(format!("{} tokens exceed the TMA coordinates' 2^31", tokens_q.max(tokens_k)));
        }
        Ok(Lens { batch, tokens_q, tokens_k, max_q, pairs })
    }

    /// Floating-point operations of the run (4 · pairs · heads · D: Q·Kᵀ and P·V).
    pub fn flops(&self, desc: &PrefillDesc) -> f64 {
        4.0 * self.pairs * (desc.heads * desc.head_dim) as f64
    }
}

super::by_value_param!(DimsParam, PrefillDims, "[`PrefillDims`] as a by-value kernel parameter (20 bytes).");

/// The three tensor maps of one (Q, K, V, tokens) (encoded once, reused while they stay the same).
struct Maps {
    key: (u64, u64, u64, usize, usize),
    q: TensorMap3d,
    k: TensorMap3d,
    v: TensorMap3d,
}

/// Prefill attention for one [`PrefillDesc`] and element type `T` (`half::f16`, `half::bf16`): the
/// kernel loaded once, the offsets' device buffer grown as needed, the tensor maps kept for the last
/// operands; everything enqueued on the [`Gpu`]'s stream, nothing synchronizes.
pub struct PrefillPlan<T: Element> {
    gpu: Gpu,
    desc: PrefillDesc,
    schedule: PrefillSchedule,
    kernel: Kernel,
    cu: Option<CudaSlice<i32>>,
    /// The persistent kernel's work list (`persistent_units_of`), grown as needed.
    tiles: Option<CudaSlice<u32>>,
    /// Persistent: at most this many CTAs (default: one per SM).
    max_ctas: Option<u32>,
    /// The persistent work list's order (`None`: [`UnitOrder::default_for`]).
    order: Option<UnitOrder>,
    maps: Option<Maps>,
    _elem: std::marker::PhantomData<T>,
}

impl<T: Element> PrefillPlan<T> {
    /// Validates `desc` and loads the kernel the GPU runs ([`PrefillSchedule::for_gpu`]: the Hopper kernels,
    /// else a33 on `mma.sync`): refused before anything runs, naming the rule (an element type other than
    /// f16/bf16, a head dim not built, head dim 256 on a GPU that does not run `sm_90a`).
    pub fn new(gpu: &Gpu, desc: PrefillDesc) -> Result<Self> {
        Self::with_schedule(gpu, desc, PrefillSchedule::for_gpu(gpu, &desc))
    }

    /// [`PrefillPlan::new`] with the schedule given (refused where it has no kernel: persistent below
    /// head dim 256).
    pub fn with_schedule(gpu: &Gpu, desc: PrefillDesc, schedule: PrefillSchedule) -> Result<Self> {
        let e = super::half_suffix::<T>("prefill attention")?;
        desc.validate()?;
        Self::loading(gpu, desc, schedule, &desc.kernel_name(e, schedule)?)
    }

    /// The plan of a checked `desc` launching `kernel` by `schedule` (its kernel loaded here, once).
    fn loading(gpu: &Gpu, desc: PrefillDesc, schedule: PrefillSchedule, kernel: &str) -> Result<Self> {
        let kernel = gpu.kernel(kernel)?;
        Ok(PrefillPlan { gpu: gpu.clone(), desc, schedule, kernel, cu: None, tiles: None, max_ctas: None, order: None, maps: None,
                        _elem: std::marker::PhantomData })
    }

    /// [`PrefillPlan::with_schedule`] running `kernel`, a named prefill step, in place of the library's
    /// kernel for `schedule` (ladders and benchmarks: `kernel-lab prefill --kernel`). Refused unless
    /// `kernel` is a registered prefill entry (`steps::attention::PREFILL`) of `desc`'s kernel width and
    /// `T`, launched as the schedule's kernel is (its threads and shared memory).
    pub fn with_kernel(gpu: &Gpu, desc: PrefillDesc, schedule: PrefillSchedule, kernel: &str) -> Result<Self> {
        let e = super::half_suffix::<T>("prefill attention")?;
        desc.validate()?;
        named_kernel_fits(&desc, e, schedule, kernel)?;
        Self::loading(gpu, desc, schedule, kernel)
    }

    /// Persistent: launch at most `n ≥ 1` CTAs (default one per SM; fewer make each CTA walk more
    /// units — the tests use it).
    pub fn set_max_ctas(&mut self, n: u32) -> Result<()> {
        if n == 0 {
            return Err(Error::InvalidInput("prefill attention: max CTAs must be at least 1".into()));
        }
        self.max_ctas = Some(n);
        Ok(())
    }

    /// Persistent: the order of the work list (default [`UnitOrder::default_for`] the problem).
    pub fn set_unit_order(&mut self, order: UnitOrder) {
        self.order = Some(order);
    }

    /// The schedule it launches with.
    pub fn schedule(&self) -> PrefillSchedule {
        self.schedule
    }

    /// The problem.
    pub fn desc(&self) -> PrefillDesc {
        self.desc
    }

    /// The kernel it runs.
    pub fn kernel(&self) -> &str {
        self.kernel.name()
    }

    /// Enqueues `o = softmax(q·kᵀ·scale [masked])·v` and each row's natural log-sum-exp into `lse` for
    /// the sequences `cu_q` / `cu_k` (host offsets, `batch + 1` each; see the module docs). Offsets,
    /// buffer lengths (at least the tokens' elements) and 16-byte alignment are checked before
    /// anything is enqueued. Returns the checked lengths.
    #[allow(clippy::too_many_arguments)]
    pub fn run<Q, K, V, O, L>(&mut self, q: &Q, k: &K, v: &V, cu_q: &[u32], cu_k: &[u32], o: &mut O, lse: &mut L) -> Result<Lens>
    where
        Q: DevicePtr<T>,
        K: DevicePtr<T>,
        V: DevicePtr<T>,
        O: DevicePtrMut<T>,
        L: DevicePtrMut<f32>,
    {
        let d = self.desc;
        let lens = Lens::new(&d, cu_q, cu_k)?;
        let (q_elems, kv_elems) = (lens.tokens_q * d.heads * d.head_dim, lens.tokens_k * d.kv_heads * d.head_dim);
        for (what, got, want) in [("Q", q.len(), q_elems), ("K", k.len(), kv_elems), ("V", v.len(), kv_elems), ("O", o.len(), q_elems),
                                  ("LSE", lse.len(), lens.tokens_q * d.heads)] {
            if got < want {
                return Err(Error::InvalidInput(format!("prefill attention {d:?}: {what} holds {got} elements, {want} needed for {} query and {} key tokens",
                                                       lens.tokens_q, lens.tokens_k)));
            }
        }
        if lens.max_q == 0 {
            return Ok(lens);
        }
        let stream = self.gpu.stream.clone();
        let (pq, _gq) = q.device_ptr(&stream);
        let (pk, _gk) = k.device_ptr(&stream);
        let (pv, _gv) = v.device_ptr(&stream);
        let (po, _go) = o.device_ptr_mut(&stream);
        let (pl, _gl) = lse.device_ptr_mut(&stream);
        let op = |ptr, len| Operand { ptr, len };
        Operand::require_aligned16(&[("Q", op(pq, 0)), ("K", op(pk, 0)), ("V", op(pv, 0)), ("O", op(po, 0)), ("LSE", op(pl, 0))], self.kernel.name(),
                                   || format!("prefill attention {d:?}: "))?;
        let (pcu, pcu_k) = upload_offsets(&self.gpu, &mut self.cu, cu_q, cu_k, "prefill attention")?;
        let dims = DimsParam(PrefillDims { heads: d.heads as u32, group: d.group() as u32, head_dim: d.head_dim as u32, causal: d.causal as u32, scale: d.scale() });
        if self.schedule == PrefillSchedule::MmaSync {
            let grid = ((lens.max_q as u32).div_ceil(A11_BQ), d.heads as u32, lens.batch as u32);
            debug_assert_eq!(self.kernel.info.dyn_smem_bytes, a11_smem(d.width() as u32));
            // SAFETY: `attn_a33_d{64,96,128}_{e}(q, k, v, o, lse, cu_q, cu_k, dims)` (96: S and O over 96 of the 128 layout's dims, head dim 96 only): Q and O hold tokens_q · heads ·
            // head_dim elements, K and V tokens_k · kv_heads · head_dim, LSE tokens_q · heads (checked above),
            // all 16-byte aligned (checked above; a row is heads · head_dim · 2 bytes, a multiple of 16 for
            // every head dim taken); the offsets are the checked `Lens` (batch + 1 each, from 0, non-decreasing,
            // ending at the token counts, every sequence's keys ≥ 1 where it has queries and ≥ its queries when
            // causal), copied ahead of the launch on this stream into a buffer nothing else writes; head_dim ≤
            // the kernel's width and a multiple of 8, heads = kv_heads · group (validated); grid (⌈max
            // q_len/128⌉, heads ≤ 65535, batch ≤ 65535), block and shared memory from the descriptor.
            unsafe { launch!(self.gpu, &self.kernel, grid = grid, &pq, &pk, &pv, &po, &pl, &pcu, &pcu_k, &dims)? };
            return Ok(lens);
        }
        // Tensor maps: (head dim, heads, tokens), boxes 64 × 1 × 128 (K and V: × the kernel's key tile, 64
        // or 80 at D = 256), encoded when the operands change.
        let key = (pq, pk, pv, lens.tokens_q, lens.tokens_k);
        if self.maps.as_ref().is_none_or(|m| m.key != key) {
            let bf16 = T::ELEM == Elem::Bf16;
            let dd = d.head_dim as u64;
            let map = |addr: u64, len: usize, heads: usize, tokens: usize, rows: u32| {
                TensorMap3d::encode_16bit_at(&self.gpu, addr, len, [dd, heads as u64, tokens as u64], [2 * dd, 2 * dd * heads as u64], [64, 1, rows],
                                             TmaSwizzle::B128, bf16)
            };
            let kv_rows = kv_tile_rows(self.kernel.name());
            self.maps = Some(Maps { key, q: map(pq, q.len(), d.heads, lens.tokens_q.max(1), A6_BQ)?,
                                    k: map(pk, k.len(), d.kv_heads, lens.tokens_k.max(1), kv_rows)?,
                                    v: map(pv, v.len(), d.kv_heads, lens.tokens_k.max(1), kv_rows)? });
        }
        let Some(m) = self.maps.as_ref() else { unreachable!("encoded above") };
        debug_assert_eq!(self.kernel.info.dyn_smem_bytes, prefill_smem(d.width(), self.schedule, kv_tile_rows(self.kernel.name())));
        if self.schedule == PrefillSchedule::Persistent {
            let units: u64 = cu_q.windows(2).map(|q| (q[1] - q[0]).div_ceil(A6_BQ) as u64 * d.heads as u64).sum();
            if units + u32::MAX as u64 / 2 > u32::MAX as u64 {
                return Err(Error::InvalidInput(format!("prefill attention {d:?}: {units} (query tile, head) units exceed 2^31")));
            }
            let ctas = (units as u32).min(self.gpu.info.sms.max(1)).min(self.max_ctas.unwrap_or(u32::MAX)).max(1);
            let tiles = persistent_units_of(&d, cu_q, cu_k, self.order.unwrap_or(UnitOrder::default_for(&d)), ctas, kv_tile_rows(self.kernel.name()));
            debug_assert_eq!(tiles.len() as u64, 3 * units);
            let ptiles = upload_grown(&self.gpu, &mut self.tiles, &tiles, || "prefill attention: copying the work list to the device".to_string())?;
            let units = units as u32;
            // SAFETY: `attn_a25/a28/a31_d256_{e}` / `attn_a29_d96_{e}` / `attn_a26_d128_{e}` / `attn_a27_d64_{e}(tmap_q, tmap_k, tmap_v, o,
            // lse, cu_q, cu_k, dims, tiles, units)`: as below for the maps, O, LSE and offsets (the K/V boxes of the kernel's
            // key tile, `kv_tile_rows`: a25 64, a28 80; a19's elsewhere); `tiles` holds the `3·units`
            // entries of `persistent_units` (every sequence < batch, tile inside its sequence, head < heads),
            // copied ahead of the launch on this stream into a buffer nothing else writes; units + the
            // grid < 2^32 (checked above); grid (n ≥ 1, 1, 1), block and shared memory from the descriptor.
            unsafe { launch!(self.gpu, &self.kernel, grid = (ctas, 1, 1), &m.q.dev, &m.k.dev, &m.v.dev, &po, &pl, &pcu, &pcu_k, &dims, &ptiles, &units)? };
            return Ok(lens);
        }
        let grid = ((lens.max_q as u32).div_ceil(A6_BQ), d.heads as u32, lens.batch as u32);
        if d.width() == 256 {
            // SAFETY: `attn_a24_d256_{e}`: as a19's below (its K/V boxes 64 × 1 × 64: `kv_tile_rows`);
            // it reads neither `tiles` nor `units`.
            unsafe { launch!(self.gpu, &self.kernel, grid = grid, &m.q.dev, &m.k.dev, &m.v.dev, &po, &pl, &pcu, &pcu_k, &dims, &0u64, &0u32)? };
            return Ok(lens);
        }
        // SAFETY: `attn_a19_d{64,128}_{e}` / `attn_a24_d256_{e}(tmap_q, tmap_k, tmap_v, o, lse, cu_q, cu_k,
        // dims)`: the maps were encoded for these very operands (addresses and token counts are the key) as
        // (head_dim, heads, tokens) with strides of a packed `[tokens][heads][D]` tensor, boxes 64 × 1 × 128
        // (K and V 64 × 1 × 64 for a24, `kv_tile_rows`) and the 128-byte
        // swizzle the kernel's descriptors assume, each buffer holding every element they reach (checked
        // by the encode); O and LSE hold tokens_q·heads·D and tokens_q·heads elements (checked above); the
        // offsets are the checked `Lens` (batch + 1 each, from 0, non-decreasing, ending at the token
        // counts, every sequence's keys ≥ 1 where it has queries and ≥ its queries when causal), copied
        // ahead of the launch on this stream into a buffer nothing else writes; head_dim ≤ the kernel's
        // width (chosen by it), heads = kv_heads · group (validated); grid (⌈max q_len/128⌉, heads ≤
        // 65535, batch ≤ 65535), block and shared memory from the descriptor; coordinates below 2^31.
        unsafe { launch!(self.gpu, &self.kernel, grid = grid, &m.q.dev, &m.k.dev, &m.v.dev, &po, &pl, &pcu, &pcu_k, &dims)? };
        Ok(lens)
    }
}

/// Copies the offsets `cu_q` then `cu_k` (i32) into `buf` (grown as needed), ordered on the GPU's stream
/// before whatever is enqueued next; returns the device addresses of the two arrays. `what` names the
/// caller in a copy error.
pub(crate) fn upload_offsets(gpu: &Gpu, buf: &mut Option<CudaSlice<i32>>, cu_q: &[u32], cu_k: &[u32], what: &str) -> Result<(u64, u64)> {
    let offsets: Vec<i32> = cu_q.iter().chain(cu_k).map(|&x| x as i32).collect();
    let p = upload_grown(gpu, buf, &offsets, || format!("{what}: copying the offsets to the device"))?;
    Ok((p, p + 4 * cu_q.len() as u64))
}

/// Copies `data` to the front of `buf` (reallocated when too short), ordered on the GPU's stream before
/// whatever is enqueued next; returns its device address. `what` names the copy in an error.
fn upload_grown<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(gpu: &Gpu, buf: &mut Option<CudaSlice<T>>, data: &[T],
                                                                                  what: impl FnOnce() -> String) -> Result<u64> {
    if buf.as_ref().is_none_or(|b| b.len() < data.len()) {
        *buf = Some(gpu.zeros::<T>(data.len())?);
    }
    let Some(b) = buf.as_mut() else { unreachable!("allocated above") };
    gpu.stream.memcpy_htod(data, &mut b.slice_mut(..data.len())).during(what)?;
    Ok(b.device_ptr(&gpu.stream).0)
}

/// Prefill attention in f64 on the CPU (the tests' reference): `q` `[tokens_q][heads][D]`, `k`, `v`
/// `[tokens_k][kv_heads][D]`, offsets `cu_q`, `cu_k` (checked by [`Lens::new`] first). Returns O (Q's
/// layout) and the natural LSE `[tokens_q][heads]`.
pub fn reference_f64(desc: &PrefillDesc, cu_q: &[u32], cu_k: &[u32], q: &[f32], k: &[f32], v: &[f32]) -> (Vec<f64>, Vec<f64>) {
    let (h, hk, d) = (desc.heads, desc.kv_heads, desc.head_dim);
    let tq = *cu_q.last().unwrap_or(&0) as usize;
    let (mut o, mut lse) = (vec![0.0; tq * h * d], vec![f64::NEG_INFINITY; tq * h]);
    let scale = desc.scale() as f64;
    for b in 0..cu_q.len().saturating_sub(1) {
        let (q0, ql) = (cu_q[b] as usize, (cu_q[b + 1] - cu_q[b]) as usize);
        let (k0, kl) = (cu_k[b] as usize, (cu_k[b + 1] - cu_k[b]) as usize);
        for t in 0..ql {
            for head in 0..h {
                let keys = if desc.causal { t + 1 + (kl - ql) } else { kl };
                let (row, l) = reference_row_f64(&q[((q0 + t) * h + head) * d..][..d], k, v, k0, keys, hk, head / (h / hk), scale);
                o[((q0 + t) * h + head) * d..][..d].copy_from_slice(&row);
                lse[(q0 + t) * h + head] = l;
            }
        }
    }
    (o, lse)
}

/// One query row `q` (head dim `q.len()`) attending to keys `k0 .. k0 + keys` of K/V head `kh` (of `kv_heads`)
/// of `k`, `v` (`[tokens][kv_heads][D]`), in f64: O's row and its natural log-sum-exp ([`reference_f64`]'s
/// row; the tests' reference at shapes too large for every row).
#[allow(clippy::too_many_arguments)]
pub fn reference_row_f64(q: &[f32], k: &[f32], v: &[f32], k0: usize, keys: usize, kv_heads: usize, kh: usize, scale: f64) -> (Vec<f64>, f64) {
    let d = q.len();
    let s: Vec<f64> = (0..keys).map(|j| {
        let kr = &k[((k0 + j) * kv_heads + kh) * d..][..d];
        q.iter().zip(kr).map(|(&a, &b)| a as f64 * b as f64).sum::<f64>() * scale
    }).collect();
    let m = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let p: Vec<f64> = s.iter().map(|&x| (x - m).exp()).collect();
    let sum: f64 = p.iter().sum();
    let mut out = vec![0.0; d];
    for (j, &pj) in p.iter().enumerate() {
        let vr = &v[((k0 + j) * kv_heads + kh) * d..][..d];
        for (x, &y) in out.iter_mut().zip(vr) {
            *x += pj / sum * y as f64;
        }
    }
    (out, m + sum.ln())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cu(lens: &[u32]) -> Vec<u32> {
        std::iter::once(0).chain(lens.iter().scan(0, |s, &l| {
            *s += l;
            Some(*s)
        })).collect()
    }

    #[test]
    fn bad_input_is_named_before_anything_runs() {
        let err = |r: Result<Lens>| r.err().map(|e| e.to_string()).unwrap_or_default();
        let d = PrefillDesc::new(32, 8, 128).causal();
        assert!(PrefillDesc::new(32, 6, 128).validate().unwrap_err().to_string().contains("does not divide"));
        assert!(PrefillDesc::new(32, 8, 80).validate().unwrap_err().to_string().contains("head dim 80"));
        assert!(PrefillDesc::new(32, 8, 192).validate().unwrap_err().to_string().contains("head dim 192"));
        assert!(PrefillDesc::new(16, 8, 256).validate().is_ok());
        assert!(PrefillDesc::new(32, 8, 64).with_scale(f32::NAN).validate().unwrap_err().to_string().contains("not finite"));
        assert!(err(Lens::new(&d, &cu(&[5, 3]), &cu(&[5, 2]))).contains("sequence 1 has 3 queries but 2 keys"));
        assert!(err(Lens::new(&d.with_scale(1.0), &[0, 4, 2], &[0, 4, 8])).contains("non-decreasing at sequence 1"));
        assert!(err(Lens::new(&PrefillDesc::new(4, 4, 64), &cu(&[3]), &cu(&[0]))).contains("no keys"));
        assert!(err(Lens::new(&d, &[1, 4], &[0, 4])).contains("start at 0"));
        assert!(err(Lens::new(&d, &[0, 4], &[0, 4, 8])).contains("batch + 1"));
        // Non-causal cross attention may have fewer keys than queries; an empty sequence is skipped.
        let l = Lens::new(&PrefillDesc::new(4, 2, 96), &cu(&[7, 0, 3]), &cu(&[2, 0, 9])).unwrap();
        assert_eq!((l.batch, l.tokens_q, l.tokens_k, l.max_q, l.pairs), (3, 10, 11, 7, 14.0 + 27.0));
    }

    #[test]
    fn each_head_dim_has_its_kernel_and_boxes() {
        let k = |d: usize, s| {
            let name = PrefillDesc::new(8, 2, d).kernel_name("bf16", s).unwrap();
            let rows = kv_tile_rows(&name);
            (name, rows)
        };
        use PrefillSchedule::{CtaPerTile, MmaSync, Persistent};
        assert_eq!(k(64, CtaPerTile), ("attn_a19_d64_bf16".to_string(), 128));
        assert_eq!(k(64, MmaSync).0, "attn_a33_d64_bf16");
        assert_eq!(k(96, MmaSync).0, "attn_a33_d96_bf16");
        assert_eq!(k(128, MmaSync).0, "attn_a33_d128_bf16");
        let e = PrefillDesc::new(8, 2, 256).kernel_name("f16", MmaSync).unwrap_err().to_string();
        assert!(e.contains("head dim 256 has no `mma.sync` kernel") && e.contains("sm_90a"), "{e}");
        assert_eq!(k(96, CtaPerTile), ("attn_a19_d128_bf16".to_string(), 128));
        assert_eq!(k(128, CtaPerTile), ("attn_a19_d128_bf16".to_string(), 128));
        assert_eq!(k(256, CtaPerTile), ("attn_a24_d256_bf16".to_string(), 64));
        assert_eq!(k(256, Persistent), ("attn_a31_d256_bf16".to_string(), 80));
        assert_eq!(k(128, Persistent), ("attn_a26_d128_bf16".to_string(), 128));
        assert_eq!(k(96, Persistent), ("attn_a29_d96_bf16".to_string(), 128));
        assert_eq!(k(64, Persistent), ("attn_a27_d64_bf16".to_string(), 128));
        assert_eq!(PrefillSchedule::default_for(&PrefillDesc::new(8, 2, 256)), Persistent);
        assert_eq!(PrefillSchedule::default_for(&PrefillDesc::new(8, 2, 96)), Persistent);
        // Every kernel named here is in the registry, with the shared memory the plan asserts.
        for d in HEAD_DIMS {
            for e in ["f16", "bf16"] {
                for s in [CtaPerTile, Persistent, MmaSync] {
                    let Ok(name) = PrefillDesc::new(8, 2, d).kernel_name(e, s) else { continue };
                    let info = crate::steps::attention::PREFILL.iter().find(|i| i.name == name).unwrap_or_else(|| panic!("{name} not registered"));
                    let want = match (d, s) {
                        (256, Persistent) => layout::attention::a28_smem(),
                        (256, _) => a24_smem(),
                        (_, Persistent) => a12_smem(PrefillDesc::new(8, 2, d).width() as u32),
                        (_, MmaSync) => a11_smem(PrefillDesc::new(8, 2, d).width() as u32),
                        _ => a6_smem(PrefillDesc::new(8, 2, d).width() as u32, A7_STAGES),
                    };
                    assert_eq!(info.dyn_smem_bytes, want, "{name}");
                    if s == Persistent {
                        assert_eq!(kv_tile_rows(&name), PrefillDesc::new(8, 2, d).persistent_kv_rows(), "{name}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_named_kernel_must_be_launched_as_the_schedules_own() {
        use PrefillSchedule::*;
        let d64 = PrefillDesc::new(32, 8, 64);
        assert!(named_kernel_fits(&d64, "bf16", Persistent, "attn_a26_d64_bf16").is_ok());
        assert!(named_kernel_fits(&d64, "f16", Persistent, "attn_a26_d64_f16").is_ok());
        assert!(named_kernel_fits(&d64, "bf16", Persistent, "attn_a27_d64_bf16").is_ok());
        assert!(named_kernel_fits(&d64, "f16", Persistent, "attn_a27_d64_f16").is_ok());
        assert!(named_kernel_fits(&PrefillDesc::new(32, 8, 128), "bf16", Persistent, "attn_a26_d128_bf16").is_ok());
        // a25: a31's launch with 64-key tiles (its own shared memory and K/V boxes); a28 a31's own.
        let d256 = PrefillDesc::new(16, 8, 256);
        assert!(named_kernel_fits(&d256, "bf16", Persistent, "attn_a25_d256_bf16").is_ok());
        assert!(named_kernel_fits(&d256, "f16", Persistent, "attn_a25_d256_f16").is_ok());
        assert!(named_kernel_fits(&d256, "f16", Persistent, "attn_a28_d256_f16").is_ok());
        // a29 (the library's at 96): a26's launch for head dims up to 96; a26 still runs them.
        let d96 = PrefillDesc::new(32, 8, 96);
        assert!(named_kernel_fits(&d96, "bf16", Persistent, "attn_a29_d96_bf16").is_ok());
        assert!(named_kernel_fits(&d96, "f16", Persistent, "attn_a29_d96_f16").is_ok());
        assert!(named_kernel_fits(&d96, "bf16", Persistent, "attn_a26_d128_bf16").is_ok());
        // a33 at 96 (the library's there since session 104: 0.84–0.88× the 128 entry's time); the 128 entry still runs 96.
        assert!(named_kernel_fits(&d96, "bf16", MmaSync, "attn_a33_d128_bf16").is_ok());
        assert!(named_kernel_fits(&d96, "f16", MmaSync, "attn_a33_d96_f16").is_ok());
        assert_eq!((kv_tile_rows("attn_a28_d256_bf16"), kv_tile_rows("attn_a25_d256_bf16"), kv_tile_rows("attn_a26_d128_f16")), (80, 64, 128));
        for (desc, e, schedule, name, says) in [
            (d256, "bf16", CtaPerTile, "attn_a28_d256_bf16", "is not launched as CtaPerTile's `attn_a24_d256_bf16`"),
            (d256, "bf16", Persistent, "attn_a28_d256_f16", "is not launched as"),
            (PrefillDesc::new(16, 8, 128), "bf16", Persistent, "attn_a28_d256_bf16", "is not launched as"),
            // a29 sums S over 96 head dims: refused at 128 (silently wrong there), and one CTA a tile.
            (PrefillDesc::new(32, 8, 128), "bf16", Persistent, "attn_a29_d96_bf16", "is not launched as Persistent's `attn_a26_d128_bf16`"),
            (PrefillDesc::new(32, 8, 96), "bf16", CtaPerTile, "attn_a29_d96_bf16", "is not launched as CtaPerTile's"),
            (PrefillDesc::new(32, 8, 96), "bf16", Persistent, "attn_a29_d96_f16", "is not launched as"),
            (PrefillDesc::new(32, 8, 64), "bf16", Persistent, "attn_a29_d96_bf16", "is not launched as"),
            (d64, "bf16", Persistent, "attn_a27_d64_f16", "is not launched as Persistent's"),
            (PrefillDesc::new(32, 8, 128), "bf16", Persistent, "attn_a27_d64_bf16", "is not launched as"),
            (d64, "bf16", CtaPerTile, "attn_a27_d64_bf16", "is not launched as CtaPerTile's `attn_a19_d64_bf16`"),
            (d64, "bf16", Persistent, "attn_a19_d64_bf16", "is not launched as Persistent's `attn_a27_d64_bf16`"),
            (d64, "bf16", Persistent, "hgemm_d27_f16", "is not a prefill step"),
            // a33 (mma.sync, 128 threads) is launched as nothing but itself.
            (d64, "bf16", CtaPerTile, "attn_a33_d64_bf16", "is not launched as CtaPerTile's"),
            (d64, "bf16", MmaSync, "attn_a19_d64_bf16", "is not launched as MmaSync's `attn_a33_d64_bf16`"),
            (PrefillDesc::new(32, 8, 128), "bf16", MmaSync, "attn_a33_d64_bf16", "is not launched as"),
            // a33's 96 entry sums S over 96 dims: refused at 128.
            (PrefillDesc::new(32, 8, 128), "bf16", MmaSync, "attn_a33_d96_bf16", "is not launched as MmaSync's `attn_a33_d128_bf16`"),
        ] {
            let err = named_kernel_fits(&desc, e, schedule, name).unwrap_err().to_string();
            assert!(err.contains(says) && err.contains(name), "{name}: {err}");
        }
    }

    #[test]
    fn the_persistent_work_list_holds_every_unit_once_most_key_tiles_first() {
        // Causal: 300 queries on 300 keys (3 tiles: 2, 4, 5 key tiles of 64), 5 new queries on 700 keys
        // (one tile: 11), an empty sequence, 129 on 129 (tiles of 2 and 3). 4 heads, 2 K/V heads.
        let (cq, ck) = (cu(&[300, 5, 0, 129]), cu(&[300, 700, 0, 129]));
        let units = |d: PrefillDesc| -> Vec<(u32, u32, u32)> {
            persistent_units_of(&d, &cq, &ck, UnitOrder::MostWorkFirst, 132, A24_BKV).chunks(3).map(|c| (c[0], c[1], c[2])).collect()
        };
        let tiles = |u: &[(u32, u32, u32)]| -> Vec<(u32, u32)> { u.iter().step_by(4).map(|&(b, qt, _)| (b, qt)).collect() };
        let c = units(PrefillDesc::new(4, 2, 256).causal());
        assert_eq!(c.len(), 6 * 4);
        assert_eq!(tiles(&c), vec![(1, 0), (0, 2), (0, 1), (3, 1), (0, 0), (3, 0)]);
        assert_eq!(c[..4].iter().map(|u| u.2).collect::<Vec<_>>(), vec![0, 1, 2, 3], "the heads of a tile side by side");
        // The work never rises along the list (the snake's balance needs it).
        let work: Vec<u32> = persistent_units_of(&PrefillDesc::new(4, 2, 256).causal(), &cq, &ck, UnitOrder::MostWorkFirst, 132, A24_BKV).chunks(3).map(|u| {
            let b = u[0] as usize;
            let (q_len, k_len) = (cq[b + 1] - cq[b], ck[b + 1] - ck[b]);
            kv_tiles_off(k_len, A6_BQ, A24_BKV, u[1], true, k_len - q_len)
        }).collect();
        assert!(work.windows(2).all(|w| w[0] >= w[1]), "{work:?}");
        // The library's a28 weighs them by its 80-key tiles (300 keys: 4 tiles where 64-key tiles make 5): never rises.
        let work: Vec<u32> = persistent_units(&PrefillDesc::new(4, 2, 256).causal(), &cq, &ck, UnitOrder::MostWorkFirst, 132).chunks(3).map(|u| {
            let b = u[0] as usize;
            let (q_len, k_len) = (cq[b + 1] - cq[b], ck[b + 1] - ck[b]);
            kv_tiles_off(k_len, A6_BQ, A28_BKV, u[1], true, k_len - q_len)
        }).collect();
        assert_eq!((work.len(), work[0], work[4]), (6 * 4, 9, 4), "700 keys: 9 tiles of 80; 300: 4");
        assert!(work.windows(2).all(|w| w[0] >= w[1]), "{work:?}");
        // a26 (D ≤ 128) weighs the units by its 128-key tiles: the list still never rises.
        let work: Vec<u32> = persistent_units(&PrefillDesc::new(4, 2, 128).causal(), &cq, &ck, UnitOrder::MostWorkFirst, 132).chunks(3).map(|u| {
            let b = u[0] as usize;
            let (q_len, k_len) = (cq[b + 1] - cq[b], ck[b + 1] - ck[b]);
            kv_tiles_off(k_len, A6_BQ, 128, u[1], true, k_len - q_len)
        }).collect();
        assert_eq!(work.len(), 6 * 4);
        assert!(work.windows(2).all(|w| w[0] >= w[1]), "{work:?}");
        // Without the mask every unit of a sequence is an equal: by K/V head, then tile, then head.
        let n = units(PrefillDesc::new(4, 2, 256));
        assert_eq!(&n[..8], &[(1, 0, 0), (1, 0, 1), (1, 0, 2), (1, 0, 3), (0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1)]);
        assert_eq!(&n[10..14], &[(0, 0, 2), (0, 0, 3), (0, 1, 2), (0, 1, 3)]);
        let mut all = n.clone();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n.len(), "every unit once");
    }

    /// The units CTA `c` of `grid` takes, in order (`layout::attention::a25_unit`'s snake).
    fn snake(list: &[u32], grid: u32) -> Vec<Vec<(u32, u32, u32)>> {
        let n = (list.len() / 3) as u32;
        (0..grid).map(|c| (0..).map(|r| layout::attention::a25_unit(r, c, grid)).take_while(|&u| u < n)
                                  .map(|u| (list[3 * u as usize], list[3 * u as usize + 1], list[3 * u as usize + 2])).collect()).collect()
    }

    #[test]
    fn the_library_pairs_units_with_the_causal_mask_only() {
        assert_eq!(UnitOrder::default_for(&PrefillDesc::new(32, 32, 128).causal()), UnitOrder::Paired);
        assert_eq!(UnitOrder::default_for(&PrefillDesc::new(32, 32, 128)), UnitOrder::MostWorkFirst);
    }

    #[test]
    fn paired_units_keep_every_unit_balance_the_ctas_and_share_k_and_v() {
        let grid = 132;
        // 8 sequences of 8192 (64 query tiles) and of 2048, causal and not, 16/16 and 32/8 heads; one ragged
        // batch (tile counts 1–64, odd ones with a middle tile).
        let ragged: Vec<u32> = (0..12).map(|i| 700 * i + 129).collect();
        for (heads, kv, lens, causal) in [(16, 16, vec![8192; 8], true), (32, 8, vec![8192; 8], true), (16, 16, vec![8192; 8], false),
                                          (32, 8, vec![2048; 16], true), (12, 12, ragged.clone(), true), (8, 8, vec![300; 2], true)] {
            let d = if causal { PrefillDesc::new(heads, kv, 64).causal() } else { PrefillDesc::new(heads, kv, 64) };
            let (cq, ck) = (cu(&lens), cu(&lens));
            let (old, new) = (persistent_units(&d, &cq, &ck, UnitOrder::MostWorkFirst, grid), persistent_units(&d, &cq, &ck, UnitOrder::Paired, grid));
            let what = format!("{heads}/{kv} heads, lengths {lens:?}, causal {causal}");
            let sorted = |l: &[u32]| {
                let mut v: Vec<&[u32]> = l.chunks(3).collect();
                v.sort();
                v.into_iter().flatten().copied().collect::<Vec<u32>>()
            };
            assert_eq!(sorted(&old), sorted(&new), "{what}: the same units");
            let work = |u: &(u32, u32, u32)| {
                let b = u.0 as usize;
                let (q_len, k_len) = (cq[b + 1] - cq[b], ck[b + 1] - ck[b]);
                kv_tiles_off(k_len, A6_BQ, 128, u.1, causal, if causal { k_len - q_len } else { 0 }) as f64
            };
            let load = |l: &[u32]| -> f64 {
                let per: Vec<f64> = snake(l, grid).iter().map(|us| us.iter().map(|u| work(u) + 0.3).sum()).collect();
                per.iter().cloned().fold(0.0, f64::max) / (per.iter().sum::<f64>() / grid as f64)
            };
            let (lo, ln) = (load(&old), load(&new));
            assert!(ln <= lo.max(1.0) + 0.012, "{what}: the busiest CTA {ln:.3}× the mean (most work first: {lo:.3}×)");
            // The K/V heads a round touches (the units in flight), over the rounds.
            let spread = |l: &[u32]| -> f64 {
                let n = l.len() / 3;
                let rounds: Vec<usize> = (0..n.div_ceil(grid as usize)).map(|r| {
                    let mut kv: Vec<(u32, u32)> = l[3 * r * grid as usize..(3 * (r + 1) * grid as usize).min(l.len())].chunks(3)
                                                   .map(|u| (u[0], u[2] / (heads / kv) as u32)).collect();
                    kv.sort();
                    kv.dedup();
                    kv.len()
                }).collect();
                rounds.iter().sum::<usize>() as f64 / rounds.len() as f64
            };
            if causal && lens.len() * 64 * heads >= 2 * 3 * grid as usize * 64 {
                assert!(spread(&new) * 4.0 <= spread(&old), "{what}: K/V heads a round {:.1} paired, {:.1} most work first", spread(&new), spread(&old));
            }
            // In the paired rounds a CTA's two units are one pair: the same sequence and head, tiles mirrored.
            let per = snake(&new, grid);
            let pairs_rounds = per.iter().map(|us| us.len()).min().unwrap_or(0);
            if new != old {
                let (a, b) = (per[5][0], per[5][1]);
                let qtiles = lens[a.0 as usize].div_ceil(A6_BQ);
                assert!(a.0 == b.0 && a.2 == b.2 && a.1 + b.1 == qtiles - 1 && a.1 > b.1, "{what}: CTA 5's first units {a:?} {b:?} ({pairs_rounds})");
            }
        }
    }

    #[test]
    fn causal_pairs_count_the_bottom_right_mask() {
        // 3 queries against 5 keys: the rows see 3, 4, 5 keys.
        let l = Lens::new(&PrefillDesc::new(1, 1, 64).causal(), &cu(&[3]), &cu(&[5])).unwrap();
        assert_eq!(l.pairs, 12.0);
        assert_eq!(l.flops(&PrefillDesc::new(2, 1, 64)), 4.0 * 12.0 * 128.0);
    }

    #[test]
    fn the_reference_matches_plain_softmax_on_one_row() {
        // One query, two keys, D = 64: O = softmax(s)·V by hand; chunked causal sees only its prefix.
        let d = PrefillDesc::new(1, 1, 64).with_scale(1.0);
        let q: Vec<f32> = (0..64).map(|i| if i == 0 { 1.0 } else { 0.0 }).collect();
        let mut k = vec![0f32; 128];
        k[0] = 1.0; // s = [1, 0]
        let v: Vec<f32> = (0..128).map(|i| if i < 64 { 2.0 } else { 4.0 }).collect();
        let (o, lse) = reference_f64(&d, &[0, 1], &[0, 2], &q, &k, &v);
        let e = std::f64::consts::E;
        assert!((o[5] - (2.0 * e + 4.0) / (e + 1.0)).abs() < 1e-12 && (lse[0] - (e + 1.0).ln()).abs() < 1e-12);
        let (o, _) = reference_f64(&d.causal(), &[0, 1], &[0, 2], &q, &k, &v);
        assert!((o[5] - (2.0 * e + 4.0) / (e + 1.0)).abs() < 1e-12, "the last query of 2 keys sees both");
    }
}

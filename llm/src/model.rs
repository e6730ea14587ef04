//! The forward pass: weights on the GPU (projections transposed to the `K × N` operand the lab's GEMM
//! takes, Q/K/V and gate/up fused), a contiguous KV cache `[slots][kv_heads][max_len][D]` per layer, and
//! the launches of one prefill or decode step.
//!
//! ```text
//! h = embed(ids)                                       residual stream [tokens][hidden]
//! per layer:  x = rmsnorm(h (+= delta))                 add_rmsnorm (the previous layer's MLP output added)
//!             qkv = x · Wqkv                            GEMM
//!             q, k, v, cache ← rope(qkv + b)            rope (K, V also into the cache)
//!             o = attention(q, k | cache, v | cache)    prefill a26 (causal) / decode ad2
//!             delta = o · Wo;  x = rmsnorm(h += delta)  GEMM, add_rmsnorm
//!             gu = x · Wgu;  a = silu(g) · u;  delta = a · Wdown
//! x = rmsnorm(h += delta);  logits = x · Wlm            (prefill: the last token of each sequence only)
//! ```
//!
//! A prefill step takes prompts from position 0 (the attention reads the step's own K and V) or pieces of
//! sequences after cached rows ([`Model::extend`], chunks: [`Model::set_prefill_chunk`]), whose attention
//! reads each sequence's cached rows and its own, gathered from the cache into packed K and V (`gather_kv`).
//!
//! Split over a group of GPUs (tensor parallelism, [`Model::load_tp`]): each rank holds `1/world` of
//! the query and K/V heads (its columns of Wqkv, its rows of Wo, its share of the cache) and of the
//! MLP (its columns of Wgu, its rows of Wdown); `delta` after Wo and after Wdown is each rank's partial
//! sum, added up by one all-reduce (`kernel_lab::comm`) before the residual add, so every rank holds
//! the same residual stream; up to `MAX_FUSED_ROWS` rows that all-reduce is one kernel with the residual
//! add and the next norm. The embedding and the norms are on every rank; the LM head is split by
//! vocabulary columns (joined by an all-reduce of the zero-padded logits) where each rank's block is a
//! multiple of 8 columns, otherwise on rank 0.
use std::collections::HashMap;

use half::{bf16, f16};
use kernel_lab::{
    Error, Gpu, Result,
    error::DriverContext,
    attention::{
        decode::{BlockTable, CacheReady, DecodeDesc, DecodePlan, KvLayout},
        prefill::{PrefillDesc, PrefillPlan},
    },
    comm::{AllReduce, AllReduceOptions, Group, NormReducible, ResidualNorm},
    cudarc::driver::{CudaEvent, CudaSlice, CudaView, CudaViewMut, LaunchConfig},
    fp8_weights::{Fp8Weights, W8Plan, WeightLayout},
    gemm::{BReady, Element, GemmDesc, GemmPlan},
    runtime::gpu::Kernel,
    steps::gemm::Elem,
};

use crate::{checkpoint::Checkpoint, chunk, config::Config, grid, kernels as k, mapped::{self, Mapped}, pages::Pages, rope, sample::{self, Rng, Sampling}};

/// How the projections' weights are kept on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WeightFormat {
    /// In the checkpoint's 16-bit type, transposed to `[in][out]` for the 16-bit GEMM.
    #[default]
    AsStored,
    /// Quantized at load to FP8 (e4m3, one power-of-two scale per 128×128 block; `kernel_lab::fp8_weights`),
    /// `[out][in]` as stored: half the bytes. Q/K/V, O, gate/up, down and the LM head; the embedding
    /// and the norms stay 16-bit. Hopper (sm_90) only. Split over GPUs each rank quantizes its own share
    /// (the row-parallel weights' columns gathered on the host; the LM head's vocabulary block).
    Fp8,
}

/// A paged KV cache ([`Model::from_checkpoint_paged`]): per layer one pool of `pages` pages of `page_size`
/// tokens (`[pages][kv_heads][page_size][D]`, K and V; FlashInfer's HND layout) shared by the slots, each
/// sequence holding `⌈len / page_size⌉` pages through a block table — the cache sized by the tokens the
/// batch holds at once instead of `slots × max_len`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paging {
    /// Tokens per page: a multiple of 16 in 16..=256.
    pub page_size: usize,
    /// Pages in the pool.
    pub pages: usize,
}

/// A projection's weights: `K × N` 16-bit bits for the 16-bit GEMM, or FP8 `N × K`.
enum Weight {
    Dense(CudaSlice<u16>),
    Fp8(Fp8Weights),
}

/// One layer's weights (16-bit bits; the projections as [`Weight`]s).
struct Layer {
    attn_norm: CudaSlice<u16>,
    /// `[hidden][qkv_width]`: Q's, K's, V's columns.
    qkv: Weight,
    /// `[qkv_width]` (Qwen2).
    qkv_bias: Option<CudaSlice<u16>>,
    /// `[heads·D][hidden]`.
    o: Weight,
    mlp_norm: CudaSlice<u16>,
    /// `[hidden][2·inter]`: gate's columns, then up's.
    gate_up: Weight,
    /// `[inter][hidden]`.
    down: Weight,
}

/// The runner's kernels for one element type.
struct Kernels {
    bf16: bool,
    embed: Kernel,
    add_rmsnorm: Kernel,
    rope: Kernel,
    silu_mul: Kernel,
    argmax: Kernel,
    transpose: Kernel,
    gather: Kernel,
}

/// Calls the launcher of `$name` for the model's element type (`_bf16` or `_f16`; same signature).
macro_rules! launch {
    ($ks:expr, $name:ident, $bf:ident, $f:ident, $cfg:expr, $($arg:expr),* $(,)?) => {
        if $ks.k.bf16 { k::$bf::launch(&$ks.gpu, &$ks.k.$name, $cfg, $($arg),*) } else { k::$f::launch(&$ks.gpu, &$ks.k.$name, $cfg, $($arg),*) }
    };
}

/// `s`'s first `n` elements as `T` (a 16-bit element type: every bit pattern is a value).
fn view<T: Element>(s: &CudaSlice<u16>, n: usize) -> Result<CudaView<'_, T>> {
    // SAFETY: T is f16 or bf16 (checked by `Model::load`): 2 bytes, no invalid bit pattern.
    unsafe { s.transmute::<T>(n) }.ok_or_else(|| Error::InvalidInput(format!("buffer of {} elements viewed as {n}", s.len())))
}

/// [`view`], mutable.
fn view_mut<T: Element>(s: &mut CudaSlice<u16>, n: usize) -> Result<CudaViewMut<'_, T>> {
    let len = s.len();
    // SAFETY: as `view`.
    unsafe { s.transmute_mut::<T>(n) }.ok_or_else(|| Error::InvalidInput(format!("buffer of {len} elements viewed as {n}")))
}

/// Work buffers for up to `tokens` tokens (grown as needed).
#[derive(Default)]
struct Scratch {
    tokens: usize,
    bufs: Option<Bufs>,
}

struct Bufs {
    h: CudaSlice<u16>,
    x: CudaSlice<u16>,
    qkv: CudaSlice<u16>,
    q: CudaSlice<u16>,
    k: CudaSlice<u16>,
    v: CudaSlice<u16>,
    attn: CudaSlice<u16>,
    delta: CudaSlice<u16>,
    gu: CudaSlice<u16>,
    act: CudaSlice<u16>,
    lse: CudaSlice<f32>,
    ids: CudaSlice<i32>,
    pos: CudaSlice<i32>,
    slot: CudaSlice<i32>,
    /// The rows of x the LM head reads (each sequence's last token).
    rows: CudaSlice<i32>,
}

/// The heads and MLP width one rank holds (`1/world` of the model's).
#[derive(Clone, Copy, Debug)]
struct Local {
    heads: usize,
    kv_heads: usize,
    inter: usize,
}

impl Local {
    fn qkv_width(&self, d: usize) -> usize {
        (self.heads + 2 * self.kv_heads) * d
    }
}

/// What a forward step's tokens are, and so what its attention reads.
#[derive(Clone, Copy, Debug)]
enum Step<'a> {
    /// One new token in each slot `0..tokens`, against the slot's cache (decode).
    Decode,
    /// Prompts from position 0, packed (`cu`: their offsets): the attention reads the step's own K and V.
    Prompts(&'a [u32]),
    /// Pieces of sequences after cached rows (a prompt's later chunk, a continuation): queries `cu_q`, keys
    /// `cu_k` — each sequence's cached rows and the piece's own, gathered from the cache into packed K and V
    /// by `gather_kv` from the rows uploaded with [`Shard::upload_keys`].
    Cached { cu_q: &'a [u32], cu_k: &'a [u32] },
    /// A mixed step ([`Model::mixed`]): one new token in each slot `0..decode` against the slot's cache (the
    /// decode attention, as [`Step::Decode`]), then prompts from position 0, packed after them (`cu`: their
    /// offsets from the first prompt row; the prefill attention, as [`Step::Prompts`]).
    Mixed { decode: usize, cu: &'a [u32] },
}

/// A chunk's keys gathered from the cache (grown as needed): each key row's slot and position, and the
/// packed K and V (`[rows][local kv_heads][D]`) the prefill attention reads.
struct KeyRows {
    rows: usize,
    slot: CudaSlice<i32>,
    pos: CudaSlice<i32>,
    k: CudaSlice<u16>,
    v: CudaSlice<u16>,
}

/// The GEMM plans by shape `(m, n, k)`: 16-bit weights' and FP8 weights'.
struct Plans<T: Element> {
    dense: HashMap<(usize, usize, usize), GemmPlan<T>>,
    /// With the plan's last use on `clock`.
    w8: HashMap<(usize, usize, usize), (W8Plan<T>, u64)>,
    clock: u64,
    /// Whether an FP8 plan was dropped since the flag was last cleared ([`DEQUANT_PLANS`]): a graph captured
    /// over it would read freed memory, so the model drops its graphs.
    dropped: bool,
}

impl<T: Element> Plans<T> {
    fn new() -> Self {
        Plans { dense: HashMap::new(), w8: HashMap::new(), clock: 0, dropped: false }
    }

    /// Marks the FP8 plans of `m` rows used now (a graph replay runs them without `gemm` seeing it).
    fn touch_rows(&mut self, m: usize) {
        self.clock += 1;
        let now = self.clock;
        for (_, used) in self.w8.iter_mut().filter(|(key, _)| key.0 == m).map(|(_, v)| v) {
            *used = now;
        }
    }
}

/// FP8 plans that dequantize (more than 32 rows) kept per weight shape: each holds a `k × n` copy of the
/// weights (1 GB for Llama-3-8B's LM head), and prompts, chunks and admissions of every length would each
/// add one. Past this many, the plan used longest ago goes (and with it every captured graph: decode
/// batches of more than 32 sequences of as many sizes take turns being captured).
const DEQUANT_PLANS: usize = 4;

/// How [`Model::decode_steps`] runs greedy steps on one GPU ([`Model::set_decode_ahead`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeAhead {
    /// [`Model::decode`] in a loop: each step launched after the host has read the one before.
    Off,
    /// Step `j + 1` launched before the host waits for step `j`'s tokens, which the argmax posts into a ring
    /// in mapped host memory (`Shard::ring`): nothing on the stream between two steps. (Session 109 also
    /// measured the tokens copied to pinned memory after each step, session 71's form: 0.9953× the plain
    /// loop's wall time where the ring gave 0.9922×; its code is in `0b8d5389`.)
    Ring,
}

impl DecodeAhead {
    /// What `KERNEL_LAB_LLM_PIPELINE` names (`0`: off, `ring`; timing A/Bs), else [`DEFAULT_AHEAD`]: each
    /// model's form at load.
    pub fn from_env() -> DecodeAhead {
        match std::env::var("KERNEL_LAB_LLM_PIPELINE").as_deref().map(str::trim) {
            Ok("0") => DecodeAhead::Off,
            Ok("ring") => DecodeAhead::Ring,
            _ => DEFAULT_AHEAD,
        }
    }
}

/// The form a model loads with where `KERNEL_LAB_LLM_PIPELINE` is unset (session 109, H200, Llama-3-8B shape at
/// batch 1: the ring 0.9922× the plain loop's wall time with FP8 weights, 0.9955× in bf16, the same tokens).
pub const DEFAULT_AHEAD: DecodeAhead = DecodeAhead::Ring;

/// Slots of the ring the argmax posts tokens into (`Shard::ring`): [`Model::decode_steps`] waits for step
/// `j`'s with step `j + 1` queued, so slot `j % TOKEN_RING` is next written by step `j + TOKEN_RING`, launched
/// only after the host has read step `j + TOKEN_RING − 2`'s — after step `j`'s.
pub const TOKEN_RING: usize = 4;

/// Where a shard's argmax posts tokens for the host.
enum TokenRing {
    /// [`TOKEN_RING`] slots of `slots` words in mapped host memory (`count << 32 | token`) and each row's
    /// launch count: [`DecodeAhead::Ring`].
    Mapped(Mapped, CudaSlice<u32>),
    /// Nowhere (other modes): one-word stand-ins the argmax is told not to touch (its ring length 0).
    Off(CudaSlice<u64>, CudaSlice<u32>),
}

impl TokenRing {
    /// The stand-ins.
    fn off(gpu: &Gpu) -> Result<TokenRing> {
        Ok(TokenRing::Off(gpu.zeros::<u64>(1)?, gpu.zeros::<u32>(1)?))
    }

    /// A ring for `slots` rows.
    fn mapped(gpu: &Gpu, slots: usize) -> Result<TokenRing> {
        Ok(TokenRing::Mapped(Mapped::new(gpu, TOKEN_RING * slots)?, gpu.zeros::<u32>(slots)?))
    }
}

/// Which of `plans` (`(rows, last use)`, one weight shape's dequantizing plans) go before one more is made,
/// so that `keep` remain with it: the used longest ago.
fn plans_to_drop(mut plans: Vec<(usize, u64)>, keep: usize) -> Vec<usize> {
    plans.sort_by_key(|&(_, used)| used);
    let excess = (plans.len() + 1).saturating_sub(keep.max(1));
    plans.into_iter().take(excess).map(|(m, _)| m).collect()
}

/// One rank's part of the model: its weights, cache, work buffers and plans, on its GPU.
struct Shard<T: Element> {
    gpu: Gpu,
    local: Local,
    k: Kernels,
    embed: CudaSlice<u16>,
    layers: Vec<Layer>,
    norm: CudaSlice<u16>,
    /// `[hidden][vocab]` (or FP8 `[vocab][hidden]`): on rank 0 only, or split over the ranks by vocabulary
    /// columns (`head_cols`).
    lm_head: Option<Weight>,
    /// The vocabulary columns `[start, start + count)` this rank's `lm_head` computes.
    head_cols: (usize, usize),
    /// Per row count: the LM head's plan (its C a column block of the `[n][vocab]` logits when split).
    head_plans: HashMap<usize, GemmPlan<T>>,
    /// An FP8 head split over the ranks: its `[slots][cols]` block (the FP8 plan writes dense rows), placed
    /// into the logits' columns after the GEMM.
    head_part: Option<CudaSlice<u16>>,
    cos_sin: CudaSlice<f32>,
    /// Per layer: K and V caches `[slots][local kv_heads][max_len][D]`, or paged: pools
    /// `[pages][local kv_heads][page_size][D]`.
    cache: Vec<(CudaSlice<u16>, CudaSlice<u16>)>,
    /// Paged: the block table `[slots][max_pages]` (the host's [`Pages::table`], copied when it changes)
    /// and `(page_size, max_pages, pages)`; contiguous: one unread entry and `None`.
    table: CudaSlice<i32>,
    paging: Option<(usize, usize, usize)>,
    gemms: Plans<T>,
    prefill: PrefillPlan<T>,
    /// Per decode batch size: its plan and its sequences' lengths on the device.
    decode: HashMap<usize, (DecodePlan<T>, CudaSlice<i32>)>,
    /// Per decode batch size, this rank's step captured as a CUDA graph.
    graphs: HashMap<usize, kernel_lab::cudarc::driver::CudaGraph>,
    scratch: Scratch,
    /// A chunk's keys gathered from the cache ([`Step::Cached`]); `None` until a chunk needs them.
    keys: Option<KeyRows>,
    last: CudaSlice<u16>,
    logits: CudaSlice<u16>,
    next: CudaSlice<i32>,
    /// The argmax's workspace: per row, its blocks' partial bests and their count (zero between launches).
    argmax: (CudaSlice<u64>, CudaSlice<u32>),
    /// Where the argmax posts each row's token for the host, no copy on the stream: [`TOKEN_RING`] slots of
    /// `slots` words in mapped host memory, each `count << 32 | token`, and per row its launches so far
    /// (`llm_kernels::argmax`; read by [`Model::decode_steps`]).
    ring: TokenRing,
    dummy: CudaSlice<u16>,
    /// Stand-ins for the argmax's next-step inputs when it does not advance them (never written).
    advance_dummy: (CudaSlice<i32>, CudaSlice<i32>, CudaSlice<i32>),
    /// While a step is profiled ([`Model::decode_profiled`]): an event after each launch, named.
    prof: Option<Vec<(Launch, CudaEvent)>>,
}

/// One launch of a profiled step: what it was and the bytes it must read at least (GEMMs: the weights;
/// attention: the K/V cache rows it covers; 0 where not counted).
#[derive(Clone, Debug)]
pub struct Launch {
    /// The kernel or plan and its shape, e.g. `gemm 1x6144x4096 d15-bf16` or `add_rmsnorm`.
    pub name: String,
    /// Bytes it reads at least (0: not counted).
    pub bytes: u64,
}

/// Which norm an all-reduce fused with the residual add and RMSNorm ends in: layer `l`'s attention or
/// MLP norm, or the final one.
#[derive(Clone, Copy, Debug)]
enum NormAt {
    Attn(usize),
    Mlp(usize),
    Final,
}

impl NormAt {
    /// This norm's weight among a shard's layers and its final norm.
    fn weight<'a>(self, layers: &'a [Layer], last: &'a CudaSlice<u16>) -> &'a CudaSlice<u16> {
        match self {
            NormAt::Attn(l) => &layers[l].attn_norm,
            NormAt::Mlp(l) => &layers[l].mlp_norm,
            NormAt::Final => last,
        }
    }
}

/// The layout FP8 weights are quantized into: packed (step w5) unless `KERNEL_LAB_W8_LAYOUT=natural`
/// (step w1: the timing A/B of session 74).
fn w8_layout() -> WeightLayout {
    if std::env::var("KERNEL_LAB_W8_LAYOUT").is_ok_and(|v| v.trim() == "natural") { WeightLayout::Natural } else { WeightLayout::Packed }
}

/// Whether the LM head is split over `world` ranks by vocabulary columns: split over GPUs, and each
/// rank's block of columns a multiple of 8 (16-byte-aligned rows for the GEMM; FP8 or 16-bit);
/// otherwise rank 0 holds it whole. `KERNEL_LAB_SPLIT_HEAD=0` keeps it whole (the A/B switch).
fn split_head(c: &Config, world: usize) -> bool {
    let on = std::env::var("KERNEL_LAB_SPLIT_HEAD").map_or(true, |v| v.trim() != "0");
    on && world > 1 && c.vocab.is_multiple_of(8 * world)
}

/// Most rows a step's all-reduces run fused with the norm: the fused kernel runs one block a row up to
/// `layout::comm::MAX_BLOCKS` (64) blocks, beyond which blocks take several rows each and the unfused
/// pair (a bandwidth all-reduce over the SMs, then `add_rmsnorm`) is predicted faster (not measured).
const MAX_FUSED_ROWS: usize = 64;

/// The profile's name of the decode attention's launch (its bytes are filled in after the step).
const DECODE_ATTENTION: &str = "attention decode";

/// A profiled step's launches in order, each with its GPU time in µs ([`Model::decode_profiled`]).
pub type Profile = Vec<(Launch, f64)>;

/// Records an event named `name` after the launches so far, while a step is profiled.
fn mark(prof: &mut Option<Vec<(Launch, CudaEvent)>>, gpu: &Gpu, name: impl FnOnce() -> String, bytes: u64) -> Result<()> {
    if let Some(p) = prof {
        let e = gpu.stream.record_event(Some(kernel_lab::cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT)).during(|| "recording a profile event".into())?;
        p.push((Launch { name: name(), bytes }, e));
    }
    Ok(())
}

/// A loaded model with its KV cache, on one GPU or split over a group ([`Model::load_tp`]).
pub struct Model<T: Element> {
    /// The checkpoint's config (the whole model's dims).
    pub config: Config,
    /// One per rank; rank 0 also runs the argmax (and the LM head, when it is not split).
    shards: Vec<Shard<T>>,
    /// Sums the ranks' partial outputs (tensor parallelism; `None` on one GPU).
    ar: Option<AllReduce>,
    slots: usize,
    max_len: usize,
    /// Tokens held per slot.
    lens: Vec<usize>,
    /// Most tokens one prefill step takes (0: no limit): [`Model::set_prefill_chunk`].
    prefill_chunk: usize,
    /// A paged cache's pages ([`Paging`]); `None`: contiguous.
    pages: Option<Pages>,
    /// How often dropped FP8 plans cleared the graphs (`after_plans_dropped`): a graph kept aside across a
    /// step is stale when this moved.
    plan_drops: u64,
    /// Decode steps run eagerly per batch size (the first one warms the plans for the capture).
    eager_steps: HashMap<usize, usize>,
    /// Capture decode steps as CUDA graphs (default: on, where the streams can capture). Per decode
    /// batch size, each rank's step is captured once after one eager step warmed its plans.
    pub graphs_on: bool,
    /// What the device's ids, positions and lengths hold for a next decode step of `n` sequences, when
    /// the last step advanced them there (one GPU, greedy: the argmax writes the next step's inputs):
    /// `(n, ids, positions)`. A step whose inputs equal them copies nothing from the host.
    device_next: Option<(usize, Vec<i32>, Vec<i32>)>,
    /// The batch size of the last decode step that succeeded, while the device's positions and slots are
    /// still that step's next ones (`lens`, `0..n`): what [`Model::replay_decode`] needs to stay inside
    /// the cache. Cleared by anything that writes them otherwise (prefill, new buffers, a failed step).
    decoded: Option<usize>,
    /// [`Model::decode_steps`]' form ([`Model::set_decode_ahead`]).
    ahead: DecodeAhead,
}

/// Copies `n` elements of `buf` at `from` to `to` (regions that do not overlap), on `gpu`'s stream.
fn copy_within(gpu: &Gpu, buf: &mut CudaSlice<u16>, from: usize, to: usize, n: usize) -> Result<()> {
    let what = || format!("copying {n} cache elements within a layer");
    if from + n > buf.len() || to + n > buf.len() || from.max(to) < from.min(to) + n {
        return Err(Error::InvalidInput(format!("{} (internal: {from}, {to} of {})", what(), buf.len())));
    }
    if from < to {
        let (lo, mut hi) = buf.split_at_mut(to);
        gpu.stream.memcpy_dtod(&lo.slice(from..from + n), &mut hi.slice_mut(..n)).during(what)
    } else {
        let (mut lo, hi) = buf.split_at_mut(from);
        gpu.stream.memcpy_dtod(&hi.slice(..n), &mut lo.slice_mut(to..to + n)).during(what)
    }
}

/// The device's free and total memory.
fn fits(gpu: &Gpu, what: &str, bytes: usize) -> Result<()> {
    kernel_lab::runtime::budget::check(gpu, what, bytes as u64, 0)
}

/// Rows `[start, start + count)` of the `[rows][cols]` tensor `bytes` (16-bit elements).
fn row_range(bytes: &[u8], cols: usize, start: usize, count: usize) -> &[u8] {
    &bytes[start * cols * 2..(start + count) * cols * 2]
}

/// Columns `[start, start + count)` of every row of the `[rows][cols]` tensor `bytes` (16-bit elements),
/// gathered into a `[rows][count]` tensor: a row-parallel weight's share in HF's `[out][in]` order, as FP8
/// quantizes it (its 128×128 blocks those of the whole tensor where `start` is a multiple of 128).
fn col_range(bytes: &[u8], cols: usize, start: usize, count: usize) -> Vec<u8> {
    bytes.chunks_exact(cols * 2).flat_map(|row| &row[start * 2..(start + count) * 2]).copied().collect()
}

/// The decode attention's view of the cache: contiguous, or `paging`'s pool (FlashInfer's HND pages).
fn kv_layout(paging: Option<Paging>, max_len: usize) -> KvLayout {
    match paging {
        Some(p) => KvLayout::PagedHeadsMajor { page_size: p.page_size, num_pages: p.pages },
        None => KvLayout::Contiguous { max_len },
    }
}

impl<T: Element + NormReducible> Model<T> {
    /// Loads the checkpoint at `dir` (checked whole first) on `gpu` for up to `slots` sequences of up to
    /// `max_len` tokens each. Refused before anything is allocated when a tensor is missing or
    /// mis-shaped, the dtype is not `T`'s, or weights plus cache exceed the free memory; a failure
    /// part-way frees what was allocated (the buffers drop).
    pub fn load(gpu: &Gpu, dir: &std::path::Path, slots: usize, max_len: usize) -> Result<Model<T>> {
        Self::load_ranks(vec![gpu.clone()], None, Checkpoint::open(dir)?, slots, max_len, None, WeightFormat::AsStored)
    }

    /// As [`Model::load_with`] (`group`: as [`Model::load_tp`], `None` for one GPU) from a checkpoint
    /// already open — a [`Checkpoint::synthetic`] one included.
    pub fn from_checkpoint(gpu: &Gpu, group: Option<Group>, ck: Checkpoint, slots: usize, max_len: usize, format: WeightFormat) -> Result<Model<T>> {
        Self::from_group(gpu, group, ck, slots, max_len, None, format)
    }

    /// As [`Model::from_checkpoint`] with a paged KV cache ([`Paging`]): `slots` sequences of up to
    /// `max_len` tokens each, together at most `paging.pages × paging.page_size` tokens. Prefill, extend
    /// and decode take the pages their new tokens need and say so when the pool runs out, before
    /// anything runs; [`Model::truncate`] and [`Model::release`] give pages back.
    pub fn from_checkpoint_paged(gpu: &Gpu, group: Option<Group>, ck: Checkpoint, slots: usize, max_len: usize, paging: Paging, format: WeightFormat) -> Result<Model<T>> {
        Self::from_group(gpu, group, ck, slots, max_len, Some(paging), format)
    }

    fn from_group(gpu: &Gpu, group: Option<Group>, ck: Checkpoint, slots: usize, max_len: usize, paging: Option<Paging>, format: WeightFormat) -> Result<Model<T>> {
        match group {
            None => Self::load_ranks(vec![gpu.clone()], None, ck, slots, max_len, paging, format),
            Some(group) => {
                let ranks = group.ranks().to_vec();
                let ar = if ranks.len() > 1 { Some(AllReduce::new(group, AllReduceOptions::default())?) } else { None };
                Self::load_ranks(ranks, ar, ck, slots, max_len, paging, format)
            }
        }
    }

    /// As [`Model::load`], the projections kept as `format` says ([`WeightFormat::Fp8`]: quantized on the
    /// GPU as each tensor arrives; a block beyond FP8's range is named in the error).
    pub fn load_with(gpu: &Gpu, dir: &std::path::Path, slots: usize, max_len: usize, format: WeightFormat) -> Result<Model<T>> {
        Self::load_ranks(vec![gpu.clone()], None, Checkpoint::open(dir)?, slots, max_len, None, format)
    }

    /// As [`Model::load`], split over the ranks of `group` (tensor parallelism): the query heads, the
    /// K/V heads and the MLP's intermediate size must divide by the group's size (refused otherwise,
    /// before anything is loaded). Each rank's stream is its own (`Group::new` makes them), so decode
    /// steps are captured as CUDA graphs, one per rank.
    pub fn load_tp(group: Group, dir: &std::path::Path, slots: usize, max_len: usize) -> Result<Model<T>> {
        let ck = Checkpoint::open(dir)?;
        let ranks = group.ranks().to_vec();
        let ar = if ranks.len() > 1 { Some(AllReduce::new(group, AllReduceOptions::default())?) } else { None };
        Self::load_ranks(ranks, ar, ck, slots, max_len, None, WeightFormat::AsStored)
    }

    #[allow(clippy::too_many_arguments)]
    fn load_ranks(ranks: Vec<Gpu>, ar: Option<AllReduce>, ck: Checkpoint, slots: usize, max_len: usize, paging: Option<Paging>, format: WeightFormat) -> Result<Model<T>> {
        let dir = ck.dir.clone();
        let c = ck.config.clone();
        let bf16 = match T::ELEM {
            Elem::Bf16 => true,
            Elem::F16 => false,
            Elem::F32 => return Err(Error::InvalidInput("the runner takes bf16 or f16 (half::bf16, half::f16)".into())),
        };
        if bf16 != ck.bf16 {
            return Err(Error::InvalidInput(format!("{}: the weights are {} but the model was asked for {}", dir.display(), if ck.bf16 { "bf16" } else { "f16" }, T::NAME)));
        }
        if slots == 0 || slots > 65_535 || max_len == 0 || max_len > c.max_positions {
            return Err(Error::InvalidInput(format!("{slots} sequences of {max_len} tokens: need 1..=65535 sequences and 1..={} tokens (max_position_embeddings or the window)",
                                                   c.max_positions)));
        }
        let world = ranks.len();
        c.check_split(world).map_err(|e| Error::InvalidInput(format!("{}: {e}", dir.display())))?;
        let local = Local { heads: c.heads / world, kv_heads: c.kv_heads / world, inter: c.intermediate / world };
        // The decode kernels' limits (query heads per K/V head, head dim, batch, page size), before anything
        // is loaded.
        DecodeDesc::new(slots, local.heads, local.kv_heads, c.head_dim, max_len).with_layout(kv_layout(paging, max_len)).validate()?;
        let pages = paging.map(|p| Pages::new(p.page_size, p.pages, slots, max_len));
        let weight_bytes = ck.check_all()?;
        let paged = pages.as_ref().map(|p| (p.page_size(), p.max_pages(), p.count()));
        let shards = ranks.iter().enumerate().map(|(r, g)| Shard::load(g, &ck, &c, local, r, world, weight_bytes, bf16, slots, max_len, paged, format)).collect::<Result<Vec<_>>>()?;
        let graphs_on = ranks.iter().all(|g| !g.stream.cu_stream().is_null());
        let mut m = Model { config: c, shards, ar, slots, max_len, lens: vec![0; slots], prefill_chunk: 0, pages, plan_drops: 0, eager_steps: HashMap::new(), graphs_on, device_next: None, decoded: None, ahead: DecodeAhead::Off };
        m.set_decode_ahead(DecodeAhead::from_env())?;
        Ok(m)
    }

    /// Sequences the cache holds room for, and tokens each.
    pub fn capacity(&self) -> (usize, usize) {
        (self.slots, self.max_len)
    }

    /// Tokens each slot holds.
    pub fn lens(&self) -> &[usize] {
        &self.lens
    }

    /// GPUs the model is split over.
    pub fn world(&self) -> usize {
        self.shards.len()
    }

    /// How [`Model::decode_steps`] runs greedy steps on one GPU from now on (at load:
    /// [`DecodeAhead::from_env`]). Taking [`DecodeAhead::Ring`] up on one GPU, or leaving it, waits for the stream,
    /// makes or frees the token ring and drops the captured graphs (they hold the argmax's ring, or none): each
    /// batch size's next step runs eagerly and captures again.
    pub fn set_decode_ahead(&mut self, ahead: DecodeAhead) -> Result<()> {
        // Split over ranks the steps run the plain loop (the argmax does not advance the inputs): no ring.
        let ring = ahead == DecodeAhead::Ring && self.argmax_advances();
        let has = matches!(self.shards[0].ring, TokenRing::Mapped(..));
        if ring != has {
            self.synchronize("changing how the decode steps run ahead")?;
            let s = &mut self.shards[0];
            s.ring = if ring { TokenRing::mapped(&s.gpu, self.slots)? } else { TokenRing::off(&s.gpu)? };
            for s in &mut self.shards {
                s.graphs.clear();
            }
            self.eager_steps.clear();
        }
        self.ahead = ahead;
        Ok(())
    }

    /// Whether a decode step's argmax writes the next step's ids, positions and lengths on the device: on one
    /// GPU (split over ranks, rank 0's argmax would have to reach every rank's inputs).
    fn argmax_advances(&self) -> bool {
        self.shards.len() == 1
    }

    /// Waits for every rank's stream (`what` names the step in an error).
    pub fn synchronize(&self, what: &str) -> Result<()> {
        for s in &self.shards {
            s.gpu.sync_after(what)?;
        }
        Ok(())
    }

    /// Replays the captured decode graph of batch `n` `times` times back to back, synchronized once at the
    /// end, and returns the milliseconds per replay: the GPU's time for the step alone, without the
    /// host's share of [`Model::decode`] (the token uploads, the graph launch, reading the tokens). On one
    /// GPU each replay is the next greedy step (the argmax advances the inputs on the device), so each
    /// sequence needs room for `times` more tokens (refused otherwise) and holds them after; split over
    /// ranks the same step is recomputed (the cache rows it writes get the values they hold). `None`
    /// where no graph of that batch has been captured (graphs off, or fewer eager steps than the capture
    /// waits for).
    pub fn replay_decode(&mut self, n: usize, times: usize) -> Result<Option<f64>> {
        if times == 0 || n == 0 || n > self.slots || !self.shards.iter().all(|s| s.graphs.contains_key(&n)) {
            return Ok(None);
        }
        // The device's positions must be a decode step's of these n sequences (not a prompt's, say): the room
        // below is counted from the host's lengths.
        if self.decoded != Some(n) {
            return Err(Error::InvalidInput(format!("replaying the decode step of batch {n}: the last call was not a decode step of that batch")));
        }
        let advances = self.argmax_advances();
        if let Some(b) = (0..n).find(|&b| advances && self.lens[b] + times > self.max_len) {
            return Err(Error::InvalidInput(format!("{times} replays of the decode step: sequence {b} holds {} of the cache's {} tokens", self.lens[b], self.max_len)));
        }
        if advances {
            let room: Vec<(usize, usize)> = (0..n).map(|b| (b, self.lens[b] + times)).collect();
            self.reserve(&room)?;
        }
        self.synchronize("before the replays")?;
        // The device's ids move on with each replay: the host's record of them is stale from here (and its
        // positions unknown, should a replay fail).
        self.device_next = None;
        self.decoded = None;
        if advances {
            for l in &mut self.lens[..n] {
                *l += times;
            }
        }
        let t = std::time::Instant::now();
        for _ in 0..times {
            for (r, s) in self.shards.iter().enumerate() {
                s.graphs[&n].launch().during(|| format!("replaying rank {r}'s decode graph of batch {n}"))?;
            }
        }
        self.synchronize("the replays")?;
        let ms = t.elapsed().as_secs_f64() * 1e3 / times as f64;
        self.decoded = Some(n);
        Ok(Some(ms))
    }

    /// After FP8 plans were dropped ([`DEQUANT_PLANS`]): every rank's captured graphs go (one may have read a
    /// dropped plan's buffer), and each batch size's next decode step runs eagerly first, making its plans
    /// again outside a capture.
    fn after_plans_dropped(&mut self) {
        if self.shards.iter().any(|s| s.gemms.dropped) {
            for s in &mut self.shards {
                s.gemms.dropped = false;
                s.graphs.clear();
            }
            self.eager_steps.clear();
            self.plan_drops += 1;
        }
    }

    /// Grows every rank's work buffers to `tokens` tokens; new buffers make the captured graphs stale.
    fn ensure(&mut self, tokens: usize) -> Result<()> {
        let c = self.config.clone();
        let mut grew = false;
        for s in &mut self.shards {
            grew |= s.ensure(tokens, self.slots, &c)?;
        }
        if grew {
            // The next step of each batch size runs eagerly again first (its GEMMs encode tensor maps for
            // the new buffers outside any capture); the new buffers hold no step's inputs.
            self.eager_steps.clear();
            self.device_next = None;
            self.decoded = None;
        }
        Ok(())
    }

    /// The same ids, positions and slots on every rank.
    fn upload_tokens(&mut self, ids: &[i32], pos: &[i32], slot: &[i32]) -> Result<()> {
        let n = ids.len();
        for s in &mut self.shards {
            let b = s.scratch.bufs.as_mut().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
            let st = &s.gpu.stream;
            st.memcpy_htod(ids, &mut b.ids.slice_mut(..n)).during(|| "copying ids".into())?;
            st.memcpy_htod(pos, &mut b.pos.slice_mut(..n)).during(|| "copying positions".into())?;
            st.memcpy_htod(slot, &mut b.slot.slice_mut(..n)).during(|| "copying slots".into())?;
        }
        Ok(())
    }

    /// Prefills `prompts` (token ids) into slots `0..prompts.len()` (every slot's cache restarted) and
    /// returns each sequence's next token by `sampling`; with `all_logits`, also every position's logits
    /// (`[tokens][vocab]` f32, prompts in order) for comparing with a reference. Prompts longer than the
    /// prefill chunk ([`Model::set_prefill_chunk`]) run in chunks.
    pub fn prefill(&mut self, prompts: &[&[u32]], sampling: Sampling, rng: &mut Rng, all_logits: bool) -> Result<(Vec<u32>, Option<Vec<f32>>)> {
        // The prompts overwrite the device's ids, positions and slots (even if this fails part way).
        self.device_next = None;
        self.decoded = None;
        let vocab = self.config.vocab;
        if prompts.is_empty() || prompts.len() > self.slots {
            return Err(Error::InvalidInput(format!("{} prompts for {} cache slots", prompts.len(), self.slots)));
        }
        for (b, p) in prompts.iter().enumerate() {
            if p.is_empty() || p.len() > self.max_len {
                return Err(Error::InvalidInput(format!("prompt {b} has {} tokens: 1..={} fit the cache", p.len(), self.max_len)));
            }
            if let Some(&t) = p.iter().find(|&&t| t as usize >= vocab) {
                return Err(Error::InvalidInput(format!("prompt {b}: token id {t} is outside the vocabulary of {vocab}")));
            }
        }
        for slot in 0..self.slots {
            self.truncate(slot, 0)?;
        }
        let seqs: Vec<(usize, &[u32])> = prompts.iter().copied().enumerate().collect();
        self.append(&seqs, sampling, rng, all_logits)
    }

    /// Appends `tokens` to the sequence each `(slot, tokens)` names — after the tokens the slot holds
    /// (none for a slot never filled or [`Model::release`]d: a new sequence joining the batch; otherwise
    /// a continuation, as the next turn of a chat) — the other slots untouched, and returns each listed
    /// sequence's next token by `sampling` (in the order listed); with `all_logits`, also the logits of
    /// every appended token (`[tokens][vocab]` f32, in the order listed). The new tokens attend to the
    /// slot's cached rows and to each other (causal), in chunks of at most [`Model::set_prefill_chunk`]
    /// tokens. Decode steps then take slots `0..n` as before, each of them holding a sequence.
    pub fn extend(&mut self, seqs: &[(usize, &[u32])], sampling: Sampling, rng: &mut Rng, all_logits: bool) -> Result<(Vec<u32>, Option<Vec<f32>>)> {
        if seqs.is_empty() || seqs.len() > self.slots {
            return Err(Error::InvalidInput(format!("{} sequences for {} cache slots", seqs.len(), self.slots)));
        }
        self.extend_checks(seqs)?;
        // The step overwrites the device's ids, positions and slots (even if it fails part way).
        self.device_next = None;
        self.decoded = None;
        self.append(seqs, sampling, rng, all_logits)
    }

    /// [`Model::extend`]'s checks of `seqs`: slots inside the cache and listed once, 1.. new tokens that fit
    /// the slot's cache, ids inside the vocabulary.
    fn extend_checks(&self, seqs: &[(usize, &[u32])]) -> Result<()> {
        let vocab = self.config.vocab;
        let mut seen = vec![false; self.slots];
        for (i, &(slot, tokens)) in seqs.iter().enumerate() {
            if slot >= self.slots {
                return Err(Error::InvalidInput(format!("sequence {i}: slot {slot} is outside the cache's {} slots", self.slots)));
            }
            if std::mem::replace(&mut seen[slot], true) {
                return Err(Error::InvalidInput(format!("sequence {i}: slot {slot} is listed twice")));
            }
            let held = self.lens[slot];
            if tokens.is_empty() || held + tokens.len() > self.max_len {
                return Err(Error::InvalidInput(format!("sequence {i}: slot {slot} holds {held} tokens and {} are appended: 1..={} new tokens fit the cache",
                                                       tokens.len(), self.max_len - held)));
            }
            if let Some(&t) = tokens.iter().find(|&&t| t as usize >= vocab) {
                return Err(Error::InvalidInput(format!("sequence {i}: token id {t} is outside the vocabulary of {vocab}")));
            }
        }
        Ok(())
    }

    /// Empties `slot` (its sequence finished): the next [`Model::extend`] of it starts a new sequence.
    pub fn release(&mut self, slot: usize) -> Result<()> {
        self.truncate(slot, 0)
    }

    /// Keeps only the first `len` tokens of `slot`'s sequence (at most the tokens it holds: more is
    /// refused): the next [`Model::extend`] of it continues from there, overwriting the rows after (a chat
    /// turn whose rendering of the last reply differs from the tokens generated, say).
    pub fn truncate(&mut self, slot: usize, len: usize) -> Result<()> {
        let slots = self.slots;
        let l = self.lens.get_mut(slot).ok_or_else(|| Error::InvalidInput(format!("slot {slot} is outside the cache's {slots} slots")))?;
        if len > *l {
            return Err(Error::InvalidInput(format!("slot {slot} holds {} tokens: it cannot be cut to {len}", *l)));
        }
        if len < *l {
            *l = len;
            // The device's next-step inputs counted the tokens cut off.
            self.device_next = None;
            self.decoded = None;
        }
        if let Some(p) = &mut self.pages {
            p.shrink(slot, *l);
        }
        Ok(())
    }

    /// Moves `from`'s sequence into the empty slot `to` (never filled, or released), leaving `from` empty:
    /// a paged cache gives `to` the pages `from` held (no data moves), a contiguous one copies the sequence's
    /// rows (every layer's K and V, each head's held rows). Keeps a batch's sequences in slots `0..n` as
    /// others finish ([`crate::serve`]).
    pub fn move_slot(&mut self, from: usize, to: usize) -> Result<()> {
        let slots = self.slots;
        if from >= slots || to >= slots || from == to {
            return Err(Error::InvalidInput(format!("moving slot {from} to slot {to}: two different slots of the cache's {slots} needed")));
        }
        let len = self.lens[from];
        if len == 0 || self.lens[to] != 0 {
            return Err(Error::InvalidInput(format!("moving slot {from} ({len} tokens) to slot {to} ({} tokens): from a sequence into an empty slot", self.lens[to])));
        }
        // The device's next-step inputs name slots and positions: copied again from here.
        self.device_next = None;
        self.decoded = None;
        // The lengths first: a failed copy below leaves them agreeing with the pages (paged) — the table is
        // sent again with the next step — or an error the caller sees (contiguous).
        self.lens[to] = len;
        self.lens[from] = 0;
        match &mut self.pages {
            Some(p) => {
                p.move_slot(from, to);
                // The changed table to every rank.
                self.reserve(&[])
            }
            None => {
                // Per layer, K and V: one copy from head 0's first row to the last head's `len`-th (the rows
                // between heads past `len` ride along, unread).
                for s in &mut self.shards {
                    let (kv, d, max_len) = (s.local.kv_heads, self.config.head_dim, self.max_len);
                    let n = ((kv - 1) * max_len + len) * d;
                    for (ck, cv) in &mut s.cache {
                        for buf in [ck, cv] {
                            copy_within(&s.gpu, buf, from * kv * max_len * d, to * kv * max_len * d, n)?;
                        }
                    }
                }
                Ok(())
            }
        }
    }

    /// A paged cache: gives each `(slot, len)` the pages its first `len` tokens need and copies the block
    /// table to every rank when it changed — an error naming the pool, before anything runs, when too
    /// few pages are free. Nothing to do on a contiguous cache.
    fn reserve(&mut self, want: &[(usize, usize)]) -> Result<()> {
        let Some(p) = self.pages.as_mut() else { return Ok(()) };
        p.reserve(want).map_err(Error::InvalidInput)?;
        if let Some(t) = p.take_table() {
            for s in &mut self.shards {
                if let Err(e) = s.gpu.stream.memcpy_htod(&t, &mut s.table.slice_mut(..t.len())).during(|| "copying the block table".into()) {
                    // Sent again with the next step's pages, to every rank.
                    p.mark_changed();
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// A paged cache's free pages and pages in all, of `page_size` tokens: `(free, pages, page_size)`;
    /// `None` for a contiguous cache.
    pub fn pages(&self) -> Option<(usize, usize, usize)> {
        self.pages.as_ref().map(|p| (p.free(), p.count(), p.page_size()))
    }

    /// Most tokens one prefill step ([`Model::prefill`], [`Model::extend`]) takes: longer prompts, or
    /// several prompts together, run as chunks of at most `tokens` tokens, each attending to the cached
    /// rows before it (gathered from the cache: `Step::Cached`). Bounds the work buffers, which grow with
    /// a step's tokens (about 150 KB a token at Llama-3-8B's shape), at the price of reading each chunk's
    /// cached keys again. 0 (the default): no limit.
    pub fn set_prefill_chunk(&mut self, tokens: usize) {
        self.prefill_chunk = tokens;
    }

    /// The prefill chunk ([`Model::set_prefill_chunk`]; 0: none).
    pub fn prefill_chunk(&self) -> usize {
        self.prefill_chunk
    }

    /// [`Model::extend`] after its checks: the chunks' forward steps, their logits and next tokens, and
    /// the slots' new lengths. On an error the slots keep their lengths and a paged cache gives back the
    /// pages taken for the new tokens.
    fn append(&mut self, seqs: &[(usize, &[u32])], sampling: Sampling, rng: &mut Rng, all_logits: bool) -> Result<(Vec<u32>, Option<Vec<f32>>)> {
        let result = self.append_steps(seqs, sampling, rng, all_logits);
        self.after_plans_dropped();
        if result.is_err() {
            self.give_back_pages(seqs);
        }
        result
    }

    /// After a failed step over `seqs`: a paged cache takes back the pages reserved for their new tokens
    /// (the slots keep their lengths).
    fn give_back_pages(&mut self, seqs: &[(usize, &[u32])]) {
        if let Some(p) = &mut self.pages {
            for &(slot, _) in seqs {
                p.shrink(slot, self.lens[slot]);
            }
        }
    }

    fn append_steps(&mut self, seqs: &[(usize, &[u32])], sampling: Sampling, rng: &mut Rng, all_logits: bool) -> Result<(Vec<u32>, Option<Vec<f32>>)> {
        let c = self.config.clone();
        let lens: Vec<usize> = seqs.iter().map(|(_, t)| t.len()).collect();
        // Each sequence's cached tokens before the new ones, and its first row in `all_logits`.
        let held: Vec<usize> = seqs.iter().map(|&(slot, _)| self.lens[slot]).collect();
        let first_row: Vec<usize> = lens.iter().scan(0, |at, &l| Some(std::mem::replace(at, *at + l))).collect();
        let chunks = chunk::plan(&lens, self.prefill_chunk);
        let most = chunks.iter().map(|ch| ch.iter().map(|p| p.count).sum::<usize>()).max().unwrap_or(0);
        let ends: Vec<(usize, usize)> = seqs.iter().zip(&held).map(|(&(slot, t), &h)| (slot, h + t.len())).collect();
        self.reserve(&ends)?;
        self.ensure(most)?;
        let offset = |n: usize| u32::try_from(n).map_err(|_| Error::InvalidInput(format!("a prefill step over {n} key rows: more than a u32 offset holds")));
        let mut full = if all_logits { Some(vec![0f32; lens.iter().sum::<usize>() * c.vocab]) } else { None };
        let mut next = Vec::with_capacity(seqs.len());
        for ch in &chunks {
            let tokens: usize = ch.iter().map(|p| p.count).sum();
            let (mut ids, mut pos, mut slot) = (Vec::with_capacity(tokens), Vec::with_capacity(tokens), Vec::with_capacity(tokens));
            let (mut cu_q, mut cu_k, mut keys) = (vec![0u32], vec![0u32], 0usize);
            for p in ch {
                let (s, t) = seqs[p.seq];
                // The piece's first token's position: after the slot's cached tokens and the pieces before.
                let at = held[p.seq] + p.start;
                ids.extend(t[p.start..p.start + p.count].iter().map(|&x| x as i32));
                pos.extend((at..at + p.count).map(|x| x as i32));
                slot.extend(std::iter::repeat_n(s as i32, p.count));
                keys += at + p.count;
                let q_end = cu_q.last().map_or(0, |&x| x as usize) + p.count;
                cu_q.push(offset(q_end)?);
                cu_k.push(offset(keys)?);
            }
            self.upload_tokens(&ids, &pos, &slot)?;
            if cu_k == cu_q {
                // Every piece starts its sequence: the chunk's own K and V are all it attends to.
                self.forward(tokens, Step::Prompts(&cu_q))?;
            } else {
                let (mut kslot, mut kpos) = (Vec::with_capacity(keys), Vec::with_capacity(keys));
                for p in ch {
                    let rows = held[p.seq] + p.start + p.count;
                    kslot.extend(std::iter::repeat_n(seqs[p.seq].0 as i32, rows));
                    kpos.extend(0..rows as i32);
                }
                for s in &mut self.shards {
                    s.upload_keys(&kslot, &kpos, &c)?;
                }
                self.forward(tokens, Step::Cached { cu_q: &cu_q, cu_k: &cu_k })?;
            }
            if let Some(f) = &mut full {
                let rows = self.head_all(tokens, &c)?;
                for (p, &q0) in ch.iter().zip(&cu_q) {
                    let (from, to) = (q0 as usize * c.vocab, (first_row[p.seq] + p.start) * c.vocab);
                    f[to..to + p.count * c.vocab].copy_from_slice(&rows[from..from + p.count * c.vocab]);
                }
            }
            // The sequences this chunk ends: their last rows' logits give the next tokens (in the order
            // listed: the chunks end the sequences in that order).
            let ends: Vec<i32> = ch.iter().zip(&cu_q).filter(|(p, _)| p.ends(lens[p.seq])).map(|(p, &q0)| (q0 as usize + p.count - 1) as i32).collect();
            if !ends.is_empty() {
                self.upload_rows(&ends)?;
                self.head_launch(ends.len(), &c, false)?;
                next.extend(self.shards[0].head_read(ends.len(), sampling, rng, &c)?);
            }
        }
        for (&(slot, _), &l) in seqs.iter().zip(&lens) {
            self.lens[slot] += l;
        }
        self.check_ranks()?;
        Ok((next, full))
    }

    /// The logits of the last decode step's sequences (`[n][vocab]` f32, slot order), for inspection or a
    /// sampler of your own; an error where the last call was not a decode step (or a replay of one).
    pub fn decode_logits(&self) -> Result<Vec<f32>> {
        let n = self.decoded.ok_or_else(|| Error::InvalidInput("decode logits: the last call was not a decode step".into()))?;
        let s = &self.shards[0];
        let bits = s.gpu.stream.clone_dtoh(&s.logits.slice(..n * self.config.vocab)).during(|| "copying logits".into())?;
        Ok(bits.into_iter().map(|x| if s.k.bf16 { bf16::from_bits(x).to_f32() } else { f16::from_bits(x).to_f32() }).collect())
    }

    /// One decode step: `tokens[b]` appended to slot `b` (`b < tokens.len()`, every slot prefilled); returns
    /// each sequence's next token.
    pub fn decode(&mut self, tokens: &[u32], sampling: Sampling, rng: &mut Rng) -> Result<Vec<u32>> {
        let n = tokens.len();
        let pos = self.decode_launch(n, Some(tokens))?;
        let c = self.config.clone();
        let next = self.shards[0].head_read(n, sampling, rng, &c)?;
        self.check_ranks()?;
        // On one GPU the argmax moved the positions on to `lens`; split over ranks they stay this step's.
        self.decoded = Some(n);
        if self.argmax_advances() && sampling == Sampling::Greedy {
            // The argmax's tokens (as read, negative ones as 0: as the kernel writes them) and the next positions.
            self.device_next = Some((n, next.iter().map(|&t| t as i32).collect(), pos.iter().map(|&p| p + 1).collect()));
        }
        Ok(next)
    }

    /// Up to `steps` decode steps of slots `0..tokens.len()` from `tokens`, each step's tokens the next
    /// one's input, ending after the first step for which `stop(its tokens)` is true; returns every step's
    /// tokens. What [`Model::decode`] in a loop returns, but greedy on one GPU ([`DecodeAhead::Ring`], the
    /// default) the host does not wait between steps: the argmax writes the next step's inputs on the device
    /// and posts its tokens into a ring in mapped host memory, so step `j + 1` is launched before the host
    /// waits for step `j`'s — the host's share of a step (the graph's launch, reading the tokens: 38–47 µs at
    /// batch 1) runs while the GPU computes, and nothing runs on the stream between two steps. The step
    /// launched past a stop is taken back: the lengths stay the stopped step's, the device's inputs are marked
    /// stale (the next step copies them from the host) and the cache rows it wrote lie past every sequence's
    /// end. Every sequence needs room for `steps` more tokens (refused up front otherwise). Sampling other
    /// than greedy, a model split over ranks, or [`DecodeAhead::Off`] run the plain loop.
    pub fn decode_steps(&mut self, tokens: &[u32], steps: usize, sampling: Sampling, rng: &mut Rng, mut stop: impl FnMut(&[u32]) -> bool)
                        -> Result<Vec<Vec<u32>>> {
        let n = tokens.len();
        if n == 0 || n > self.slots {
            return Err(Error::InvalidInput(format!("{n} sequences for {} cache slots", self.slots)));
        }
        if let Some(b) = (0..n).find(|&b| self.lens[b] + steps > self.max_len) {
            return Err(Error::InvalidInput(format!("{steps} decode steps: sequence {b} holds {} of the cache's {} tokens", self.lens[b], self.max_len)));
        }
        let mut out: Vec<Vec<u32>> = Vec::with_capacity(steps);
        if steps == 0 {
            return Ok(out);
        }
        if self.ahead == DecodeAhead::Off || sampling != Sampling::Greedy || !self.argmax_advances() {
            let mut cur = tokens.to_vec();
            for _ in 0..steps {
                cur = self.decode(&cur, sampling, rng)?;
                out.push(cur.clone());
                if stop(&cur) {
                    break;
                }
            }
            return Ok(out);
        }
        // Each row's launch count starts again at 0: with the stream idle no grid writes the ring or the counts
        // meanwhile (an earlier call's step run ahead of its stop may still have been running).
        self.synchronize("before the decode steps")?;
        let s = &mut self.shards[0];
        if let TokenRing::Mapped(ring, ticks) = &mut s.ring {
            ring.zero();
            s.gpu.stream.memset_zeros(ticks).during(|| "zeroing the token ring's counts".into())?;
        }
        self.decode_launch(n, Some(tokens))?;
        self.decoded = Some(n);
        for j in 0..steps {
            let ahead = j + 1 < steps;
            if ahead {
                // The device holds step j's tokens and positions as step j + 1's inputs (its argmax advanced them).
                self.decode_launch(n, None)?;
                self.decoded = Some(n);
            }
            let ids = self.ring_tokens(n, j)?;
            self.check_ranks()?;
            let stopped = stop(&ids);
            if !ahead {
                // The last step: the device's inputs are its tokens at the positions `lens`.
                self.device_next = Some((n, ids.iter().map(|&t| t as i32).collect(), self.lens[..n].iter().map(|&l| l as i32).collect()));
            } else if stopped {
                // Step j + 1 ran ahead of the stop: its token is not kept (its cache rows lie past each
                // sequence's end, written over by the next step there), and the device's inputs are its
                // outputs, not step j's: the next step copies the host's.
                for l in &mut self.lens[..n] {
                    *l -= 1;
                }
                self.device_next = None;
                self.decoded = None;
            }
            out.push(ids);
            if stopped {
                break;
            }
        }
        Ok(out)
    }

    /// Step `j`'s tokens of rows `0..n` (the `j`-th argmax since [`Model::decode_steps`] zeroed the counts), as
    /// the argmax posts them into the ring: spins until each row's word carries count `j + 1`, checking
    /// now and then that the stream still runs (a failed grid's error is returned; a stream done without
    /// the word is an internal error, not a hang).
    fn ring_tokens(&self, n: usize, j: usize) -> Result<Vec<u32>> {
        let s = &self.shards[0];
        let TokenRing::Mapped(ring, ticks) = &s.ring else {
            return Err(Error::InvalidInput("no token ring on this model (internal)".into()));
        };
        let want = (j as u32).wrapping_add(1);
        let base = (j % TOKEN_RING) * ticks.len();
        let word = |b: usize| ring.read(base + b).ok_or_else(|| Error::InvalidInput(format!("token ring row {b} (internal)")));
        let mut ids = Vec::with_capacity(n);
        for b in 0..n {
            let mut spins = 0u32;
            let w = loop {
                let w = word(b)?;
                if (w >> 32) as u32 == want {
                    break w;
                }
                spins = spins.wrapping_add(1);
                if spins.is_multiple_of(1024) && mapped::stream_idle(&s.gpu.stream)? {
                    // Everything queued has finished, so the word is final.
                    let w = word(b)?;
                    if (w >> 32) as u32 == want {
                        break w;
                    }
                    return Err(Error::InvalidInput(format!("decode step {j}'s token of sequence {b} never reached the host (internal: its ring word holds count {})", w >> 32)));
                }
                std::hint::spin_loop();
            };
            // Negative ones (a row of NaNs) as 0: as `decode` reads them.
            ids.push((w as u32 as i32).max(0) as u32);
        }
        Ok(ids)
    }

    /// Launches one decode step of slots `0..n` (every kernel, or the captured graph) and counts its token
    /// in `lens`; returns the step's positions. `tokens`: the ids to append (checked, copied to the
    /// device unless the last step's argmax left them there); `None`: the device's own, where the last step
    /// was a decode of these `n` sequences whose argmax advanced the inputs (one GPU).
    fn decode_launch(&mut self, n: usize, tokens: Option<&[u32]>) -> Result<Vec<i32>> {
        let c = self.config.clone();
        if n == 0 || n > self.slots {
            return Err(Error::InvalidInput(format!("{n} sequences for {} cache slots", self.slots)));
        }
        let advance = self.argmax_advances();
        match tokens {
            Some(t) => self.decode_checks(t)?,
            None => {
                if !(advance && self.decoded == Some(n)) {
                    return Err(Error::InvalidInput(format!("a decode step of batch {n} on the device's inputs: the last call was not one that left them (internal)")));
                }
                if let Some(b) = (0..n).find(|&b| self.lens[b] >= self.max_len) {
                    return Err(Error::InvalidInput(format!("sequence {b} holds {} tokens: decode needs 1..{} (the cache's length)", self.lens[b], self.max_len)));
                }
            }
        }
        let room: Vec<(usize, usize)> = (0..n).map(|b| (b, self.lens[b] + 1)).collect();
        self.reserve(&room)?;
        self.ensure(n)?;
        if tokens.is_none() && self.decoded != Some(n) {
            // New work buffers (none are made for a batch already run): the device's inputs are gone.
            return Err(Error::InvalidInput(format!("a decode step of batch {n}: the work buffers were remade (internal)")));
        }
        let pos: Vec<i32> = self.lens[..n].iter().map(|&l| l as i32).collect();
        let lens: Vec<i32> = pos.iter().map(|&p| p + 1).collect();
        // On one GPU each step's argmax writes the next step's ids, positions and lengths (`advance`): where
        // the host's are those (a greedy run going on), nothing is copied — the GPU goes from one step to
        // the next without waiting for copies (session 70: the host's share of a batch-1 step was 49–61 µs).
        // `KERNEL_LAB_LLM_HOST_INPUTS=1` copies them every step anyway (timing A/B).
        static HOST_INPUTS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let forced = *HOST_INPUTS.get_or_init(|| std::env::var("KERNEL_LAB_LLM_HOST_INPUTS").is_ok_and(|v| v.trim() == "1"));
        let last = self.device_next.take();
        // `None`: the device's own ids (the last step's argmax left them there).
        let ids: Option<Vec<i32>> = tokens.map(|t| t.iter().map(|&t| t as i32).collect());
        let synced = ids.as_ref().is_none_or(|ids| last.is_some_and(|(m, i, p)| m == n && &i == ids && p == pos) && !forced);
        self.decoded = None;
        if let (false, Some(ids)) = (synced, &ids) {
            let slot: Vec<i32> = (0..n as i32).collect();
            self.upload_tokens(ids, &pos, &slot)?;
        }
        self.decode_plans(n, (!synced).then_some(&lens))?;
        if !synced {
            let rows: Vec<i32> = (0..n as i32).collect();
            self.upload_rows(&rows)?;
        }
        let eager = *self.eager_steps.get(&n).unwrap_or(&0);
        if self.shards.iter().all(|s| s.graphs.contains_key(&n)) {
            for (r, s) in self.shards.iter_mut().enumerate() {
                // Its FP8 plans in use (the LRU of `DEQUANT_PLANS`).
                s.gemms.touch_rows(n);
                s.graphs[&n].launch().during(|| format!("replaying rank {r}'s decode graph of batch {n}"))?;
            }
        } else if self.graphs_on && eager > 0 {
            if let Err(e) = self.capture_decode(n, &c) {
                // A step that cannot be captured still runs: eagerly, from now on, saying why once.
                eprintln!("note: the decode step could not be captured as a CUDA graph ({e}); launching its kernels one by one from now on");
                self.graphs_on = false;
                for s in &mut self.shards {
                    s.graphs.clear();
                }
                self.forward(n, Step::Decode)?;
                self.head_launch(n, &c, advance)?;
            }
        } else {
            let r = self.forward(n, Step::Decode).and_then(|_| self.head_launch(n, &c, advance));
            // The eager step may have made plans, and dropped others a graph of another batch size reads
            // (also when it failed after dropping them).
            self.after_plans_dropped();
            r?;
            self.eager_steps.insert(n, eager + 1);
        }
        for l in &mut self.lens[..n] {
            *l += 1;
        }
        Ok(pos)
    }

    /// [`Model::decode`]'s checks of `tokens` (slots `0..n` inside the cache: the caller's count): each slot
    /// holds a sequence with room for one more token, each id inside the vocabulary.
    fn decode_checks(&self, tokens: &[u32]) -> Result<()> {
        for (b, &t) in tokens.iter().enumerate() {
            if self.lens[b] == 0 || self.lens[b] >= self.max_len {
                return Err(Error::InvalidInput(format!("sequence {b} holds {} tokens: decode needs 1..{} (the cache's length)", self.lens[b], self.max_len)));
            }
            if t as usize >= self.config.vocab {
                return Err(Error::InvalidInput(format!("sequence {b}: token id {t} is outside the vocabulary of {}", self.config.vocab)));
            }
        }
        Ok(())
    }

    /// Every rank's decode attention plan for `n` sequences (made the first time), and with `lens` its
    /// sequences' lengths copied to the device.
    fn decode_plans(&mut self, n: usize, lens: Option<&[i32]>) -> Result<()> {
        let c = &self.config;
        for s in &mut self.shards {
            if !s.decode.contains_key(&n) {
                let paging = s.paging.map(|(page_size, _, pages)| Paging { page_size, pages });
                let desc = DecodeDesc::new(n, s.local.heads, s.local.kv_heads, c.head_dim, self.max_len).with_layout(kv_layout(paging, self.max_len));
                let mut plan = DecodePlan::<T>::new(&s.gpu, desc)?;
                // The grid before decode attention is the rotary kernel, which writes only the new tokens' cache
                // rows (a mixed step's prompt rows are other slots'); the lengths were written before the step
                // began (copied from the host, or by the previous step's argmax) and the older rows by earlier
                // steps. `KERNEL_LAB_LLM_CACHE_AT_LAUNCH=0` turns it off (timing A/B).
                if std::env::var("KERNEL_LAB_LLM_CACHE_AT_LAUNCH").map_or(true, |v| v.trim() != "0") {
                    plan.set_cache_ready(CacheReady::AtLaunch);
                }
                let dev = s.gpu.zeros::<i32>(n)?;
                s.decode.insert(n, (plan, dev));
            }
            if let (Some(lens), Some((_, dev))) = (lens, s.decode.get_mut(&n)) {
                s.gpu.stream.memcpy_htod(lens, dev).during(|| "copying lengths".into())?;
            }
        }
        Ok(())
    }

    /// A decode step and an admission in one forward pass (continuous batching's mixed step): slot `b <
    /// tokens.len()` (each holding a sequence) appends `tokens[b]`, as [`Model::decode`], and each `(slot,
    /// prompt)` of `seqs` starts a new sequence in an empty slot `≥ tokens.len()`, as [`Model::extend`];
    /// returns the next token of each, the decoding slots' first, then `seqs`' in order. The weights are read
    /// once for both: the GEMMs run over all rows, the decode rows' attention is the decode kernels' on the
    /// cache, the prompts' the prefill kernels' on their own packed K and V. Where the rows do not fit one
    /// prefill chunk ([`Model::set_prefill_chunk`]), the mixed pass takes the decode rows and the prompts'
    /// first tokens up to the chunk (whole prompts in order, then the head of one), and [`Model::extend`]
    /// appends the rest in chunks (vLLM's chunked prefill); where the decode rows alone fill a chunk, it is
    /// [`Model::extend`] of every row (the decoding slots' tokens as one-token continuations). An error in the
    /// later chunks leaves the mixed pass's rows appended (the error says so).
    pub fn mixed(&mut self, tokens: &[u32], seqs: &[(usize, &[u32])], sampling: Sampling, rng: &mut Rng) -> Result<Vec<u32>> {
        let c = self.config.clone();
        let n = tokens.len();
        if n == 0 || seqs.is_empty() || n + seqs.len() > self.slots {
            return Err(Error::InvalidInput(format!("a mixed step of {n} decoding and {} new sequences: at least one of each, {} in all at most",
                                                   seqs.len(), self.slots)));
        }
        self.decode_checks(tokens)?;
        if let Some((i, &(slot, _))) = seqs.iter().enumerate().find(|(_, (slot, _))| *slot < n || self.lens.get(*slot).is_some_and(|&l| l > 0)) {
            return Err(Error::InvalidInput(format!("new sequence {i}: slot {slot} is not an empty slot after the {n} decoding ones")));
        }
        let all: Vec<(usize, &[u32])> = tokens.iter().enumerate().map(|(b, t)| (b, std::slice::from_ref(t))).chain(seqs.iter().copied()).collect();
        let budget = self.prefill_chunk;
        if budget != 0 && n >= budget {
            return self.extend(&all, sampling, rng, false).map(|r| r.0);
        }
        // `extend`'s checks of every row (slots, lengths, vocabulary) before anything runs.
        self.extend_checks(&all)?;
        // The mixed pass's share of the prompts (all of them without a chunk: the first chunk of
        // `budget − n` tokens, whole prompts in order, then the head of one), and what the chunks after take.
        let lens: Vec<usize> = seqs.iter().map(|(_, p)| p.len()).collect();
        let head = chunk::plan(&lens, if budget == 0 { 0 } else { budget - n }).swap_remove(0);
        let first: Vec<(usize, &[u32])> = head.iter().map(|pc| (seqs[pc.seq].0, &seqs[pc.seq].1[..pc.count])).collect();
        let rest: Vec<(usize, &[u32])> = seqs.iter().enumerate().filter(|&(i, _)| head.get(i).is_none_or(|pc| !pc.ends(lens[i])))
                                             .map(|(i, &(slot, p))| (slot, &p[head.get(i).map_or(0, |pc| pc.count)..])).collect();
        self.device_next = None;
        self.decoded = None;
        let r = self.mixed_step(tokens, &first, sampling, rng, &c);
        self.after_plans_dropped();
        let toks = match r {
            Ok(t) => t,
            Err(e) => {
                let ran: Vec<(usize, &[u32])> = all[..n].iter().copied().chain(first.iter().copied()).collect();
                self.give_back_pages(&ran);
                return Err(e);
            }
        };
        if rest.is_empty() {
            return Ok(toks);
        }
        let later = self.extend(&rest, sampling, rng, false)
                        .map_err(|e| Error::InvalidInput(format!("a mixed step's later prompt chunks (its first chunk appended): {e}")))?.0;
        // The decoding slots' tokens, then each new sequence's: from the mixed pass where it ended there, else
        // from the chunks after.
        let new = chunk::next_in_order(&lens, &head, &toks[n..], &later)
                      .ok_or_else(|| Error::InvalidInput(format!("a mixed step's {} + {} next tokens for {} sequences (internal)", toks.len(), later.len(), n + seqs.len())))?;
        Ok([&toks[..n], &new[..]].concat())
    }

    /// [`Model::mixed`] after its checks.
    fn mixed_step(&mut self, tokens: &[u32], seqs: &[(usize, &[u32])], sampling: Sampling, rng: &mut Rng, c: &Config) -> Result<Vec<u32>> {
        let n = tokens.len();
        let ends: Vec<(usize, usize)> = (0..n).map(|b| (b, self.lens[b] + 1)).chain(seqs.iter().map(|&(slot, p)| (slot, p.len()))).collect();
        self.reserve(&ends)?;
        let rows = n + seqs.iter().map(|(_, p)| p.len()).sum::<usize>();
        self.ensure(rows)?;
        let (mut ids, mut pos, mut slot) = (Vec::with_capacity(rows), Vec::with_capacity(rows), Vec::with_capacity(rows));
        for (b, &t) in tokens.iter().enumerate() {
            ids.push(t as i32);
            pos.push(self.lens[b] as i32);
            slot.push(b as i32);
        }
        let mut cu = vec![0u32];
        let mut last = Vec::with_capacity(n + seqs.len());
        last.extend(0..n as i32);
        for &(s, p) in seqs {
            ids.extend(p.iter().map(|&x| x as i32));
            pos.extend(0..p.len() as i32);
            slot.extend(std::iter::repeat_n(s as i32, p.len()));
            let end = cu[cu.len() - 1] as usize + p.len();
            cu.push(u32::try_from(end).map_err(|_| Error::InvalidInput(format!("a mixed step of {end} prompt rows: more than a u32 offset holds")))?);
            last.push((n + end - 1) as i32);
        }
        self.upload_tokens(&ids, &pos, &slot)?;
        let lens: Vec<i32> = pos[..n].iter().map(|&p| p + 1).collect();
        self.decode_plans(n, Some(&lens))?;
        self.forward(rows, Step::Mixed { decode: n, cu: &cu })?;
        self.upload_rows(&last)?;
        self.head_launch(last.len(), c, false)?;
        let next = self.shards[0].head_read(last.len(), sampling, rng, c)?;
        for &(s, e) in &ends {
            self.lens[s] = e;
        }
        self.check_ranks()?;
        Ok(next)
    }

    /// One decode step as [`Model::decode`], launched eagerly with an event after every launch: the
    /// next tokens and, per launch of rank 0 in order, what it was, the bytes it reads at least and its
    /// GPU time in µs. The whole step is enqueued behind a hold (a kernel spinning 20 ms on the GPU's
    /// timer), so the GPU runs the launches back to back and no interval counts the CPU's enqueueing; the
    /// events still keep each launch from overlapping the next (no PDL overlap, no graph), so the sum is
    /// above the graphed step's time. Split over ranks, an all-reduce's time is counted in the launch
    /// marked after it. The model is left as it was (graphs kept, profiling off) whether or not the step
    /// succeeded.
    pub fn decode_profiled(&mut self, tokens: &[u32], sampling: Sampling, rng: &mut Rng) -> Result<(Vec<u32>, Profile)> {
        let n = tokens.len();
        if n == 0 || n > self.slots {
            return Err(Error::InvalidInput(format!("{n} sequences for {} cache slots", self.slots)));
        }
        let kv_rows: u64 = self.lens[..n].iter().map(|&l| l as u64 + 1).sum();
        let graphs_on = self.graphs_on;
        // The step is eager (graphs off); a graph of this batch size stays for later steps.
        let kept: Vec<_> = self.shards.iter_mut().map(|s| s.graphs.remove(&n)).collect();
        self.graphs_on = false;
        let drops = self.plan_drops;
        let result = self.profiled_step(tokens, sampling, rng);
        self.graphs_on = graphs_on;
        let marks: Vec<_> = self.shards.iter_mut().map(|s| s.prof.take()).collect();
        // Put back unless the step dropped FP8 plans (the kept graph may read one).
        if self.plan_drops == drops {
            for (s, g) in self.shards.iter_mut().zip(kept) {
                if let Some(g) = g {
                    s.graphs.insert(n, g);
                }
            }
        }
        let next = result?;
        let marks = marks.into_iter().next().flatten().unwrap_or_default();
        let kv_bytes = kv_rows * 2 * (self.shards[0].local.kv_heads * self.config.head_dim * 2) as u64;
        let mut out = vec![];
        for w in marks.windows(2) {
            let us = w[0].1.elapsed_ms(&w[1].1).during(|| "reading a profile event".into())? as f64 * 1e3;
            let mut l = w[1].0.clone();
            if l.name.starts_with(DECODE_ATTENTION) {
                l.bytes = kv_bytes;
            }
            out.push((l, us));
        }
        Ok((next, out))
    }

    /// [`Model::decode_profiled`]'s step: the hold and the start events on every rank, then the step.
    fn profiled_step(&mut self, tokens: &[u32], sampling: Sampling, rng: &mut Rng) -> Result<Vec<u32>> {
        for s in &mut self.shards {
            kernel_lab::runtime::timing::hold(&s.gpu, 20_000_000)?;
            s.prof = Some(vec![]);
            mark(&mut s.prof, &s.gpu, String::new, 0)?; // the start
        }
        self.decode(tokens, sampling, rng)
    }

    /// Captures every rank's decode step of batch `n` as a CUDA graph (every buffer, plan and tensor map
    /// it touches exists: an eager step made them) and launches them; replayed from then on.
    fn capture_decode(&mut self, n: usize, c: &Config) -> Result<()> {
        use kernel_lab::cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
        let mut begun = 0;
        let mut result = Ok(());
        // One rank: thread-local mode (this thread may not make calls that could sync meanwhile). Several
        // ranks are captured at once from this thread, each stream its own graph: relaxed mode (in
        // thread-local mode the two-rank capture was invalidated on an H200; every call made meanwhile
        // is a launch or a host-side lookup, none synchronizes).
        let mode = if self.shards.len() == 1 { CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL } else { CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED };
        for (r, s) in self.shards.iter().enumerate() {
            match s.gpu.stream.begin_capture(mode) {
                Ok(()) => begun += 1,
                Err(e) => {
                    result = Err(Error::Driver { what: format!("beginning rank {r}'s decode graph capture"), source: e });
                    break;
                }
            }
        }
        if result.is_ok() {
            result = self.forward(n, Step::Decode).and_then(|_| self.head_launch(n, c, self.argmax_advances()));
        }
        // Every capture begun is ended, whatever happened in between.
        let graphs: Vec<_> = self.shards[..begun].iter().map(|s| s.gpu.stream.end_capture(CUgraphInstantiate_flags(0))).collect();
        result?;
        // Every rank's graph first, launched only if all were made: a rank launched alone would wait at
        // its first all-reduce for ranks that then run eagerly (their calls out of step with its).
        let graphs = graphs.into_iter().enumerate().map(|(r, g)| {
            g.during(|| format!("ending rank {r}'s decode graph capture"))?
             .ok_or_else(|| Error::InvalidInput("a decode graph's capture recorded nothing (internal)".into()))
        }).collect::<Result<Vec<_>>>()?;
        for (r, (s, g)) in self.shards.iter_mut().zip(graphs).enumerate() {
            g.launch().during(|| format!("launching rank {r}'s decode graph of batch {n}"))?;
            s.graphs.insert(n, g);
        }
        Ok(())
    }

    /// Every layer over `tokens` tokens whose ids, positions and slots are in every rank's work buffers;
    /// prefill (`cu`: the sequences' offsets) or decode (one token per slot `0..tokens`). Leaves the final
    /// normed rows in each rank's `x`.
    fn forward(&mut self, tokens: usize, step: Step) -> Result<()> {
        let c = self.config.clone();
        // Split over ranks, each all-reduce also does the residual add and the next norm where the fused
        // kernel takes the rows (`AllReduce::all_reduce_add_rmsnorm`); the sublayer then skips its own.
        let fused = self.fuses_norm(tokens);
        for s in &mut self.shards {
            s.embed_launch(tokens, &c)?;
        }
        for li in 0..c.layers {
            for s in &mut self.shards {
                s.attention_half(li, tokens, step, self.max_len, &c, fused && li > 0)?;
            }
            self.reduce_delta(tokens, fused.then_some(NormAt::Mlp(li)))?;
            for s in &mut self.shards {
                s.mlp_half(li, tokens, &c, fused)?;
            }
            self.reduce_delta(tokens, fused.then_some(if li + 1 < c.layers { NormAt::Attn(li + 1) } else { NormAt::Final }))?;
        }
        if !fused {
            for s in &mut self.shards {
                s.local_norm(tokens, NormAt::Final, &c)?;
            }
        }
        Ok(())
    }

    /// Whether the all-reduces of a `tokens`-row step run fused with the residual add and norm: split
    /// over ranks, the fused kernel available and taking the rows, and at most `MAX_FUSED_ROWS` rows
    /// (one block a row; more rows than that are the pair's: NCCL or one-shot, then `add_rmsnorm`).
    /// `KERNEL_LAB_FUSED_NORM=0` turns it off (the A/B switch).
    fn fuses_norm(&self, tokens: usize) -> bool {
        static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let on = *ON.get_or_init(|| std::env::var("KERNEL_LAB_FUSED_NORM").map_or(true, |v| v.trim() != "0"));
        on && tokens <= MAX_FUSED_ROWS && self.ar.as_ref().is_some_and(|ar| ar.refuses_add_rmsnorm::<T>(tokens, self.config.hidden).is_none())
    }

    /// Sums the ranks' partial `delta` (after Wo or Wdown) into every rank's (tensor parallelism); with
    /// `norm`, fused with `h += delta` and that norm into `x` (one kernel per rank).
    fn reduce_delta(&mut self, tokens: usize, norm: Option<NormAt>) -> Result<()> {
        let Some(ar) = &self.ar else { return Ok(()) };
        if ablated("comm") {
            // Timing only: each rank's own partial, as if the all-reduce cost nothing.
            if let Some(at) = norm {
                for s in &mut self.shards {
                    s.local_norm(tokens, at, &self.config)?;
                }
            }
            return Ok(());
        }
        let (h, n) = (self.config.hidden, tokens * self.config.hidden);
        let Some(at) = norm else {
            let mut views = self.shards.iter_mut().map(|s| {
                let b = s.scratch.bufs.as_mut().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
                view_mut::<T>(&mut b.delta, n)
            }).collect::<Result<Vec<_>>>()?;
            ar.all_reduce_in_place(&mut views.iter_mut().collect::<Vec<_>>())?;
            return Ok(());
        };
        let mut ranks = self.shards.iter_mut().map(|s| {
            let Shard { layers, norm, scratch, .. } = s;
            let w = at.weight(layers, norm);
            let b = scratch.bufs.as_mut().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
            let Bufs { delta, h: res, x, .. } = b;
            Ok(ResidualNorm { partial: view::<T>(delta, n)?, residual: view_mut::<T>(res, n)?, weight: view::<T>(w, h)?, out: view_mut::<T>(x, n)? })
        }).collect::<Result<Vec<_>>>()?;
        ar.all_reduce_add_rmsnorm(&mut ranks, h, self.config.eps)?;
        drop(ranks);
        for s in &mut self.shards {
            mark(&mut s.prof, &s.gpu, || "all-reduce + add_rmsnorm".into(), 0)?;
        }
        Ok(())
    }

    /// The LM head on the `n` rows uploaded to every head rank: on rank 0, or split by vocabulary over
    /// the ranks (each a column block of the logits, joined by an all-reduce of the zero-padded `[n][vocab]`
    /// logits: a sum with zeros is exact), then rank 0's argmax. Launches only (capturable).
    fn head_launch(&mut self, n: usize, c: &Config, advance: bool) -> Result<()> {
        let split = self.head_split();
        for s in &mut self.shards {
            if s.lm_head.is_some() {
                s.head_gemm(n, c, split)?;
            }
        }
        if split && !ablated("comm") {
            let ar = self.ar.as_ref().ok_or_else(|| Error::InvalidInput("a split LM head without an all-reduce (internal)".into()))?;
            let mut views = self.shards.iter_mut().map(|s| view_mut::<T>(&mut s.logits, n * c.vocab)).collect::<Result<Vec<_>>>()?;
            ar.all_reduce_in_place(&mut views.iter_mut().collect::<Vec<_>>())?;
            drop(views);
            let s = &mut self.shards[0];
            mark(&mut s.prof, &s.gpu, || "all-reduce of the logits".into(), 0)?;
        }
        self.shards[0].head_argmax(n, c, advance)
    }

    /// Whether the LM head is split over the ranks by vocabulary (`split_head` at load).
    fn head_split(&self) -> bool {
        self.shards.len() > 1 && self.shards[1].lm_head.is_some()
    }

    /// The rows of x the LM head reads next, to every rank that holds a part of the head.
    fn upload_rows(&mut self, rows: &[i32]) -> Result<()> {
        for s in self.shards.iter_mut().filter(|s| s.lm_head.is_some()) {
            s.upload_rows(rows)?;
        }
        Ok(())
    }

    /// Logits of every row of the final `x` (`tokens` rows), downloaded as f32 `[tokens][vocab]`: each head
    /// rank's columns put in place.
    fn head_all(&mut self, tokens: usize, c: &Config) -> Result<Vec<f32>> {
        let mut out = vec![0f32; tokens * c.vocab];
        for s in self.shards.iter_mut().filter(|s| s.lm_head.is_some()) {
            let (start, cols) = s.head_cols;
            let part = s.head_all(tokens, c)?;
            for (t, row) in part.chunks(cols).enumerate() {
                out[t * c.vocab + start..][..cols].copy_from_slice(row);
            }
        }
        Ok(out)
    }

    /// After a step: an all-reduce that timed out on any rank is an error (the step's output is not).
    fn check_ranks(&self) -> Result<()> {
        match &self.ar {
            Some(ar) => ar.check(),
            None => Ok(()),
        }
    }
}

impl<T: Element + NormReducible> Shard<T> {
    /// Rank `rank` of `world`: its columns of Wqkv and Wgu, its rows of Wo and Wdown, its K/V heads'
    /// cache; the embedding and norms whole; its block of the LM head's vocabulary columns where the head
    /// is split (`split_head`), otherwise the whole head on rank 0.
    /// `paging`: a paged cache's `(page_size, max_pages, pages)`.
    #[allow(clippy::too_many_arguments)]
    fn load(gpu: &Gpu, ck: &Checkpoint, c: &Config, local: Local, rank: usize, world: usize, weight_bytes: usize, bf16: bool, slots: usize,
            max_len: usize, paging: Option<(usize, usize, usize)>, format: WeightFormat) -> Result<Shard<T>> {
        let (h, d) = (c.hidden, c.head_dim);
        // Rows of one layer's K (or V) cache: every slot's max_len, or the pool's pages.
        let rows = paging.map_or(slots * max_len, |(size, _, pages)| pages * size);
        let cache_bytes = 2 * c.layers * rows * local.kv_heads * d * 2;
        let largest = [c.vocab * h, c.qkv_width() * h, 2 * c.intermediate * h].into_iter().max().unwrap_or(0) * 2;
        let lm_extra = if c.tie_embeddings { c.vocab * h * 2 } else { 0 };
        // The weights (on one GPU: all of them, with one tensor's load staging, as before the split);
        // split: this rank's share, the embedding and LM head whole again (every rank's embedding; the
        // head counted whole, as rank 0 holds it when not split: an upper bound), and a second tensor's
        // worth for the transpose of the row-parallel weights.
        let split_extra = if world > 1 { 2 * c.vocab * h * 2 + largest } else { 0 };
        let bytes = weight_bytes / world + split_extra + lm_extra + cache_bytes + largest;
        fits(gpu, &format!("rank {rank}'s weights, KV cache and load staging"), bytes)?;
        // sm_90a on Hopper: the same kernels with the PDL prologue (launched with programmatic dependent
        // launch, as the lab's decode GEMMs and attention are there).
        let (ptx, module) = crate::ptx_for(gpu);
        let load = |name: &str| -> Result<Kernel> { gpu.load_kernel(ptx, module, name, grid::THREADS, 0) };
        let e = if bf16 { "bf16" } else { "f16" };
        let kern = Kernels { bf16, embed: load(&format!("embed_{e}"))?, add_rmsnorm: load(&format!("add_rmsnorm_{e}"))?, rope: load(&format!("rope_{e}"))?,
                             silu_mul: load(&format!("silu_mul_{e}"))?, argmax: load(&format!("argmax_{e}"))?, transpose: load("transpose16")?,
                             gather: load("gather_kv")? };
        let mut staging = gpu.zeros::<u16>(largest / 2)?;
        let ks = Ks { gpu, k: &kern };
        // A vector as it is.
        let plain = |name: &str, n: usize| -> Result<CudaSlice<u16>> {
            let b = ck.tensor(name, &[n])?;
            let mut d = gpu.zeros::<u16>(n)?;
            copy_bytes(gpu, b, &mut d, 0)?;
            Ok(d)
        };
        // Row blocks of HF `[out][in]` projections (each `cols` wide), stacked and transposed to `[in][out]`
        // (or quantized to FP8 as they are, `[out][in]`).
        let mut stacked = |parts: &[&[u8]], cols: usize| -> Result<Weight> {
            let mut at = 0;
            for b in parts {
                copy_bytes(gpu, b, &mut staging, at)?;
                at += b.len() / 2;
            }
            let rows = at / cols;
            if format == WeightFormat::Fp8 {
                return Ok(Weight::Fp8(Fp8Weights::quantize_in::<T, _>(gpu, &view::<T>(&staging, rows * cols)?, rows, cols, w8_layout())?));
            }
            let mut out = gpu.zeros::<u16>(rows * cols)?;
            ks.transpose(&staging, &mut out, rows, cols)?;
            Ok(Weight::Dense(out))
        };
        // The in-rows `[start, start + count)` of an `[out][in]` projection transposed to `[in][out]`:
        // the whole transpose, then the rows this rank keeps (contiguous there).
        let in_rows = |stacked: &mut dyn FnMut(&[&[u8]], usize) -> Result<Weight>, bytes: &[u8], out_dim: usize, in_dim: usize, start: usize, count: usize|
                       -> Result<Weight> {
            if world == 1 {
                return stacked(&[bytes], in_dim);
            }
            if format == WeightFormat::Fp8 {
                // Quantized as it is (`[out][in]`): this rank's columns of every row, gathered on the host.
                return stacked(&[&col_range(bytes, in_dim, start, count)], count);
            }
            let Weight::Dense(full) = stacked(&[bytes], in_dim)? else {
                return Err(Error::InvalidInput("a 16-bit weight quantized (internal)".into()));
            };
            let mut out = gpu.zeros::<u16>(count * out_dim)?;
            gpu.stream.memcpy_dtod(&full.slice(start * out_dim..(start + count) * out_dim), &mut out).during(|| "copying a weight's rows".into())?;
            Ok(Weight::Dense(out))
        };
        let (lh, lkv, li) = (local.heads, local.kv_heads, local.inter);
        let mut layers = vec![];
        for l in 0..c.layers {
            let p = format!("model.layers.{l}");
            // Rows `[start, start + count)` of projection `name` (its own tensor's, or a fused one's: Phi-3).
            let t = |name: &str, start: usize, count: usize| -> Result<&[u8]> {
                let (tensor, shape, first) = crate::checkpoint::fused_rows(c, l, name);
                Ok(row_range(ck.tensor(&tensor, &shape)?, h, first + start, count))
            };
            let qkv = stacked(&[t("self_attn.q_proj", rank * lh * d, lh * d)?, t("self_attn.k_proj", rank * lkv * d, lkv * d)?,
                                t("self_attn.v_proj", rank * lkv * d, lkv * d)?], h)?;
            let qkv_bias = if c.qkv_bias {
                let mut b = gpu.zeros::<u16>(local.qkv_width(d))?;
                let mut at = 0;
                for (name, total, n) in [("q_proj", c.heads * d, lh * d), ("k_proj", c.kv_heads * d, lkv * d), ("v_proj", c.kv_heads * d, lkv * d)] {
                    let all = ck.tensor(&format!("{p}.self_attn.{name}.bias"), &[total])?;
                    copy_bytes(gpu, &all[rank * n * 2..(rank + 1) * n * 2], &mut b, at)?;
                    at += n;
                }
                Some(b)
            } else {
                None
            };
            let o = in_rows(&mut stacked, ck.tensor(&format!("{p}.self_attn.o_proj.weight"), &[h, c.heads * d])?, h, c.heads * d, rank * lh * d, lh * d)?;
            let gate_up = stacked(&[t("mlp.gate_proj", rank * li, li)?, t("mlp.up_proj", rank * li, li)?], h)?;
            let down = in_rows(&mut stacked, ck.tensor(&format!("{p}.mlp.down_proj.weight"), &[h, c.intermediate])?, h, c.intermediate, rank * li, li)?;
            layers.push(Layer { attn_norm: plain(&format!("{p}.input_layernorm.weight"), h)?, qkv, qkv_bias, o,
                                mlp_norm: plain(&format!("{p}.post_attention_layernorm.weight"), h)?, gate_up, down });
        }
        let mut embed = gpu.zeros::<u16>(c.vocab * h)?;
        copy_bytes(gpu, ck.tensor("model.embed_tokens.weight", &[c.vocab, h])?, &mut embed, 0)?;
        let lm_name = if c.tie_embeddings { "model.embed_tokens.weight" } else { "lm_head.weight" };
        let split = split_head(c, world);
        let (lm_head, head_cols) = if split {
            let v = c.vocab / world;
            (Some(stacked(&[row_range(ck.tensor(lm_name, &[c.vocab, h])?, h, rank * v, v)], h)?), (rank * v, v))
        } else if rank == 0 {
            (Some(stacked(&[ck.tensor(lm_name, &[c.vocab, h])?], h)?), (0, c.vocab))
        } else {
            (None, (0, 0))
        };
        let head_part = if split && format == WeightFormat::Fp8 { Some(gpu.zeros::<u16>(slots * head_cols.1)?) } else { None };
        let norm = plain("model.norm.weight", h)?;
        drop(staging);
        let table = rope::table(&rope::inv_freq(c.rope_theta, d, c.rope_scaling), max_len);
        let cos_sin = gpu.upload(&table)?;
        let per = rows * lkv * d;
        let cache = (0..c.layers).map(|_| Ok((gpu.zeros::<u16>(per)?, gpu.zeros::<u16>(per)?))).collect::<Result<Vec<_>>>()?;
        let table = gpu.zeros::<i32>(paging.map_or(1, |(_, max_pages, _)| slots * max_pages))?;
        let prefill = PrefillPlan::<T>::new(gpu, PrefillDesc::new(lh, lkv, d).causal())?;
        gpu.sync_after("loading the model")?;
        Ok(Shard { gpu: gpu.clone(), local, k: kern, embed, layers, norm, lm_head, head_cols, head_plans: HashMap::new(), head_part, cos_sin, cache, table, paging, gemms: Plans::new(), prefill, decode: HashMap::new(),
                   graphs: HashMap::new(), scratch: Scratch::default(), keys: None, last: gpu.zeros::<u16>(slots * h)?, logits: gpu.zeros::<u16>(slots * c.vocab)?,
                   next: gpu.zeros::<i32>(slots)?, argmax: (gpu.zeros::<u64>(slots * grid::ARGMAX_MAX_PARTS)?, gpu.zeros::<u32>(slots)?),
                   ring: TokenRing::off(gpu)?,
                   dummy: gpu.zeros::<u16>(8)?, advance_dummy: (gpu.zeros::<i32>(1)?, gpu.zeros::<i32>(1)?, gpu.zeros::<i32>(1)?), prof: None })
    }

    /// Grows the work buffers to `tokens` tokens (at least `slots`); whether it allocated.
    fn ensure(&mut self, tokens: usize, slots: usize, c: &Config) -> Result<bool> {
        if self.scratch.tokens >= tokens && self.scratch.bufs.is_some() {
            return Ok(false);
        }
        let g = &self.gpu;
        let (l, d) = (self.local, c.head_dim);
        let n = tokens.max(slots);
        let z = |len: usize| g.zeros::<u16>(len);
        fits(g, "the forward pass's work buffers", n * 2 * (4 * c.hidden + l.qkv_width(d) + 2 * l.heads * d + 2 * l.kv_heads * d + 3 * l.inter))?;
        self.scratch = Scratch { tokens: n, bufs: Some(Bufs {
            h: z(n * c.hidden)?, x: z(n * c.hidden)?, qkv: z(n * l.qkv_width(d))?, q: z(n * l.heads * d)?, k: z(n * l.kv_heads * d)?,
            v: z(n * l.kv_heads * d)?, attn: z(n * l.heads * d)?, delta: z(n * c.hidden)?, gu: z(n * 2 * l.inter)?,
            act: z(n * l.inter)?, lse: g.zeros::<f32>(n * l.heads)?, ids: g.zeros::<i32>(n)?, pos: g.zeros::<i32>(n)?, slot: g.zeros::<i32>(n)?,
            rows: g.zeros::<i32>(n)? }) };
        // New buffers: graphs captured over the old ones are stale.
        self.graphs.clear();
        Ok(true)
    }

    /// `h = embed(ids)`.
    fn embed_launch(&mut self, tokens: usize, c: &Config) -> Result<()> {
        let Shard { gpu, k: kern, embed, scratch, prof, .. } = self;
        let b = scratch.bufs.as_mut().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
        let ks = Ks { gpu, k: kern };
        // SAFETY: `tokens` ≤ the work buffers' tokens (`ensure`); ids checked < vocab on the host; `h`
        // holds tokens · hidden.
        unsafe { launch!(ks, embed, embed_bf16, embed_f16, grid::rows(tokens, 0), &b.ids, &*embed, &mut b.h, c.hidden as u32, c.vocab as u32)? };
        mark(prof, gpu, || "embed".into(), 0)
    }

    /// Layer `li` up to Wo: `x = rmsnorm(h (+= delta of the previous layer's MLP))`, Q/K/V, rotary
    /// embedding and the cache, attention over this rank's heads, `delta = o · Wo` (a partial sum when
    /// split).
    /// `normed`: `x` already holds the norm (the previous all-reduce's fused kernel did the add and it).
    #[allow(clippy::too_many_arguments)]
    fn attention_half(&mut self, li: usize, tokens: usize, step: Step, max_len: usize, c: &Config, normed: bool) -> Result<()> {
        let (h, d) = (c.hidden, c.head_dim);
        let Shard { gpu, local, k: kern, layers, cos_sin, cache, table, paging, gemms, prefill, decode, scratch, keys, dummy, prof, .. } = self;
        // The cache's layout for the row kernels: a paged cache's table, pages a slot may hold and page size
        // (0: contiguous).
        let (max_pages, page_size) = paging.map_or((0, 0), |(size, max_pages, _)| (max_pages as u32, size as u32));
        let l = *local;
        let layer = &layers[li];
        let b = scratch.bufs.as_mut().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
        let ks = Ks { gpu, k: kern };
        // SAFETY (every launch below): the kernels' contracts — `tokens` ≤ the work buffers' tokens
        // (`ensure`), each buffer sized for its layout there; positions < max_len (checked: prompt ≤
        // max_len, decode only while len < max_len) and slots < `slots`; hidden a multiple of 8
        // (config), ≤ the RMSNorm kernel's 16384; 16-byte-aligned fresh allocations; the cache
        // `[slots][local kv_heads][max_len][D]` per layer, or paged: `[pages][local kv_heads][page_size][D]`
        // with the table holding, for every slot and position a launch reads or writes, a page of the pool
        // (`Model::reserve` before every step; `Pages` hands out only pages below its count).
        if !normed && !ablated("norm") {
            unsafe { launch!(ks, add_rmsnorm, add_rmsnorm_bf16, add_rmsnorm_f16, grid::rows(tokens, grid::RMSNORM_SMEM), &mut b.h, &b.delta, &layer.attn_norm, &mut b.x, h as u32, c.eps, (li > 0) as u32)? };
            mark(prof, gpu, || "add_rmsnorm".into(), 0)?;
        }
        if !ablated("qkv") { gemm(gemms, gpu, tokens, l.qkv_width(d), h, &b.x, &layer.qkv, &mut b.qkv, prof)?; }
        let (ck, cv) = &mut cache[li];
        let bias = layer.qkv_bias.as_ref().unwrap_or(dummy);
        if !ablated("rope") { unsafe {
            launch!(ks, rope, rope_bf16, rope_f16, grid::rope(tokens, l.heads, l.kv_heads, d), &b.qkv, bias, &b.pos, &*cos_sin, &mut b.q, &mut b.k, &mut b.v, ck, cv, &b.slot,
                    max_len as u32, l.heads as u32, l.kv_heads as u32, d as u32, layer.qkv_bias.is_some() as u32, max_len as u32,
                    matches!(step, Step::Prompts(_) | Step::Mixed { .. }) as u32, &*table, max_pages, page_size)?
        }
        mark(prof, gpu, || "rope".into(), 0)?; }
        let nq = tokens * l.heads * d;
        match step {
            Step::Prompts(cu) => {
                let nkv = tokens * l.kv_heads * d;
                prefill.run(&view::<T>(&b.q, nq)?, &view::<T>(&b.k, nkv)?, &view::<T>(&b.v, nkv)?, cu, cu, &mut view_mut::<T>(&mut b.attn, nq)?,
                            &mut b.lse.slice_mut(..tokens * l.heads))?;
                mark(prof, gpu, || "attention prefill".into(), 0)?;
            }
            Step::Cached { cu_q, cu_k } => {
                let kr = keys.as_mut().ok_or_else(|| Error::InvalidInput("a chunk's key rows missing (internal)".into()))?;
                let rows = cu_k.last().copied().unwrap_or(0) as usize;
                if rows > kr.rows {
                    return Err(Error::InvalidInput(format!("a chunk attends to {rows} key rows, {} uploaded (internal)", kr.rows)));
                }
                // SAFETY: `upload_keys` wrote `rows` slots and positions inside the cache (slot < slots,
                // position < the slot's new length ≤ max_len: checked by `prefill` / `extend`; paged, on pages
                // `reserve` gave the slot before the step) and sized `k`, `v` for them at this rank's K/V
                // heads; the cache contiguous or paged as `table`, `max_pages`, `page_size` say; D a multiple
                // of 8 (the prefill plan's head dims); fresh, 16-byte-aligned allocations.
                unsafe { k::gather_kv::launch(gpu, &kern.gather, grid::rows(rows, 0), &*ck, &*cv, &kr.slot, &kr.pos, &mut kr.k, &mut kr.v, l.kv_heads as u32, d as u32, max_len as u32,
                                                &*table, max_pages, page_size)? };
                mark(prof, gpu, || "gather_kv".into(), 0)?;
                let nkv = rows * l.kv_heads * d;
                prefill.run(&view::<T>(&b.q, nq)?, &view::<T>(&kr.k, nkv)?, &view::<T>(&kr.v, nkv)?, cu_q, cu_k, &mut view_mut::<T>(&mut b.attn, nq)?,
                            &mut b.lse.slice_mut(..tokens * l.heads))?;
                mark(prof, gpu, || "attention prefill".into(), 0)?;
            }
            Step::Mixed { decode: n, cu } => {
                // The decode rows first: slots 0..n against their cache, as `Step::Decode`.
                let (plan, seq_lens) = decode.get_mut(&n).ok_or_else(|| Error::InvalidInput("decode plan missing (internal)".into()))?;
                let per = paging.map_or(n * max_len, |(size, _, pages)| pages * size) * l.kv_heads * d;
                let bt = paging.map(|(_, max_pages, _)| BlockTable { table: &*table, max_pages });
                let (nd, nkv) = (n * l.heads * d, tokens * l.kv_heads * d);
                let q = view::<T>(&b.q, nq)?;
                let (k_all, v_all) = (view::<T>(&b.k, nkv)?, view::<T>(&b.v, nkv)?);
                let mut o = view_mut::<T>(&mut b.attn, nq)?;
                let (mut o_dec, mut o_pre) = o.split_at_mut(nd);
                let mut lse = b.lse.slice_mut(..tokens * l.heads);
                let (mut lse_dec, mut lse_pre) = lse.split_at_mut(n * l.heads);
                plan.run(&q.slice(..nd), &view::<T>(ck, per)?, &view::<T>(cv, per)?, bt, seq_lens, max_len, &mut o_dec, &mut lse_dec)?;
                mark(prof, gpu, || DECODE_ATTENTION.into(), 0)?;
                // Then the prompts on their own packed K and V (rows n.. of the step), as `Step::Prompts`.
                let skip = n * l.kv_heads * d;
                prefill.run(&q.slice(nd..), &k_all.slice(skip..), &v_all.slice(skip..), cu, cu, &mut o_pre, &mut lse_pre)?;
                mark(prof, gpu, || "attention prefill".into(), 0)?;
            }
            Step::Decode if ablated("attn") => {}
            Step::Decode => {
                let (plan, seq_lens) = decode.get_mut(&tokens).ok_or_else(|| Error::InvalidInput("decode plan missing (internal)".into()))?;
                // The first `tokens` slots' rows of a contiguous cache; a paged one's whole pool, its table's first
                // `tokens` rows.
                let per = paging.map_or(tokens * max_len, |(size, _, pages)| pages * size) * l.kv_heads * d;
                let bt = paging.map(|(_, max_pages, _)| BlockTable { table: &*table, max_pages });
                plan.run(&view::<T>(&b.q, nq)?, &view::<T>(ck, per)?, &view::<T>(cv, per)?, bt, seq_lens, max_len,
                         &mut view_mut::<T>(&mut b.attn, nq)?, &mut b.lse.slice_mut(..tokens * l.heads))?;
                // Its bytes (the cached rows) are filled in by `decode_profiled`, which knows the lengths.
                let splits = plan.split(max_len).splits;
                mark(prof, gpu, || format!("{DECODE_ATTENTION} ({splits} splits)"), 0)?;
            }
        }
        if ablated("o") { return Ok(()); }
        gemm(gemms, gpu, tokens, h, l.heads * d, &b.attn, &layer.o, &mut b.delta, prof)
    }

    /// Layer `li`'s MLP: `x = rmsnorm(h += delta)`, `gu = x · Wgu`, `a = silu(g) · u`, `delta = a · Wdown`
    /// (a partial sum when split).
    /// `normed`: as in `attention_half`.
    fn mlp_half(&mut self, li: usize, tokens: usize, c: &Config, normed: bool) -> Result<()> {
        let h = c.hidden;
        let Shard { gpu, local, k: kern, layers, gemms, scratch, prof, .. } = self;
        let inter = local.inter;
        let layer = &layers[li];
        let b = scratch.bufs.as_mut().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
        let ks = Ks { gpu, k: kern };
        // SAFETY: as in `attention_half`; the local intermediate size a multiple of 8 (checked at load).
        if !normed && !ablated("norm") {
            unsafe { launch!(ks, add_rmsnorm, add_rmsnorm_bf16, add_rmsnorm_f16, grid::rows(tokens, grid::RMSNORM_SMEM), &mut b.h, &b.delta, &layer.mlp_norm, &mut b.x, h as u32, c.eps, 1u32)? };
            mark(prof, gpu, || "add_rmsnorm".into(), 0)?;
        }
        if !ablated("gu") { gemm(gemms, gpu, tokens, 2 * inter, h, &b.x, &layer.gate_up, &mut b.gu, prof)?; }
        if !ablated("silu") { unsafe { launch!(ks, silu_mul, silu_mul_bf16, silu_mul_f16, grid::silu_mul(tokens, inter), &b.gu, &mut b.act, inter as u32)? };
        mark(prof, gpu, || "silu_mul".into(), 0)?; }
        if ablated("down") { return Ok(()); }
        gemm(gemms, gpu, tokens, h, inter, &b.act, &layer.down, &mut b.delta, prof)
    }

    /// `x = rmsnorm(h += delta)` with norm `at` on this rank's own `delta` (the final norm; split over
    /// ranks, the fused all-reduce's work without its communication: `KERNEL_LAB_LLM_ABLATE=comm`).
    fn local_norm(&mut self, tokens: usize, at: NormAt, c: &Config) -> Result<()> {
        let Shard { gpu, k: kern, norm, layers, scratch, prof, .. } = self;
        let w = at.weight(layers, norm);
        let b = scratch.bufs.as_mut().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
        let ks = Ks { gpu, k: kern };
        // SAFETY: as in `attention_half`.
        unsafe { launch!(ks, add_rmsnorm, add_rmsnorm_bf16, add_rmsnorm_f16, grid::rows(tokens, grid::RMSNORM_SMEM), &mut b.h, &b.delta, w, &mut b.x, c.hidden as u32, c.eps, 1u32)? };
        mark(prof, gpu, || "add_rmsnorm".into(), 0)
    }

    /// This rank's LM head (whole, or its block of vocabulary columns).
    fn lm_head(&self) -> Result<&Weight> {
        self.lm_head.as_ref().ok_or_else(|| Error::InvalidInput("this rank holds no LM head (internal)".into()))
    }

    /// This rank's columns of the logits of every row of `x` (`tokens` rows), downloaded as f32
    /// (`[tokens][head_cols.1]`).
    fn head_all(&mut self, tokens: usize, c: &Config) -> Result<Vec<f32>> {
        let cols = self.head_cols.1;
        let mut out = self.gpu.zeros::<u16>(tokens * cols)?;
        let b = self.scratch.bufs.as_ref().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
        // A plan of its own, not the shared one a decode graph of `tokens` sequences may have captured: this
        // fresh output buffer would add a tensor map to that plan's cache each call and in time evict the
        // graph's.
        let mut own = Plans::<T>::new();
        gemm(&mut own, &self.gpu, tokens, cols, c.hidden, &b.x, self.lm_head()?, &mut out, &mut None)?;
        let bits = self.gpu.download(&out)?;
        Ok(bits.into_iter().map(|x| if self.k.bf16 { bf16::from_bits(x).to_f32() } else { f16::from_bits(x).to_f32() }).collect())
    }

    /// A chunk's key rows (each one's slot and position in the cache) to the device, the gathered K and V
    /// grown to hold them at this rank's K/V heads.
    fn upload_keys(&mut self, slot: &[i32], pos: &[i32], c: &Config) -> Result<()> {
        let rows = slot.len().min(pos.len());
        if self.keys.as_ref().is_none_or(|kr| kr.rows < rows) {
            let g = &self.gpu;
            let per = rows * self.local.kv_heads * c.head_dim;
            // The old buffers go first, so that the new ones fit where both would not.
            self.keys = None;
            fits(g, "a prompt chunk's gathered keys", 2 * 2 * per + 2 * 4 * rows)?;
            self.keys = Some(KeyRows { rows, slot: g.zeros::<i32>(rows)?, pos: g.zeros::<i32>(rows)?, k: g.zeros::<u16>(per)?, v: g.zeros::<u16>(per)? });
        }
        let kr = self.keys.as_mut().ok_or_else(|| Error::InvalidInput("a chunk's key rows missing (internal)".into()))?;
        let st = &self.gpu.stream;
        st.memcpy_htod(&slot[..rows], &mut kr.slot.slice_mut(..rows)).during(|| "copying key slots".into())?;
        st.memcpy_htod(&pos[..rows], &mut kr.pos.slice_mut(..rows)).during(|| "copying key positions".into())
    }

    /// The rows of x the LM head reads next, to the device (outside any capture).
    fn upload_rows(&mut self, rows: &[i32]) -> Result<()> {
        let b = self.scratch.bufs.as_mut().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
        self.gpu.stream.memcpy_htod(rows, &mut b.rows.slice_mut(..rows.len())).during(|| "copying rows".into())
    }

    /// The LM head on `n` rows of x named by `rows` (uploaded): those rows gathered and the GEMM into this
    /// rank's columns of `logits` (`[n][vocab]`; split over ranks, the other columns zeroed first, for
    /// the all-reduce that joins them). Launches only (capturable).
    fn head_gemm(&mut self, n: usize, c: &Config, split: bool) -> Result<()> {
        let Shard { gpu, k: kern, scratch, gemms, lm_head, head_cols: (start, cols), head_plans, head_part, last, logits, prof, .. } = self;
        let (start, cols) = (*start, *cols);
        let lm_head = lm_head.as_ref().ok_or_else(|| Error::InvalidInput("the LM head is not on this rank (internal)".into()))?;
        let b = scratch.bufs.as_mut().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
        let ks = Ks { gpu, k: kern };
        let total = scratch_rows(b, c.hidden);
        // SAFETY: the embed kernel as a row gather: `rows[i]` < the rows of x (the sequences' last tokens),
        // `last` holds `slots · hidden` ≥ n · hidden.
        unsafe { launch!(ks, embed, embed_bf16, embed_f16, grid::rows(n, 0), &b.rows, &b.x, last, c.hidden as u32, total as u32)? };
        mark(prof, gpu, || "gather rows".into(), 0)?;
        let w = match lm_head {
            Weight::Dense(w) => w,
            // FP8: the shard's plans, as every projection's, on dense rows.
            Weight::Fp8(_) if !split => return gemm(gemms, gpu, n, c.vocab, c.hidden, last, lm_head, logits, prof),
            Weight::Fp8(_) => {
                // This rank's `[n][cols]` block, then each row into its columns of the zeroed logits.
                let part = head_part.as_mut().ok_or_else(|| Error::InvalidInput("a split FP8 head without its block's buffer (internal)".into()))?;
                gemm(gemms, gpu, n, cols, c.hidden, last, lm_head, part, prof)?;
                let v = c.vocab;
                gpu.stream.memset_zeros(&mut logits.slice_mut(..n * v)).during(|| "zeroing the logits".into())?;
                for i in 0..n {
                    gpu.stream.memcpy_dtod(&part.slice(i * cols..(i + 1) * cols), &mut logits.slice_mut(i * v + start..i * v + start + cols))
                       .during(|| "placing the LM head's columns".into())?;
                }
                return mark(prof, gpu, || "the LM head's columns placed".into(), 0);
            }
        };
        let (v, h) = (c.vocab, c.hidden);
        if split {
            gpu.stream.memset_zeros(&mut logits.slice_mut(..n * v)).during(|| "zeroing the logits".into())?;
        }
        // C's rows `vocab` apart (a column block of the logits; dense when the head is whole). The plan stages
        // C only where that is not contiguous: several rows of a block.
        let desc = GemmDesc::new(n, cols, h).with_strides(h, cols, v);
        let plan = match head_plans.entry(n) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let mut plan = GemmPlan::<T>::new(gpu, desc)?;
                plan.set_b_ready(BReady::AtLaunch); // the head's weights, written at load
                e.insert(plan)
            }
        };
        let span = desc.spans().2;
        plan.run(&view::<T>(last, n * h)?, &view::<T>(w, h * cols)?, &mut view_mut::<T>(logits, start + span)?.slice_mut(start..))?;
        mark(prof, gpu, || format!("gemm {n}x{cols}x{h} {} (LM head{})", plan.config().label, if split { ", a column block" } else { "" }), (h * cols * 2) as u64)
    }

    /// The argmax over the `n` rows of `logits` (launched for sampling too: the same launches either way,
    /// so a captured step serves both). Launches only (capturable).
    fn head_argmax(&mut self, n: usize, c: &Config, advance: bool) -> Result<()> {
        let Shard { gpu, k: kern, logits, next, argmax: (partial, count), ring, prof, scratch, decode, advance_dummy, .. } = self;
        let ks = Ks { gpu, k: kern };
        let b = scratch.bufs.as_mut().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
        // With `advance`, the decode step's own ids, positions and lengths (its plan's); else untouched
        // stand-ins (the kernel's flag off).
        let (ids, pos, lens) = match decode.get_mut(&n).filter(|_| advance) {
            Some((_, lens)) => (&mut b.ids, &mut b.pos, lens),
            None => (&mut advance_dummy.0, &mut advance_dummy.1, &mut advance_dummy.2),
        };
        let on = (ids.len() >= n && pos.len() >= n && lens.len() >= n && advance) as u32;
        if advance && on == 0 {
            return Err(Error::InvalidInput(format!("the decode step's inputs hold fewer than {n} rows (internal)")));
        }
        // SAFETY: the argmax over n rows of `vocab` (`grid::argmax`: its shared memory, at most
        // ARGMAX_MAX_PARTS blocks a row), `next` holding `slots` ≥ n, its workspace `slots ·
        // ARGMAX_MAX_PARTS` partials and `slots` counts (zeroed at load, left zero by each launch; one
        // stream, so no two argmax grids of this shard overlap); with `on`, ids, pos and lens hold ≥ n
        // (checked) and only the next step's kernels, later on this stream, read them.
        let cfg = grid::argmax(n, c.vocab);
        let v = c.vocab as u32;
        match ring {
            TokenRing::Mapped(ring, ticks) => {
                let rows = ticks.len();
                if n > rows || ring.len() != TOKEN_RING * rows {
                    return Err(Error::InvalidInput(format!("the argmax over {n} rows: a token ring of {} words for {rows} rows (internal)", ring.len())));
                }
                // SAFETY: as above, and the ring: n ≤ rows (checked), `ring` TOKEN_RING · rows words of mapped
                // host memory (checked), `ticks` rows counts, written only by this stream's argmax grids (the
                // host reads the ring, and zeroes both only with the stream idle: `Model::decode_steps`).
                unsafe { launch!(ks, argmax, argmax_bf16, argmax_f16, cfg, &*logits, next, v, partial, count, ids, pos, lens, on, ring, ticks, TOKEN_RING as u32, rows as u32)? }
            }
            // SAFETY: as the first SAFETY above; ring length 0: the kernel touches neither stand-in.
            TokenRing::Off(ring, ticks) => unsafe { launch!(ks, argmax, argmax_bf16, argmax_f16, cfg, &*logits, next, v, partial, count, ids, pos, lens, on, ring, ticks, 0, 0)? },
        };
        mark(prof, gpu, || "argmax".into(), 0)
    }

    /// The next tokens after [`Model::head_launch`]: the argmax's (greedy) or drawn on the host.
    fn head_read(&mut self, n: usize, sampling: Sampling, rng: &mut Rng, c: &Config) -> Result<Vec<u32>> {
        let vocab = c.vocab;
        match sampling {
            Sampling::Greedy => {
                let ids = self.gpu.stream.clone_dtoh(&self.next.slice(..n)).during(|| "copying tokens".into())?;
                Ok(ids.into_iter().map(|t| t.max(0) as u32).collect())
            }
            Sampling::TopKTopP { temperature, top_k, top_p, .. } => {
                let bits = self.gpu.stream.clone_dtoh(&self.logits.slice(..n * vocab)).during(|| "copying logits".into())?;
                let bf = self.k.bf16;
                let f: Vec<f32> = bits.into_iter().map(|x| if bf { bf16::from_bits(x).to_f32() } else { f16::from_bits(x).to_f32() }).collect();
                Ok(f.chunks(vocab).map(|row| sample::top_k_top_p(row, temperature, top_k, top_p, rng)).collect())
            }
        }
    }
}

/// Rows the work buffer `x` holds.
fn scratch_rows(b: &Bufs, hidden: usize) -> usize {
    b.x.len() / hidden
}

/// The kernels with their GPU, for the launch macro.
struct Ks<'a> {
    gpu: &'a Gpu,
    k: &'a Kernels,
}

impl Ks<'_> {
    /// `dst` (`cols × rows`) = the first `rows × cols` of `src`, transposed.
    fn transpose(&self, src: &CudaSlice<u16>, dst: &mut CudaSlice<u16>, rows: usize, cols: usize) -> Result<()> {
        let cfg = LaunchConfig { grid_dim: (cols.div_ceil(32) as u32, rows.div_ceil(32) as u32, 1), block_dim: (256, 1, 1), shared_mem_bytes: 32 * 33 * 4 };
        if src.len() < rows * cols || dst.len() < rows * cols || rows.div_ceil(32) > 65_535 {
            return Err(Error::InvalidInput(format!("transpose of {rows}×{cols}: buffers of {} and {} elements", src.len(), dst.len())));
        }
        // SAFETY: src and dst hold rows·cols elements (checked), distinct allocations; grid ⌈cols/32⌉ ×
        // ⌈rows/32⌉ (y ≤ 65535 checked), 256 threads, 4224 bytes of shared memory.
        unsafe { k::transpose16::launch(self.gpu, &self.k.transpose, cfg, src, dst, rows as u32, cols as u32) }
    }
}

/// `c (m×n) = a (m×k) · W` with a plan kept per shape: the 16-bit GEMM on `K × N` weights, or FP8
/// weights' plan.
#[allow(clippy::too_many_arguments)]
fn gemm<T: Element>(plans: &mut Plans<T>, gpu: &Gpu, m: usize, n: usize, kk: usize, a: &CudaSlice<u16>, w: &Weight, c: &mut CudaSlice<u16>,
                    prof: &mut Option<Vec<(Launch, CudaEvent)>>) -> Result<()> {
    match w {
        Weight::Dense(b) => {
            if !plans.dense.contains_key(&(m, n, kk)) {
                let mut plan = match forced_step(m, n, kk) {
                    Some(label) => GemmPlan::<T>::with_step(gpu, GemmDesc::new(m, n, kk), &label)?,
                    None => GemmPlan::<T>::new(gpu, GemmDesc::new(m, n, kk))?,
                };
                // B is a weight, written at load: never by the kernel just before.
                plan.set_b_ready(BReady::AtLaunch);
                plans.dense.insert((m, n, kk), plan);
            }
            let plan = plans.dense.get_mut(&(m, n, kk)).ok_or_else(|| Error::InvalidInput("GEMM plan missing (internal)".into()))?;
            plan.run(&view::<T>(a, m * kk)?, &view::<T>(b, kk * n)?, &mut view_mut::<T>(c, m * n)?)?;
            mark(prof, gpu, || format!("gemm {m}x{n}x{kk} {}", plan.config().label), (kk * n * 2) as u64)
        }
        Weight::Fp8(w8) => {
            if !plans.w8.contains_key(&(m, n, kk)) {
                // Room for a new dequantizing plan of this weight shape first (it may be one: more rows than
                // the decode kernels take): the oldest past `DEQUANT_PLANS - 1` go.
                if W8Plan::<T>::dequantizes_at(m) {
                    let same: Vec<(usize, u64)> = plans.w8.iter().filter(|(key, (p, _))| key.1 == n && key.2 == kk && p.dequantizes())
                        .map(|(key, (_, used))| (key.0, *used)).collect();
                    let drop = plans_to_drop(same, DEQUANT_PLANS);
                    for pm in &drop {
                        plans.w8.remove(&(*pm, n, kk));
                        plans.dropped = true;
                    }
                    if !drop.is_empty() {
                        // The stream-ordered frees return their memory at a synchronization: before the new
                        // plan's budget check counts the device's free memory.
                        gpu.sync_after("dropping FP8 plans")?;
                    }
                }
                let mut plan = W8Plan::<T>::for_layout(gpu, m, n, kk, w8.layout())?;
                // As the 16-bit weights: written at load, never by the kernel just before.
                plan.set_w_ready(BReady::AtLaunch);
                plans.w8.insert((m, n, kk), (plan, 0));
            }
            plans.clock += 1;
            let (plan, used) = plans.w8.get_mut(&(m, n, kk)).ok_or_else(|| Error::InvalidInput("FP8 plan missing (internal)".into()))?;
            *used = plans.clock;
            plan.run(&view::<T>(a, m * kk)?, w8, &mut view_mut::<T>(c, m * n)?)?;
            mark(prof, gpu, || format!("gemm {m}x{n}x{kk} fp8 {}", plan.label()), (kk * n) as u64)
        }
    }
}

/// Copies the little-endian 16-bit bytes `bytes` into `dst` from element `at` on.
fn copy_bytes(gpu: &Gpu, bytes: &[u8], dst: &mut CudaSlice<u16>, at: usize) -> Result<()> {
    let n = bytes.len() / 2;
    if at + n > dst.len() {
        return Err(Error::InvalidInput(format!("{n} elements at {at} overflow a buffer of {}", dst.len())));
    }
    let mut v = dst.slice_mut(at..at + n);
    // SAFETY: u16 → u8 view of the same bytes (2n of them): plain integers.
    let mut bytes_view = unsafe { v.transmute_mut::<u8>(2 * n) }.ok_or_else(|| Error::InvalidInput("byte view (internal)".into()))?;
    gpu.stream.memcpy_htod(bytes, &mut bytes_view).during(|| "copying weights to the device".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dequantizing_plans_used_longest_ago_go_first() {
        assert_eq!(plans_to_drop(vec![], 4), Vec::<usize>::new());
        assert_eq!(plans_to_drop(vec![(64, 5), (100, 2), (48, 9)], 4), Vec::<usize>::new());
        assert_eq!(plans_to_drop(vec![(64, 5), (100, 2), (48, 9), (33, 7)], 4), vec![100]);
        assert_eq!(plans_to_drop(vec![(64, 5), (100, 2), (48, 9), (33, 7), (40, 1)], 4), vec![40, 100]);
        assert_eq!(plans_to_drop(vec![(64, 5)], 1), vec![64]);
    }

    #[test]
    fn a_column_range_takes_each_rows_share() {
        // 3 rows of 4 elements: element (r, c) = 10r + c, as little-endian 16-bit values.
        let t: Vec<u8> = (0..3u16).flat_map(|r| (0..4u16).flat_map(move |c| (10 * r + c).to_le_bytes())).collect();
        let got: Vec<u16> = col_range(&t, 4, 1, 2).chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect();
        assert_eq!(got, vec![1, 2, 11, 12, 21, 22]);
        assert!(col_range(&t, 4, 0, 0).is_empty());
    }

    #[test]
    fn the_lm_head_splits_where_each_rank_gets_whole_16_byte_rows() {
        let cfg = |vocab: usize| {
            Config::parse(&format!(r#"{{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": {vocab}, "rms_norm_eps": 1e-5, "max_position_embeddings": 8192,
                "rope_theta": 500000.0, "torch_dtype": "bfloat16"}}"#)).unwrap()
        };
        // One GPU: nothing to split.
        assert!(!split_head(&cfg(128256), 1));
        // Llama 3's vocabulary: 64128 columns a rank over 2 (8 · 8016), 32064 over 4; Qwen2's over 8.
        assert!(split_head(&cfg(128256), 2) && split_head(&cfg(128256), 4) && split_head(&cfg(151936), 8));
        // Blocks off a multiple of 8 columns keep the head whole on rank 0.
        assert!(!split_head(&cfg(32001), 2) && !split_head(&cfg(32004), 2));
    }
}

/// Timing experiment only (`KERNEL_LAB_LLM_ABLATE=norm,rope,attn,silu,qkv,o,gu,down,comm`; `comm`: split over
/// ranks, every all-reduce skipped, the fused one's add and norm on the rank's own partial): the named launches of
/// every layer are left out, so a step's time without them measures what they cost inside the graph. The
/// output is wrong while it is set.
fn ablated(what: &str) -> bool {
    static SET: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    SET.get_or_init(|| std::env::var("KERNEL_LAB_LLM_ABLATE").map(|v| v.split(',').map(|s| s.trim().to_string()).collect()).unwrap_or_default())
        .iter().any(|s| s == what)
}

/// Timing experiment only (`KERNEL_LAB_LLM_GEMM_STEP=1x4096x4096=d15-bf16;…`): the step a GEMM shape runs on.
fn forced_step(m: usize, n: usize, k: usize) -> Option<String> {
    let v = std::env::var("KERNEL_LAB_LLM_GEMM_STEP").ok()?;
    v.split(';').find_map(|e| e.split_once('=').filter(|(s, _)| s.trim() == format!("{m}x{n}x{k}")).map(|(_, l)| l.trim().to_string()))
}

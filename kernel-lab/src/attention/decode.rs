//! Decode attention (issue 49): a few new query tokens per sequence against a KV cache — contiguous
//! (`[batch][kv_heads][max_len][D]`) or paged (a block table of pages of 16–256 tokens, FlashInfer's
//! `[page][kv_head][token][D]` or vLLM's `[page][token][kv_head][D]`) — with grouped heads, sequences of
//! different lengths in one batch, and the keys split across CTAs with a combine step (flash-decoding).
//! The kernels are step ad1 (`kernels-gpu/src/attention/steps/v18_decode_split_kv.rs`).
//!
//! ```text
//! q, o    [batch][q_len][heads][D]       16-bit (f16 or bf16)
//! lse     [batch][q_len][heads]          f32, natural log-sum-exp of each row's scores (−∞: no keys)
//! k, v    the cache, KvLayout            16-bit
//! seq_lens [batch] i32 on the device     keys of each sequence, the new tokens included
//! ```
//! Token `t` of a sequence's `q_len` new ones sees its first `len − (q_len − 1 − t)` keys (the causal mask
//! aligned bottom-right, as FlashAttention defines it for `q_len < len`); a sequence of length 0 gets
//! O = 0 and LSE = −∞.
//!
//! The lengths and the block table live on the device; the kernels clamp a length to the cache's
//! capacity (and below 0 to 0) and read a table entry outside `0..num_pages` as an empty page, so no
//! value in them makes a kernel read outside the cache — but such values give wrong attention, not an
//! error: [`check_block_table`] validates a host copy of the table before upload.
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

use layout::attention::{DECODE_ROWS, DECODE_SPLIT_UNIT, DecodeCache, DecodeDims};

use crate::{
    error::{Error, Result},
    gemm::{Element, launch::Operand},
    launch,
    runtime::gpu::{Gpu, Kernel},
};

/// Head dims the decode kernels are built for.
pub const HEAD_DIMS: [usize; 4] = [64, 96, 128, 256];
/// Page sizes (tokens) a paged cache may have: multiples of 16 from 16 to 256.
pub const PAGE_SIZES: std::ops::RangeInclusive<usize> = 16..=256;

/// How the K and V caches are laid out (each of K and V alike, 16-bit elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KvLayout {
    /// `[batch][kv_heads][max_len][D]`: sequence `b`'s keys of K/V head `h` are rows `0..max_len`.
    Contiguous {
        /// Tokens each sequence has room for.
        max_len: usize,
    },
    /// Pages `[num_pages][kv_heads][page_size][D]` (FlashInfer's HND) found through a block table
    /// `[batch][max_pages]` of page numbers.
    PagedHeadsMajor {
        /// Tokens per page: a multiple of 16 in 16..=256.
        page_size: usize,
        /// Pages in the cache.
        num_pages: usize,
    },
    /// Pages `[num_pages][page_size][kv_heads][D]` (vLLM's and FlashInfer's NHD), through a block table.
    PagedTokensMajor {
        /// Tokens per page: a multiple of 16 in 16..=256.
        page_size: usize,
        /// Pages in the cache.
        num_pages: usize,
    },
}

impl KvLayout {
    fn paged(&self) -> Option<(usize, usize)> {
        match *self {
            KvLayout::Contiguous { .. } => None,
            KvLayout::PagedHeadsMajor { page_size, num_pages } | KvLayout::PagedTokensMajor { page_size, num_pages } => Some((page_size, num_pages)),
        }
    }
}

/// One decode problem: `batch` sequences of `q_len` new tokens, `heads` query heads sharing `kv_heads`
/// K/V heads (`heads / kv_heads` each), head dim `head_dim`, the cache's layout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecodeDesc {
    /// Sequences.
    pub batch: usize,
    /// Query heads.
    pub heads: usize,
    /// K/V heads (dividing `heads`).
    pub kv_heads: usize,
    /// Head dim: 64, 96, 128 or 256.
    pub head_dim: usize,
    /// New query tokens per sequence (1 for plain decode; a few when speculating): `heads / kv_heads ·
    /// q_len ≤ 16`.
    pub q_len: usize,
    /// Softmax scale; `None`: `1/√head_dim`.
    pub scale: Option<f32>,
    /// The cache's layout.
    pub layout: KvLayout,
}

impl DecodeDesc {
    /// One new token per sequence, the default scale, a contiguous cache of `max_len` tokens.
    pub fn new(batch: usize, heads: usize, kv_heads: usize, head_dim: usize, max_len: usize) -> DecodeDesc {
        DecodeDesc { batch, heads, kv_heads, head_dim, q_len: 1, scale: None, layout: KvLayout::Contiguous { max_len } }
    }

    /// The same problem over another cache layout.
    pub fn with_layout(self, layout: KvLayout) -> DecodeDesc {
        DecodeDesc { layout, ..self }
    }

    /// The same problem with `q_len` new tokens per sequence.
    pub fn with_q_len(self, q_len: usize) -> DecodeDesc {
        DecodeDesc { q_len, ..self }
    }

    /// Query heads per K/V head.
    pub fn group(&self) -> usize {
        self.heads / self.kv_heads.max(1)
    }

    /// Elements of Q (= O).
    pub fn q_elems(&self) -> usize {
        self.batch * self.q_len * self.heads * self.head_dim
    }

    /// Elements of the LSE: one per query row.
    pub fn rows(&self) -> usize {
        self.batch * self.q_len * self.heads
    }

    /// Elements of each of the K and V caches.
    pub fn cache_elems(&self) -> usize {
        match self.layout {
            KvLayout::Contiguous { max_len } => self.batch * self.kv_heads * max_len * self.head_dim,
            KvLayout::PagedHeadsMajor { page_size, num_pages } | KvLayout::PagedTokensMajor { page_size, num_pages } => num_pages * page_size * self.kv_heads * self.head_dim,
        }
    }

    /// The softmax scale it runs with.
    pub fn scale(&self) -> f32 {
        self.scale.unwrap_or(1.0 / (self.head_dim as f32).sqrt())
    }

    /// Checks every size before anything is allocated or launched; the error names the rule.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidInput(format!("decode attention: {m}")));
        for (what, v) in [("batch", self.batch), ("heads", self.heads), ("kv_heads", self.kv_heads), ("q_len", self.q_len)] {
            if v == 0 {
                return bad(format!("{what} = 0: every size must be at least 1"));
            }
        }
        if self.heads % self.kv_heads != 0 {
            return bad(format!("kv_heads = {} does not divide heads = {}", self.kv_heads, self.heads));
        }
        if !HEAD_DIMS.contains(&self.head_dim) {
            return bad(format!("head dim {} is not supported: the kernels take {HEAD_DIMS:?}", self.head_dim));
        }
        if self.group() * self.q_len > DECODE_ROWS as usize {
            return bad(format!("{} query heads per K/V head × {} new tokens = {} rows exceed the {DECODE_ROWS} one CTA takes", self.group(), self.q_len,
                               self.group() * self.q_len));
        }
        if self.batch > 65_535 || self.kv_heads > 65_535 {
            return bad(format!("batch {} or kv_heads {} exceeds 65535 (the grid's z and y)", self.batch, self.kv_heads));
        }
        match self.layout {
            KvLayout::Contiguous { max_len } if max_len == 0 || max_len > i32::MAX as usize => return bad(format!("contiguous cache max_len {max_len} is not in 1..2^31")),
            KvLayout::Contiguous { .. } => {}
            KvLayout::PagedHeadsMajor { page_size, num_pages } | KvLayout::PagedTokensMajor { page_size, num_pages } => {
                if !PAGE_SIZES.contains(&page_size) || page_size % 16 != 0 {
                    return bad(format!("page size {page_size} is not a multiple of 16 in {PAGE_SIZES:?}"));
                }
                if num_pages == 0 || num_pages > i32::MAX as usize {
                    return bad(format!("num_pages {num_pages} is not in 1..2^31"));
                }
            }
        }
        if !self.scale().is_finite() {
            return bad(format!("scale {} is not finite", self.scale()));
        }
        // The kernels index Q, O and the LSE with 32-bit row numbers times D.
        if self.q_elems() >= 1 << 31 {
            return bad(format!("Q holds {} elements, over the kernels' 2^31", self.q_elems()));
        }
        Ok(())
    }

    /// The kernel parameter describing the cache, for a table of `max_pages` entries per sequence at
    /// device address `table` (0: contiguous).
    fn cache_param(&self, table: u64, max_pages: usize) -> DecodeCache {
        let (d, hk) = (self.head_dim as u64, self.kv_heads as u64);
        let (page_stride, head_stride, row_stride, page_size, num_pages, max_pages) = match self.layout {
            KvLayout::Contiguous { max_len } => (hk * max_len as u64 * d, max_len as u64 * d, d, max_len, self.batch, 1),
            KvLayout::PagedHeadsMajor { page_size, num_pages } => (hk * page_size as u64 * d, page_size as u64 * d, d, page_size, num_pages, max_pages),
            KvLayout::PagedTokensMajor { page_size, num_pages } => (hk * page_size as u64 * d, d, hk * d, page_size, num_pages, max_pages),
        };
        DecodeCache { page_stride, head_stride, row_stride, table, max_pages: max_pages as u32, page_size: page_size as u32, num_pages: num_pages as u32,
                      capacity: (max_pages * page_size).min(i32::MAX as usize) as u32 }
    }
}

/// How a run splits the keys: `splits` CTAs per (sequence, K/V head), each taking `chunk` keys (the last
/// the rest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Split {
    /// CTAs per (sequence, K/V head).
    pub splits: u32,
    /// Keys per split, a multiple of 64.
    pub chunk: u32,
}

/// What one more CTA costs decode, as the bytes one CTA streams in that time: ~2 µs (its Q tile, its
/// partial outputs, its share of the combine) against ~1 µs per 64 keys of D = 128 (32 KiB of K and V) at
/// one SM's share of the copy rate. Measured on an H200 (session 55, `kernel-lab decode --splits`,
/// batch 1, 8 K/V heads, 16k and 32k keys: 16 splits 24.0 / 38.6 µs, 32 splits 25.7 / 40.5, 64 splits
/// 31.3 / 46.2, each step adding ~2 µs per CTA an SM runs).
pub const DECODE_CTA_COST_BYTES: f64 = 64.0 * 1024.0;

/// The longest split (keys) for which a paged cache runs ad5 (a warp's table entries read at once, one a lane:
/// a warp walks at most 32 tiles); longer splits run ad2p (each tile's entry read one tile ahead). ad2p against
/// ad2 (H200, session 71): 8192 keys a split (D = 256) 0.921–0.929× the time, 2048 0.979×; 1024 1.002×, 512
/// 1.017×, 256 1.006–1.023× — the read ahead pays on long walks only; ad5 against ad2 (session 78): 256–1024
/// keys 0.952–0.987×.
pub const DECODE_LANES_MAX_KEYS: u32 = 2048;

/// A lone paged CTA's streaming rate against a contiguous one's on ad2p's walks (splits over
/// [`DECODE_LANES_MAX_KEYS`], each tile's entry read one tile ahead). Fitted on ad2, which waited for every
/// tile's entry: at batch 1 × 8 K/V heads, D = 128, 32k keys, 16 splits (one CTA an SM), paged 44.1 µs against
/// contiguous 38.6 (H200, session 55), with [`DECODE_CTA_COST_BYTES`]: 0.87. Those 2048-key splits run ad5 now;
/// the rate stays on ad2p's longer walks, not re-fitted there: its one measurement is lower still
/// (16x32x8x4096x64 at one split of 4096 keys: ad2p 52.4 µs, contiguous 40.9: 0.78; session 78), where the
/// rate keeps that shape at two splits (38.6 µs).
pub const DECODE_PAGED_RATE: f64 = 0.87;

/// The same on ad5's walks (splits of at most [`DECODE_LANES_MAX_KEYS`], a warp's entries read at once): 16
/// splits at 32k keys, paged 39.5 µs against contiguous 38.8 (H200, session 78): 0.98. With it the 16k–32k
/// caches at batch 1 split 16 ways, as contiguous ones do (23.9 / 39.5 µs, where 32 splits took 26.6 / 42.4).
pub const DECODE_PAGED_LANES_RATE: f64 = 0.98;

/// The split for `pairs = batch · kv_heads` (sequence, K/V head) pairs over keys up to `max_seq_len` of
/// head dim `head_dim`, on a GPU with `sms` SMs: the count `s` that minimizes
/// `⌈pairs · s / sms⌉ · (keys a split streams + the cost of a CTA, in the same bytes)` — the CTAs an SM
/// runs, one after another or side by side (one CTA already streams at the SM's share of the copy
/// rate: a second one on the same SM adds its fixed cost, not bandwidth), each its split's bytes and
/// [`DECODE_CTA_COST_BYTES`]; the smallest `s` on a tie. At most one split per 64 keys, none empty.
///
/// The rules before: session 49's `⌈slots / pairs⌉` splits overshot into a second, partial wave (32
/// sequences × 8 K/V heads: 2 splits, 1.08× slower than 1); session 53's filled every resident CTA slot
/// (SMs × CTAs per SM: 32 splits at batch 1 × 8 heads), 5–7% slower than one CTA per SM (session 55).
pub fn plan_split(pairs: usize, max_seq_len: usize, sms: u32, head_dim: usize) -> Split {
    let most = (sms as usize).max(1).div_ceil(pairs.max(1)) * 4;
    cheapest(max_seq_len.div_ceil(DECODE_SPLIT_UNIT as usize).max(1), most, 1e-9, split_cost(pairs, sms, 1, head_dim, |_| 1.0))
}

/// The split for a paged cache: [`plan_split`]'s cost with a CTA's streaming at a fraction of a contiguous
/// one's — [`DECODE_PAGED_LANES_RATE`] on the splits ad5 walks, [`DECODE_PAGED_RATE`] on ad2p's — so that CTAs
/// side by side on an SM (up to `per_sm`, the kernel's resident CTAs an SM) add bandwidth until the SM's share
/// is reached: `c · units / min(1, min(c, per_sm) · rate) + c · cta`
/// for the `c = ⌈pairs · s / sms⌉` CTAs an SM runs.
///
/// Before (session 53's rule, until session 71): every resident slot filled (`⌈pairs · s / slots⌉ / s`
/// least), with no cost per CTA — right at 16k–32k keys (session 55: 32 splits 26.0 / 42.0 µs against 16
/// splits' 26.5 / 44.1, as this cost says), too many splits at short caches: 14.3 against 13.2 µs at 4k
/// (session 55), and 64 splits at 1×32×8×8192×64 (23.3 µs) where 32 took 14.7 (session 71). Since session 78
/// (ad5 and its own rate) the 16k–32k caches at batch 1 split 16 ways, as contiguous ones do.
pub fn plan_split_paged(pairs: usize, max_seq_len: usize, sms: u32, per_sm: u32, head_dim: usize) -> Split {
    let most = ((sms as usize) * (per_sm as usize).max(1)).max(1).div_ceil(pairs.max(1)) * 2;
    cheapest(max_seq_len.div_ceil(DECODE_SPLIT_UNIT as usize).max(1), most, 1e-9, split_cost(pairs, sms, per_sm, head_dim, paged_rate))
}

/// The decode split's cost (in 64-key units of one CTA streaming at the SM's share of the copy rate): the
/// `c = ⌈pairs · s / sms⌉` CTAs an SM runs, each its split's units and [`DECODE_CTA_COST_BYTES`], the
/// units streamed by up to `per_sm` of them side by side, each at `rate` of the split (at most the SM's share
/// together).
fn split_cost(pairs: usize, sms: u32, per_sm: u32, head_dim: usize, rate: impl Fn(&Split) -> f64) -> impl Fn(&Split) -> f64 {
    let unit = DECODE_SPLIT_UNIT as usize;
    let (pairs, sms, per_sm) = (pairs.max(1), (sms as usize).max(1), (per_sm as usize).max(1));
    // One 64-key unit of K and V in bytes, and a CTA's fixed cost in those units.
    let cta_units = DECODE_CTA_COST_BYTES / (unit * head_dim.max(1) * 2 * 2) as f64;
    move |s| {
        let c = (pairs * s.splits as usize).div_ceil(sms);
        let units = (s.chunk as usize / unit) as f64;
        c as f64 * units / (c.min(per_sm) as f64 * rate(s)).min(1.0) + c as f64 * cta_units
    }
}

/// The split of `units` 64-key units with the lowest `cost` among those [`split_of`] gives for 1 to
/// `most` wanted splits (at most one a unit); a later one must be cheaper by more than `tie`, so the
/// fewest splits win a tie.
fn cheapest(units: usize, most: usize, tie: f64, cost: impl Fn(&Split) -> f64) -> Split {
    let mut best = split_of(units, 1);
    for want in 2..=units.min(most).max(1) {
        let s = split_of(units, want);
        if cost(&s) < cost(&best) - tie {
            best = s;
        }
    }
    best
}

/// A lone paged CTA's rate on split `s`: ad5's up to [`DECODE_LANES_MAX_KEYS`] keys, ad2p's beyond.
fn paged_rate(s: &Split) -> f64 {
    if s.chunk <= DECODE_LANES_MAX_KEYS { DECODE_PAGED_LANES_RATE } else { DECODE_PAGED_RATE }
}

/// `want` splits (at most one per 64 keys) over `units` 64-key units, with no empty tail split.
fn split_of(units: usize, want: usize) -> Split {
    let unit = DECODE_SPLIT_UNIT as usize;
    let per = units.div_ceil(want.clamp(1, units));
    Split { splits: units.div_ceil(per) as u32, chunk: (per * unit) as u32 }
}

super::by_value_param!(CacheParam, DecodeCache, "[`DecodeCache`] as a by-value kernel parameter (48 bytes).");
super::by_value_param!(DimsParam, DecodeDims, "[`DecodeDims`] as a by-value kernel parameter (20 bytes).");

/// A page table on the device: `[batch][max_pages]` i32 page numbers — or more rows, of which the first
/// `batch` are read (a model's table of every cache slot, for a step over its first slots).
#[derive(Clone, Copy)]
pub struct BlockTable<'a> {
    /// The entries.
    pub table: &'a CudaSlice<i32>,
    /// Entries per sequence.
    pub max_pages: usize,
}

/// Checks a host copy of a block table (`[batch][max_pages]`) and the lengths against a paged layout:
/// every entry a sequence uses (pages `0..⌈len/page_size⌉`) inside `0..num_pages`, every length within
/// `max_pages · page_size`. The kernels never read outside the cache whatever the table says, but a bad
/// entry gives wrong attention; this names the first.
pub fn check_block_table(desc: &DecodeDesc, table: &[i32], max_pages: usize, seq_lens: &[i32]) -> Result<()> {
    let Some((page_size, num_pages)) = desc.layout.paged() else {
        return Err(Error::InvalidInput("decode attention: a block table belongs to a paged layout".into()));
    };
    if table.len() < desc.batch * max_pages || seq_lens.len() != desc.batch {
        return Err(Error::InvalidInput(format!("decode attention: the table holds {} entries and {} lengths; at least batch × max_pages = {} and batch = {} expected",
                                               table.len(), seq_lens.len(), desc.batch * max_pages, desc.batch)));
    }
    for (b, &len) in seq_lens.iter().enumerate() {
        if len < 0 || len as usize > max_pages * page_size {
            return Err(Error::InvalidInput(format!("decode attention: sequence {b} has length {len}, outside 0..={} (max_pages × page_size)", max_pages * page_size)));
        }
        for p in 0..(len as usize).div_ceil(page_size) {
            let e = table[b * max_pages + p];
            if e < 0 || e as usize >= num_pages {
                return Err(Error::InvalidInput(format!("decode attention: block table entry [{b}][{p}] = {e} is outside the cache's {num_pages} pages")));
            }
        }
    }
    Ok(())
}

/// Which decode step a [`DecodePlan`] runs where it splits the keys (with one split both are the same
/// kernel body, no combine).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DecodeStep {
    /// ad1: the splits' partials merged by a second kernel (`attn_decode_combine_*`).
    SeparateCombine,
    /// ad2 (the default): the last CTA of each (sequence, K/V head) merges that pair's splits inside the
    /// decode grid (`attn_decode2_*`): one launch, the merge spread over the pairs. Its merge stores O 8
    /// bytes at a time, so an O that does not start on 8 bytes runs ad1 instead.
    #[default]
    FusedCombine,
}

/// When decode may start reading the lengths, the page table and the older cache rows — the counterpart of
/// the GEMM's [`BReady`](crate::gemm::BReady). On Hopper the decode kernels are launched with programmatic
/// dependent launch: their CTAs may be resident while the previous grid on the stream still runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CacheReady {
    /// Everything is read after the previous grid has finished (always correct).
    #[default]
    AfterPrevious,
    /// The caller promises that the grid launched just before on the stream (and any grid still running
    /// when this one starts: with the lab's kernels, which release the next grid only after their own
    /// wait, that is the one just before) writes neither `seq_lens`, nor the block table, nor any cache
    /// row of a sequence but its last `q_len` (the new tokens, as [`DecodePlan::append`] or a model's
    /// rotary kernel writes them). Decode then reads the lengths and its first tiles' older keys before
    /// waiting for that grid, and the new keys and Q after: a model's decode step, where the cache's
    /// older rows were written by earlier steps. Broken, the promise gives wrong attention, not a fault
    /// (every read stays inside the buffers checked at the launch). Runs step ad3 with one split or with
    /// the fused combine ([`DecodeStep::FusedCombine`]); ad1's separate combine runs as with
    /// [`CacheReady::AfterPrevious`].
    AtLaunch,
}

/// The decode kernel a run launches: a step of the decode ladder (`kernels-gpu/src/attention/README.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecodeKernel {
    /// ad1 (`attn_decode_*`), and its combine kernel after it where the keys are split.
    Ad1,
    /// ad2 (`attn_decode2_*`): the splits combined inside the grid by each pair's last CTA.
    Ad2,
    /// ad3 (`attn_decode3_*`): ad2 reading the length and its first tiles' older keys before the PDL wait.
    Ad3,
    /// ad2p (`attn_decode2p_*`): ad2 on a paged cache, each tile's table entry read one tile ahead.
    Ad2p,
    /// ad5 (`attn_decode5_*`): ad2 on a paged cache, a warp's table entries (≤ 32 tiles) read once, one a lane,
    /// beside the length.
    Ad5,
}

impl DecodeKernel {
    /// The step's name in the decode ladder (`ad1`, `ad2`, `ad3`, `ad2p`, `ad5`).
    pub fn label(self) -> &'static str {
        match self {
            DecodeKernel::Ad1 => "ad1",
            DecodeKernel::Ad2 => "ad2",
            DecodeKernel::Ad3 => "ad3",
            DecodeKernel::Ad2p => "ad2p",
            DecodeKernel::Ad5 => "ad5",
        }
    }
}

/// Which kernel a run of `split` launches for `step` and `ready`, on a paged cache or a contiguous one, with
/// O starting on 8 bytes or not: ad2 where the keys are split and ad2's combine may run (its merge stores 8
/// bytes at a time), else ad1; ad3 instead of either where the cache is ready at launch and ad2 or one split
/// runs; on a paged cache, instead of ad2 (or of ad1 with one split), ad5 where the splits walk at most
/// [`DECODE_LANES_MAX_KEYS`] and ad2p where they walk more.
pub fn decode_kernel(step: DecodeStep, ready: CacheReady, paged: bool, split: Split, o_aligned8: bool) -> DecodeKernel {
    let fused = split.splits > 1 && step == DecodeStep::FusedCombine && o_aligned8;
    let early = ready == CacheReady::AtLaunch && (fused || split.splits == 1);
    let paged_step = paged && (fused || (split.splits == 1 && step == DecodeStep::FusedCombine));
    if early {
        DecodeKernel::Ad3
    } else if paged_step && split.chunk > DECODE_LANES_MAX_KEYS {
        DecodeKernel::Ad2p
    } else if paged_step {
        DecodeKernel::Ad5
    } else if fused {
        DecodeKernel::Ad2
    } else {
        DecodeKernel::Ad1
    }
}

/// Decode attention for one [`DecodeDesc`] and element type `T` (`half::f16`, `half::bf16`): kernels
/// loaded once, the split planned per run from a bound on the lengths, a grow-only workspace for the
/// splits' partial outputs and ad2's per-(sequence, K/V head) counters; everything enqueued on the
/// [`Gpu`]'s stream, nothing synchronizes.
pub struct DecodePlan<T: Element> {
    gpu: Gpu,
    desc: DecodeDesc,
    decode: Kernel,
    decode2: Kernel,
    decode3: Kernel,
    decode2p: Kernel,
    decode5: Kernel,
    step: DecodeStep,
    cache_ready: CacheReady,
    /// ad2's per-(sequence, K/V head) counts of finished splits (zero between launches).
    counters: Option<CudaSlice<u32>>,
    combine: Kernel,
    append: Kernel,
    /// Resident decode CTAs an SM holds, for a paged cache's split.
    per_sm: u32,
    forced: Option<u32>,
    o_part: Option<CudaSlice<f32>>,
    lse_part: Option<CudaSlice<f32>>,
    _elem: std::marker::PhantomData<T>,
}

impl<T: Element> DecodePlan<T> {
    /// Validates `desc` and loads the kernels (refused before anything is launched, naming the rule).
    pub fn new(gpu: &Gpu, desc: DecodeDesc) -> Result<Self> {
        let e = super::half_suffix::<T>("decode attention")?;
        desc.validate()?;
        let decode = gpu.kernel(&format!("attn_decode_d{}_{e}", desc.head_dim))?;
        let decode2 = gpu.kernel(&format!("attn_decode2_d{}_{e}", desc.head_dim))?;
        let decode3 = gpu.kernel(&format!("attn_decode3_d{}_{e}", desc.head_dim))?;
        let decode2p = gpu.kernel(&format!("attn_decode2p_d{}_{e}", desc.head_dim))?;
        let decode5 = gpu.kernel(&format!("attn_decode5_d{}_{e}", desc.head_dim))?;
        let combine = gpu.kernel(&format!("attn_decode_combine_{e}"))?;
        let append = gpu.kernel("attn_kv_append")?;
        let per_sm = decode.max_blocks_per_sm()?.max(1);
        Ok(DecodePlan { gpu: gpu.clone(), desc, decode, decode2, decode3, decode2p, decode5, step: DecodeStep::default(), cache_ready: CacheReady::default(), counters: None, combine, append, per_sm, forced: None, o_part: None,
                        lse_part: None, _elem: std::marker::PhantomData })
    }

    /// Runs `step` where the keys are split (default: [`DecodeStep::FusedCombine`]).
    pub fn use_step(&mut self, step: DecodeStep) {
        self.step = step;
    }

    /// When the kernels may read the lengths, table and older cache rows ([`CacheReady`]; default: after
    /// the previous grid).
    pub fn set_cache_ready(&mut self, ready: CacheReady) {
        self.cache_ready = ready;
    }

    /// When the kernels read the lengths, table and older cache rows.
    pub fn cache_ready(&self) -> CacheReady {
        self.cache_ready
    }

    /// The step it runs where the keys are split.
    pub fn step(&self) -> DecodeStep {
        self.step
    }

    /// Forces `splits` CTAs per (sequence, K/V head) (at most one per 64 keys), instead of filling the
    /// GPU; `None` restores the planned split. One split is one CTA per (sequence, K/V head), no combine.
    pub fn force_splits(&mut self, splits: Option<u32>) {
        self.forced = splits;
    }

    /// The problem.
    pub fn desc(&self) -> DecodeDesc {
        self.desc
    }

    /// The split a run over lengths up to `max_seq_len` uses.
    pub fn split(&self, max_seq_len: usize) -> Split {
        match self.forced {
            Some(n) => split_of(max_seq_len.div_ceil(DECODE_SPLIT_UNIT as usize).max(1), n as usize),
            None if self.desc.layout.paged().is_some() => plan_split_paged(self.desc.batch * self.desc.kv_heads, max_seq_len, self.gpu.info.sms, self.per_sm, self.desc.head_dim),
            None => plan_split(self.desc.batch * self.desc.kv_heads, max_seq_len, self.gpu.info.sms, self.desc.head_dim),
        }
    }

    /// The kernel a run of `split` launches with this plan's step and cache promise, on an O that starts on 8
    /// bytes or not ([`decode_kernel`]).
    pub fn kernel_for(&self, split: Split, o_aligned8: bool) -> DecodeKernel {
        decode_kernel(self.step, self.cache_ready, self.desc.layout.paged().is_some(), split, o_aligned8)
    }

    /// The cache parameter for an optional table, after checking it against the layout.
    fn cache(&self, table: Option<BlockTable<'_>>) -> Result<(DecodeCache, Option<Operand>)> {
        let d = &self.desc;
        match (d.layout.paged(), table) {
            (None, None) => Ok((d.cache_param(0, 1), None)),
            (None, Some(_)) => Err(Error::InvalidInput("decode attention: a block table was given for a contiguous cache".into())),
            (Some(_), None) => Err(Error::InvalidInput("decode attention: a paged cache needs its block table".into())),
            (Some((page_size, _)), Some(t)) => {
                if t.max_pages == 0 || t.table.len() < d.batch * t.max_pages {
                    return Err(Error::InvalidInput(format!("decode attention: the block table holds {} entries, at least batch {} × max_pages {} expected",
                                                           t.table.len(), d.batch, t.max_pages)));
                }
                if t.max_pages * page_size > i32::MAX as usize {
                    return Err(Error::InvalidInput(format!("decode attention: max_pages {} × page size {page_size} exceeds 2^31 tokens", t.max_pages)));
                }
                let (p, _g) = t.table.device_ptr(&self.gpu.stream);
                Ok((d.cache_param(p, t.max_pages), Some(Operand { ptr: p, len: t.table.len() })))
            }
        }
    }

    /// Enqueues decode attention: `o` and `lse` for the new tokens `q` against the caches `k`, `v`
    /// (`table`: the block table of a paged layout, `None` for a contiguous one), each sequence's
    /// length in `seq_lens` (device, i32, the new tokens included). `max_seq_len` bounds the lengths
    /// for the split (a longer one is still attended in full, by the last split: slower, not wrong).
    /// Lengths and 16-byte alignment checked before the launch.
    #[allow(clippy::too_many_arguments)]
    pub fn run<Q, K, V, O, L>(&mut self, q: &Q, k: &K, v: &V, table: Option<BlockTable<'_>>, seq_lens: &CudaSlice<i32>, max_seq_len: usize, o: &mut O,
                              lse: &mut L) -> Result<Split>
    where
        Q: DevicePtr<T>,
        K: DevicePtr<T>,
        V: DevicePtr<T>,
        O: DevicePtrMut<T>,
        L: DevicePtrMut<f32>,
    {
        let d = self.desc;
        check_lens("decode attention", &d, &[("Q", q.len(), d.q_elems()), ("K", k.len(), d.cache_elems()), ("V", v.len(), d.cache_elems()),
                                              ("O", o.len(), d.q_elems()), ("LSE", lse.len(), d.rows()), ("seq_lens", seq_lens.len(), d.batch)])?;
        let (cache, _) = self.cache(table)?;
        let split = self.split(max_seq_len);
        let stream = self.gpu.stream.clone();
        let (pq, _gq) = q.device_ptr(&stream);
        let (pk, _gk) = k.device_ptr(&stream);
        let (pv, _gv) = v.device_ptr(&stream);
        let (ps, _gs) = seq_lens.device_ptr(&stream);
        let (po, _go) = o.device_ptr_mut(&stream);
        let (pl, _gl) = lse.device_ptr_mut(&stream);
        let op = |ptr, len| Operand { ptr, len };
        Operand::require_aligned16(&[("Q", op(pq, 0)), ("K", op(pk, 0)), ("V", op(pv, 0))], self.decode.name(), || format!("decode attention {d:?}: "))?;
        let all_rows = d.rows();
        if split.splits as usize * all_rows * d.head_dim >= 1 << 32 {
            return Err(Error::InvalidInput(format!("decode attention: {} splits × {all_rows} rows × D exceed the kernels' 32-bit partial index", split.splits)));
        }
        let (pop, plp) = if split.splits > 1 {
            let need = split.splits as usize * all_rows;
            if self.lse_part.as_ref().is_none_or(|b| b.len() < need) {
                crate::runtime::budget::check(&self.gpu, "decode attention's split partials", (need * (d.head_dim + 1) * 4) as u64, 0)?;
                self.o_part = Some(self.gpu.zeros::<f32>(need * d.head_dim)?);
                self.lse_part = Some(self.gpu.zeros::<f32>(need)?);
            }
            let (Some(op_), Some(lp)) = (self.o_part.as_mut(), self.lse_part.as_mut()) else { unreachable!("allocated above") };
            (op_.device_ptr_mut(&stream).0, lp.device_ptr_mut(&stream).0)
        } else {
            (0, 0)
        };
        let dims = DimsParam(DecodeDims { heads: d.heads as u32, group: d.group() as u32, q_len: d.q_len as u32, chunk: split.chunk, scale: d.scale() });
        let cache = CacheParam(cache);
        // Which of ad1, ad2, ad3, ad2p and ad5 runs (`decode_kernel`: ad2's merge stores 4 outputs at a time, so an
        // O that starts off 8 bytes takes ad1's combine); every one but ad1 combines in the grid where split.
        let kernel = self.kernel_for(split, po % 8 == 0);
        let fused = split.splits > 1 && kernel != DecodeKernel::Ad1;
        let pc = if fused {
            if self.counters.is_none() {
                // Zeroed once; each launch leaves them zero (the last CTA of a pair resets its count).
                self.counters = Some(self.gpu.zeros::<u32>(d.batch * d.kv_heads)?);
            }
            let Some(c) = self.counters.as_mut() else { unreachable!("allocated above") };
            c.device_ptr_mut(&stream).0
        } else {
            0
        };
        // SAFETY: `attn_decode_d{D}_{e}(q, k, v, seq_lens, cache, dims, o, lse, o_part, lse_part)` (ad1; ad2
        // adds `counters`): Q and O hold batch·q_len·heads·D, LSE batch·q_len·heads, seq_lens batch (all
        // checked above), K and V the elements the layout's strides reach for every page < num_pages and
        // head < kv_heads (checked: `cache_elems`); the table holds batch·max_pages entries (checked in
        // `cache`); group·q_len ≤ 16 and D the kernel's (`validate`, the kernel chosen by D); with more
        // than one split the partials hold splits·rows (·D) f32, below 2^32 elements (checked), ad2 runs
        // only on an O aligned to 8 bytes (its merge's stores), and its counters hold batch·kv_heads u32, zero between launches (allocated zeroed for this descriptor, reset
        // by each launch's last CTA per pair; one stream, so no two of this plan's grids overlap); grid
        // (splits, kv_heads ≤ 65535, batch ≤ 65535), block and shared memory from the descriptor. Lengths
        // and table entries outside the cache are clamped or skipped by the kernel (never dereferenced).
        // ad3 (`attn_decode3_*`: ad2's parameters and contract; with one split no combine, so no counters
        // and any O alignment, as ad1) only where the caller promised what it needs
        // (`CacheReady::AtLaunch`): it moves reads of those same buffers before the PDL wait, so a broken
        // promise reads stale values, never outside them.
        // ad2p (`attn_decode2p_*`: ad2's parameters and contract) each tile's table entry read one tile ahead;
        // ad5 (`attn_decode5_*`: the same) a warp's entries read at once, only entries of the sequence's own
        // table row below its capacity. With one split ad2, ad3, ad2p and ad5 combine nothing, so they take no
        // counters and any O alignment, as ad1.
        let k = match kernel {
            DecodeKernel::Ad1 => None,
            DecodeKernel::Ad2 => Some(&self.decode2),
            DecodeKernel::Ad3 => Some(&self.decode3),
            DecodeKernel::Ad2p => Some(&self.decode2p),
            DecodeKernel::Ad5 => Some(&self.decode5),
        };
        if let Some(k) = k {
            unsafe { launch!(self.gpu, k, grid = (split.splits, d.kv_heads as u32, d.batch as u32), &pq, &pk, &pv, &ps, &cache, &dims, &po, &pl, &pop, &plp, &pc)? };
            return Ok(split);
        }
        unsafe { launch!(self.gpu, &self.decode, grid = (split.splits, d.kv_heads as u32, d.batch as u32), &pq, &pk, &pv, &ps, &cache, &dims, &po, &pl, &pop, &plp)? };
        if split.splits > 1 {
            let (rows, dd) = (all_rows as u32, d.head_dim as u32);
            // SAFETY: `attn_decode_combine_{e}(o_part, lse_part, o, lse, rows, d, splits)`: the partials hold
            // splits·rows·D and splits·rows f32 (allocated above), O rows·D 16-bit and LSE rows f32
            // (checked); grid ⌈rows/8⌉ blocks of 256 threads.
            unsafe { launch!(self.gpu, &self.combine, grid = (rows.div_ceil(8), 1), &pop, &plp, &po, &pl, &rows, &dd, &split.splits)? };
        }
        Ok(split)
    }

    /// Enqueues the KV-cache append: the new tokens' keys and values (`k_new`, `v_new`
    /// `[batch][q_len][kv_heads][D]`) written to positions `seq_lens[b] − q_len + t` of each sequence
    /// (the lengths already counting them), through the block table of a paged layout. Positions
    /// outside a sequence's capacity, or in a page outside the cache, are skipped.
    pub fn append<N, K, V>(&mut self, k_new: &N, v_new: &N, k: &mut K, v: &mut V, table: Option<BlockTable<'_>>, seq_lens: &CudaSlice<i32>) -> Result<()>
    where
        N: DevicePtr<T>,
        K: DevicePtrMut<T>,
        V: DevicePtrMut<T>,
    {
        let d = self.desc;
        let new = d.batch * d.q_len * d.kv_heads * d.head_dim;
        check_lens("KV append", &d, &[("new K", k_new.len(), new), ("new V", v_new.len(), new), ("K", k.len(), d.cache_elems()),
                                       ("V", v.len(), d.cache_elems()), ("seq_lens", seq_lens.len(), d.batch)])?;
        let (cache, _) = self.cache(table)?;
        let stream = self.gpu.stream.clone();
        let (pkn, _a) = k_new.device_ptr(&stream);
        let (pvn, _b) = v_new.device_ptr(&stream);
        let (pk, _c) = k.device_ptr_mut(&stream);
        let (pv, _d) = v.device_ptr_mut(&stream);
        let (ps, _e) = seq_lens.device_ptr(&stream);
        let op = |ptr| Operand { ptr, len: 0 };
        Operand::require_aligned16(&[("new K", op(pkn)), ("new V", op(pvn)), ("K", op(pk)), ("V", op(pv))], self.append.name(), || "KV append: ".into())?;
        let chunks = (new / 8) as u32;
        let (batch, q_len, kv_heads, dd) = (d.batch as u32, d.q_len as u32, d.kv_heads as u32, d.head_dim as u32);
        let cache = CacheParam(cache);
        // SAFETY: `attn_kv_append(k_new, v_new, k, v, seq_lens, cache, batch, q_len, kv_heads, d)`: the new
        // rows hold batch·q_len·kv_heads·D (checked, < 2^31 by `validate`'s bound on Q), D % 8 == 0, the
        // caches and table as for `run` (checked); 16-byte aligned (checked); grid ⌈chunks/256⌉ blocks of 256.
        unsafe { launch!(self.gpu, &self.append, grid = (chunks.div_ceil(256), 1), &pkn, &pvn, &pk, &pv, &ps, &cache, &batch, &q_len, &kv_heads, &dd) }
    }
}

/// The first of `lens` (`(buffer, elements it holds, elements expected)`) whose length is off, as an error
/// naming the operation, the problem and the buffer.
fn check_lens(op: &str, d: &DecodeDesc, lens: &[(&str, usize, usize)]) -> Result<()> {
    match lens.iter().find(|(_, got, want)| got != want) {
        Some((what, got, want)) => Err(Error::InvalidInput(format!("{op} {d:?}: {what} holds {got} elements, {want} expected"))),
        None => Ok(()),
    }
}

/// Decode attention in f64 on the CPU (the tests' reference): `q` `[batch][q_len][heads][D]`, the caches
/// in `desc.layout` (with `table` `[batch][max_pages]` when paged), lengths `seq_lens`. Returns O (same
/// layout as Q) and the natural LSE per row (−∞ for a row without keys).
pub fn reference_f64(desc: &DecodeDesc, q: &[f32], k: &[f32], v: &[f32], table: Option<(&[i32], usize)>, seq_lens: &[i32]) -> (Vec<f64>, Vec<f64>) {
    let d = desc.head_dim;
    let cache = desc.cache_param(0, table.map_or(1, |t| t.1));
    let (mut o, mut lse) = (vec![0.0; desc.q_elems()], vec![f64::NEG_INFINITY; desc.rows()]);
    for b in 0..desc.batch {
        let len = (seq_lens[b].max(0) as usize).min(cache.capacity as usize);
        let row_of = |key: usize, h: usize| -> usize {
            let (page, r) = match table {
                None => (b, key),
                Some((t, mp)) => (t[b * mp + key / cache.page_size as usize] as usize, key % cache.page_size as usize),
            };
            page * cache.page_stride as usize + h * cache.head_stride as usize + r * cache.row_stride as usize
        };
        for t in 0..desc.q_len {
            let n = len.saturating_sub(desc.q_len - 1 - t);
            for h in 0..desc.heads {
                let kvh = h / desc.group();
                let row = (b * desc.q_len + t) * desc.heads + h;
                let qr = &q[row * d..(row + 1) * d];
                let s: Vec<f64> = (0..n).map(|j| {
                    let at = row_of(j, kvh);
                    desc.scale() as f64 * (0..d).map(|c| qr[c] as f64 * k[at + c] as f64).sum::<f64>()
                }).collect();
                if n == 0 {
                    continue;
                }
                let m = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let e: Vec<f64> = s.iter().map(|x| (x - m).exp()).collect();
                let sum: f64 = e.iter().sum();
                for (j, w) in e.iter().enumerate() {
                    let at = row_of(j, kvh);
                    for c in 0..d {
                        o[row * d + c] += w / sum * v[at + c] as f64;
                    }
                }
                lse[row] = m + sum.ln();
            }
        }
    }
    (o, lse)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc() -> DecodeDesc {
        DecodeDesc::new(2, 32, 8, 128, 4096)
    }

    #[test]
    fn bad_descriptions_are_refused_naming_the_rule() {
        let e = |d: DecodeDesc| d.validate().unwrap_err().to_string();
        assert!(e(DecodeDesc { kv_heads: 5, ..desc() }).contains("kv_heads = 5 does not divide heads = 32"));
        assert!(e(DecodeDesc { head_dim: 80, ..desc() }).contains("head dim 80 is not supported"));
        assert!(e(DecodeDesc { q_len: 5, ..desc() }).contains("4 query heads per K/V head × 5 new tokens = 20 rows"));
        assert!(e(DecodeDesc { batch: 0, ..desc() }).contains("batch = 0"));
        assert!(e(desc().with_layout(KvLayout::PagedHeadsMajor { page_size: 24, num_pages: 10 })).contains("page size 24"));
        assert!(e(desc().with_layout(KvLayout::PagedTokensMajor { page_size: 512, num_pages: 10 })).contains("page size 512"));
        assert!(e(desc().with_layout(KvLayout::Contiguous { max_len: 0 })).contains("max_len 0"));
        assert!(e(DecodeDesc { scale: Some(f32::NAN), ..desc() }).contains("not finite"));
        for d in HEAD_DIMS {
            assert!(DecodeDesc { head_dim: d, ..desc() }.validate().is_ok());
        }
        assert!(desc().with_q_len(4).validate().is_ok() && DecodeDesc::new(1, 8, 1, 64, 10).with_q_len(2).validate().is_ok());
    }

    #[test]
    fn the_split_puts_one_cta_on_each_sm_and_never_leaves_a_split_empty() {
        // Batch 1, 8 K/V heads, D = 128 on 132 SMs: 16 splits (128 CTAs, one an SM) at 4k and 32k keys —
        // not 32 (two an SM), which measured 5–7% slower.
        assert_eq!(plan_split(8, 4096, 132, 128), Split { splits: 16, chunk: 256 });
        assert_eq!(plan_split(8, 32768, 132, 128), Split { splits: 16, chunk: 2048 });
        // Enough (sequence, head) pairs: one split, the whole length.
        assert_eq!(plan_split(64 * 8, 8192, 132, 128), Split { splits: 1, chunk: 8192 });
        assert_eq!(plan_split(32 * 8, 4096, 132, 128).splits, 1);
        // 128 pairs of D = 64 at 4k: one split (measured: 1 split 40.7 µs, 4 splits 41.0; session 53).
        assert_eq!(plan_split(16 * 8, 4096, 132, 64).splits, 1);
        // 64 pairs: two splits, 128 CTAs.
        assert_eq!(plan_split(8 * 8, 32768, 132, 128).splits, 2);
        for (pairs, len, sms, d) in [(1, 1, 132, 128), (3, 100, 132, 64), (8, 32768, 132, 256), (40, 5000, 114, 96), (1, 1 << 20, 132, 128), (7, 65, 100, 64)] {
            let s = plan_split(pairs, len, sms, d);
            assert!(s.chunk % 64 == 0 && s.chunk >= 64, "{pairs} {len} {sms}: {s:?}");
            assert!((s.splits as usize) * (s.chunk as usize) >= len, "covers every key: {s:?}");
            assert!(((s.splits - 1) as usize) * (s.chunk as usize) < len.max(1), "no empty split: {s:?}");
            assert!(pairs * s.splits as usize <= 2 * (sms as usize).max(pairs), "about one CTA an SM: {s:?}");
        }
        // Monotone in the length: a longer cache never takes fewer splits.
        for pairs in [1usize, 8, 32, 100] {
            let mut last = 0;
            for len in [64usize, 512, 2048, 4096, 16384, 65536, 1 << 20] {
                let s = plan_split(pairs, len, 132, 128).splits;
                assert!(s >= last, "{pairs} pairs: {len} keys take {s} splits, fewer than a shorter cache's {last}");
                last = s;
            }
        }
        // A paged cache (a lone CTA at 0.98 of the contiguous rate on ad5's splits, 0.87 on ad2p's; D = 128: 2 CTAs
        // an SM, D = 64: 4): 16 splits at batch 1 × 8 heads with 4k keys (session 55: 13.2 µs against 32 splits'
        // 14.3), 16 at 16k and 32k too (session 78, ad5: 23.9 / 39.5 µs against 32 splits' 26.6 / 42.4), 16 at 8k
        // of D = 64 (session 71: 64 splits 23.3 µs, 32 splits 14.7; session 78: 12.8 against 14.0); two at
        // 16x32x8x4096x64 (session 78: ad5 38.8 µs where one split, ad2p, took 52.4); big batches one.
        assert_eq!(plan_split_paged(8, 4096, 132, 2, 128), Split { splits: 16, chunk: 256 });
        assert_eq!(plan_split_paged(8, 32768, 132, 2, 128), Split { splits: 16, chunk: 2048 });
        assert_eq!(plan_split_paged(8, 16384, 132, 2, 128).splits, 16);
        assert_eq!(plan_split_paged(16 * 8, 4096, 132, 4, 64), Split { splits: 2, chunk: 2048 });
        assert_eq!(plan_split_paged(64 * 8, 2048, 132, 4, 64).splits, 1);
        assert_eq!(plan_split_paged(8, 8192, 132, 4, 64).splits, 16);
        assert_eq!(plan_split_paged(32 * 8, 4096, 132, 2, 128).splits, 1);
        // With the rate at 1 and one CTA an SM the paged cost is the contiguous one.
        for (pairs, len, d) in [(8usize, 4096usize, 128usize), (8, 32768, 128), (16 * 8, 4096, 64), (3, 100, 96)] {
            let (units, most) = (len.div_ceil(64), 132usize.div_ceil(pairs) * 4);
            assert_eq!(cheapest(units, most, 1e-9, split_cost(pairs, 132, 1, d, |_| 1.0)), plan_split(pairs, len, 132, d));
        }
        // Never more CTAs than the resident slots can hold twice over, no empty split.
        for (pairs, len, per_sm, d) in [(1, 1, 2, 128), (8, 1 << 20, 2, 128), (40, 5000, 4, 64), (7, 65, 1, 256)] {
            let s = plan_split_paged(pairs, len, 132, per_sm, d);
            assert!((s.splits as usize) * (s.chunk as usize) >= len && ((s.splits - 1) as usize) * (s.chunk as usize) < len.max(1), "{s:?}");
            assert!(pairs * s.splits as usize <= 2 * (132 * per_sm as usize).max(pairs), "{s:?}");
        }
        // Forced: one split is the whole length.
        assert_eq!(split_of(64, 1), Split { splits: 1, chunk: 4096 });
    }

    #[test]
    fn each_run_takes_the_kernel_of_its_layout_split_and_promise() {
        use DecodeKernel::*;
        use {CacheReady::{AfterPrevious as After, AtLaunch as Launch}, DecodeStep::{FusedCombine as Fused, SeparateCombine as Separate}};
        let (short, long, one) = (Split { splits: 16, chunk: 256 }, Split { splits: 2, chunk: 4096 }, Split { splits: 1, chunk: 8192 });
        // Contiguous: ad2 where split and O aligned, else ad1; ad3 where the cache is ready at launch.
        assert_eq!(decode_kernel(Fused, After, false, short, true), Ad2);
        assert_eq!(decode_kernel(Fused, After, false, short, false), Ad1);
        assert_eq!(decode_kernel(Separate, After, false, short, true), Ad1);
        assert_eq!(decode_kernel(Fused, After, false, one, true), Ad1);
        assert_eq!(decode_kernel(Fused, Launch, false, one, false), Ad3);
        assert_eq!(decode_kernel(Fused, Launch, false, short, true), Ad3);
        assert_eq!(decode_kernel(Fused, Launch, false, short, false), Ad1);
        assert_eq!(decode_kernel(Fused, After, false, long, true), Ad2, "a contiguous cache never runs ad2p");
        // Paged: ad2p on splits of more than 2048 keys (one split, or ad2's combine), ad5 up to it; ad1 where ad2's
        // combine cannot run; ad3 first.
        assert_eq!(decode_kernel(Fused, After, true, one, false), Ad2p);
        assert_eq!(decode_kernel(Fused, After, true, long, true), Ad2p);
        assert_eq!(decode_kernel(Fused, After, true, long, false), Ad1);
        assert_eq!(decode_kernel(Fused, After, true, short, true), Ad5);
        assert_eq!(decode_kernel(Fused, After, true, short, false), Ad1);
        assert_eq!(decode_kernel(Fused, After, true, Split { splits: 1, chunk: 1024 }, true), Ad5);
        assert_eq!(decode_kernel(Fused, After, true, Split { splits: 1, chunk: 2048 }, false), Ad5);
        assert_eq!(decode_kernel(Fused, After, true, Split { splits: 2, chunk: 2048 }, true), Ad5);
        assert_eq!(decode_kernel(Fused, After, true, Split { splits: 2, chunk: 2112 }, true), Ad2p);
        assert_eq!(decode_kernel(Separate, After, true, short, true), Ad1);
        assert_eq!(decode_kernel(Separate, After, true, one, true), Ad1);
        assert_eq!(decode_kernel(Fused, Launch, true, one, true), Ad3);
    }

    #[test]
    fn strides_describe_the_three_layouts() {
        let d = desc();
        let c = d.cache_param(0, 1);
        assert_eq!((c.page_stride, c.head_stride, c.row_stride, c.capacity, c.num_pages), (8 * 4096 * 128, 4096 * 128, 128, 4096, 2));
        let p = d.with_layout(KvLayout::PagedHeadsMajor { page_size: 16, num_pages: 100 }).cache_param(7, 30);
        assert_eq!((p.page_stride, p.head_stride, p.row_stride, p.capacity, p.table), (8 * 16 * 128, 16 * 128, 128, 480, 7));
        let n = d.with_layout(KvLayout::PagedTokensMajor { page_size: 64, num_pages: 100 }).cache_param(7, 30);
        assert_eq!((n.page_stride, n.head_stride, n.row_stride), (64 * 8 * 128, 128, 8 * 128));
        assert_eq!(d.with_layout(KvLayout::PagedTokensMajor { page_size: 64, num_pages: 100 }).cache_elems(), 100 * 64 * 8 * 128);
    }

    #[test]
    fn block_tables_are_checked_entry_by_entry() {
        let d = DecodeDesc::new(2, 4, 2, 64, 0).with_layout(KvLayout::PagedHeadsMajor { page_size: 16, num_pages: 4 });
        assert!(check_block_table(&d, &[0, 1, 2, 3], 2, &[32, 17]).is_ok());
        assert!(check_block_table(&d, &[0, 1, 2, 9], 2, &[32, 17]).unwrap_err().to_string().contains("entry [1][1] = 9"));
        // An entry past the sequence's pages is never used: not checked.
        assert!(check_block_table(&d, &[0, 1, 2, -1], 2, &[32, 16]).is_ok());
        assert!(check_block_table(&d, &[0, 1, 2, 3], 2, &[33, 0]).unwrap_err().to_string().contains("length 33"));
        assert!(check_block_table(&DecodeDesc::new(2, 4, 2, 64, 8), &[0], 1, &[1, 1]).is_err());
        // A table of more rows than the batch (a model's every slot, a step over its first two): the rows
        // past the batch are not read, nor checked.
        assert!(check_block_table(&d, &[0, 1, 2, 3, 99, 99], 2, &[32, 17]).is_ok());
    }

    #[test]
    fn the_reference_attends_to_the_visible_keys_only() {
        // One sequence, 2 heads sharing 1 K/V head, D = 64, 2 new tokens, 3 keys: token 0 sees keys 0..2,
        // token 1 sees all 3; a length-0 sequence gets O = 0, LSE = −∞.
        let d = DecodeDesc { batch: 2, heads: 2, kv_heads: 1, head_dim: 64, q_len: 2, scale: Some(1.0), layout: KvLayout::Contiguous { max_len: 4 } };
        let q = vec![0.0f32; d.q_elems()];
        let mut k = vec![0.0f32; d.cache_elems()];
        let mut v = vec![0.0f32; d.cache_elems()];
        for j in 0..4 {
            k[j * 64] = j as f32;
            v[j * 64] = 10.0 * j as f32;
        }
        let (o, lse) = reference_f64(&d, &q, &k, &v, None, &[3, 0]);
        // Q = 0: uniform weights over the visible keys.
        assert!((o[0] - 5.0).abs() < 1e-12 && (o[64] - 5.0).abs() < 1e-12, "token 0: mean of 0, 10");
        assert!((o[2 * 64] - 10.0).abs() < 1e-12, "token 1: mean of 0, 10, 20");
        assert!((lse[0] - 2f64.ln()).abs() < 1e-12 && (lse[2] - 3f64.ln()).abs() < 1e-12);
        assert!(lse[4..].iter().all(|x| *x == f64::NEG_INFINITY) && o[4 * 64..].iter().all(|x| *x == 0.0));
    }
}

//! Attention forward as a library (issue 17): `O = softmax(Q·Kᵀ · scale [+ causal mask]) · V` and the
//! natural log-sum-exp of each row, for Q, K, V, O stored `[B·H][L][D]` row-major in f16 or bf16.
//!
//! * [`flash`]: the fused kernel ([`default_flash`]: on Hopper a15 at D = 128, a12 at D = 64, TMA + `wgmma`, persistent; elsewhere
//!   FlashAttention-2's tiles on `mma.sync`, longest query tiles first — a17 over groups of heads with the causal mask, a16
//!   per head without; or any fused step with [`flash_with`]), head dims 64
//!   and 128;
//! * [`Unfused`]: the baseline users write first — `S = Q·Kᵀ` (cuBLAS, f32), the a1 softmax kernel,
//!   `O = P·V` (cuBLAS) — with its S and P buffers allocated once;
//! * [`reference_f64`]: the f64 CPU reference of small shapes.
//!
//! Bad input is refused before any launch with the constraint it breaks: a head dim the kernel lacks,
//! zero sizes, buffer lengths that do not match the shape, sizes beyond memory (the unfused path's
//! `B·H·L²` scores).
/// A `layout` struct passed to an attention kernel by value (decode's, prefill's): a local wrapper (the orphan rule keeps cudarc's
/// `DeviceRepr` off `layout`'s types) whose bytes are the struct's.
macro_rules! by_value_param {
    ($wrapper:ident, $inner:ty, $doc:literal) => {
        #[doc = $doc]
        #[derive(Clone, Copy)]
        #[repr(transparent)]
        pub(crate) struct $wrapper(pub(crate) $inner);
        // SAFETY: plain integers and floats (a device address among them, as the kernel reads it),
        // `repr(C)` in `layout`: the very struct the kernel takes, so the bytes match its `.param .b8`
        // array (`launch!` checks the size against the PTX).
        unsafe impl cudarc::driver::DeviceRepr for $wrapper {}
        impl crate::runtime::gpu::ParamBytes for &$wrapper {
            fn param_bytes(&self) -> u32 {
                std::mem::size_of::<$inner>() as u32
            }
            fn param_slot(&self, _: &std::sync::Arc<cudarc::driver::CudaStream>) -> u64 {
                0
            }
            fn param_ref(&self) -> *const std::ffi::c_void {
                std::ptr::from_ref::<$wrapper>(*self).cast()
            }
        }
    };
}
pub(crate) use by_value_param;

pub mod backward;
pub mod decode;
pub mod prefill;

/// The kernel-name suffix (`"f16"`, `"bf16"`) of a 16-bit element type; `what` (the operation, as its
/// errors name it) takes only those: f32 is refused with the reason.
pub(crate) fn half_suffix<T: crate::gemm::Element>(what: &str) -> Result<&'static str> {
    match T::ELEM {
        Elem::F32 => Err(Error::InvalidInput(format!("{what} takes f16 or bf16 (half::f16, half::bf16), not f32"))),
        Elem::Bf16 => Ok("bf16"),
        _ => Ok("f16"),
    }
}

use cudarc::{
    cublas::{CudaBlas, sys as blas_sys},
    driver::{CudaSlice, DevicePtr, DevicePtrMut},
};

use layout::hopper::{TmaSwizzle, TmaTile2d};

use crate::{
    error::{Error, Result},
    gemm::launch::Operand,
    launch,
    runtime::{gpu::{Gpu, Kernel}, tma::TensorMap2d},
    steps::{attention::{A12_D64, A12_D64_BF16, A12_D128, A12_D128_BF16, A15_D128, A15_D128_BF16, A16_D64, A16_D64_BF16, A16_D128, A16_D128_BF16, A17_D64, A17_D64_BF16, A17_D128, A17_D128_BF16, Kind, Step, find}, gemm::Elem},
};

/// One attention problem: `batch × heads` independent heads of `len` queries and keys of dimension
/// `head_dim`, optionally causal (query i sees keys 0..=i).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AttnShape {
    /// Batch size.
    pub batch: usize,
    /// Heads per batch entry.
    pub heads: usize,
    /// Sequence length (queries = keys).
    pub len: usize,
    /// Head dimension.
    pub head_dim: usize,
    /// Causal mask.
    pub causal: bool,
}

impl AttnShape {
    /// Validates the sizes: each at least 1, `batch · heads` at most 65535 (the grid's y), `len` at most
    /// 2^20, `head_dim` 64 or 128 (the kernels' specializations; the error names them).
    pub fn new(batch: usize, heads: usize, len: usize, head_dim: usize, causal: bool) -> Result<AttnShape> {
        for (what, v) in [("batch", batch), ("heads", heads), ("sequence length", len), ("head dim", head_dim)] {
            if v == 0 {
                return Err(Error::InvalidInput(format!("attention {what} = 0: every size must be at least 1")));
            }
        }
        if batch * heads > 65_535 {
            return Err(Error::InvalidInput(format!("attention batch × heads = {} exceeds 65535 (one grid row per head)", batch * heads)));
        }
        if len > 1 << 20 {
            return Err(Error::InvalidInput(format!("attention sequence length {len} exceeds 2^20")));
        }
        if head_dim != 64 && head_dim != 128 {
            return Err(Error::InvalidInput(format!("attention head dim {head_dim} is not supported: the kernels take 64 or 128")));
        }
        Ok(AttnShape { batch, heads, len, head_dim, causal })
    }

    /// `batch · heads`.
    pub fn heads_total(&self) -> usize {
        self.batch * self.heads
    }

    /// Elements of Q (= K = V = O).
    pub fn elems(&self) -> usize {
        self.heads_total() * self.len * self.head_dim
    }

    /// The FLOPs FlashAttention's papers count: `4·B·H·L²·D`, halved with the causal mask.
    pub fn flops(&self) -> f64 {
        let f = 4.0 * self.heads_total() as f64 * (self.len as f64).powi(2) * self.head_dim as f64;
        if self.causal { f / 2.0 } else { f }
    }

    /// `1 / √D`, the usual softmax scale.
    pub fn default_scale(&self) -> f32 {
        1.0 / (self.head_dim as f32).sqrt()
    }

    fn check_buffers(&self, q: usize, k: usize, v: usize, o: usize, lse: usize) -> Result<()> {
        for (what, len, want) in [("Q", q, self.elems()), ("K", k, self.elems()), ("V", v, self.elems()), ("O", o, self.elems()), ("LSE", lse, self.heads_total() * self.len)] {
            if len != want {
                return Err(Error::InvalidInput(format!("attention {self}: {what} holds {len} elements, the shape needs {want} ([B·H][L][D], LSE [B·H][L])")));
            }
        }
        Ok(())
    }
}

impl std::fmt::Display for AttnShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}x{}x{}{}", self.batch, self.heads, self.len, self.head_dim, if self.causal { " causal" } else { "" })
    }
}

/// The fused step [`flash`] runs for head dim `d` and `elem` on a GPU that runs `sm_90a` code
/// (`hopper`) or not: the fastest measured on an H100 (`kernels-gpu/src/attention/README.md`, session
/// 12's calls 1–3, each step against the others in the same call):
/// * Hopper, D = 128: a15 (a12 in clusters of 2 sharing K/V by multicast): 1.01–1.04× a12 at 15 of
///   the 16 D = 128 rows timed sustained (session 22, `results/2026-11-26-h100-session22/`, calls 4–5;
///   0.986× at one), 0.99–1.04× interleaved with it (`ab`), 836 against 858 µs in one `ncu` launch; in
///   bursts from idle 1.00–1.05× but for 0.95× at 1×16×16384×128 non-causal; where no cluster
///   of 2 fits (`cuOccupancyMaxActiveClusters` = 0) [`flash`] falls back to a12;
/// * Hopper, D = 64: a12 (persistent). 1.01–1.16× a10 at every measured shape and type (session 12);
///   a15 ran at 0.98–1.01× a12 there (session 22: a12 is issue-bound at D = 64, not fed by L2);
/// * elsewhere, with the causal mask, a17: a11 (FlashAttention-2's tiles on `mma.sync`: 1.27–1.32× a4
///   at D = 64, 1.24–1.36× a2 at D = 128) launched with the longest query tiles of a whole group of
///   heads first: 1.096–1.098× a16 at D = 64 and 1.024–1.038× at D = 128 (session 23, `ab`,
///   `git show 10af122:results/2026-11-26-h100-session23/call8-a17`);
/// * elsewhere without the mask a16 (a11 with each head's longest query tiles first; without the mask
///   the same work in another order as a11, 0.988–1.004×), where a17 measured 0.98–1.00× (its groups
///   spread a head's query tiles over more time, and its K and V over more of the L2).
///
///   Measured on the H100's `mma.sync` path, not on an A100.
pub fn default_flash(d: u32, elem: Elem, hopper: bool, causal: bool) -> Option<&'static Step> {
    let pick = |f16: &'static Step, bf16: &'static Step| Some(if elem == Elem::Bf16 { bf16 } else { f16 });
    match (d, hopper, causal) {
        (64, true, _) => pick(&A12_D64, &A12_D64_BF16),
        (128, true, _) => pick(&A15_D128, &A15_D128_BF16),
        (64, false, true) => pick(&A17_D64, &A17_D64_BF16),
        (128, false, true) => pick(&A17_D128, &A17_D128_BF16),
        (64, false, false) => pick(&A16_D64, &A16_D64_BF16),
        (128, false, false) => pick(&A16_D128, &A16_D128_BF16),
        _ => None,
    }
}

/// Runs the default fused kernel ([`default_flash`]) for `s` and `elem`: `o` and `lse` from `q`, `k`,
/// `v`. Returns the step.
#[allow(clippy::too_many_arguments)]
pub fn flash(gpu: &Gpu, s: AttnShape, elem: Elem, scale: f32, q: &CudaSlice<u16>, k: &CudaSlice<u16>, v: &CudaSlice<u16>, o: &mut CudaSlice<u16>,
             lse: &mut CudaSlice<f32>) -> Result<&'static Step> {
    let step = default_flash(s.head_dim as u32, elem, gpu.cannot_run(&A12_D128.kernel).is_none(), s.causal)
        .ok_or_else(|| Error::InvalidInput(format!("no fused attention kernel for head dim {} and {elem:?}", s.head_dim)))?;
    // a15 needs clusters of 2 CTAs with its shared memory; where none fit (a partitioned GPU), a12.
    let f = match Flash::new(gpu, step) {
        Err(Error::Unsupported { .. }) if step.cluster > 1 => Flash::new(gpu, if elem == Elem::Bf16 { &A12_D128_BF16 } else { &A12_D128 })?,
        r => r?,
    };
    f.run(gpu, s, scale, q, k, v, o, lse)?;
    Ok(f.step)
}

/// [`flash`] with a chosen fused step (a2–a5); refused naming why if it does not take `s`. Loads the
/// kernel each call: to launch one step repeatedly, prepare a [`Flash`].
#[allow(clippy::too_many_arguments)]
pub fn flash_with(gpu: &Gpu, step: &'static Step, s: AttnShape, scale: f32, q: &CudaSlice<u16>, k: &CudaSlice<u16>, v: &CudaSlice<u16>,
                  o: &mut CudaSlice<u16>, lse: &mut CudaSlice<f32>) -> Result<()> {
    Flash::new(gpu, step)?.run(gpu, s, scale, q, k, v, o, lse)
}

/// A fused step with its kernel loaded once. (Looking the kernel up per launch — module function,
/// attributes, the PTX entry's parameter list — is host work between a timing event and the launch:
/// measured as GPU time when the GPU waits for it.)
pub struct Flash {
    step: &'static Step,
    kernel: Kernel,
    /// A persistent step's places that each run one walk at a time: the SMs, or (a15) the clusters
    /// that fit on the GPU at once (`cuOccupancyMaxActiveClusters`, queried once).
    slots: u32,
    /// A TMA step's tensor maps of the last (Q, K, V, rows) it ran on: encoded once, not per launch.
    maps: std::cell::RefCell<Option<QkvMaps>>,
}

/// The tensor maps of one (Q, K, V) for a TMA step (a6): each `B·H·L` rows × D, boxes of 128 rows ×
/// 64 elements, `SWIZZLE_128B`.
struct QkvMaps {
    key: (u64, u64, u64, usize, usize),
    q: TensorMap2d,
    k: TensorMap2d,
    v: TensorMap2d,
}

impl Flash {
    /// Loads `step`'s kernel (an error if it is not a fused step or this GPU cannot run it).
    pub fn new(gpu: &Gpu, step: &'static Step) -> Result<Flash> {
        if step.kind != Kind::Flash {
            return Err(Error::InvalidInput(format!("{} is not a fused attention kernel", step.kernel.name)));
        }
        let kernel = gpu.kernel(step.kernel.name)?;
        let slots = if step.cluster > 1 { kernel.require_clusters(gpu, step.cluster)? } else { gpu.info.sms };
        Ok(Flash { step, kernel, slots, maps: std::cell::RefCell::new(None) })
    }

    /// The step it runs.
    pub fn step(&self) -> &'static Step {
        self.step
    }

    /// Enqueues the step on `s`: `o` and `lse` from `q`, `k`, `v`.
    #[allow(clippy::too_many_arguments)]
    pub fn run(&self, gpu: &Gpu, s: AttnShape, scale: f32, q: &CudaSlice<u16>, k: &CudaSlice<u16>, v: &CudaSlice<u16>, o: &mut CudaSlice<u16>,
               lse: &mut CudaSlice<f32>) -> Result<()> {
        let op = |p: u64, len: usize| Operand { ptr: p, len };
        let (pq, pk, pv) = (q.device_ptr(&gpu.stream).0, k.device_ptr(&gpu.stream).0, v.device_ptr(&gpu.stream).0);
        let (po, pl) = (o.device_ptr_mut(&gpu.stream).0, lse.device_ptr_mut(&gpu.stream).0);
        self.run_at(gpu, s, scale, op(pq, q.len()), op(pk, k.len()), op(pv, v.len()), op(po, o.len()), op(pl, lse.len()))
    }

    /// [`Flash::run`] on operands given by address (`[B·H][L][D]` 16-bit elements, LSE `[B·H][L]` f32;
    /// lengths and 16-byte alignment checked before the launch). The caller keeps the memory alive and
    /// orders it on `gpu`'s stream.
    #[allow(clippy::too_many_arguments)]
    pub fn run_at(&self, gpu: &Gpu, s: AttnShape, scale: f32, q: Operand, k: Operand, v: Operand, o: Operand, lse: Operand) -> Result<()> {
        s.check_buffers(q.len, k.len, v.len, o.len, lse.len)?;
        Operand::require_aligned16(&[("Q", q), ("K", k), ("V", v), ("O", o), ("LSE", lse)], self.step.kernel.name, || format!("attention {s}: "))?;
        if !scale.is_finite() {
            return Err(Error::InvalidInput(format!("attention scale {scale} is not finite")));
        }
        let step = self.step;
        if step.head_dim != Some(s.head_dim as u32) {
            return Err(Error::InvalidInput(format!("{} is not a fused kernel for head dim {}", step.kernel.name, s.head_dim)));
        }
        let (l, causal) = (s.len as u32, s.causal as u32);
        let grid = (l.div_ceil(step.query_rows), s.heads_total() as u32);
        if step.tma {
            return self.run_tma(gpu, s, grid, scale, q, k, v, o, lse);
        }
        let (q, k, v, o, lse) = (q.ptr, k.ptr, v.ptr, o.ptr, lse.ptr);
        if step.grouped {
            let (gx, gy, gz) = layout::attention::a17_grid(l, s.head_dim as u32, s.heads_total() as u32, step.query_rows);
            // SAFETY: as the launch below, with the grid `a17_grid` gives for these B·H heads and L: gx · gz =
            // B·H ≤ 65535 and gy = ⌈L/128⌉ ≤ 8192 (L ≤ 2^20), both by `AttnShape::new`, within the grid's
            // limits; every block maps to one (head, query tile) inside the buffers (`a17_item`, a
            // bijection: layout tests).
            return unsafe { launch!(gpu, &self.kernel, grid = (gx, gy, gz), &q, &k, &v, &o, &lse, &l, &scale, &causal) };
        }
        // SAFETY: `attn_fa2*_d{64,128}_{f16,bf16}(q, k, v, o, lse, l, scale, causal)`: Q, K, V, O hold
        // `B·H·L·D` 16-bit elements in `[B·H][L][D]` (checked), LSE `B·H·L` f32 (checked), all 16-byte
        // aligned (checked), D the kernel's (checked above); grid `(⌈L/rows⌉, B·H)` with the step's
        // query rows and B·H ≤ 65535 (`AttnShape::new`), block and shared memory from the descriptor.
        unsafe { launch!(gpu, &self.kernel, grid = grid, &q, &k, &v, &o, &lse, &l, &scale, &causal) }
    }
}

impl Flash {
    /// [`Flash::run_at`] for a TMA step: encodes (or reuses) the tensor maps of Q, K, V and launches
    /// `(tmap_q, tmap_k, tmap_v, o, lse, l, scale, causal)`.
    #[allow(clippy::too_many_arguments)]
    fn run_tma(&self, gpu: &Gpu, s: AttnShape, grid: (u32, u32), scale: f32, q: Operand, k: Operand, v: Operand, o: Operand, lse: Operand) -> Result<()> {
        let rows = s.heads_total() * s.len;
        // The kernel addresses rows with 32-bit signed TMA coordinates (head · L + tile row + 128).
        if rows + 256 > i32::MAX as usize {
            return Err(Error::InvalidInput(format!("{}: B·H·L = {rows} rows exceed the TMA coordinates' 2^31", self.step.kernel.name)));
        }
        let key = (q.ptr, k.ptr, v.ptr, rows, s.head_dim);
        let mut maps = self.maps.borrow_mut();
        if maps.as_ref().is_none_or(|m| m.key != key) {
            let tile = TmaTile2d { elem_bytes: 2, rows: rows as u64, cols: s.head_dim as u64, stride_bytes: 2 * s.head_dim as u64, box_rows: 128, box_cols: 64,
                                   swizzle: TmaSwizzle::B128 };
            let bf16 = self.step.elem == Elem::Bf16;
            let encode = |x: Operand| TensorMap2d::encode_16bit_at(gpu, x.ptr, x.len, tile, bf16);
            *maps = Some(QkvMaps { key, q: encode(q)?, k: encode(k)?, v: encode(v)? });
        }
        let Some(m) = maps.as_ref() else {
            return Err(Error::InvalidInput("attention tensor maps missing after encoding (internal error)".into()));
        };
        let (l, causal) = (s.len as u32, s.causal as u32);
        let (o, lse) = (o.ptr, lse.ptr);
        if self.step.persistent {
            // a12: one CTA per SM at most, and no more than the work units (`a12_grid`: single query
            // tiles when they are no more than the SMs, pairs otherwise). a15: the same over the
            // clusters that fit at once and tiles of 128 · cluster rows, `cluster` CTAs per walk.
            let heads = s.heads_total() as u32;
            let cluster = self.step.cluster.max(1);
            let ctas = cluster * layout::attention::a12_grid_of(l, heads, self.slots, layout::attention::A6_BQ * cluster);
            // SAFETY: as below, with the persistent signature `(…, causal, heads)`: `heads` is the maps'
            // B·H (their rows are B·H·L), grid `(ctas, 1)` with 1 ≤ ctas (L, B·H ≥ 1: `AttnShape::new`) and
            // a multiple of the step's cluster (a15: `.reqnctapercluster 2`; its rank-1 CTA of an odd
            // count loads a Q box up to 256 rows past a head's, inside the checked 2^31), and
            // the units (at most the tiles, B·H · ⌈L/128⌉ ≤ B·H·L/128 + B·H) below 2^31 (rows checked above), so the
            // kernel's 32-bit unit arithmetic does not wrap.
            return unsafe { launch!(gpu, &self.kernel, grid = (ctas, 1), &m.q.dev, &m.k.dev, &m.v.dev, &o, &lse, &l, &scale, &causal, &heads) };
        }
        // SAFETY: `attn_a6_d{64,128}_{f16,bf16}(tmap_q, tmap_k, tmap_v, o, lse, l, scale, causal)`: the maps
        // were encoded for these very operands (device addresses and rows are the cache key) as `B·H·L` rows
        // × D with 128 × 64 boxes and the 128-byte swizzle the kernel's descriptors assume; Q, K, V, O
        // lengths and LSE checked by `run_at`, D the kernel's (checked), rows below 2^31 (checked above);
        // grid `(⌈L/128⌉, B·H)`, block and shared memory from the descriptor.
        unsafe { launch!(gpu, &self.kernel, grid = grid, &m.q.dev, &m.k.dev, &m.v.dev, &o, &lse, &l, &scale, &causal) }
    }
}

/// One attention problem for [`AttentionPlan`]: `batch × heads` heads of `seq_len` queries and keys of
/// dimension `head_dim` (64 or 128), Q, K, V, O stored `[batch·heads][seq_len][head_dim]` row-major,
/// the log-sum-exp `[batch·heads][seq_len]` in f32; `causal`: query i sees keys 0..=i; `scale`: the
/// softmax scale (`None`: `1/√head_dim`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AttentionDesc {
    /// Batch size.
    pub batch: usize,
    /// Heads per batch entry (as many K/V heads as query heads).
    pub heads: usize,
    /// Sequence length (queries = keys).
    pub seq_len: usize,
    /// Head dimension: 64 or 128.
    pub head_dim: usize,
    /// Causal mask.
    pub causal: bool,
    /// Softmax scale; `None`: `1/√head_dim`.
    pub scale: Option<f32>,
}

impl AttentionDesc {
    /// A non-causal problem with the default scale.
    pub fn new(batch: usize, heads: usize, seq_len: usize, head_dim: usize) -> AttentionDesc {
        AttentionDesc { batch, heads, seq_len, head_dim, causal: false, scale: None }
    }

    /// The same problem with the causal mask.
    pub fn causal(self) -> AttentionDesc {
        AttentionDesc { causal: true, ..self }
    }

    /// The same problem with softmax scale `scale`.
    pub fn with_scale(self, scale: f32) -> AttentionDesc {
        AttentionDesc { scale: Some(scale), ..self }
    }

    /// Elements of Q, K, V and O each, and of the LSE.
    pub fn lens(&self) -> (usize, usize) {
        let heads = self.batch * self.heads;
        (heads * self.seq_len * self.head_dim, heads * self.seq_len)
    }
}

/// What an [`AttentionPlan`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttentionConfig {
    /// The ladder step (`a15-d128`, `a17-d64-bf16`, …: the attention README describes each).
    pub label: &'static str,
    /// Its PTX entry.
    pub kernel: &'static str,
    /// Query rows per CTA.
    pub query_rows: u32,
}

impl std::fmt::Display for AttentionConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({} query rows per CTA)", self.label, self.query_rows)
    }
}

/// Attention forward for one [`AttentionDesc`] and element type `T` (`half::f16` or `half::bf16`),
/// planned once (kernel chosen for the head dim, mask and GPU, and loaded; TMA maps kept for the last
/// operands) and run on the caller's buffers on the [`Gpu`]'s stream. Nothing synchronizes.
pub struct AttentionPlan<T: crate::gemm::Element> {
    gpu: Gpu,
    shape: AttnShape,
    scale: f32,
    flash: Flash,
    _elem: std::marker::PhantomData<T>,
}

impl<T: crate::gemm::Element> AttentionPlan<T> {
    /// Plans `desc` with the library's choice of fused kernel ([`default_flash`]). Refused before any
    /// launch, naming the constraint: an element type other than f16 / bf16, a head dim the kernels
    /// lack, zero or too large sizes.
    pub fn new(gpu: &Gpu, desc: AttentionDesc) -> Result<Self> {
        if T::ELEM == Elem::F32 {
            return Err(Error::InvalidInput("attention takes f16 or bf16 (half::f16, half::bf16), not f32".into()));
        }
        let shape = AttnShape::new(desc.batch, desc.heads, desc.seq_len, desc.head_dim, desc.causal)?;
        let scale = desc.scale.unwrap_or(shape.default_scale());
        if !scale.is_finite() {
            return Err(Error::InvalidInput(format!("attention scale {scale} is not finite")));
        }
        let step = default_flash(shape.head_dim as u32, T::ELEM, gpu.cannot_run(&A12_D128.kernel).is_none(), shape.causal)
            .ok_or_else(|| Error::InvalidInput(format!("no fused attention kernel for head dim {} and {}", shape.head_dim, T::NAME)))?;
        // a15 needs clusters of 2 CTAs with its shared memory; where none fit (a partitioned GPU), a12.
        let flash = match Flash::new(gpu, step) {
            Err(Error::Unsupported { .. }) if step.cluster > 1 => Flash::new(gpu, if T::ELEM == Elem::Bf16 { &A12_D128_BF16 } else { &A12_D128 })?,
            r => r?,
        };
        Ok(AttentionPlan { gpu: gpu.clone(), shape, scale, flash, _elem: std::marker::PhantomData })
    }

    /// The kernel this plan runs.
    pub fn config(&self) -> AttentionConfig {
        let st = self.flash.step();
        AttentionConfig { label: st.kernel.step, kernel: st.kernel.name, query_rows: st.query_rows }
    }

    /// Enqueues `o = softmax(q·kᵀ·scale [masked])·v` and each row's natural log-sum-exp into `lse`.
    /// Lengths (see [`AttentionDesc::lens`]) and 16-byte alignment are checked before the launch.
    pub fn run<Q, K, V, O, L>(&mut self, q: &Q, k: &K, v: &V, o: &mut O, lse: &mut L) -> Result<()>
    where
        Q: DevicePtr<T>,
        K: DevicePtr<T>,
        V: DevicePtr<T>,
        O: DevicePtrMut<T>,
        L: DevicePtrMut<f32>,
    {
        let stream = self.gpu.stream.clone();
        let (lq, lk, lv, lo, ll) = (q.len(), k.len(), v.len(), o.len(), lse.len());
        // The guards order the accesses after earlier work on the buffers where the caller's context
        // tracks events, and record them after the launch is enqueued.
        let (pq, _gq) = q.device_ptr(&stream);
        let (pk, _gk) = k.device_ptr(&stream);
        let (pv, _gv) = v.device_ptr(&stream);
        let (po, _go) = o.device_ptr_mut(&stream);
        let (pl, _gl) = lse.device_ptr_mut(&stream);
        let op = |ptr, len| Operand { ptr, len };
        self.flash.run_at(&self.gpu, self.shape, self.scale, op(pq, lq), op(pk, lk), op(pv, lv), op(po, lo), op(pl, ll))
    }
}

/// The unfused baseline for one shape: a cuBLAS handle and the S (f32) and P (16-bit) buffers, each
/// `B·H·L²` elements, allocated once.
pub struct Unfused {
    blas: CudaBlas,
    s: AttnShape,
    elem: Elem,
    step: &'static Step,
    kernel: Kernel,
    scores: CudaSlice<f32>,
    probs: CudaSlice<u16>,
}

impl Unfused {
    /// Device bytes the baseline adds for `s`: S (f32) and P (16-bit).
    pub fn extra_bytes(s: AttnShape) -> u64 {
        6 * (s.heads_total() * s.len * s.len) as u64
    }

    /// Allocates S and P for `s` (refused up front when they do not fit in free memory).
    pub fn new(gpu: &Gpu, s: AttnShape, elem: Elem) -> Result<Unfused> {
        // SAFETY: only tries to dlopen libcublas.
        if !unsafe { blas_sys::is_culib_present() } {
            return Err(Error::NoGpu("libcublas was not found (the unfused attention baseline needs it)".into()));
        }
        crate::runtime::budget::check(gpu, &format!("unfused attention {s}"), Self::extra_bytes(s), 0)?;
        let step = find(Kind::Unfused, s.head_dim as u32, elem).ok_or_else(|| Error::InvalidInput(format!("no softmax kernel for {elem:?}")))?;
        let blas = CudaBlas::new(gpu.stream.clone()).map_err(|source| Error::Cublas { what: "cublasCreate".into(), source })?;
        let n = s.heads_total() * s.len * s.len;
        Ok(Unfused { blas, s, elem, step, kernel: gpu.kernel(step.kernel.name)?, scores: gpu.zeros(n)?, probs: gpu.zeros(n)? })
    }

    /// The softmax step it runs.
    pub fn step(&self) -> &'static Step {
        self.step
    }

    /// Enqueues `S = Q·Kᵀ`, the softmax (scale, mask, LSE), `O = P·V`.
    #[allow(clippy::too_many_arguments)]
    pub fn run(&mut self, gpu: &Gpu, scale: f32, q: &CudaSlice<u16>, k: &CudaSlice<u16>, v: &CudaSlice<u16>, o: &mut CudaSlice<u16>, lse: &mut CudaSlice<f32>) -> Result<()> {
        let s = self.s;
        s.check_buffers(q.len(), k.len(), v.len(), o.len(), lse.len())?;
        let (l, d, batch) = (s.len as i32, s.head_dim as i32, s.heads_total() as i32);
        let (ld_stride, ll_stride) = ((s.len * s.head_dim) as i64, (s.len * s.len) as i64);
        let t16 = if self.elem == Elem::Bf16 { blas_sys::cudaDataType::CUDA_R_16BF } else { blas_sys::cudaDataType::CUDA_R_16F };
        let (one, zero) = (1.0f32, 0.0f32);
        let op_n = blas_sys::cublasOperation_t::CUBLAS_OP_N;
        let op_t = blas_sys::cublasOperation_t::CUBLAS_OP_T;
        let compute = blas_sys::cublasComputeType_t::CUBLAS_COMPUTE_32F;
        let algo = blas_sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT;
        {
            let (pq, _gq) = q.device_ptr(&gpu.stream);
            let (pk, _gk) = k.device_ptr(&gpu.stream);
            let (ps, _gs) = self.scores.device_ptr_mut(&gpu.stream);
            // SAFETY: per head, column-major Sᵀ (L×L, ld L) = (K as D×L, ld D)ᵀ · (Q as D×L, ld D): the
            // row-major S = Q·Kᵀ; Q and K hold B·H heads of L·D (checked), S B·H of L² f32 (allocated
            // for this shape); host scalars read before the call returns.
            unsafe {
                cudarc::cublas::result::gemm_strided_batched_ex(*self.blas.handle(), op_t, op_n, l, l, d, &one as *const f32 as *const _,
                    pk as *const _, t16, d, ld_stride, pq as *const _, t16, d, ld_stride, &zero as *const f32 as *const _,
                    ps as *mut _, blas_sys::cudaDataType::CUDA_R_32F, l, ll_stride, batch, compute, algo)
            }.map_err(|source| Error::Cublas { what: format!("cublasGemmStridedBatchedEx S = QK^T {s}"), source })?;
        }
        let rows = (s.heads_total() * s.len) as u32;
        let (lu, causal) = (s.len as u32, s.causal as u32);
        let blocks = rows.div_ceil(4);
        // SAFETY: `attn_softmax_*(s, p, lse, rows, l, scale, causal)`: S and P hold rows·l elements
        // (rows = B·H·L), LSE rows f32 (checked); 128 threads, ⌈rows/4⌉ blocks (one warp per row).
        unsafe { launch!(gpu, &self.kernel, grid = blocks, &self.scores, &mut self.probs, lse, &rows, &lu, &scale, &causal) }?;
        {
            let (pv, _gv) = v.device_ptr(&gpu.stream);
            let (pp, _gp) = self.probs.device_ptr(&gpu.stream);
            let (po, _go) = o.device_ptr_mut(&gpu.stream);
            // SAFETY: per head, column-major Oᵀ (D×L, ld D) = (V as D×L, ld D) · (P as L×L, ld L): the
            // row-major O = P·V; lengths as above; host scalars.
            unsafe {
                cudarc::cublas::result::gemm_strided_batched_ex(*self.blas.handle(), op_n, op_n, d, l, l, &one as *const f32 as *const _,
                    pv as *const _, t16, d, ld_stride, pp as *const _, t16, l, ll_stride, &zero as *const f32 as *const _,
                    po as *mut _, t16, d, ld_stride, batch, compute, algo)
            }.map_err(|source| Error::Cublas { what: format!("cublasGemmStridedBatchedEx O = PV {s}"), source })?;
        }
        Ok(())
    }
}

/// `(O, LSE)` in f64 on the CPU from `q`, `k`, `v` (as f64, `[B·H][L][D]`), all cores.
pub fn reference_f64(s: AttnShape, scale: f64, q: &[f64], k: &[f64], v: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let (l, d) = (s.len, s.head_dim);
    let mut o = vec![0.0f64; s.elems()];
    let mut lse = vec![0.0f64; s.heads_total() * l];
    let threads = std::thread::available_parallelism().map(|t| t.get()).unwrap_or(1).min(s.heads_total()).max(1);
    let per = s.heads_total().div_ceil(threads);
    std::thread::scope(|scope| {
        for ((t, o_chunk), lse_chunk) in o.chunks_mut(per * l * d).enumerate().zip(lse.chunks_mut(per * l)) {
            scope.spawn(move || {
                let mut row = vec![0.0f64; l];
                for (hh, (oh, lh)) in o_chunk.chunks_mut(l * d).zip(lse_chunk.chunks_mut(l)).enumerate() {
                    let base = (t * per + hh) * l * d;
                    let (qh, kh, vh) = (&q[base..base + l * d], &k[base..base + l * d], &v[base..base + l * d]);
                    for i in 0..l {
                        let keys = if s.causal { i + 1 } else { l };
                        let mut m = f64::NEG_INFINITY;
                        for (j, r) in row.iter_mut().enumerate().take(keys) {
                            *r = scale * qh[i * d..(i + 1) * d].iter().zip(&kh[j * d..(j + 1) * d]).map(|(a, b)| a * b).sum::<f64>();
                            m = m.max(*r);
                        }
                        let sum: f64 = row[..keys].iter().map(|x| (x - m).exp()).sum();
                        lh[i] = m + sum.ln();
                        let out = &mut oh[i * d..(i + 1) * d];
                        out.iter_mut().for_each(|x| *x = 0.0);
                        for (j, r) in row.iter().enumerate().take(keys) {
                            let p = (r - m).exp() / sum;
                            for (x, vv) in out.iter_mut().zip(&vh[j * d..(j + 1) * d]) {
                                *x += p * vv;
                            }
                        }
                    }
                }
            });
        }
    });
    (o, lse)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_fused_step_follows_the_head_dim_and_the_gpu() {
        for elem in [Elem::F16, Elem::Bf16] {
            for hopper in [false, true] {
                for causal in [false, true] {
                    let off_hopper = if causal { "a17" } else { "a16" };
                    let d64 = default_flash(64, elem, hopper, causal).unwrap();
                    assert_eq!((d64.kernel.step.trim_end_matches("-bf16"), d64.elem), (if hopper { "a12-d64".to_string() } else { format!("{off_hopper}-d64") }.as_str(), elem));
                    let d128 = default_flash(128, elem, hopper, causal).unwrap();
                    assert_eq!(d128.kernel.step.trim_end_matches("-bf16"), if hopper { "a15-d128".to_string() } else { format!("{off_hopper}-d128") });
                    assert_eq!((d128.elem, d128.head_dim), (elem, Some(128)));
                    assert!(default_flash(96, elem, hopper, causal).is_none());
                }
            }
        }
    }

    #[test]
    fn shapes_refuse_what_the_kernels_cannot_take() {
        assert!(AttnShape::new(1, 1, 1, 64, false).is_ok());
        let e = AttnShape::new(1, 1, 128, 96, false).unwrap_err().to_string();
        assert!(e.contains("head dim 96") && e.contains("64 or 128"), "{e}");
        assert!(AttnShape::new(0, 1, 1, 64, false).unwrap_err().to_string().contains("batch = 0"));
        assert!(AttnShape::new(1, 1, 0, 64, true).unwrap_err().to_string().contains("sequence length = 0"));
        assert!(AttnShape::new(300, 300, 8, 64, false).unwrap_err().to_string().contains("65535"));
        let s = AttnShape::new(2, 3, 5, 64, false).unwrap();
        let e = s.check_buffers(s.elems(), s.elems() - 1, s.elems(), s.elems(), 30).unwrap_err().to_string();
        assert!(e.contains("K holds") && e.contains(&s.elems().to_string()), "{e}");
        assert_eq!(AttnShape::new(4, 16, 4096, 128, true).unwrap().flops(), 2.0 * 64.0 * 4096f64.powi(2) * 128.0);
        assert_eq!(Unfused::extra_bytes(AttnShape::new(1, 16, 16384, 128, false).unwrap()), 6 * 16 * 16384 * 16384);
    }

    /// The reference on a case worked by hand: one head, L = 2, D = 64, q = k = e0, v rows 1 and 2.
    #[test]
    fn reference_softmax_is_the_definition() {
        let s = AttnShape::new(1, 1, 2, 64, false).unwrap();
        let mut q = vec![0.0; 128];
        let mut v = vec![0.0; 128];
        q[0] = 1.0; // query 0 = e0, query 1 = 0
        let k = q.clone(); // key 0 = e0, key 1 = 0
        v[0] = 1.0;
        v[64] = 2.0;
        let (o, lse) = reference_f64(s, 1.0, &q, &k, &v);
        let e = std::f64::consts::E;
        // Query 0: scores (1, 0) → p = (e, 1)/(e + 1); O[0][0] = (e·1 + 1·2)/(e + 1); lse = ln(e + 1).
        assert!((o[0] - (e + 2.0) / (e + 1.0)).abs() < 1e-12 && (lse[0] - (e + 1.0).ln()).abs() < 1e-12);
        // Query 1: scores (0, 0) → uniform; O[1][0] = 1.5; lse = ln 2.
        assert!((o[64] - 1.5).abs() < 1e-12 && (lse[1] - 2f64.ln()).abs() < 1e-12);
        // Causal: query 0 sees key 0 alone (O = v0, lse = its score 1); query 1 sees both, as before.
        let (oc, lc) = reference_f64(AttnShape { causal: true, ..s }, 1.0, &q, &k, &v);
        assert!((oc[0] - 1.0).abs() < 1e-12 && (lc[0] - 1.0).abs() < 1e-12 && (oc[64] - 1.5).abs() < 1e-12);
    }
}

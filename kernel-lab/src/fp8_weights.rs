//! FP8 weights for 16-bit models (weight-only quantization, sm_90): a weight matrix stored once in
//! e4m3 — half the bytes of bf16, which at decode is half the time — and multiplied against bf16 or
//! f16 activations without quantizing them.
//!
//! ```ignore
//! let w8 = Fp8Weights::quantize::<bf16, _>(&gpu, &w, n, k)?;   // W: N×K as checkpoints store it
//! let mut plan = W8Plan::<bf16>::new(&gpu, m, n, k)?;          // y (M×N) = x (M×K) · Wᵀ
//! plan.run(&x, &w8, &mut y)?;
//! ```
//!
//! * **Format** ([`layout::fp8::weights`]): e4m3 bytes, one **power-of-two** scale per 128×128
//!   block in the FP8 GEMMs' `sb` layout; the bytes packed in the order the decode kernel's lanes load
//!   them ([`WeightLayout::Packed`], step w5) or N×K as checkpoints store them ([`WeightLayout::Natural`]). A power of two times an e4m3 value is exact in bf16 (and in
//!   f16 above 2^-14), so the kernels widen and scale the weights exactly; the only error is the
//!   rounding to e4m3 (3 mantissa bits: ≤ 2^-4 relative, half of that on average). Against the
//!   `amax / 448` scale a power of two gives up at most one binade at the top of e4m3's range, which
//!   costs nothing in relative precision.
//! * **Decode** (M ≤ 32): step w5 of the FP8 ladder (`kernels-gpu/src/fp8/steps/w5_packed_weights.rs`:
//!   w1, `w1_weight_only.rs`, on packed weights; w1 itself on natural ones): the weights streamed into
//!   registers two steps ahead and widened there, split over K where a model of the streams says a few
//!   tiles' deep K goes faster in parts than the split's fix-up costs ([`w1_splits`]). Four
//!   variants measured slower on an H200 and were removed (the FP8 ladder's README: a per-lane
//!   `cp.async` ring of weights and activations, persistent blocks, a ring of the weights alone, each
//!   warp on one contiguous run of K).
//! * **Larger M** (prefill): the weights are dequantized and transposed into a K×N buffer the plan
//!   owns and multiplied by the library's 16-bit GEMM ([`GemmPlan`]): a weight read of 3 bytes per
//!   element more, small beside a prefill's FLOPs, and the same products as decode.
//!
//! Bad input is refused before any launch: K not a multiple of 16, empty shapes, operands shorter than
//! the shape, activations not 16-byte aligned, weights quantized for the other 16-bit type, a GPU
//! that is not sm_90, and weights too large for the scale range (named by block).
use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

use crate::{
    error::{Error, Result},
    fp8::check_scales,
    gemm::{BReady, Element, GemmDesc, GemmPlan},
    launch,
    runtime::gpu::{Gpu, Kernel},
    steps::{
        fp8::{Scaling, W1_TOKEN_TILES},
        gemm::Elem,
    },
};
use layout::fp8::{
    SCALE_BLOCK, block_scale_lens,
    weights::{MAX_TOKENS, ROWS},
};

pub use crate::steps::fp8::{MAX_SPLITS, w1_splits, w1_stream_bytes_per_us};

/// How an [`Fp8Weights`] lays out its e4m3 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightLayout {
    /// `n × k` row-major, W as checkpoints store it (`out × in`); decoded by step w1.
    Natural,
    /// In the order the decode kernel's lanes load them ([`layout::fp8::weights::packed_index`]: each
    /// 32-row × 64-deep warp step 2 KiB contiguous, every load of a warp four whole 128-byte lines;
    /// rows padded to 32 and K to 64 with zeros); decoded by step w5.
    Packed,
}

/// The decode kernel (up to 32 tokens) a [`W8Plan`] runs, each for one [`WeightLayout`]: the FP8
/// ladder's steps (`kernels-gpu/src/fp8/README.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum W8Step {
    /// w1, on [`WeightLayout::Natural`] weights: 32-row blocks, K split to fill one wave.
    W1,
    /// w5, on [`WeightLayout::Packed`] weights: w1's blocks on packed weights.
    W5,
}

impl W8Step {
    /// The layout its weights are in.
    pub fn layout(self) -> WeightLayout {
        match self {
            W8Step::W1 => WeightLayout::Natural,
            W8Step::W5 => WeightLayout::Packed,
        }
    }

    /// Its label in kernel names (`fp8_w5_t8_bf16`) and plan labels.
    pub fn label(self) -> &'static str {
        match self {
            W8Step::W1 => "w1",
            W8Step::W5 => "w5",
        }
    }

    /// The step [`W8Plan::for_layout`] runs on weights in `layout`.
    pub fn default_for(layout: WeightLayout) -> W8Step {
        match layout {
            WeightLayout::Natural => W8Step::W1,
            WeightLayout::Packed => W8Step::W5,
        }
    }
}

/// A weight matrix in FP8: `n × k` e4m3 bytes in a [`WeightLayout`] and its power-of-two block
/// scales, quantized for activations of one 16-bit type.
pub struct Fp8Weights {
    q: CudaSlice<u8>,
    scales: CudaSlice<f32>,
    n: usize,
    k: usize,
    elem: Elem,
    layout: WeightLayout,
}

impl Fp8Weights {
    /// Quantizes `w` (`n × k`, row-major, `T` = bf16 or f16) on the GPU: e4m3 with one power-of-two
    /// scale per 128×128 block, [`WeightLayout::Packed`] (the decode kernels' faster layout).
    /// Synchronizes once to check the scales: a block holding NaN or Inf, or larger than the scale range
    /// allows (`448 · 2^7` = 57344), is named in the error.
    pub fn quantize<T: Element, W: DevicePtr<T>>(gpu: &Gpu, w: &W, n: usize, k: usize) -> Result<Fp8Weights> {
        Self::quantize_in::<T, W>(gpu, w, n, k, WeightLayout::Packed)
    }

    /// [`Fp8Weights::quantize`] into the given layout (packing takes one more copy of the bytes while
    /// it runs: the natural layout first, then the packed one).
    pub fn quantize_in<T: Element, W: DevicePtr<T>>(gpu: &Gpu, w: &W, n: usize, k: usize, layout: WeightLayout) -> Result<Fp8Weights> {
        let (elem, name) = match T::ELEM {
            Elem::Bf16 => (Elem::Bf16, "fp8_quantize_weights_bf16"),
            Elem::F16 => (Elem::F16, "fp8_quantize_weights_f16"),
            Elem::F32 => return Err(Error::InvalidInput("FP8 weights: the activations are bf16 or f16 (an f32 model has no 16-bit MMA to feed)".into())),
        };
        check_shape("FP8 weights", n, k)?;
        if w.len() < n * k {
            return Err(Error::InvalidInput(format!("FP8 weights: {} {} elements for a {n}×{k} matrix", w.len(), T::NAME)));
        }
        let grid = (k.div_ceil(SCALE_BLOCK as usize) as u32, n.div_ceil(SCALE_BLOCK as usize) as u32);
        if grid.1 > 65_535 {
            return Err(Error::InvalidInput(format!("FP8 weights: {n} rows need {} block rows, above the grid's y limit of 65535", grid.1)));
        }
        let kernel = gpu.kernel(name)?;
        let mut q = gpu.zeros::<u8>(n * k)?;
        let mut scales = gpu.zeros::<f32>(block_scale_lens(0, n as u32, k as u32).1 as usize)?;
        let (pw, _gw) = w.device_ptr(&gpu.stream);
        if pw % 16 != 0 {
            return Err(Error::InvalidInput(format!("FP8 weights: the {} matrix must start 16-byte aligned (it is at {pw:#x})", T::NAME)));
        }
        let (r, c) = (n as u32, k as u32);
        // SAFETY: `fp8_quantize_weights_*(x, rows, cols, q, sb)`: x holds rows·cols 16-bit values (checked),
        // 16-byte aligned (checked), cols % 4 == 0 (k % 16, checked); q rows·cols bytes, sb ⌈rows/128⌉ ·
        // ⌈cols/128⌉ f32; grid (⌈cols/128⌉, ⌈rows/128⌉), one block per 128×128 tile.
        unsafe { launch!(gpu, &kernel, grid = grid, &pw, &r, &c, &mut q, &mut scales) }?;
        gpu.sync_after(name)?;
        check_scales(&gpu.download(&scales)?, Scaling::Block, crate::fp8::Operand::B, n, k)
            .map_err(|e| Error::InvalidInput(format!("{e} (FP8 weights take power-of-two scales up to 2^7: a block's largest magnitude at most 57344)")))?;
        let natural = Fp8Weights { q, scales, n, k, elem, layout: WeightLayout::Natural };
        match layout {
            WeightLayout::Natural => Ok(natural),
            WeightLayout::Packed => natural.into_packed(gpu),
        }
    }

    /// These weights in [`WeightLayout::Packed`]: the bytes rewritten into a new buffer on the GPU's
    /// stream (the natural one freed after), the scales kept.
    pub fn into_packed(self, gpu: &Gpu) -> Result<Fp8Weights> {
        if self.layout == WeightLayout::Packed {
            return Ok(self);
        }
        let (n, k) = (self.n as u32, self.k as u32);
        let len = layout::fp8::weights::packed_len(n, k);
        let kernel = gpu.kernel("fp8_pack_weights")?;
        let mut q = gpu.zeros::<u8>(len)?; // (the kernel writes every byte, padding included: zeroed all the same)
        let grid = (len / 16).div_ceil(crate::steps::fp8::QUANT_BLOCK as usize).clamp(1, 16 * gpu.info.sms as usize) as u32;
        // SAFETY: `fp8_pack_weights(q, rows, cols, p)`: q the n·k natural bytes of these weights (a
        // `CudaSlice` from the allocator: 16-byte aligned), p `packed_len(n, k)` bytes (allocated just
        // above, aligned, distinct); k % 16 == 0 (checked at quantization); any 1-D grid. The natural
        // buffer is freed on the same stream, after the kernel.
        unsafe { launch!(gpu, &kernel, grid = grid, &self.q, &n, &k, &mut q) }?;
        // Finished before the weights are handed out, as the quantizer's are: a plan told the weights are
        // ready at launch (`W8Plan::set_w_ready`) reads them before its PDL wait, which a pack kernel
        // still running just before it would break.
        gpu.sync_after("fp8_pack_weights")?;
        Ok(Fp8Weights { q, layout: WeightLayout::Packed, ..self })
    }

    /// How the bytes are laid out.
    pub fn layout(&self) -> WeightLayout {
        self.layout
    }

    /// Rows (N, the output features).
    pub fn n(&self) -> usize {
        self.n
    }

    /// Columns (K, the input features).
    pub fn k(&self) -> usize {
        self.k
    }

    /// The activation type the weights were quantized for.
    pub fn elem(&self) -> Elem {
        self.elem
    }

    /// Bytes on the device (the e4m3 matrix and its scales).
    pub fn bytes(&self) -> usize {
        self.q.len() + 4 * self.scales.len()
    }

    /// The e4m3 bytes in [`Fp8Weights::layout`]: `n × k` row-major, or `packed_len(n, k)` packed
    /// (`layout::fp8::weights::packed_index` gives each weight's offset).
    pub fn q(&self) -> &CudaSlice<u8> {
        &self.q
    }

    /// The block scales (`⌈n/128⌉ × ⌈k/128⌉` f32 powers of two, `layout::fp8::scale_b_index`).
    pub fn scales(&self) -> &CudaSlice<f32> {
        &self.scales
    }

    /// `out (k × n) = dequant(W)ᵀ` in `T` (the type the weights were quantized for): exactly the values
    /// the kernels multiply, in the layout the 16-bit GEMMs take as B.
    pub fn dequantize_t<T: Element, O: DevicePtrMut<T>>(&self, gpu: &Gpu, out: &mut O) -> Result<()> {
        self.check_elem::<T>()?;
        if out.len() < self.n * self.k {
            return Err(Error::InvalidInput(format!("FP8 weights: dequantizing {}×{} into {} elements", self.n, self.k, out.len())));
        }
        if self.n % 2 != 0 {
            return Err(Error::InvalidInput(format!("FP8 weights: the transposed dequantization writes two rows of W at once: N must be even (got {})", self.n)));
        }
        let kernel = gpu.kernel(dequantizer(T::ELEM, self.layout))?;
        let tile = 64usize;
        let grid = (self.k.div_ceil(tile) as u32, self.n.div_ceil(tile) as u32);
        if grid.1 > 65_535 {
            return Err(Error::InvalidInput(format!("FP8 weights: {} rows need {} tile rows, above the grid's y limit", self.n, grid.1)));
        }
        let (po, _go) = out.device_ptr_mut(&gpu.stream);
        if po % 4 != 0 {
            return Err(Error::InvalidInput(format!("FP8 weights: the dequantized matrix must start 4-byte aligned (it is at {po:#x})")));
        }
        let (r, c) = (self.n as u32, self.k as u32);
        // SAFETY: `fp8_dequantize_{,packed_}weights_t_*(q, rows, cols, sb, out)`: q rows·cols bytes, or
        // `packed_len` in the packed layout for the packed kernel, and sb its block scales (an `Fp8Weights`
        // holds them by construction), out rows·cols 16-bit values (checked), 4-byte
        // aligned (checked); cols % 4 == 0 (k % 16), rows even (checked); grid (⌈cols/64⌉, ⌈rows/64⌉).
        unsafe { launch!(gpu, &kernel, grid = grid, &self.q, &r, &c, &self.scales, &po) }
    }

    fn check_elem<T: Element>(&self) -> Result<()> {
        if T::ELEM != self.elem {
            return Err(Error::InvalidInput(format!("FP8 weights quantized for {:?} activations used with {}: their scale ranges differ, quantize for {}", self.elem,
                                                   T::NAME, T::NAME)));
        }
        Ok(())
    }
}

/// The kernel that dequantizes and transposes weights in `layout` into `elem` (bf16 or f16).
fn dequantizer(elem: Elem, layout: WeightLayout) -> &'static str {
    match (elem == Elem::Bf16, layout) {
        (true, WeightLayout::Natural) => "fp8_dequantize_weights_t_bf16",
        (false, WeightLayout::Natural) => "fp8_dequantize_weights_t_f16",
        (true, WeightLayout::Packed) => "fp8_dequantize_packed_weights_t_bf16",
        (false, WeightLayout::Packed) => "fp8_dequantize_packed_weights_t_f16",
    }
}

/// `Err` unless `n ≥ 1`, `k ≥ 16` and `k % 16 == 0`, both below 2^31.
fn check_shape(what: &str, n: usize, k: usize) -> Result<()> {
    if n == 0 || k == 0 || k % 16 != 0 || n >= 1 << 31 || k >= 1 << 31 {
        return Err(Error::InvalidInput(format!("{what}: {n}×{k}: N ≥ 1 and K a positive multiple of 16 (each lane reads 16 bytes of a row), both below 2^31")));
    }
    Ok(())
}

/// The decode kernels' pointer alignment: x at 16 bytes (each lane loads 16), y at its element.
fn check_io_alignment(m: usize, n: usize, k: usize, px: u64, py: u64) -> Result<()> {
    if px % 16 != 0 {
        return Err(Error::InvalidInput(format!("W8Plan {m}x{n}x{k}: x must start 16-byte aligned (each lane loads 16 bytes; it is at {px:#x})")));
    }
    if py % 2 != 0 {
        return Err(Error::InvalidInput(format!("W8Plan {m}x{n}x{k}: y is not aligned to its element ({py:#x})")));
    }
    Ok(())
}

/// How a [`W8Plan`] multiplies.
enum Route<T: Element> {
    /// w5 (w1 on natural weights) with `NT` token tiles: the kernel, its splits of K and their depth, the partials' workspace
    /// and the tiles' counters (when split).
    Decode { kernel: Kernel, splits: u32, k_split: u32, ws: Option<(CudaSlice<f32>, CudaSlice<u32>)> },
    /// Dequantized into `b` (K×N), then the 16-bit GEMM.
    Dense { b: CudaSlice<T>, plan: GemmPlan<T> },
}

/// `y (m × n) = x (m × k) · Wᵀ` for FP8 weights `W` (`n × k`), planned once per shape, run on the
/// [`Gpu`]'s stream on the caller's buffers. It owns what its kernel needs besides x, W and y (split-K
/// workspace and counters, or the dequantized weights' buffer); one plan is not run on two streams
/// at once.
pub struct W8Plan<T: Element> {
    gpu: Gpu,
    m: usize,
    n: usize,
    k: usize,
    route: Route<T>,
    w_ready: BReady,
    layout: WeightLayout,
}

impl<T: Element> W8Plan<T> {
    /// Plans `m × n × k` for weights in [`WeightLayout::Packed`] (what [`Fp8Weights::quantize`] makes;
    /// [`W8Plan::for_layout`] plans for the other): w5 (w1 on natural weights) for `m ≤ 32`, the
    /// dequantized weights and the 16-bit GEMM above. Both need the sm_90a module (a GPU that is not
    /// Hopper is refused here, by the kernel loader).
    pub fn new(gpu: &Gpu, m: usize, n: usize, k: usize) -> Result<Self> {
        Self::for_layout(gpu, m, n, k, WeightLayout::Packed)
    }

    /// [`W8Plan::new`] for weights in `layout`: [`W8Plan::run`] refuses weights in the other.
    pub fn for_layout(gpu: &Gpu, m: usize, n: usize, k: usize, layout: WeightLayout) -> Result<Self> {
        Self::for_step(gpu, m, n, k, W8Step::default_for(layout))
    }

    /// [`W8Plan::for_layout`] with the decode kernel named (for up to 32 tokens; its layout is the
    /// plan's): what `kernel-lab w8` and the tests compare.
    pub fn for_step(gpu: &Gpu, m: usize, n: usize, k: usize, step: W8Step) -> Result<Self> {
        let layout = step.layout();
        if T::ELEM == Elem::F32 {
            return Err(Error::InvalidInput("W8Plan: the activations are bf16 or f16".into()));
        }
        check_shape("W8Plan", n, k)?;
        if m == 0 || m >= 1 << 31 {
            return Err(Error::InvalidInput(format!("W8Plan: {m} tokens: at least 1, below 2^31")));
        }
        let route = if m <= MAX_TOKENS as usize {
            let nt = W1_TOKEN_TILES.into_iter().find(|&t| m <= 8 * t as usize).unwrap_or(4);
            let kernel = gpu.kernel(&format!("fp8_{}_t{}_{}", step.label(), 8 * nt, T::NAME))?;
            let tiles = n.div_ceil(ROWS as usize);
            let (splits, k_split) = crate::steps::fp8::w1_splits_for(n, k, gpu.info.sms, gpu.info.dram_peak_bytes_per_us);
            let ws = if splits > 1 {
                let len = splits as usize * tiles * ROWS as usize * 8 * nt as usize;
                crate::runtime::budget::check(gpu, &format!("W8Plan {m}x{n}x{k}: split-K partials"), 4 * len as u64, 0)?;
                Some((gpu.zeros::<f32>(len)?, gpu.zeros::<u32>(tiles)?))
            } else {
                None
            };
            Route::Decode { kernel, splits, k_split, ws }
        } else {
            // The dequantizer is an sm_90a kernel like w1: loaded now, so a GPU without it is refused here.
            gpu.kernel(dequantizer(T::ELEM, layout))?;
            crate::runtime::budget::check(gpu, &format!("W8Plan {m}x{n}x{k}: the dequantized weights ({k}×{n})"), 2 * (k * n) as u64, 0)?;
            let plan = GemmPlan::<T>::new(gpu, GemmDesc::new(m, n, k))?;
            Route::Dense { b: gpu.zeros::<T>(k * n)?, plan }
        };
        Ok(W8Plan { gpu: gpu.clone(), m, n, k, route, w_ready: BReady::AfterPrevious, layout })
    }

    /// When the weights may be read ([`BReady`], as [`GemmPlan::set_b_ready`]): with
    /// [`BReady::AtLaunch`] the caller promises the kernel enqueued just before a run does not write the
    /// weights or their scales (a model's weights, written at load), and w5 (or w1) then reads its first step's
    /// weights before its PDL wait. The dense route (more than 32 tokens) ignores it.
    pub fn set_w_ready(&mut self, ready: BReady) {
        self.w_ready = ready;
    }

    /// Whether it dequantizes the weights for the 16-bit GEMM (more than 32 tokens): it then holds a
    /// `k × n` buffer of `T` (overwritten by every run) — a caller keeping plans for many token counts may
    /// want to keep few of these.
    pub fn dequantizes(&self) -> bool {
        matches!(self.route, Route::Dense { .. })
    }

    /// Whether a plan of `m` tokens dequantizes ([`W8Plan::dequantizes`]), before making it.
    pub fn dequantizes_at(m: usize) -> bool {
        m > MAX_TOKENS as usize
    }

    /// What it runs: `w5-t8` (w5 with 8 tokens; `w1-…` on natural weights) and its splits, or
    /// `dequantize + <GEMM step>`.
    pub fn label(&self) -> String {
        match &self.route {
            Route::Decode { kernel, splits, .. } => format!("{}{}", kernel.info.step, if *splits > 1 { format!(" split {splits}") } else { String::new() }),
            Route::Dense { plan, .. } => format!("dequantize + {}", plan.config().label),
        }
    }

    /// Enqueues `y = x · Wᵀ` on the plan's stream: `x` holds `m × k`, `y` `m × n` values of `T`
    /// (row-major, dense), `w` the plan's `n × k` for `T`. Nothing synchronizes.
    pub fn run<X: DevicePtr<T>, Y: DevicePtrMut<T>>(&mut self, x: &X, w: &Fp8Weights, y: &mut Y) -> Result<()> {
        let (m, n, k) = (self.m, self.n, self.k);
        w.check_elem::<T>()?;
        if (w.n, w.k) != (n, k) {
            return Err(Error::InvalidInput(format!("W8Plan {m}x{n}x{k}: weights of {}×{}, the plan needs {n}×{k}", w.n, w.k)));
        }
        if w.layout != self.layout {
            return Err(Error::InvalidInput(format!("W8Plan {m}x{n}x{k}: weights in the {:?} layout, the plan was made for {:?} (W8Plan::for_layout)", w.layout,
                                                   self.layout)));
        }
        if x.len() < m * k || y.len() < m * n {
            return Err(Error::InvalidInput(format!("W8Plan {m}x{n}x{k}: x holds {} and y {} {} elements, the shape needs {} and {}", x.len(), y.len(), T::NAME, m * k,
                                                   m * n)));
        }
        let gpu = &self.gpu;
        match &mut self.route {
            Route::Decode { kernel, splits, k_split, ws } => {
                let stream = gpu.stream.clone();
                let (px, _gx) = x.device_ptr(&stream);
                let (py, _gy) = y.device_ptr_mut(&stream);
                check_io_alignment(m, n, k, px, py)?;
                let grid = (n.div_ceil(ROWS as usize) as u32, *splits);
                let (m32, n32, k32) = (m as u32, n as u32, k as u32);
                let (pws, pcount) = match ws {
                    Some((a, b)) => (a.device_ptr(&stream).0, b.device_ptr(&stream).0),
                    None => (0, 0),
                };
                // SAFETY: `fp8_w{1,5}_t*(x, w, sb, y, ws, count, m, n, k, k_split, flags)` (the kernel's contract): x holds
                // m·k and y m·n values of T (checked), x 16-byte aligned (checked), w and sb an
                // `Fp8Weights` of n×k for T (checked: its scales are powers of two in T's range by
                // construction) in the layout the kernel reads (checked: w5 packed, w1 natural); 1 ≤ m ≤ 8·NT (the kernel chosen by m), k % 16 == 0 (checked at planning);
                // grid (⌈n/32⌉, splits) with splits ≤ 16 and (splits − 1)·k_split < k (`w1_splits`); the
                // workspace and zeroed counters sized for this kernel's token tiles when splits > 1 (the
                // kernel leaves the counters zero); one plan's launches are on one stream, so they never overlap
                // (PDL: the next waits for this one before touching memory).
                // `flags`: `W1_W_AT_LAUNCH` only where the caller promised it (`set_w_ready`).
                let flags = if self.w_ready == BReady::AtLaunch { layout::fp8::weights::W1_W_AT_LAUNCH } else { 0u32 };
                unsafe { launch!(gpu, kernel, grid = grid, &px, &w.q, &w.scales, &py, &pws, &pcount, &m32, &n32, &k32, &*k_split, &flags) }
            }
            Route::Dense { b, plan } => {
                w.dequantize_t::<T, _>(gpu, b)?;
                plan.run(x, b, y)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use layout::fp8::weights::STEP_K;

    /// A sweep's forced split count keeps the kernels' contract: splits ≤ 16 and no more than K's steps, each a
    /// whole number of 64-deep steps, `(splits − 1) · k_split < k ≤ splits · k_split`.
    #[test]
    fn forced_splits_keep_the_kernels_contract() {
        use crate::steps::fp8::w1_splits_forced;
        for k in [16usize, 64, 80, 1024, 3072, 4112, 14336] {
            for want in [1u32, 2, 3, 4, 7, 16, 40] {
                let (s, ks) = w1_splits_forced(k, want);
                assert!(s >= 1 && s <= want.min(16) && ks % STEP_K == 0, "{k}, {want}: {s} × {ks}");
                assert!((s as usize - 1) * (ks as usize) < k && s as usize * ks as usize >= k, "{k}, {want}: {s} × {ks}");
            }
        }
        assert_eq!(w1_splits_forced(3072, 2), (2, 1536));
        assert_eq!(w1_splits_forced(3072, 4), (4, 768));
        assert_eq!(w1_splits_forced(64, 4), (1, 64));
    }

    #[test]
    fn splits_by_the_model_cover_k_exactly_within_one_wave() {
        for (n, k) in [(4096, 4096), (4096, 14336), (6144, 4096), (28672, 4096), (128_256, 4096), (1024, 4096), (64, 16), (96, 4112), (4096, 128)] {
            for rate in [2.5e6, 3.7e6] {
                let (splits, k_split) = w1_splits(n, k, 132, rate);
                assert!(splits >= 1 && splits as usize <= MAX_SPLITS, "{n}x{k}: {splits}");
                assert_eq!(k_split % STEP_K, 0, "{n}x{k}");
                assert!((splits as usize - 1) * (k_split as usize) < k && splits as usize * k_split as usize >= k, "{n}x{k}: {splits} × {k_split}");
                assert!(n.div_ceil(32) * splits as usize <= 264 || splits == 1, "{n}x{k}: {splits} splits, more blocks than one wave");
            }
        }
        // An H100's rate (3.35e6 × 0.75): 128 tiles 4096 deep stream no faster split (measured unsplit 11.42 µs,
        // two ways 12.20), nor do 4096 × 14336's; 32 tiles 4096 deep do, four ways (8.75 → 7.62 µs).
        assert_eq!(w1_splits(4096, 4096, 132, 2.5e6).0, 1);
        assert_eq!(w1_splits(4096, 14336, 132, 2.5e6).0, 1);
        assert_eq!(w1_splits(1024, 4096, 132, 2.5e6).0, 4);
        // An H200's (3.7e6): its DRAM takes 4096 × 14336 faster than 128 unsplit blocks stream it: two ways.
        assert_eq!(w1_splits(4096, 14336, 132, 3.7e6).0, 2);
        assert_eq!(w1_splits(6144, 4096, 132, 3.7e6).0, 1);
        assert_eq!(w1_splits(128_256, 4096, 132, 3.7e6).0, 1);
        // 32 tiles, deep K: split until a block's share streams within the DRAM's time; a short K keeps a warp
        // two steps a split.
        assert!((5..=8).contains(&w1_splits(1024, 14336, 132, 3.7e6).0));
        assert_eq!(w1_splits(1024, 1024, 132, 3.7e6).0, 1);
    }

    #[test]
    fn shapes_are_checked_before_anything_else() {
        for (n, k) in [(0, 64), (64, 0), (64, 40), (64, 8)] {
            let e = check_shape("W8Plan", n, k).unwrap_err().to_string();
            assert!(e.contains("multiple of 16") && e.contains(&format!("{n}×{k}")), "{e}");
        }
        assert!(check_shape("W8Plan", 1, 16).is_ok());
    }
}

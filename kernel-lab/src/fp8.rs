//! FP8 (e4m3) GEMM on Hopper, as a library (issue 16): quantize f32, f16 or bf16 matrices on the GPU
//! the way users produce FP8 inputs ([`quantize`], [`quantize_16`]: per-tensor or DeepGEMM's block
//! scales), and multiply them with the FP8 ladder's kernels ([`gemm_fp8`]: `C (M×N, bf16) = dequant(A) · dequant(B)ᵀ`, A stored M×K, B
//! stored N×K, both K-major as 8-bit `wgmma` requires).
//!
//! ```ignore
//! let a = fp8::quantize(&gpu, &x, m, k, Scaling::Block, Operand::A)?;   // activations: 1×128 scales
//! let b = fp8::quantize(&gpu, &w, n, k, Scaling::Block, Operand::B)?;   // weights (N×K): 128×128
//! fp8::gemm_fp8(&gpu, &a, &b, &mut c)?;                                  // f3 (block) or f1 (per tensor)
//! ```
//!
//! Errors come before any launch: mismatched operands, shapes a prepared [`Fp8Gemm`]'s TMA rules refuse
//! (K % 16, N % 8: [`gemm_fp8`] runs those on zero-padded copies instead), scales that are not finite and positive (an input holding NaN or Inf makes its group's
//! amax, and so its scale, non-finite: [`quantize`] reports which group).
use cudarc::driver::{CudaSlice, DevicePtr};
use layout::{
    fp8::{SCALE_BLOCK, block_scale_lens},
    hopper::{TmaSwizzle, TmaTile2d},
};

use crate::{
    error::{DriverContext, Error, Result},
    launch,
    runtime::{gpu::{Gpu, Kernel}, tma::TensorMap2d},
    steps::fp8::{QUANT_BLOCK, Scaling, Step, block_step_for, per_tensor_step_for},
};

pub mod calibrate;

/// Which operand a quantized matrix is: its block scales differ (A: 1×128, B: 128×128).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// Activations, `rows = M`, `cols = K`.
    A,
    /// Weights stored N×K: `rows = N`, `cols = K`.
    B,
}

/// A quantized matrix on the device: `rows × cols` e4m3 bytes (row-major, K = `cols` contiguous) and
/// its f32 scales in [`layout::fp8`]'s layout for its scaling and operand.
pub struct Fp8Matrix {
    /// The e4m3 bytes.
    pub q: CudaSlice<u8>,
    /// The scales (one for [`Scaling::PerTensor`]).
    pub scales: CudaSlice<f32>,
    /// Rows (M for A, N for B).
    pub rows: usize,
    /// Columns (K).
    pub cols: usize,
    /// How it is scaled.
    pub scaling: Scaling,
    /// Which operand it is.
    pub operand: Operand,
}

impl Fp8Matrix {
    /// The number of scales its scaling and operand need.
    pub fn scale_len(scaling: Scaling, operand: Operand, rows: usize, cols: usize) -> usize {
        match (scaling, operand) {
            (Scaling::PerTensor, _) => 1,
            (Scaling::Block, Operand::A) => block_scale_lens(rows as u32, 0, cols as u32).0 as usize,
            (Scaling::Block, Operand::B) => block_scale_lens(0, rows as u32, cols as u32).1 as usize,
        }
    }

    /// Wraps bytes and scales a caller produced; checks the lengths and that every scale is finite and
    /// positive (downloads the scales: `rows · cols / 128` f32 at most).
    pub fn from_parts(gpu: &Gpu, q: CudaSlice<u8>, scales: CudaSlice<f32>, rows: usize, cols: usize, scaling: Scaling, operand: Operand) -> Result<Fp8Matrix> {
        if q.len() != rows * cols {
            return Err(Error::InvalidInput(format!("FP8 {operand:?}: {} bytes for a {rows}×{cols} matrix", q.len())));
        }
        let want = Self::scale_len(scaling, operand, rows, cols);
        if scales.len() != want {
            return Err(Error::InvalidInput(format!("FP8 {operand:?} ({scaling:?}, {rows}×{cols}): {} scales, the layout needs {want}", scales.len())));
        }
        check_scales(&gpu.download(&scales)?, scaling, operand, rows, cols)?;
        Ok(Fp8Matrix { q, scales, rows, cols, scaling, operand })
    }
}

/// `Err` naming the first scale that is not finite and positive, and the group of elements it scales.
pub fn check_scales(scales: &[f32], scaling: Scaling, operand: Operand, rows: usize, cols: usize) -> Result<()> {
    let Some(i) = scales.iter().position(|s| !(s.is_finite() && *s > 0.0)) else { return Ok(()) };
    let blk = SCALE_BLOCK as usize;
    let group = match (scaling, operand) {
        (Scaling::PerTensor, _) => "the whole tensor".to_string(),
        (Scaling::Block, Operand::A) => format!("row {}, columns {}..{}", i % rows.max(1), i / rows.max(1) * blk, (i / rows.max(1) + 1) * blk),
        (Scaling::Block, Operand::B) => {
            let kbs = cols.div_ceil(blk).max(1);
            format!("rows {}.., columns {}..", i / kbs * blk, i % kbs * blk)
        }
    };
    Err(Error::InvalidInput(format!("FP8 {operand:?} scale {i} ({group}) is {}: scales must be finite and positive (a NaN or Inf in the input makes its group's amax, and so its scale, non-finite)", scales[i])))
}

/// Blocks for a grid-stride pass over `n` elements.
fn grid_1d(gpu: &Gpu, n: usize) -> u32 {
    (n.div_ceil(QUANT_BLOCK as usize) as u64).clamp(1, gpu.info.sms as u64 * 16) as u32
}

/// Quantizes the `rows × cols` f32 matrix `x` (row-major) to e4m3 with `scaling` (block scales as
/// `operand` needs them), on the GPU; checks the scales (so NaN/Inf inputs are reported here, naming the
/// group). `cols` must be a multiple of 4 (the kernels move 4 elements at a time; the GEMMs need 16).
pub fn quantize(gpu: &Gpu, x: &CudaSlice<f32>, rows: usize, cols: usize, scaling: Scaling, operand: Operand) -> Result<Fp8Matrix> {
    quantize_any(gpu, x, "f32", rows, cols, scaling, operand)
}

/// [`quantize`] from a 16-bit matrix (`elem` f16 or bf16, its bits in `u16`): the same bytes and scales
/// as quantizing the same values held in f32 (every f16/bf16 value is an f32 value).
pub fn quantize_16(gpu: &Gpu, x: &CudaSlice<u16>, elem: crate::steps::gemm::Elem, rows: usize, cols: usize, scaling: Scaling, operand: Operand) -> Result<Fp8Matrix> {
    let suffix = match elem {
        crate::steps::gemm::Elem::F16 => "f16",
        crate::steps::gemm::Elem::Bf16 => "bf16",
        crate::steps::gemm::Elem::F32 => return Err(Error::InvalidInput("quantize_16 takes f16 or bf16; use quantize for f32".into())),
    };
    quantize_any(gpu, x, suffix, rows, cols, scaling, operand)
}

/// The quantizers on input of element type `T` (kernel suffix `suffix`).
fn quantize_any<T: cudarc::driver::DeviceRepr>(gpu: &Gpu, x: &CudaSlice<T>, suffix: &str, rows: usize, cols: usize, scaling: Scaling, operand: Operand) -> Result<Fp8Matrix> {
    if rows == 0 || cols == 0 || x.len() != rows * cols {
        return Err(Error::InvalidInput(format!("quantize: {} {suffix} for a {rows}×{cols} matrix (both at least 1)", x.len())));
    }
    if cols % 4 != 0 || rows > u32::MAX as usize || cols > u32::MAX as usize {
        return Err(Error::InvalidInput(format!("quantize: {rows}×{cols}: columns must be a multiple of 4 and both below 2^32")));
    }
    let n = rows * cols;
    let mut q = gpu.zeros::<u8>(n)?;
    let mut scales = gpu.zeros::<f32>(Fp8Matrix::scale_len(scaling, operand, rows, cols))?;
    let (r, c, n64) = (rows as u32, cols as u32, n as u64);
    match (scaling, operand) {
        (Scaling::PerTensor, _) => {
            let mut amax = gpu.zeros::<u32>(1)?;
            let k_amax = gpu.kernel(&format!("fp8_amax_{suffix}"))?;
            let k_q = gpu.kernel(&format!("fp8_quantize_tensor_{suffix}"))?;
            // SAFETY: `fp8_amax_{f32,f16,bf16}(x, n, amax)`: x holds n elements of the kernel's type (the
            // suffix names `T`; length checked), amax one zeroed u32.
            unsafe { launch!(gpu, &k_amax, grid = grid_1d(gpu, n), x, &n64, &mut amax) }?;
            // SAFETY: `fp8_quantize_tensor_*(x, n, amax, q, scale)`: x n elements (an allocation: 256-byte
            // aligned), q n bytes, amax the pass above over the same x, scale one f32.
            unsafe { launch!(gpu, &k_q, grid = grid_1d(gpu, n.div_ceil(4)), x, &n64, &amax, &mut q, &mut scales) }?;
        }
        (Scaling::Block, Operand::A) => {
            let k = gpu.kernel(&format!("fp8_quantize_1x128_{suffix}"))?;
            let warps = rows * cols.div_ceil(SCALE_BLOCK as usize);
            let blocks = warps.div_ceil((QUANT_BLOCK / 32) as usize);
            if blocks > i32::MAX as usize {
                return Err(Error::InvalidInput(format!("quantize: {rows}×{cols} needs {blocks} blocks, above the grid's x limit")));
            }
            // SAFETY: `fp8_quantize_1x128_*(x, rows, cols, q, sa)`: x rows·cols elements (256-byte aligned),
            // cols % 4 == 0 (checked), q rows·cols bytes, sa ⌈cols/128⌉·rows f32; one warp per segment.
            unsafe { launch!(gpu, &k, grid = blocks as u32, x, &r, &c, &mut q, &mut scales) }?;
        }
        (Scaling::Block, Operand::B) => {
            let k = gpu.kernel(&format!("fp8_quantize_128x128_{suffix}"))?;
            let grid = (c.div_ceil(SCALE_BLOCK), r.div_ceil(SCALE_BLOCK));
            if grid.1 > 65_535 {
                return Err(Error::InvalidInput(format!("quantize: {rows} rows need {} block rows, above the grid's y limit of 65535", grid.1)));
            }
            // SAFETY: `fp8_quantize_128x128_*(x, rows, cols, q, sb)`: as above, sb ⌈rows/128⌉·⌈cols/128⌉
            // f32; grid (⌈cols/128⌉, ⌈rows/128⌉).
            unsafe { launch!(gpu, &k, grid = grid, x, &r, &c, &mut q, &mut scales) }?;
        }
    }
    gpu.sync_after("fp8 quantize")?;
    check_scales(&gpu.download(&scales)?, scaling, operand, rows, cols)?;
    Ok(Fp8Matrix { q, scales, rows, cols, scaling, operand })
}

/// `out = q · s` in f32 (the dequantized matrix the reference multiplies).
pub fn dequantize(gpu: &Gpu, m: &Fp8Matrix, out: &mut CudaSlice<f32>) -> Result<()> {
    if out.len() != m.rows * m.cols {
        return Err(Error::InvalidInput(format!("dequantize: {} f32 for a {}×{} matrix", out.len(), m.rows, m.cols)));
    }
    let mode: u32 = match (m.scaling, m.operand) {
        (Scaling::PerTensor, _) => 0,
        (Scaling::Block, Operand::A) => 1,
        (Scaling::Block, Operand::B) => 2,
    };
    let k = gpu.kernel("fp8_dequantize_f32")?;
    let (r, c) = (m.rows as u32, m.cols as u32);
    // SAFETY: `fp8_dequantize_f32(q, rows, cols, scales, mode, out)`: q rows·cols bytes, scales of the
    // mode's length (an `Fp8Matrix` holds them by construction), out rows·cols f32 (checked).
    unsafe { launch!(gpu, &k, grid = grid_1d(gpu, m.rows * m.cols), &m.q, &r, &c, &m.scales, &mode, out) }
}

/// `out = bf16(x)`, `n` elements.
pub fn to_bf16(gpu: &Gpu, x: &CudaSlice<f32>, out: &mut CudaSlice<u16>) -> Result<()> {
    if out.len() != x.len() {
        return Err(Error::InvalidInput(format!("to_bf16: {} f32 into {} bf16", x.len(), out.len())));
    }
    let k = gpu.kernel("fp8_f32_to_bf16")?;
    let n = x.len() as u64;
    // SAFETY: `fp8_f32_to_bf16(x, n, out)`: both hold n elements (checked).
    unsafe { launch!(gpu, &k, grid = grid_1d(gpu, x.len()), x, &n, out) }
}

/// The step that multiplies `m × n × k` operands scaled with `scaling` by default on a GPU of `sms` SMs
/// holding `resident[i]` clusters of f21's `i`-th size at once:
/// per tensor f14 (f12 — f1 with a fourth stage, 1–7% faster than f1 at each of the six sweep shapes
/// in `results/2026-11-25-h100-session16/call1-fp8-f12-f13` — plus h10's stream-K tail where the last
/// wave is at most a third full, elsewhere f12's schedule; its cluster twin f13 was within ±4% of f12
/// and needs clusters) or f18 (192×192 tiles, three consumers) where the wave model of
/// [`crate::steps::fp8::per_tensor_step_for`] says its rounds finish first, or, where f14's tiles fill less than one
/// round, the fastest of f14, f21 (K split over a cluster of CTAs) and f22 (64×64 tiles computed transposed)
/// by their measured costs; up to 32 rows, f25 (cuBLASLt's 128×32 tile, ten 20 KiB stages) where its cost beats
/// fw2's or that pick's by 10%; for block scales fwb (fw2 with the block scales applied step by step) up to
/// 16 rows, above f3 (128×128 tiles), the 128×192 step — f16 (f15's
/// tiles with a stream-K tail, streamed or not: its body measured 1.015–1.022× f15's), or f9 where M % 4 ≠ 0 — or f19 (192×128, three consumers) as the wave model of
/// [`crate::steps::fp8::block_step_for`] picks (`kernels-gpu/src/fp8/README.md`). Any step can be run
/// with [`Fp8Gemm::new`].
pub fn step_for(scaling: Scaling, m: usize, n: usize, k: usize, sms: u32, resident: [u32; 7]) -> &'static Step {
    match scaling {
        Scaling::PerTensor => per_tensor_step_for(m, n, k, sms, resident),
        Scaling::Block => block_step_for(m, n, k, sms),
    }
}

/// [`step_for`] on this GPU: its SMs and its residency of f21's clusters ([`f21_resident`]).
/// With this GPU's measured costs where `kernel-lab calibrate` kept them ([`calibrate::model_for`]), else the
/// shipped ones.
pub fn default_step(gpu: &Gpu, scaling: Scaling, m: usize, n: usize, k: usize) -> Result<&'static Step> {
    let resident = if scaling == Scaling::PerTensor && m > crate::steps::fp8::FW1_MAX_M { f21_resident(gpu)? } else { [0; 7] };
    let costs = calibrate::model_for(gpu);
    Ok(match scaling {
        Scaling::PerTensor => crate::steps::fp8::per_tensor_step_by(&costs, m, n, k, gpu.info.sms, resident),
        Scaling::Block => crate::steps::fp8::block_step_by(&costs, m, n, k, gpu.info.sms),
    })
}

/// How many clusters of each f21 size (2 … 8 CTAs, [`crate::steps::fp8::F21_CLUSTERS`]) this GPU holds
/// at once (`cuOccupancyMaxActiveClusters`, seven driver queries, as `gemm::h8_resident`); zeros where
/// it cannot run sm_90a code.
pub fn f21_resident(gpu: &Gpu) -> Result<[u32; 7]> {
    use crate::steps::fp8::F21;
    if gpu.cannot_run(&F21[0].kernel).is_some() {
        return Ok([0; 7]);
    }
    let mut r = [0u32; 7];
    for (slot, step) in r.iter_mut().zip(F21.iter()) {
        *slot = gpu.kernel(step.kernel.name)?.max_active_clusters(gpu, step.cluster)?;
    }
    Ok(r)
}

/// A prepared FP8 GEMM: the kernel, its tensor maps over A's and B's bytes and C, encoded once, so
/// repeated runs (timing) launch without re-encoding (or, for [`FW1`](crate::steps::fp8::FW1), the widened A and the
/// weight-only kernel's workspace, allocated once). The buffers must outlive it unchanged (their
/// addresses are in the maps); [`Fp8Gemm::run`] checks that it gets the same ones.
pub struct Fp8Gemm {
    step: &'static Step,
    /// Addresses of A's and B's bytes, C, and (for a staged-scale step, else 0) A's scales: what the maps hold.
    key: [u64; 4],
    shape: (usize, usize, usize),
    route: Route,
}

/// fw1's widening: its kernel, the widened A (M×K bf16) and B's block scales.
struct Widen {
    kernel: Kernel,
    x: CudaSlice<u16>,
    blocks: CudaSlice<f32>,
}

/// How a prepared FP8 GEMM runs.
enum Route {
    /// A `wgmma` step: one kernel over tensor maps.
    Tma {
        kernel: Kernel,
        maps: [TensorMap2d; 3],
        /// A staged-scale step's map over A's scales (`Step::scale_map`).
        scale_map: Option<TensorMap2d>,
        grid: u32,
        /// A stream-K step's workspace: `(grid + tail)` slots of 128×256 f32, `tail` counters (zero
        /// between launches: each tail tile's last contributor resets its own), and the tail.
        stream: Option<(CudaSlice<f32>, CudaSlice<u32>, u32)>,
    },
    /// [`FW1`](crate::steps::fp8::FW1): A widened into M×K bf16 with B's block scales (`widen`), then
    /// w1; [`FW2`](crate::steps::fp8::FW2) and [`FWB`](crate::steps::fp8::FWB): its kernel alone (`widen` is `None`).
    WeightOnly {
        widen: Option<Widen>,
        w1: Kernel,
        splits: u32,
        k_split: u32,
        /// Split-K partials and zeroed tile counters (splits > 1).
        ws: Option<(CudaSlice<f32>, CudaSlice<u32>)>,
    },
}

impl Fp8Gemm {
    /// Checks the operands against each other and `step`'s rules, and encodes the tensor maps.
    pub fn new(gpu: &Gpu, step: &'static Step, a: &Fp8Matrix, b: &Fp8Matrix, c: &CudaSlice<u16>) -> Result<Fp8Gemm> {
        let (m, n, k) = check_operands(a, b, c.len(), Some(step))?;
        if let Some(why) = step.rejects(m, n, k) {
            return Err(Error::InvalidInput(why));
        }
        if let Some(why) = gpu.cannot_run(&step.kernel) {
            return Err(Error::Unsupported { kernel: step.kernel.name.into(), needs: "sm_90a (Hopper)".into(), have: why });
        }
        if step.weight_only {
            return Self::weight_only(gpu, step, a, b, c);
        }
        let kernel = gpu.kernel(step.kernel.name)?;
        let clusters = if step.cluster > 1 {
            crate::runtime::tuning::fp8_clusters(kernel.require_clusters(gpu, step.cluster)?)
        } else {
            gpu.info.sms
        };
        let box_cols = layout::fp8::tiles::BK;
        let tile = |rows: usize, cols: usize, box_rows: u32, elem_bytes: u32, box_cols: u32| TmaTile2d {
            elem_bytes, rows: rows as u64, cols: cols as u64, stride_bytes: elem_bytes as u64 * cols as u64, box_rows, box_cols, swizzle: TmaSwizzle::B128,
        };
        let maps = [
            TensorMap2d::encode_u8(gpu, &a.q, tile(m, k, step.tile.0, 1, box_cols))?,
            TensorMap2d::encode_u8(gpu, &b.q, tile(n, k, step.b_box_rows(), 1, box_cols))?,
            TensorMap2d::encode_bf16(gpu, c, tile(m, n, 64, 2, 64))?,
        ];
        let scale_map = if step.scale_map {
            // ⌈K/128⌉ rows (K blocks) of M f32 (stride 4M bytes: the step's rule M % 4 == 0, checked above),
            // boxes of one K block's values for the tile's rows from row m0 of A (128; f19: 192), no
            // swizzle; past M zero-filled.
            let sa = TmaTile2d { elem_bytes: 4, rows: k.div_ceil(layout::fp8::SCALE_BLOCK as usize) as u64, cols: m as u64, stride_bytes: 4 * m as u64,
                                 box_rows: 1, box_cols: step.tile.0, swizzle: TmaSwizzle::None };
            Some(TensorMap2d::encode_f32(gpu, &a.scales, sa)?)
        } else {
            None
        };
        let key = Self::key(gpu, step, a, b, c);
        let grid = step.grid(m, n, clusters);
        let stream = if step.stream_k {
            use layout::hopper::tma_hgemm::{STREAM_K_SLOT_BYTES, stream_k_tail};
            let tiles = step.tiles(m, n).min(u32::MAX as u64) as u32;
            let tail = stream_k_tail(tiles, grid, (k as u32).div_ceil(layout::fp8::tiles::BK));
            let slots = if tail > 0 { (grid + tail) as usize } else { 0 };
            let ws_bytes = (slots * STREAM_K_SLOT_BYTES as usize) as u64;
            crate::runtime::budget::check(gpu, &format!("{} stream-K workspace ({slots} slots)", step.kernel.name), ws_bytes, 0)?;
            Some((gpu.zeros::<f32>((slots * (STREAM_K_SLOT_BYTES / 4) as usize).max(1))?, gpu.zeros::<u32>((tail as usize).max(1))?, tail))
        } else {
            None
        };
        Ok(Fp8Gemm { step, key, shape: (m, n, k), route: Route::Tma { kernel, maps, scale_map, grid, stream } })
    }

    /// The weight-only routes' preparation (the operands already checked by [`Fp8Gemm::new`]): fw1's
    /// widen kernel, widened A and B's block scales, or none for fw2 and fwb; the weight-only kernel for A's rows
    /// and its split-K workspace.
    fn weight_only(gpu: &Gpu, step: &'static Step, a: &Fp8Matrix, b: &Fp8Matrix, c: &CudaSlice<u16>) -> Result<Fp8Gemm> {
        use layout::fp8::weights::ROWS;
        let (m, n, k) = (a.rows, b.rows, a.cols);
        // fw1 widens A by a launch of its own; every other route (fw2, fwb) is one kernel reading A's e4m3
        // bytes itself, named after the route.
        let widens = step == &crate::steps::fp8::FW1;
        // `step.rejects` (checked in `new`) holds m to FW1_MAX_M = 16: the 8- or 16-token kernel, which
        // both routes have.
        let nt = crate::steps::fp8::W1_TOKEN_TILES.into_iter().find(|&t| m <= 8 * t as usize)
            .ok_or_else(|| Error::InvalidInput(format!("{} {m}x{n}x{k}: more rows than the weight-only kernels take", step.kernel.step)))?;
        let w1 = gpu.kernel(&if widens { format!("fp8_w1_t{}_bf16", 8 * nt) } else { format!("fp8_{}_t{}", step.kernel.step, 8 * nt) })?;
        let blocks_len = if widens { n.div_ceil(SCALE_BLOCK as usize) * k.div_ceil(SCALE_BLOCK as usize) } else { 0 };
        let x_len = if widens { m * k } else { 0 };
        let tiles = n.div_ceil(ROWS as usize);
        let (splits, k_split) = crate::steps::fp8::w1_splits_for(n, k, gpu.info.sms, gpu.info.dram_peak_bytes_per_us);
        let ws_len = if splits > 1 { splits as usize * tiles * ROWS as usize * 8 * nt as usize } else { 0 };
        crate::runtime::budget::check(gpu, &format!("{} {m}x{n}x{k}: widened A, B's block scales, split-K partials", step.kernel.step),
                                      (2 * x_len + 4 * blocks_len + 4 * ws_len + 4 * tiles) as u64, 0)?;
        let widen = if widens {
            Some(Widen { kernel: gpu.kernel("fp8_widen_per_tensor_bf16")?, x: gpu.zeros::<u16>(x_len)?, blocks: gpu.zeros::<f32>(blocks_len)? })
        } else {
            None
        };
        let ws = if splits > 1 { Some((gpu.zeros::<f32>(ws_len)?, gpu.zeros::<u32>(tiles)?)) } else { None };
        let route = Route::WeightOnly { widen, w1, splits, k_split: k_split as u32, ws };
        Ok(Fp8Gemm { step, key: Self::key(gpu, step, a, b, c), shape: (m, n, k), route })
    }

    fn key(gpu: &Gpu, step: &Step, a: &Fp8Matrix, b: &Fp8Matrix, c: &CudaSlice<u16>) -> [u64; 4] {
        let sa = if step.scale_map { a.scales.device_ptr(&gpu.stream).0 } else { 0 };
        [a.q.device_ptr(&gpu.stream).0, b.q.device_ptr(&gpu.stream).0, c.device_ptr(&gpu.stream).0, sa]
    }

    /// The step it runs.
    pub fn step(&self) -> &'static Step {
        self.step
    }

    /// Its grid (CTAs; a multiple of the step's cluster size; [`FW1`](crate::steps::fp8::FW1): w1's blocks).
    pub fn grid(&self) -> u32 {
        match &self.route {
            Route::Tma { grid, .. } => *grid,
            Route::WeightOnly { splits, .. } => self.shape.1.div_ceil(layout::fp8::weights::ROWS as usize) as u32 * splits,
        }
    }

    /// Enqueues `C = dequant(A) · dequant(B)ᵀ` on the buffers it was prepared for.
    pub fn run(&self, gpu: &Gpu, a: &Fp8Matrix, b: &Fp8Matrix, c: &mut CudaSlice<u16>) -> Result<()> {
        let key = Self::key(gpu, self.step, a, b, c);
        if key != self.key || (a.rows, b.rows, a.cols) != self.shape {
            return Err(Error::InvalidInput("Fp8Gemm::run: not the buffers it was prepared for (their addresses are in its tensor maps)".into()));
        }
        let (m, n, k) = (self.shape.0 as u32, self.shape.1 as u32, self.shape.2 as u32);
        let (kernel, maps, scale_map, grid, stream) = match &self.route {
            Route::Tma { kernel, maps, scale_map, grid, stream } => (kernel, maps, scale_map, *grid, stream),
            Route::WeightOnly { widen, w1, splits, k_split, ws } => {
                let stream = gpu.stream.clone();
                let (pws, pcount) = match ws {
                    Some((w, c)) => (w.device_ptr(&stream).0, c.device_ptr(&stream).0),
                    None => (0, 0),
                };
                let w1_grid = (n.div_ceil(layout::fp8::weights::ROWS), *splits);
                let Some(Widen { kernel: widen, x, blocks }) = widen else {
                    // SAFETY: `fp8_fw2_t*` / `fp8_fwb_t*(x, w, sa, sb, y, ws, count, m, n, k, k_split)` (their
                    // contract): x A's m·k e4m3 bytes and w B's n·k (whole allocations: 16-byte aligned;
                    // k % 16 == 0, checked in `new`), sa and sb one f32 each for fw2 (per-tensor operands,
                    // checked) or A's ⌈k/128⌉·m and B's ⌈n/128⌉·⌈k/128⌉ finite f32 for fwb (block-scaled
                    // operands, checked in `new`; `Fp8Matrix` holds them so by construction), y = C of m·n bf16
                    // (checked); 1 ≤ m ≤ 8·NT for the kernel chosen by m; grid (⌈n/32⌉, splits) with splits
                    // ≤ 16 and (splits − 1)·k_split < k (`w1_splits`); the workspace and zeroed counters sized
                    // for this kernel's token tiles when splits > 1 (left zero by every launch); one plan's
                    // launches are on one stream, so they never overlap.
                    return unsafe { launch!(gpu, w1, grid = w1_grid, &a.q, &b.q, &a.scales, &b.scales, c, &pws, &pcount, &m, &n, &k, k_split) };
                };
                let (len, nblocks) = (m * k, blocks.len() as u32);
                // SAFETY: `fp8_widen_per_tensor_bf16(q, n, sa, sb, x, blocks, nblocks)`: A holds m·k bytes
                // (m·k even: k % 16 == 0, checked in `new`; a whole allocation, so 2-byte aligned), x m·k
                // bf16 (the plan's own, allocated for this shape: 4-byte aligned), both operands one
                // per-tensor scale (their scaling is checked; `Fp8Matrix` scales are finite and positive by
                // construction), `blocks` its own length; nothing else uses x or blocks (the plan's, and its
                // launches go to one stream).
                unsafe { launch!(gpu, widen, grid = grid_1d(gpu, (len as usize / 2).max(nblocks as usize)), &a.q, &len, &a.scales, &b.scales, x, blocks, &nblocks)? };
                // SAFETY: `fp8_w1_t*_bf16(x, w, sb, y, ws, count, m, n, k, k_split, flags)` (its contract): x the m·k
                // bf16 just widened (16-byte aligned: a whole allocation), w B's n·k e4m3 bytes (16-byte
                // aligned, k % 16 == 0), sb ⌈n/128⌉·⌈k/128⌉ powers of two in bf16's scale range (the widen
                // kernel just wrote them, clamped to it; w1 waits for it before reading), y = C of m·n bf16
                // (checked in `new`); m, grid, workspace and stream as fw2's above; no flags (the scales
                // are the widen kernel's output, so nothing is read before the wait).
                return unsafe { launch!(gpu, w1, grid = w1_grid, x, &b.q, blocks, c, &pws, &pcount, &m, &n, &k, k_split, &0u32) };
            }
        };
        if self.step.cluster_split {
            // SAFETY: `fp8_gemm_v21_x*` / `fp8_gemm_v25` / `fp8_gemm_v26(tmap_a, tmap_b, scale_a, scale_b, g_c, m, n, k)`:
            // the maps of A and B were encoded for these very buffers (same addresses and shape, checked above)
            // with boxes of the tile's rows (`step.tile.0`; `Step::b_box_rows`: all of the tile's B rows — f21
            // 128 and 256, f25 32 and 128, f26 64 and 128); one f32 scale each (per-tensor operands, checked in `new`); `c` holds
            // m·n bf16 (checked in `new`) with n % 8 == 0 (the step's rule, so n % 4 == 0); grid = every tile ×
            // the cluster size (`Step::grid` for a cluster split); for f21 the kernel's `.reqnctapercluster`
            // forms the clusters, at least one of which fits (`require_clusters` in `new`), f25 and f26 have none.
            return unsafe { launch!(gpu, kernel, grid = grid, &maps[0].dev, &maps[1].dev, &a.scales, &b.scales, c, &m, &n, &k) };
        }
        if let (Some((ws, count, tail)), Some(sa)) = (stream, scale_map) {
            // SAFETY: `fp8_gemm_v16/v20(tmap_a, tmap_b, tmap_c, tmap_sa, scale_a, scale_b, ws, count, m, n, k, tail)`:
            // maps, scales and shape as the staged-scale launch below, workspace, counters and tail as the
            // per-tensor stream-K launch below (the slots are 128·256 f32: a 128×192 partial fits, and f20's 192×128).
            return unsafe { launch!(gpu, kernel, grid = grid, &maps[0].dev, &maps[1].dev, &maps[2].dev, &sa.dev, &a.scales, &b.scales,
                                    ws, count, &m, &n, &k, tail) };
        }
        if let Some((ws, count, tail)) = stream {
            // SAFETY: `fp8_gemm_v14(tmap_a, tmap_b, tmap_c, scale_a, scale_b, ws, count, m, n, k, tail)`: maps,
            // scales and shape as below; `tail` from `stream_k_tail` of this very grid and shape (so < grid,
            // ≤ tiles, and tail · ⌈k/128⌉ ≥ grid when not 0); `ws` holds (grid + tail) slots of 128·256 f32
            // (a whole allocation: 16-byte aligned) and `count` tail counters, zeroed at allocation and left
            // zero by every launch that completes (each tail tile's last contributor resets its own). Both
            // belong to this `Fp8Gemm` alone, and its launches go to one stream, so no two launches use
            // them at once; the kernel writes them through the pointers (the driver takes no borrow).
            return unsafe { launch!(gpu, kernel, grid = grid, &maps[0].dev, &maps[1].dev, &maps[2].dev, &a.scales, &b.scales,
                                    ws, count, &m, &n, &k, tail) };
        }
        if let Some(sa) = scale_map {
            // SAFETY: `fp8_gemm_v15/v19(tmap_a, tmap_b, tmap_c, tmap_sa, scale_a, scale_b, m, n, k)`: as below, and
            // `tmap_sa` encoded over this very `a.scales` (its address is part of the key checked above) as
            // ⌈K/128⌉ rows of M f32 with boxes of the step's tile rows (128 values; f19: 192).
            return unsafe { launch!(gpu, kernel, grid = grid, &maps[0].dev, &maps[1].dev, &maps[2].dev, &sa.dev, &a.scales, &b.scales, &m, &n, &k) };
        }
        // SAFETY: `fp8_gemm_v1/v2(tmap_a, tmap_b, tmap_c, scale_a, scale_b, m, n, k)`: the maps were encoded
        // for these very buffers (same addresses and shape, checked above) with the boxes the step expects;
        // the scales have the lengths its scaling needs (an `Fp8Matrix` holds them by construction); the
        // shape passed the step's rules in `new`; grid (whole clusters, no more than fit at once), block and
        // shared memory from the descriptor; a cluster step's `.reqnctapercluster` forms the clusters.
        unsafe { launch!(gpu, kernel, grid = grid, &maps[0].dev, &maps[1].dev, &maps[2].dev, &a.scales, &b.scales, &m, &n, &k) }
    }
}

/// `c = dequant(a) · dequant(b)ᵀ` (bf16, M×N) with the step for the operands' scaling and shape
/// on this GPU ([`step_for`]);
/// encodes the tensor maps each call (prepare an [`Fp8Gemm`] to run one shape repeatedly).
///
/// Any K and N: where K is not a multiple of 16 or N of 8 (the TMA's 16-byte row strides of A, B and
/// C), the product runs on zero-padded copies of A and B into a padded C, whose M×N corner is copied
/// out — the zeros add nothing to any sum, and the scales keep their layout (16 and 8 divide the
/// 128-wide scale blocks, so no block is added). The copies cost about one pass over A, B and C per call.
pub fn gemm_fp8(gpu: &Gpu, a: &Fp8Matrix, b: &Fp8Matrix, c: &mut CudaSlice<u16>) -> Result<&'static Step> {
    let (m, n, k) = (a.rows, b.rows, a.cols);
    let (n_pad, k_pad) = (n.next_multiple_of(8), k.next_multiple_of(16));
    if (n_pad, k_pad) == (n, k) {
        let g = Fp8Gemm::new(gpu, default_step(gpu, a.scaling, m, n, k)?, a, b, c)?;
        g.run(gpu, a, b, c)?;
        gpu.stream.synchronize().during(|| format!("{} {m}x{n}x{k}", g.step.kernel.name))?;
        return Ok(g.step);
    }
    // What `Fp8Gemm::new` checks on the padded operands, named here by the caller's shape before anything is allocated.
    check_operands(a, b, c.len(), None)?;
    let step = default_step(gpu, a.scaling, m, n_pad, k_pad)?;
    // Only what is off its multiple is copied: A where K is, C where N is, B where either is.
    let a_pad = if k_pad != k { Some(padded(gpu, a, m, k_pad)?) } else { None };
    let b_pad = padded(gpu, b, n_pad, k_pad)?;
    let ap = a_pad.as_ref().unwrap_or(a);
    if n_pad == n {
        let g = Fp8Gemm::new(gpu, step, ap, &b_pad, c)?;
        g.run(gpu, ap, &b_pad, c)?;
    } else {
        let mut c_pad = gpu.zeros::<u16>(m * n_pad)?;
        let g = Fp8Gemm::new(gpu, step, ap, &b_pad, &c_pad)?;
        g.run(gpu, ap, &b_pad, &mut c_pad)?;
        let of = |x: &CudaSlice<u16>| crate::gemm::launch::Operand::of(gpu, x);
        crate::gemm::copy_rows(gpu, of(&c_pad), n_pad, of(&*c), n, m, n, 2)?;
    }
    gpu.stream.synchronize().during(|| format!("{} {m}x{n}x{k} (padded to {m}x{n_pad}x{k_pad})", step.kernel.name))?;
    Ok(step)
}

/// The checks every FP8 product makes of its operands before anything else, returning `(m, n, k)`: A and
/// B in their roles, one K, scaled alike — as `step` takes them where one is given ([`Fp8Gemm::new`]),
/// else as each other ([`gemm_fp8`]'s padded path, before its step is chosen) —, C of `c_len` = M·N, every
/// dimension at most 2^20.
fn check_operands(a: &Fp8Matrix, b: &Fp8Matrix, c_len: usize, step: Option<&Step>) -> Result<(usize, usize, usize)> {
    if a.operand != Operand::A || b.operand != Operand::B {
        return Err(Error::InvalidInput(format!("FP8 GEMM: operands are ({:?}, {:?}), want (A, B)", a.operand, b.operand)));
    }
    if a.cols != b.cols {
        return Err(Error::InvalidInput(format!("FP8 GEMM: A is {}×{} and B (N×K) {}×{}: K differs", a.rows, a.cols, b.rows, b.cols)));
    }
    match step {
        Some(st) if a.scaling != st.scaling || b.scaling != st.scaling => {
            return Err(Error::InvalidInput(format!("{} takes {:?}-scaled operands, got A {:?} and B {:?}", st.kernel.name, st.scaling, a.scaling, b.scaling)));
        }
        None if a.scaling != b.scaling => {
            return Err(Error::InvalidInput(format!("FP8 GEMM: A is {:?}-scaled and B {:?}-scaled", a.scaling, b.scaling)));
        }
        _ => {}
    }
    let (m, n, k) = (a.rows, b.rows, a.cols);
    if c_len != m * n {
        return Err(Error::InvalidInput(format!("FP8 GEMM {m}x{n}x{k}: C holds {c_len} bf16, needs {}", m * n)));
    }
    if m > 1 << 20 || n > 1 << 20 || k > 1 << 20 {
        return Err(Error::InvalidInput(format!("FP8 GEMM {m}x{n}x{k}: every dimension must be at most 2^20")));
    }
    Ok((m, n, k))
}

/// `x` widened to `rows × cols` (at least its own): its bytes in the top-left corner of zeros, its
/// scales copied as they are — for widths that stay inside its last 128-wide scale block, the same
/// layout ([`gemm_fp8`]'s padding).
fn padded(gpu: &Gpu, x: &Fp8Matrix, rows: usize, cols: usize) -> Result<Fp8Matrix> {
    if Fp8Matrix::scale_len(x.scaling, x.operand, rows, cols) != x.scales.len() {
        return Err(Error::InvalidInput(format!("FP8 {:?}: padding {}×{} to {rows}×{cols} would change its scale layout (internal error)", x.operand, x.rows, x.cols)));
    }
    let q = gpu.zeros::<u8>(rows * cols)?;
    let of = |b: &CudaSlice<u8>| crate::gemm::launch::Operand::of(gpu, b);
    crate::gemm::copy_rows(gpu, of(&x.q), x.cols, of(&q), cols, x.rows, x.cols, 1)?;
    let mut scales = gpu.zeros::<f32>(x.scales.len())?;
    gpu.stream.memcpy_dtod(&x.scales, &mut scales).during(|| format!("copying FP8 {:?}'s scales", x.operand))?;
    Ok(Fp8Matrix { q, scales, rows, cols, scaling: x.scaling, operand: x.operand })
}

/// `C = dequant(A) · dequant(B)ᵀ` in f64 on the CPU (all cores) from the quantized bytes and scales
/// (downloaded): the reference of small shapes.
pub fn reference_f64(gpu: &Gpu, a: &Fp8Matrix, b: &Fp8Matrix) -> Result<Vec<f64>> {
    let deq = |m: &Fp8Matrix| -> Result<Vec<f64>> {
        let (q, s) = (gpu.download(&m.q)?, gpu.download(&m.scales)?);
        let (rows, cols) = (m.rows as u32, m.cols as u32);
        Ok(q.iter().enumerate().map(|(i, &v)| {
            let (r, c) = ((i / m.cols) as u32, (i % m.cols) as u32);
            let si = match (m.scaling, m.operand) {
                (Scaling::PerTensor, _) => 0,
                (Scaling::Block, Operand::A) => layout::fp8::scale_a_index(r, c, rows),
                (Scaling::Block, Operand::B) => layout::fp8::scale_b_index(r, c, cols),
            };
            layout::fp8::e4m3_to_f32(v) as f64 * s[si as usize] as f64
        }).collect())
    };
    let (da, db) = (deq(a)?, deq(b)?);
    Ok(rows_dot_rows(&da, &db, a.rows, b.rows, a.cols))
}

/// `C[i][j] = Σ_k a[i][k] · b[j][k]` (both row-major with `k` columns), rows split across threads.
pub fn rows_dot_rows(a: &[f64], b: &[f64], m: usize, n: usize, k: usize) -> Vec<f64> {
    let mut c = vec![0.0f64; m * n];
    let threads = std::thread::available_parallelism().map(|t| t.get()).unwrap_or(1).min(m).max(1);
    let rows_per = m.div_ceil(threads);
    std::thread::scope(|scope| {
        for (t, chunk) in c.chunks_mut(rows_per * n).enumerate() {
            scope.spawn(move || {
                for (r, out) in chunk.chunks_mut(n).enumerate() {
                    let ar = &a[(t * rows_per + r) * k..][..k];
                    for (j, o) in out.iter_mut().enumerate() {
                        *o = ar.iter().zip(&b[j * k..(j + 1) * k]).map(|(x, y)| x * y).sum();
                    }
                }
            });
        }
    });
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_checks_name_the_group() {
        assert!(check_scales(&[1.0, 2.0], Scaling::Block, Operand::A, 2, 128).is_ok());
        let e = check_scales(&[1.0, 1.0, 1.0, f32::NAN], Scaling::Block, Operand::A, 3, 256).unwrap_err().to_string();
        assert!(e.contains("scale 3") && e.contains("row 0, columns 128..256") && e.contains("NaN"), "{e}");
        let e = check_scales(&[1.0, f32::INFINITY], Scaling::Block, Operand::B, 256, 256).unwrap_err().to_string();
        assert!(e.contains("rows 0.., columns 128..") && e.contains("inf"), "{e}");
        assert!(check_scales(&[0.0], Scaling::PerTensor, Operand::A, 1, 16).unwrap_err().to_string().contains("whole tensor"));
        assert!(check_scales(&[-1.0], Scaling::PerTensor, Operand::B, 1, 16).is_err());
    }

    #[test]
    fn scale_lengths_follow_the_layouts() {
        assert_eq!(Fp8Matrix::scale_len(Scaling::PerTensor, Operand::B, 4096, 4096), 1);
        assert_eq!(Fp8Matrix::scale_len(Scaling::Block, Operand::A, 100, 300), 3 * 100);
        assert_eq!(Fp8Matrix::scale_len(Scaling::Block, Operand::B, 300, 300), 3 * 3);
    }

    #[test]
    fn rows_dot_rows_is_a_times_b_transposed() {
        let (a, b) = (vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], vec![1.0, 0.0, -1.0, 2.0, 1.0, 0.0]);
        // a: 2×3, b: 2×3 → c[i][j] = a_i · b_j
        assert_eq!(rows_dot_rows(&a, &b, 2, 2, 3), vec![-2.0, 4.0, -2.0, 13.0]);
    }
}

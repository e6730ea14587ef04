//! The FP8 family (issue 16): per shape, f32 inputs generated on the GPU and quantized both ways
//! ([`crate::fp8::quantize`]: per tensor, and DeepGEMM's block scales), each step verified against the
//! product of the **dequantized** inputs (f64 on the CPU for small shapes; for large ones the inputs
//! dequantized to f32 on the device and multiplied by `cublasSgemm`, compared there), then timed
//! interleaved with the cuBLASLt FP8 matmul of the same scaling.
//!
//! Rows per shape: the cuBLASLt baselines (per tensor with fast accumulation, per tensor with its
//! default accumulation, block scaling where the installed cuBLASLt offers it on this GPU), then each
//! step against each baseline it is compared with (`baselines_of`): per-tensor steps against both
//! per-tensor modes, block-scaled ones against the block mode and the default per-tensor one.
//!
//! **Tolerances** (relative L2 against the reference of the dequantized inputs). The output is rounded
//! to bf16 (8 significant bits: ~1.1e-3 for random data), so [`TOL_PROMOTED`] = 8e-3 for a kernel whose
//! tensor-core partial sums never span more than one 128-deep K block (f2; cuBLASLt's default mode).
//! Without promotion (f1, cuBLASLt fast accumulation) Hopper's FP8 `wgmma` adds each K = 32 product
//! block into accumulators kept with ~13–14 significant bits (DeepSeek-V3 §3.3.2), one rounding per
//! `wgmma`: a relative error up to 2^-13 per step that, for data whose sums do not cancel, grows
//! linearly with the ⌈K/32⌉ steps: [`tolerance`] = 8e-3 + 2^-13 · ⌈K/32⌉ / 4 (the /4: random-sign
//! inputs cancel most of it; the [`promotion_study`] measures the growth on positive inputs).
use cudarc::{
    cublas::{CudaBlas, sys as blas_sys},
    driver::{CudaSlice, DevicePtr, DevicePtrMut},
};

use crate::{
    cublaslt::{CublasLtFp8, Fp8Scaling, cublas_block_scales},
    error::{Error, Result},
    families::gemm::{self, GemmRun, Reference, Row, Shape},
    fp8::{self, Fp8Gemm, Fp8Matrix, Operand},
    runtime::{
        device_check::{self, Dist, ElemKind},
        gpu::Gpu,
        timing::{rotation_copies, time_gpu_budget, time_pair},
    },
    steps::fp8::{STEPS, Scaling, Step, WEIGHT_ONLY_ROUTES},
};

/// The default shapes: squares 4096³ and 8192³, and the projections of a 7B decoder at M = 2048
/// (4096 → 11008 / 14336 → 4096) and of a 70B one (8192 → 28672) at M = 4096.
pub const SWEEP: &[(usize, usize, usize)] = &[
    (4096, 4096, 4096), (8192, 8192, 8192), (2048, 11008, 4096), (2048, 4096, 11008), (2048, 14336, 4096), (4096, 28672, 8192),
];

/// Shapes `--check` adds: ragged M and N, K not a multiple of 128, tiny.
pub const CHECK_SHAPES: &[(usize, usize, usize)] = &[(1, 8, 16), (130, 264, 400), (260, 264, 400), (257, 136, 1024), (1000, 1000, 1008), (64, 4096, 4096)];

/// Relative L2 tolerance with promotion (see the module doc).
pub const TOL_PROMOTED: f64 = 8e-3;

/// Relative L2 tolerance of a kernel that promotes (`promotes`) or accumulates all of `k` in the
/// tensor core (see the module doc).
pub fn tolerance(promotes: bool, k: usize) -> f64 {
    if promotes { TOL_PROMOTED } else { TOL_PROMOTED + k.div_ceil(32) as f64 / 8192.0 / 4.0 }
}

/// A cuBLASLt configuration the steps are timed against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Baseline {
    /// Per tensor, `FAST_ACCUM = 1`: all of K in the tensor core (f1's accumulation).
    PerTensorFast,
    /// Per tensor, cuBLASLt's default accumulation (promoted).
    PerTensor,
    /// Block scales (`VEC128_32F` for A, `BLK128x128_32F` for B), where offered.
    Block,
}

impl Baseline {
    /// Every baseline, in table order.
    pub const ALL: [Baseline; 3] = [Baseline::PerTensorFast, Baseline::PerTensor, Baseline::Block];
    /// Its name in the table.
    pub fn name(self) -> &'static str {
        match self {
            Baseline::PerTensorFast => "cublasLt e4m3 per-tensor fast-accum",
            Baseline::PerTensor => "cublasLt e4m3 per-tensor",
            Baseline::Block => "cublasLt e4m3 block 1x128/128x128",
        }
    }
    fn scaling(self) -> Scaling {
        if self == Baseline::Block { Scaling::Block } else { Scaling::PerTensor }
    }
    fn promotes(self) -> bool {
        self != Baseline::PerTensorFast
    }
}

/// Which baselines a step is timed against (interleaved), in row order — a function of its scaling,
/// so a new step needs no entry here: per-tensor steps against cuBLASLt's fast accumulation (all of K
/// in the tensor core, as they do) and its default; block-scaled steps against the block mode and the
/// default per-tensor one (the speed the issue asks block scaling to approach).
fn baselines_of(step: &Step) -> &'static [Baseline] {
    match step.scaling {
        Scaling::PerTensor => &[Baseline::PerTensorFast, Baseline::PerTensor],
        Scaling::Block => &[Baseline::Block, Baseline::PerTensor],
    }
}

/// One shape's quantized operands, both scalings.
struct Operands {
    a: [Fp8Matrix; 2],
    b: [Fp8Matrix; 2],
    /// cuBLASLt's copies of the block scales (its layout pads to 4), A's then B's.
    lt_block_scales: (CudaSlice<f32>, CudaSlice<f32>),
}

impl Operands {
    /// Another copy of the same values on the device (device-to-device copies on the stream).
    fn copied(&self) -> Operands {
        let m = |x: &Fp8Matrix| Fp8Matrix { q: x.q.clone(), scales: x.scales.clone(), ..*x };
        Operands { a: [m(&self.a[0]), m(&self.a[1])], b: [m(&self.b[0]), m(&self.b[1])], lt_block_scales: self.lt_block_scales.clone() }
    }
}

fn idx(s: Scaling) -> usize {
    (s == Scaling::Block) as usize
}

/// The inputs of `s`: f32 A (M×K) and B (N×K) from `dist` on the device, quantized both ways (the f32
/// buffers are returned too: the device reference dequantizes into them).
fn operands(gpu: &Gpu, s: Shape, seed: u64, dist: Dist) -> Result<(Operands, CudaSlice<f32>, CudaSlice<f32>)> {
    let seed = seed ^ (s.m * 31 + s.n * 7 + s.k) as u64;
    let a32: CudaSlice<f32> = device_check::random(gpu, s.m * s.k, ElemKind::F32, dist, seed)?;
    let b32: CudaSlice<f32> = device_check::random(gpu, s.n * s.k, ElemKind::F32, dist, seed ^ 0x5EED_B)?;
    let q = |x: &CudaSlice<f32>, rows, sc, op| fp8::quantize(gpu, x, rows, s.k, sc, op);
    let a = [q(&a32, s.m, Scaling::PerTensor, Operand::A)?, q(&a32, s.m, Scaling::Block, Operand::A)?];
    let b = [q(&b32, s.n, Scaling::PerTensor, Operand::B)?, q(&b32, s.n, Scaling::Block, Operand::B)?];
    let (la, lb) = cublas_block_scales(s.m, s.n, s.k, &gpu.download(&a[1].scales)?, &gpu.download(&b[1].scales)?);
    let lt_block_scales = (gpu.upload(&la)?, gpu.upload(&lb)?);
    Ok((Operands { a, b, lt_block_scales }, a32, b32))
}

/// One scaling's operands of `s` for the autotuner (`crate::tune`): f32 A (M×K) and B (N×K) from the
/// device RNG, quantized with `scaling`, and the f32 buffers (the device reference dequantizes into them).
pub(crate) fn operands_of(gpu: &Gpu, s: Shape, scaling: Scaling, seed: u64) -> Result<(Fp8Matrix, Fp8Matrix, CudaSlice<f32>, CudaSlice<f32>)> {
    let a32: CudaSlice<f32> = device_check::random(gpu, s.m * s.k, ElemKind::F32, Dist::Symmetric, seed)?;
    let b32: CudaSlice<f32> = device_check::random(gpu, s.n * s.k, ElemKind::F32, Dist::Symmetric, seed ^ 0x5EED_B)?;
    let a = fp8::quantize(gpu, &a32, s.m, s.k, scaling, Operand::A)?;
    let b = fp8::quantize(gpu, &b32, s.n, s.k, scaling, Operand::B)?;
    Ok((a, b, a32, b32))
}

/// The reference of the operands `a`, `b`: f64 on the CPU (small shapes) or, on the device, the inputs
/// dequantized into `a32`/`b32` and multiplied by `cublasSgemm` (no TF32), rounded to bf16.
pub(crate) fn reference(gpu: &Gpu, blas: Option<&CudaBlas>, s: Shape, a: &Fp8Matrix, b: &Fp8Matrix, a32: &mut CudaSlice<f32>, b32: &mut CudaSlice<f32>) -> Result<Reference<u16>> {
    if gemm::cpu_reference(s) {
        return Ok(Reference::Host(fp8::reference_f64(gpu, a, b)?));
    }
    let blas = blas.ok_or_else(|| Error::NoGpu(format!("{s} is too large for the CPU reference and cuBLAS (its device reference) is unavailable")))?;
    fp8::dequantize(gpu, a, a32)?;
    fp8::dequantize(gpu, b, b32)?;
    let mut c32 = gpu.zeros::<f32>(s.m * s.n)?;
    let (alpha, beta) = (1.0f32, 0.0f32);
    {
        let (pa, _ga) = a32.device_ptr(&gpu.stream);
        let (pb, _gb) = b32.device_ptr(&gpu.stream);
        let (pc, _gc) = c32.device_ptr_mut(&gpu.stream);
        // SAFETY: column-major view of the row-major product: Cᵀ (N×M, ld N) = op(B: K×N col-major, ld K)ᵀ ·
        // (A: K×M col-major, ld K) — b32 holds N·K f32, a32 M·K, c32 M·N (allocated above); host scalars
        // read before the call returns.
        unsafe {
            blas_sys::cublasSgemm_v2(*blas.handle(), blas_sys::cublasOperation_t::CUBLAS_OP_T, blas_sys::cublasOperation_t::CUBLAS_OP_N,
                s.n as i32, s.m as i32, s.k as i32, &alpha, pb as *const f32, s.k as i32, pa as *const f32, s.k as i32, &beta, pc as *mut f32, s.n as i32)
        }.result().map_err(|source| Error::Cublas { what: format!("cublasSgemm (FP8 reference) {s}"), source })?;
    }
    let mut c16 = gpu.zeros::<u16>(s.m * s.n)?;
    fp8::to_bf16(gpu, &c32, &mut c16)?;
    gpu.sync_after("fp8 reference")?;
    Ok(Reference::Device(c16))
}

pub(crate) fn bf16_to_f64(x: u16) -> f64 {
    half::bf16::from_bits(x).to_f64()
}

/// Runs cuBLASLt in configuration `bl` on the operands.
fn run_baseline(lt: &CublasLtFp8, gpu: &Gpu, s: Shape, ops: &Operands, bl: Baseline, c: &mut CudaSlice<u16>) -> Result<()> {
    let (a, b) = (&ops.a[idx(bl.scaling())], &ops.b[idx(bl.scaling())]);
    match bl {
        Baseline::Block => lt.matmul(gpu, s.m, s.n, s.k, &a.q, &b.q, &ops.lt_block_scales.0, &ops.lt_block_scales.1, c, Fp8Scaling::Block, false),
        _ => lt.matmul(gpu, s.m, s.n, s.k, &a.q, &b.q, &a.scales, &b.scales, c, Fp8Scaling::PerTensor, bl == Baseline::PerTensorFast),
    }
}

/// Device bytes of one shape: f32 inputs, two quantized copies, scales, C, and the device reference
/// (f32 and bf16 C).
pub fn memory_bytes(s: Shape) -> u64 {
    let (a, b, c) = ((s.m * s.k) as u64, (s.n * s.k) as u64, (s.m * s.n) as u64);
    4 * (a + b) + 2 * (a + b) + 3 * (a + b) / 128 * 4 + 2 * c + 4 * c + 2 * c + (1 << 20)
}

/// cuBLAS for the reference of large shapes (`cublasSgemm` on the dequantized inputs), in its DEFAULT
/// math mode (no TF32); `None` where the library is absent (the reference then stays on the CPU, or the
/// shape is refused).
pub(crate) fn reference_blas(gpu: &Gpu) -> Result<Option<CudaBlas>> {
    // SAFETY: only tries to dlopen libcublas.
    let blas = if unsafe { blas_sys::is_culib_present() } { CudaBlas::new(gpu.stream.clone()).ok() } else { None };
    if let Some(b) = &blas {
        // SAFETY: a valid handle; DEFAULT math: no TF32 in the reference.
        unsafe { blas_sys::cublasSetMathMode(*b.handle(), blas_sys::cublasMath_t::CUBLAS_DEFAULT_MATH) }.result()
            .map_err(|source| Error::Cublas { what: "cublasSetMathMode(DEFAULT)".into(), source })?;
    }
    Ok(blas)
}

/// Refuses shape `s` before any allocation if its device bytes ([`memory_bytes`]) or the CPU
/// reference's host bytes do not fit.
pub(crate) fn check_budget(gpu: &Gpu, s: Shape) -> Result<()> {
    let host = if gemm::cpu_reference(s) { 8 * (s.m * s.n + 2 * (s.m + s.n) * s.k) as u64 } else { 1 << 20 };
    crate::runtime::budget::check(gpu, &format!("fp8 {s}"), memory_bytes(s), host)
}

/// Runs the family on every shape of `o`: baselines, then each wanted step verified and timed against
/// its baselines. A step this GPU cannot run, or a shape it declines, gets a row saying why.
pub fn run(gpu: &Gpu, o: &GemmRun, progress: &mut dyn FnMut(&str)) -> Result<Vec<Row>> {
    let lt = CublasLtFp8::new(gpu).map_err(|e| e.to_string());
    let blas = reference_blas(gpu)?;
    let mut rows = vec![];
    for &s in &o.shapes {
        let steps: Vec<&Step> = if o.entry {
            // --entry: the library's step per scaling on this GPU (`gemm_fp8`'s: its costs as calibrated here,
            // else the shipped ones).
            [Scaling::PerTensor, Scaling::Block].into_iter().map(|sc| fp8::default_step(gpu, sc, s.m, s.n, s.k)).collect::<Result<_>>()?
        } else {
            // fw1 and fw2 (not `wgmma` steps: not in STEPS) beside them where they take the shape.
            let weight_only = WEIGHT_ONLY_ROUTES.into_iter().filter(|st| st.rejects(s.m, s.n, s.k).is_none());
            STEPS.iter().chain(weight_only).filter(|st| o.only.as_ref().is_none_or(|v| v.contains(&st.kernel.name))).collect()
        };
        if let Some(why) = steps.first().and_then(|st| gpu.cannot_run(&st.kernel)) {
            for st in &steps {
                let mut r = Row::new(st.kernel.step, st.kernel.name, s, tolerance(st.promotes, s.k), "-");
                r.rejected = Some(why.clone());
                rows.push(r);
            }
            continue;
        }
        // A shape no chosen step takes is one row; a step-specific rule (f15's M % 4) is that step's row below.
        if let Some(why) = steps.iter().map(|st| st.rejects(s.m, s.n, s.k)).collect::<Option<Vec<String>>>().and_then(|w| w.into_iter().next()) {
            let mut r = Row::new("-", "fp8", s, 0.0, "-");
            r.rejected = Some(why);
            rows.push(r);
            continue;
        }
        check_budget(gpu, s)?;
        progress(&format!("fp8 {s}: inputs"));
        let (ops, mut a32, mut b32) = operands(gpu, s, o.seed, Dist::Symmetric)?;
        let mut refs: [Option<Reference<u16>>; 2] = [None, None];
        for sc in [Scaling::PerTensor, Scaling::Block] {
            refs[idx(sc)] = Some(reference(gpu, blas.as_ref(), s, &ops.a[idx(sc)], &ops.b[idx(sc)], &mut a32, &mut b32)?);
        }
        drop((a32, b32));
        let ref_name = if gemm::cpu_reference(s) { "f64 CPU" } else { "f32 cuBLAS" };
        let mut c = gpu.zeros::<u16>(s.m * s.n)?;
        let budget = if o.check { 0.0 } else { 300.0 };
        // Small M is bound by reading the weights (a model's decode): every timing — cuBLASLt's and the
        // steps', alone and interleaved — runs launch i on copy i of the operands, rotated beyond the L2, as
        // a model's layers arrive (the 16-bit entry's timing since session 30). Before session 100 the same
        // weights were read every launch, from the L2 where they fit (`KERNEL_LAB_FP8_SAME_WEIGHTS=1`).
        let same_weights = std::env::var("KERNEL_LAB_FP8_SAME_WEIGHTS").is_ok_and(|v| v.trim() == "1");
        let rotate = if o.check || same_weights || s.m > kernel_lab::gemm::DECODE_MAX_M { 1 } else { rotation_copies(s.n * s.k, gpu.info.l2_bytes) };
        crate::runtime::budget::check(gpu, &format!("fp8 {s}: the operands' {} rotation copies", rotate - 1), (rotate as u64 - 1) * memory_bytes(s) / 2, 0)?;
        let copies: Vec<Operands> = (1..rotate).map(|_| ops.copied()).collect();
        let ops_at = |i: usize| if i % rotate == 0 { &ops } else { &copies[i % rotate - 1] };
        let mut base_ok = [false; 3];
        for (bi, &bl) in Baseline::ALL.iter().enumerate() {
            progress(&format!("fp8 {s}: {}", bl.name()));
            let mut row = Row::new("cuBLAS", bl.name(), s, tolerance(bl.promotes(), s.k), ref_name);
            row.pct_of_cublas = Some(1.0);
            let r = (|| -> Result<()> {
                let lt = lt.as_ref().map_err(|e| Error::NoGpu(e.clone()))?;
                let want = refs[idx(bl.scaling())].as_ref().ok_or_else(|| Error::InvalidInput("reference missing (internal error)".into()))?;
                row.rel_err = Some(gemm::checked(gpu, bl.name(), s, ElemKind::Bf16, bf16_to_f64, &mut c, want, &mut |c| run_baseline(lt, gpu, s, &ops, bl, c))?);
                if !o.check {
                    let t = time_gpu_budget(gpu, o.warmup, o.reps, budget, |i| run_baseline(lt, gpu, s, ops_at(i), bl, &mut c))?;
                    row.tflops = Some(s.flops() / (t.median_ms * 1e-3) / 1e12);
                    row.time = Some(t);
                }
                Ok(())
            })();
            match r {
                Ok(()) => base_ok[bi] = true,
                // cuBLASLt's own shape rules (e.g. N % 16): a documented constraint, not a failure.
                Err(Error::InvalidInput(why)) => row.rejected = Some(why),
                Err(e) => row.error = Some(e.to_string()),
            }
            rows.push(row);
        }
        for st in steps {
            progress(&format!("fp8 {s}: {}", st.kernel.step));
            let (a, b) = (&ops.a[idx(st.scaling)], &ops.b[idx(st.scaling)]);
            let tol = tolerance(st.promotes, s.k);
            let mut first = Row::new(st.kernel.step, st.kernel.name, s, tol, ref_name);
            if let Some(why) = st.rejects(s.m, s.n, s.k) {
                first.rejected = Some(why);
                rows.push(first);
                continue;
            }
            let prepared = (|| -> Result<(Vec<Fp8Gemm>, f64)> {
                // One launch's state per operand copy (the tensor maps name the copy's B).
                let g = (0..rotate).map(|i| Fp8Gemm::new(gpu, st, &ops_at(i).a[idx(st.scaling)], &ops_at(i).b[idx(st.scaling)], &c)).collect::<Result<Vec<_>>>()?;
                let want = refs[idx(st.scaling)].as_ref().ok_or_else(|| Error::InvalidInput("reference missing (internal error)".into()))?;
                let err = gemm::checked(gpu, st.kernel.name, s, ElemKind::Bf16, bf16_to_f64, &mut c, want, &mut |c| g[0].run(gpu, a, b, c))?;
                Ok((g, err))
            })();
            let (g, err) = match prepared {
                Ok(x) => x,
                Err(e) => {
                    first.error = Some(e.to_string());
                    rows.push(first);
                    continue;
                }
            };
            if let Ok(k) = gpu.kernel(st.kernel.name) {
                if let Ok(res) = k.resources() {
                    (first.registers, first.local_bytes) = (Some(res.registers), Some(res.local_bytes));
                }
            }
            first.rel_err = Some(err);
            if o.check {
                rows.push(first);
                continue;
            }
            // f21: how many of its clusters the GPU holds at once, beside the grid (a second wave costs a whole split).
            let resident = match (st.cluster_split, crate::steps::fp8::F21_CLUSTERS.iter().position(|&c| c == st.cluster)) {
                (true, Some(i)) => fp8::f21_resident(gpu).map(|r| format!(", {} clusters resident of {r:?}", r[i])).unwrap_or_default(),
                _ => String::new(),
            };
            for &bl in baselines_of(st) {
                let mut row = first.clone();
                row.kernel = format!("{} (grid {}{resident}) vs {}", st.kernel.name, g[0].grid(), bl.name().trim_start_matches("cublasLt e4m3 "));
                let r = (|| -> Result<()> {
                    let t = match (&lt, base_ok[Baseline::ALL.iter().position(|x| *x == bl).unwrap_or(0)]) {
                        (Ok(lt), true) => {
                            let (t, tb) = time_pair(gpu, o.warmup, o.reps, 2.0 * budget, |i, base| {
                                let (oi, j) = (ops_at(i), i % rotate);
                                if base { run_baseline(lt, gpu, s, oi, bl, &mut c) } else { g[j].run(gpu, &oi.a[idx(st.scaling)], &oi.b[idx(st.scaling)], &mut c) }
                            })?;
                            row.pct_of_cublas = Some(tb.median_ms / t.median_ms);
                            row.baseline_paired = Some(tb);
                            t
                        }
                        _ => time_gpu_budget(gpu, o.warmup, o.reps, budget, |i| {
                            let oi = ops_at(i);
                            g[i % rotate].run(gpu, &oi.a[idx(st.scaling)], &oi.b[idx(st.scaling)], &mut c)
                        })?,
                    };
                    row.tflops = Some(s.flops() / (t.median_ms * 1e-3) / 1e12);
                    row.time = Some(t);
                    Ok(())
                })();
                if let Err(e) = r {
                    row.error = Some(e.to_string());
                }
                rows.push(row);
            }
        }
    }
    Ok(rows)
}

/// One scaling's entry rows against one cuBLASLt baseline (`--entry`): the baseline's time over the
/// step's (above 1: the step is faster), one ratio per distinct shape.
#[derive(Clone, Debug, serde::Serialize)]
pub struct EntrySummary {
    /// The steps' scaling.
    pub scaling: String,
    /// The baseline's name.
    pub baseline: &'static str,
    /// Shapes timed (not failed).
    pub timed: usize,
    /// The geometric mean of the ratios (1.0: the baseline's speed).
    pub geomean: f64,
    /// Shapes at or above 0.90.
    pub at_least_90: usize,
    /// Every shape under 0.85, lowest first: step, shape, ratio.
    pub under_85: Vec<(String, String, f64)>,
    /// The lowest: step, shape, ratio.
    pub lowest: (String, String, f64),
}

/// The `--entry` table's summaries, one per scaling and baseline its steps were timed against (rows
/// of [`run`] with `entry`: each names its kernel, then ` vs ` and the baseline). A shape listed twice
/// counts once (its first row).
pub fn entry_summary(rows: &[Row]) -> Vec<EntrySummary> {
    let step_of = |kernel: &str| STEPS.iter().chain(WEIGHT_ONLY_ROUTES).find(|st| kernel.split(' ').next() == Some(st.kernel.name));
    let mut out = vec![];
    for sc in [Scaling::PerTensor, Scaling::Block] {
        for &bl in Baseline::ALL.iter() {
            let short = bl.name().trim_start_matches("cublasLt e4m3 ");
            let mut r: Vec<(String, String, f64)> = rows.iter()
                .filter(|r| !r.failed() && r.baseline_paired.is_some() && r.kernel.rsplit(" vs ").next() == Some(short))
                .filter(|r| step_of(&r.kernel).is_some_and(|st| st.scaling == sc))
                .filter_map(|r| r.pct_of_cublas.filter(|p| p.is_finite() && *p > 0.0).map(|p| (r.step.clone(), r.shape.to_string(), p)))
                .collect();
            let mut seen = std::collections::HashSet::new();
            r.retain(|t| seen.insert(t.1.clone()));
            if r.is_empty() {
                continue;
            }
            r.sort_by(|a, b| a.2.total_cmp(&b.2));
            out.push(EntrySummary {
                scaling: format!("{sc:?}"),
                baseline: bl.name(),
                timed: r.len(),
                geomean: (r.iter().map(|t| t.2.ln()).sum::<f64>() / r.len() as f64).exp(),
                at_least_90: r.iter().filter(|t| t.2 >= 0.9).count(),
                under_85: r.iter().filter(|t| t.2 < 0.85).cloned().collect(),
                lowest: r[0].clone(),
            });
        }
    }
    out
}

/// [`entry_summary`] as the lines printed under the `--entry` table.
pub fn entry_summary_text(sums: &[EntrySummary]) -> String {
    let row = |t: &(String, String, f64)| format!("{} {} {:.3}", t.0, t.1, t.2);
    let mut out = String::new();
    for s in sums {
        out += &format!("summary: {} steps vs {}: geometric mean {:.3}× over {} shapes, {} ({:.1}%) at or above 0.90×, lowest {}\n  under 0.85×: {}\n",
            s.scaling, s.baseline, s.geomean, s.timed, s.at_least_90, 100.0 * s.at_least_90 as f64 / s.timed as f64, row(&s.lowest),
            if s.under_85.is_empty() { "none".into() } else { s.under_85.iter().map(row).collect::<Vec<_>>().join(", ") });
    }
    out
}

/// Steps `a` and `b` (one scaling) head to head on each shape of `o`: both verified against the
/// reference of the dequantized inputs (as [`run`]), then timed interleaved in `rounds` rounds of blocks
/// (`timing::time_pair_rounds`, as the GEMM families' `ab`).
pub fn ab(gpu: &Gpu, o: &GemmRun, a: &'static Step, b: &'static Step, rounds: usize) -> Result<Vec<gemm::AbRow>> {
    if a.scaling != b.scaling {
        return Err(Error::InvalidInput(format!("ab: {} takes {:?}-scaled operands and {} {:?}: compare steps of one scaling", a.kernel.step, a.scaling, b.kernel.step, b.scaling)));
    }
    let blas = reference_blas(gpu)?;
    let mut out = vec![];
    for &s in &o.shapes {
        for st in [a, b] {
            if let Some(why) = st.rejects(s.m, s.n, s.k).or_else(|| gpu.cannot_run(&st.kernel)) {
                return Err(Error::InvalidInput(format!("ab: {} on {s}: {why}", st.kernel.step)));
            }
        }
        check_budget(gpu, s)?;
        let (ops, mut a32, mut b32) = operands(gpu, s, o.seed, Dist::Symmetric)?;
        let want = reference(gpu, blas.as_ref(), s, &ops.a[idx(a.scaling)], &ops.b[idx(a.scaling)], &mut a32, &mut b32)?;
        drop((a32, b32));
        let reference_name = if gemm::cpu_reference(s) { "f64 CPU" } else { "f32 cuBLAS" };
        let (qa, qb) = (&ops.a[idx(a.scaling)], &ops.b[idx(a.scaling)]);
        let mut c = gpu.zeros::<u16>(s.m * s.n)?;
        let (ga, gb) = (Fp8Gemm::new(gpu, a, qa, qb, &c)?, Fp8Gemm::new(gpu, b, qa, qb, &c)?);
        let mut errs = [0.0; 2];
        for (i, (st, g)) in [(a, &ga), (b, &gb)].into_iter().enumerate() {
            errs[i] = gemm::checked(gpu, st.kernel.name, s, ElemKind::Bf16, bf16_to_f64, &mut c, &want, &mut |c| g.run(gpu, qa, qb, c))?;
            let tol = tolerance(st.promotes, s.k);
            if !(errs[i] <= tol) {
                return Err(Error::Verification(format!("{} on {s}: relative L2 error {:.2e} against {reference_name} (tolerance {tol:.1e})", st.kernel.name, errs[i])));
            }
        }
        let per_round = crate::runtime::timing::time_pair_rounds(gpu, o.warmup, o.reps, 4000.0, rounds, |_, second| {
            if second { gb.run(gpu, qa, qb, &mut c) } else { ga.run(gpu, qa, qb, &mut c) }
        })?;
        out.push(gemm::AbRow { shape: s, a: (a.kernel.step.into(), a.kernel.name.into()), b: (b.kernel.step.into(), b.kernel.name.into()),
                               times: crate::runtime::timing::AbTimes::from_rounds(per_round), rel_err: (errs[0], errs[1]), reference: reference_name.into() });
    }
    Ok(out)
}

/// One row of the promotion study: relative L2 errors at one K.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PromotionRow {
    /// M = N.
    pub mn: usize,
    /// K.
    pub k: usize,
    /// The inputs' distribution.
    pub dist: String,
    /// f1 (all of K in the tensor core) on per-tensor operands.
    pub f1: f64,
    /// f2 (promotion every 128) on the same per-tensor operands, their scale repeated as block scales.
    pub f2: f64,
    /// cuBLASLt per tensor, fast accumulation.
    pub lt_fast: Option<f64>,
    /// cuBLASLt per tensor, default accumulation.
    pub lt_default: Option<f64>,
}

/// Why promotion exists: the same per-tensor operands (M = N = `mn`) multiplied by f1 (no promotion)
/// and by f2 (promotion; the per-tensor scale repeated into its block-scale arrays), and by cuBLASLt in
/// both accumulation modes, each compared with the f64 reference, for each K of `ks`, on inputs from
/// `dist` (positive inputs do not cancel: the tensor core's rounding shows most there).
pub fn promotion_study(gpu: &Gpu, mn: usize, ks: &[usize], dist: Dist, seed: u64) -> Result<Vec<PromotionRow>> {
    let lt = CublasLtFp8::new(gpu).ok();
    let mut out = vec![];
    for &k in ks {
        let s = Shape::new(mn, mn, k)?;
        let seed = seed ^ (k as u64) << 20;
        let a32: CudaSlice<f32> = device_check::random(gpu, mn * k, ElemKind::F32, dist, seed)?;
        let b32: CudaSlice<f32> = device_check::random(gpu, mn * k, ElemKind::F32, dist, seed ^ 0x5EED_B)?;
        let a = fp8::quantize(gpu, &a32, mn, k, Scaling::PerTensor, Operand::A)?;
        let b = fp8::quantize(gpu, &b32, mn, k, Scaling::PerTensor, Operand::B)?;
        let want = Reference::Host(fp8::reference_f64(gpu, &a, &b)?);
        // The same bytes as block-scaled operands: every block scale = the tensor's scale.
        let block = |m: &Fp8Matrix, op: Operand| -> Result<Fp8Matrix> {
            let s0 = gpu.download(&m.scales)?[0];
            let scales = gpu.upload(&vec![s0; Fp8Matrix::scale_len(Scaling::Block, op, m.rows, m.cols)])?;
            let mut q = gpu.zeros::<u8>(m.q.len())?;
            gpu.stream.memcpy_dtod(&m.q, &mut q).map_err(|source| Error::Driver { what: "copying FP8 bytes".into(), source })?;
            Ok(Fp8Matrix { q, scales, rows: m.rows, cols: m.cols, scaling: Scaling::Block, operand: op })
        };
        let (ab, bb) = (block(&a, Operand::A)?, block(&b, Operand::B)?);
        let mut c = gpu.zeros::<u16>(mn * mn)?;
        let g1 = Fp8Gemm::new(gpu, &crate::steps::fp8::F1, &a, &b, &c)?;
        let g2 = Fp8Gemm::new(gpu, &crate::steps::fp8::F2, &ab, &bb, &c)?;
        let mut err = |name: &str, run: &mut dyn FnMut(&mut CudaSlice<u16>) -> Result<()>| -> Result<f64> {
            gemm::checked(gpu, name, s, ElemKind::Bf16, bf16_to_f64, &mut c, &want, run)
        };
        let f1 = err("fp8_gemm_v1", &mut |c| g1.run(gpu, &a, &b, c))?;
        let f2 = err("fp8_gemm_v2", &mut |c| g2.run(gpu, &ab, &bb, c))?;
        let (mut lt_fast, mut lt_default) = (None, None);
        if let Some(lt) = &lt {
            lt_fast = err("cublasLt fast", &mut |c| lt.matmul(gpu, mn, mn, k, &a.q, &b.q, &a.scales, &b.scales, c, Fp8Scaling::PerTensor, true)).ok();
            lt_default = err("cublasLt", &mut |c| lt.matmul(gpu, mn, mn, k, &a.q, &b.q, &a.scales, &b.scales, c, Fp8Scaling::PerTensor, false)).ok();
        }
        out.push(PromotionRow { mn, k, dist: format!("{dist:?}"), f1, f2, lt_fast, lt_default });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_step_has_baselines_and_tolerances_grow_only_without_promotion() {
        for st in STEPS {
            assert!(!baselines_of(st).is_empty(), "{}", st.kernel.step);
            assert!(baselines_of(st).iter().all(|b| b.scaling() == st.scaling || *b == Baseline::PerTensor), "{}", st.kernel.step);
        }
        assert_eq!(tolerance(true, 1 << 20), TOL_PROMOTED);
        assert!(tolerance(false, 4096) > tolerance(false, 1024) && tolerance(false, 32) > TOL_PROMOTED);
        for &(m, n, k) in SWEEP.iter().chain(CHECK_SHAPES) {
            let s = Shape::new(m, n, k).unwrap();
            // Every step takes every shape but for f15's M % 4 (its scale map's row stride).
            assert!(STEPS.iter().all(|st| st.rejects(m, n, k).is_none() || (st.scale_map && m % 4 != 0)), "{s}");
            assert!(memory_bytes(s) > (6 * (m + n) * k) as u64);
        }
    }

    #[test]
    fn the_entry_summary_groups_by_scaling_and_baseline() {
        use crate::{runtime::timing::Stats, steps::fp8::{F14, F16}};
        let paired = Stats { median_ms: 1.0, min_ms: 1.0, max_ms: 1.0, reps: 4, ended_unix_ms: 0, blocks_unix_ms: vec![] };
        let row = |st: &Step, bl: Baseline, m: usize, pct: f64| {
            let mut r = Row::new(st.kernel.step, st.kernel.name, Shape::new(m, 4096, 4096).unwrap(), 1e-3, "f32 cuBLAS");
            r.kernel = format!("{} (grid 132) vs {}", st.kernel.name, bl.name().trim_start_matches("cublasLt e4m3 "));
            (r.pct_of_cublas, r.baseline_paired) = (Some(pct), Some(paired.clone()));
            r
        };
        let mut failed = row(&F14, Baseline::PerTensor, 512, 0.1);
        failed.error = Some("mismatch".into());
        // A block-mode row cuBLASLt declined: named, not timed (no ratio), not counted.
        let mut declined = row(&F16, Baseline::Block, 2048, 1.0);
        (declined.pct_of_cublas, declined.baseline_paired) = (None, None);
        let rows = vec![row(&F14, Baseline::PerTensorFast, 256, 0.8), row(&F14, Baseline::PerTensor, 256, 1.0), row(&F14, Baseline::PerTensor, 1024, 0.81),
                        row(&F16, Baseline::Block, 256, 1.2), row(&F16, Baseline::PerTensor, 256, 0.9), failed, declined,
                        // The same shape drawn twice: counted once.
                        row(&F14, Baseline::PerTensor, 1024, 0.5)];
        let sums = entry_summary(&rows);
        let find = |sc: &str, bl: Baseline| sums.iter().find(|s| s.scaling == sc && s.baseline == bl.name()).unwrap();
        let t = find("PerTensor", Baseline::PerTensor);
        assert_eq!((t.timed, t.at_least_90, t.under_85.len()), (2, 1, 1), "the failed row is not counted");
        assert!((t.geomean - (1.0f64 * 0.81).sqrt()).abs() < 1e-12);
        assert_eq!(t.lowest, ("f14".to_string(), "1024x4096x4096".to_string(), 0.81), "a repeated shape's first row");
        assert_eq!(find("PerTensor", Baseline::PerTensorFast).timed, 1);
        let b = find("Block", Baseline::PerTensor);
        assert_eq!((b.timed, b.at_least_90), (1, 1), "the block step's row against the per-tensor mode is the block's");
        assert_eq!((find("Block", Baseline::Block).geomean, find("Block", Baseline::Block).timed), (1.2, 1), "the declined row is not counted");
        assert_eq!(sums.len(), 4);
        assert!(entry_summary_text(&sums).contains("under 0.85×: f14 1024x4096x4096 0.810"));
    }
}

//! The GEMM measurement loop shared by SGEMM and HGEMM: the [`Shape`] type, every step of a family at
//! every shape, verified against an f64 CPU reference (small shapes) or the cuBLAS baseline (large),
//! timed against that baseline in the same run ([`run`]), and two steps head to head ([`ab`]). A
//! family plugs in through [`GemmFamily`]; its steps are its descriptors (`steps::sgemm`, `steps::hgemm`).
use std::fmt::Write as _;

use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};

use crate::{
    error::{Error, Result},
    model::traces::BlockCost,
    runtime::{
        device_check::{self, Comparison, Dist, ElemKind},
        gpu::{Gpu, Kernel},
        timing::{Stats, time_gpu_budget, time_pair, time_pair_rounds},
        verify,
    },
    steps::gemm::GemmStep,
};

pub use kernel_lab::gemm::Shape;

/// `C = A · B` in f64 on the CPU (all cores), row-major, from inputs already widened to f32.
pub fn reference_f64(a: &[f32], b: &[f32], s: Shape) -> Vec<f64> {
    let mut c = vec![0.0f64; s.m * s.n];
    let threads = std::thread::available_parallelism().map(|t| t.get()).unwrap_or(1).min(s.m).max(1);
    let rows_per = s.m.div_ceil(threads);
    std::thread::scope(|scope| {
        for (t, chunk) in c.chunks_mut(rows_per * s.n).enumerate() {
            scope.spawn(move || {
                let mut row = vec![0.0f64; s.n];
                for (r, out) in chunk.chunks_mut(s.n).enumerate() {
                    let i = t * rows_per + r;
                    row.iter_mut().for_each(|x| *x = 0.0);
                    for kk in 0..s.k {
                        let av = a[i * s.k + kk] as f64;
                        let brow = &b[kk * s.n..(kk + 1) * s.n];
                        for (x, &bv) in row.iter_mut().zip(brow) {
                            *x += av * bv as f64;
                        }
                    }
                    out.copy_from_slice(&row);
                }
            });
        }
    });
    c
}

/// What one measurement run covers (the suite's options, as the library sees them).
#[derive(Clone, Debug)]
pub struct GemmRun {
    /// Shapes, in order.
    pub shapes: Vec<Shape>,
    /// Timed repetitions per measurement (a cap: timing also stops at a time budget).
    pub reps: usize,
    /// Untimed warm-up runs per measurement.
    pub warmup: usize,
    /// Verify only, no timing.
    pub check: bool,
    /// Random seed of the inputs.
    pub seed: u64,
    /// Only these kernels (PTX names); `None`: every step of the family.
    pub only: Option<Vec<&'static str>>,
    /// The fp8 family: per shape only the library's step for each scaling (`fp8::default_step`, what
    /// `gemm_fp8` runs) instead of every step `only` admits.
    pub entry: bool,
}

impl GemmRun {
    /// Whether `step` is to run.
    pub fn wants<T>(&self, step: &GemmStep<T>) -> bool {
        self.only.as_ref().is_none_or(|v| v.contains(&step.kernel.name))
    }
}

/// Largest `M·N·K` checked against the f64 CPU reference; above, against the baseline.
const CPU_REF_MAX: f64 = 1.2e9;

/// What a GEMM family provides to the shared loop.
pub trait GemmFamily {
    /// Element type of A, B and C in device memory.
    type Elem: DeviceRepr + ValidAsZeroBits + Default + Clone + Copy;
    /// The family's bank-model trace description (`steps::sgemm::Trace`, …).
    type Trace: Copy + 'static;
    /// The baseline library handle.
    type Baseline;
    /// The family's name in progress messages.
    const NAME: &'static str;
    /// Ragged shapes `--check` adds.
    const CHECK_SHAPES: &'static [(usize, usize, usize)];
    /// Relative L2 tolerance of `step`'s output on `shape` against the reference.
    fn tolerance(step: &GemmStep<Self::Trace>, shape: Shape) -> f64;
    /// The baseline's name in the table.
    const BASELINE: &'static str;
    /// Every step of this table, in ladder order.
    fn steps() -> Vec<&'static GemmStep<Self::Trace>>;
    /// How `Elem` stores a number (which device fill and compare kernels apply).
    const KIND: ElemKind;
    /// The element that marks "not written" (a NaN pattern).
    fn poison() -> Self::Elem;
    /// As f64 (NaN stays NaN).
    fn to_f64(x: Self::Elem) -> f64;
    /// `A · B` in f64.
    fn reference(a: &[Self::Elem], b: &[Self::Elem], s: Shape) -> Vec<f64>;
    /// The baseline handle, if the library is present.
    fn baseline(gpu: &Gpu) -> Result<Self::Baseline>;
    /// Enqueues `c = a · b` with the baseline.
    fn run_baseline(bl: &Self::Baseline, gpu: &Gpu, s: Shape, a: &CudaSlice<Self::Elem>, b: &CudaSlice<Self::Elem>, c: &mut CudaSlice<Self::Elem>) -> Result<()>;
    /// Enqueues `c = a · b` with a step (an error naming the rule for shapes it declines).
    fn launch(gpu: &Gpu, k: &Kernel, s: &GemmStep<Self::Trace>, shape: Shape, a: &CudaSlice<Self::Elem>, b: &CudaSlice<Self::Elem>, c: &mut CudaSlice<Self::Elem>) -> Result<()>;
    /// The bank model's prediction for one launch.
    fn predicted(s: &GemmStep<Self::Trace>, shape: Shape) -> Option<BlockCost>;
}

/// One row.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Row {
    /// `v0` … or `cuBLAS`.
    pub step: String,
    /// Kernel or call.
    pub kernel: String,
    /// The shape.
    pub shape: Shape,
    /// GPU time.
    pub time: Option<Stats>,
    /// TFLOP/s from the median.
    pub tflops: Option<f64>,
    /// The baseline's speed over this step's, both timed interleaved in blocks (`timing::time_pair`): the
    /// baseline's paired median time over this step's paired median time.
    pub pct_of_cublas: Option<f64>,
    /// The baseline's times from the interleaved measurement behind `pct_of_cublas` (steps only).
    pub baseline_paired: Option<Stats>,
    /// Over the previous step's time.
    pub speedup_vs_prev: Option<f64>,
    /// Relative L2 error.
    pub rel_err: Option<f64>,
    /// The tolerance `rel_err` is held to.
    pub tolerance: f64,
    /// What the error was measured against (`f64 CPU` or `cuBLAS`).
    pub reference: String,
    /// Registers per thread.
    pub registers: Option<i32>,
    /// Local memory per thread.
    pub local_bytes: Option<i32>,
    /// Shared memory per block (dynamic as registered + static as the driver reports), bytes.
    pub smem_bytes: Option<u32>,
    /// Blocks that fit on one SM at once (the driver's occupancy query): what latency hiding can count on.
    pub blocks_per_sm: Option<u32>,
    /// What failed.
    pub error: Option<String>,
    /// Why the step declined the shape (a documented constraint, not a failure).
    pub rejected: Option<String>,
    /// Bytes moved (A, B and C once) per second at the median time, where the family reports it (the
    /// `gemm` family at small M: the weights' bandwidth is the bound there).
    pub gbps: Option<f64>,
    /// The row's bandwidth over a device copy's of the same weights (read + written), the two timed
    /// interleaved in the same blocks (the `gemm` family's `against_copy`).
    pub pct_of_copy: Option<f64>,
    /// The bank model's prediction for the launch: shared loads and stores.
    pub predicted: Option<BlockCost>,
    /// A remark printed under the table (h8: its clusters and how many fit at once).
    pub note: Option<String>,
}

impl Row {
    pub(crate) fn new(step: &str, kernel: &str, shape: Shape, tolerance: f64, reference: &str) -> Row {
        Row { step: step.into(), kernel: kernel.into(), shape, time: None, tflops: None, pct_of_cublas: None, baseline_paired: None, speedup_vs_prev: None,
              rel_err: None, tolerance, reference: reference.into(), registers: None, local_bytes: None, smem_bytes: None, blocks_per_sm: None, error: None, rejected: None,
              predicted: None, gbps: None, pct_of_copy: None, note: None }
    }

    /// Whether verification failed (the baseline's row never fails the run).
    pub fn failed(&self) -> bool {
        self.step != "cuBLAS" && (self.error.is_some() || self.rel_err.is_some_and(|e| !(e <= self.tolerance)))
    }
}

/// What a step's output is checked against: the f64 CPU reference on the host (small shapes), or the
/// baseline's output left on the device (large shapes: compared there, only scalars come back).
pub(crate) enum Reference<E> {
    Host(Vec<f64>),
    Device(CudaSlice<E>),
}

/// Poisons `d_c`, runs `step` on `s`, and checks C against `want`: every element written (the poison is
/// a NaN pattern) and the relative L2 error, which it returns.
fn run_checked<F: GemmFamily>(gpu: &Gpu, k: &Kernel, step: &GemmStep<F::Trace>, s: Shape, d_a: &CudaSlice<F::Elem>, d_b: &CudaSlice<F::Elem>,
                              d_c: &mut CudaSlice<F::Elem>, want: &Reference<F::Elem>) -> Result<f64> {
    checked(gpu, k.name(), s, F::KIND, F::to_f64, d_c, want, &mut |c| F::launch(gpu, k, step, s, d_a, d_b, c))
}

/// Poisons `d_c`, enqueues `launch(d_c)` (which runs `name`), and checks C against `want`; returns the
/// relative L2 error.
#[allow(clippy::too_many_arguments)]
pub(crate) fn checked<E: DeviceRepr + Default + Clone>(gpu: &Gpu, name: &str, s: Shape, kind: ElemKind, to_f64: fn(E) -> f64, d_c: &mut CudaSlice<E>,
                                                       want: &Reference<E>, launch: &mut dyn FnMut(&mut CudaSlice<E>) -> Result<()>) -> Result<f64> {
    gpu.poison(d_c)?;
    launch(d_c)?;
    gpu.sync_after(name)?;
    let what = format!("{name} on {s}");
    match want {
        Reference::Host(w) => {
            let c: Vec<f64> = gpu.download(d_c)?.into_iter().map(to_f64).collect();
            match c.iter().position(|v| v.is_nan()) {
                Some(i) => Err(Error::Verification(format!("{what}: output not fully written (first NaN at {i})"))),
                None => Ok(verify::rel_l2(&c, w)),
            }
        }
        Reference::Device(w) => {
            let cmp: Comparison = device_check::compare(gpu, d_c, w, kind)?;
            cmp.check(&what, s.m * s.n, f64::INFINITY)?;
            Ok(cmp.rel_l2)
        }
    }
}

/// Whether `s` is checked against the f64 CPU reference (its inputs then come to the host once).
pub fn cpu_reference(s: Shape) -> bool {
    s.flops() / 2.0 <= CPU_REF_MAX
}

/// Device and host bytes one shape needs: A, B, C on the device, plus the baseline's C kept there as
/// the reference where the shape is beyond the CPU reference; on the host, for a CPU-checked shape, A
/// and B (as elements and widened), the f64 reference and one downloaded C with its f64 copy — and
/// nothing that grows with the shape otherwise (inputs are generated on the device).
pub fn memory_bytes(elem: u64, s: Shape) -> (u64, u64) {
    let (a, b, c) = ((s.m * s.k) as u64, (s.k * s.n) as u64, (s.m * s.n) as u64);
    if cpu_reference(s) {
        ((a + b + c) * elem, (a + b) * (elem + 4) + c * (8 + elem + 8))
    } else {
        ((a + b + 2 * c) * elem, 1 << 20)
    }
}

/// Refuses `s` up front when it does not fit in free device memory or available host memory
/// ([`memory_bytes`]).
fn check_memory<F: GemmFamily>(gpu: &Gpu, family: &str, s: Shape) -> Result<()> {
    let (device, host) = memory_bytes(std::mem::size_of::<F::Elem>() as u64, s);
    crate::runtime::budget::check(gpu, &format!("{family} {s}"), device, host)
}

/// A and B of `s`, generated on the device from `seed` (uniform in [-1, 1), rounded to the element).
pub(crate) fn inputs<F: GemmFamily>(gpu: &Gpu, s: Shape, seed: u64) -> Result<(CudaSlice<F::Elem>, CudaSlice<F::Elem>)> {
    let seed = seed ^ (s.m * 31 + s.n * 7 + s.k) as u64;
    Ok((device_check::random(gpu, s.m * s.k, F::KIND, Dist::Symmetric, seed)?,
        device_check::random(gpu, s.k * s.n, F::KIND, Dist::Symmetric, seed ^ 0x5EED_B)?))
}

/// The f64 CPU reference of `s` from the device inputs (downloaded once; small shapes only).
pub(crate) fn host_reference<F: GemmFamily>(gpu: &Gpu, s: Shape, d_a: &CudaSlice<F::Elem>, d_b: &CudaSlice<F::Elem>) -> Result<Vec<f64>> {
    Ok(F::reference(&gpu.download(d_a)?, &gpu.download(d_b)?, s))
}

/// Runs family `F`: the baseline first (its result is the reference for shapes too large for the CPU,
/// kept on the device), then every step `o` wants, each poisoned, checked fully written, compared, and
/// (unless `o.check`) timed interleaved with the baseline. A step that declines a shape (its
/// descriptor's `needs`) or that this GPU cannot run gets a row saying why, not a failure. `progress`
/// hears of each unit of work.
pub fn run<F: GemmFamily>(gpu: &Gpu, o: &GemmRun, progress: &mut dyn FnMut(&str)) -> Result<Vec<Row>> {
    let family = F::NAME;
    let baseline = F::baseline(gpu).ok();
    let mut rows = vec![];
    for &s in &o.shapes {
        check_memory::<F>(gpu, family, s)?;
        progress(&format!("{family} {s}: inputs"));
        let (d_a, d_b) = inputs::<F>(gpu, s, o.seed)?;
        let mut d_c = gpu.zeros::<F::Elem>(s.m * s.n)?;
        let budget = if o.check { 0.0 } else { 300.0 };
        let cpu_ref = cpu_reference(s);
        let mut want: Option<Reference<F::Elem>> = if cpu_ref {
            progress(&format!("{family} {s}: f64 reference"));
            Some(Reference::Host(host_reference::<F>(gpu, s, &d_a, &d_b)?))
        } else {
            None
        };
        let base_tol = F::steps().into_iter().map(|st| F::tolerance(st, s)).fold(0.0, f64::max);
        let mut base = Row::new("cuBLAS", F::BASELINE, s, base_tol, if cpu_ref { "f64 CPU" } else { "(reference)" });
        base.pct_of_cublas = Some(1.0);
        match &baseline {
            Some(bl) => {
                progress(&format!("{family} {s}: {}", F::BASELINE));
                F::run_baseline(bl, gpu, s, &d_a, &d_b, &mut d_c)?;
                gpu.sync_after(F::BASELINE)?;
                match &want {
                    Some(Reference::Host(w)) => {
                        let c: Vec<f64> = gpu.download(&d_c)?.into_iter().map(F::to_f64).collect();
                        base.rel_err = Some(verify::rel_l2(&c, w));
                    }
                    _ => want = Some(Reference::Device(d_c.clone())),
                }
                if !o.check {
                    let t = time_gpu_budget(gpu, o.warmup, o.reps, budget, |_| F::run_baseline(bl, gpu, s, &d_a, &d_b, &mut d_c))?;
                    base.tflops = Some(s.flops() / (t.median_ms * 1e-3) / 1e12);
                    base.time = Some(t);
                }
            }
            None => base.error = Some(format!("{} unavailable", F::BASELINE)),
        }
        rows.push(base);
        let mut prev_ms: Option<f64> = None;
        for step in F::steps().into_iter().filter(|st| o.wants(st)) {
            let label = step.kernel.step;
            progress(&format!("{family} {s}: {label}"));
            let mut row = Row::new(label, step.kernel.name, s, F::tolerance(step, s), if cpu_ref { "f64 CPU" } else { "cuBLAS" });
            row.predicted = F::predicted(step, s);
            if let Some(why) = step.rejects(s.m, s.n, s.k).or_else(|| gpu.cannot_run(&step.kernel)) {
                row.rejected = Some(why);
                rows.push(row);
                continue;
            }
            let r = (|| -> Result<()> {
                let Some(want) = &want else {
                    return Err(Error::InvalidInput(format!("{s} is too large for the CPU reference and {} is unavailable to verify against", F::BASELINE)));
                };
                let k = gpu.kernel(step.kernel.name)?;
                let res = k.resources()?;
                (row.registers, row.local_bytes) = (Some(res.registers), Some(res.local_bytes));
                row.smem_bytes = Some(k.info.dyn_smem_bytes + res.static_smem_bytes.max(0) as u32);
                row.blocks_per_sm = k.max_blocks_per_sm().ok();
                row.note = crate::gemm::cluster_note(gpu, step.grid, s);
                row.rel_err = Some(run_checked::<F>(gpu, &k, step, s, &d_a, &d_b, &mut d_c, want)?);
                if !o.check {
                    let t = match &baseline {
                        // Interleaved with the baseline, so the ratio is immune to the card's drift.
                        Some(bl) => {
                            let (t, tb) = time_pair(gpu, o.warmup, o.reps, 2.0 * budget, |_, base| {
                                if base { F::run_baseline(bl, gpu, s, &d_a, &d_b, &mut d_c) } else { F::launch(gpu, &k, step, s, &d_a, &d_b, &mut d_c) }
                            })?;
                            row.pct_of_cublas = Some(tb.median_ms / t.median_ms);
                            row.baseline_paired = Some(tb);
                            t
                        }
                        None => time_gpu_budget(gpu, o.warmup, o.reps, budget, |_| F::launch(gpu, &k, step, s, &d_a, &d_b, &mut d_c))?,
                    };
                    let tf = s.flops() / (t.median_ms * 1e-3) / 1e12;
                    row.tflops = Some(tf);
                    row.speedup_vs_prev = prev_ms.map(|p| p / t.median_ms);
                    prev_ms = Some(t.median_ms);
                    row.time = Some(t);
                }
                Ok(())
            })();
            if let Err(e) = r {
                row.error = Some(e.to_string());
            }
            rows.push(row);
        }
    }
    Ok(rows)
}

/// The table as text.
pub fn table(rows: &[Row]) -> String {
    let f = |v: Option<f64>, p: &dyn Fn(f64) -> String| v.map(p).unwrap_or_else(|| "-".into());
    let mut s = String::new();
    let _ = writeln!(s, "{:<7} {:>16} {:>11} {:>9} {:>9} {:>7} {:>9} {:<8} {:>4} {:>5} {:>8} {:>6} {:>21}  {}", "step", "M x N x K", "median ms", "TFLOP/s",
                     "% cuBLAS", "x prev", "rel err", "vs", "regs", "local", "smem KiB", "CTA/SM", "pred confl ld / st", "kernel");
    for r in rows {
        let pred = r.predicted.map(|p| format!("{} / {}", p.ld.conflicts, p.st.conflicts)).unwrap_or_else(|| "-".into());
        let smem = r.smem_bytes.map(|b| format!("{:.1}", b as f64 / 1024.0)).unwrap_or_else(|| "-".into());
        let _ = writeln!(s, "{:<7} {:>16} {:>11} {:>9} {:>9} {:>7} {:>9} {:<8} {:>4} {:>5} {:>8} {:>6} {:>21}  {}{}", r.step, r.shape.to_string(),
            f(r.time.as_ref().map(|t| t.median_ms), &|v| format!("{v:.3}")), f(r.tflops, &|v| format!("{v:.2}")),
            f(r.pct_of_cublas, &|v| format!("{:.1}%", 100.0 * v)), f(r.speedup_vs_prev, &|v| format!("{v:.2}")),
            f(r.rel_err, &|v| format!("{v:.1e}")), r.reference,
            r.registers.map(|v| v.to_string()).unwrap_or("-".into()), r.local_bytes.map(|v| v.to_string()).unwrap_or("-".into()), smem,
            r.blocks_per_sm.map(|v| v.to_string()).unwrap_or("-".into()), pred, r.kernel,
            match (&r.error, r.failed(), &r.rejected) {
                (Some(e), _, _) => format!("  ERROR: {e}"),
                (None, true, _) => "  FAILED verification".into(),
                (None, false, Some(why)) => format!("  rejected: {why}"),
                _ => String::new(),
            });
    }
    if rows.iter().any(|r| r.gbps.is_some()) {
        let chain = crate::runtime::tuning::launch_chain();
        if chain > 1 {
            let _ = writeln!(s, "each timed repetition a chain of {chain} launches (KERNEL_LAB_CHAIN; the copy's too), times per launch");
        }
        if crate::runtime::tuning::copy_fixed_dst() {
            let _ = writeln!(s, "the device copy writes every repetition into one destination (KERNEL_LAB_COPY_FIXED_DST, as before session 30)");
        }
        let _ = writeln!(s, "bandwidth (A, B, C once; weights rotated beyond L2; GB/s from the blocks against cuBLAS, % of copy: each timed interleaved with a \
                             device copy of the same weights, read + written, ratio from the same blocks):");
        for r in rows.iter().filter(|r| r.gbps.is_some()) {
            let _ = writeln!(s, "  {:<7} {:>16} {:>9} GB/s {:>7} of copy", r.step, r.shape.to_string(), f(r.gbps, &|v| format!("{v:.0}")),
                             f(r.pct_of_copy, &|v| format!("{:.1}%", 100.0 * v)));
        }
    }
    for r in rows.iter().filter(|r| r.note.is_some()) {
        let _ = writeln!(s, "note: {} {}: {}", r.step, r.shape, r.note.as_deref().unwrap_or(""));
    }
    if rows.iter().any(|r| r.baseline_paired.is_some()) {
        let baseline = rows.iter().find(|r| r.step == "cuBLAS").map(|r| r.kernel.as_str()).unwrap_or("cuBLAS");
        let _ = writeln!(s, "% cuBLAS: each step timed interleaved with its baseline ({baseline}; 4 rounds of blocks, ABBA, 30 ms untimed at each switch), ratio of the two medians.");
        let _ = writeln!(s, "The cuBLAS rows' times are cuBLAS timed alone before the interleaved blocks: a step's median next to them can differ from its % \
                             when the clocks moved in between (the % compares times from the same blocks).");
    }
    s
}

/// Two steps of one family head to head on one shape (`kernel-lab ab`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct AbRow {
    /// The shape.
    pub shape: Shape,
    /// Step A's label and kernel.
    pub a: (String, String),
    /// Step B's label and kernel.
    pub b: (String, String),
    /// A's and B's times, the ratio, per round too.
    #[serde(flatten)]
    pub times: crate::runtime::timing::AbTimes,
    /// Relative L2 error of A's and B's output against the reference.
    pub rel_err: (f64, f64),
    /// What the errors were measured against.
    pub reference: String,
}

/// Runs steps `a` and `b` of family `F` on each `--gemm-sizes` shape: both verified (poisoned output,
/// fully written, within the family's tolerance of the f64 reference or the baseline), then timed
/// interleaved in `rounds` rounds of blocks (`timing::time_pair_rounds`).
pub fn ab<F: GemmFamily>(gpu: &Gpu, o: &GemmRun, a: &GemmStep<F::Trace>, b: &GemmStep<F::Trace>, rounds: usize) -> Result<Vec<AbRow>> {
    let mut out = vec![];
    let baseline = F::baseline(gpu).ok();
    let (ka, kb) = (gpu.kernel(a.kernel.name)?, gpu.kernel(b.kernel.name)?);
    for &s in &o.shapes {
        check_memory::<F>(gpu, F::NAME, s)?;
        s.check_step(a)?;
        s.check_step(b)?;
        let (d_a, d_b) = inputs::<F>(gpu, s, o.seed)?;
        let (want, reference) = if cpu_reference(s) {
            (Reference::Host(host_reference::<F>(gpu, s, &d_a, &d_b)?), "f64 CPU")
        } else {
            let Some(bl) = &baseline else {
                return Err(Error::InvalidInput(format!("{s} is too large for the CPU reference and {} is unavailable to verify against", F::BASELINE)));
            };
            let mut d_c = gpu.zeros::<F::Elem>(s.m * s.n)?;
            F::run_baseline(bl, gpu, s, &d_a, &d_b, &mut d_c)?;
            gpu.sync_after(F::BASELINE)?;
            (Reference::Device(d_c), F::BASELINE)
        };
        let mut d_c = gpu.zeros::<F::Elem>(s.m * s.n)?;
        let mut errs = [0.0; 2];
        for (i, (step, kern)) in [(a, &ka), (b, &kb)].into_iter().enumerate() {
            errs[i] = run_checked::<F>(gpu, kern, step, s, &d_a, &d_b, &mut d_c, &want)?;
            let tol = F::tolerance(step, s);
            if !(errs[i] <= tol) {
                return Err(Error::Verification(format!("{} on {s}: relative L2 error {:.2e} against {reference} (tolerance {tol:.1e})", kern.name(), errs[i])));
            }
        }
        // One launch per repetition, or a chain of them (`KERNEL_LAB_CHAIN`, for probing launch overlap).
        let chain = crate::runtime::tuning::launch_chain();
        let per_round = time_pair_rounds(gpu, o.warmup, o.reps, 4000.0, rounds, |_, second| {
            for _ in 0..chain {
                if second { F::launch(gpu, &kb, b, s, &d_a, &d_b, &mut d_c)? } else { F::launch(gpu, &ka, a, s, &d_a, &d_b, &mut d_c)? }
            }
            Ok(())
        })?;
        let times = crate::runtime::timing::AbTimes::from_rounds(per_round);
        out.push(AbRow { shape: s, a: (a.kernel.step.into(), ka.name().into()), b: (b.kernel.step.into(), kb.name().into()),
                         times,
                         rel_err: (errs[0], errs[1]), reference: reference.into() });
    }
    Ok(out)
}

/// The A/B table as text.
pub fn ab_table(rows: &[AbRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{:<16} {:>7} {:>10} {:>7} {:>10} {:>10} {:>17} {:>10} {:>17}", "M x N x K", "A", "A ms", "B", "B ms", "B speed/A", "per round min..max", "B faster", "rel err A / B");
    for r in rows {
        let (lo, hi, wins) = r.times.spread();
        let _ = writeln!(s, "{:<16} {:>7} {:>10.4} {:>7} {:>10.4} {:>9.4}x {:>8.4}..{:<8.4} {:>4}/{:<5} {:>8.1e} / {:.1e}", r.shape.to_string(), r.a.0, r.times.a_time.median_ms,
                         r.b.0, r.times.b_time.median_ms, r.times.b_speedup, lo, hi, wins, r.times.round_speedups.len(), r.rel_err.0, r.rel_err.1);
    }
    s.push_str("B speed/A: A's median time over B's, both timed interleaved in rounds of blocks (ABBA, 30 ms untimed at each switch); per round: the same ratio from each round's two blocks; B faster: rounds where B's block median was lower.
");
    let chain = crate::runtime::tuning::launch_chain();
    if chain > 1 {
        let _ = writeln!(s, "Each timed repetition is a chain of {chain} launches back to back (KERNEL_LAB_CHAIN): the ms columns are per chain.");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_estimates_grow_with_every_dimension_and_keep_the_host_bounded() {
        // Property test over a deterministic spread of shapes: device bytes cover A, B, C (and the
        // reference C past the CPU reference); growing any dimension never needs fewer device bytes
        // within one verification path; host bytes stay at 1 MiB past the CPU reference.
        let mut x = 0x9E37_79B9u64;
        let mut next = |lo: usize, hi: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            lo + (x as usize) % (hi - lo)
        };
        for _ in 0..2000 {
            let s = Shape::new(next(1, 1 << 17), next(1, 1 << 17), next(1, 1 << 15)).unwrap();
            let (dev, host) = memory_bytes(2, s);
            let (a, b, c) = ((s.m * s.k) as u64, (s.k * s.n) as u64, (s.m * s.n) as u64);
            assert!(dev >= 2 * (a + b + c), "{s}");
            if cpu_reference(s) {
                assert!(host >= 8 * c, "{s}: the f64 reference lives on the host");
            } else {
                assert_eq!((dev, host), (2 * (a + b + 2 * c), 1 << 20), "{s}");
            }
            for grown in [Shape { m: s.m + 1, ..s }, Shape { n: s.n + 1, ..s }, Shape { k: s.k + 1, ..s }] {
                if cpu_reference(grown) == cpu_reference(s) {
                    assert!(memory_bytes(2, grown).0 > dev, "{s} -> {grown}");
                }
            }
        }
        // The hostile shapes: 131072³ f32 needs 256 GiB on the device; 100000²×64 f16 40 GB
        // on the device (C and the reference C) and nothing on the host.
        assert_eq!(memory_bytes(4, Shape::new(131072, 131072, 131072).unwrap()).0, 4 * 4 * (1u64 << 34));
        assert_eq!(memory_bytes(2, Shape::new(100_000, 100_000, 64).unwrap()), (2 * (2 * 6_400_000 + 2 * 10_000_000_000), 1 << 20));
    }

    #[test]
    fn buffer_lengths_are_checked_per_matrix() {
        let s = Shape::new(3, 5, 7).unwrap();
        assert!(s.check_buffers("f32", 21, 35, 15).is_ok());
        let e = s.check_buffers("f16", 21, 34, 15).unwrap_err().to_string();
        assert!(e.contains("B holds 34 f16, the shape needs 35"), "{e}");
        assert!(s.check_buffers("f32", 21, 35, 16).unwrap_err().to_string().contains("C holds 16"));
    }

    #[test]
    fn shapes_are_validated() {
        assert!(Shape::new(0, 1, 1).unwrap_err().to_string().contains("GEMM M = 0"));
        assert!(Shape::new(1, 1, (1 << 20) + 1).unwrap_err().to_string().contains("K"));
        assert_eq!(Shape::new(2, 3, 4).unwrap().flops(), 48.0);
    }

    #[test]
    fn reference_matches_a_hand_computed_product() {
        let s = Shape::new(2, 3, 2).unwrap();
        let (a, b) = ([1.0, 2.0, 3.0, 4.0], [1.0, 0.0, 2.0, 0.0, 1.0, 3.0]);
        assert_eq!(reference_f64(&a, &b, s), vec![1.0, 2.0, 8.0, 3.0, 4.0, 18.0]);
    }

    #[test]
    fn grids_follow_the_descriptors() {
        use crate::steps::{hgemm, sgemm};
        let s = Shape::new(1000, 1000, 64).unwrap();
        assert_eq!(s.grid(&sgemm::V0, 132).unwrap(), (63, 63));
        assert_eq!(s.grid(&sgemm::V9, 132).unwrap(), (8, 8));
        assert_eq!(s.grid(&hgemm::V9, 132).unwrap(), (4, 8));
        assert_eq!(s.grid(&hgemm::H3, 132).unwrap(), (8, 8));
        assert_eq!(s.grid(&hgemm::H4, 132).unwrap(), (4, 8));
        assert_eq!(s.grid(&hgemm::H6, 132).unwrap(), (32, 1), "persistent: one block per tile when tiles < SMs");
        assert_eq!(Shape::new(8192, 8192, 64).unwrap().grid(&hgemm::H6, 132).unwrap(), (132, 1));
        // h9: clusters of 2 on tile groups of 2 rows; 1000³ has 8 × 4 tiles = 16 groups; 1100 rows are
        // 9 tile rows = 5 groups (the last CTA's row past M); a GPU of 133 SMs still gets whole clusters.
        assert_eq!(s.grid(&hgemm::H9, 132).unwrap(), (32, 1));
        assert_eq!(Shape::new(1100, 1000, 64).unwrap().grid(&hgemm::H9S4, 132).unwrap(), (40, 1));
        assert_eq!(Shape::new(8192, 8192, 64).unwrap().grid(&hgemm::H9, 133).unwrap(), (132, 1));
        assert!(Shape::new(1 << 20, 8, 8).unwrap().grid(&sgemm::V0, 132).unwrap_err().to_string().contains("65535"));
        assert!(Shape::new(8, 12, 8).unwrap().check_step(&hgemm::V2).unwrap_err().to_string()
            .contains("hgemm_block_v2 loads 16-byte rows of f16: K and N must be multiples of 8 (got 8x12x8)"));
        assert!(Shape::new(8, 12, 8).unwrap().check_step(&hgemm::V1).is_ok());
    }

    #[test]
    fn rows_fail_on_error_or_tolerance_but_not_on_rejection() {
        let s = Shape::new(2, 2, 2).unwrap();
        let mut r = Row::new("v1", "k", s, 1e-5, "f64 CPU");
        assert!(!r.failed());
        r.rel_err = Some(2e-5);
        assert!(r.failed());
        r.rel_err = Some(f64::NAN);
        assert!(r.failed());
        r.rel_err = None;
        r.rejected = Some("K must be multiples of 8".into());
        assert!(!r.failed());
        let mut b = Row::new("cuBLAS", "x", s, 1e-5, "f64 CPU");
        b.error = Some("unavailable".into());
        assert!(!b.failed(), "the baseline never fails the run");
        assert!(table(&[r, b]).contains("rejected: K must be multiples of 8"));
    }

    #[test]
    fn ab_table_counts_rounds_where_b_wins() {
        let t = |ms: f64| Stats { median_ms: ms, min_ms: ms, max_ms: ms, reps: 4, ended_unix_ms: 0, blocks_unix_ms: vec![] };
        let row = AbRow { shape: Shape::new(8, 8, 8).unwrap(), a: ("v3".into(), "ka".into()), b: ("v4".into(), "kb".into()),
                          times: crate::runtime::timing::AbTimes { a_time: t(1.0), b_time: t(0.5), b_speedup: 2.0, round_speedups: vec![1.5, 0.9, 2.5] }, rel_err: (1e-4, 2e-4), reference: "f64 CPU".into() };
        let s = ab_table(&[row]);
        assert!(s.contains("2.0000x") && s.contains("0.9000..2.5000") && s.contains("2/3"), "{s}");
    }
}

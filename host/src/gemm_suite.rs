//! The suite's GEMM tables (SGEMM, HGEMM): every step of a family at every size and, with `--check`, on
//! ragged shapes; verified against an f64 CPU reference (small shapes) or the cuBLAS baseline (large),
//! timed against that baseline in the same run. A family plugs in through [`GemmFamily`].
use std::fmt::Write as _;

use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};
use rand::rngs::SmallRng;

use crate::{
    error::{Error, Result},
    gpu::{Gpu, Kernel},
    sgemm::Shape,
    suite::Options,
    timing::{Stats, time_gpu_budget, time_pair, time_pair_rounds},
    traces::BlockCost,
    verify,
};

/// Largest `M·N·K` checked against the f64 CPU reference; above, against the baseline.
const CPU_REF_MAX: f64 = 1.2e9;

/// What a GEMM family provides to the shared suite loop.
pub trait GemmFamily {
    /// Element type of A, B and C in device memory.
    type Elem: DeviceRepr + ValidAsZeroBits + Default + Clone + Copy;
    /// A ladder step.
    type Step: Copy + 'static;
    /// The baseline library handle.
    type Baseline;
    /// Ragged shapes `--check` adds.
    const CHECK_SHAPES: &'static [(usize, usize, usize)];
    /// Relative L2 tolerance of `step`'s output on `shape` against the reference.
    fn tolerance(step: Self::Step, shape: Shape) -> f64;
    /// The baseline's name in the table.
    const BASELINE: &'static str;
    /// Every step in ladder order.
    fn steps() -> &'static [Self::Step];
    /// `v0` …
    fn label(s: Self::Step) -> &'static str;
    /// PTX entry.
    fn kernel_name(s: Self::Step) -> &'static str;
    /// `n` random inputs (never zeros).
    fn random(rng: &mut SmallRng, n: usize) -> Vec<Self::Elem>;
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
    /// Enqueues `c = a · b` with a step (errors with "must be multiples" for shapes it declines).
    fn launch(gpu: &Gpu, k: &Kernel, s: Self::Step, shape: Shape, a: &CudaSlice<Self::Elem>, b: &CudaSlice<Self::Elem>, c: &mut CudaSlice<Self::Elem>) -> Result<()>;
    /// The bank model's prediction for one launch.
    fn predicted(s: Self::Step, shape: Shape) -> Option<BlockCost>;
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
    /// The bank model's prediction for the launch: shared loads and stores.
    pub predicted: Option<BlockCost>,
}

impl Row {
    fn new(step: &str, kernel: &str, shape: Shape, tolerance: f64, reference: &str) -> Row {
        Row { step: step.into(), kernel: kernel.into(), shape, time: None, tflops: None, pct_of_cublas: None, baseline_paired: None, speedup_vs_prev: None,
              rel_err: None, tolerance, reference: reference.into(), registers: None, local_bytes: None, smem_bytes: None, blocks_per_sm: None, error: None, rejected: None,
              predicted: None }
    }

    /// Whether verification failed (the baseline's row never fails the run).
    pub fn failed(&self) -> bool {
        self.step != "cuBLAS" && (self.error.is_some() || self.rel_err.is_some_and(|e| !(e <= self.tolerance)))
    }
}

/// Poisons `d_c`, runs `step` on `s`, and returns C as f64 — an error naming the kernel and shape if any
/// element was left unwritten (the poison is a NaN pattern).
fn run_poisoned<F: GemmFamily>(gpu: &Gpu, k: &Kernel, step: F::Step, s: Shape, d_a: &CudaSlice<F::Elem>, d_b: &CudaSlice<F::Elem>,
                               d_c: &mut CudaSlice<F::Elem>) -> Result<Vec<f64>> {
    *d_c = gpu.upload(&vec![F::poison(); s.m * s.n])?;
    F::launch(gpu, k, step, s, d_a, d_b, d_c)?;
    gpu.sync_after(k.name())?;
    let c: Vec<f64> = gpu.download(d_c)?.into_iter().map(F::to_f64).collect();
    match c.iter().position(|v| v.is_nan()) {
        Some(i) => Err(Error::Verification(format!("{} on {s}: output not fully written (first NaN at {i})", k.name()))),
        None => Ok(c),
    }
}

/// Runs family `F`: the baseline first (its result is the reference for shapes too large for the CPU),
/// then every step, each poisoned, checked fully written, compared, and (without `--check`) timed.
pub fn run<F: GemmFamily>(gpu: &Gpu, o: &Options, family: &str, progress: &mut dyn FnMut(&str)) -> Result<Vec<Row>> {
    let mut shapes: Vec<Shape> = o.gemm_sizes.iter().map(|&(m, n, k)| Shape::new(m, n, k)).collect::<Result<_>>()?;
    if o.check && !o.gemm_sizes_given {
        for &(m, n, k) in F::CHECK_SHAPES {
            shapes.push(Shape::new(m, n, k)?);
        }
    }
    let baseline = F::baseline(gpu).ok();
    let mut rows = vec![];
    for s in shapes {
        progress(&format!("{family} {s}: inputs"));
        let mut rng = verify::rng(o.seed ^ (s.m * 31 + s.n * 7 + s.k) as u64);
        let a = F::random(&mut rng, s.m * s.k);
        let b = F::random(&mut rng, s.k * s.n);
        let (d_a, d_b) = (gpu.upload(&a)?, gpu.upload(&b)?);
        let mut d_c = gpu.zeros::<F::Elem>(s.m * s.n)?;
        let budget = if o.check { 0.0 } else { 300.0 };
        let cpu_ref = s.flops() / 2.0 <= CPU_REF_MAX;
        let mut want: Option<Vec<f64>> = if cpu_ref { progress(&format!("{family} {s}: f64 reference")); Some(F::reference(&a, &b, s)) } else { None };
        let base_tol = F::steps().iter().map(|&st| F::tolerance(st, s)).fold(0.0, f64::max);
        let mut base = Row::new("cuBLAS", F::BASELINE, s, base_tol, if cpu_ref { "f64 CPU" } else { "(reference)" });
        base.pct_of_cublas = Some(1.0);
        match &baseline {
            Some(bl) => {
                F::run_baseline(bl, gpu, s, &d_a, &d_b, &mut d_c)?;
                gpu.sync_after(F::BASELINE)?;
                let c: Vec<f64> = gpu.download(&d_c)?.into_iter().map(F::to_f64).collect();
                match &want {
                    Some(w) => base.rel_err = Some(verify::rel_l2(&c, w)),
                    None => want = Some(c),
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
        for &step in F::steps().iter().filter(|&&st| o.wants_step(F::label(st))) {
            progress(&format!("{family} {s}: {}", F::label(step)));
            let mut row = Row::new(F::label(step), F::kernel_name(step), s, F::tolerance(step, s), if cpu_ref { "f64 CPU" } else { "cuBLAS" });
            row.predicted = F::predicted(step, s);
            let r = (|| -> Result<()> {
                let k = gpu.kernel(F::kernel_name(step))?;
                let res = k.resources()?;
                (row.registers, row.local_bytes) = (Some(res.registers), Some(res.local_bytes));
                row.smem_bytes = Some(k.info.dyn_smem_bytes + res.static_smem_bytes.max(0) as u32);
                row.blocks_per_sm = k.max_blocks_per_sm().ok();
                let c = run_poisoned::<F>(gpu, &k, step, s, &d_a, &d_b, &mut d_c)?;
                if let Some(w) = &want {
                    row.rel_err = Some(verify::rel_l2(&c, w));
                }
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
            match r {
                Err(Error::InvalidInput(why)) if why.contains("must be multiples") => row.rejected = Some(why),
                Err(e) => row.error = Some(e.to_string()),
                Ok(()) => {}
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
    if rows.iter().any(|r| r.baseline_paired.is_some()) {
        let baseline = rows.iter().find(|r| r.step == "cuBLAS").map(|r| r.kernel.as_str()).unwrap_or("cuBLAS");
        let _ = writeln!(s, "% cuBLAS: each step timed interleaved with its baseline ({baseline}; 4 rounds of blocks, ABBA, 30 ms untimed at each switch), ratio of the two medians.");
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
    /// A's times over all rounds.
    pub a_time: Stats,
    /// B's times over all rounds.
    pub b_time: Stats,
    /// A's median over B's (B's speed relative to A; > 1: B is faster).
    pub b_speedup: f64,
    /// The same ratio per round (each round's two block medians).
    pub round_speedups: Vec<f64>,
    /// Relative L2 error of A's and B's output against the reference.
    pub rel_err: (f64, f64),
    /// What the errors were measured against.
    pub reference: String,
}

/// Runs steps `a` and `b` of family `F` on each `--gemm-sizes` shape: both verified (poisoned output,
/// fully written, within the family's tolerance of the f64 reference or the baseline), then timed
/// interleaved in `rounds` rounds of blocks (`timing::time_pair_rounds`).
pub fn ab<F: GemmFamily>(gpu: &Gpu, o: &Options, a: F::Step, b: F::Step, rounds: usize) -> Result<Vec<AbRow>> {
    let mut out = vec![];
    let baseline = F::baseline(gpu).ok();
    let (ka, kb) = (gpu.kernel(F::kernel_name(a))?, gpu.kernel(F::kernel_name(b))?);
    for &(m, n, k) in &o.gemm_sizes {
        let s = Shape::new(m, n, k)?;
        let mut rng = verify::rng(o.seed ^ (s.m * 31 + s.n * 7 + s.k) as u64);
        let (h_a, h_b) = (F::random(&mut rng, s.m * s.k), F::random(&mut rng, s.k * s.n));
        let (d_a, d_b) = (gpu.upload(&h_a)?, gpu.upload(&h_b)?);
        let cpu_ref = s.flops() / 2.0 <= CPU_REF_MAX;
        let (want, reference) = if cpu_ref {
            (F::reference(&h_a, &h_b, s), "f64 CPU")
        } else {
            let Some(bl) = &baseline else {
                return Err(Error::InvalidInput(format!("{s} is too large for the CPU reference and {} is unavailable to verify against", F::BASELINE)));
            };
            let mut d_c = gpu.zeros::<F::Elem>(s.m * s.n)?;
            F::run_baseline(bl, gpu, s, &d_a, &d_b, &mut d_c)?;
            gpu.sync_after(F::BASELINE)?;
            (gpu.download(&d_c)?.into_iter().map(F::to_f64).collect(), F::BASELINE)
        };
        let mut d_c = gpu.zeros::<F::Elem>(s.m * s.n)?;
        let mut errs = [0.0; 2];
        for (i, (step, kern)) in [(a, &ka), (b, &kb)].into_iter().enumerate() {
            let c = run_poisoned::<F>(gpu, kern, step, s, &d_a, &d_b, &mut d_c)?;
            errs[i] = verify::rel_l2(&c, &want);
            let tol = F::tolerance(step, s);
            if !(errs[i] <= tol) {
                return Err(Error::Verification(format!("{} on {s}: relative L2 error {:.2e} against {reference} (tolerance {tol:.1e})", kern.name(), errs[i])));
            }
        }
        let per_round = time_pair_rounds(gpu, o.warmup, o.reps, 4000.0, rounds, |_, second| {
            if second { F::launch(gpu, &kb, b, s, &d_a, &d_b, &mut d_c) } else { F::launch(gpu, &ka, a, s, &d_a, &d_b, &mut d_c) }
        })?;
        let median = |v: &[f64]| Stats::from_samples(&mut v.to_vec()).median_ms;
        let round_speedups = per_round.iter().map(|(ra, rb)| median(ra) / median(rb)).collect();
        let (mut all_a, mut all_b): (Vec<f64>, Vec<f64>) = (vec![], vec![]);
        for (ra, rb) in per_round {
            all_a.extend(ra);
            all_b.extend(rb);
        }
        let (a_time, b_time) = (Stats::from_samples(&mut all_a), Stats::from_samples(&mut all_b));
        out.push(AbRow { shape: s, a: (F::label(a).into(), ka.name().into()), b: (F::label(b).into(), kb.name().into()),
                         b_speedup: a_time.median_ms / b_time.median_ms, a_time, b_time, round_speedups,
                         rel_err: (errs[0], errs[1]), reference: reference.into() });
    }
    Ok(out)
}

/// The A/B table as text.
pub fn ab_table(rows: &[AbRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{:<16} {:>7} {:>10} {:>7} {:>10} {:>10} {:>17} {:>10} {:>17}", "M x N x K", "A", "A ms", "B", "B ms", "B speed/A", "per round min..max", "B faster", "rel err A / B");
    for r in rows {
        let lo = r.round_speedups.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = r.round_speedups.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let wins = r.round_speedups.iter().filter(|&&x| x > 1.0).count();
        let _ = writeln!(s, "{:<16} {:>7} {:>10.4} {:>7} {:>10.4} {:>9.4}x {:>8.4}..{:<8.4} {:>4}/{:<5} {:>8.1e} / {:.1e}", r.shape.to_string(), r.a.0, r.a_time.median_ms,
                         r.b.0, r.b_time.median_ms, r.b_speedup, lo, hi, wins, r.round_speedups.len(), r.rel_err.0, r.rel_err.1);
    }
    s.push_str("B speed/A: A's median time over B's, both timed interleaved in rounds of blocks (ABBA, 30 ms untimed at each switch); per round: the same ratio from each round's two blocks; B faster: rounds where B's block median was lower.
");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let t = |ms: f64| Stats { median_ms: ms, min_ms: ms, max_ms: ms, reps: 4 };
        let row = AbRow { shape: Shape::new(8, 8, 8).unwrap(), a: ("v3".into(), "ka".into()), b: ("v4".into(), "kb".into()), a_time: t(1.0), b_time: t(0.5),
                          b_speedup: 2.0, round_speedups: vec![1.5, 0.9, 2.5], rel_err: (1e-4, 2e-4), reference: "f64 CPU".into() };
        let s = ab_table(&[row]);
        assert!(s.contains("2.0000x") && s.contains("0.9000..2.5000") && s.contains("2/3"), "{s}");
    }
}

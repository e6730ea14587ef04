//! The suite's SGEMM table: every step at every size and (with `--check`) on ragged shapes, verified
//! against an f64 CPU reference (small shapes) or cuBLAS (large), timed against cuBLAS in the same run.
use std::fmt::Write as _;

use crate::{
    error::Result,
    gpu::Gpu,
    sgemm::{self, CublasSgemm, Shape, Step},
    suite::Options,
    timing::{Stats, time_gpu_budget},
    verify,
};

/// Relative L2 error every step must meet.
pub const SGEMM_TOL: f64 = 1e-5;

/// Shapes `--check` verifies besides the square sizes: not multiples of any tile, and degenerate.
pub const CHECK_SHAPES: [(usize, usize, usize); 9] = [
    (1000, 1000, 1000), (4097, 129, 33), (1, 1, 1), (1, 300, 200), (300, 1, 200), (300, 200, 1),
    (129, 129, 129), (255, 257, 3), (130, 514, 66),
];

/// Largest `M·N·K` checked against the f64 CPU reference; above, against cuBLAS.
const CPU_REF_MAX: f64 = 1.2e9;

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
    /// Over cuBLAS's TFLOP/s in the same run.
    pub pct_of_cublas: Option<f64>,
    /// Over the previous step's time.
    pub speedup_vs_prev: Option<f64>,
    /// Relative L2 error.
    pub rel_err: Option<f64>,
    /// What the error was measured against (`f64 CPU` or `cuBLAS`).
    pub reference: String,
    /// Registers per thread.
    pub registers: Option<i32>,
    /// Local memory per thread.
    pub local_bytes: Option<i32>,
    /// What failed.
    pub error: Option<String>,
    /// Why the step declined the shape (a documented constraint, not a failure).
    pub rejected: Option<String>,
    /// The bank model's prediction for the launch (`traces::sgemm`): shared loads and stores.
    pub predicted: Option<crate::traces::BlockCost>,
}

impl Row {
    /// Whether verification failed (cuBLAS rows are the baseline and never fail the run). The
    /// tolerance check here is SGEMM's; other families record their own failures in `error`.
    pub fn failed(&self) -> bool {
        self.step != "cuBLAS" && (self.error.is_some() || (self.kernel.starts_with("sgemm") && self.rel_err.is_some_and(|e| !(e <= SGEMM_TOL))))
    }
}

fn rel_err(got: &[f32], want: &[f64]) -> f64 {
    let g: Vec<f64> = got.iter().map(|&v| v as f64).collect();
    verify::rel_l2(&g, want)
}

/// Runs the family.
pub fn run(gpu: &Gpu, o: &Options, progress: &mut dyn FnMut(&str)) -> Result<Vec<Row>> {
    let mut shapes: Vec<Shape> = o.gemm_sizes.iter().map(|&n| Shape::new(n, n, n)).collect::<Result<_>>()?;
    if o.check && !o.gemm_sizes_given {
        for &(m, n, k) in &CHECK_SHAPES {
            shapes.push(Shape::new(m, n, k)?);
        }
    }
    let blas = CublasSgemm::new(gpu).ok();
    let mut rows = vec![];
    for s in shapes {
        progress(&format!("sgemm {s}: inputs"));
        let mut rng = verify::rng(o.seed ^ (s.m * 31 + s.n * 7 + s.k) as u64);
        let a: Vec<f32> = (0..s.m * s.k).map(|_| rand::Rng::random_range(&mut rng, -1.0f32..1.0)).collect();
        let b: Vec<f32> = (0..s.k * s.n).map(|_| rand::Rng::random_range(&mut rng, -1.0f32..1.0)).collect();
        let (d_a, d_b) = (gpu.upload(&a)?, gpu.upload(&b)?);
        let mut d_c = gpu.zeros::<f32>(s.m * s.n)?;
        let budget = if o.check { 0.0 } else { 300.0 };
        // The baseline first: its result is the reference for shapes too large for the CPU.
        let mut blas_row = Row { step: "cuBLAS".into(), kernel: "cublasSgemm".into(), shape: s, time: None, tflops: None,
            pct_of_cublas: Some(1.0), speedup_vs_prev: None, rel_err: None, reference: String::new(), registers: None, local_bytes: None, error: None, rejected: None, predicted: None };
        let cpu_ref = s.flops() / 2.0 <= CPU_REF_MAX;
        let mut want: Option<Vec<f64>> = if cpu_ref { progress(&format!("sgemm {s}: f64 reference")); Some(sgemm::reference_f64(&a, &b, s)) } else { None };
        match &blas {
            Some(bl) => {
                gpu.poison(&mut d_c)?;
                bl.gemm(gpu, s, &d_a, &d_b, &mut d_c)?;
                gpu.sync_after("cublasSgemm")?;
                let c = gpu.download(&d_c)?;
                match &want {
                    Some(w) => { blas_row.rel_err = Some(rel_err(&c, w)); blas_row.reference = "f64 CPU".into(); }
                    None => { want = Some(c.iter().map(|&v| v as f64).collect()); blas_row.reference = "(reference)".into(); }
                }
                if !o.check {
                    let t = time_gpu_budget(gpu, o.warmup, o.reps, budget, |_| bl.gemm(gpu, s, &d_a, &d_b, &mut d_c))?;
                    blas_row.tflops = Some(s.flops() / (t.median_ms * 1e-3) / 1e12);
                    blas_row.time = Some(t);
                }
            }
            None => blas_row.error = Some("cuBLAS unavailable".into()),
        }
        let blas_tflops = blas_row.tflops;
        rows.push(blas_row);
        let reference = if cpu_ref { "f64 CPU" } else { "cuBLAS" };
        let mut prev_ms: Option<f64> = None;
        for step in Step::ALL {
            progress(&format!("sgemm {s}: {}", step.label()));
            let mut row = Row { step: step.label().into(), kernel: step.kernel_name().into(), shape: s, time: None, tflops: None,
                pct_of_cublas: None, speedup_vs_prev: None, rel_err: None, reference: reference.into(), registers: None, local_bytes: None, error: None, rejected: None, predicted: None };
            row.predicted = crate::traces::sgemm::launch(step, s);
            let r = (|| -> Result<()> {
                let k = gpu.kernel(step.kernel_name())?;
                let res = k.resources()?;
                (row.registers, row.local_bytes) = (Some(res.registers), Some(res.local_bytes));
                gpu.poison(&mut d_c)?;
                sgemm::launch(gpu, &k, step, s, &d_a, &d_b, &mut d_c)?;
                gpu.sync_after(k.name())?;
                let c = gpu.download(&d_c)?;
                verify::check_written(k.name(), &c)?;
                if let Some(w) = &want {
                    row.rel_err = Some(rel_err(&c, w));
                }
                if !o.check {
                    let t = time_gpu_budget(gpu, o.warmup, o.reps, budget, |_| sgemm::launch(gpu, &k, step, s, &d_a, &d_b, &mut d_c))?;
                    let tf = s.flops() / (t.median_ms * 1e-3) / 1e12;
                    row.tflops = Some(tf);
                    row.pct_of_cublas = blas_tflops.map(|b| tf / b);
                    row.speedup_vs_prev = prev_ms.map(|p| p / t.median_ms);
                    prev_ms = Some(t.median_ms);
                    row.time = Some(t);
                }
                Ok(())
            })();
            match r {
                Err(crate::error::Error::InvalidInput(why)) if why.contains("must be multiples") => row.rejected = Some(why),
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
    let _ = writeln!(s, "{:<7} {:>16} {:>11} {:>9} {:>9} {:>7} {:>9} {:<8} {:>4} {:>5} {:>21}  {}", "step", "M x N x K", "median ms", "TFLOP/s",
                     "% cuBLAS", "x prev", "rel err", "vs", "regs", "local", "pred confl ld / st", "kernel");
    for r in rows {
        let pred = r.predicted.map(|p| format!("{} / {}", p.ld.conflicts, p.st.conflicts)).unwrap_or_else(|| "-".into());
        let _ = writeln!(s, "{:<7} {:>16} {:>11} {:>9} {:>9} {:>7} {:>9} {:<8} {:>4} {:>5} {:>21}  {}{}", r.step, r.shape.to_string(),
            f(r.time.as_ref().map(|t| t.median_ms), &|v| format!("{v:.3}")), f(r.tflops, &|v| format!("{v:.2}")),
            f(r.pct_of_cublas, &|v| format!("{:.1}%", 100.0 * v)), f(r.speedup_vs_prev, &|v| format!("{v:.2}")),
            f(r.rel_err, &|v| format!("{v:.1e}")), r.reference,
            r.registers.map(|v| v.to_string()).unwrap_or("-".into()), r.local_bytes.map(|v| v.to_string()).unwrap_or("-".into()), pred, r.kernel,
            match (&r.error, r.failed(), &r.rejected) {
                (Some(e), _, _) => format!("  ERROR: {e}"),
                (None, true, _) => "  FAILED verification".into(),
                (None, false, Some(why)) => format!("  rejected: {why}"),
                _ => String::new(),
            });
    }
    s
}

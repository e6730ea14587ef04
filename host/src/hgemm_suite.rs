//! The suite's HGEMM table: every block step at every size and (with `--check`) on ragged shapes,
//! verified against an f64 CPU reference (small shapes) or cuBLAS (large), timed against cuBLAS
//! `GemmEx` (f16 in/out, f32 compute) in the same run. Rows are `sgemm_suite::Row`s.
use half::f16;
use rand::Rng;

use crate::{
    error::{Error, Result},
    gpu::Gpu,
    hgemm::{self, CublasHgemm, Step, TOL},
    sgemm::Shape,
    sgemm_suite::Row,
    suite::Options,
    timing::time_gpu_budget,
    verify,
};

/// Ragged shapes `--check` adds (not multiples of 128/256/32; K, N not multiples of 8 are rejected by
/// v2–v5 with the constraint named).
pub const CHECK_SHAPES: [(usize, usize, usize); 6] = [(1000, 1000, 1000), (4097, 129, 40), (1, 8, 8), (130, 264, 72), (257, 100, 24), (33, 9, 13)];

/// Runs the family; `failed()` rows fail the suite.
pub fn run(gpu: &Gpu, o: &Options, progress: &mut dyn FnMut(&str)) -> Result<Vec<Row>> {
    let mut shapes: Vec<Shape> = o.gemm_sizes.iter().map(|&n| Shape::new(n, n, n)).collect::<Result<_>>()?;
    if o.check && !o.gemm_sizes_given {
        for &(m, n, k) in &CHECK_SHAPES {
            shapes.push(Shape::new(m, n, k)?);
        }
    }
    let blas = CublasHgemm::new(gpu).ok();
    let mut rows = vec![];
    for s in shapes {
        progress(&format!("hgemm {s}: inputs"));
        let mut rng = verify::rng(o.seed ^ 0xF16 ^ (s.m * 31 + s.n * 7 + s.k) as u64);
        let a: Vec<f16> = (0..s.m * s.k).map(|_| f16::from_f32(rng.random_range(-1.0f32..1.0))).collect();
        let b: Vec<f16> = (0..s.k * s.n).map(|_| f16::from_f32(rng.random_range(-1.0f32..1.0))).collect();
        let bits = |x: &[f16]| x.iter().map(|v| v.to_bits()).collect::<Vec<u16>>();
        let (d_a, d_b) = (gpu.upload(&bits(&a))?, gpu.upload(&bits(&b))?);
        let mut d_c = gpu.zeros::<u16>(s.m * s.n)?;
        let budget = if o.check { 0.0 } else { 300.0 };
        let cpu_ref = s.flops() / 2.0 <= 1.2e9;
        let mut want: Option<Vec<f64>> = if cpu_ref { progress(&format!("hgemm {s}: f64 reference")); Some(hgemm::reference_f64(&a, &b, s)) } else { None };
        let to_f64 = |c: &[u16]| c.iter().map(|&h| f16::from_bits(h).to_f64()).collect::<Vec<f64>>();
        let new_row = |step: &str, kernel: &str, reference: &str| Row { step: step.into(), kernel: kernel.into(), shape: s, time: None, tflops: None,
            pct_of_cublas: None, speedup_vs_prev: None, rel_err: None, reference: reference.into(), registers: None, local_bytes: None,
            error: None, rejected: None, predicted: None };
        let mut blas_row = new_row("cuBLAS", "cublasGemmEx f16/32F", if cpu_ref { "f64 CPU" } else { "(reference)" });
        blas_row.pct_of_cublas = Some(1.0);
        match &blas {
            Some(bl) => {
                bl.gemm(gpu, s, &d_a, &d_b, &mut d_c)?;
                gpu.sync_after("cublasGemmEx")?;
                let c = to_f64(&gpu.download(&d_c)?);
                match &want {
                    Some(w) => blas_row.rel_err = Some(verify::rel_l2(&c, w)),
                    None => want = Some(c),
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
        let mut prev_ms: Option<f64> = None;
        for step in Step::ALL {
            progress(&format!("hgemm {s}: {}", step.label()));
            let mut row = new_row(step.label(), step.kernel_name(), if cpu_ref { "f64 CPU" } else { "cuBLAS" });
            row.predicted = crate::traces::hgemm::launch(step, s);
            let r = (|| -> Result<()> {
                let k = gpu.kernel(step.kernel_name())?;
                let res = k.resources()?;
                (row.registers, row.local_bytes) = (Some(res.registers), Some(res.local_bytes));
                let mut poison = gpu.upload(&vec![0xFFFFu16; s.m * s.n])?; // f16 NaN
                std::mem::swap(&mut poison, &mut d_c);
                hgemm::launch(gpu, &k, step, s, &d_a, &d_b, &mut d_c)?;
                gpu.sync_after(k.name())?;
                let c = gpu.download(&d_c)?;
                let cf: Vec<f32> = c.iter().map(|&h| f16::from_bits(h).to_f32()).collect();
                verify::check_written(k.name(), &cf)?;
                if let Some(w) = &want {
                    row.rel_err = Some(verify::rel_l2(&to_f64(&c), w));
                }
                if !o.check {
                    let t = time_gpu_budget(gpu, o.warmup, o.reps, budget, |_| hgemm::launch(gpu, &k, step, s, &d_a, &d_b, &mut d_c))?;
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
                Err(Error::InvalidInput(why)) if why.contains("must be multiples") => row.rejected = Some(why),
                Err(e) => row.error = Some(e.to_string()),
                Ok(()) => {}
            }
            if row.rel_err.is_some_and(|e| !(e <= TOL)) && row.error.is_none() {
                row.error = Some(format!("relative L2 error above {TOL:.0e}"));
            }
            rows.push(row);
        }
    }
    Ok(rows)
}

//! The `gemm` family: the library's entry point ([`crate::gemm`]) on a sweep of the shapes people run,
//! each verified (f64 CPU reference, or cuBLAS's output compared on the device) and timed interleaved
//! with cuBLAS (`cublasGemmEx`, f16 in/out, 32F compute). The row's label is the configuration the
//! entry point chose (`h6`, `h6+pad`, …) or the one forced with `--config`. At `M ≤ DECODE_MAX_M` (not
//! under `--check`) both are timed on copies of B rotated beyond L2, and a device copy of the same
//! weights (from the same copies) is timed in the same run: the table gives each one's GB/s (A, B, C
//! once) over that copy's (read + written).
use crate::{
    error::Result,
    families::{
        gemm::{self, GemmFamily, GemmRun, Reference, Row, cpu_reference, memory_bytes},
        hgemm::{self, CublasHgemm, Hgemm, HgemmBf16},
    },
    gemm::{DECODE_MAX_M, GemmPlan},
    error::DriverContext,
    runtime::{
        gpu::Gpu,
        timing::{rotation_copies, time_gpu, time_gpu_budget, time_pair},
    },
    steps::{gemm::Elem, hgemm::Step},
};

/// The default sweep when no `--gemm-sizes` are given (M × N × K): decode (M = 1, 16) and small
/// prefill (M = 64, 128, 256) on a 4096² weight; the projections of a 7B decoder (4096 → 11008 / 14336
/// → 4096) at M = 1, 16 and 2048 (and the down projection at M = 256), and of a 70B one (8192 → 28672 → 8192) at M = 1 and 16; sizes off every
/// tile and off 8 (padded: 4095); squares 1024 … 8192.
pub const SWEEP: &[(usize, usize, usize)] = &[
    (1, 4096, 4096), (16, 4096, 4096), (64, 4096, 4096), (128, 4096, 4096), (256, 4096, 4096),
    (1, 14336, 4096), (16, 14336, 4096), (1, 4096, 14336), (16, 4096, 14336), (1, 28672, 8192), (16, 28672, 8192), (1, 8192, 28672), (16, 8192, 28672),
    (2048, 11008, 4096), (2048, 4096, 11008), (2048, 14336, 4096), (256, 4096, 14336),
    (1000, 1000, 1000), (4000, 4000, 4000), (4095, 4095, 4095), (1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
];

/// Shapes `--check` adds: 1×1×1, primes, K = 1, N = 1, ragged and unaligned.
pub const CHECK_SHAPES: &[(usize, usize, usize)] = &[(1, 1, 1), (7, 13, 1), (1, 4095, 4095), (127, 1, 129), (257, 263, 269), (33, 4096, 40), (1031, 1033, 1039)];

/// Runs the entry point on every shape of `o` (configuration chosen per shape, or `config`), verified
/// and timed against cuBLAS. A shape the forced configuration cannot run gets a row naming why.
pub fn run(gpu: &Gpu, o: &GemmRun, config: Option<&'static Step>, elem: Elem, progress: &mut dyn FnMut(&str)) -> Result<Vec<Row>> {
    match elem {
        Elem::Bf16 => run_as::<HgemmBf16>(gpu, o, config, elem, hgemm::TOL_BF16, progress),
        _ => run_as::<Hgemm>(gpu, o, config, Elem::F16, hgemm::TOL, progress),
    }
}

/// [`run`] with family `F`'s inputs, baseline and element conversion (f16: [`Hgemm`], bf16: [`HgemmBf16`]).
fn run_as<F: GemmFamily<Elem = u16, Baseline = CublasHgemm>>(gpu: &Gpu, o: &GemmRun, config: Option<&'static Step>, elem: Elem, tol: f64,
                                                           progress: &mut dyn FnMut(&str)) -> Result<Vec<Row>> {
    let baseline = F::baseline(gpu).ok();
    let mut rows = vec![];
    for &s in &o.shapes {
        // Small M is bound by reading the weights: time on B copies rotated beyond L2, as a model's
        // layers would arrive, against a device copy of the same weights in the same run.
        let bandwidth_bound = !o.check && s.m <= DECODE_MAX_M;
        let rotate = if bandwidth_bound { rotation_copies(2 * s.k * s.n, gpu.info.l2_bytes) } else { 1 };
        // Budget: the family's buffers, the padded plan's staging (at most A, B and C again), B's copies.
        let (device, host) = memory_bytes(2, s);
        let extra = 2 * (s.m * s.k + s.k * s.n * rotate + s.m * s.n) as u64 + (1 << 20);
        crate::runtime::budget::check(gpu, &format!("gemm {s}"), device + extra, host)?;
        progress(&format!("gemm {s}: inputs"));
        let (d_a, d_b) = gemm::inputs::<F>(gpu, s, o.seed)?;
        let mut b_copies = vec![];
        for _ in 1..rotate {
            let mut c = gpu.zeros::<u16>(s.k * s.n)?;
            gpu.stream.memcpy_dtod(&d_b, &mut c).during(|| "copying B for rotation".into())?;
            b_copies.push(c);
        }
        let b_at = |i: usize| match i % rotate {
            0 => &d_b,
            j => &b_copies[j - 1],
        };
        let copy_gbps = if bandwidth_bound { Some(copy_bandwidth(gpu, o, s.k * s.n, &b_at)?) } else { None };
        let mut d_c = gpu.zeros::<u16>(s.m * s.n)?;
        let budget = if o.check { 0.0 } else { 300.0 };
        let cpu_ref = cpu_reference(s);
        let mut want = if cpu_ref { Some(Reference::Host(gemm::host_reference::<F>(gpu, s, &d_a, &d_b)?)) } else { None };
        let mut base = Row::new("cuBLAS", F::BASELINE, s, tol, if cpu_ref { "f64 CPU" } else { "(reference)" });
        base.pct_of_cublas = Some(1.0);
        if let Some(bl) = &baseline {
            progress(&format!("gemm {s}: cuBLAS"));
            match &want {
                Some(w) => base.rel_err = Some(gemm::checked(gpu, F::BASELINE, s, F::KIND, F::to_f64, &mut d_c, w, &mut |c| bl.gemm(gpu, s, &d_a, &d_b, c))?),
                None => {
                    bl.gemm(gpu, s, &d_a, &d_b, &mut d_c)?;
                    gpu.sync_after(F::BASELINE)?;
                    want = Some(Reference::Device(d_c.clone()));
                }
            }
            if !o.check {
                let t = time_gpu_budget(gpu, o.warmup, o.reps, budget, |i| bl.gemm(gpu, s, &d_a, b_at(i), &mut d_c))?;
                base.tflops = Some(s.flops() / (t.median_ms * 1e-3) / 1e12);
                base.time = Some(t);
            }
        } else {
            base.error = Some(format!("{} unavailable", F::BASELINE));
        }
        rows.push(base);
        progress(&format!("gemm {s}: entry point"));
        let mut row = Row::new("gemm", "-", s, tol, if cpu_ref { "f64 CPU" } else { "cuBLAS" });
        let r = (|| -> Result<()> {
            let mut plan = GemmPlan::new(gpu, s, config, elem)?;
            let cfg = plan.config();
            (row.step, row.kernel) = (cfg.label(), cfg.step.kernel.name.to_string());
            row.note = crate::gemm::cluster_note(gpu, cfg.step.grid, s);
            let Some(want) = &want else {
                return Err(crate::Error::InvalidInput(format!("{s} is too large for the CPU reference and {} is unavailable to verify against", F::BASELINE)));
            };
            row.rel_err = Some(gemm::checked(gpu, cfg.step.kernel.name, s, F::KIND, F::to_f64, &mut d_c, want, &mut |c| plan.run(&d_a, &d_b, c))?);
            if !o.check {
                let t = match &baseline {
                    Some(bl) => {
                        let (t, tb) = time_pair(gpu, o.warmup, o.reps, 2.0 * budget, |i, base| {
                            if base { bl.gemm(gpu, s, &d_a, b_at(i), &mut d_c) } else { plan.run(&d_a, b_at(i), &mut d_c) }
                        })?;
                        row.pct_of_cublas = Some(tb.median_ms / t.median_ms);
                        row.baseline_paired = Some(tb);
                        t
                    }
                    None => time_gpu_budget(gpu, o.warmup, o.reps, budget, |i| plan.run(&d_a, b_at(i), &mut d_c))?,
                };
                row.tflops = Some(s.flops() / (t.median_ms * 1e-3) / 1e12);
                if bandwidth_bound {
                    let g = 2.0 * (s.m * s.k + s.k * s.n + s.m * s.n) as f64 / (t.median_ms * 1e-3) / 1e9;
                    (row.gbps, row.pct_of_copy) = (Some(g), copy_gbps.map(|c| g / c));
                    if let (Some(tb), Some(bt)) = (&row.baseline_paired, rows.last_mut()) {
                        let gb = 2.0 * (s.m * s.k + s.k * s.n + s.m * s.n) as f64 / (tb.median_ms * 1e-3) / 1e9;
                        (bt.gbps, bt.pct_of_copy) = (Some(gb), copy_gbps.map(|c| gb / c));
                    }
                }
                row.time = Some(t);
            }
            Ok(())
        })();
        if let Err(e) = r {
            match e {
                crate::Error::InvalidInput(why) if config.is_some() => row.rejected = Some(why),
                e => row.error = Some(e.to_string()),
            }
        }
        rows.push(row);
    }
    Ok(rows)
}

/// The bandwidth (bytes read + written per second, GB/s) of a device-to-device copy of the weights —
/// `len` f16 from the same rotated copies the GEMMs read (`b_at(i)`) — what a kernel that streams the
/// weights once can hope for at this size, launch overhead included.
fn copy_bandwidth<'b>(gpu: &Gpu, o: &GemmRun, len: usize, b_at: &dyn Fn(usize) -> &'b cudarc::driver::CudaSlice<u16>) -> Result<f64> {
    let mut dst = gpu.zeros::<u16>(len)?;
    let t = time_gpu(gpu, o.warmup, o.reps, |i| gpu.stream.memcpy_dtod(b_at(i), &mut dst).during(|| "timing a device copy".into()))?;
    Ok(2.0 * 2.0 * len as f64 / (t.median_ms * 1e-3) / 1e9)
}

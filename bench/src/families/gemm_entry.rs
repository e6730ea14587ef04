//! The `gemm` family: the library's entry points ([`crate::gemm`] for f16/bf16, [`crate::sgemm`] for
//! f32) on a sweep of the shapes people run, each verified (f64 CPU reference, or cuBLAS's output
//! compared on the device) and timed interleaved with cuBLAS (`cublasGemmEx` f16/bf16 in and out with
//! 32F compute; `cublasSgemm` without TF32 for f32). The row's label is the configuration the entry point
//! chose (`h6`, `h6+pad`, `v13`, …) or the one forced with `--config`. At `M ≤ DECODE_MAX_M` (not under
//! `--check`) both are timed on copies of B rotated beyond L2, and each of them is timed once more
//! interleaved with a device copy of the same weights (from the same copies, into as many rotated
//! destinations, ABBA rounds as against cuBLAS): the table gives each one's GB/s (A, B, C once) over
//! the copy's (read + written) in the same blocks.
use std::cell::RefCell;

use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};

use crate::{
    error::Result,
    families::{
        gemm::{self, GemmFamily, GemmRun, Reference, Row, Shape, cpu_reference, memory_bytes},
        hgemm::{self, Hgemm, HgemmBf16},
        sgemm::Sgemm,
    },
    gemm::{DECODE_MAX_M, HalfPlan},
    error::DriverContext,
    runtime::{
        gpu::Gpu,
        timing::{rotation_copies, time_gpu_budget, time_pair},
    },
    sgemm::SgemmPlan,
    tune::TuneCache,
    steps::{gemm::Elem, hgemm::Step, sgemm::Step as SgemmStep},
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

/// The f32 sweep (`--dtype f32` without `--gemm-sizes`): decode and small prefill on 4096² weights
/// (M = 1 … 512), the 7B projections at M = 1 and 16, a skinny and the odd and small squares where
/// SGEMM's 128×128 tiles are few (127×8191×1024, 512³, 1000³, 1024³), 2048³, 4096³, and (session 19)
/// the large ragged square 4000³.
pub const SWEEP_F32: &[(usize, usize, usize)] = &[
    (1, 4096, 4096), (4, 4096, 4096), (16, 4096, 4096), (32, 4096, 4096), (64, 4096, 4096), (128, 4096, 4096), (256, 4096, 4096),
    (512, 4096, 4096), (1, 14336, 4096), (16, 14336, 4096), (1, 4096, 14336), (16, 4096, 14336),
    (127, 8191, 1024), (512, 512, 512), (1000, 1000, 1000), (1024, 1024, 1024), (2048, 2048, 2048), (4000, 4000, 4000), (4096, 4096, 4096),
];

/// A configuration ready to run on one shape: its label, kernel name, a note for the table, and the
/// launch.
struct Planned<'g, T> {
    label: String,
    kernel: String,
    note: Option<String>,
    run: Box<dyn FnMut(&CudaSlice<T>, &CudaSlice<T>, &mut CudaSlice<T>) -> Result<()> + 'g>,
}

/// Runs the entry point on every shape of `o` (configuration chosen per shape, or `config`, or — with
/// `tune` — taken from that autotune cache, tuning the shapes it lacks), verified and timed against
/// cuBLAS. A shape the forced configuration cannot run gets a row naming why.
pub fn run(gpu: &Gpu, o: &GemmRun, config: Option<&'static Step>, elem: Elem, tune: Option<&RefCell<TuneCache>>, progress: &mut dyn FnMut(&str)) -> Result<Vec<Row>> {
    let forced = config.is_some();
    let plan16 = |elem: Elem| move |s: Shape| -> Result<Planned<'_, u16>> {
        let (mut plan, tuned) = match tune {
            Some(cache) => {
                let (p, t) = crate::tune::plan16(gpu, s, elem, &mut cache.borrow_mut())?;
                (p, Some(t))
            }
            None => (HalfPlan::new(gpu, s, config, elem)?, None),
        };
        let cfg = plan.config();
        let note = [tuned.map(|t| t.note()), crate::gemm::cluster_note(gpu, cfg.step.grid, s)].into_iter().flatten().collect::<Vec<_>>();
        Ok(Planned { label: cfg.label(), kernel: cfg.step.kernel.name.to_string(), note: (!note.is_empty()).then(|| note.join("; ")),
                     run: Box::new(move |a, b, c| plan.run(a, b, c)) })
    };
    match elem {
        Elem::Bf16 => run_as::<HgemmBf16>(gpu, o, forced, hgemm::TOL_BF16, &plan16(Elem::Bf16), progress),
        Elem::F16 => run_as::<Hgemm>(gpu, o, forced, hgemm::TOL, &plan16(Elem::F16), progress),
        Elem::F32 => Err(crate::Error::InvalidInput("the f32 entry point runs through gemm_entry::run_f32 (an SGEMM step as --config)".into())),
    }
}

/// [`run`] for f32: the SGEMM entry point ([`crate::sgemm`]) against `cublasSgemm`, `config` forcing a
/// step of the SGEMM ladder, or `tune` an autotune cache.
pub fn run_f32(gpu: &Gpu, o: &GemmRun, config: Option<&'static SgemmStep>, tune: Option<&RefCell<TuneCache>>, progress: &mut dyn FnMut(&str)) -> Result<Vec<Row>> {
    let plan = |s: Shape| -> Result<Planned<'_, f32>> {
        let (mut plan, tuned) = match tune {
            Some(cache) => {
                let (p, t) = crate::tune::plan32(gpu, s, &mut cache.borrow_mut())?;
                (p, Some(t))
            }
            None => (SgemmPlan::new(gpu, s, config)?, None),
        };
        let st = plan.step();
        let (splits, k_split) = st.split_k(s.m as u32, s.n as u32, s.k as u32, gpu.info.sms, 1);
        let note = [tuned.map(|t| t.note()), (splits > 1).then(|| format!("K split {splits} ways ({k_split} deep), sums added into a zeroed C"))]
            .into_iter().flatten().collect::<Vec<_>>();
        Ok(Planned { label: st.kernel.step.to_string(), kernel: st.kernel.name.to_string(), note: (!note.is_empty()).then(|| note.join("; ")),
                     run: Box::new(move |a, b, c| plan.run(a, b, c)) })
    };
    run_as::<Sgemm>(gpu, o, config.is_some(), 1e-5, &plan, progress)
}

/// [`run`] with family `F`'s inputs, baseline and element conversion, the entry point planned by `plan`.
fn run_as<'g, F: GemmFamily>(gpu: &'g Gpu, o: &GemmRun, forced: bool, tol: f64, plan: &dyn Fn(Shape) -> Result<Planned<'g, F::Elem>>,
                              progress: &mut dyn FnMut(&str)) -> Result<Vec<Row>>
where
    F::Elem: DeviceRepr + ValidAsZeroBits,
{
    let elem_bytes = std::mem::size_of::<F::Elem>();
    let baseline = F::baseline(gpu).ok();
    let mut rows = vec![];
    for &s in &o.shapes {
        // Small M is bound by reading the weights: time on B copies rotated beyond L2, as a model's
        // layers would arrive, against a device copy of the same weights in the same run.
        let bandwidth_bound = !o.check && s.m <= DECODE_MAX_M;
        let rotate = if bandwidth_bound { rotation_copies(elem_bytes * s.k * s.n, gpu.info.l2_bytes) } else { 1 };
        // The device copy's destinations: as many as B's copies, so that the copy, like the GEMMs, finds
        // neither its source nor its destination in the L2 (one with `KERNEL_LAB_COPY_FIXED_DST=1`, as
        // before session 30).
        let copy_dsts = match (bandwidth_bound, crate::runtime::tuning::copy_fixed_dst()) {
            (false, _) => 0,
            (true, true) => 1,
            (true, false) => rotate,
        };
        // Budget: the family's buffers, the padded plan's staging (at most A, B and C again), B's copies,
        // the copy's destinations.
        let (device, host) = memory_bytes(elem_bytes as u64, s);
        let extra = (elem_bytes * (s.m * s.k + s.k * s.n * (rotate + copy_dsts) + s.m * s.n)) as u64 + (1 << 20);
        crate::runtime::budget::check(gpu, &format!("gemm {s}"), device + extra, host)?;
        progress(&format!("gemm {s}: inputs"));
        let (d_a, d_b) = gemm::inputs::<F>(gpu, s, o.seed)?;
        let mut b_copies = vec![];
        for _ in 1..rotate {
            let mut c = gpu.zeros::<F::Elem>(s.k * s.n)?;
            gpu.stream.memcpy_dtod(&d_b, &mut c).during(|| "copying B for rotation".into())?;
            b_copies.push(c);
        }
        let b_at = |i: usize| match i % rotate {
            0 => &d_b,
            j => &b_copies[j - 1],
        };
        // `KERNEL_LAB_CHAIN`: each repetition chains that many launches (ours, cuBLAS's, the copy's),
        // each on the next rotated B; times are reported per launch.
        let chain = crate::runtime::tuning::launch_chain();
        let mut copy_dst = (0..copy_dsts).map(|_| gpu.zeros::<F::Elem>(s.k * s.n)).collect::<Result<Vec<_>>>()?;
        let bytes = (elem_bytes * (s.m * s.k + s.k * s.n + s.m * s.n)) as f64;
        let mut d_c = gpu.zeros::<F::Elem>(s.m * s.n)?;
        let budget = if o.check { 0.0 } else { 300.0 };
        let cpu_ref = cpu_reference(s);
        let mut want = if cpu_ref { Some(Reference::Host(gemm::host_reference::<F>(gpu, s, &d_a, &d_b)?)) } else { None };
        let mut base = Row::new("cuBLAS", F::BASELINE, s, tol, if cpu_ref { "f64 CPU" } else { "(reference)" });
        base.pct_of_cublas = Some(1.0);
        if let Some(bl) = &baseline {
            progress(&format!("gemm {s}: cuBLAS"));
            match &want {
                Some(w) => base.rel_err = Some(gemm::checked(gpu, F::BASELINE, s, F::KIND, F::to_f64, &mut d_c, w, &mut |c| F::run_baseline(bl, gpu, s, &d_a, &d_b, c))?),
                None => {
                    F::run_baseline(bl, gpu, s, &d_a, &d_b, &mut d_c)?;
                    gpu.sync_after(F::BASELINE)?;
                    want = Some(Reference::Device(d_c.clone()));
                }
            }
            if !o.check {
                let t = time_gpu_budget(gpu, o.warmup, o.reps, budget, |i| {
                    (0..chain).try_for_each(|j| F::run_baseline(bl, gpu, s, &d_a, b_at(i * chain + j), &mut d_c))
                })?.per_launch(chain);
                base.tflops = Some(s.flops() / (t.median_ms * 1e-3) / 1e12);
                if !copy_dst.is_empty() {
                    base.gbps = Some(bytes / (t.median_ms * 1e-3) / 1e9);
                    base.pct_of_copy = Some(against_copy(gpu, o, budget, chain, bytes, &mut copy_dst, &b_at,
                                                         &mut |b, c| F::run_baseline(bl, gpu, s, &d_a, b, c), &mut d_c)?);
                }
                base.time = Some(t);
            }
        } else {
            base.error = Some(format!("{} unavailable", F::BASELINE));
        }
        rows.push(base);
        progress(&format!("gemm {s}: entry point"));
        let mut row = Row::new("gemm", "-", s, tol, if cpu_ref { "f64 CPU" } else { "cuBLAS" });
        let r = (|| -> Result<()> {
            let mut planned = plan(s)?;
            (row.step, row.kernel, row.note) = (planned.label.clone(), planned.kernel.clone(), planned.note.clone());
            let Some(want) = &want else {
                return Err(crate::Error::InvalidInput(format!("{s} is too large for the CPU reference and {} is unavailable to verify against", F::BASELINE)));
            };
            row.rel_err = Some(gemm::checked(gpu, &planned.kernel, s, F::KIND, F::to_f64, &mut d_c, want, &mut |c| (planned.run)(&d_a, &d_b, c))?);
            if !o.check {
                let t = match &baseline {
                    Some(bl) => {
                        let (t, tb) = time_pair(gpu, o.warmup, o.reps, 2.0 * budget, |i, base| {
                            (0..chain).try_for_each(|j| {
                                let b = b_at(i * chain + j);
                                if base { F::run_baseline(bl, gpu, s, &d_a, b, &mut d_c) } else { (planned.run)(&d_a, b, &mut d_c) }
                            })
                        })?;
                        let (t, tb) = (t.per_launch(chain), tb.per_launch(chain));
                        row.pct_of_cublas = Some(tb.median_ms / t.median_ms);
                        row.baseline_paired = Some(tb);
                        t
                    }
                    None => time_gpu_budget(gpu, o.warmup, o.reps, budget, |i| {
                        (0..chain).try_for_each(|j| (planned.run)(&d_a, b_at(i * chain + j), &mut d_c))
                    })?.per_launch(chain),
                };
                row.tflops = Some(s.flops() / (t.median_ms * 1e-3) / 1e12);
                if !copy_dst.is_empty() {
                    row.gbps = Some(bytes / (t.median_ms * 1e-3) / 1e9);
                    row.pct_of_copy = Some(against_copy(gpu, o, budget, chain, bytes, &mut copy_dst, &b_at, &mut |b, c| (planned.run)(&d_a, b, c), &mut d_c)?);
                    if let (Some(tb), Some(bt)) = (&row.baseline_paired, rows.last_mut()) {
                        bt.gbps = Some(bytes / (tb.median_ms * 1e-3) / 1e9);
                    }
                }
                row.time = Some(t);
            }
            Ok(())
        })();
        if let Err(e) = r {
            match e {
                crate::Error::InvalidInput(why) if forced => row.rejected = Some(why),
                e => row.error = Some(e.to_string()),
            }
        }
        rows.push(row);
    }
    Ok(rows)
}

/// `run` (reading `bytes` of A, B and C once per launch) timed interleaved with a device-to-device copy
/// of the weights — both on the same rotated copies (`b_at(i)`), the copy into destination `i` of
/// `dsts` (taken in turn, like the weights), ABBA rounds as [`time_pair`] times a step against cuBLAS,
/// launch overhead included in both — and its bandwidth over the copy's (bytes read + written) from the
/// same blocks: what a kernel that streams the weights once can hope for at this size. With `chain` > 1,
/// chains of that many launches and copies.
#[allow(clippy::too_many_arguments)]
fn against_copy<'b, T: DeviceRepr + ValidAsZeroBits>(gpu: &Gpu, o: &GemmRun, budget: f64, chain: usize, bytes: f64, dsts: &mut [CudaSlice<T>],
                                                      b_at: &dyn Fn(usize) -> &'b CudaSlice<T>,
                                                      run: &mut dyn FnMut(&CudaSlice<T>, &mut CudaSlice<T>) -> Result<()>,
                                                      d_c: &mut CudaSlice<T>) -> Result<f64> {
    let Some(first) = dsts.first() else {
        return Err(crate::Error::InvalidInput("timing against a device copy needs a destination".into()));
    };
    let copied = 2.0 * (std::mem::size_of::<T>() * first.len()) as f64;
    let n_dst = dsts.len();
    let (t, t_copy) = time_pair(gpu, o.warmup, o.reps, 2.0 * budget, |i, copy| {
        (0..chain).try_for_each(|j| {
            let b = b_at(i * chain + j);
            if copy { gpu.stream.memcpy_dtod(b, &mut dsts[(i * chain + j) % n_dst]).during(|| "timing a device copy".into()) } else { run(b, d_c) }
        })
    })?;
    Ok(copy_ratio(bytes, t.per_launch(chain).median_ms, copied, t_copy.per_launch(chain).median_ms))
}

/// What one `gemm` table says about the targets: over the rows of the entry point timed against
/// cuBLAS (verified, not rejected), the geometric mean of `% cuBLAS`, the lowest row, the rows under
/// 90%, and over the rows with a `% of copy` (M ≤ 64) the lowest of those.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Rows timed against cuBLAS (the geometric mean's count).
    pub timed: usize,
    /// Rows that failed verification or ended in an error (not in the mean).
    pub failed: usize,
    /// The geometric mean of `% cuBLAS` (1.0: cuBLAS's speed).
    pub geomean_of_cublas: f64,
    /// The lowest `% cuBLAS`: step, shape, ratio.
    pub lowest: (String, String, f64),
    /// Every row under 0.90 of cuBLAS, lowest first.
    pub under_90: Vec<(String, String, f64)>,
    /// The lowest `% of copy` among the rows with M ≤ 16 (the decode target: 85%).
    pub lowest_of_copy_m16: Option<(String, String, f64)>,
    /// The lowest `% of copy` among all rows that have one (M ≤ 64).
    pub lowest_of_copy: Option<(String, String, f64)>,
}

/// The [`Summary`] of a `gemm` table's rows (`None`: no row of the entry point was timed against cuBLAS —
/// `--check`, or no baseline).
pub fn summary(rows: &[Row]) -> Option<Summary> {
    let ours = || rows.iter().filter(|r| r.baseline_paired.is_some());
    let timed: Vec<(String, String, f64)> = ours().filter(|r| !r.failed())
        .filter_map(|r| r.pct_of_cublas.filter(|p| p.is_finite() && *p > 0.0).map(|p| (r.step.clone(), r.shape.to_string(), p))).collect();
    let by_ratio = |a: &(String, String, f64), b: &(String, String, f64)| a.2.total_cmp(&b.2);
    let lowest = timed.iter().min_by(|a, b| by_ratio(a, b))?.clone();
    let mut under_90: Vec<_> = timed.iter().filter(|t| t.2 < 0.9).cloned().collect();
    under_90.sort_by(by_ratio);
    let of_copy = |max_m: usize| ours().filter(|r| !r.failed() && r.shape.m <= max_m)
        .filter_map(|r| r.pct_of_copy.map(|p| (r.step.clone(), r.shape.to_string(), p))).min_by(by_ratio);
    Some(Summary {
        timed: timed.len(),
        failed: rows.iter().filter(|r| r.failed()).count(),
        geomean_of_cublas: (timed.iter().map(|t| t.2.ln()).sum::<f64>() / timed.len() as f64).exp(),
        lowest,
        under_90,
        lowest_of_copy_m16: of_copy(16),
        lowest_of_copy: of_copy(usize::MAX),
    })
}

/// [`Summary`] as the lines printed under a `gemm` table.
pub fn summary_text(s: &Summary) -> String {
    let pct = |v: f64| format!("{:.1}%", 100.0 * v);
    let row = |t: &(String, String, f64)| format!("{} {} {}", t.0, t.1, pct(t.2));
    let mut out = format!("summary: geometric mean {} of cuBLAS over {} shapes timed ({:.3}×); lowest {}", pct(s.geomean_of_cublas), s.timed,
                          s.geomean_of_cublas, row(&s.lowest));
    if s.failed > 0 {
        out += &format!("; {} row(s) failed (not in the mean)", s.failed);
    }
    out += &format!("\n  under 90% of cuBLAS: {}", if s.under_90.is_empty() { "none".into() } else { s.under_90.iter().map(row).collect::<Vec<_>>().join(", ") });
    if let Some(c) = &s.lowest_of_copy {
        out += &format!("\n  lowest % of copy: {} (M ≤ {DECODE_MAX_M}); {} (M ≤ 16)", row(c), s.lowest_of_copy_m16.as_ref().map_or("none".into(), row));
    }
    out + "\n"
}

/// A kernel's bandwidth over a copy's: `bytes` in `ms` against `copied` bytes (read + written) in
/// `copy_ms` — the `% of copy` column.
fn copy_ratio(bytes: f64, ms: f64, copied: f64, copy_ms: f64) -> f64 {
    (bytes / ms) / (copied / copy_ms)
}

#[cfg(test)]
mod tests {
    use super::{Row, Shape, copy_ratio, summary, summary_text};
    use crate::runtime::timing::Stats;

    #[test]
    fn the_summary_is_the_geometric_mean_of_our_rows_and_names_the_low_ones() {
        let paired = Stats { median_ms: 1.0, min_ms: 1.0, max_ms: 1.0, reps: 4, ended_unix_ms: 0, blocks_unix_ms: vec![] };
        let row = |step: &str, m: usize, pct: f64| {
            let mut r = Row::new(step, "k", Shape::new(m, 4096, 4096).unwrap(), 1e-3, "cuBLAS");
            (r.pct_of_cublas, r.baseline_paired, r.rel_err) = (Some(pct), Some(paired.clone()), Some(1e-5));
            r
        };
        let mut cublas = Row::new("cuBLAS", "cublasGemmEx", Shape::new(1, 4096, 4096).unwrap(), 1e-3, "(reference)");
        cublas.pct_of_cublas = Some(1.0);
        let mut d15 = row("d15", 1, 1.2);
        d15.pct_of_copy = Some(0.84);
        let mut d16 = row("d16", 64, 1.0);
        d16.pct_of_copy = Some(0.79);
        let mut bad = row("h6s4", 4096, 2.0);
        bad.rel_err = Some(1.0); // failed verification: out of the mean
        let rows = [cublas, d15, d16, row("d7", 256, 0.85), row("h6s4", 8192, 1.0), bad];
        let s = summary(&rows).unwrap();
        assert_eq!((s.timed, s.failed), (4, 1));
        assert!((s.geomean_of_cublas - (1.2f64 * 1.0 * 0.85 * 1.0).powf(1.0 / 4.0)).abs() < 1e-12, "{}", s.geomean_of_cublas);
        assert_eq!(s.lowest, ("d7".into(), "256x4096x4096".into(), 0.85));
        assert_eq!(s.under_90, vec![("d7".into(), "256x4096x4096".into(), 0.85)]);
        assert_eq!(s.lowest_of_copy, Some(("d16".into(), "64x4096x4096".into(), 0.79)));
        assert_eq!(s.lowest_of_copy_m16, Some(("d15".into(), "1x4096x4096".into(), 0.84)));
        let t = summary_text(&s);
        assert!(t.contains("geometric mean 100.5%") && t.contains("lowest d7 256x4096x4096 85.0%") && t.contains("1 row(s) failed")
                && t.contains("lowest % of copy: d16 64x4096x4096 79.0% (M ≤ 64); d15 1x4096x4096 84.0% (M ≤ 16)"), "{t}");
        // Nothing timed (a --check run): no summary.
        assert_eq!(summary(&rows[..1]), None);
    }

    #[test]
    fn copy_ratio_compares_bytes_per_time() {
        // A kernel reading 32 MB in 15 µs against a copy moving 64 MB (32 read, 32 written) in 26 µs.
        let r = copy_ratio(32e6, 0.015, 64e6, 0.026);
        assert!((r - (32e6 / 0.015) / (64e6 / 0.026)).abs() < 1e-12);
        assert!((r - 0.8667).abs() < 1e-3, "{r}");
        // Same bytes in the same time: 100%; twice as fast: 200%.
        assert_eq!(copy_ratio(1.0, 1.0, 1.0, 1.0), 1.0);
        assert_eq!(copy_ratio(1.0, 0.5, 1.0, 1.0), 2.0);
    }
}

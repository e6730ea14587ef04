//! The attention family (issue 17): per shape and element type, Q, K, V from the device RNG; the
//! unfused baseline (a1) and the fused kernel (a2) each checked — O and the log-sum-exp by relative L2 —
//! against the f64 CPU reference (small shapes) or, beyond it, the fused
//! output against the unfused one on the device; then the fused kernel timed interleaved with the
//! unfused path. TFLOP/s count `4·B·H·L²·D` (halved with the causal mask), as FlashAttention's papers do.
//!
//! **Tolerances.** P is rounded to the 16-bit input type before `P·V` (in both paths), then O to it:
//! measured on an H100 (random inputs in [-1, 1), every shape of the sweep and the check list): f16
//! 2.4–4.3e-4, bf16 1.9–3.2e-3 in L2, both paths; [`O_TOL`] allows 2e-3 (f16) and 1e-2 (bf16), 5× and
//! 3× above — a wrong mask, a lost rescale or a misplaced fragment is off by 10–100%. The LSE (≈ ln L)
//! comes from f32 scores: measured 3e-8–7e-8 relative; [`LSE_TOL`] 1e-5 (one missing key at L = 100
//! moves it by ~2e-3).
use cudarc::driver::CudaSlice;

use crate::{
    attention::{AttnShape, Flash, Unfused, reference_f64},
    error::{Error, Result},
    runtime::{
        device_check::{self, Dist, ElemKind},
        gpu::Gpu,
        timing::{Stats, time_gpu_budget, time_pair},
        verify,
    },
    steps::{attention::{Kind, Step, all_of}, gemm::Elem},
};

/// The default shapes `(batch, heads, len, head_dim)`, each causal and not: 16K tokens of 16 heads at
/// L = 4096 and 16384, head dims 64 and 128 (the table).
pub const SWEEP: &[(usize, usize, usize, usize)] = &[(4, 16, 4096, 64), (4, 16, 4096, 128), (1, 16, 16384, 64), (1, 16, 16384, 128)];

/// Shapes `--check` adds (each causal and not): one query, lengths off every tile, one head.
pub const CHECK_SHAPES: &[(usize, usize, usize, usize)] = &[(1, 2, 1, 64), (1, 3, 100, 64), (2, 2, 257, 128), (1, 1, 64, 128), (2, 1, 200, 64), (1, 4, 1030, 128)];

/// Relative L2 tolerance of O for `elem` (see the module doc).
pub fn o_tol(elem: Elem) -> f64 {
    if elem == Elem::Bf16 { 1e-2 } else { 2e-3 }
}
/// [`o_tol`] for f16, as a constant for the docs.
pub const O_TOL: f64 = 2e-3;
/// Relative L2 tolerance of the LSE.
pub const LSE_TOL: f64 = 1e-5;

/// Largest `B·H·L²·D` checked against the CPU reference.
const CPU_REF_MAX: f64 = 4e8;

/// What one run covers.
#[derive(Clone, Debug)]
pub struct AttnRun {
    /// Shapes (each with its causal flag).
    pub shapes: Vec<AttnShape>,
    /// Element types.
    pub elems: Vec<Elem>,
    /// Timed repetitions (a cap; timing also stops at a time budget).
    pub reps: usize,
    /// Untimed warm-up runs.
    pub warmup: usize,
    /// Verify only.
    pub check: bool,
    /// Time each fused step alone (`time_gpu_budget`: warm-up, then `reps` or 1 s), not interleaved with
    /// the unfused path. Interleaved, each block of the fused step follows a block of cuBLAS GEMMs and
    /// the softmax; on an H100 that neighbour holds the card at its power limit, and the SM clock
    /// measured during the suite's attention timing fell to 1.6–1.77 GHz (session 12, call 6) where
    /// torch's peer script, timing short bursts from idle, ran at 1.98 GHz.
    pub solo: bool,
    /// Solo only: milliseconds the GPU is left idle before each fused step's timing (0: none). With few
    /// repetitions the step is then timed as a burst from an idle card, as torch's peer script's
    /// `--idle-ms` times SDPA: each side at the clock an idle card boosts to. Without it a step's timing
    /// follows the unfused path's and the previous steps' (the card warm, near its power limit).
    pub idle_ms: u64,
    /// Only these fused steps (kernel names; `--steps`), `None`: all. The unfused path always runs (the
    /// reference beyond the CPU's sizes).
    pub only: Option<Vec<&'static str>>,
    /// Random seed.
    pub seed: u64,
}

/// One row of the table.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AttnRow {
    /// `a1`, `a2-d128`, …
    pub step: String,
    /// The kernel.
    pub kernel: String,
    /// The shape.
    pub shape: AttnShape,
    /// f16 or bf16.
    pub elem: Elem,
    /// GPU time.
    pub time: Option<Stats>,
    /// TFLOP/s at the median.
    pub tflops: Option<f64>,
    /// The unfused path's time over this one's, timed interleaved (fused rows).
    pub vs_unfused: Option<f64>,
    /// Relative L2 error of O.
    pub o_err: Option<f64>,
    /// Relative L2 error of the LSE.
    pub lse_err: Option<f64>,
    /// What the errors are measured against.
    pub reference: String,
    /// What failed.
    pub error: Option<String>,
    /// Why the step did not run on this GPU (a6 needs `sm_90a` code): not a failure.
    pub skipped: Option<String>,
}

impl AttnRow {
    fn new(step: &str, kernel: &str, shape: AttnShape, elem: Elem, reference: &str) -> AttnRow {
        AttnRow { step: step.into(), kernel: kernel.into(), shape, elem, time: None, tflops: None, vs_unfused: None, o_err: None, lse_err: None,
                  reference: reference.into(), error: None, skipped: None }
    }

    /// Whether verification failed.
    pub fn failed(&self) -> bool {
        self.error.is_some() || self.o_err.is_some_and(|e| !(e <= o_tol(self.elem))) || self.lse_err.is_some_and(|e| !(e <= LSE_TOL))
    }
}

fn kind(elem: Elem) -> ElemKind {
    if elem == Elem::Bf16 { ElemKind::Bf16 } else { ElemKind::F16 }
}

fn to_f64(elem: Elem, x: u16) -> f64 {
    if elem == Elem::Bf16 { half::bf16::from_bits(x).to_f64() } else { half::f16::from_bits(x).to_f64() }
}

/// What the outputs are compared with.
enum Want {
    /// f64 O and LSE from the CPU.
    Host(Vec<f64>, Vec<f64>),
    /// The unfused path's O and LSE on the device.
    Device(CudaSlice<u16>, CudaSlice<f32>),
}

/// `(O rel L2, LSE rel L2)` of `o`, `lse` against `want`, after checking every element written
/// (the outputs are poisoned with NaN before each checked run).
fn compare(gpu: &Gpu, elem: Elem, what: &str, o: &CudaSlice<u16>, lse: &CudaSlice<f32>, want: &Want) -> Result<(f64, f64)> {
    match want {
        Want::Host(wo, wl) => {
            let go: Vec<f64> = gpu.download(o)?.into_iter().map(|x| to_f64(elem, x)).collect();
            let gl: Vec<f64> = gpu.download(lse)?.into_iter().map(f64::from).collect();
            if let Some(i) = go.iter().position(|v| v.is_nan()) {
                return Err(Error::Verification(format!("{what}: O not fully written (first NaN at {i})")));
            }
            if let Some(i) = gl.iter().position(|v| v.is_nan()) {
                return Err(Error::Verification(format!("{what}: LSE not fully written (first NaN at {i})")));
            }
            Ok((verify::rel_l2(&go, wo), verify::rel_l2(&gl, wl)))
        }
        Want::Device(wo, wl) => {
            let c = device_check::compare(gpu, o, wo, kind(elem))?;
            c.check(what, o.len(), f64::INFINITY)?;
            let cl = device_check::compare(gpu, lse, wl, ElemKind::F32)?;
            cl.check(what, lse.len(), f64::INFINITY)?;
            Ok((c.rel_l2, cl.rel_l2))
        }
    }
}

/// Q, K and V of shape `s` from the device RNG (uniform in [-1, 1), seeded per shape from `seed`), after
/// checking that the device holds them, the outputs and the unfused path (and the host the CPU
/// reference where it applies); also whether the CPU reference applies (`B·H·L²·D ≤` [`CPU_REF_MAX`]).
fn inputs(gpu: &Gpu, s: AttnShape, elem: Elem, seed: u64) -> Result<(CudaSlice<u16>, CudaSlice<u16>, CudaSlice<u16>, bool)> {
    let n = s.elems();
    let device = 4 * 2 * n as u64 + 2 * 4 * (s.heads_total() * s.len) as u64 + Unfused::extra_bytes(s) + 2 * n as u64;
    let cpu_ref = s.heads_total() as f64 * (s.len as f64).powi(2) * s.head_dim as f64 <= CPU_REF_MAX;
    crate::runtime::budget::check(gpu, &format!("attention {s}"), device, if cpu_ref { 8 * 5 * n as u64 } else { 1 << 20 })?;
    let seed = seed ^ (s.len * 131 + s.head_dim * 7 + s.heads_total()) as u64;
    let rnd = |salt: u64| -> Result<CudaSlice<u16>> { device_check::random(gpu, n, kind(elem), Dist::Symmetric, seed ^ salt) };
    Ok((rnd(0x51)?, rnd(0x4B)?, rnd(0x56)?, cpu_ref))
}

/// Runs the family: every shape × element type of `o`.
pub fn run(gpu: &Gpu, o: &AttnRun, progress: &mut dyn FnMut(&str)) -> Result<Vec<AttnRow>> {
    let mut rows = vec![];
    for &s in &o.shapes {
        for &elem in &o.elems {
            progress(&format!("attention {s} {elem:?}"));
            let n = s.elems();
            let (q, k, v, cpu_ref) = inputs(gpu, s, elem, o.seed)?;
            let scale = s.default_scale();
            let (mut out, mut lse) = (gpu.zeros::<u16>(n)?, gpu.zeros::<f32>(s.heads_total() * s.len)?);
            let reference = if cpu_ref { "f64 CPU" } else { "unfused" };
            let host_want = if cpu_ref {
                let f = |x: &CudaSlice<u16>| -> Result<Vec<f64>> { Ok(gpu.download(x)?.into_iter().map(|e| to_f64(elem, e)).collect()) };
                let (wo, wl) = reference_f64(s, scale as f64, &f(&q)?, &f(&k)?, &f(&v)?);
                Some(Want::Host(wo, wl))
            } else {
                None
            };
            // The unfused baseline: checked against the CPU where it can be, else it is the reference.
            let mut unfused = Unfused::new(gpu, s, elem);
            let mut base = AttnRow::new("a1", unfused.as_ref().map(|u| u.step().kernel.name).unwrap_or("attn_softmax"), s, elem, if cpu_ref { "f64 CPU" } else { "(reference)" });
            let mut want = host_want;
            let r = (|| -> Result<()> {
                let u = unfused.as_mut().map_err(|e| Error::InvalidInput(e.to_string()))?;
                gpu.poison(&mut out)?;
                gpu.poison(&mut lse)?;
                u.run(gpu, scale, &q, &k, &v, &mut out, &mut lse)?;
                gpu.sync_after(u.step().kernel.name)?;
                match &want {
                    Some(w) => (base.o_err, base.lse_err) = compare(gpu, elem, &format!("unfused {s}"), &out, &lse, w).map(|(a, b)| (Some(a), Some(b)))?,
                    None => want = Some(Want::Device(out.clone(), lse.clone())),
                }
                if !o.check {
                    let t = time_gpu_budget(gpu, o.warmup, o.reps, 500.0, |_| u.run(gpu, scale, &q, &k, &v, &mut out, &mut lse))?;
                    base.tflops = Some(s.flops() / (t.median_ms * 1e-3) / 1e12);
                    base.time = Some(t);
                }
                Ok(())
            })();
            if let Err(e) = r {
                base.error = Some(e.to_string());
            }
            rows.push(base);
            // The fused kernels (a2, a3), each checked and timed interleaved with the unfused path.
            for step in all_of(Kind::Flash, s.head_dim as u32, elem) {
                if o.only.as_ref().is_some_and(|l| !l.contains(&step.kernel.name)) {
                    continue;
                }
                let mut row = AttnRow::new(step.kernel.step, step.kernel.name, s, elem, reference);
                if let Some(why) = gpu.cannot_run(&step.kernel) {
                    row.skipped = Some(why);
                    rows.push(row);
                    continue;
                }
                let r = (|| -> Result<()> {
                    let Some(w) = &want else {
                        return Err(Error::InvalidInput(format!("{s} is too large for the CPU reference and the unfused path did not run")));
                    };
                    let f = Flash::new(gpu, step)?;
                    gpu.poison(&mut out)?;
                    gpu.poison(&mut lse)?;
                    f.run(gpu, s, scale, &q, &k, &v, &mut out, &mut lse)?;
                    gpu.sync_after(step.kernel.name)?;
                    let (eo, el) = compare(gpu, elem, &format!("{} {s}", step.kernel.name), &out, &lse, w)?;
                    (row.o_err, row.lse_err) = (Some(eo), Some(el));
                    if !o.check {
                        let t = match unfused.as_mut() {
                            Ok(u) if !o.solo => {
                                let (t, tb) = time_pair(gpu, o.warmup, o.reps, 1000.0, |_, b| {
                                    if b { u.run(gpu, scale, &q, &k, &v, &mut out, &mut lse) } else { f.run(gpu, s, scale, &q, &k, &v, &mut out, &mut lse) }
                                })?;
                                row.vs_unfused = Some(tb.median_ms / t.median_ms);
                                t
                            }
                            _ => {
                                if o.idle_ms > 0 {
                                    std::thread::sleep(std::time::Duration::from_millis(o.idle_ms));
                                }
                                time_gpu_budget(gpu, o.warmup, o.reps, if o.solo { 1000.0 } else { 500.0 }, |_| f.run(gpu, s, scale, &q, &k, &v, &mut out, &mut lse))?
                            }
                        };
                        row.tflops = Some(s.flops() / (t.median_ms * 1e-3) / 1e12);
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
    }
    Ok(rows)
}

/// One row of `kernel-lab ab --family attention`: two fused steps on one shape, both verified, then
/// timed interleaved in rounds of blocks.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AttnAbRow {
    /// The shape.
    pub shape: AttnShape,
    /// f16 or bf16 (both steps').
    pub elem: Elem,
    /// Step A's label and kernel.
    pub a: (String, String),
    /// Step B's label and kernel.
    pub b: (String, String),
    /// A's and B's times, the ratio, per round too.
    #[serde(flatten)]
    pub times: crate::runtime::timing::AbTimes,
    /// Relative L2 error of A's and B's O against the reference.
    pub o_err: (f64, f64),
    /// Relative L2 error of A's and B's log-sum-exp against the reference.
    pub lse_err: (f64, f64),
    /// What the errors were measured against (`f64 CPU` or the unfused path).
    pub reference: String,
}

/// Fused steps `a` and `b` (one head dim, one element type) on each shape of `o` with their head dim:
/// Q, K, V from the device RNG, both steps checked against the f64 CPU reference or (beyond
/// `CPU_REF_MAX`) the unfused path's output — O and LSE poisoned first, fully written, within
/// [`o_tol`] and [`LSE_TOL`] — then timed interleaved in `rounds` rounds of blocks
/// (`timing::time_pair_rounds`).
pub fn ab(gpu: &Gpu, o: &AttnRun, a: &'static Step, b: &'static Step, rounds: usize) -> Result<Vec<AttnAbRow>> {
    use crate::runtime::timing::{AbTimes, time_pair_rounds};
    for st in [a, b] {
        if st.kind != Kind::Flash {
            return Err(Error::InvalidInput(format!("ab: {} is not a fused attention step (the unfused path is every table's baseline)", st.kernel.step)));
        }
        if let Some(why) = gpu.cannot_run(&st.kernel) {
            return Err(Error::InvalidInput(format!("ab: {}: {why}", st.kernel.step)));
        }
    }
    if (a.head_dim, a.elem) != (b.head_dim, b.elem) {
        return Err(Error::InvalidInput(format!("ab: {} and {} take different head dims or element types: compare steps of one kind", a.kernel.step, b.kernel.step)));
    }
    let (d, elem) = (a.head_dim.unwrap_or(0) as usize, a.elem);
    let shapes: Vec<AttnShape> = o.shapes.iter().copied().filter(|s| s.head_dim == d).collect();
    if shapes.is_empty() {
        return Err(Error::InvalidInput(format!("ab: {} runs head dim {d}; no --attn-sizes shape has it", a.kernel.step)));
    }
    let mut rows = vec![];
    for s in shapes {
        let n = s.elems();
        let (q, k, v, cpu_ref) = inputs(gpu, s, elem, o.seed)?;
        let scale = s.default_scale();
        let (mut out, mut lse) = (gpu.zeros::<u16>(n)?, gpu.zeros::<f32>(s.heads_total() * s.len)?);
        let want = if cpu_ref {
            let f = |x: &CudaSlice<u16>| -> Result<Vec<f64>> { Ok(gpu.download(x)?.into_iter().map(|e| to_f64(elem, e)).collect()) };
            let (wo, wl) = reference_f64(s, scale as f64, &f(&q)?, &f(&k)?, &f(&v)?);
            Want::Host(wo, wl)
        } else {
            let mut u = Unfused::new(gpu, s, elem)?;
            let (mut uo, mut ul) = (gpu.zeros::<u16>(n)?, gpu.zeros::<f32>(s.heads_total() * s.len)?);
            gpu.poison(&mut uo)?;
            gpu.poison(&mut ul)?;
            u.run(gpu, scale, &q, &k, &v, &mut uo, &mut ul)?;
            gpu.sync_after(u.step().kernel.name)?;
            Want::Device(uo, ul)
        };
        let (fa, fb) = (Flash::new(gpu, a)?, Flash::new(gpu, b)?);
        let mut errs = [(0.0, 0.0); 2];
        for (i, (st, f)) in [(a, &fa), (b, &fb)].into_iter().enumerate() {
            gpu.poison(&mut out)?;
            gpu.poison(&mut lse)?;
            f.run(gpu, s, scale, &q, &k, &v, &mut out, &mut lse)?;
            gpu.sync_after(st.kernel.name)?;
            errs[i] = compare(gpu, elem, &format!("{} {s}", st.kernel.name), &out, &lse, &want)?;
            if !(errs[i].0 <= o_tol(elem) && errs[i].1 <= LSE_TOL) {
                return Err(Error::Verification(format!("{} on {s}: relative L2 error O {:.2e}, LSE {:.2e} (tolerances {:.0e}, {LSE_TOL:.0e})", st.kernel.name, errs[i].0, errs[i].1, o_tol(elem))));
            }
        }
        let per_round = time_pair_rounds(gpu, o.warmup, o.reps, 4000.0, rounds, |_, second| {
            if second { fb.run(gpu, s, scale, &q, &k, &v, &mut out, &mut lse) } else { fa.run(gpu, s, scale, &q, &k, &v, &mut out, &mut lse) }
        })?;
        rows.push(AttnAbRow { shape: s, elem, a: (a.kernel.step.into(), a.kernel.name.into()), b: (b.kernel.step.into(), b.kernel.name.into()),
                              times: AbTimes::from_rounds(per_round), o_err: (errs[0].0, errs[1].0), lse_err: (errs[0].1, errs[1].1),
                              reference: if cpu_ref { "f64 CPU" } else { "unfused" }.into() });
    }
    Ok(rows)
}

/// [`ab`]'s table: per shape, both medians, B's speed over A's, the per-round spread and the errors.
pub fn ab_table(rows: &[AttnAbRow]) -> String {
    use std::fmt::Write as _;
    let mut t = format!("{:<24} {:<5} {:>13} {:>10} {:>13} {:>10} {:>10} {:>17} {:>8} {:>17}\n", "B x H x L x D", "type", "A", "A ms", "B", "B ms", "B speed/A",
                        "per round min..max", "B faster", "O err A / B");
    for r in rows {
        let (lo, hi, wins) = r.times.spread();
        let _ = writeln!(t, "{:<24} {:<5} {:>13} {:>10.4} {:>13} {:>10.4} {:>9.4}x {:>8.4}..{:<8.4} {:>4}/{:<3} {:>8.1e} / {:.1e}", r.shape.to_string(),
                         if r.elem == Elem::Bf16 { "bf16" } else { "f16" }, r.a.0, r.times.a_time.median_ms, r.b.0, r.times.b_time.median_ms, r.times.b_speedup,
                         lo, hi, wins, r.times.round_speedups.len(), r.o_err.0, r.o_err.1);
    }
    t.push_str("B speed/A: A's median time over B's, both timed interleaved in rounds of blocks (ABBA, 30 ms untimed at each switch); per round: the same ratio from each round's two blocks; B faster: rounds where B's block median was lower.\n");
    t
}

/// The family's table.
pub fn table(rows: &[AttnRow]) -> String {
    use std::fmt::Write as _;
    let mut t = format!("{:<13} {:<24} {:<5} {:>10} {:>8} {:>10} {:>9} {:>9} {:<10} {}\n", "step", "B x H x L x D", "type", "median ms", "TFLOP/s", "x unfused", "O err", "LSE err", "vs", "kernel");
    for r in rows {
        let opt = |v: Option<f64>, p: usize| v.map(|x| format!("{x:.p$}")).unwrap_or_else(|| "-".into());
        let _ = write!(t, "{:<13} {:<24} {:<5} {:>10} {:>8} {:>10} {:>9} {:>9} {:<10} {}", r.step, r.shape.to_string(), if r.elem == Elem::Bf16 { "bf16" } else { "f16" },
                       opt(r.time.as_ref().map(|t| t.median_ms), 3), opt(r.tflops, 1), r.vs_unfused.map(|x| format!("{x:.2}x")).unwrap_or_else(|| "-".into()),
                       r.o_err.map(|e| format!("{e:.1e}")).unwrap_or_else(|| "-".into()), r.lse_err.map(|e| format!("{e:.1e}")).unwrap_or_else(|| "-".into()), r.reference, r.kernel);
        if let Some(e) = &r.error {
            let _ = write!(t, "  ERROR: {e}");
        } else if let Some(why) = &r.skipped {
            let _ = write!(t, "  skipped: {why}");
        } else if r.failed() {
            let _ = write!(t, "  FAILED (tolerance O {:.0e}, LSE {LSE_TOL:.0e})", o_tol(r.elem));
        }
        t.push('\n');
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_fail_on_errors_and_tolerances() {
        let s = AttnShape::new(1, 1, 8, 64, false).unwrap();
        let mut r = AttnRow::new("a2", "k", s, Elem::F16, "f64 CPU");
        r.o_err = Some(1e-3);
        r.lse_err = Some(1e-6);
        assert!(!r.failed());
        r.o_err = Some(5e-3);
        assert!(r.failed());
        r.elem = Elem::Bf16;
        assert!(!r.failed());
        r.lse_err = Some(f64::NAN);
        assert!(r.failed());
        let t = table(&[r]);
        assert!(t.contains("FAILED") && t.contains("1x1x8x64"), "{t}");
        for &(b, h, l, d) in SWEEP.iter().chain(CHECK_SHAPES) {
            assert!(AttnShape::new(b, h, l, d, true).is_ok());
        }
    }
}

//! The reduction family (seed 003): launch plans for each step, the cuBLAS and copy baselines, and the
//! suite's measurements.
//!
//! Problem: `Σ x[i]` over `n` f32 in device memory, `1 <= n <= MAX_N`. Bytes that must move: `4n` (each
//! input read once); the floor is `4n / copy bandwidth`, where copy bandwidth (a device-to-device copy,
//! counting bytes read + written) is measured in the same run.
use cudarc::{
    cublas::{CudaBlas, sys as blas_sys},
    driver::{CudaSlice, DevicePtr},
};

use crate::{
    error::{DriverContext, Error, Result},
    runtime::{
        device_check::{self, Dist, ElemKind},
        gpu::Gpu,
        timing::{Stats, rotation_copies, time_gpu},
        verify,
    },
    steps::reduce::{STEPS, Step},
};

pub use kernel_lab::reduce::*;

/// cuBLAS baseline: `Σ x = x · 1` with `cublasSdot` (result in device memory, no host sync).
/// It reads `x` and a ones vector, `8n` bytes, so it is not a bound for a reduction that reads `4n`.
pub struct CublasSum {
    blas: CudaBlas,
    ones: CudaSlice<f32>,
    out: CudaSlice<f32>,
}

impl CublasSum {
    /// A cuBLAS handle on the library's stream and a ones vector of `n`.
    pub fn new(gpu: &Gpu, n: usize) -> Result<Self> {
        if n == 0 || n > i32::MAX as usize {
            return Err(Error::InvalidInput(format!("n = {n}: cublasSdot takes 1 to 2^31 - 1 elements (an int length)")));
        }
        // SAFETY: only tries to dlopen libcublas; no call is made.
        if !unsafe { cudarc::cublas::sys::is_culib_present() } {
            return Err(Error::NoGpu("libcublas was not found (the cuBLAS baseline needs it)".into()));
        }
        let blas = CudaBlas::new(gpu.stream.clone()).map_err(|source| Error::Cublas { what: "cublasCreate".into(), source })?;
        blas.set_pointer_mode(blas_sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE)
            .map_err(|source| Error::Cublas { what: "cublasSetPointerMode".into(), source })?;
        let mut ones = gpu.zeros::<f32>(n)?;
        let (ptr, _sync) = cudarc::driver::DevicePtrMut::device_ptr_mut(&mut ones, &gpu.stream);
        // SAFETY: `ptr` is the live allocation of n f32 owned by `ones`; sets each to 1.0f32's bits.
        unsafe { cudarc::driver::sys::cuMemsetD32Async(ptr, 1.0f32.to_bits(), n, gpu.stream.cu_stream()) }.result()
            .during(|| format!("filling {n} ones"))?;
        drop(_sync);
        Ok(CublasSum { blas, ones, out: gpu.zeros(1)? })
    }

    /// Enqueues `out = x · 1`.
    pub fn enqueue(&mut self, gpu: &Gpu, x: &CudaSlice<f32>) -> Result<()> {
        if x.len() != self.ones.len() {
            return Err(Error::InvalidInput(format!("length mismatch: cuBLAS baseline made for n = {}, input holds {}", self.ones.len(), x.len())));
        }
        let n = x.len() as i32;
        let (px, _a) = x.device_ptr(&gpu.stream);
        let (po, _b) = self.ones.device_ptr(&gpu.stream);
        let (pr, _c) = cudarc::driver::DevicePtrMut::device_ptr_mut(&mut self.out, &gpu.stream);
        // SAFETY: x and ones hold n f32 each; the result pointer is one device f32 (pointer mode
        // device was set in `new`); the handle's stream is the library's stream.
        unsafe {
            blas_sys::cublasSdot_v2(*self.blas.handle(), n, px as *const f32, 1, po as *const f32, 1, pr as *mut f32).result()
        }.map_err(|source| Error::Cublas { what: "cublasSdot".into(), source })
    }

    /// Waits and returns the dot product.
    pub fn result(&mut self, gpu: &Gpu) -> Result<f32> {
        gpu.stream.synchronize().during(|| "synchronizing after cublasSdot".into())?;
        Ok(gpu.download(&self.out)?[0])
    }

    /// Fills the result with NaN.
    pub fn poison(&mut self, gpu: &Gpu) -> Result<()> {
        gpu.poison(&mut self.out)
    }
}

/// Device-to-device copy of `src` into `dst` (the bandwidth baseline: `8n` bytes moved).
pub fn copy(gpu: &Gpu, src: &CudaSlice<f32>, dst: &mut CudaSlice<f32>) -> Result<()> {
    gpu.stream.memcpy_dtod(src, dst).during(|| format!("device-to-device copy of {} f32", src.len()))
}

/// Relative error every reduce step must meet against the f64 reference (uniform [0.5, 1.5) data).
pub const REDUCE_TOL: f64 = 1e-5;

/// Sizes `--check` adds: not multiples of the block, tiny, and one odd large size.
pub const CHECK_SIZES: [usize; 9] = [1, 3, 255, 256, 257, 1000, 4097, 65_537 * 3, (1 << 22) + 5];

/// What one reduce measurement run covers.
#[derive(Clone, Debug)]
pub struct ReduceRun {
    /// Sizes (elements), in order.
    pub sizes: Vec<usize>,
    /// Timed repetitions per measurement.
    pub reps: usize,
    /// Untimed warm-up runs per measurement.
    pub warmup: usize,
    /// Verify only, no timing.
    pub check: bool,
    /// Random seed of the inputs.
    pub seed: u64,
    /// Only these kernels (PTX names); `None`: every step.
    pub only: Option<Vec<&'static str>>,
}

/// One row of the reduce table.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ReduceRow {
    /// `v0` … `v6`, `cuBLAS`, `copy`.
    pub step: String,
    /// Kernel (or library call).
    pub kernel: String,
    /// Elements.
    pub n: usize,
    /// GPU time (absent with `--check`).
    pub time: Option<Stats>,
    /// Bytes the measurement counts per run.
    pub bytes: f64,
    /// GB/s from the median time.
    pub gbps: Option<f64>,
    /// GB/s over the copy's GB/s measured in the same run.
    pub pct_of_copy: Option<f64>,
    /// v0's median time over this row's.
    pub speedup_vs_v0: Option<f64>,
    /// |got − ref| / |ref| against the f64 sum (on the device) of the same uniform data.
    pub rel_err: Option<f64>,
    /// Whether the sum of small integers (exact in f32) came out exactly as the device's f64 sum.
    pub exact_int_sum: Option<bool>,
    /// Kernel launches per run.
    pub launches: usize,
    /// Registers per thread (driver).
    pub registers: Option<i32>,
    /// Local memory bytes per thread (driver; spills or stack).
    pub local_bytes: Option<i32>,
    /// What failed, if anything.
    pub error: Option<String>,
    /// Why the step does not take this size (a documented limit, not a failure).
    pub skipped: Option<String>,
}

impl ReduceRow {
    /// A row with nothing measured yet.
    pub fn new(step: &str, kernel: &str, n: usize, bytes: f64) -> Self {
        ReduceRow { step: step.into(), kernel: kernel.into(), n, time: None, bytes, gbps: None, pct_of_copy: None,
                    speedup_vs_v0: None, rel_err: None, exact_int_sum: None, launches: 1, registers: None,
                    local_bytes: None, error: None, skipped: None }
    }
    /// Whether the row failed verification or errored (the baselines' rows never fail the run: cuBLAS
    /// may be missing, or not take the size).
    pub fn failed(&self) -> bool {
        if self.step == "cuBLAS" || self.step == "copy" {
            return false;
        }
        self.error.is_some() || self.exact_int_sum == Some(false) || self.rel_err.is_some_and(|e| !(e <= REDUCE_TOL))
    }
}

/// The inputs of one size, generated on the device (`runtime::device_check`): no host copy of any
/// input at any size. One buffer `x` is refilled as each check needs it (small integers, then uniform
/// data), so the largest size costs one input buffer, not two; `copies` are uniform copies for
/// rotating through more than L2 while timing (only at sizes below 2·L2, so small).
struct Inputs {
    x: CudaSlice<f32>,
    copies: Vec<CudaSlice<f32>>,
    seed: u64,
    /// `Σ x` of the uniform data (device f64 sum).
    want: f64,
    /// `Σ x` of the small integers (device f64 sum: exact).
    ints_want: f64,
}

impl Inputs {
    fn new(gpu: &Gpu, n: usize, seed: u64, rotate: bool) -> Result<Inputs> {
        let seed = seed ^ n as u64;
        let mut x = device_check::random::<f32>(gpu, n, ElemKind::F32, Dist::SmallInt, seed)?;
        let ints_want = device_check::sum_f64(gpu, &x)?;
        device_check::fill(gpu, &mut x, ElemKind::F32, Dist::Positive, seed)?;
        let want = device_check::sum_f64(gpu, &x)?;
        let mut copies = vec![];
        for _ in 1..if rotate { rotation_copies(4 * n, gpu.info.l2_bytes) } else { 1 } {
            let mut c = gpu.zeros::<f32>(n)?;
            copy(gpu, &x, &mut c)?;
            copies.push(c);
        }
        Ok(Inputs { x, copies, seed, want, ints_want })
    }
    /// Refills `x` with the small integers (`ints`) or the uniform data.
    fn refill(&mut self, gpu: &Gpu, ints: bool) -> Result<()> {
        device_check::fill(gpu, &mut self.x, ElemKind::F32, if ints { Dist::SmallInt } else { Dist::Positive }, self.seed)
    }
    /// The uniform input of timed run `i` (rotating through `x` and its copies).
    fn uniform(&self, i: usize) -> &CudaSlice<f32> {
        match i % (self.copies.len() + 1) {
            0 => &self.x,
            c => &self.copies[c - 1],
        }
    }
}

/// Device bytes one size needs: `x`, its rotation copies, the copy's destination (timing), cuBLAS's
/// ones vector (where cublasSdot takes `n`), and scratch (a partial per block: below 1% of `x`).
pub fn device_bytes(n: usize, check: bool, l2_bytes: usize) -> u64 {
    let x = 4 * n as u64;
    let copies = if check { 0 } else { rotation_copies(4 * n, l2_bytes) as u64 - 1 };
    let dst = if check { 0 } else { 1 };
    let ones = if n <= i32::MAX as usize { 1 } else { 0 };
    x * (1 + copies + dst + ones) + x / 64 + (1 << 20)
}

fn rel(got: f32, want: f64) -> f64 {
    ((got as f64) - want).abs() / want.abs()
}

/// Runs one reduce step at one size: the small integers (exact), then the uniform data (within
/// [`REDUCE_TOL`]), then timing on the uniform data. Leaves `inp.x` holding the uniform data.
fn reduce_step(gpu: &Gpu, step: &'static Step, inp: &mut Inputs, o: &ReduceRun, row: &mut ReduceRow) -> Result<()> {
    let n = inp.x.len();
    let mut plan = ReducePlan::new(gpu, step, n)?;
    let res = plan.kernel().resources()?;
    (row.registers, row.local_bytes, row.launches) = (Some(res.registers), Some(res.local_bytes), plan.launches());
    inp.refill(gpu, true)?;
    plan.poison()?;
    plan.enqueue(&inp.x)?;
    let got_int = plan.result()?;
    row.exact_int_sum = Some(got_int as f64 == inp.ints_want);
    inp.refill(gpu, false)?;
    plan.poison()?;
    plan.enqueue(&inp.x)?;
    let got = plan.result()?;
    verify::check_written(plan.kernel().name(), &[got])?;
    row.rel_err = Some(rel(got, inp.want));
    if !o.check {
        row.time = Some(time_gpu(gpu, o.warmup, o.reps, |i| plan.enqueue(inp.uniform(i)))?);
    }
    Ok(())
}

/// The reduce family at every size of `o`: copy and cuBLAS baselines, then each step, verified on
/// uniform data (against [`REDUCE_TOL`]) and on small integers (exactly), and unless `o.check` timed on
/// inputs rotated through more than L2.
pub fn run(gpu: &Gpu, o: &ReduceRun, progress: &mut dyn FnMut(&str)) -> Result<Vec<ReduceRow>> {
    let mut rows = vec![];
    for &n in &o.sizes {
        // Inputs (uniform, rotated copies beyond L2 when timing, small integers), the copy's
        // destination, scratch; on the host the two inputs.
        // Every input is generated on the device: no host memory grows with n.
        crate::runtime::budget::check(gpu, &format!("reduce n = {n}"), device_bytes(n, o.check, gpu.info.l2_bytes), 1 << 20)?;
        progress(&format!("reduce n = {n}: generating inputs"));
        let mut inp = Inputs::new(gpu, n, o.seed, !o.check)?;
        let bytes = 4.0 * n as f64;
        let mut copy_row = ReduceRow::new("copy", "cuMemcpyDtoD", n, 2.0 * bytes);
        if !o.check {
            let mut dst = gpu.zeros::<f32>(n)?;
            let t = time_gpu(gpu, o.warmup, o.reps, |i| copy(gpu, inp.uniform(i), &mut dst))?;
            copy_row.gbps = Some(t.gbps(copy_row.bytes));
            copy_row.pct_of_copy = Some(1.0);
            copy_row.time = Some(t);
        }
        let copy_gbps = copy_row.gbps;
        rows.push(copy_row);
        progress(&format!("reduce n = {n}: cuBLAS"));
        let mut blas_row = ReduceRow::new("cuBLAS", "cublasSdot(x, 1)", n, bytes);
        match (|| -> Result<()> {
            let mut blas = CublasSum::new(gpu, n)?;
            blas.poison(gpu)?;
            blas.enqueue(gpu, &inp.x)?;
            blas_row.rel_err = Some(rel(blas.result(gpu)?, inp.want));
            if !o.check {
                blas_row.time = Some(time_gpu(gpu, o.warmup, o.reps, |i| blas.enqueue(gpu, inp.uniform(i)))?);
            }
            Ok(())
        })() {
            Ok(()) => {}
            Err(e) => blas_row.error = Some(e.to_string()),
        }
        let blas_at = rows.len();
        rows.push(blas_row);
        let v0_at = rows.len();
        for step in STEPS.iter().filter(|s| o.only.as_ref().is_none_or(|v| v.contains(&s.kernel.name))) {
            progress(&format!("reduce n = {n}: {}", step.kernel.step));
            let mut row = ReduceRow::new(step.kernel.step, step.kernel.name, n, bytes);
            if let Err(e) = validate_n(step, n) {
                row.skipped = Some(e.to_string());
            } else if let Err(e) = reduce_step(gpu, step, &mut inp, o, &mut row) {
                row.error = Some(e.to_string());
            }
            rows.push(row);
        }
        let v0_ms = rows[v0_at..].iter().find(|r| r.step == "v0").and_then(|r| r.time.as_ref()).map(|t| t.median_ms);
        for row in rows[blas_at..].iter_mut() {
            if let Some(t) = &row.time {
                let g = t.gbps(row.bytes);
                row.gbps = Some(g);
                row.pct_of_copy = copy_gbps.map(|c| g / c);
                row.speedup_vs_v0 = v0_ms.map(|v| v / t.median_ms);
            }
        }
    }
    Ok(rows)
}

/// Two reduce steps head to head at one size (`kernel-lab ab --family reduce`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct ReduceAbRow {
    /// Elements.
    pub n: usize,
    /// Step A's label and kernel.
    pub a: (String, String),
    /// Step B's label and kernel.
    pub b: (String, String),
    /// A's and B's times, the ratio, per round too.
    #[serde(flatten)]
    pub times: crate::runtime::timing::AbTimes,
}

/// Runs steps `a` and `b` on each size of `o`: both verified (exact on small integers, within
/// [`REDUCE_TOL`] on uniform data), then timed interleaved in `rounds` rounds of blocks on inputs
/// rotated through more than L2.
pub fn ab(gpu: &Gpu, o: &ReduceRun, a: &'static Step, b: &'static Step, rounds: usize) -> Result<Vec<ReduceAbRow>> {
    let mut out = vec![];
    for &n in &o.sizes {
        validate_n(a, n)?;
        validate_n(b, n)?;
        crate::runtime::budget::check(gpu, &format!("reduce n = {n}"), device_bytes(n, false, gpu.info.l2_bytes), 1 << 20)?;
        let mut inp = Inputs::new(gpu, n, o.seed, true)?;
        let mut plans = [ReducePlan::new(gpu, a, n)?, ReducePlan::new(gpu, b, n)?];
        for (step, plan) in [a, b].into_iter().zip(plans.iter_mut()) {
            let mut row = ReduceRow::new(step.kernel.step, step.kernel.name, n, 4.0 * n as f64);
            reduce_step(gpu, step, &mut inp, &ReduceRun { check: true, ..o.clone() }, &mut row)?;
            if row.failed() {
                return Err(Error::Verification(format!("{} at n = {n}: rel err {:?}, exact integer sum {:?}", step.kernel.name, row.rel_err, row.exact_int_sum)));
            }
            plan.poison()?;
        }
        let [pa, pb] = &mut plans;
        let per_round = crate::runtime::timing::time_pair_rounds(gpu, o.warmup, o.reps, 4000.0, rounds, |i, second| {
            if second { pb.enqueue(inp.uniform(i)) } else { pa.enqueue(inp.uniform(i)) }
        })?;
        let times = crate::runtime::timing::AbTimes::from_rounds(per_round);
        out.push(ReduceAbRow { n, a: (a.kernel.step.into(), a.kernel.name.into()), b: (b.kernel.step.into(), b.kernel.name.into()),
                               times });
    }
    Ok(out)
}

/// The reduce A/B table as text.
pub fn ab_table(rows: &[ReduceAbRow]) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(s, "{:>12} {:>5} {:>10} {:>5} {:>10} {:>10} {:>17} {:>9}", "N", "A", "A us", "B", "B us", "B speed/A", "per round min..max", "B faster");
    for r in rows {
        let (lo, hi, wins) = r.times.spread();
        let _ = writeln!(s, "{:>12} {:>5} {:>10.1} {:>5} {:>10.1} {:>9.4}x {:>8.4}..{:<8.4} {:>4}/{:<4}", r.n, r.a.0, r.times.a_time.median_ms * 1e3, r.b.0,
                         r.times.b_time.median_ms * 1e3, r.times.b_speedup, lo, hi, wins, r.times.round_speedups.len());
    }
    s.push_str("B speed/A: A's median time over B's, both timed interleaved in rounds of blocks on inputs rotated beyond L2; both verified first.\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_fail_on_error_inexact_or_large_error() {
        let mut r = ReduceRow::new("v0", "k", 1, 4.0);
        assert!(!r.failed());
        r.rel_err = Some(2e-5);
        assert!(r.failed());
        r.rel_err = Some(f64::NAN);
        assert!(r.failed());
        r.rel_err = Some(1e-7);
        r.exact_int_sum = Some(false);
        assert!(r.failed());
    }

    #[test]
    fn sizes_outside_the_kernels_range_are_rejected() {
        use crate::steps::reduce::{V6, V7};
        assert!(validate_n(&V6, 0).unwrap_err().to_string().contains("n = 0"));
        let e = validate_n(&V6, (1 << 31) + 1).unwrap_err().to_string();
        assert!(e.contains("reduce_v6's limit of 2147483648") && e.contains("v7 takes more"), "{e}");
        assert!(validate_n(&V6, 1).is_ok() && validate_n(&V6, 1 << 31).is_ok());
        assert!(validate_n(&V7, 1 << 33).is_ok() && validate_n(&V7, 0).is_err());
        assert!(validate_size(1 << 33).is_ok() && validate_size(0).is_err());
    }

    #[test]
    fn device_bytes_count_one_input_and_what_timing_adds() {
        let l2 = 50 << 20;
        // 2^33 f32 on an H100 (80 GB): the input and the copy's destination, no ones vector (cublasSdot
        // takes an int length) — 64 GiB and a little scratch.
        let big = device_bytes(1 << 33, false, l2);
        assert!(big >= 64 << 30 && big < 65 << 30, "{big}");
        assert_eq!(device_bytes(1 << 33, true, l2), (32u64 << 30) + (32u64 << 30) / 64 + (1 << 20));
        // 2^20: rotated copies for timing, the destination and the ones vector on top of the input.
        let small = device_bytes(1 << 20, false, l2);
        assert_eq!(small, (4u64 << 20) * (1 + (rotation_copies(4 << 20, l2) as u64 - 1) + 2) + (4u64 << 20) / 64 + (1 << 20));
        // Beyond 2·L2 (no rotation copies) more elements always need more bytes.
        let mut prev = 0;
        for e in 25..40 {
            let b = device_bytes((1usize << e) + 3, false, l2);
            assert!(b > prev, "{e}");
            prev = b;
        }
    }

    #[test]
    fn tree_steps_relaunch_until_one_block_and_one_wave_steps_do_not() {
        use crate::steps::reduce::{V0, V3, V5, V6};
        assert_eq!(launch_grids(&V0, 1 << 20, 1056), vec![4096, 16, 1]);
        assert_eq!(launch_grids(&V3, 1 << 20, 1056), vec![2048, 4, 1]);
        assert_eq!(launch_grids(&V5, 1 << 20, 1056), vec![1024, 1]);
        assert_eq!(launch_grids(&V5, 1000, 1056), vec![1]);
        assert_eq!(launch_grids(&V6, 1 << 28, 1056), vec![1056]);
    }
}

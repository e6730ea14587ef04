//! Measuring the cost model's constants on the GPU in hand ([`calibrate`]) and finding the model a
//! plan uses ([`model_for`]): a calibration kept for this GPU, SM count, driver and PTX, else the
//! shipped one ([`CostModel::shipped`]).
use std::{
    collections::HashMap,
    path::PathBuf,
    sync::{Arc, Mutex, OnceLock},
};

use cudarc::driver::{CudaSlice, DevicePtr};

use crate::{
    error::{DriverContext, Error, Result},
    runtime::{gpu::Gpu, timing::time_samples},
    steps::hgemm as steps,
};

use super::{
    Shape,
    cost::{self, CostModel, Sample},
    launch::{Operand, Workspace},
};

/// The key a calibration is kept under: GPU name, SM count, driver, PTX fingerprint (file-name safe).
pub fn key(gpu: &Gpu) -> String {
    let name: String = gpu.info.name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    format!("{name}-{}sm-drv{}-{:016x}", gpu.info.sms, gpu.info.driver_version, crate::runtime::ptx::kernels_fingerprint())
}

/// Where a calibration of `gpu` is kept: `$<env>`, else `$XDG_CACHE_HOME/kernel-lab/<prefix>-<key>.tsv` (the key
/// as [`key`]), else `$HOME/.cache/kernel-lab/…`; `None` when none of those is set. Each model's `path` is this
/// with its own variable and prefix.
pub(crate) fn cache_file(gpu: &Gpu, env: &str, prefix: &str) -> Option<PathBuf> {
    let var = |v: &str| std::env::var_os(v).filter(|x| !x.is_empty()).map(PathBuf::from);
    if let Some(p) = var(env) {
        return Some(p);
    }
    let base = var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|h| h.join(".cache")))?;
    Some(base.join("kernel-lab").join(format!("{prefix}-{}.tsv", key(gpu))))
}

/// The model kept at `file` for `gpu`, read by `parse` once per process and key (`models` holds them); where there
/// is none, or it does not read (said once on stderr, naming `what`), `shipped()`.
pub(crate) fn cached_model<T: Send + Sync + 'static>(models: &'static OnceLock<Mutex<HashMap<String, Arc<T>>>>, gpu: &Gpu, file: Option<PathBuf>, what: &str,
                                                    parse: impl FnOnce(&str, &str) -> std::result::Result<T, String>, shipped: impl FnOnce() -> T) -> Arc<T> {
    let mut map = models.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
    map.entry(key(gpu)).or_insert_with(|| {
        let text = file.and_then(|p| std::fs::read_to_string(&p).ok().map(|t| (p, t)));
        let read = text.and_then(|(p, t)| match parse(&t, &p.display().to_string()) {
            Ok(m) => Some(m),
            Err(e) => {
                eprintln!("note: ignoring the {what} calibration {}: {e}", p.display());
                None
            }
        });
        Arc::new(read.unwrap_or_else(shipped))
    }).clone()
}

/// Where [`calibrate`]'s result for `gpu` is kept: `$KERNEL_LAB_COST_FILE`, else
/// `$XDG_CACHE_HOME/kernel-lab/gemm-cost-<key>.tsv`, else `$HOME/.cache/kernel-lab/…`; `None` when
/// none of those is set.
pub fn path(gpu: &Gpu) -> Option<PathBuf> {
    cache_file(gpu, "KERNEL_LAB_COST_FILE", "gemm-cost")
}

/// The model plans on `gpu` use: its calibration file ([`path`]) where one exists and reads, else the
/// shipped constants. Read once per process and key.
pub fn model_for(gpu: &Gpu) -> Arc<CostModel> {
    static MODELS: OnceLock<Mutex<HashMap<String, Arc<CostModel>>>> = OnceLock::new();
    cached_model(&MODELS, gpu, path(gpu), "GEMM", |t, w| CostModel::parse(t, w).map_err(|e| e.to_string()), || CostModel::shipped(&gpu.info.name, gpu.info.sms))
}

/// What a calibration measured: the model and the samples it was fitted to.
pub struct Calibration {
    /// The fitted model.
    pub model: CostModel,
    /// Every timed (configuration, shape).
    pub samples: Vec<Sample>,
    /// Configurations left out, with why.
    pub skipped: Vec<String>,
}

/// f16 values in [-1, 1) from `seed`, as bits.
fn random_bits(n: usize, seed: u64) -> Vec<u16> {
    let mut rng = crate::runtime::verify::rng(seed);
    crate::runtime::verify::uniform_f32(&mut rng, n).into_iter().map(|x| half::f16::from_f32(x).to_bits()).collect()
}

/// Fills `buf` by copying one random chunk of `chunk(len, seed)` (at most 4 Mi elements) over it.
pub(crate) fn fill_with<T: cudarc::driver::DeviceRepr>(gpu: &Gpu, buf: &mut CudaSlice<T>, seed: u64, chunk: impl FnOnce(usize, u64) -> Vec<T>) -> Result<()> {
    let chunk = gpu.upload(&chunk(buf.len().min(1 << 22), seed))?;
    let mut at = 0;
    while at < buf.len() {
        let n = chunk.len().min(buf.len() - at);
        let mut dst = buf.slice_mut(at..at + n);
        gpu.stream.memcpy_dtod(&chunk.slice(0..n), &mut dst).during(|| "filling a calibration buffer".into())?;
        at += n;
    }
    Ok(())
}

/// Fills `buf` with random f16 by copying one random chunk over it.
fn fill(gpu: &Gpu, buf: &mut CudaSlice<u16>, seed: u64) -> Result<()> {
    fill_with(gpu, buf, seed, random_bits)
}

/// Fills `buf` with random f32 in [-1, 1) (the f32 and FP8 calibrations' operands).
pub(crate) fn fill_f32(gpu: &Gpu, buf: &mut CudaSlice<f32>, seed: u64) -> Result<()> {
    fill_with(gpu, buf, seed, |n, seed| crate::runtime::verify::uniform_f32(&mut crate::runtime::verify::rng(seed), n))
}

/// Untimed runs before each timing, in ms of GPU time: long enough for the clocks to settle where a
/// model's layers keep the GPU busy (a 3 ms burst after idle ran 4096-wide tiles ~20% faster than the
/// same kernel under sustained load: session 48's first calibration against its autotuner's times).
pub const SETTLE_MS: f64 = 25.0;
/// Timed runs per shape, in ms of GPU time (between 5 and 200 runs).
pub const TIMED_MS: f64 = 5.0;

/// Median µs of `work(i)`: one probe, [`SETTLE_MS`] of untimed runs, then [`TIMED_MS`] of timed ones.
pub(crate) fn median_us(gpu: &Gpu, mut work: impl FnMut(usize) -> Result<()>) -> Result<f64> {
    let probe = time_samples(gpu, 1, 1, &mut work)?[0].max(1e-4);
    let settle = ((SETTLE_MS / probe) as usize).clamp(2, 2000);
    let reps = ((TIMED_MS / probe) as usize).clamp(5, 200);
    let mut s = time_samples(gpu, settle, reps, &mut work)?;
    Ok(crate::runtime::timing::Stats::from_samples(&mut s).median_ms * 1e3)
}

/// Measures the cost model's constants on `gpu` (sm_90a only: the configurations it chooses among):
/// the copy bandwidth, then every candidate configuration on its [`cost::calibration_shapes`], each
/// timed alone on random f16 data (weights rotated through copies spanning 4× L2, as a model's layers
/// find them), and fitted ([`cost::fit`]). bf16 twins share the f16 constants (the same kernels on
/// another element type). `progress` hears one line per configuration.
pub fn calibrate(gpu: &Gpu, progress: &mut dyn FnMut(&str)) -> Result<Calibration> {
    if let Some(why) = gpu.cannot_run(&steps::H6S4.kernel) {
        return Err(Error::Unsupported { kernel: "the GEMM cost model".into(), needs: "sm_90a (Hopper): the configurations it chooses among".into(), have: why });
    }
    let sms = gpu.info.sms;
    let resident = super::h8_resident(gpu)?;
    let bpsm = crate::runtime::tuning::decode_blocks_per_sm();
    let cands = cost::candidates(crate::steps::gemm::Elem::F16);
    let plans: Vec<(&'static steps::Step, Vec<Shape>)> = cands.iter().map(|&st| (st, cost::calibration_shapes(st, sms, bpsm, resident))).collect();
    let max = |f: &dyn Fn(&Shape) -> usize| plans.iter().flat_map(|(_, v)| v.iter().map(f)).max().unwrap_or(1);
    let (a_len, c_len) = (max(&|s| s.m * s.k), max(&|s| s.m * s.n));
    let l2_elems = gpu.info.l2_bytes / 2;
    let b_len = max(&|s| s.k * s.n).max(4 * l2_elems);
    crate::runtime::budget::check(gpu, "GEMM calibration", 2 * (a_len + b_len + c_len) as u64, 0)?;
    let mut a = gpu.zeros::<u16>(a_len)?;
    let mut b = gpu.zeros::<u16>(b_len)?;
    let mut c = gpu.zeros::<u16>(c_len)?;
    let seed = crate::runtime::verify::fresh_seed();
    fill(gpu, &mut a, seed)?;
    fill(gpu, &mut b, seed ^ 1)?;
    fill(gpu, &mut c, seed ^ 2)?;
    // The copy bandwidth: half of B's pool onto the other half (bytes read + written), and a tiny copy's
    // fixed cost.
    let half = b_len / 2;
    let copy_us = {
        let (lo, mut hi) = b.split_at_mut(half);
        let src = lo.slice(0..half.min(hi.len()));
        let mut dst = hi.slice_mut(0..half.min(hi.len()));
        median_us(gpu, |_| gpu.stream.memcpy_dtod(&src, &mut dst).during(|| "timing a device copy".into()))?
    };
    let copy_gbps = 2.0 * 2.0 * half as f64 / (copy_us * 1e3);
    let copy_fixed_us = {
        let (lo, mut hi) = c.split_at_mut(c_len / 2);
        let (src, mut dst) = (lo.slice(0..64), hi.slice_mut(0..64));
        median_us(gpu, |_| gpu.stream.memcpy_dtod(&src, &mut dst).during(|| "timing a device copy".into()))?
    };
    progress(&format!("copy: {copy_gbps:.0} GB/s, {copy_fixed_us:.1} µs fixed"));
    let (a_ptr, b_ptr, c_ptr) = (a.device_ptr(&gpu.stream).0, b.device_ptr(&gpu.stream).0, c.device_ptr(&gpu.stream).0);
    let source = format!("calibrated on {} ({sms} SMs, driver {}, kernels {:016x})", gpu.info.name, gpu.info.driver_version, crate::runtime::ptx::kernels_fingerprint());
    let (mut samples, mut skipped) = (vec![], vec![]);
    for (st, shapes) in plans {
        let kernel = gpu.kernel(st.kernel.name)?;
        let mut ws = Workspace::new();
        let before = samples.len();
        for s in shapes {
            let nk = s.n * s.k;
            // Rotated copies of the weights spanning 4× L2 (consecutive runs never find theirs cached), at
            // most 64 (the workspace keeps the tensor maps of each).
            let copies = if 2 * nk >= 2 * gpu.info.l2_bytes { 1 } else { (b_len / nk).min(64).max(1) };
            let stride = nk.div_ceil(128) * 128;
            let copies = copies.min(b_len / stride).max(1);
            let op = |ptr: u64, len: usize| Operand { ptr, len };
            let t = median_us(gpu, |i| ws.launch(gpu, &kernel, st, s, op(a_ptr, s.m * s.k), op(b_ptr + 2 * (stride * (i % copies)) as u64, nk), op(c_ptr, s.m * s.n)));
            match t {
                Ok(us) => samples.push(Sample { step: st.kernel.step.to_string(), shape: s, us }),
                Err(e) => skipped.push(format!("{} at {s}: {e}", st.kernel.step)),
            }
        }
        progress(&format!("{}: {} shapes timed", st.kernel.step, samples.len() - before));
    }
    let (model, left) = cost::fit_model(&samples, source, sms, bpsm, resident, copy_gbps, copy_fixed_us);
    skipped.extend(left);
    gpu.stream.synchronize().during(|| "after the calibration".into())?;
    Ok(Calibration { model, samples, skipped })
}

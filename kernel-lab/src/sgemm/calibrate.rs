//! Measuring the f32 cost model's constants on the GPU in hand ([`calibrate`]) and finding the model a
//! plan uses ([`model_for`]): a calibration kept for this GPU, SM count, driver and PTX, else the
//! shipped one ([`F32Model::shipped`]). The f16/bf16 twin is [`crate::gemm::calibrate`].
use std::{
    collections::HashMap,
    path::PathBuf,
    sync::{Arc, Mutex, OnceLock},
};

use cudarc::driver::DevicePtr;

use crate::{
    error::{DriverContext, Error, Result},
    gemm::{Shape, calibrate::{cache_file, cached_model, fill_f32, median_us}, launch::Operand},
    runtime::gpu::Gpu,
    steps::sgemm as steps,
};

use super::cost::{self, F32Model, F32Sample, FAMILIES};

/// Where [`calibrate`]'s result for `gpu` is kept: `$KERNEL_LAB_F32_COST_FILE`, else
/// `$XDG_CACHE_HOME/kernel-lab/f32-cost-<key>.tsv` (the key as [`crate::gemm::calibrate::key`]), else
/// `$HOME/.cache/kernel-lab/…`; `None` when none of those is set.
pub fn path(gpu: &Gpu) -> Option<PathBuf> {
    cache_file(gpu, "KERNEL_LAB_F32_COST_FILE", "f32-cost")
}

/// The model f32 plans on `gpu` use: its calibration file ([`path`]) where one exists and reads, else the
/// shipped constants. Read once per process and key.
pub fn model_for(gpu: &Gpu) -> Arc<F32Model> {
    static MODELS: OnceLock<Mutex<HashMap<String, Arc<F32Model>>>> = OnceLock::new();
    cached_model(&MODELS, gpu, path(gpu), "f32 GEMM", |t, w| F32Model::parse(t, w).map_err(|e| e.to_string()), || F32Model::shipped(&gpu.info.name))
}

/// What an f32 calibration measured: the model and the timings it was fitted to.
pub struct F32Calibration {
    /// The fitted model.
    pub model: F32Model,
    /// Every timed (step, shape).
    pub samples: Vec<F32Sample>,
    /// Families or timings left out, with why.
    pub skipped: Vec<String>,
}

/// Measures the f32 model's constants on `gpu` (sm_90a only: the Hopper forms it chooses among): each
/// family on its [`cost::calibration_shapes`], timed alone on random data with B rotated through copies
/// spanning 4× L2 (as a model's layers find their weights), and fitted from the shipped constants
/// ([`cost::fit_model`]). `progress` hears one line per family.
pub fn calibrate(gpu: &Gpu, progress: &mut dyn FnMut(&str)) -> Result<F32Calibration> {
    if let Some(why) = gpu.cannot_run(&steps::V24.kernel) {
        return Err(Error::Unsupported { kernel: "the f32 GEMM cost model".into(), needs: "sm_90a (Hopper): the forms it chooses among".into(), have: why });
    }
    let sms = gpu.info.sms;
    let plans: Vec<Vec<Shape>> = (0..FAMILIES.len()).map(|f| cost::calibration_shapes(f, sms)).collect();
    let max = |f: &dyn Fn(&Shape) -> usize| plans.iter().flatten().map(f).max().unwrap_or(1);
    let (a_len, c_len) = (max(&|s| s.m * s.k), max(&|s| s.m * s.n));
    let b_len = max(&|s| s.k * s.n).max(gpu.info.l2_bytes); // 4 bytes an element: 4× L2
    crate::runtime::budget::check(gpu, "f32 GEMM calibration", 4 * (a_len + b_len + c_len) as u64, 0)?;
    let mut a = gpu.zeros::<f32>(a_len)?;
    let mut b = gpu.zeros::<f32>(b_len)?;
    let c = gpu.zeros::<f32>(c_len)?;
    let seed = crate::runtime::verify::fresh_seed();
    fill_f32(gpu, &mut a, seed)?;
    fill_f32(gpu, &mut b, seed ^ 1)?;
    let (a_ptr, b_ptr, c_ptr) = (a.device_ptr(&gpu.stream).0, b.device_ptr(&gpu.stream).0, c.device_ptr(&gpu.stream).0);
    let source = format!("calibrated on {} ({sms} SMs, driver {}, kernels {:016x})", gpu.info.name, gpu.info.driver_version, crate::runtime::ptx::kernels_fingerprint());
    let (mut samples, mut skipped) = (vec![], vec![]);
    for (fam, shapes) in plans.into_iter().enumerate() {
        let before = samples.len();
        for s in shapes {
            let st = cost::candidates(s)[fam];
            let kernel = gpu.kernel(st.kernel.name)?;
            let nk = s.n * s.k;
            // Rotated copies of B, 16-byte aligned, consecutive runs never finding theirs in the L2.
            let stride = nk.div_ceil(4) * 4;
            let copies = if 4 * nk >= 2 * gpu.info.l2_bytes { 1 } else { (b_len / stride).clamp(1, 64) };
            let op = |ptr: u64, len: usize| Operand { ptr, len };
            let t = median_us(gpu, |i| super::launch::launch(gpu, &kernel, st, s, op(a_ptr, s.m * s.k), op(b_ptr + 4 * (stride * (i % copies)) as u64, nk), op(c_ptr, s.m * s.n)));
            match t {
                Ok(us) => samples.push(F32Sample { step: st.kernel.step.to_string(), shape: s, us }),
                Err(e) => skipped.push(format!("{} at {s}: {e}", st.kernel.step)),
            }
        }
        progress(&format!("{}: {} shapes timed", FAMILIES[fam], samples.len() - before));
    }
    let start = F32Model::shipped(&gpu.info.name);
    let (model, left) = cost::fit_model(&samples, source, sms, &start);
    skipped.extend(left);
    gpu.stream.synchronize().during(|| "after the f32 calibration".into())?;
    Ok(F32Calibration { model, samples, skipped })
}

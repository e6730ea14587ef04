//! Seed 001's single-warp 16×16×16 ladder (`hgemm_warp_v1` … `v5`): runs each step (`steps::hgemm_warp`)
//! on random f16 tiles against an f64 reference, with the bank model's prediction beside it
//! (`model::traces::hgemm_warp`).
use half::f16;
use rand::Rng;

use crate::{
    error::{Error, Result},
    launch,
    model::traces,
    runtime::{gpu::Gpu, verify},
    steps::hgemm_warp::STEPS,
};

/// Relative L2 tolerance: 16-term dot products of values in [-1, 1], accumulated in f16 (11-bit
/// significand): rounding of each partial sum is ~2^-11 relative, so ~1e-3 typical, 1e-2 bound.
pub const TOL: f64 = 1e-2;

/// Outcome of one step.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Row {
    /// `v1` …
    pub step: &'static str,
    /// Kernel.
    pub kernel: &'static str,
    /// Relative L2 error against f64.
    pub rel_err: Option<f64>,
    /// Predicted (load wavefronts, load conflicts, store wavefronts, store conflicts).
    pub predicted: Option<(u64, u64, u64, u64)>,
    /// Failure or skip reason.
    pub error: Option<String>,
    /// Whether it was skipped (needs another GPU).
    pub skipped: bool,
}

/// Runs every step once on fresh random tiles.
pub fn run(gpu: &Gpu, seed: u64) -> Vec<Row> {
    let mut rng = verify::rng(seed ^ 0x16);
    let a: Vec<f16> = (0..256).map(|_| f16::from_f32(rng.random_range(-1.0f32..1.0))).collect();
    let b: Vec<f16> = (0..256).map(|_| f16::from_f32(rng.random_range(-1.0f32..1.0))).collect();
    let want: Vec<f64> = (0..256).map(|e| (0..16).map(|k| a[(e / 16) * 16 + k].to_f64() * b[k * 16 + e % 16].to_f64()).sum()).collect();
    STEPS.iter().map(|st| {
        let (step, kernel) = (st.kernel.step, st.kernel.name);
        let predicted = traces::hgemm_warp::predict(st).map(|(l, s)| (l.wavefronts, l.conflicts(), s.wavefronts, s.conflicts()));
        let r = (|| -> Result<f64> {
            let k = gpu.kernel(kernel)?;
            let (g_a, g_b) = (gpu.upload(&a.iter().map(|v| v.to_bits()).collect::<Vec<_>>())?, gpu.upload(&b.iter().map(|v| v.to_bits()).collect::<Vec<_>>())?);
            let mut g_c = gpu.upload(&vec![0xFFFFu16; 256])?; // NaN poison
            // SAFETY: every warp-ladder kernel takes (g_a, g_b: 256 f16, g_c: 256 f16), 256-byte aligned
            // allocations, one block of 32 threads (registered), static shared memory only.
            unsafe { launch!(gpu, &k, grid = 1u32, &g_a, &g_b, &mut g_c)? };
            gpu.sync_after(kernel)?;
            let c: Vec<f32> = gpu.download(&g_c)?.into_iter().map(|h| f16::from_bits(h).to_f32()).collect();
            verify::check_written(kernel, &c)?;
            let err = verify::rel_l2(&c.iter().map(|&v| v as f64).collect::<Vec<_>>(), &want);
            verify::check_tolerance(kernel, err, TOL)?;
            Ok(err)
        })();
        match r {
            Ok(e) => Row { step, kernel, rel_err: Some(e), predicted, error: None, skipped: false },
            Err(e @ Error::Unsupported { .. }) => Row { step, kernel, rel_err: None, predicted, error: Some(e.to_string()), skipped: true },
            Err(e) => Row { step, kernel, rel_err: None, predicted, error: Some(e.to_string()), skipped: false },
        }
    }).collect()
}

//! Measuring the FP8 choice's costs on the GPU in hand ([`calibrate`], `kernel-lab calibrate --dtype fp8`) and
//! finding the costs a plan uses ([`model_for`]): a calibration kept for this GPU, SM count, driver and PTX,
//! else the shipped H200 constants ([`Fp8Costs::shipped`]). What is measured: the few-tile costs
//! ([`TileCost`]: a fixed cost, a K tile's time alone and with every SM busy, a DRAM floor) of f14, f22,
//! f25 and f28 and fw2's weight stream ([`RowStreamCost`]) for the per-tensor choice, f3's and f23's for block scales
//! (`crate::steps::fp8::per_tensor_step_by`, `block_step_by`), and f27's speeds per unit of work against f14's in
//! the wave model ([`f27_speeds`]: the four timed over full rounds at [`F27_SPEED_SHAPE`]). The other speed
//! ratios among the many-tile steps stay as measured on an H100 or the H200 (`F18_SPEED_PER_WORK`, …); f27n192's
//! few-tile cost follows f14's calibrated one (`F27_N192_K_TILE`).
use std::{
    collections::HashMap,
    path::PathBuf,
    sync::{Arc, Mutex, OnceLock},
};

use crate::{
    error::{DriverContext, Error, Result},
    fp8::{Fp8Gemm, Operand, quantize},
    gemm::{calibrate::{cache_file, cached_model, fill_f32, median_us}, cost::coordinate_search},
    runtime::gpu::Gpu,
    steps::fp8::{self as steps, FP8_COSTED, Fp8Costs, RowStreamCost, Step, TileCost},
};

/// The step each costed configuration is timed as ([`FP8_COSTED`]; f21 at its cluster sizes 2 and 4, `f21x2`,
/// `f21x4`).
pub fn costed_step(name: &str) -> Option<&'static Step> {
    Some(match name {
        "f14" => &steps::F14,
        "f22" => &steps::F22,
        "f28" => &steps::F28,
        "f25" => &steps::F25,
        "f3" => &steps::F3,
        "f23" => &steps::F23,
        "fw2" => &steps::FW2,
        "f21x2" => &steps::F21[0],
        "f21x4" => &steps::F21[2],
        _ => return None,
    })
}

/// The shapes configuration `name` ([`FP8_COSTED`]) is calibrated on with `sms` SMs and an L2 of `l2_bytes` (pure),
/// from its tile, the SMs and the L2, none from a model's list; N a multiple of 128 and K of 128 throughout (block
/// scales' groups). The K-tile shapes keep A and B within half the L2 (the bench's repeated launches then read them
/// from it: the rate `k_tile_full_us` prices), taking more tile rows and fewer columns where one or two rows would
/// not; f22's and f23's 64-row round (35 MB at 132 SMs) and f3's 32-row DRAM shape keep their sizes. Session
/// 111: on an H100's 50 MiB, f14's 256×15104×4096 and f22's 128×12672×4096 streamed from DRAM and priced every K
/// tile 1.3–1.4× its rate from the L2, where the H200's 60 MiB held them. (f14 and f22 have no DRAM
/// floor: one fitted to f22 at 64 rows beyond the L2, 3.7 TB/s on that H100, priced 128×32000×5120 at 59 µs where
/// f22 ran 120 — each of its two tile rows read B from DRAM — and picked it at 1.79× the fastest step.)
/// - f14 (128×256 tiles) and f3 (128×128), the few-tile regime their costs price: 1 tile, an eighth, a third
///   and nine tenths of a round, at 1, 8 and 32 K tiles of 128 (f3: 4 and 32); f3 also a 32-row shape over
///   half a round of tiles at K 8192 (its DRAM floor);
/// - f22 and f23 (64×64 tiles, 128 rows or more): a quarter, one and three rounds at 8 and 32 K tiles, and 64
///   rows over one round at 32;
/// - f28 (64×128 tiles in cluster pairs, 128 rows or more: the choice's regime): an eighth, a third and nine tenths
///   of a round of its CTAs, and two rounds, at 8 and 32 K tiles;
/// - f25 (≤ 32 rows): 8, 16 and 32 rows over 8192, 4096, 14336 and 28672 columns (K 1024, 4096, 4096, 8192);
/// - fw2 (≤ 16 rows): 1, 8 and 16 rows over 1024 × 1024, 14336 × 4096 and 28672 × 8192 weights;
/// - f21 (`f21x2`, `f21x4`: clusters of 2 and 4): 256 rows over half, nine tenths and one and a half of the clusters
///   that fit at once (`SMs / size`), at 16 and 64 K tiles. `calibration_shapes("f21", …)` is both.
pub fn calibration_shapes(name: &str, sms: u32, l2_bytes: u64) -> Vec<(usize, usize, usize)> {
    if name == "f21" {
        return [calibration_shapes("f21x2", sms, l2_bytes), calibration_shapes("f21x4", sms, l2_bytes)].concat();
    }
    let sms = sms.max(8) as usize;
    let l2 = l2_bytes.max(1 << 20) as usize;
    let up = |x: usize| x.div_ceil(128) * 128;
    // `t` tiles of `rows × cols` at K `k`: `tm` tile rows (doubled from `tm0` while A and B would not fit half the L2).
    let within = |t: usize, rows: usize, cols: usize, tm0: usize, k: usize| {
        let mut tm = tm0;
        while tm < t && (rows * tm + up(cols * t.div_ceil(tm))) * k > l2 / 2 {
            tm *= 2;
        }
        (rows * tm, up(cols * t.div_ceil(tm)), k)
    };
    let mut out = vec![];
    match name {
        "f14" | "f3" => {
            let cols = if name == "f14" { 256 } else { 128 };
            let kts: &[usize] = if name == "f14" { &[1, 8, 32] } else { &[4, 32] };
            for t in [1, sms.div_ceil(8), sms.div_ceil(3), sms * 9 / 10] {
                let tm = if t >= 8 { 2 } else { 1 };
                for &kt in kts {
                    out.push(within(t, 128, cols, tm, 128 * kt));
                }
            }
            if name == "f3" {
                out.push((32, up(128 * (sms / 2)), 8192));
            }
        }
        "f28" => {
            // Whole pairs: an even tile count over an even number of tile rows.
            for t in [sms.div_ceil(8), sms.div_ceil(3), sms * 9 / 10, 2 * sms] {
                for kt in [8, 32] {
                    out.push(within(t.next_multiple_of(2), 64, 128, 2, 128 * kt));
                }
            }
        }
        "f22" | "f23" => {
            for t in [sms.div_ceil(4), sms, 3 * sms] {
                for kt in [8, 32] {
                    out.push(within(t, 64, 64, 2, 128 * kt));
                }
            }
            out.push((64, up(64 * sms), 4096));
        }
        "f25" => {
            // 8192 × 1024 too: a 6–8 µs launch, where the choice against f22 and fw2 is closest and the fixed cost
            // is most of the time.
            for m in [8, 16, 32] {
                for (n, k) in [(8192, 1024), (4096, 4096), (14336, 4096), (28672, 8192)] {
                    out.push((m, n, k));
                }
            }
        }
        "f21x2" | "f21x4" => {
            // 256 rows (two tile rows of 128×256) over about half and nine tenths of the clusters that fit at once
            // (SMs / size), and past one wave: 16 and 64 K tiles.
            let s = if name == "f21x2" { 2 } else { 4 };
            for t in [sms / (2 * s), sms * 9 / (10 * s), 3 * sms / (2 * s)] {
                for kt in [16, 64] {
                    out.push((256, up(256 * t.div_ceil(2).max(1)), 128 * kt));
                }
            }
        }
        "fw2" => {
            for m in [1, 8, 16] {
                for (n, k) in [(1024, 1024), (14336, 4096), (28672, 8192)] {
                    out.push((m, n, k));
                }
            }
        }
        _ => {}
    }
    let st = costed_step(name);
    out.into_iter().filter(|&(m, n, k)| st.is_some_and(|st| st.rejects(m, n, k).is_none())).collect()
}

/// The shape f27's speeds are timed at: 8192 × 7680 × 4096 — 7680 a multiple of every width (f14's 256 and
/// f27's 192, 320, 384), 64 tile rows: 9.7–19.4 rounds of tiles on 132 SMs for every width, 7–15 on 170, so the
/// last round's share is small for all four.
pub const F27_SPEED_SHAPE: (usize, usize, usize) = (8192, 7680, 4096);

/// The labels of [`f27_speeds`]' timings: f14 over full rounds (`f14-full`, kept apart from f14's few-tile
/// timings) and f27's widths.
pub const F27_SPEED_LABELS: [&str; 4] = ["f14-full", "f27n192", "f27n320", "f27n384"];

/// The step a speed timing's label ([`F27_SPEED_LABELS`]) runs.
fn speed_step(label: &str) -> Option<&'static Step> {
    match label {
        "f14-full" => Some(&steps::F14),
        _ => steps::F27.iter().find(|s| s.kernel.step == label),
    }
}

/// f27's speeds per unit of work against f14's (by width 192, 320, 384) from `samples`' timings of
/// [`F27_SPEED_LABELS`] at one shape on `sms` SMs: each the ratio that makes the wave model
/// (`Step::wave_time`: rounds × tile area / speed) price the width as measured, relative to f14 —
/// `(t14 / w14) / (t / w)` with `w` the model's time at speed 1. `None` unless all four were timed, at one
/// shape.
pub fn f27_speeds(samples: &[Fp8Sample], sms: u32) -> Option<[f64; 3]> {
    let at = |label: &str| samples.iter().find(|x| x.step == label && x.us.is_finite() && x.us > 0.0).map(|x| (x.shape, x.us));
    let ((m, n, k), t14) = at(F27_SPEED_LABELS[0])?;
    let w14 = steps::F14.wave_time(m, n, sms, 1.0);
    let mut out = [0.0; 3];
    for (i, st) in steps::F27.iter().enumerate() {
        let (shape, t) = at(st.kernel.step)?;
        if shape != (m, n, k) {
            return None;
        }
        out[i] = (t14 / w14) / (t / st.wave_time(m, n, sms, 1.0));
    }
    Some(out)
}

/// Whether a timing's label is one of f27's speed timings ([`F27_SPEED_LABELS`]).
pub fn is_speed_timing(label: &str) -> bool {
    F27_SPEED_LABELS.contains(&label)
}

/// The configuration of [`FP8_COSTED`] a timed step's label belongs to (`f21x2`, `f21x4` → `f21`).
pub fn config_of(label: &str) -> Option<&'static str> {
    if label.starts_with("f21x") {
        return Some("f21");
    }
    FP8_COSTED.iter().copied().find(|&c| c == label)
}

/// Every timing a calibration makes on `sms` SMs and an L2 of `l2_bytes`: (the step's label, the shape),
/// configuration by configuration.
pub fn plan(sms: u32, l2_bytes: u64) -> Vec<(&'static str, (usize, usize, usize))> {
    FP8_COSTED.iter().flat_map(|&n| if n == "f21" { vec!["f21x2", "f21x4"] } else { vec![n] })
        .flat_map(|label| calibration_shapes(label, sms, l2_bytes).into_iter().map(move |s| (label, s))).collect()
}

/// One calibration timing: a configuration's step, a shape, the median µs.
#[derive(Clone, Debug, PartialEq)]
pub struct Fp8Sample {
    /// The step's label (one of [`FP8_COSTED`]).
    pub step: String,
    /// M, N, K.
    pub shape: (usize, usize, usize),
    /// Median µs.
    pub us: f64,
}

/// `costs`' prediction of a sample (`None` for a step it does not hold).
pub fn predict(costs: &Fp8Costs, x: &Fp8Sample, sms: u32) -> Option<f64> {
    let (m, n, k) = x.shape;
    let (kt, ab) = ((k as u64).div_ceil(layout::fp8::tiles::BK as u64) as f64, ((m + n) * k) as f64);
    if x.step == "fw2" {
        return Some(costs.fw2.time_us(m, ab));
    }
    if let Some(size) = x.step.strip_prefix("f21x").and_then(|v| v.parse::<u32>().ok()) {
        return steps::f21_estimate_at(size, m, n, k, costs.f21_resident).map(|est| costs.f21.time_us(est));
    }
    let st = costed_step(&x.step)?;
    let c = match x.step.as_str() {
        "f14" => costs.f14,
        "f22" => costs.f22,
        "f28" => costs.f28,
        "f25" => costs.f25,
        "f3" => costs.f3,
        _ => costs.f23,
    };
    Some(c.time_us(st.cta_tiles(m, n), sms as u64, kt, ab))
}

/// Fits every configuration with at least three timings in `samples` from `start`'s constants (the squared log
/// error of [`predict`]); `(costs, what kept `start`'s constants and why)`.
pub fn fit(samples: &[Fp8Sample], source: String, sms: u32, f21_resident: [u32; 7], start: &Fp8Costs) -> (Fp8Costs, Vec<String>) {
    let mut c = Fp8Costs { source, sms, f21_resident, ..start.clone() };
    let mut kept = vec![];
    for name in FP8_COSTED {
        let pts: Vec<&Fp8Sample> = samples.iter().filter(|x| config_of(&x.step) == Some(name) && x.us.is_finite() && x.us > 0.0).collect();
        if pts.len() < 3 {
            kept.push(format!("{name}: {} timings (at least 3 needed); its constants stay {}", pts.len(), start.source));
            continue;
        }
        if name == "f21" {
            let err = |p: &[f64; 2]| {
                let trial = Fp8Costs { f21: steps::SplitCost { fixed_us: p[0], k_tile_us: p[1] }, ..c.clone() };
                pts.iter().map(|x| (predict(&trial, x, sms).unwrap_or(f64::NAN) / x.us).ln().powi(2)).sum::<f64>()
            };
            let p = coordinate_search([c.f21.fixed_us, c.f21.k_tile_us], [0.1, 1e-3], [100.0, 100.0], err);
            c.f21 = steps::SplitCost { fixed_us: p[0], k_tile_us: p[1] };
            continue;
        }
        if name == "fw2" {
            let f = start.fw2;
            let err = |p: &[f64; 3]| {
                let cost = RowStreamCost { fixed_us: p[0], bytes_per_us: p[1], per_row: p[2] };
                pts.iter().map(|x| (cost.time_us(x.shape.0, ((x.shape.0 + x.shape.1) * x.shape.2) as f64) / x.us).ln().powi(2)).sum::<f64>()
            };
            let p = coordinate_search([f.fixed_us, f.bytes_per_us, f.per_row.max(1e-4)], [0.1, 1e5, 1e-5], [100.0, 2e7, 0.1], err);
            c.fw2 = RowStreamCost { fixed_us: p[0], bytes_per_us: p[1], per_row: p[2] };
            continue;
        }
        let t0 = *c.tile_cost_mut(name).expect("a tile cost");
        let err = |p: &[f64; 4]| {
            let mut trial = c.clone();
            *trial.tile_cost_mut(name).expect("a tile cost") = TileCost { fixed_us: p[0], k_tile_us: p[1], k_tile_full_us: p[2], dram_bytes_per_us: p[3] };
            pts.iter().map(|x| (predict(&trial, x, sms).unwrap_or(f64::NAN) / x.us).ln().powi(2)).sum::<f64>()
        };
        let p = coordinate_search([t0.fixed_us, t0.k_tile_us, t0.k_tile_full_us, t0.dram_bytes_per_us], [0.1, 1e-3, 1e-3, 1e5], [100.0, 100.0, 100.0, 2e7], err);
        *c.tile_cost_mut(name).expect("a tile cost") = TileCost { fixed_us: p[0], k_tile_us: p[1], k_tile_full_us: p[2], dram_bytes_per_us: p[3] };
    }
    match f27_speeds(samples, sms) {
        Some(v) => c.f27_speed = v,
        None => kept.push(format!("f27: no full-round timings of f14 and its three widths at one shape; its speeds stay {}", start.source)),
    }
    (c, kept)
}

/// Where [`calibrate`]'s result for `gpu` is kept: `$KERNEL_LAB_FP8_COST_FILE`, else
/// `$XDG_CACHE_HOME/kernel-lab/fp8-cost-<key>.tsv` (the key as [`crate::gemm::calibrate::key`]), else
/// `$HOME/.cache/kernel-lab/…`; `None` when none of those is set.
pub fn path(gpu: &Gpu) -> Option<PathBuf> {
    cache_file(gpu, "KERNEL_LAB_FP8_COST_FILE", "fp8-cost")
}

/// The costs FP8 plans on `gpu` use: its calibration file ([`path`]) where one exists and reads, else the
/// shipped constants with this GPU's L2 ([`Fp8Costs::shipped_on`]). Read once per process and key.
pub fn model_for(gpu: &Gpu) -> Arc<Fp8Costs> {
    static MODELS: OnceLock<Mutex<HashMap<String, Arc<Fp8Costs>>>> = OnceLock::new();
    cached_model(&MODELS, gpu, path(gpu), "FP8", Fp8Costs::parse, || Fp8Costs::shipped_on(&gpu.info.name, gpu.info.l2_bytes as u64))
}

/// What an FP8 calibration measured: the costs and the timings they were fitted to.
pub struct Fp8Calibration {
    /// The fitted costs.
    pub costs: Fp8Costs,
    /// Every timed (step, shape).
    pub samples: Vec<Fp8Sample>,
    /// Configurations or timings left out, with why.
    pub skipped: Vec<String>,
}

/// Measures the FP8 choice's costs on `gpu` (sm_90a only): each configuration of [`FP8_COSTED`] on its
/// [`calibration_shapes`], its operands quantized from random data with its scaling, timed as the bench times
/// the family (the same buffers every run: weights within the L2 stay there, as the shipped constants were
/// measured), then fitted from the shipped constants ([`fit`]). `progress` hears one line per configuration.
pub fn calibrate(gpu: &Gpu, progress: &mut dyn FnMut(&str)) -> Result<Fp8Calibration> {
    if let Some(why) = gpu.cannot_run(&steps::F14.kernel) {
        return Err(Error::Unsupported { kernel: "the FP8 cost model".into(), needs: "sm_90a (Hopper): the steps it chooses among".into(), have: why });
    }
    let sms = gpu.info.sms;
    let resident = crate::fp8::f21_resident(gpu)?;
    let timings = plan(sms, gpu.info.l2_bytes as u64);
    let (sm, sn, sk) = F27_SPEED_SHAPE;
    let most = timings.iter().map(|&(_, (m, n, k))| (m + n) * k + m * n).max().unwrap_or(1).max((sm + sn) * sk + sm * sn);
    crate::runtime::budget::check(gpu, "FP8 calibration", 6 * most as u64, 0)?;
    let seed = crate::runtime::verify::fresh_seed();
    let source = format!("calibrated on {} ({sms} SMs, driver {}, kernels {:016x})", gpu.info.name, gpu.info.driver_version, crate::runtime::ptx::kernels_fingerprint());
    let (mut samples, mut skipped) = (vec![], vec![]);
    let mut labels: Vec<&str> = timings.iter().map(|t| t.0).collect();
    labels.dedup();
    let speed_timings: Vec<(&str, (usize, usize, usize))> = F27_SPEED_LABELS.iter().map(|&l| (l, F27_SPEED_SHAPE)).collect();
    let timings: Vec<(&str, (usize, usize, usize))> = timings.into_iter().chain(speed_timings).collect();
    labels.extend(F27_SPEED_LABELS);
    for name in labels {
        let st = costed_step(name).or_else(|| speed_step(name)).expect("a costed or speed step");
        let before = samples.len();
        for (i, &(_, (m, n, k))) in timings.iter().filter(|t| t.0 == name).enumerate() {
            let timed = (|| -> Result<f64> {
                let mut a32 = gpu.zeros::<f32>(m * k)?;
                fill_f32(gpu, &mut a32, seed ^ (2 * i as u64))?;
                let a = quantize(gpu, &a32, m, k, st.scaling, Operand::A)?;
                drop(a32);
                let mut b32 = gpu.zeros::<f32>(n * k)?;
                fill_f32(gpu, &mut b32, seed ^ (2 * i as u64 + 1))?;
                let b = quantize(gpu, &b32, n, k, st.scaling, Operand::B)?;
                drop(b32);
                let mut c = gpu.zeros::<u16>(m * n)?;
                let g = Fp8Gemm::new(gpu, st, &a, &b, &c)?;
                median_us(gpu, |_| g.run(gpu, &a, &b, &mut c))
            })();
            match timed {
                Ok(us) => samples.push(Fp8Sample { step: name.to_string(), shape: (m, n, k), us }),
                Err(e) => skipped.push(format!("{name} at {m}x{n}x{k}: {e}")),
            }
        }
        progress(&format!("{name}: {} shapes timed", samples.len() - before));
    }
    let start = Fp8Costs::shipped(&gpu.info.name);
    let (mut costs, kept) = fit(&samples, source, sms, resident, &start);
    costs.l2_bytes = gpu.info.l2_bytes as u64;
    skipped.extend(kept);
    gpu.stream.synchronize().during(|| "after the FP8 calibration".into())?;
    Ok(Fp8Calibration { costs, samples, skipped })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_shapes_run_on_their_step_and_stay_in_their_regime() {
        for sms in [114, 132, 144] {
            let labels: Vec<&str> = plan(sms, 50 << 20).iter().map(|t| t.0).collect();
            for name in FP8_COSTED {
                assert!(labels.iter().filter(|l| config_of(l) == Some(name)).count() >= 7, "{name}: too few timings");
            }
            for name in ["f14", "f21x2", "f21x4", "f22", "f25", "f3", "f23", "fw2", "f28"] {
                let shapes = calibration_shapes(name, sms, 50 << 20);
                assert!(shapes.len() >= 6, "{name}: {shapes:?}");
                let st = costed_step(name).unwrap();
                for &(m, n, k) in &shapes {
                    assert!(st.rejects(m, n, k).is_none(), "{name} {m}x{n}x{k}");
                    assert!(n % 128 == 0 && k % 128 == 0, "{name} {m}x{n}x{k}");
                    if matches!(name, "f14" | "f3") {
                        assert!(st.tiles(m, n) < sms as u64, "{name} {m}x{n}x{k}: the few-tile regime");
                    }
                    if name == "f28" {
                        assert!(m >= 128 && st.cta_tiles(m, n) == st.tiles(m, n), "{name} {m}x{n}x{k}: whole pairs, as the choice takes it");
                    }
                }
            }
            // The K-tile shapes read A and B from the L2, on any L2 (f3's 32-row DRAM shape is sized by the SMs alone).
            for l2 in [40u64 << 20, 50 << 20, 60 << 20, 96 << 20] {
                for name in ["f14", "f22", "f3", "f23", "f28"] {
                    let shapes = calibration_shapes(name, sms, l2);
                    let beyond: Vec<_> = shapes.iter().filter(|&&(m, n, k)| ((m + n) * k) as u64 > l2 && m != 32).collect();
                    assert!(beyond.is_empty(), "{name} {sms} SMs, L2 {l2}: {beyond:?}");
                    let over_half = shapes.iter().filter(|&&(m, n, k)| ((m + n) * k) as u64 > l2 / 2 && ((m + n) * k) as u64 <= l2).count();
                    assert!(over_half <= 1, "{name} {sms} SMs, L2 {l2}: K-tile shapes past half the L2: {shapes:?}");
                }
            }
        }
    }

    /// The fit recovers known costs from timings made by them, starting 1.5–2× off.
    #[test]
    fn the_fit_recovers_known_costs() {
        let truth = Fp8Costs {
            f14: TileCost { fixed_us: 5.0, k_tile_us: 0.5, k_tile_full_us: 0.6, dram_bytes_per_us: f64::INFINITY },
            f25: TileCost { fixed_us: 3.0, k_tile_us: 0.2, k_tile_full_us: 0.3, dram_bytes_per_us: 3.5e6 },
            fw2: RowStreamCost { fixed_us: 3.0, bytes_per_us: 3.3e6, per_row: 0.005 },
            f21: steps::SplitCost { fixed_us: 7.0, k_tile_us: 0.6 },
            ..Fp8Costs::shipped("H200")
        };
        let truth = Fp8Costs { f27_speed: [0.95, 0.9, 0.85], ..truth };
        let (m, n, k) = F27_SPEED_SHAPE;
        let speeds = [1.0, 0.95, 0.9, 0.85];
        let samples: Vec<Fp8Sample> = plan(132, 50 << 20).into_iter()
            .map(|(name, shape)| {
                let x = Fp8Sample { step: name.into(), shape, us: 0.0 };
                Fp8Sample { us: predict(&truth, &x, 132).unwrap(), ..x }
            })
            .chain(F27_SPEED_LABELS.iter().zip(speeds).map(|(l, v)| Fp8Sample { step: l.to_string(), shape: (m, n, k), us: 2e-3 * speed_step(l).unwrap().wave_time(m, n, 132, v) }))
            .collect();
        let start = Fp8Costs {
            f14: TileCost { fixed_us: 10.0, k_tile_us: 0.3, ..truth.f14 },
            f25: TileCost { fixed_us: 6.0, dram_bytes_per_us: 2.0e6, ..truth.f25 },
            fw2: RowStreamCost { fixed_us: 6.0, bytes_per_us: 2.0e6, per_row: 0.01 },
            ..truth.clone()
        };
        let resident = truth.f21_resident;
        let start = Fp8Costs { f21: steps::SplitCost { fixed_us: 4.0, k_tile_us: 0.9 }, ..start };
        let (got, kept) = fit(&samples, "test".into(), 132, resident, &start);
        assert!(kept.is_empty(), "{kept:?}");
        assert!((got.f21.k_tile_us / 0.6 - 1.0).abs() < 0.05, "{:?}", got.f21);
        assert!(got.f14.dram_bytes_per_us.is_infinite(), "no floor stays no floor");
        assert!(got.f27_speed.iter().zip(truth.f27_speed).all(|(a, b)| (a - b).abs() < 1e-9), "{:?}", got.f27_speed);
        for x in samples.iter().filter(|x| !is_speed_timing(&x.step)) {
            let p = predict(&got, x, 132).unwrap();
            assert!((p / x.us - 1.0).abs() < 0.03, "{} {:?}: {p:.2} vs {:.2}", x.step, x.shape, x.us);
        }
        assert!((got.fw2.bytes_per_us / 3.3e6 - 1.0).abs() < 0.05, "{:?}", got.fw2);
        assert!((got.f14.k_tile_us / 0.5 - 1.0).abs() < 0.1, "{:?}", got.f14);
    }

    #[test]
    fn the_text_form_reads_back_and_refuses_what_it_cannot_read() {
        let c = Fp8Costs::shipped("NVIDIA H200");
        let back = Fp8Costs::parse(&c.to_text(), "t").unwrap();
        assert_eq!(back.f21_resident, c.f21_resident);
        assert!(back.f14.dram_bytes_per_us.is_infinite() && back.f22.dram_bytes_per_us.is_infinite());
        for (a, b) in [(back.f25, c.f25), (back.f3, c.f3), (back.f23, c.f23)] {
            assert!((a.k_tile_us - b.k_tile_us).abs() < 1e-3 && (a.dram_bytes_per_us / b.dram_bytes_per_us - 1.0).abs() < 1e-3);
        }
        assert!((back.fw2.bytes_per_us / c.fw2.bytes_per_us - 1.0).abs() < 1e-3);
        assert_eq!((back.f21, back.l2_bytes), (c.f21, c.l2_bytes));
        let text = c.to_text();
        assert!(Fp8Costs::parse(&text.replace("# sms 132", ""), "f").unwrap_err().contains("sms"));
        assert!(Fp8Costs::parse(&text.lines().filter(|l| !l.starts_with("fw2")).collect::<Vec<_>>().join("\n"), "f").unwrap_err().contains("fw2"));
        // Without an f21 line (the first calibrations' files) f21 is priced by f14's constants.
        let old = Fp8Costs::parse(&text.lines().filter(|l| !l.starts_with("f21")).collect::<Vec<_>>().join("\n"), "f").unwrap();
        assert_eq!((old.f21.fixed_us, old.f21.k_tile_us), (old.f14.fixed_us, old.f14.k_tile_us));
        assert!(Fp8Costs::parse(&text.replace("f22\t", "f99\t"), "f").unwrap_err().contains("f99"));
        // Without an f28 line (files from before session 112) f28 keeps its shipped cost; with one, it is read.
        let no28 = Fp8Costs::parse(&text.lines().filter(|l| !l.starts_with("f28")).collect::<Vec<_>>().join("\n"), "f").unwrap();
        assert_eq!(no28.f28, steps::F28_COST);
        let mine = text.replace(&format!("f28\t{:.3}", c.f28.fixed_us), "f28\t7.250");
        assert_eq!(Fp8Costs::parse(&mine, "f").unwrap().f28.fixed_us, 7.25);
        assert!(Fp8Costs::parse(&text.replace("f25\t3.800", "f25\t-3.8"), "f").is_err());
        assert!(Fp8Costs::shipped("NVIDIA H100 80GB HBM3").source.contains("kernel-lab calibrate"));
        // f27's speeds: read back; a file without them (before session 92) keeps the shipped ones; bad ones refused.
        let mut mine = c.clone();
        mine.f27_speed = [0.97, 0.9, 0.88];
        assert_eq!(Fp8Costs::parse(&mine.to_text(), "t").unwrap().f27_speed, [0.97, 0.9, 0.88]);
        let without = mine.to_text().lines().filter(|l| !l.starts_with("f27")).collect::<Vec<_>>().join("\n");
        assert_eq!(Fp8Costs::parse(&without, "t").unwrap().f27_speed, steps::F27_SPEED_PER_WORK);
        assert!(Fp8Costs::parse(&mine.to_text().replace("f27\t0.9700", "f27\t0.0000"), "f").unwrap_err().contains("positive"));
        assert!(Fp8Costs::parse(&mine.to_text().replace("f27\t0.9700\t", "f27\t"), "f").unwrap_err().contains("f27"));
    }

    /// f27's speeds from full-round timings: where the four times stand in the wave model's ratio the speeds are 1;
    /// a width twice as slow as the model at speed 1 has speed 0.5; the fit takes them, and keeps the shipped ones
    /// (saying so) without all four at one shape.
    #[test]
    fn f27_speeds_make_the_wave_model_price_the_widths_as_timed() {
        let (m, n, k) = F27_SPEED_SHAPE;
        for sms in [114u32, 132, 170] {
            let model = |label: &str| speed_step(label).unwrap().wave_time(m, n, sms, 1.0);
            let sample = |label: &str, scale: f64| Fp8Sample { step: label.into(), shape: (m, n, k), us: 3e-3 * model(label) * scale };
            let even: Vec<Fp8Sample> = F27_SPEED_LABELS.iter().map(|l| sample(l, 1.0)).collect();
            let v = f27_speeds(&even, sms).unwrap();
            assert!(v.iter().all(|x| (x - 1.0).abs() < 1e-12), "{sms}: {v:?}");
            let slow: Vec<Fp8Sample> = F27_SPEED_LABELS.iter().map(|l| sample(l, if *l == "f27n320" { 2.0 } else { 1.0 })).collect();
            let v = f27_speeds(&slow, sms).unwrap();
            assert!((v[1] - 0.5).abs() < 1e-12 && (v[0] - 1.0).abs() < 1e-12, "{sms}: {v:?}");
            let (fitted, kept) = fit(&slow, "t".into(), sms, [66, 39, 30, 22, 17, 15, 15], &Fp8Costs::shipped("H200"));
            assert_eq!(fitted.f27_speed, v);
            assert!(!kept.iter().any(|x| x.starts_with("f27")), "{kept:?}");
            assert!(f27_speeds(&slow[..3], sms).is_none(), "a width missing");
            let mut moved = slow.clone();
            moved[2].shape = (m, n, 2 * k);
            assert!(f27_speeds(&moved, sms).is_none(), "two shapes");
            let (fitted, kept) = fit(&moved, "t".into(), sms, [66, 39, 30, 22, 17, 15, 15], &Fp8Costs::shipped("H200"));
            assert_eq!(fitted.f27_speed, steps::F27_SPEED_PER_WORK);
            assert!(kept.iter().any(|x| x.starts_with("f27")), "{kept:?}");
        }
        // Every width runs the shape.
        for l in F27_SPEED_LABELS {
            assert!(speed_step(l).unwrap().rejects(m, n, k).is_none(), "{l}");
        }
    }
}

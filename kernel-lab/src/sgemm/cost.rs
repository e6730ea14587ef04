//! The f32 choice on Hopper as a cost model (issue 48): each candidate family's schedule on the shape — its
//! CTAs, the K each one walks, the blocks an SM holds — priced by constants measured per family, and the
//! cheapest taken. Replaces session 61's cascade of shape predicates on GPUs that run `sm_90a` code (the
//! only ones the constants were measured on); elsewhere [`super::base_step`]'s cascade stays.
//!
//! ```text
//! L      = ⌈CTAs / SMs⌉            the CTAs one SM runs in all (its share of the work)
//! rounds = ⌈CTAs / (b · SMs)⌉      how many times an SM refills its b resident CTAs
//! w      = 1 (a CTA computes its whole tile) | min(M, tile rows) (v33 / v34 loop over the rows they hold)
//! t      = fixed + k_split · (k_cta · L · w + k_round · rounds) + split · M·N·splits (splits > 1)
//! t      ≥ fixed + 4·N·K / stream            (B read once from DRAM)
//! ```
//!
//! `k_cta` is an SM's time a K element per CTA it holds (the CTAs share its FMA pipes), `k_round` what a
//! round costs beyond that (latency a CTA cannot hide alone), `split` the zeroing and the reductions a split
//! adds, per million elements of C it adds into.
//!
//! Fitted (least squares on log time) to every family at the 93 distinct shapes of at most 1.2·10¹¹
//! multiply-adds of a corpus sample (`shapes.py gemm --sample 120 --seed 8787`; H200, 132 SMs, 3 processes,
//! `results/2026-12-02-h200-session87`, call 3): rms 3.3–6.0% for v11, v23, v24, 9.7% / 15% for v33 / v34;
//! the pick within 5% of the fastest family at 89 of the 93 (`scripts/f32-cost-fit.py` refits them from the
//! committed times and schedules). Held out (call 2, 11 shapes never fitted, every step timed): 11 of 11.
//! The entry point before / after at 54 changed shapes no fit saw (call 4): two corpus samples 1.072 → 1.166×
//! and 1.053 → 1.221× cuBLAS, 14 random shapes 0.786 → 0.817× with one 0.38× that [`measured_for`] now
//! excludes (call 5: 14 shapes with K off 128, 0.753 → 0.861×, none slower); session 83's sample, its first
//! 40 shapes, 1.113× (1.057× with the cascade, session 86; call 6).
//!
//! **Measured on the GPU in hand** (session 89): [`super::calibrate::calibrate`] (`kernel-lab calibrate --dtype f32`)
//! times each family on [`calibration_shapes`] — made from its tile and the SM count, none from a model's list —
//! and fits its constants ([`fit_family`], from the shipped ones) in 3.5 s on an H200; plans use the result
//! ([`F32Model`], kept by GPU, SM count, driver and PTX). On 58 held-out corpus shapes with every family timed its
//! pick was within 5% of the fastest at 57 (the corpus fit above: 56), on session 87's 93 at 88–91
//! (`results/2026-12-03-h200-session89`). Shipped: the H200's constants and, since session 106, an H100's
//! ([`H100_COSTS`]: the same 58 shapes timed there, 56 within 5%; the H200's constants on that H100 55); other
//! GPUs should calibrate.
use std::fmt::Write as _;

use crate::{
    error::{Error, Result},
    gemm::Shape,
    steps::sgemm::{self as steps, Step},
};

/// How much of a CTA's tile it computes: all of it (the tile steps, rows past M included), or only the rows
/// of C it holds (v33, v34: loops over their row groups).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CtaWork {
    /// The whole tile, whatever M.
    WholeTile,
    /// `min(M, tile rows)` rows.
    ActualRows,
}

/// A family's measured constants (see the module docs for the formula).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct F32Cost {
    /// Launch and tail, µs (the zeroing grid of a split included).
    pub fixed_us: f64,
    /// ns a K element, per CTA an SM holds (weighted by [`CtaWork`]).
    pub k_ns_per_cta: f64,
    /// ns a K element, per round of resident CTAs.
    pub k_ns_per_round: f64,
    /// µs per million elements of C times the splits adding into it (splits > 1 only).
    pub split_us_per_melem: f64,
    /// GB/s B streams at from DRAM: the floor.
    pub stream_gbps: f64,
    /// How a CTA's work scales with M.
    pub work: CtaWork,
}

/// v11 / v20: 128×128 tiles, two blocks an SM, K whole.
pub const TILE128_COST: F32Cost = F32Cost { fixed_us: 4.8, k_ns_per_cta: 82.0, k_ns_per_round: 19.5, split_us_per_melem: 0.0, stream_gbps: 3000.0, work: CtaWork::WholeTile };
/// v24 / v31 / v32 (v19's Hopper forms): 64×128 tiles, three blocks an SM, K split by rounds.
pub const TILE64_COST: F32Cost = F32Cost { fixed_us: 7.2, k_ns_per_cta: 45.2, k_ns_per_round: 2.64, split_us_per_melem: 1.21, stream_gbps: 3000.0, work: CtaWork::WholeTile };
/// v23 / v26 (v15's Hopper forms): 32×128 tiles, six blocks an SM, K split.
pub const TILE32_COST: F32Cost = F32Cost { fixed_us: 6.6, k_ns_per_cta: 21.5, k_ns_per_round: 36.3, split_us_per_melem: 0.28, stream_gbps: 3000.0, work: CtaWork::WholeTile };
/// v33: 16×32 strips, one block an SM, K split by waves.
pub const STRIP16_COST: F32Cost = F32Cost { fixed_us: 3.6, k_ns_per_cta: 0.267, k_ns_per_round: 2.78, split_us_per_melem: 34.9, stream_gbps: 3720.0, work: CtaWork::ActualRows };
/// v34: 4×32 row groups, two blocks an SM, K split by waves.
pub const STRIP4_COST: F32Cost = F32Cost { fixed_us: 4.0, k_ns_per_cta: 0.140, k_ns_per_round: 2.70, split_us_per_melem: 60.1, stream_gbps: 4330.0, work: CtaWork::ActualRows };

/// A step's launch on a shape, as the model sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// CTAs in the grid (tiles × splits).
    pub ctas: u64,
    /// Splits of K.
    pub splits: u32,
    /// K each CTA walks.
    pub k_split: u32,
    /// Blocks an SM holds (the step's `.minnctapersm`).
    pub blocks_per_sm: u32,
    /// Rows of C a CTA's tile spans.
    pub tile_rows: u32,
}

/// `step`'s schedule on `s` with `sms` SMs: its grid and split rule, as its launch computes them.
pub fn schedule(step: &Step, s: Shape, sms: u32) -> Result<Schedule> {
    let (gx, gy) = s.grid(step, sms)?;
    let (splits, k_split) = step.split_k(s.m as u32, s.n as u32, s.k as u32, sms, 1);
    let blocks_per_sm = step.kernel.launch_bounds.and_then(|b| b.min_blocks_per_sm).unwrap_or(1).max(1);
    Ok(Schedule { ctas: gx as u64 * gy as u64, splits, k_split, blocks_per_sm, tile_rows: step.grid.tile().0 })
}

impl F32Cost {
    /// Predicted µs of a launch with schedule `sch` on `s` with `sms` SMs.
    pub fn predict(&self, sch: &Schedule, s: Shape, sms: u32) -> f64 {
        let sms = sms.max(1) as u64;
        let per_sm = sch.ctas.div_ceil(sms) as f64;
        let rounds = sch.ctas.div_ceil(sch.blocks_per_sm as u64 * sms) as f64;
        let w = match self.work {
            CtaWork::WholeTile => 1.0,
            CtaWork::ActualRows => s.m.min(sch.tile_rows as usize) as f64,
        };
        let split = if sch.splits > 1 { self.split_us_per_melem * (s.m * s.n) as f64 * sch.splits as f64 * 1e-6 } else { 0.0 };
        let t = self.fixed_us + sch.k_split as f64 * (self.k_ns_per_cta * per_sm * w + self.k_ns_per_round * rounds) * 1e-3 + split;
        t.max(self.fixed_us + 4.0 * (s.n * s.k) as f64 / (self.stream_gbps * 1e3))
    }
}

/// The families the model prices, in [`candidates`]' order, as the text form ([`F32Model::to_text`]) and
/// a calibration's samples name them.
pub const FAMILIES: [&str; 5] = ["tile128", "tile64", "tile32", "strip16", "strip4"];

/// The constants shipped for the H200, in [`FAMILIES`]' order (session 87's corpus fit above).
pub const H200_COSTS: [F32Cost; 5] = [TILE128_COST, TILE64_COST, TILE32_COST, STRIP16_COST, STRIP4_COST];

/// The constants shipped for the H100 (SXM, 132 SMs), in [`FAMILIES`]' order: `kernel-lab calibrate --dtype
/// f32` on an H100 80GB HBM3 (session 106, `results/2026-12-05-h100-session106`; the second of three
/// processes, whose constants lie between the other two's). Where they differ from the H200's it is the
/// streams: the strips' B at 2.8 / 3.0 TB/s against 3.7 / 4.3 on the H200's HBM3e. On session 89's 58 held-out
/// corpus shapes, every family timed on that H100, the pick is within 5% of the fastest family at 56 (the
/// H200's constants there: 55 — they take v33 over v23 at 16 rows, 1.05–1.10× slower).
pub const H100_COSTS: [F32Cost; 5] = [
    F32Cost { fixed_us: 4.327, k_ns_per_cta: 72.5425, k_ns_per_round: 33.3399, split_us_per_melem: 0.0010, stream_gbps: 3000.0, work: CtaWork::WholeTile },
    F32Cost { fixed_us: 6.559, k_ns_per_cta: 33.2588, k_ns_per_round: 34.5835, split_us_per_melem: 1.2004, stream_gbps: 3000.0, work: CtaWork::WholeTile },
    F32Cost { fixed_us: 4.375, k_ns_per_cta: 13.0940, k_ns_per_round: 80.7463, split_us_per_melem: 0.4747, stream_gbps: 2363.0, work: CtaWork::WholeTile },
    F32Cost { fixed_us: 4.989, k_ns_per_cta: 0.4864, k_ns_per_round: 0.0838, split_us_per_melem: 46.2438, stream_gbps: 2823.0, work: CtaWork::ActualRows },
    F32Cost { fixed_us: 4.619, k_ns_per_cta: 0.4175, k_ns_per_round: 1.1173, split_us_per_melem: 170.7653, stream_gbps: 3049.0, work: CtaWork::ActualRows },
];

/// The family (an index of [`FAMILIES`]) an f32 step belongs to: the forms of one family share its
/// constants (v11 / v20, v24 / v31 / v32, v23 / v26); `None` for a step the model does not weigh.
pub fn family_of(label: &str) -> Option<usize> {
    match label {
        "v11" | "v20" => Some(0),
        "v24" | "v31" | "v32" => Some(1),
        "v23" | "v26" => Some(2),
        "v33" => Some(3),
        "v34" => Some(4),
        _ => None,
    }
}

/// The Hopper candidates for `s`, each in the form that runs it (N or K off the vector widths, tiles past
/// M or N), in [`FAMILIES`]' order.
pub fn candidates(s: Shape) -> [&'static Step; 5] {
    [super::tile128_form(s), super::hopper_form(&steps::V19, s, true), super::hopper_form(&steps::V15, s, true), &steps::V33, &steps::V34]
}

/// Whether `cost`'s family was measured on shapes like `s`. The strip families' constants come from shapes
/// whose K is a multiple of their 128-deep K step (every corpus shape's is); off it, past 8 rows, they were
/// never timed by the fit, and the one such shape timed since ran v34 at 0.38× the cascade's v26
/// (12×30318×9191, session 87 call 4: its cost is not in the model). There the tile families decide; at
/// ≤ 8 rows the strips stay candidates at any K, as session 61's cascade ran them.
pub fn measured_for(cost: &F32Cost, s: Shape) -> bool {
    cost.work == CtaWork::WholeTile || s.k % layout::sgemm::SKINNY_KSTEP as usize == 0 || s.m <= STRIPS_ANY_K_MAX_M
}

/// The most rows at which the strip families (v33, v34) stay candidates with K off their K step.
pub const STRIPS_ANY_K_MAX_M: usize = 8;

/// Each candidate's predicted µs on `s` by the shipped H200 constants ([`F32Model::predictions`]).
pub fn predictions(s: Shape, sms: u32) -> Vec<(&'static Step, f64)> {
    predictions_with(&H200_COSTS, s, sms)
}

/// The cheapest candidate on `s` by the shipped H200 constants ([`F32Model::pick`]).
pub fn model_step(s: Shape, sms: u32) -> &'static Step {
    pick_with(&H200_COSTS, s, sms)
}

fn predictions_with(costs: &[F32Cost; 5], s: Shape, sms: u32) -> Vec<(&'static Step, f64)> {
    candidates(s).into_iter().zip(costs).filter(|(_, c)| measured_for(c, s))
        .filter_map(|(st, c)| schedule(st, s, sms).ok().map(|sch| (st, c.predict(&sch, s, sms)))).collect()
}

fn pick_with(costs: &[F32Cost; 5], s: Shape, sms: u32) -> &'static Step {
    predictions_with(costs, s, sms).into_iter().fold(None::<(&'static Step, f64)>, |best, (st, t)| match best {
        Some((_, bt)) if bt <= t => best,
        _ => Some((st, t)),
    }).map_or(&steps::V20, |(st, _)| st)
}

/// A GPU's f32 cost model: each family's constants, where they come from, and the SM count they were
/// measured with. Plans take it from [`super::calibrate::model_for`]: a calibration kept for the GPU in hand
/// (`kernel-lab calibrate`), else [`F32Model::shipped`].
#[derive(Clone, Debug, PartialEq)]
pub struct F32Model {
    /// `calibrated on …` or `shipped: …`.
    pub source: String,
    /// The SM count the constants were measured with.
    pub sms: u32,
    /// Per family, in [`FAMILIES`]' order.
    pub costs: [F32Cost; 5],
}

impl F32Model {
    /// The shipped model: the H100's constants on an H100 ([`H100_COSTS`]), else the H200's ([`H200_COSTS`]),
    /// named as not measured on any GPU but those two, where `kernel-lab calibrate` measures its own.
    pub fn shipped(name: &str) -> F32Model {
        if name.contains("H100") {
            return F32Model { source: "shipped: H100".to_string(), sms: 132, costs: H100_COSTS };
        }
        let source = if name.contains("H200") { "shipped: H200".to_string() } else { format!("shipped: H200 (not measured on {name}: run `kernel-lab calibrate`)") };
        F32Model { source, sms: 132, costs: H200_COSTS }
    }

    /// Each candidate's predicted µs on `s` with `sms` SMs (candidates whose grid cannot be launched, or
    /// outside what their constants were measured on — [`measured_for`] — are left out).
    pub fn predictions(&self, s: Shape, sms: u32) -> Vec<(&'static Step, f64)> {
        predictions_with(&self.costs, s, sms)
    }

    /// The cheapest candidate on `s` (ties to the earlier one); v20 if none can be launched (it takes any
    /// shape whose grid fits: M up to 2^20 is 8192 block rows).
    pub fn pick(&self, s: Shape, sms: u32) -> &'static Step {
        pick_with(&self.costs, s, sms)
    }

    /// The text form (`kernel-lab calibrate` writes it; [`F32Model::parse`] reads it): `# key value`
    /// header lines, then a line per family.
    pub fn to_text(&self) -> String {
        let mut out = format!("# source {}\n# sms {}\n# family\tfixed_us\tk_ns_per_cta\tk_ns_per_round\tsplit_us_per_melem\tstream_gbps\n", self.source.replace('\n', " "), self.sms);
        for (name, c) in FAMILIES.iter().zip(&self.costs) {
            let _ = writeln!(out, "{name}\t{:.3}\t{:.4}\t{:.4}\t{:.4}\t{:.0}", c.fixed_us, c.k_ns_per_cta, c.k_ns_per_round, c.split_us_per_melem, c.stream_gbps);
        }
        out
    }

    /// Reads [`F32Model::to_text`]'s form (every family once); `what` names the source in errors.
    pub fn parse(text: &str, what: &str) -> Result<F32Model> {
        let bad = |line: usize, why: String| Error::InvalidInput(format!("{what}:{line}: {why}"));
        let (mut source, mut sms) = (String::new(), 0u32);
        let mut costs: [Option<F32Cost>; 5] = [None; 5];
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            if let Some(h) = line.strip_prefix("# ") {
                let (key, value) = h.split_once(' ').unwrap_or((h, ""));
                match key {
                    "source" => source = value.to_string(),
                    "sms" => sms = value.trim().parse().map_err(|_| bad(i + 1, format!("`sms` needs a count, got `{value}`")))?,
                    _ => {}
                }
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            let [name, fixed, cta, round, split, stream] = f.as_slice() else {
                return Err(bad(i + 1, format!("`{line}`: expected family, fixed_us, k_ns_per_cta, k_ns_per_round, split_us_per_melem, stream_gbps")));
            };
            let fam = FAMILIES.iter().position(|f| f == name).ok_or_else(|| bad(i + 1, format!("`{name}` is not a family (one of {})", FAMILIES.join(", "))))?;
            let num = |v: &str| v.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0).ok_or_else(|| bad(i + 1, format!("`{v}` is not a non-negative number")));
            let stream_gbps = num(stream)?;
            if stream_gbps <= 0.0 {
                return Err(bad(i + 1, "stream_gbps must be positive".into()));
            }
            costs[fam] = Some(F32Cost { fixed_us: num(fixed)?, k_ns_per_cta: num(cta)?, k_ns_per_round: num(round)?, split_us_per_melem: num(split)?, stream_gbps, work: H200_COSTS[fam].work });
        }
        if sms == 0 {
            return Err(Error::InvalidInput(format!("{what}: needs `# sms`")));
        }
        let mut out = H200_COSTS;
        for (i, c) in costs.into_iter().enumerate() {
            out[i] = c.ok_or_else(|| Error::InvalidInput(format!("{what}: no constants for family {}", FAMILIES[i])))?;
        }
        Ok(F32Model { source, sms, costs: out })
    }
}

/// The shapes family `family` (an index of [`FAMILIES`]) is calibrated on with `sms` SMs (pure), made
/// from its tile and the SMs, none from a model's list. The tile families (the hardware-scheduled CTAs,
/// `blocks` an SM): an eighth, a third, one, two and a half and six rounds of tiles, each at K 512 and
/// 4096 (the split families split the few-tile ones); two tile rows over an eighth of a round at K
/// 16384 (deep splits); one tile row over two rounds of column tiles at K 4096 (weights streamed). The
/// strips (rows of C the CTA loops over): 1, 4, 16 rows (and 64 for the 16-row strips, four strip rows)
/// over 1024, 8192 and 32768 columns at K 512 and 4096, and K 16384 at 1 and 16 rows.
pub fn calibration_shapes(family: usize, sms: u32) -> Vec<Shape> {
    let sms = sms.max(1) as usize;
    let mut dims = vec![];
    if family < 3 {
        let (rows, cols, blocks) = [(128usize, 128usize, 2usize), (64, 128, 3), (32, 128, 6)][family];
        let slots = sms * blocks;
        for frac in [1.0 / 8.0, 1.0 / 3.0, 1.0, 2.5, 6.0] {
            let t = ((slots as f64 * frac).round() as usize).max(1);
            let tm = ((t * cols) as f64 / rows as f64).sqrt().round().max(1.0) as usize;
            for k in [512, 4096] {
                dims.push((tm * rows, t.div_ceil(tm) * cols, k));
            }
        }
        dims.push((2 * rows, (slots / 8).max(1) * cols, 16384));
        dims.push((rows, 2 * slots * cols, 4096));
    } else {
        let ms: &[usize] = if family == 3 { &[1, 4, 16, 64] } else { &[1, 4, 16] };
        for &m in ms {
            for n in [1024, 8192, 32768] {
                for k in [512, 4096] {
                    dims.push((m, n, k));
                }
            }
        }
        dims.push((1, 4096, 16384));
        dims.push((16, 4096, 16384));
    }
    dims.into_iter().filter_map(|(m, n, k)| Shape::new(m, n, k).ok()).collect()
}

/// One calibration timing: an f32 step, a shape, the median µs.
#[derive(Clone, Debug, PartialEq)]
pub struct F32Sample {
    /// The step's label (`v24`, `v33`, …).
    pub step: String,
    /// The shape.
    pub shape: Shape,
    /// Median µs.
    pub us: f64,
}

/// Fits one family's constants to its timings `(step, shape, µs)`: the five that minimize the squared log
/// error of [`F32Cost::predict`] by a multiplicative coordinate search from `start` (a constant the
/// timings do not constrain stays where it started). `None` with fewer than three timings.
pub fn fit_family(start: F32Cost, pts: &[(Schedule, Shape, f64)], sms: u32) -> Option<F32Cost> {
    if pts.len() < 3 {
        return None;
    }
    let of = |p: &[f64; 5]| F32Cost { fixed_us: p[0], k_ns_per_cta: p[1], k_ns_per_round: p[2], split_us_per_melem: p[3], stream_gbps: p[4], ..start };
    let err = |p: &[f64; 5]| pts.iter().map(|(sch, s, t)| (of(p).predict(sch, *s, sms) / t).ln().powi(2)).sum::<f64>();
    // Constants that start at zero start just above it (a multiplicative search cannot leave zero).
    let start_at = [start.fixed_us.max(0.1), start.k_ns_per_cta.max(1e-3), start.k_ns_per_round.max(1e-3), start.split_us_per_melem.max(1e-3), start.stream_gbps];
    let p = crate::gemm::cost::coordinate_search(start_at, [0.1, 1e-4, 1e-4, 1e-4, 200.0], [1e3, 1e4, 1e4, 1e4, 20_000.0], err);
    Some(of(&p))
}

/// Fits every family with timings in `samples` ([`fit_family`], each from `start`'s constants) into a
/// model; `(model, what was left out and why)`. A family without three timings keeps `start`'s constants.
pub fn fit_model(samples: &[F32Sample], source: String, sms: u32, start: &F32Model) -> (F32Model, Vec<String>) {
    let mut model = F32Model { source, sms, costs: start.costs };
    let mut skipped = vec![];
    for (fam, name) in FAMILIES.iter().enumerate() {
        let pts: Vec<(Schedule, Shape, f64)> = samples.iter()
            .filter(|x| family_of(&x.step) == Some(fam) && x.us.is_finite() && x.us > 0.0)
            .filter_map(|x| {
                let st = steps::STEPS.iter().find(|st| st.kernel.step == x.step)?;
                schedule(st, x.shape, sms).ok().map(|sch| (sch, x.shape, x.us))
            }).collect();
        match fit_family(start.costs[fam], &pts, sms) {
            Some(c) => model.costs[fam] = c,
            None => skipped.push(format!("{name}: {} timings (at least 3 needed); its constants stay {}", pts.len(), start.source)),
        }
    }
    (model, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(m: usize, n: usize, k: usize) -> Shape {
        Shape::new(m, n, k).unwrap()
    }

    #[test]
    fn every_candidate_can_run_the_shape_and_the_pick_is_the_cheapest() {
        let mut x = 7u64;
        for _ in 0..2000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let s = shape((x >> 10) as usize % 20000 + 1, (x >> 25) as usize % 130000 + 1, (x >> 42) as usize % 30000 + 1);
            let p = predictions(s, 132);
            let want = if s.k % layout::sgemm::SKINNY_KSTEP as usize == 0 || s.m <= STRIPS_ANY_K_MAX_M { 5 } else { 3 };
            assert_eq!(p.len(), want, "{s}: every family measured on such shapes has a launchable form");
            for (st, t) in &p {
                assert!(st.rejects(s.m, s.n, s.k).is_none(), "{s}: {} cannot take it", st.kernel.step);
                assert!(t.is_finite() && *t > 0.0, "{s}: {} predicts {t}", st.kernel.step);
            }
            let pick = model_step(s, 132);
            let tp = p.iter().find(|(st, _)| st.kernel.name == pick.kernel.name).unwrap().1;
            assert!(p.iter().all(|(_, t)| tp <= *t), "{s}: {} is not the cheapest", pick.kernel.step);
        }
    }

    #[test]
    fn each_family_costs_more_with_twice_the_k() {
        // Doubling K at most doubles a split count, so every CTA walks at least as much K: no family gets cheaper.
        for (m, n) in [(1, 4096), (8, 32000), (16, 5120), (32, 1024), (64, 14336), (128, 27648), (256, 4096), (1024, 15261), (4096, 768), (8192, 8192)] {
            let mut k = 64;
            while k <= 32768 {
                let (a, b) = (shape(m, n, k), shape(m, n, 2 * k));
                for ((sa, sb), ca) in candidates(a).into_iter().zip(candidates(b)).zip(&H200_COSTS) {
                    let cb = ca;
                    let (ta, tb) = (ca.predict(&schedule(sa, a, 132).unwrap(), a, 132), cb.predict(&schedule(sb, b, 132).unwrap(), b, 132));
                    assert!(tb >= ta, "{m}x{n}: {} {k} → {} {}: {ta:.1} → {tb:.1} µs", sa.kernel.step, sb.kernel.step, 2 * k);
                }
                k *= 2;
            }
        }
    }

    #[test]
    fn the_picks_follow_what_the_held_out_runs_measured() {
        // Session 87, call 2 (H200, 132 SMs, 3 processes): shapes no fit saw, every family timed; the fastest
        // family each (% of cuBLAS): v33 at 16×128256×2048 (90%; v23 85%), 32×2048×1024 (114%; v23 89%),
        // 64×1024×512 (121%; v23 69%); v34 at 128×768×384 (121%; v23 82%); v24 at 256×13824×5120 (100%; v11
        // 84%), 2048×3584×4096 (95%; v11 84%), 512×3584×4096 (95%; v11 74%), 128×2048×1024 (105%); v31 (v24's
        // form for N off 4) at 1024×15261×1024 (87%; v20 82%); v34 at 4×30522×1024 (80%; v33 64%).
        for (m, n, k, want) in [(16, 128256, 2048, "v33"), (32, 2048, 1024, "v33"), (64, 1024, 512, "v33"), (128, 768, 384, "v34"), (256, 13824, 5120, "v24"),
                                (2048, 3584, 4096, "v24"), (512, 3584, 4096, "v24"), (128, 2048, 1024, "v24"), (1024, 15261, 1024, "v31"), (4, 30522, 1024, "v34")] {
            assert_eq!(model_step(shape(m, n, k), 132).kernel.step, want, "{m}x{n}x{k}");
        }
        // Off the strips' K step past 8 rows only the tile families compete (call 4: v34 at 12×30318×9191 ran
        // at 0.38× the time of v26, which the cascade had picked).
        assert_eq!(model_step(shape(12, 30318, 9191), 132).kernel.step, "v26");
    }

    #[test]
    fn the_shipped_model_reads_back_from_its_text_and_bad_text_is_refused() {
        let m = F32Model::shipped("NVIDIA H200");
        assert_eq!(m.source, "shipped: H200");
        assert_eq!(F32Model::shipped("NVIDIA H100 80GB HBM3").source, "shipped: H100");
        assert_eq!(F32Model::shipped("NVIDIA H100 80GB HBM3").costs, H100_COSTS);
        assert!(F32Model::shipped("NVIDIA H800").source.contains("kernel-lab calibrate"));
        let back = F32Model::parse(&m.to_text(), "t").unwrap();
        for (a, b) in back.costs.iter().zip(&m.costs) {
            for (x, y) in [(a.fixed_us, b.fixed_us), (a.k_ns_per_cta, b.k_ns_per_cta), (a.k_ns_per_round, b.k_ns_per_round), (a.split_us_per_melem, b.split_us_per_melem), (a.stream_gbps, b.stream_gbps)] {
                assert!((x - y).abs() <= 1e-3 * y.max(1.0), "{x} vs {y}");
            }
            assert_eq!(a.work, b.work);
        }
        let text = m.to_text();
        let e = F32Model::parse(&text.replace("strip4\t", "strip5\t"), "f").unwrap_err().to_string();
        assert!(e.contains("strip5") && e.contains("f:"), "{e}");
        let e = F32Model::parse(&text.lines().filter(|l| !l.starts_with("tile64")).collect::<Vec<_>>().join("\n"), "f").unwrap_err().to_string();
        assert!(e.contains("tile64"), "{e}");
        assert!(F32Model::parse(&text.replace("# sms 132", ""), "f").unwrap_err().to_string().contains("sms"));
        assert!(F32Model::parse(&text.replace("tile32\t6.600", "tile32\t-6.6"), "f").is_err());
        // Every label the model can pick belongs to the family whose constants priced it.
        for (fam, st) in candidates(shape(100, 1001, 300)).iter().enumerate() {
            assert_eq!(family_of(st.kernel.step), Some(fam), "{}", st.kernel.step);
        }
    }

    #[test]
    fn calibration_shapes_run_on_their_family_and_span_its_terms() {
        for sms in [114, 132, 144] {
            for fam in 0..5 {
                let shapes = calibration_shapes(fam, sms);
                assert!(shapes.len() >= 10, "{}: {shapes:?}", FAMILIES[fam]);
                let mut splits = false;
                let (mut min_l, mut max_l) = (u64::MAX, 0);
                for s in &shapes {
                    let st = candidates(*s)[fam];
                    assert!(st.rejects(s.m, s.n, s.k).is_none(), "{} {s}", st.kernel.step);
                    let sch = schedule(st, *s, sms).unwrap();
                    assert!((s.m * s.n * s.k) as f64 <= 1.5e11, "{s}: too long to time in seconds");
                    splits |= sch.splits > 1;
                    if std::env::var_os("F32_SHOW").is_some() && sms == 132 {
                        eprintln!("{} {s} {sch:?} {:.1}", st.kernel.step, H200_COSTS[fam].predict(&sch, *s, sms));
                    }
                    min_l = min_l.min(sch.ctas.div_ceil(sms as u64));
                    max_l = max_l.max(sch.ctas.div_ceil(sms as u64));
                }
                // v11 / v20 never split K; every other family does on some shape.
                assert!(splits || fam == 0, "{}: no shape splits K", FAMILIES[fam]);
                assert!(max_l >= 4 * min_l, "{}: CTAs an SM only {min_l}..{max_l}", FAMILIES[fam]);
            }
        }
    }

    /// The fit recovers each family's constants from timings made by the model itself, starting from
    /// constants off by 1.5–2×.
    #[test]
    fn the_fit_recovers_known_constants() {
        for (fam, truth) in H200_COSTS.iter().enumerate() {
            let samples: Vec<F32Sample> = calibration_shapes(fam, 132).into_iter().map(|s| {
                let st = candidates(s)[fam];
                F32Sample { step: st.kernel.step.to_string(), shape: s, us: truth.predict(&schedule(st, s, 132).unwrap(), s, 132) }
            }).collect();
            let mut off = F32Model::shipped("H200");
            off.costs[fam] = F32Cost { fixed_us: truth.fixed_us * 2.0, k_ns_per_cta: truth.k_ns_per_cta / 1.5, k_ns_per_round: truth.k_ns_per_round * 1.7, stream_gbps: truth.stream_gbps / 1.5, ..*truth };
            let (got, skipped) = fit_model(&samples, "test".into(), 132, &off);
            assert_eq!(skipped.len(), 4, "{skipped:?}");
            for x in &samples {
                let st = candidates(x.shape)[fam];
                let p = got.costs[fam].predict(&schedule(st, x.shape, 132).unwrap(), x.shape, 132);
                assert!((p / x.us - 1.0).abs() < 0.03, "{} {}: {p:.2} vs {:.2}", FAMILIES[fam], x.shape, x.us);
            }
            assert!((got.costs[fam].k_ns_per_cta / truth.k_ns_per_cta - 1.0).abs() < 0.1, "{}: {:?}", FAMILIES[fam], got.costs[fam]);
        }
    }
}

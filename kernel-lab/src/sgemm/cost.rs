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
use crate::{
    error::Result,
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

/// The Hopper candidates for `s`, each in the form that runs it (N or K off the vector widths, tiles past
/// M or N), with its family's constants.
pub fn candidates(s: Shape) -> [(&'static Step, &'static F32Cost); 5] {
    [
        (super::tile128_form(s), &TILE128_COST),
        (super::hopper_form(&steps::V19, s, true), &TILE64_COST),
        (super::hopper_form(&steps::V15, s, true), &TILE32_COST),
        (&steps::V33, &STRIP16_COST),
        (&steps::V34, &STRIP4_COST),
    ]
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

/// Each candidate's predicted µs on `s` (candidates whose grid cannot be launched, or outside what their
/// constants were measured on — [`measured_for`] — are left out).
pub fn predictions(s: Shape, sms: u32) -> Vec<(&'static Step, f64)> {
    candidates(s).into_iter().filter(|(_, c)| measured_for(c, s)).filter_map(|(st, c)| schedule(st, s, sms).ok().map(|sch| (st, c.predict(&sch, s, sms)))).collect()
}

/// The cheapest candidate on `s` (ties to the earlier one); v20 if none can be launched (it takes any shape
/// whose grid fits: M up to 2^20 is 8192 block rows).
pub fn model_step(s: Shape, sms: u32) -> &'static Step {
    predictions(s, sms).into_iter().fold(None::<(&'static Step, f64)>, |best, (st, t)| match best {
        Some((_, bt)) if bt <= t => best,
        _ => Some((st, t)),
    }).map_or(&steps::V20, |(st, _)| st)
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
                for ((sa, ca), (sb, cb)) in candidates(a).into_iter().zip(candidates(b)) {
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
}

//! The GEMM cost model: which configuration runs a shape, from a model of the hardware instead of
//! predicates fitted to one card.
//!
//! **The schedule** ([`schedule`], pure): for a configuration (a step: its tile, how it covers the grid
//! — persistent, split-K through global memory, K split over a cluster, stream-K — and its cluster) and
//! a shape on a GPU of `sms` SMs, what its busiest CTA does (64-deep K blocks, tiles finished, extra
//! splits summed), the bytes the launch moves through DRAM (A, B and C once, plus split-K partials
//! written and read back) and the bytes its K blocks load into shared memory (the L2's traffic).
//!
//! **The cost** ([`StepCost::predict`]): per configuration five constants — a fixed cost per launch,
//! the time of one K block of one tile on one SM, what a finished tile adds, what each extra split of a
//! tile adds, and the fraction of the copy bandwidth its loads reach — and two of the GPU, the copy
//! bandwidth and the most shared-memory fill traffic any calibrated launch sustained:
//!
//! `work = kblocks·kblock + tiles·tile + split_work·split`, `dram = bytes / (mem_eff·copy)`, `l2 = l2_bytes / l2`;
//! over `r` rounds whose last keeps a fraction `f` of the CTAs busy (`w = r − 1 + f` full rounds of traffic):
//!
//! `t = fixed + (r − 1)·max(work/r, dram/w, l2/w) + max(work/r, f·dram/w, f·l2/w)`,
//!
//! each round the busiest CTA's work or the round's share of the DRAM (or L2) traffic, whichever is
//! longer — with every round full (or one round) simply the longest of the three totals; a thin last
//! round costs a whole CTA's work while few SMs stream (session 69; the persistent grids only: the
//! hardware-scheduled ones, several small CTAs an SM, keep the totals). Padded shapes (K or N off 8) add
//! the three staging copies at copy bandwidth.
//!
//! Where each CTA runs one unit and exits (K split over a cluster: h8, d28), a tile's end
//! (`ends = tiles·tile + split_work·split`: the partials' sum through distributed shared memory, the
//! stores, the cluster's exit and the next wave's start) overlaps no loads — no producer runs ahead into
//! a next unit — so it follows the round's K loop or DRAM stream instead of competing with them:
//! `(r − 1)·max(max(kloop/r, dram/w) + ends/r, l2/w) + max(max(kloop/r, f·dram/w) + ends/r, f·l2/w)`
//! with `kloop = kblocks·kblock`. The L2 bound stays against the whole round: `l2` is measured as fill
//! bytes over whole launches, ends included. Session 82: d28x2 measured 31.0 µs at 1×4096×14336, one
//! round streaming at 0.97 of the copy bandwidth, and 42.7 µs at 1×16896×4096, four rounds of ~10.7 µs
//! each at 0.76 of it; with the ends inside the max one memory efficiency cannot give both, and the
//! fit's 0.78 priced the long stream at 38 µs.
//!
//! **The constants** are measured on the GPU in hand ([`calibrate`](super::calibrate::calibrate), `kernel-lab calibrate`: each
//! configuration timed on a handful of shapes designed from its own tile and the SM count — one round
//! of tiles, a third of one, two and a half; shallow and deep K; a weight-streaming shape — and fitted,
//! in seconds), kept in a text file by GPU, SM count, driver and PTX fingerprint, and shipped for the
//! H100 and the H200 ([`CostModel::shipped`]). Nothing here names a shape of a model.
//!
//! **Its domain** ([`CostModel::calibrated_for`], session 75): a configuration is weighed only on shapes
//! of at most twice the rounds its calibration shapes ran — past that its constants are an
//! extrapolation the holdout samples showed 1.2–1.4× optimistic (decode tiles at 30 rounds of a
//! vocabulary, 144-row tiles at 41 rounds of a long prefill).
use std::fmt::Write as _;

use crate::{
    error::{Error, Result},
    steps::{
        gemm::{Args, Elem, Grid},
        hgemm::{self as steps, Step},
    },
};

use super::Shape;

/// What a configuration's busiest CTA does on a shape, and what the launch moves (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// 64-deep K blocks the busiest CTA runs.
    pub kblocks: f64,
    /// Tiles (or split tiles) the busiest CTA finishes.
    pub tiles: f64,
    /// Bytes every K block of every tile loads into shared memory (from L2 or DRAM): `64 · 2 ·
    /// (min(rows, M) + min(cols, N))` each — the traffic the L2 serves.
    pub l2_bytes: f64,
    /// Bytes through DRAM: A, B and C once (16-bit), plus split-K partials (f32) written and read.
    pub bytes: f64,
    /// K splits per tile (1: none).
    pub splits: u32,
    /// The busiest CTA's tiles times their extra splits, `tiles · (splits − 1)`: what the sums across
    /// splits cost it (the partials' round trip, the counters, the last split's reduction).
    pub split_work: f64,
    /// Rounds of units over the CTAs that run at once (the busiest CTA's units; 1 for stream-K).
    pub rounds: f64,
    /// The fraction of those CTAs busy in the last round (1: every round full).
    pub last_busy: f64,
    /// Whether each CTA runs one unit and exits (K split over a cluster): its tile's end then overlaps
    /// no loads of a next unit (the module doc).
    pub one_unit: bool,
}

/// The K depth of one block of every step.
const BK: u64 = 64;

/// How far past its calibration shapes' rounds the model prices a configuration
/// ([`CostModel::calibrated_for`]): twice the most it measured.
pub const EXTRAPOLATION_ROUNDS: f64 = 2.0;

/// `s` as a configuration runs it: `padded`, with K and N rounded up to 8 (the staging copies').
fn as_launched(s: Shape, padded: bool) -> Shape {
    if padded { Shape { m: s.m, n: s.n.div_ceil(8) * 8, k: s.k.div_ceil(8) * 8 } } else { s }
}

/// The schedule of `step` on `s` (as launched: the shape already padded where the step needs it) on a
/// GPU of `sms` SMs, `blocks_per_sm` the decode split-K target, `h8_resident` how many clusters of each
/// h8 size fit at once. `None` where the grid cannot be formed (no cluster of that size fits).
pub fn schedule(step: &Step, s: Shape, sms: u32, blocks_per_sm: u32, h8_resident: [u32; 7]) -> Option<Schedule> {
    use layout::hopper::tma_hgemm::{H8_CLUSTERS, stream_k_tail};
    let (rows, cols) = step.grid.tile();
    let (m, n, k) = (s.m as u64, s.n as u64, s.k as u64);
    let (tm, tn) = (m.div_ceil(rows as u64), n.div_ceil(cols as u64));
    let tiles = tm * tn;
    let kb = k.div_ceil(BK);
    let sms64 = sms.max(1) as u64;
    let base_bytes = 2.0 * (m * k + k * n + m * n) as f64;
    let partials = |splits: u64| if splits > 1 { 2.0 * 4.0 * (splits * tiles * rows as u64 * cols as u64) as f64 } else { 0.0 };
    let l2_bytes = (tiles * kb) as f64 * (BK * 2 * ((rows as u64).min(m) + (cols as u64).min(n))) as f64;
    // `units` spread over `slots` CTAs at a time: the rounds, and the fraction of the slots the last one keeps busy.
    let busy = |units: u64, slots: u64| {
        let slots = slots.max(1);
        let rounds = units.div_ceil(slots).max(1);
        (rounds, (units - (rounds - 1) * slots).min(slots) as f64 / slots as f64)
    };
    let (kblocks, done, extra, splits, waves) = match step.grid {
        // The hardware-scheduled grids (several small CTAs an SM, each SM taking the next CTA as one ends)
        // keep the totals: their last wave is not a whole CTA's work on few SMs (`waves` (1, 1.0)).
        Grid::Tiles { .. } => {
            let rounds = tiles.div_ceil(sms64);
            (rounds * kb, rounds, 0.0, 1, (1, 1.0))
        }
        Grid::SplitK { .. } | Grid::TilesSplitK { .. } => {
            let (splits, k_split) = step.split_k(s.m as u32, s.n as u32, s.k as u32, sms, blocks_per_sm);
            let splits = splits.max(1) as u64;
            let slots = sms64 * blocks_per_sm.max(1) as u64;
            let rounds = (tiles * splits).div_ceil(slots);
            (rounds * (k_split as u64).div_ceil(BK), rounds, partials(splits), splits, (1, 1.0))
        }
        Grid::PersistentSplitK { rows, cols, cluster } => {
            // With clusters (d8, d22) a unit is a cluster tile of `cluster` vertically adjacent tiles, and
            // ⌊SMs / cluster⌋ of them run at once: 11 × 6 tiles in clusters of 2 are 72 units of 2 CTAs for
            // 66 slots, two rounds (session 69: d22r96 at 1024×768×3072 ran 24 µs, predicted 14 from 132
            // units in one round).
            let (splits, units, at_once) = super::shape::persistent_units(s.m as u32, s.n as u32, s.k as u32, sms, rows, cols, cluster);
            let splits = splits.max(1) as u64;
            let waves = busy(units, units.min(at_once));
            (waves.0 * kb.div_ceil(splits), waves.0, partials(splits), splits, waves)
        }
        Grid::Persistent { .. } => {
            let ctas = tiles.min(sms64);
            let tail = if step.args == Args::TmaStreamK { stream_k_tail(tiles.min(u32::MAX as u64) as u32, ctas as u32, kb as u32) as u64 } else { 0 };
            if tail > 0 {
                // Stream-K: the full waves, then the tail's K blocks spread over every CTA.
                let full = tiles / ctas;
                (full * kb + (tail * kb).div_ceil(ctas), full + 1, 2.0 * 4.0 * (ctas * (rows * cols) as u64) as f64, 1, (1, 1.0))
            } else {
                let waves = busy(tiles, ctas);
                (waves.0 * kb, waves.0, 0.0, 1, waves)
            }
        }
        Grid::ClusterSplitK { cluster, .. } => {
            let at = H8_CLUSTERS.iter().position(|&c| c == cluster)?;
            let resident = h8_resident[at] as u64;
            if resident == 0 {
                return None;
            }
            let waves = busy(tiles, resident);
            (waves.0 * kb.div_ceil(cluster as u64), waves.0, 0.0, cluster as u64, waves)
        }
    };
    let (rounds, last_busy) = waves;
    Some(Schedule { kblocks: kblocks as f64, tiles: done as f64, l2_bytes, bytes: base_bytes + extra, splits: splits as u32, split_work: (done * (splits - 1)) as f64,
                    rounds: rounds as f64, last_busy, one_unit: matches!(step.grid, Grid::ClusterSplitK { .. }) })
}

/// One configuration's measured constants (see the module doc), µs and a fraction.
#[derive(Clone, Debug, PartialEq)]
pub struct StepCost {
    /// The f16 step's label (`h6s4`, `d15`, `h8x4`); its bf16 twin (`h6s4-bf16`) shares the constants.
    pub step: String,
    /// Fixed cost of a launch, µs.
    pub fixed_us: f64,
    /// One 64-deep K block of one full tile on one SM, µs.
    pub kblock_us: f64,
    /// What finishing a tile adds (epilogue, C store), µs.
    pub tile_us: f64,
    /// What each extra split of a tile's K adds to it, µs.
    pub split_us: f64,
    /// The fraction of the copy bandwidth its loads reach when memory binds (0 < … ≤ 1).
    pub mem_eff: f64,
}

impl StepCost {
    /// Predicted µs of a launch with schedule `sch` at `copy_gbps` DRAM and `l2_gbps` L2 bandwidth (GB/s):
    /// round by round, the longer of the busiest CTA's work in the round and the round's share of the
    /// DRAM (and L2) traffic. The full rounds share the traffic equally; a last round with only a
    /// fraction `f` of the CTAs busy moves `f` of a full round's bytes but still takes a whole CTA's
    /// work — there fewer SMs stream than the DRAM could feed (session 69: d16 at 32×12288×4096,
    /// 192 tiles on 132 SMs, measured 33.5 µs; predicted 29.0 from the totals, 33.3 by rounds). The
    /// hardware-scheduled grids ([`schedule`] gives them one round, all busy) keep the totals. A grid
    /// whose CTAs run one unit each ([`Schedule::one_unit`]) adds its tiles' ends to every round.
    pub fn predict(&self, sch: &Schedule, copy_gbps: f64, l2_gbps: f64) -> f64 {
        let kloop = sch.kblocks * self.kblock_us;
        let ends = sch.tiles * self.tile_us + sch.split_work * self.split_us;
        let memory = sch.bytes / (self.mem_eff.max(1e-3) * copy_gbps * 1e3);
        let l2 = if l2_gbps > 0.0 { sch.l2_bytes / (l2_gbps * 1e3) } else { 0.0 };
        let rounds = sch.rounds.max(1.0);
        let f = sch.last_busy.clamp(1e-6, 1.0);
        // Traffic in units of a full round: (rounds − 1) full ones and the last's fraction.
        let full = rounds - 1.0 + f;
        // A one-unit CTA's end is serial to its round (the module doc); elsewhere it is work like the K loop.
        let (c, e) = if sch.one_unit { (kloop / rounds, ends / rounds) } else { ((kloop + ends) / rounds, 0.0) };
        let (m, l) = (memory / full, l2 / full);
        self.fixed_us + (rounds - 1.0) * (c.max(m) + e).max(l) + (c.max(f * m) + e).max(f * l)
    }
}

/// A GPU's cost model: its copy bandwidth and every calibrated configuration's constants.
#[derive(Clone, Debug, PartialEq)]
pub struct CostModel {
    /// Where the constants come from (`calibrated on NVIDIA H200 (132 SMs, driver 13000, PTX …)`, or
    /// `shipped: H100`).
    pub source: String,
    /// The SM count the constants were measured with.
    pub sms: u32,
    /// Device-to-device copy bandwidth, GB/s (bytes read + written over time).
    pub copy_gbps: f64,
    /// Fixed cost of one device copy (the padded path's staging), µs.
    pub copy_fixed_us: f64,
    /// The most shared-memory fill traffic (`Schedule::l2_bytes`) any calibrated launch sustained, GB/s:
    /// the L2's bandwidth as the kernels see it (0: no such bound).
    pub l2_gbps: f64,
    /// How many h8 clusters of 2 … 8 CTAs the GPU held at once (`super::h8_resident`), for evaluating
    /// the model away from the GPU (`kernel-lab rank`).
    pub h8_resident: [u32; 7],
    /// Per configuration.
    pub steps: Vec<StepCost>,
}

/// The shipped constants, by GPU: the output of `kernel-lab calibrate` on each (`data/`).
const SHIPPED: [(&str, &str); 2] = [("H200", include_str!("data/cost-h200.tsv")), ("H100", include_str!("data/cost-h100.tsv"))];

impl CostModel {
    /// The f16 label a step's constants are kept under (`h6s4-bf16` → `h6s4`).
    pub fn key_of(step: &Step) -> &'static str {
        step.kernel.step.strip_suffix("-bf16").unwrap_or(step.kernel.step)
    }

    /// The constants of `step` (its f16 twin's for bf16), if calibrated.
    pub fn cost_of(&self, step: &Step) -> Option<&StepCost> {
        let key = Self::key_of(step);
        self.steps.iter().find(|c| c.step == key)
    }

    /// Whether `step`'s constants were measured on shapes like `s`: `s` runs at most
    /// [`EXTRAPOLATION_ROUNDS`] times the most rounds of units any of its calibration shapes
    /// ([`calibration_shapes`]) ran on this GPU. A configuration's constants are fitted to at most 2.5
    /// rounds of its tiles (the decode steps' 64-row tiles: 4 rounds of column tiles), or 16 for the prefill steps;
    /// far past that its K blocks stream against other rounds' traffic in the L2 and the DRAM, which
    /// those shapes did not measure (session 58's holdout: d11 at 128×256000×3584, 30 rounds, predicted
    /// 463 µs, measured 574; d22r144 at 16384×6144×768, 41 rounds, predicted 197, measured 272).
    pub fn calibrated_for(&self, step: &Step, s: Shape, padded: bool, sms: u32, blocks_per_sm: u32, h8_resident: [u32; 7]) -> bool {
        let run = as_launched(s, padded);
        let Some(sch) = schedule(step, run, sms, blocks_per_sm, h8_resident) else { return false };
        let most = calibration_shapes(step, sms, blocks_per_sm, h8_resident).into_iter()
            .filter_map(|c| schedule(step, c, sms, blocks_per_sm, h8_resident)).map(|c| c.rounds).fold(1.0, f64::max);
        sch.rounds <= EXTRAPOLATION_ROUNDS * most
    }

    /// Predicted µs of `step` on `s` (`padded`: through the staging copies), `None` where the step has
    /// no constants or no schedule here.
    pub fn predict(&self, step: &Step, s: Shape, padded: bool, sms: u32, blocks_per_sm: u32, h8_resident: [u32; 7]) -> Option<f64> {
        let c = self.cost_of(step)?;
        let run = as_launched(s, padded);
        let sch = schedule(step, run, sms, blocks_per_sm, h8_resident)?;
        let mut t = c.predict(&sch, self.copy_gbps, self.l2_gbps);
        if padded {
            // A and C's copies each run; B's too (the plan copies the operand every run).
            let moved = 2.0 * 2.0 * (s.m * s.k + s.k * s.n + s.m * s.n) as f64;
            t += 3.0 * self.copy_fixed_us + moved / (self.copy_gbps * 1e3);
        }
        Some(t)
    }

    /// The text form (`kernel-lab calibrate` writes it; [`CostModel::parse`] reads it): a header of
    /// `# key value` lines, then one `step fixed_us kblock_us tile_us split_us mem_eff` line per
    /// configuration.
    pub fn to_text(&self) -> String {
        let resident = self.h8_resident.map(|r| r.to_string()).join(" ");
        let mut out = format!("# source {}\n# sms {}\n# copy_gbps {:.1}\n# copy_fixed_us {:.2}\n# l2_gbps {:.0}\n# h8_resident {resident}\n# step\tfixed_us\tkblock_us\ttile_us\tsplit_us\tmem_eff\n",
                              self.source.replace('\n', " "), self.sms, self.copy_gbps, self.copy_fixed_us, self.l2_gbps);
        for c in &self.steps {
            let _ = writeln!(out, "{}\t{:.3}\t{:.5}\t{:.4}\t{:.4}\t{:.3}", c.step, c.fixed_us, c.kblock_us, c.tile_us, c.split_us, c.mem_eff);
        }
        out
    }

    /// Reads [`CostModel::to_text`]'s form; `what` names the source in errors.
    pub fn parse(text: &str, what: &str) -> Result<CostModel> {
        let bad = |line: usize, why: String| Error::InvalidInput(format!("{what}:{line}: {why}"));
        let mut m = CostModel { source: String::new(), sms: 0, copy_gbps: 0.0, copy_fixed_us: 0.0, l2_gbps: 0.0, h8_resident: [0; 7], steps: vec![] };
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            if let Some(h) = line.strip_prefix("# ") {
                let (key, value) = h.split_once(' ').unwrap_or((h, ""));
                let num = |v: &str| v.trim().parse::<f64>().map_err(|_| bad(i + 1, format!("`{key}` needs a number, got `{v}`")));
                match key {
                    "source" => m.source = value.to_string(),
                    "sms" => m.sms = num(value)? as u32,
                    "copy_gbps" => m.copy_gbps = num(value)?,
                    "copy_fixed_us" => m.copy_fixed_us = num(value)?,
                    "l2_gbps" => m.l2_gbps = num(value)?,
                    "h8_resident" => {
                        let v: Vec<u32> = value.split_whitespace().map(|x| x.parse().map_err(|_| bad(i + 1, format!("h8_resident: `{x}` is not a count")))).collect::<Result<_>>()?;
                        m.h8_resident = v.try_into().map_err(|_| bad(i + 1, "h8_resident needs 7 counts (clusters of 2 … 8)".into()))?;
                    }
                    _ => {}
                }
                continue;
            }
            let f: Vec<&str> = line.split('\t').collect();
            let [step, fixed, kblock, tile, split, eff] = f.as_slice() else {
                return Err(bad(i + 1, format!("`{line}`: expected step, fixed_us, kblock_us, tile_us, split_us, mem_eff")));
            };
            let num = |v: &str| v.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0).ok_or_else(|| bad(i + 1, format!("`{v}` is not a non-negative number")));
            let c = StepCost { step: step.to_string(), fixed_us: num(fixed)?, kblock_us: num(kblock)?, tile_us: num(tile)?, split_us: num(split)?, mem_eff: num(eff)?.clamp(1e-3, 1.0) };
            m.steps.push(c);
        }
        if m.copy_gbps <= 0.0 || m.sms == 0 || m.steps.is_empty() {
            return Err(Error::InvalidInput(format!("{what}: needs `# sms`, `# copy_gbps` and at least one step")));
        }
        Ok(m)
    }

    /// The shipped model for a GPU named `name` with `sms` SMs: the H200's or the H100's constants where
    /// the name says so, else the shipped model of the nearest SM count (a Hopper part we have no
    /// constants for: calibrate it).
    pub fn shipped(name: &str, sms: u32) -> CostModel {
        let models: Vec<(&str, CostModel)> = SHIPPED.iter().filter_map(|(g, t)| CostModel::parse(t, g).ok().map(|m| (*g, m))).collect();
        let by_name = models.iter().find(|(g, _)| name.contains(g));
        let pick = by_name.or_else(|| models.iter().min_by_key(|(_, m)| m.sms.abs_diff(sms)));
        match pick {
            Some((g, m)) => CostModel { source: format!("shipped: {g}{}", if by_name.is_some() { "" } else { " (nearest SM count; run `kernel-lab calibrate`)" }), ..m.clone() },
            None => CostModel { source: "none".into(), sms, copy_gbps: 1000.0, copy_fixed_us: 2.0, l2_gbps: 0.0, h8_resident: [0; 7], steps: vec![] },
        }
    }
}

/// The configurations the model chooses among on a GPU that runs sm_90a code, for `elem` and `m` rows:
/// every step the entry point has a role for (`super::RULE_STEPS` on Hopper) and every h8 cluster size —
/// the decode steps only up to four rows of their tiles (`RuleStep::tune_max_m`: past that they read
/// the weights once per tile row, which the model's bytes do not count). `None` for `m`: all of them.
pub fn candidates_for(elem: Elem, m: Option<usize>) -> Vec<&'static Step> {
    // Not the ragged-weight steps (d24): they run only where N is off 8, where the choice takes them
    // without weighing (`choose_by`), and nothing else runs unpadded.
    let mut out: Vec<&'static Step> = super::RULE_STEPS.iter().filter(|r| !r.only_without_sm90a && r.f16.needs.aligned_b_c())
        .filter(|r| m.is_none_or(|m| r.tune_max_m.is_none_or(|mx| m <= mx))).filter_map(|r| r.for_elem(elem)).collect();
    let h8: &[Step] = if elem == Elem::Bf16 { &steps::H8_BF16 } else { &steps::H8 };
    for st in h8 {
        if !out.iter().any(|o| o.kernel.name == st.kernel.name) {
            out.push(st);
        }
    }
    out
}

/// [`candidates_for`] every M.
pub fn candidates(elem: Elem) -> Vec<&'static Step> {
    candidates_for(elem, None)
}

/// One calibration measurement: a configuration, a shape, the median µs.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The step's label.
    pub step: String,
    /// The shape.
    pub shape: Shape,
    /// Median µs.
    pub us: f64,
}

/// Fits every configuration of `samples` ([`fit`]) into a model with the given copy figures and
/// residency; `(model, left out with why)`. What [`super::calibrate::calibrate`] does after timing, and
/// what `kernel-lab calibrate --refit` does with saved samples.
pub fn fit_model(samples: &[Sample], source: String, sms: u32, blocks_per_sm: u32, h8_resident: [u32; 7], copy_gbps: f64, copy_fixed_us: f64) -> (CostModel, Vec<String>) {
    let scheduled: Vec<(&Sample, Schedule)> = samples.iter().filter_map(|s| {
        let st = steps::STEPS.iter().find(|st| st.kernel.step == s.step)?;
        schedule(st, s.shape, sms, blocks_per_sm, h8_resident).map(|sch| (s, sch))
    }).collect();
    // The L2's bandwidth as the kernels see it: the most fill traffic any launch sustained.
    let l2_gbps = scheduled.iter().map(|(s, sch)| sch.l2_bytes / (s.us * 1e3)).fold(0.0, f64::max);
    let mut model = CostModel { source, sms, copy_gbps, copy_fixed_us, l2_gbps, h8_resident, steps: vec![] };
    let mut skipped = vec![];
    let mut labels: Vec<&str> = vec![];
    for s in samples {
        if !labels.contains(&s.step.as_str()) {
            labels.push(&s.step);
        }
    }
    for label in labels {
        if !steps::STEPS.iter().any(|st| st.kernel.step == label) {
            skipped.push(format!("{label}: not a step of this build"));
            continue;
        }
        let pts: Vec<(Schedule, f64)> = scheduled.iter().filter(|(s, _)| s.step == label).map(|(s, sch)| (*sch, s.us)).collect();
        match fit(label, &pts, copy_gbps, l2_gbps) {
            Some(c) => model.steps.push(c),
            None => skipped.push(format!("{label}: fewer than 3 shapes timed")),
        }
    }
    (model, skipped)
}

/// The shapes `step` is calibrated on (pure): from its own tile and the slots of this GPU — a third
/// of a round of tiles, one round, two and a half; K 512 and 4096 each —, two weight-streaming shapes
/// (one activation row, one and four rounds of column tiles, K 4096), for the decode steps (tiles of at
/// most 64 rows, and d28m128) two tile rows at one and four rounds (K 4096) and eight tile rows at about
/// one round (⌊slots / 8⌋ column tiles; K 512 and 2048), and for the steps with taller tiles six and
/// sixteen rounds at K 4096. Only shapes the step takes, none beyond 2^20 in any dimension.
pub fn calibration_shapes(step: &Step, sms: u32, blocks_per_sm: u32, h8_resident: [u32; 7]) -> Vec<Shape> {
    let (rows, cols) = step.grid.tile();
    let (rows, cols) = (rows as usize, cols as usize);
    let slots = match step.grid {
        Grid::SplitK { .. } | Grid::TilesSplitK { .. } => (sms * blocks_per_sm.max(1)) as usize,
        Grid::ClusterSplitK { cluster, .. } => layout::hopper::tma_hgemm::H8_CLUSTERS.iter().position(|&c| c == cluster).map_or(1, |i| h8_resident[i].max(1) as usize),
        _ => sms.max(1) as usize,
    };
    // The decode tiles (≤ 64 rows) and d28m128 (128 rows, 64 columns, K split over a cluster): a tile
    // row's shapes, and two.
    let decode = rows <= 64 || matches!(step.grid, Grid::ClusterSplitK { cols: 64, .. });
    let mut dims = vec![];
    for frac in [1.0 / 8.0, 1.0 / 3.0, 1.0, 2.5] {
        let t = ((slots as f64 * frac).round() as usize).max(1);
        let (tm, tn) = if decode {
            (1, t)
        } else {
            let tm = ((t * cols) as f64 / rows as f64).sqrt().round().max(1.0) as usize;
            (tm, t.div_ceil(tm))
        };
        // Mid-depth K too for the decode tiles (session 80: d28's constants fitted on K 512 and 4096
        // alone over-predicted its gain at K 1024–2048).
        let ks: &[usize] = if decode { &[512, 2048, 4096] } else { &[512, 4096] };
        for &k in ks {
            dims.push((tm * rows, tn * cols, k));
        }
    }
    // Weights streamed: one activation row (the decode regime, where memory binds), four rounds of
    // column tiles; and one round.
    dims.push((1, 4 * slots * cols, 4096));
    dims.push((1, slots * cols, 4096));
    // Few tiles, deep K: where the split steps split.
    dims.push((rows, (slots / 8).max(1) * cols, 16384));
    if decode {
        // Two tile rows (M just past one tile: 65–128 rows for the 64-row tiles), one round of tiles and
        // four: every column's weights are read by two CTAs, which the rounds and bytes above do not
        // see (session 58: d7 measured 1.2–1.7× its one-row prediction there).
        dims.push((2 * rows, (slots / 2).max(1) * cols, 4096));
        dims.push((2 * rows, 2 * slots * cols, 4096));
        // Eight tile rows, one round of tiles, shallow and mid K: tiles enough that the persistent split
        // steps split nothing (every shape above splits d7/d11, whose fixed cost then carried the splits':
        // session 82 measured d7 at 6.1 µs on 1024×768×384, priced 10.2).
        for k in [512, 2048] {
            dims.push((8 * rows, (slots / 8).max(1) * cols, k));
        }
    }
    if !decode {
        // Many rounds of compute (the clocks under sustained load, the L2's reuse across waves).
        for rounds in [6, 16] {
            let t = rounds * slots;
            let tm = ((t * cols) as f64 / rows as f64).sqrt().round().max(1.0) as usize;
            dims.push((tm * rows, t.div_ceil(tm) * cols, 4096));
        }
    }
    dims.into_iter()
        .filter(|&(m, n, k)| m <= 1 << 20 && n <= 1 << 20 && k <= 1 << 20 && step.rejects(m, n, k).is_none())
        .map(|(m, n, k)| Shape { m, n, k })
        .collect()
}

/// Minimizes `err` over `p` by a multiplicative coordinate search from `p` (steps of ×(1 ± δ), δ halving from
/// 0.5 to 10⁻⁴, at most 600 sweeps), each parameter inside `[lo, hi]`; a parameter that starts non-finite (no
/// floor) stays as it is. The f32 and FP8 calibrations' fit ([`fit`] below searches the same way over its
/// own bounds).
pub(crate) fn coordinate_search<const P: usize>(mut p: [f64; P], lo: [f64; P], hi: [f64; P], err: impl Fn(&[f64; P]) -> f64) -> [f64; P] {
    for i in 0..P {
        if p[i].is_finite() {
            p[i] = p[i].clamp(lo[i], hi[i]);
        }
    }
    let mut best = err(&p);
    let mut delta = 0.5;
    for _ in 0..600 {
        let mut improved = false;
        for i in 0..P {
            if !p[i].is_finite() {
                continue;
            }
            for f in [1.0 + delta, 1.0 / (1.0 + delta)] {
                let mut t = p;
                t[i] = (t[i] * f).clamp(lo[i], hi[i]);
                let e = err(&t);
                if e < best {
                    (best, p, improved) = (e, t, true);
                }
            }
        }
        if !improved {
            delta *= 0.5;
            if delta < 1e-4 {
                break;
            }
        }
    }
    p
}

/// Fits one configuration's constants to its samples: the five that minimize the squared log error of
/// [`StepCost::predict`] (a multiplicative coordinate search from a start read off the samples; the
/// fit is over at most about twenty points, so this takes microseconds). `None` with fewer than three samples.
pub fn fit(step: &str, samples: &[(Schedule, f64)], copy_gbps: f64, l2_gbps: f64) -> Option<StepCost> {
    if samples.len() < 3 {
        return None;
    }
    let err = |c: &StepCost| samples.iter().map(|(s, t)| (c.predict(s, copy_gbps, l2_gbps) / t).ln().powi(2)).sum::<f64>();
    let tmin = samples.iter().map(|&(_, t)| t).fold(f64::INFINITY, f64::min);
    let (deep, tdeep) = samples.iter().max_by(|a, b| a.0.kblocks.total_cmp(&b.0.kblocks))?;
    let mut c = StepCost { step: step.to_string(), fixed_us: tmin / 2.0, kblock_us: (tdeep / deep.kblocks.max(1.0)).max(1e-4), tile_us: tmin / 4.0, split_us: tmin / 4.0, mem_eff: 0.8 };
    let mut best = err(&c);
    let mut delta = 0.5;
    for _ in 0..400 {
        let mut improved = false;
        for p in 0..5 {
            for f in [1.0 + delta, 1.0 / (1.0 + delta)] {
                let mut t = c.clone();
                match p {
                    0 => t.fixed_us = (t.fixed_us * f).max(1e-3),
                    1 => t.kblock_us = (t.kblock_us * f).max(1e-5),
                    2 => t.tile_us = (t.tile_us * f).max(1e-4),
                    3 => t.split_us = (t.split_us * f).max(1e-4),
                    _ => t.mem_eff = (t.mem_eff * f).clamp(0.05, 1.0),
                }
                let e = err(&t);
                if e < best {
                    (best, c, improved) = (e, t, true);
                }
            }
        }
        if !improved {
            delta *= 0.5;
            if delta < 1e-4 {
                break;
            }
        }
    }
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: [u32; 7] = [66, 33, 22, 16, 13, 11, 9];

    fn shape(m: usize, n: usize, k: usize) -> Shape {
        Shape::new(m, n, k).unwrap()
    }

    #[test]
    fn shipped_models_parse_and_cover_every_candidate() {
        for (g, text) in SHIPPED {
            let m = CostModel::parse(text, g).unwrap();
            assert_eq!(m.sms, 132, "{g}");
            for st in candidates(Elem::F16).into_iter().chain(candidates(Elem::Bf16)) {
                assert!(m.cost_of(st).is_some(), "{g}: {} has no constants", st.kernel.step);
            }
            assert_eq!(CostModel::parse(&m.to_text(), g).unwrap().steps.len(), m.steps.len());
        }
        assert!(CostModel::shipped("NVIDIA H200", 132).source.contains("H200"));
        assert!(CostModel::shipped("NVIDIA H100 80GB HBM3", 132).source.contains("H100"));
        assert!(CostModel::shipped("NVIDIA H800", 132).source.contains("calibrate"));
    }

    #[test]
    fn the_text_form_refuses_what_it_cannot_read() {
        assert!(CostModel::parse("# sms 132\n# copy_gbps 4000\nh6s4\t1\t2\n", "f").unwrap_err().to_string().contains("f:3"));
        assert!(CostModel::parse("# sms 132\n# copy_gbps 4000\nh6s4\t1\t-2\t1\t1\t1\n", "f").is_err());
        assert!(CostModel::parse("h6s4\t1\t2\t1\t1\t1\n", "f").unwrap_err().to_string().contains("sms"));
    }

    /// The model prices a configuration only near the rounds its calibration shapes ran: every
    /// calibration shape of every candidate is inside, and a shape of 30 rounds of d11's 64-row tiles (a
    /// 128-row activation and a 256 000-column vocabulary) or 41 of d22r144's is outside, where the
    /// H200's measured times were 1.24× and 1.38× the predictions (session 58's holdout).
    #[test]
    fn the_model_stays_near_the_rounds_it_was_calibrated_on() {
        let model = CostModel::shipped("NVIDIA H200", 132);
        for st in candidates(Elem::F16) {
            for c in calibration_shapes(st, 132, 1, R) {
                assert!(model.calibrated_for(st, c, false, 132, 1, R), "{} at its calibration shape {c:?}", st.kernel.step);
            }
        }
        assert!(!model.calibrated_for(&steps::D11, shape(128, 256_000, 3584), false, 132, 1, R));
        assert!(!model.calibrated_for(&steps::D22[3], shape(16384, 6144, 768), false, 132, 1, R), "{}", steps::D22[3].kernel.step);
        assert!(model.calibrated_for(&steps::H6S4, shape(8192, 8192, 8192), false, 132, 1, R));
        // The choice then leaves them out: the 256 000-column head is not d11's.
        let c = super::super::choose_by(&model, shape(128, 256_000, 3584), true, 132, R, Elem::F16).unwrap();
        assert_ne!(c.label(), "d11");
    }

    /// The schedule follows the grids: persistent rounds, K split through global memory where the tiles
    /// leave SMs idle, cluster splits, stream-K's spread tail.
    #[test]
    fn schedules_follow_the_grids() {
        // h6s4: 128×256 tiles, 4096² → 16·32 = 512 tiles, ⌈512/132⌉ = 4 rounds of 64 K blocks.
        let h6 = schedule(&steps::H6S4, shape(4096, 4096, 4096), 132, 1, R).unwrap();
        assert_eq!((h6.kblocks, h6.tiles, h6.splits), (4.0 * 64.0, 4.0, 1));
        assert_eq!(h6.l2_bytes, 512.0 * 64.0 * 128.0 * (128.0 + 256.0));
        // d7 (64×128 tiles): 128×4096×4096 has 64 tiles → 2 splits of 32 K blocks, partials add bytes.
        let d7 = schedule(&steps::D7, shape(128, 4096, 4096), 132, 1, R).unwrap();
        assert_eq!((d7.kblocks, d7.splits), (32.0, 2));
        assert!(d7.bytes > 2.0 * (128.0 * 4096.0 * 2.0 + 4096.0 * 4096.0));
        // h8x4 on 128×1024×16384: 4 tiles, 22 clusters resident → one round of 64 K blocks each.
        let h8 = schedule(&steps::H8[2], shape(128, 1024, 16384), 132, 1, R).unwrap();
        assert_eq!((h8.kblocks, h8.tiles, h8.splits), (64.0, 1.0, 4));
        assert!(schedule(&steps::H8[2], shape(128, 1024, 16384), 132, 1, [0; 7]).is_none());
        // h10 at 2048×11008×4096: 688 tiles = 5·132 + 28; the tail's 28·64 K blocks over 132 CTAs.
        let h10 = schedule(&steps::H10, shape(2048, 11008, 4096), 132, 1, R).unwrap();
        assert_eq!(h10.kblocks, 5.0 * 64.0 + (28.0f64 * 64.0 / 132.0).ceil());
        // d22r96 (96×128 tiles in clusters of 2) at 1024×768×3072: 11 × 6 tiles, ⌊132/66⌋ = 2 splits; a unit
        // is a cluster tile, ⌈11/2⌉ · 6 · 2 = 72 of them for 66 slots: two rounds, the second 6/66 busy.
        let d22 = schedule(&steps::D22[1], shape(1024, 768, 3072), 132, 1, R).unwrap();
        assert_eq!((d22.splits, d22.rounds), (2, 2.0));
        assert!((d22.last_busy - 6.0 / 66.0).abs() < 1e-9, "{}", d22.last_busy);
        // d15 (16-row activation box) at M = 1: the box holds one row.
        let d15 = schedule(&steps::D15, shape(1, 4096, 4096), 132, 1, R).unwrap();
        assert_eq!(d15.l2_bytes, 64.0 * 64.0 * 128.0 * (1.0 + 64.0));
    }

    /// Round by round: one round (or every round full) predicts the longer of the totals, as before;
    /// a partial last round adds a whole CTA's work though it moves fewer bytes (d16 at 32×12288×4096:
    /// 192 tiles over 132 SMs, measured 33.5 µs in session 69).
    #[test]
    fn a_partial_last_round_costs_a_whole_round_of_work() {
        let c = StepCost { step: "d16".into(), fixed_us: 3.614, kblock_us: 0.16152, tile_us: 1.8861, split_us: 1.572, mem_eff: 0.941 };
        let totals = |sch: &Schedule| {
            let compute = sch.kblocks * c.kblock_us + sch.tiles * c.tile_us + sch.split_work * c.split_us;
            c.fixed_us + compute.max(sch.bytes / (c.mem_eff * 4249.9e3))
        };
        let sch = schedule(&steps::D16, shape(32, 12288, 4096), 132, 1, R).unwrap();
        assert_eq!((sch.rounds, sch.tiles), (2.0, 2.0));
        assert!((sch.last_busy - 60.0 / 132.0).abs() < 1e-9, "{}", sch.last_busy);
        let t = c.predict(&sch, 4249.9, 0.0);
        assert!((32.5..34.0).contains(&t), "{t:.2} µs");
        assert!(t > totals(&sch) + 3.0, "{t:.2} against {:.2}", totals(&sch));
        // d2's hardware-scheduled grid keeps the totals.
        let d2 = schedule(&steps::D2, shape(1, 128256, 4096), 132, 4, R).unwrap();
        assert_eq!((d2.rounds, d2.last_busy), (1.0, 1.0));
        // One round, and two full ones: the totals.
        for s in [shape(32, 4096, 4096), shape(32, 64 * 264, 4096)] {
            let sch = schedule(&steps::D16, s, 132, 1, R).unwrap();
            assert_eq!(sch.last_busy, 1.0, "{s}");
            assert!((c.predict(&sch, 4249.9, 0.0) - totals(&sch)).abs() < 1e-9, "{s}");
        }
    }

    /// A one-unit grid (d28: K split over a cluster) adds its tiles' ends to every round, even where
    /// memory binds: the shipped H200 constants give both of session 82's d28x2 weight streams within
    /// 8% — one round of 1×4096×14336 at 0.97 of the copy bandwidth (31.0 µs) and four rounds of
    /// 1×16896×4096 (42.7 µs) — where ends inside the max cannot (one memory efficiency for both).
    #[test]
    fn one_unit_ctas_add_their_ends_to_each_round() {
        let model = CostModel::shipped("H200", 132);
        let d28x2 = &steps::D28[0];
        assert_eq!(d28x2.kernel.step, "d28x2");
        for (s, measured) in [(shape(1, 4096, 14336), 31.0), (shape(1, 16896, 4096), 42.7)] {
            let sch = schedule(d28x2, s, 132, 1, R).unwrap();
            assert!(sch.one_unit);
            let t = model.predict(d28x2, s, false, 132, 1, R).unwrap();
            assert!((t / measured - 1.0).abs() < 0.08, "{s}: {t:.1} µs predicted, {measured} measured");
            // The same constants with the ends competing with the traffic: never more.
            let c = model.cost_of(d28x2).unwrap();
            let overlapped = c.predict(&Schedule { one_unit: false, ..sch }, model.copy_gbps, model.l2_gbps);
            assert!(overlapped <= t + 1e-9, "{s}");
        }
        // The persistent and hardware-scheduled grids keep their ends inside the round's work.
        assert!(!schedule(&steps::D16, shape(32, 4096, 4096), 132, 1, R).unwrap().one_unit);
        assert!(!schedule(&steps::D2, shape(1, 4096, 4096), 132, 4, R).unwrap().one_unit);
    }

    /// Properties of the model with any positive constants: never a configuration that cannot run the
    /// shape, and (at fixed M, N) a deeper K never costs less.
    #[test]
    fn the_model_is_monotone_in_k_and_picks_only_runnable_configs() {
        let model = CostModel::shipped("H200", 132);
        let mut x = 99u64;
        for _ in 0..400 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let (m, n, k) = ((x >> 11) as usize % 9000 + 1, (x >> 25) as usize % 30000 + 1, (x >> 41) as usize % 20000 + 8);
            let s = shape(m, n, k);
            for elem in [Elem::F16, Elem::Bf16] {
                let c = super::super::choose_by(&model, s, true, 132, R, elem).unwrap();
                let (rn, rk) = if c.padded { (s.n.div_ceil(8) * 8, s.k.div_ceil(8) * 8) } else { (s.n, s.k) };
                assert!(c.step.rejects(s.m, rn, rk).is_none(), "{s}: {}", c.label());
                assert_eq!(c.step.elem, elem);
                for st in candidates(elem) {
                    let Some(t) = model.predict(st, s, c.padded, 132, 1, R) else { continue };
                    let deeper = shape(m, n, (2 * k).min(1 << 20));
                    if let Some(t2) = model.predict(st, deeper, c.padded, 132, 1, R) {
                        assert!(t2 >= t * 0.999, "{}: {s} {t:.2} µs, K doubled {t2:.2} µs", st.kernel.step);
                    }
                }
            }
        }
    }

    /// The fit recovers constants from samples made by the model itself.
    #[test]
    fn the_fit_recovers_known_constants() {
        let truth = StepCost { step: "d7".into(), fixed_us: 4.0, kblock_us: 0.3, tile_us: 1.0, split_us: 2.0, mem_eff: 0.85 };
        let shapes = calibration_shapes(&steps::D7, 132, 1, R);
        assert!(shapes.len() >= 6);
        let samples: Vec<(Schedule, f64)> = shapes.iter().map(|&s| {
            let sch = schedule(&steps::D7, s, 132, 1, R).unwrap();
            (sch, truth.predict(&sch, 4000.0, 9000.0))
        }).collect();
        let got = fit("d7", &samples, 4000.0, 9000.0).unwrap();
        for (s, t) in &samples {
            let p = got.predict(s, 4000.0, 9000.0);
            assert!((p / t - 1.0).abs() < 0.02, "{p} vs {t}");
        }
        assert!((got.kblock_us / 0.3 - 1.0).abs() < 0.05, "{got:?}");
    }

    #[test]
    fn calibration_shapes_are_runnable_and_varied() {
        for st in candidates(Elem::F16) {
            let shapes = calibration_shapes(st, 132, 1, R);
            assert!(shapes.len() >= 5, "{}: {shapes:?}", st.kernel.step);
            for s in &shapes {
                assert!(st.rejects(s.m, s.n, s.k).is_none());
                assert!(schedule(st, *s, 132, 1, R).is_some(), "{} {s}", st.kernel.step);
            }
        }
    }
}

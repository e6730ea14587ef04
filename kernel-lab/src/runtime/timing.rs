//! GPU time with CUDA events: warm-up, then many timed repetitions, reported as median/min/max.
use cudarc::driver::sys::CUevent_flags;

use crate::{error::{DriverContext, Result}, runtime::gpu::Gpu};

/// Summary of timed repetitions, in milliseconds of GPU time.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Stats {
    /// Median over the repetitions (the number the tables report).
    pub median_ms: f64,
    /// Fastest repetition.
    pub min_ms: f64,
    /// Slowest repetition.
    pub max_ms: f64,
    /// Number of timed repetitions.
    pub reps: usize,
    /// When the repetitions were summarised (UTC, milliseconds since the Unix epoch): the moment to
    /// look up in a clock log such as `scripts/gpu-gemm.sh`'s `gemm-sweep-clocks.csv`, to tell which
    /// measurements ran while the GPU was power-capped.
    pub ended_unix_ms: u64,
    /// For one side of an interleaved pair ([`time_pair`]): each timed block's start and end (UTC
    /// milliseconds, as `ended_unix_ms`), so a clock log can say which side's blocks ran capped;
    /// empty for other measurements.
    pub blocks_unix_ms: Vec<[u64; 2]>,
}

impl Stats {
    /// The same repetitions, each of `launches` launches, as times per launch (`launches` ≥ 1).
    pub fn per_launch(&self, launches: usize) -> Stats {
        let l = launches.max(1) as f64;
        Stats { median_ms: self.median_ms / l, min_ms: self.min_ms / l, max_ms: self.max_ms / l, reps: self.reps, ended_unix_ms: self.ended_unix_ms,
                blocks_unix_ms: self.blocks_unix_ms.clone() }
    }

    /// Summarises samples (ms). Panics on an empty slice: callers time at least one repetition.
    pub fn from_samples(samples: &mut [f64]) -> Stats {
        assert!(!samples.is_empty(), "Stats::from_samples needs at least one sample");
        samples.sort_by(|a, b| a.total_cmp(b));
        let n = samples.len();
        let median = if n % 2 == 1 { samples[n / 2] } else { 0.5 * (samples[n / 2 - 1] + samples[n / 2]) };
        Stats { median_ms: median, min_ms: samples[0], max_ms: samples[n - 1], reps: n, ended_unix_ms: unix_ms_now(), blocks_unix_ms: vec![] }
    }

    /// Bandwidth in GB/s (1e9 bytes per second) for `bytes` moved in the median time.
    pub fn gbps(&self, bytes: f64) -> f64 {
        bytes / (self.median_ms * 1e-3) / 1e9
    }
}

/// The wall clock in UTC milliseconds since the Unix epoch (0 if the clock is before it).
pub fn unix_ms_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The date `days` after 1970-01-01 (proleptic Gregorian): `(year, month 1–12, day 1–31)`, by Howard
/// Hinnant's civil-from-days (no date crate needed).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + (m <= 2) as i64, m as u32, d as u32)
}

/// Times `work(i)` (which enqueues GPU work on `gpu.stream`; `i` counts repetitions, for rotating
/// input buffers) between two CUDA events: `warmup` untimed calls, then `reps` timed ones, each
/// synchronized on its end event so the samples are independent, each **held** (see [`time_samples`]).
pub fn time_gpu(gpu: &Gpu, warmup: usize, reps: usize, work: impl FnMut(usize) -> Result<()>) -> Result<Stats> {
    Ok(Stats::from_samples(&mut time_samples(gpu, warmup, reps, work)?))
}

/// The shortest hold (ns) [`time_samples`] puts in front of a timed repetition.
pub const HOLD_MIN_NS: u64 = 20_000;
/// The longest: a `work` that still leaves the GPU idle behind a hold this long waits on the host
/// itself (a synchronizing call), and is timed without a hold.
pub const HOLD_MAX_NS: u64 = 5_000_000;

/// The hold for the next repetition after the host took `enqueue_ns` to enqueue the last one
/// (start event, work, end event): twice that plus [`HOLD_MIN_NS`], within the limits.
pub fn next_hold_ns(enqueue_ns: u64) -> u64 {
    (2 * enqueue_ns + HOLD_MIN_NS).min(HOLD_MAX_NS)
}

/// Enqueues a hold of `ns` nanoseconds on the library's stream: the GPU stays busy that long, so
/// that work enqueued behind it meanwhile starts without waiting for the host. See [`time_samples`].
pub fn hold(gpu: &Gpu, ns: u64) -> Result<()> {
    hold_with(gpu, &gpu.kernel("check_hold_ns")?, ns)
}

fn hold_with(gpu: &Gpu, kernel: &crate::runtime::gpu::Kernel, ns: u64) -> Result<()> {
    // SAFETY: `check_hold_ns(ns)` reads and writes no memory; any grid.
    unsafe { crate::launch!(gpu, kernel, grid = 1u32, &ns) }
}

/// [`time_gpu`]'s samples (ms), one per timed repetition (at least one).
///
/// Every repetition is enqueued behind a **hold**: `check_hold_ns`, one GPU thread spinning on
/// `%globaltimer`, launched just before the start event. The GPU is then still busy when the host
/// enqueues the start event, the work and the end event, and reaches the start event only after all
/// three are queued — so the sample is the GPU's time for the work, not the host's launch latency
/// (without it, a sample began when the idle GPU passed the start event and waited there for the
/// launch: a 15 µs cuBLAS GEMV measured 24 µs, `results/2026-11-22-h100-session5/call4-d2/ncu.txt`
/// against `call5-d2`). After enqueuing, the start event is queried: if the GPU has already passed
/// it, the hold was too short, the sample is thrown away and the hold doubled (up to
/// [`HOLD_MAX_NS`]; past that the work waits on the host itself and is timed unheld).
pub fn time_samples(gpu: &Gpu, warmup: usize, reps: usize, mut work: impl FnMut(usize) -> Result<()>) -> Result<Vec<f64>> {
    let reps = reps.max(1);
    for i in 0..warmup {
        work(i)?;
    }
    gpu.stream.synchronize().during(|| "synchronizing after warm-up".into())?;
    let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let start = gpu.ctx.new_event(flags).during(|| "creating a timing event".into())?;
    let end = gpu.ctx.new_event(flags).during(|| "creating a timing event".into())?;
    let hold_kernel = gpu.kernel("check_hold_ns")?;
    let (mut hold_ns, mut held) = (HOLD_MIN_NS, true);
    let mut samples = Vec::with_capacity(reps);
    let mut i = warmup;
    while samples.len() < reps {
        if held {
            hold_with(gpu, &hold_kernel, hold_ns)?;
        }
        let t0 = std::time::Instant::now();
        start.record(&gpu.stream).during(|| "recording the start event".into())?;
        work(i)?;
        end.record(&gpu.stream).during(|| "recording the end event".into())?;
        let enqueue_ns = t0.elapsed().as_nanos() as u64;
        let late = held && start.try_is_complete().during(|| "querying the start event".into())?;
        end.synchronize().during(|| "waiting for the timed work".into())?;
        let ms = start.elapsed_ms(&end).during(|| "reading the event time".into())? as f64;
        i += 1;
        if late {
            if hold_ns < HOLD_MAX_NS {
                hold_ns = (2 * hold_ns).min(HOLD_MAX_NS);
                continue;
            }
            held = false;
        } else if held {
            hold_ns = hold_ns.max(next_hold_ns(enqueue_ns));
        }
        samples.push(ms);
    }
    Ok(samples)
}

/// As [`time_gpu`], but with the repetitions cut so that slow work takes about `budget_ms` of GPU time:
/// one warm-up call is timed to choose `reps` in `[3, max_reps]`.
pub fn time_gpu_budget(gpu: &Gpu, warmup: usize, max_reps: usize, budget_ms: f64, mut work: impl FnMut(usize) -> Result<()>) -> Result<Stats> {
    let probe = time_gpu(gpu, 0, 1, &mut work)?;
    let reps = ((budget_ms / probe.median_ms.max(1e-3)) as usize).clamp(3, max_reps.max(3));
    time_gpu(gpu, warmup.min(reps), reps, work)
}

/// Times two pieces of work, A = `work(i, false)` and B = `work(i, true)`, **interleaved in blocks**:
/// [`PAIR_ROUNDS`] rounds, each timing a block of A's repetitions and a block of B's (the order
/// alternating ABBA…), every block preceded by [`PAIR_SETTLE_MS`] of untimed calls. Slow drift of the card over a run
/// (H200 GEMMs moved ±6% between consecutive runs of the same binary) then moves both medians together
/// and leaves their ratio; the untimed calls absorb what one kernel leaves to the next (dirty L2
/// lines, clocks): launch-by-launch alternation made each 8192³ GEMM pay for the other's leftovers
/// (mma.sync HGEMM −8%, cuBLAS after a wgmma step −10%; results/2026-11-22-h200-session2-interleaved).
/// Repetitions are cut to about `budget_ms` for the pair, as [`time_gpu_budget`].
/// Each side's [`Stats`] carries its blocks' wall-clock spans (`blocks_unix_ms`).
pub fn time_pair(gpu: &Gpu, warmup: usize, max_reps: usize, budget_ms: f64, work: impl FnMut(usize, bool) -> Result<()>) -> Result<(Stats, Stats)> {
    let rounds = time_pair_blocks(gpu, warmup, max_reps, budget_ms, PAIR_ROUNDS, work)?;
    let (mut a, mut b): (Vec<f64>, Vec<f64>) = (vec![], vec![]);
    let (mut a_at, mut b_at) = (vec![], vec![]);
    for ((ra, rb), [at_a, at_b]) in rounds {
        a.extend(ra);
        b.extend(rb);
        a_at.push(at_a);
        b_at.push(at_b);
    }
    let (mut sa, mut sb) = (Stats::from_samples(&mut a), Stats::from_samples(&mut b));
    (sa.blocks_unix_ms, sb.blocks_unix_ms) = (a_at, b_at);
    Ok((sa, sb))
}

/// Two kernels timed against each other in rounds ([`time_pair_rounds`]), as an A/B table shows them.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AbTimes {
    /// A's times over all rounds.
    pub a_time: Stats,
    /// B's times over all rounds.
    pub b_time: Stats,
    /// A's median over B's (B's speed relative to A; > 1: B is faster).
    pub b_speedup: f64,
    /// The same ratio per round (each round's two block medians).
    pub round_speedups: Vec<f64>,
}

impl AbTimes {
    /// Summarizes the rounds of [`time_pair_rounds`]: all of A's and B's samples, and per round A's
    /// block median over B's.
    pub fn from_rounds(per_round: Vec<(Vec<f64>, Vec<f64>)>) -> AbTimes {
        let median = |v: &[f64]| Stats::from_samples(&mut v.to_vec()).median_ms;
        let round_speedups = per_round.iter().map(|(ra, rb)| median(ra) / median(rb)).collect();
        let (mut all_a, mut all_b): (Vec<f64>, Vec<f64>) = (vec![], vec![]);
        for (ra, rb) in per_round {
            all_a.extend(ra);
            all_b.extend(rb);
        }
        let (a_time, b_time) = (Stats::from_samples(&mut all_a), Stats::from_samples(&mut all_b));
        AbTimes { b_speedup: a_time.median_ms / b_time.median_ms, a_time, b_time, round_speedups }
    }

    /// The per-round ratios' minimum and maximum, and the number of rounds B won (ratio > 1).
    pub fn spread(&self) -> (f64, f64, usize) {
        let lo = self.round_speedups.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = self.round_speedups.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        (lo, hi, self.round_speedups.iter().filter(|&&x| x > 1.0).count())
    }
}

/// [`time_pair`]'s measurement with `rounds` rounds, each round's samples kept apart: `(A's block, B's
/// block)` per round, so a caller can see how the A/B ratio moves from round to round.
pub fn time_pair_rounds(gpu: &Gpu, warmup: usize, max_reps: usize, budget_ms: f64, rounds: usize,
                        work: impl FnMut(usize, bool) -> Result<()>) -> Result<Vec<(Vec<f64>, Vec<f64>)>> {
    Ok(time_pair_blocks(gpu, warmup, max_reps, budget_ms, rounds, work)?.into_iter().map(|(samples, _)| samples).collect())
}

/// [`time_pair_rounds`] with each round's two timed blocks' wall-clock spans (UTC milliseconds: A's,
/// then B's), settling calls excluded.
fn time_pair_blocks(gpu: &Gpu, warmup: usize, max_reps: usize, budget_ms: f64, rounds: usize,
                    mut work: impl FnMut(usize, bool) -> Result<()>) -> Result<Vec<((Vec<f64>, Vec<f64>), [[u64; 2]; 2])>> {
    let rounds = rounds.max(1);
    let probe_a = time_gpu(gpu, 0, 1, |i| work(i, false))?.median_ms.max(1e-3);
    let probe_b = time_gpu(gpu, 0, 1, |i| work(i, true))?.median_ms.max(1e-3);
    let reps = ((budget_ms / (probe_a + probe_b)) as usize).clamp(rounds, max_reps.max(rounds));
    let per_block = reps.div_ceil(rounds);
    for i in 0..warmup {
        work(i, false)?;
        work(i, true)?;
    }
    let mut out = Vec::with_capacity(rounds);
    for round in 0..rounds {
        let (mut a, mut b) = (vec![], vec![]);
        let mut at = [[0u64; 2]; 2];
        // ABBA: rounds 0, 3, 4, 7, … time A first.
        for which in if round % 4 == 0 || round % 4 == 3 { [false, true] } else { [true, false] } {
            let probe = if which { probe_b } else { probe_a };
            let settle = settle_calls(PAIR_SETTLE_MS, probe, crate::runtime::tuning::settle_max_calls());
            let mut started = 0;
            // The block's first timed call starts after the settling calls: stamp it there.
            let samples = time_samples(gpu, settle, per_block, |i| {
                if i == settle {
                    started = unix_ms_now();
                }
                work(i, which)
            })?;
            at[which as usize] = [started, unix_ms_now()];
            if which { b = samples } else { a = samples }
        }
        out.push(((a, b), at));
    }
    Ok(out)
}

/// Untimed GPU time at the start of every [`time_pair`] block (ms): long enough for what the other
/// kernel left behind (L2 contents, clocks after a power-capped neighbour) to wash out.
pub const PAIR_SETTLE_MS: f64 = 30.0;

/// Untimed calls before a timed block of work whose call took `probe_ms`: `settle_ms`' worth
/// ([`PAIR_SETTLE_MS`] before a [`time_pair`] block, the autotuner's `tune::SETTLE_MS` before its), at
/// least 1 and at most `cap` (a probe of 0 or NaN: `cap`). [`time_pair`]'s cap is
/// `runtime::tuning::settle_max_calls` (4096 calls by default, 64 under `--quick`, or the
/// `KERNEL_LAB_SETTLE_MAX_CALLS` knob); before session 29 it was always 64.
pub fn settle_calls(settle_ms: f64, probe_ms: f64, cap: usize) -> usize {
    let cap = cap.max(1);
    let calls = settle_ms / probe_ms.max(1e-6);
    if calls < cap as f64 { (calls.ceil() as usize).max(1) } else { cap }
}

/// Rounds of [`time_pair`].
pub const PAIR_ROUNDS: usize = 4;

/// How many copies of an input of `bytes` to rotate through so that consecutive repetitions never
/// find their input in L2: enough copies to span 4× the L2 size, or 1 when the input alone is larger.
pub fn rotation_copies(bytes: usize, l2_bytes: usize) -> usize {
    if bytes == 0 || bytes >= 2 * l2_bytes { 1 } else { (4 * l2_bytes).div_ceil(bytes).min(64) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_carry_when_they_were_taken() {
        let before = unix_ms_now();
        let s = Stats::from_samples(&mut [3.0, 1.0, 2.0]);
        let after = unix_ms_now();
        // 2020-01-01 and later, between the two clock reads, and kept by per_launch.
        assert!(before > 1_577_836_800_000 && (before..=after).contains(&s.ended_unix_ms), "{before} {} {after}", s.ended_unix_ms);
        assert_eq!((s.median_ms, s.per_launch(2).ended_unix_ms), (2.0, s.ended_unix_ms));
    }

    #[test]
    fn rounds_are_summarized_per_round_and_overall() {
        let t = AbTimes::from_rounds(vec![(vec![2.0, 2.0, 2.0], vec![1.0, 1.0, 1.0]), (vec![3.0, 3.0, 3.0], vec![4.0, 4.0, 4.0])]);
        assert_eq!(t.round_speedups, vec![2.0, 0.75]);
        assert_eq!((t.a_time.reps, t.b_time.reps), (6, 6));
        assert_eq!((t.a_time.min_ms, t.a_time.max_ms, t.b_time.min_ms, t.b_time.max_ms), (2.0, 3.0, 1.0, 4.0));
        assert_eq!(t.spread(), (0.75, 2.0, 1));
    }

    #[test]
    fn blocks_settle_for_30_ms_of_calls_within_limits() {
        let cap = crate::runtime::tuning::SETTLE_MAX_CALLS;
        assert_eq!(settle_calls(PAIR_SETTLE_MS, 0.06, cap), 500, "a 60 µs GEMM: 30 ms");
        assert_eq!(settle_calls(PAIR_SETTLE_MS, 1.7, cap), 18, "an 8192³ GEMM");
        assert_eq!(settle_calls(PAIR_SETTLE_MS, 40.0, cap), 1, "slower than the settle time: one call");
        assert_eq!(settle_calls(PAIR_SETTLE_MS, f64::INFINITY, cap), 1);
        assert_eq!(settle_calls(PAIR_SETTLE_MS, 0.004, cap), cap, "a 4 µs launch: capped (16 ms)");
        assert_eq!(settle_calls(PAIR_SETTLE_MS, 0.0, cap), cap);
        assert_eq!(settle_calls(PAIR_SETTLE_MS, -1.0, cap), cap);
        assert_eq!(settle_calls(PAIR_SETTLE_MS, f64::NAN, cap), cap);
        assert_eq!(settle_calls(PAIR_SETTLE_MS, 0.008, cap), 3750, "8 µs: 30 ms, under the cap");
        // Another cap (the knob, --quick) bounds it either way.
        assert_eq!(settle_calls(PAIR_SETTLE_MS, 0.06, crate::runtime::tuning::QUICK_SETTLE_MAX_CALLS), 64, "the old cap: 3.8 ms for a 60 µs GEMM");
        assert_eq!(settle_calls(PAIR_SETTLE_MS, 0.004, 65536), 7500, "a raised cap: 30 ms of 4 µs calls");
        assert_eq!(settle_calls(PAIR_SETTLE_MS, 0.06, 0), 1);
        // The autotuner's blocks: 10 ms, no cap (its probes are at least 1 µs).
        assert_eq!(settle_calls(10.0, 1e-3, usize::MAX), 10_000);
        assert_eq!(settle_calls(10.0, 0.3, usize::MAX), 34);
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        let s = Stats::from_samples(&mut [3.0, 1.0, 2.0]);
        assert_eq!((s.median_ms, s.min_ms, s.max_ms, s.reps), (2.0, 1.0, 3.0, 3));
        let s = Stats::from_samples(&mut [4.0, 1.0, 2.0, 3.0]);
        assert_eq!(s.median_ms, 2.5);
    }

    #[test]
    fn gbps_counts_bytes_over_median() {
        let s = Stats::from_samples(&mut [1.0]);
        assert!((s.gbps(1e9) - 1000.0).abs() < 1e-9);
    }

    #[test]
    fn hold_covers_twice_the_enqueue_time_within_limits() {
        assert_eq!(next_hold_ns(0), HOLD_MIN_NS);
        assert_eq!(next_hold_ns(10_000), 40_000);
        assert_eq!(next_hold_ns(u64::MAX / 4), HOLD_MAX_NS);
        assert!(HOLD_MIN_NS < HOLD_MAX_NS);
    }

    #[test]
    fn rotation_spans_l2() {
        let l2 = 50 << 20;
        assert_eq!(rotation_copies(1 << 30, l2), 1);
        assert_eq!(rotation_copies(4 << 20, l2), 50);
        assert!(rotation_copies(4 << 20, l2) * (4 << 20) >= 4 * l2);
        assert_eq!(rotation_copies(1, l2), 64);
    }
}

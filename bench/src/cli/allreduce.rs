//! `kernel-lab allreduce`: the all-reduce ladder (issue 52) — NCCL (v0), one-shot (v1) and two-shot
//! (v2) over NVLink peer memory — verified exactly on integer-valued data on every rank, then timed
//! interleaved per message size, with what the cost model predicts and picks. On one GPU it runs the
//! custom steps' protocol with 2, 3 and 8 ranks on that GPU (a correctness check; no link is timed)
//! and NCCL with one rank. NCCL through torch.distributed on the same sizes:
//! `scripts/allreduce-torch-peer.py`.
use std::time::Instant;

use super::sub;
use kernel_lab_bench::{
    Error, Gpu, Result,
    comm::{Algo, AllReduce, AllReduceOptions, Group, Placement, Reducible},
    cudarc::driver::{CudaSlice, sys::CUevent_flags},
    error::DriverContext,
    half::{bf16, f16},
    runtime::timing::hold,
};

const HELP: &str = "\
kernel-lab allreduce [--gpus N] [--same-gpu W] [--dtype f32|f16|bf16] [--sizes LIST] [--json FILE]
  Sum of one buffer per rank into every rank's buffer: NCCL, one-shot and two-shot (peer memory), each
  verified exactly (integer-valued data, every rank, every element) and timed interleaved per size
  (median over rounds of the slowest rank's mean over back-to-back calls). LIST: comma-separated byte
  counts with an optional K/M/G suffix (default 8K to 1G). --gpus N: the first N GPUs (default: all).
  --same-gpu W: W ranks on GPU 0 (the protocol without a link; timings are not link timings).
";

const DEFAULT_SIZES: &str = "8K,16K,32K,64K,128K,256K,512K,1M,4M,16M,64M,256M,1G";
/// Largest message checked element by element on the host (the timing goes on above it).
const VERIFY_MAX_BYTES: usize = 64 << 20;

/// `kernel-lab allreduce …`; returns the exit code.
pub fn main(args: &[String]) -> i32 {
    let flags = match sub::flags(args, "allreduce", HELP, &["--gpus", "--same-gpu", "--dtype", "--sizes", "--json"]) {
        Ok(Some(f)) => f,
        Ok(None) => return 0,
        Err(e) => return sub::usage(e),
    };
    let sizes = match flags.get("--sizes").map_or(DEFAULT_SIZES, String::as_str).split(',').map(parse_bytes).collect::<std::result::Result<Vec<_>, _>>() {
        Ok(s) => s,
        Err(e) => return sub::usage(e),
    };
    let count = |f: &str| flags.get(f).map(|v| v.parse::<usize>().map_err(|_| format!("{f} {v}: a positive integer"))).transpose();
    let (gpus, same) = match (count("--gpus"), count("--same-gpu")) {
        (Ok(g), Ok(s)) => (g, s),
        (Err(e), _) | (_, Err(e)) => return sub::usage(e),
    };
    let gpu = match sub::gpu("allreduce", "`cargo test` checks the all-reduce's model and input rules on the CPU and skips its GPU tests.") {
        Ok(g) => g,
        Err(code) => return code,
    };
    let json = flags.get("--json").cloned();
    let dtype = flags.get("--dtype").map_or("bf16", String::as_str).to_string();
    let run = || -> Result<()> {
        let groups = groups(&gpu, gpus, same)?;
        let mut rows = vec![];
        for group in groups {
            match dtype.as_str() {
                "f32" => rows.extend(run_group::<f32>(group, &sizes)?),
                "f16" => rows.extend(run_group::<f16>(group, &sizes)?),
                "bf16" => rows.extend(run_group::<bf16>(group, &sizes)?),
                other => return Err(Error::InvalidInput(format!("--dtype {other}: f32, f16 or bf16"))),
            }
        }
        if let Some(path) = &json {
            std::fs::write(path, serde_json::to_string_pretty(&serde_json::json!({"gpu": gpu.info.name, "dtype": dtype, "rows": rows})).unwrap_or_default())
                .map_err(|e| Error::InvalidInput(format!("cannot write {path}: {e}")))?;
        }
        Ok(())
    };
    match run() {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

/// `8K`, `4M`, `1G` or a plain byte count.
fn parse_bytes(s: &str) -> std::result::Result<usize, String> {
    let s = s.trim();
    let (digits, mult) = match s.chars().last() {
        Some('K' | 'k') => (&s[..s.len() - 1], 1 << 10),
        Some('M' | 'm') => (&s[..s.len() - 1], 1 << 20),
        Some('G' | 'g') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    match digits.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n * mult),
        _ => Err(format!("bad size `{s}`: a positive byte count, optionally with K, M or G")),
    }
}

/// The groups to run: the GPUs asked for (all by default); on a one-GPU machine, or with --same-gpu,
/// ranks sharing GPU 0.
fn groups(gpu: &Gpu, gpus: Option<usize>, same: Option<usize>) -> Result<Vec<Group>> {
    if let Some(w) = same {
        return Ok(vec![Group::same_gpu(gpu, w)?]);
    }
    let n = kernel_lab_bench::cudarc::driver::CudaContext::device_count().map_err(|e| Error::NoGpu(kernel_lab_bench::error::driver_msg(&e)))? as usize;
    let n = gpus.unwrap_or(n);
    if n >= 2 {
        return Ok(vec![Group::new(&(0..n).collect::<Vec<_>>())?]);
    }
    println!("One GPU: a link cannot be timed. The custom steps' protocol runs with 2, 3 and 8 ranks sharing GPU 0 (verified, timings are not link timings), and NCCL with one rank.\n");
    Ok(vec![Group::new(&[0])?, Group::same_gpu(gpu, 2)?, Group::same_gpu(gpu, 3)?, Group::same_gpu(gpu, 8)?])
}

/// Rank `r`'s value at element `i`: a positive integer of 1–8, so every sum over up to 8 ranks (≤ 64)
/// is exact in every element type and differs from each rank's own input when there are 2+ ranks
/// (an element the step failed to write still holds the input and is caught).
fn value(r: usize, i: usize, salt: usize) -> f32 {
    ((i.wrapping_mul(7) + r * 13 + salt) % 8 + 1) as f32
}

fn fill<T: Reducible + FromF32>(group: &Group, n: usize, salt: usize) -> Result<Vec<CudaSlice<T>>> {
    group.ranks().iter().enumerate().map(|(r, g)| g.upload(&(0..n).map(|i| T::from_f32(value(r, i, salt))).collect::<Vec<T>>())).collect()
}

/// Element types from f32 (exact for the small integers used here).
pub trait FromF32 {
    /// `x` as this type.
    fn from_f32(x: f32) -> Self;
    /// As f32.
    fn to_f32(self) -> f32;
}
impl FromF32 for f32 {
    fn from_f32(x: f32) -> Self { x }
    fn to_f32(self) -> f32 { self }
}
impl FromF32 for f16 {
    fn from_f32(x: f32) -> Self { f16::from_f32(x) }
    fn to_f32(self) -> f32 { f16::to_f32(self) }
}
impl FromF32 for bf16 {
    fn from_f32(x: f32) -> Self { bf16::from_f32(x) }
    fn to_f32(self) -> f32 { bf16::to_f32(self) }
}

/// Runs `algo` once on fresh data and checks every element of every rank.
fn verify<T: Reducible + FromF32>(ar: &AllReduce, algo: Algo, n: usize, salt: usize) -> Result<()> {
    let group = ar.group();
    let mut bufs = fill::<T>(group, n, salt)?;
    ar.all_reduce_in_place_with(algo, &mut bufs.iter_mut().collect::<Vec<_>>())?;
    ar.check()?;
    let w = group.world();
    for (r, (g, b)) in group.ranks().iter().zip(&bufs).enumerate() {
        let got = g.download(b)?;
        for (i, x) in got.iter().enumerate() {
            let want: f32 = (0..w).map(|q| value(q, i, salt)).sum();
            if x.to_f32() != want {
                return Err(Error::Verification(format!("{} over {w} ranks, {n} {}: rank {r} element {i} is {} (want {want})", algo.name(), T::SUFFIX, x.to_f32())));
            }
        }
    }
    Ok(())
}

/// The slowest rank's mean time per call (ms) over `k` back-to-back calls, behind a hold on every rank
/// and one untimed call that lines the ranks up.
fn time_calls<T: Reducible>(ar: &AllReduce, algo: Algo, bufs: &mut [CudaSlice<T>], k: usize, hold_ns: u64) -> Result<(f64, u64)> {
    let group = ar.group();
    let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let events = group.ranks().iter().map(|g| Ok((g.ctx.new_event(flags).during(|| "an event".into())?, g.ctx.new_event(flags).during(|| "an event".into())?)))
        .collect::<Result<Vec<_>>>()?;
    for g in group.ranks() {
        hold(g, hold_ns)?;
    }
    let t0 = Instant::now();
    let mut refs: Vec<&mut CudaSlice<T>> = bufs.iter_mut().collect();
    ar.all_reduce_in_place_with(algo, &mut refs)?;
    for (g, (s, _)) in group.ranks().iter().zip(&events) {
        s.record(&g.stream).during(|| "recording a start event".into())?;
    }
    for _ in 0..k {
        ar.all_reduce_in_place_with(algo, &mut refs)?;
    }
    for (g, (_, e)) in group.ranks().iter().zip(&events) {
        e.record(&g.stream).during(|| "recording an end event".into())?;
    }
    let enqueue_ns = t0.elapsed().as_nanos() as u64;
    ar.check()?;
    let mut worst = 0.0f64;
    for (s, e) in &events {
        worst = worst.max(s.elapsed_ms(e).during(|| "reading an event time".into())? as f64);
    }
    Ok((worst / k as f64, enqueue_ns))
}

fn run_group<T: Reducible + FromF32>(group: Group, sizes: &[usize]) -> Result<Vec<serde_json::Value>> {
    let (w, placement) = (group.world(), group.placement());
    let where_ = match placement {
        Placement::OneGpuPerRank => format!("{w} GPU(s): {}", group.ranks().iter().map(|g| g.info.name.clone()).collect::<Vec<_>>().join(", ")),
        Placement::SameGpu => format!("{w} ranks on one {} (no link: protocol check)", group.rank(0).info.name),
    };
    let ar = AllReduce::new(group, AllReduceOptions::default())?;
    println!("## {where_}, {}", T::SUFFIX);
    for a in Algo::ALL {
        if let Some(why) = ar.unavailable(a) {
            println!("{} does not run: {why}", a.name());
        }
    }
    let esize = std::mem::size_of::<T>();
    println!("| bytes | step | verified | µs | algbw GB/s | busbw GB/s | × NCCL time | model µs | model picks |\n|---|---|---|---|---|---|---|---|---|");
    let mut rows = vec![];
    for (si, &bytes) in sizes.iter().enumerate() {
        let n = bytes / esize;
        if n == 0 || n * esize != bytes {
            return Err(Error::InvalidInput(format!("{bytes} bytes is not a whole number of {} elements", T::SUFFIX)));
        }
        let pick = ar.choose::<T>(n).map(|a| a.name()).unwrap_or("-");
        let algos: Vec<Algo> = Algo::ALL.into_iter().filter(|&a| ar.refuses::<T>(a, n).is_none()).collect();
        if algos.is_empty() {
            let why: Vec<String> = Algo::ALL.iter().map(|&a| format!("{}: {}", a.name(), ar.refuses::<T>(a, n).unwrap_or_default())).collect();
            println!("| {bytes} | - | no step takes it ({}) | | | | | | |", why.join("; "));
            continue;
        }
        for &a in &algos {
            if bytes <= VERIFY_MAX_BYTES {
                verify::<T>(&ar, a, n, si)?;
            }
        }
        // Interleaved rounds: each round times every step once; the median over rounds is reported.
        let mut bufs = fill::<T>(ar.group(), n, si)?;
        let probe = time_calls(&ar, algos[0], &mut bufs, 1, 1_000_000)?.0;
        let k = ((5.0 / probe.max(1e-3)) as usize).clamp(3, 200);
        let mut samples: Vec<Vec<f64>> = vec![vec![]; algos.len()];
        let mut hold_ns = 2_000_000u64;
        for _round in 0..7 {
            for (ai, &a) in algos.iter().enumerate() {
                let (ms, enqueue_ns) = time_calls(&ar, a, &mut bufs, k, hold_ns)?;
                hold_ns = hold_ns.max(2 * enqueue_ns);
                samples[ai].push(ms);
            }
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let meds: Vec<f64> = samples.iter_mut().map(median).collect();
        let nccl = algos.iter().position(|&a| a == Algo::Nccl).map(|i| meds[i]);
        for (ai, &a) in algos.iter().enumerate() {
            let us = meds[ai] * 1e3;
            let algbw = bytes as f64 / (meds[ai] * 1e6);
            let busbw = algbw * 2.0 * (w as f64 - 1.0) / w as f64;
            let vs = nccl.map_or("-".to_string(), |t| format!("{:.2}", meds[ai] / t));
            let model = ar.options().model.predict_us(a, bytes, w);
            let verified = if bytes <= VERIFY_MAX_BYTES { "exact" } else { "no (> 64 MiB)" };
            println!("| {bytes} | {} | {verified} | {us:.1} | {algbw:.1} | {busbw:.1} | {vs} | {model:.1} | {pick} |", a.name());
            rows.push(serde_json::json!({"ranks": w, "placement": format!("{placement:?}"), "bytes": bytes, "step": a.name(), "verified": bytes <= VERIFY_MAX_BYTES,
                                         "us": us, "samples_ms": samples[ai], "algbw_gbs": algbw, "busbw_gbs": busbw, "model_us": model, "model_pick": pick}));
        }
    }
    println!();
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_suffixes_and_refuse_nonsense() {
        assert_eq!(parse_bytes("8K"), Ok(8192));
        assert_eq!(parse_bytes(" 4M"), Ok(4 << 20));
        assert_eq!(parse_bytes("1G"), Ok(1 << 30));
        assert_eq!(parse_bytes("100"), Ok(100));
        assert!(parse_bytes("0").is_err() && parse_bytes("K").is_err() && parse_bytes("-8K").is_err());
    }

    #[test]
    fn sums_are_exact_and_differ_from_every_input_with_two_or_more_ranks() {
        for w in 2..=8 {
            for i in 0..1000 {
                let sum: f32 = (0..w).map(|q| value(q, i, 3)).sum();
                assert!(sum <= 64.0 && bf16::from_f32(sum).to_f32() == sum);
                assert!((0..w).all(|r| value(r, i, 3) != sum));
            }
        }
    }
}

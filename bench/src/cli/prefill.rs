//! `kernel-lab prefill`: prefill attention (issue 49, steps a19, a24–a31) timed on model shapes — grouped
//! heads, head dims 64/96/128/256, causal and not — each interleaved with the library's fixed-length
//! fused kernel (`AttentionPlan`: a15/a12) on the same problem with the K/V heads repeated (at D = 256,
//! which has none, the library's a31 against a24); and a packed batch of
//! sequences of random lengths against the same kernel (the library's: a26) on equal lengths of the same work. torch's SDPA (cuDNN and
//! flash backends) on the same shapes: `scripts/prefill-torch-peer.py`.
use super::sub;
use kernel_lab_bench::{
    Gpu, Result,
    attention::{
        AttentionDesc, AttentionPlan,
        prefill::{Lens, PrefillDesc, PrefillPlan, PrefillSchedule, UnitOrder},
    },
    gemm::Element,
    runtime::timing::{Stats, time_gpu, time_pair},
};

const HELP: &str = "\
kernel-lab prefill [--shapes LIST] [--varlen N:LO-HI:SEED] [--dtype f16|bf16] [--timing pair|burst] [--schedules d256|all] [--json FILE]
                   [--kernel NAME [--base-kernel NAME] [--base-order paired|most-work-first]]
  Prefill attention over packed sequences (the library's plan: a27 at D = 64, a29 at 96, a26 at 128, a31 at 256). LIST is comma-separated BxHxKxLxD (batch, query
  heads, K/V heads, sequence length, head dim; default: issue 49's model shapes); each runs without and
  with the causal mask, timed in interleaved rounds against the fixed-length fused kernel on the same
  problem (K/V heads repeated; D = 256: the persistent a31 against a24; --schedules all: at every head dim
  the persistent kernel, a27 or a26 below 256, against one CTA a tile too). --varlen (default 16:100-8192:1) draws N lengths uniformly from LO..=HI
  and times the packed batch, causal, 32/8 heads, D = 128, against equal lengths of the same work.
  --timing pair (default): each row and its baseline in interleaved rounds for 400 ms (the card at its
  power limit); burst: each alone, 30 calls after 3 untimed ones, 300 ms idle before each (as the torch
  peer times without --sustain-ms: an idle card's clock).
  --kernel NAME: the persistent rows run NAME (a persistent prefill step of the shape's width and dtype,
  e.g. attn_a27_d64_bf16, or a33, the mma.sync step, e.g. attn_a33_d128_bf16) in place of the library's kernel, against --base-kernel NAME (another) or one CTA
  a tile; only those rows run. --base-order: the baseline's persistent work list in that order (default: the
  library's, `kernel_lab::attention::prefill::UnitOrder::default_for`: paired with the causal mask).
";

const DEFAULT_SHAPES: &str = "1x32x8x4096x128,1x32x8x8192x128,4x28x4x2048x128,2x16x8x4096x96,2x32x8x4096x64,2x16x8x4096x256";

/// `kernel-lab prefill …`; returns the exit code.
pub fn main(args: &[String]) -> i32 {
    let flags = match sub::flags(args, "prefill", HELP, &["--shapes", "--varlen", "--dtype", "--timing", "--json", "--schedules", "--kernel", "--base-kernel", "--base-order"]) {
        Ok(Some(f)) => f,
        Ok(None) => return 0,
        Err(e) => return sub::usage(e),
    };
    let shapes = flags.get("--shapes").map_or(DEFAULT_SHAPES, String::as_str).split(',').map(|x| sub::parse_shape("prefill", x)).collect::<std::result::Result<Vec<_>, String>>();
    let (parsed, varlen) = match shapes.and_then(|s| Ok((s, parse_varlen(flags.get("--varlen").map_or("16:100-8192:1", String::as_str))?))) {
        Ok(p) => p,
        Err(e) => return sub::usage(e),
    };
    let burst = match flags.get("--timing").map_or("pair", String::as_str) {
        "pair" => false,
        "burst" => true,
        other => return sub::usage(format!("--timing {other}: pair or burst")),
    };
    let schedules = match flags.get("--schedules").map_or("d256", String::as_str) {
        "d256" => false,
        "all" => true,
        other => return sub::usage(format!("--schedules {other}: d256 or all")),
    };
    let base_order = match flags.get("--base-order").map(String::as_str) {
        None => None,
        Some("paired") => Some(UnitOrder::Paired),
        Some("most-work-first") => Some(UnitOrder::MostWorkFirst),
        Some(other) => return sub::usage(format!("--base-order {other}: paired or most-work-first")),
    };
    let kernels = match (flags.get("--kernel"), flags.get("--base-kernel")) {
        (None, Some(_)) => return sub::usage("--base-kernel needs --kernel".into()),
        (_, None) if base_order.is_some() => return sub::usage("--base-order needs --base-kernel".into()),
        (k, b) => Kernels { ours: k.map(String::as_str), base: b.map(String::as_str), base_order },
    };
    let gpu = match sub::gpu("prefill", "`cargo test` checks prefill's input rules on the CPU and skips its GPU tests.") {
        Ok(g) => g,
        Err(code) => return code,
    };
    let json = flags.get("--json").map(String::as_str);
    sub::by_dtype(flags.get("--dtype").map_or("bf16", String::as_str), || run::<half::f16>(&gpu, &parsed, varlen, json, burst, schedules, kernels),
                  || run::<half::bf16>(&gpu, &parsed, varlen, json, burst, schedules, kernels))
}

/// `N:LO-HI:SEED`.
fn parse_varlen(s: &str) -> std::result::Result<(usize, usize, usize, u64), String> {
    let bad = || format!("bad --varlen `{s}`: expected N:LO-HI:SEED, 1 ≤ LO ≤ HI");
    let (n, rest) = s.split_once(':').ok_or_else(bad)?;
    let (range, seed) = rest.split_once(':').ok_or_else(bad)?;
    let (lo, hi) = range.split_once('-').ok_or_else(bad)?;
    let p = |x: &str| x.trim().parse::<usize>().map_err(|_| bad());
    let (n, lo, hi, seed) = (p(n)?, p(lo)?, p(hi)?, p(seed)? as u64);
    if n == 0 || lo == 0 || lo > hi {
        return Err(bad());
    }
    Ok((n, lo, hi, seed))
}

/// `--kernel` and `--base-kernel`: named persistent steps in place of the library's kernel and of one CTA a
/// tile in the schedule rows.
#[derive(Clone, Copy)]
struct Kernels<'a> {
    ours: Option<&'a str>,
    base: Option<&'a str>,
    base_order: Option<UnitOrder>,
}

/// Without and with the mask: the persistent schedule (a31 at D = 256, a29, a27 or a26 below) against one CTA a tile
/// (a24, a19) on the same problem — at D = 256 the fixed-length family has no kernel, so this is its row.
fn run_schedules<T: Element>(gpu: &Gpu, [b, h, k, l, d]: [usize; 5], burst: bool, kernels: Kernels, print: &dyn Fn(&Row)) -> Result<Vec<Row>> {
    let shape = format!("{b}x{h}x{k}x{l}x{d}");
    let (q, kk, vv) = (sub::random::<T>(gpu, b * l * h * d, 1)?, sub::random::<T>(gpu, b * l * k * d, 2)?, sub::random::<T>(gpu, b * l * k * d, 3)?);
    let cq = sub::cu(&vec![l as u32; b]);
    let (mut o, mut lse) = (gpu.zeros::<T>(b * l * h * d)?, gpu.zeros::<f32>(b * l * h)?);
    let (mut bo, mut bl) = (gpu.zeros::<T>(b * l * h * d)?, gpu.zeros::<f32>(b * l * h)?);
    let mut rows = vec![];
    for causal in [false, true] {
        let desc = if causal { PrefillDesc::new(h, k, d).causal() } else { PrefillDesc::new(h, k, d) };
        let mut plan = match kernels.ours {
            Some(name) => named_plan::<T>(gpu, desc, name)?,
            None => PrefillPlan::<T>::with_schedule(gpu, desc, PrefillSchedule::Persistent)?,
        };
        let mut base = match kernels.base {
            Some(name) => named_plan::<T>(gpu, desc, name)?,
            None => PrefillPlan::<T>::with_schedule(gpu, desc, PrefillSchedule::CtaPerTile)?,
        };
        if let Some(order) = kernels.base_order {
            base.set_unit_order(order);
        }
        let flops = Lens::new(&desc, &cq, &cq)?.flops(&desc);
        let (ours, theirs) = time_two(gpu, burst, |_, is_base| if is_base {
            base.run(&q, &kk, &vv, &cq, &cq, &mut bo, &mut bl).map(|_| ())
        } else {
            plan.run(&q, &kk, &vv, &cq, &cq, &mut o, &mut lse).map(|_| ())
        })?;
        let mask = if causal { " causal" } else { "" };
        let row = Row { shape: shape.clone(), config: format!("{}{mask}", step_label(&plan)), us: ours.median_ms * 1e3, tflops: flops / ours.median_ms / 1e9,
                        base: format!("{}{mask}{}", step_label(&base), kernels.base_order.map_or(String::new(), |o| format!(" ({o:?})"))), base_us: theirs.median_ms * 1e3, base_tflops: flops / theirs.median_ms / 1e9 };
        print(&row);
        rows.push(row);
    }
    Ok(rows)
}

/// A named prefill step's plan: launched as the persistent schedule's kernel, or (a33, off-Hopper's) as
/// `mma.sync`'s; the persistent schedule's refusal where neither takes it.
fn named_plan<T: Element>(gpu: &Gpu, desc: PrefillDesc, name: &str) -> Result<PrefillPlan<T>> {
    PrefillPlan::<T>::with_kernel(gpu, desc, PrefillSchedule::Persistent, name)
        .or_else(|e| PrefillPlan::<T>::with_kernel(gpu, desc, PrefillSchedule::MmaSync, name).map_err(|_| e))
}

/// The step a plan runs, from its kernel's name (`attn_a26_d128_bf16` → `a26`).
fn step_label<T: Element>(plan: &PrefillPlan<T>) -> String {
    plan.kernel().trim_start_matches("attn_").split('_').next().unwrap_or("?").to_string()
}

/// One measured row.
struct Row {
    shape: String,
    config: String,
    us: f64,
    tflops: f64,
    base: String,
    base_us: f64,
    base_tflops: f64,
}

/// A row and its baseline: interleaved (`time_pair`, 400 ms) or, `burst`, each alone after 300 ms idle,
/// 30 calls after 3 untimed ones.
fn time_two(gpu: &Gpu, burst: bool, mut work: impl FnMut(usize, bool) -> Result<()>) -> Result<(Stats, Stats)> {
    if !burst {
        return time_pair(gpu, 5, 200, 400.0, work);
    }
    let mut one = |base: bool| {
        std::thread::sleep(std::time::Duration::from_millis(300));
        time_gpu(gpu, 3, 30, |i| work(i, base))
    };
    let ours = one(false)?;
    Ok((ours, one(true)?))
}

#[allow(clippy::too_many_arguments)]
fn run<T: Element>(gpu: &Gpu, shapes: &[[usize; 5]], varlen: (usize, usize, usize, u64), json: Option<&str>, burst: bool, schedules: bool, kernels: Kernels) -> Result<()> {
    let mut rows = vec![];
    println!("GPU: {} ({} SMs), {}", gpu.info.name, gpu.info.sms, T::NAME);
    println!("| shape BxHxKxLxD | config | µs | TFLOP/s | baseline | µs | TFLOP/s | ratio |\n|---|---|---|---|---|---|---|---|");
    let print = |r: &Row| println!("| {} | {} | {:.1} | {:.0} | {} | {:.1} | {:.0} | {:.3} |", r.shape, r.config, r.us, r.tflops, r.base, r.base_us, r.base_tflops,
                                    r.tflops / r.base_tflops);
    for &[b, h, k, l, d] in shapes {
        if d == 256 || schedules || kernels.ours.is_some() {
            rows.extend(run_schedules::<T>(gpu, [b, h, k, l, d], burst, kernels, &print)?);
        }
        if d == 256 || kernels.ours.is_some() {
            continue;
        }
        let shape = format!("{b}x{h}x{k}x{l}x{d}");
        let (q, kv) = (sub::random::<T>(gpu, b * l * h * d, 1)?, [sub::random::<T>(gpu, b * l * k * d, 2)?, sub::random::<T>(gpu, b * l * k * d, 3)?]);
        // The fixed-length kernel's problem: every query head its own K/V head (the same values' work).
        let (fq, fk, fv) = (sub::random::<T>(gpu, b * h * l * d, 4)?, sub::random::<T>(gpu, b * h * l * d, 5)?, sub::random::<T>(gpu, b * h * l * d, 6)?);
        let cq = sub::cu(&vec![l as u32; b]);
        for causal in [false, true] {
            let desc = if causal { PrefillDesc::new(h, k, d).causal() } else { PrefillDesc::new(h, k, d) };
            let mut plan = PrefillPlan::<T>::new(gpu, desc)?;
            let flops = Lens::new(&desc, &cq, &cq)?.flops(&desc);
            let (mut o, mut lse) = (gpu.zeros::<T>(b * l * h * d)?, gpu.zeros::<f32>(b * l * h)?);
            let (mut fo, mut fl) = (gpu.zeros::<T>(b * h * l * d)?, gpu.zeros::<f32>(b * h * l)?);
            let fd = if causal { AttentionDesc::new(b, h, l, d).causal() } else { AttentionDesc::new(b, h, l, d) };
            // D = 96 has no fixed-length kernel: its baseline is D = 128's (the same tiles).
            let fd = if d == 96 { AttentionDesc { head_dim: 128, ..fd } } else { fd };
            let (fq2, fk2, fv2, mut fo2) = if d == 96 {
                (Some(sub::random::<T>(gpu, b * h * l * 128, 7)?), Some(sub::random::<T>(gpu, b * h * l * 128, 8)?), Some(sub::random::<T>(gpu, b * h * l * 128, 9)?),
                 Some(gpu.zeros::<T>(b * h * l * 128)?))
            } else {
                (None, None, None, None)
            };
            let mut fixed = AttentionPlan::<T>::new(gpu, fd)?;
            let base = fixed.config().label.to_string();
            let (ours, theirs) = time_two(gpu, burst, |_, is_base| if is_base {
                match (&fq2, &fk2, &fv2, fo2.as_mut()) {
                    (Some(a), Some(bb), Some(c), Some(oo)) => fixed.run(a, bb, c, oo, &mut fl),
                    _ => fixed.run(&fq, &fk, &fv, &mut fo, &mut fl),
                }
            } else {
                plan.run(&q, &kv[0], &kv[1], &cq, &cq, &mut o, &mut lse).map(|_| ())
            })?;
            let base_flops = Lens::new(&PrefillDesc { head_dim: fd.head_dim, ..desc }, &cq, &cq)?.flops(&PrefillDesc { head_dim: fd.head_dim, ..desc });
            let label = step_label(&plan);
            let row = Row { shape: shape.clone(), config: format!("{label}{}", if causal { " causal" } else { "" }), us: ours.median_ms * 1e3,
                            tflops: flops / ours.median_ms / 1e9, base, base_us: theirs.median_ms * 1e3, base_tflops: base_flops / theirs.median_ms / 1e9 };
            print(&row);
            rows.push(row);
        }
    }
    // (Not with --kernel: only its rows run.)
    let mut lens = vec![];
    if kernels.ours.is_none() {
        // Variable lengths: N sequences of random lengths, causal, 32/8 heads, D = 128, against equal lengths
        // of the same causal work (Σ l² kept: L_eq = √(Σ l² / N)).
        let (n, lo, hi, seed) = varlen;
        let mut rng = kernel_lab_bench::runtime::verify::rng(seed);
        lens = (0..n).map(|_| rand::Rng::random_range(&mut rng, lo..=hi) as u32).collect();
        let eq = ((lens.iter().map(|&l| (l as f64).powi(2)).sum::<f64>() / n as f64).sqrt().round() as u32).max(1);
        let (h, k, d) = (32, 8, 128);
        let desc = PrefillDesc::new(h, k, d).causal();
        let (cv, ce) = (sub::cu(&lens), sub::cu(&vec![eq; n]));
        let tokens = (*cv.last().unwrap_or(&0)).max(*ce.last().unwrap_or(&0)) as usize;
        let (q, kk, vv) = (sub::random::<T>(gpu, tokens * h * d, 11)?, sub::random::<T>(gpu, tokens * k * d, 12)?, sub::random::<T>(gpu, tokens * k * d, 13)?);
        let (mut o, mut lse) = (gpu.zeros::<T>(tokens * h * d)?, gpu.zeros::<f32>(tokens * h)?);
        let (fv_, fe) = (Lens::new(&desc, &cv, &cv)?.flops(&desc), Lens::new(&desc, &ce, &ce)?.flops(&desc));
        let mut plan = PrefillPlan::<T>::new(gpu, desc)?;
        let (ours, theirs) = time_two(gpu, burst, |_, is_base| {
            let c = if is_base { &ce } else { &cv };
            plan.run(&q, &kk, &vv, c, c, &mut o, &mut lse).map(|_| ())
        })?;
        let label = step_label(&plan);
        let row = Row { shape: format!("{n} seqs {lo}..{hi} (seed {seed}) 32/8 D128"), config: format!("{label} causal varlen"), us: ours.median_ms * 1e3,
                        tflops: fv_ / ours.median_ms / 1e9, base: format!("{label} equal L={eq}"), base_us: theirs.median_ms * 1e3, base_tflops: fe / theirs.median_ms / 1e9 };
        print(&row);
        println!("varlen lengths: {lens:?}");
        rows.push(row);
    }
    if let Some(path) = json {
        let v: Vec<serde_json::Value> = rows.iter().map(|r| serde_json::json!({"shape": r.shape, "config": r.config, "us": r.us, "tflops": r.tflops,
                                                                                  "base": r.base, "base_us": r.base_us, "base_tflops": r.base_tflops})).collect();
        std::fs::write(path, serde_json::to_string_pretty(&serde_json::json!({"gpu": gpu.info.name, "dtype": T::NAME, "varlen": lens, "rows": v})).unwrap_or_default())
            .map_err(|e| kernel_lab_bench::Error::InvalidInput(format!("cannot write {path}: {e}")))?;
    }
    Ok(())
}

//! `kernel-lab calibrate`: measures the GEMM cost model's constants on this GPU and keeps them where
//! plans find them (`kernel_lab::gemm::calibrate::path`); and `kernel-lab rank`: how well a model
//! ranks the configurations an autotune cache timed (no GPU needed).
use std::fmt::Write as _;

use super::timings::read;
use kernel_lab_bench::{
    Error, Gpu, Result,
    gemm::{self, Shape, cost::CostModel},
    steps::gemm::Elem,
    tune::TuneCache,
};

const CALIBRATE_HELP: &str = "\
kernel-lab calibrate [--dtype f16|f32|fp8] [--out FILE] [--samples FILE]
  Times every configuration the GEMM entry point chooses among on a few shapes made from its own tile
  and this GPU's SM count, fits the cost model's constants and writes them where plans look for them.
  Without --dtype all three, one after the other (seconds each):
  f16 (and bf16, the same kernels): a fixed cost, a K block's time, a tile's, the memory efficiency per
    configuration, to $KERNEL_LAB_COST_FILE, else
    ~/.cache/kernel-lab/gemm-cost-<gpu>-<sms>sm-drv<driver>-<ptx>.tsv;
  f32: a fixed cost, a K element's time per CTA an SM holds and per round, a split's, the weights'
    stream rate per family (128-, 64-, 32-row tiles, 16- and 4-row strips), to
    $KERNEL_LAB_F32_COST_FILE, else ~/.cache/kernel-lab/f32-cost-<gpu>-….tsv;
  fp8: the few-tile costs (a fixed cost, a K tile's time alone and with every SM busy on shapes within
    this GPU's L2, a DRAM floor for f25, f3 and f23) of f14, f22, f25, f3 and f23, f21's split (clusters of 2 and 4), fw2's weight stream and f27's
    speeds against f14 over full rounds, which the FP8 entry point's choice weighs, to
    $KERNEL_LAB_FP8_COST_FILE, else ~/.cache/kernel-lab/fp8-cost-<gpu>-….tsv.
  --out FILE writes the model there instead and --samples FILE also writes every timing (step, shape,
  µs, predicted µs) the fit used; both need --dtype (each names one model's file).
kernel-lab calibrate --refit SAMPLES --from COST [--out FILE]
  No GPU: fits the f16 constants again to a saved --samples file (the copy figures and residency from
  the calibration COST it came with), with this build's model.
kernel-lab calibrate --dtype f32|fp8 --refit TIMES [--from COST] [--out FILE]
  No GPU: fits the f32 or FP8 constants to saved timings — a --samples file, or a bench table of
  MxNxK, step, process, median µs rows (one process's median each; their median per step and shape) —
  starting from COST's constants and GPU (SMs, L2, cluster residency; default: the shipped H200 ones).
";

const RANK_HELP: &str = "\
kernel-lab rank --tune-cache FILE [--cost FILE]
  For every f16/bf16 shape an autotune cache timed (`--autotune --tune-cache FILE`, every candidate
  per shape), which configuration the cost model picks (FILE from `calibrate`, default: the shipped
  model of the cache's GPU) against the fastest timed: how often it is within 5%, and the same for the
  rule the cache recorded, and for the entry point's default choice (the rules, overruled where the
  model predicts its pick at least 15% faster). No GPU needed.
kernel-lab rank --f32-times FILE [--cost F32COST] [--gpu NAME]
  The f32 model (F32COST from `calibrate --dtype f32`, default: the shipped model) against timings of
  its families (the forms of v11, v24, v23, v33, v34; the files `calibrate --dtype f32 --refit` reads):
  at every shape where its pick was timed, the pick against the fastest timed family. No GPU needed.
kernel-lab rank --fp8-times FILE [--cost FP8COST] [--gpu NAME] [--l2-mib N]
  The FP8 entry point's choice with FP8COST's costs (from `calibrate --dtype fp8`, default: the shipped
  ones, with an L2 of N MiB as the GPU timed had — an H100's 50, an H200's 60 (default) — where a plan on
  that GPU takes its own) against timings of FP8 steps (bench tables or samples files): per shape and
  scaling, its pick against the fastest step timed. No GPU needed.
kernel-lab rank --shapes FILE [--cost FILE] [--gpu NAME] [--candidates]
  No timings: each shape of FILE (MxNxK a line, as `--shapes-file` takes them) with the rules', the
  model's and the entry point's pick, f16 and bf16, and the model's prediction of each (the shipped
  model of NAME, default H200, unless --cost). --candidates adds every candidate's prediction, fastest
  first (`*`: calibrated at the shape, so the model may pick it).
";

/// `kernel-lab calibrate …`; returns the exit code.
pub fn main(args: &[String]) -> i32 {
    let (mut out, mut samples_out) = (None, None);
    let mut dtype: Option<String> = None;
    let (mut refit, mut from): (Option<String>, Option<String>) = (None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => {
                print!("{CALIBRATE_HELP}");
                return 0;
            }
            "--refit" | "--from" => match it.next() {
                Some(v) if a == "--refit" => refit = Some(v.clone()),
                Some(v) => from = Some(v.clone()),
                None => return usage(&format!("{a} needs a value")),
            },
            "--dtype" => match it.next().map(|v| v.as_str()) {
                Some(v @ ("f16" | "bf16" | "f32" | "fp8")) => dtype = Some(if v == "bf16" { "f16".into() } else { v.into() }),
                Some(v) => return usage(&format!("calibrate --dtype: `{v}` is not f16, bf16, f32 or fp8")),
                None => return usage("--dtype needs a value"),
            },
            "--out" | "--samples" => match it.next() {
                Some(v) if a == "--out" => out = Some(std::path::PathBuf::from(v)),
                Some(v) => samples_out = Some(v.clone()),
                None => return usage(&format!("{a} needs a value")),
            },
            other => return usage(&format!("calibrate: unknown option `{other}`\n{CALIBRATE_HELP}")),
        }
    }
    if let Some(samples) = refit {
        if matches!(dtype.as_deref(), Some("f32" | "fp8")) {
            let r = if dtype.as_deref() == Some("f32") { super::calibrate_f32::refit(&samples, from.as_deref(), out) } else { super::calibrate_fp8::refit(&samples, from.as_deref(), out) };
            return match r {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("error: {e}");
                    1
                }
            };
        }
        let Some(from) = from else { return usage("--refit needs --from COST (the calibration the samples came with)") };
        return match refit_file(&samples, &from, out) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        };
    }
    if dtype.is_none() && (out.is_some() || samples_out.is_some()) {
        return usage("calibrate: --out and --samples name one model's files: give --dtype f16, f32 or fp8");
    }
    let gpu = match Gpu::new(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("calibrate needs a GPU: {e}");
            return 2;
        }
    };
    let result = match dtype.as_deref() {
        Some("f32") => super::calibrate_f32::run(&gpu, out, samples_out),
        Some("fp8") => super::calibrate_fp8::run(&gpu, out, samples_out),
        Some(_) => run(&gpu, out, samples_out),
        None => run(&gpu, None, None).and_then(|()| super::calibrate_f32::run(&gpu, None, None)).and_then(|()| super::calibrate_fp8::run(&gpu, None, None)),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

fn usage(msg: &str) -> i32 {
    eprintln!("{msg}");
    2
}

fn run(gpu: &Gpu, out: Option<std::path::PathBuf>, samples_out: Option<String>) -> Result<()> {
    let t0 = std::time::Instant::now();
    let cal = gemm::calibrate::calibrate(gpu, &mut |l| eprintln!("  {l}"))?;
    let path = out.or_else(|| gemm::calibrate::path(gpu))
        .ok_or_else(|| Error::InvalidInput("calibrate: nowhere to write (set KERNEL_LAB_COST_FILE, XDG_CACHE_HOME or HOME, or pass --out)".into()))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::InvalidInput(format!("{}: {e}", dir.display())))?;
    }
    std::fs::write(&path, cal.model.to_text()).map_err(|e| Error::InvalidInput(format!("{}: {e}", path.display())))?;
    // Each sample's prediction by the fitted constants, once: for the samples file and the fit check.
    let bpsm = kernel_lab_bench::runtime::tuning::decode_blocks_per_sm();
    let predicted: Vec<Option<f64>> = cal.samples.iter()
        .map(|s| gemm::step_by_label(&s.step).ok().and_then(|st| cal.model.predict(st, s.shape, false, gpu.info.sms, bpsm, cal.model.h8_resident)))
        .collect();
    if let Some(p) = samples_out {
        let mut t = String::from("step\tshape\tus\tpredicted_us\n");
        for (s, pred) in cal.samples.iter().zip(&predicted) {
            let _ = writeln!(t, "{}\t{}\t{:.2}\t{}", s.step, s.shape, s.us, pred.map_or("-".into(), |p| format!("{p:.2}")));
        }
        std::fs::write(&p, t).map_err(|e| Error::InvalidInput(format!("{p}: {e}")))?;
    }
    // How well the constants reproduce their own samples (a fit check, not a ranking figure).
    let mut errs: Vec<f64> = cal.samples.iter().zip(&predicted).filter_map(|(s, pred)| pred.map(|p| (p / s.us - 1.0).abs())).collect();
    errs.sort_by(f64::total_cmp);
    let med = errs.get(errs.len() / 2).copied().unwrap_or(f64::NAN);
    println!("calibrated {} configurations on {} in {:.1} s ({} timings; the fit's median error on them {:.1}%): {}",
             cal.model.steps.len(), gpu.info.name, t0.elapsed().as_secs_f64(), cal.samples.len(), 100.0 * med, path.display());
    for s in &cal.skipped {
        println!("  skipped: {s}");
    }
    Ok(())
}



/// Reads a `--samples` file (`step, MxNxK, µs[, predicted]` after a header line).
pub fn parse_samples(text: &str, what: &str) -> Result<Vec<gemm::cost::Sample>> {
    let mut out = vec![];
    for (i, line) in text.lines().enumerate().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let bad = || Error::InvalidInput(format!("{what}:{}: `{line}`: expected step, MxNxK, µs", i + 1));
        if f.len() < 3 {
            return Err(bad());
        }
        let d: Vec<usize> = f[1].split('x').map(|x| x.parse().map_err(|_| bad())).collect::<Result<_>>()?;
        let [m, n, k] = d[..] else { return Err(bad()) };
        out.push(gemm::cost::Sample { step: f[0].to_string(), shape: Shape::new(m, n, k)?, us: f[2].parse().map_err(|_| bad())? });
    }
    Ok(out)
}

fn refit_file(samples: &str, from: &str, out: Option<std::path::PathBuf>) -> Result<()> {
    let base = CostModel::parse(&read(from)?, from)?;
    let samples = parse_samples(&read(samples)?, samples)?;
    let bpsm = kernel_lab_bench::runtime::tuning::decode_blocks_per_sm();
    let (model, skipped) = gemm::cost::fit_model(&samples, format!("{} (refitted)", base.source), base.sms, bpsm, base.h8_resident, base.copy_gbps, base.copy_fixed_us);
    let text = model.to_text();
    match out {
        Some(p) => std::fs::write(&p, text).map_err(|e| Error::InvalidInput(format!("{}: {e}", p.display())))?,
        None => print!("{text}"),
    }
    for s in skipped {
        eprintln!("  skipped: {s}");
    }
    Ok(())
}

/// One shape of a rank evaluation.
#[derive(Clone, Debug)]
pub struct Ranked {
    /// `f16` or `bf16`.
    pub kind: String,
    /// The shape.
    pub shape: Shape,
    /// The fastest timed configuration and its µs.
    pub best: (String, f64),
    /// The model's pick and its µs (`None`: not timed — pruned or not a candidate then).
    pub model: (String, Option<f64>),
    /// The rule the cache recorded and its µs.
    pub rule: (String, Option<f64>),
    /// The entry point's default choice with this model ([`gemm::entry_choice`]: the rules as they are
    /// now, overruled by the model's pick where it predicts a large gain) and its µs.
    pub entry: (String, Option<f64>),
}

/// Evaluates `model` on every f16/bf16 entry of `cache` (pure apart from reading the entries).
pub fn evaluate(model: &CostModel, cache: &TuneCache) -> Result<Vec<Ranked>> {
    let mut out = vec![];
    for (key, e) in cache.entries() {
        let mut parts = key.rsplit('|');
        let (Some(shape), Some(kind)) = (parts.next(), parts.next()) else { continue };
        let elem = match kind {
            "f16" => Elem::F16,
            "bf16" => Elem::Bf16,
            _ => continue,
        };
        let dims: Vec<usize> = shape.split('x').filter_map(|d| d.parse().ok()).collect();
        let [m, n, k] = dims[..] else { continue };
        let s = Shape::new(m, n, k)?;
        let Some(best) = e.timed.first() else { continue };
        let pick = gemm::choose_by(model, s, true, model.sms, model.h8_resident, elem)?.label();
        let both = gemm::entry_choice(model, s, true, model.sms, model.h8_resident, elem)?.label();
        let time_of = |l: &str| e.timed.iter().find(|t| t.label == l).map(|t| t.median_us);
        out.push(Ranked {
            kind: kind.into(),
            shape: s,
            best: (best.label.clone(), best.median_us),
            model: (pick.clone(), time_of(&pick)),
            rule: (e.rule.clone(), time_of(&e.rule)),
            entry: (both.clone(), time_of(&both)),
        });
    }
    out.sort_by_key(|r| (r.kind.clone(), r.shape.m, r.shape.n, r.shape.k));
    Ok(out)
}

/// `rank --shapes`: every shape's three picks with the model's predictions (no GPU).
fn picks(path: &str, cost: Option<&str>, gpu_name: &str, every: bool) -> Result<String> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::InvalidInput(format!("--shapes {path}: {e}")))?;
    let shapes = kernel_lab_bench::corpus::parse(&text, path)?;
    let model = match cost {
        Some(p) => CostModel::parse(&std::fs::read_to_string(p).map_err(|e| Error::InvalidInput(format!("{p}: {e}")))?, p)?,
        None => CostModel::shipped(gpu_name, 132),
    };
    let (sms, r) = (model.sms, model.h8_resident);
    let bpsm = kernel_lab_bench::runtime::tuning::decode_blocks_per_sm();
    let mut t = format!("model: {}\n{:<5} {:<18} {:<20} {:<20} {:<20}\n", model.source, "type", "shape", "rule (predicted µs)", "model", "entry");
    for c in &shapes {
        let s = Shape::new(c.m, c.n, c.k)?;
        for elem in [Elem::F16, Elem::Bf16] {
            let show = |cfg: gemm::Config| format!("{} {}", cfg.label(), model.predict(cfg.step, s, cfg.padded, sms, bpsm, r).map_or("-".into(), |p| format!("{p:.1}")));
            let rule = gemm::refine_decode(gemm::choose(s, true, sms, r, None, elem)?, &model, s, true, sms, r, elem);
            let by = gemm::choose_by(&model, s, true, sms, r, elem)?;
            let entry = gemm::entry_choice(&model, s, true, sms, r, elem)?;
            let _ = writeln!(t, "{:<5} {:<18} {:<20} {:<20} {:<20}", if elem == Elem::F16 { "f16" } else { "bf16" }, s.to_string(), show(rule), show(by), show(entry));
            if every {
                // Every candidate the model prices at this shape, fastest first (`*`: calibrated here,
                // so the model's choice may take it; the rest are extrapolated and only shown).
                let mut all: Vec<(f64, String)> = Vec::new();
                for st in gemm::cost::candidates_for(elem, Some(s.m)) {
                    let Ok(cfg) = gemm::choose(s, true, sms, r, Some(st), elem) else { continue };
                    let Some(p) = model.predict(st, s, cfg.padded, sms, bpsm, r) else { continue };
                    let mark = if model.calibrated_for(st, s, cfg.padded, sms, bpsm, r) { "*" } else { "" };
                    all.push((p, format!("{}{mark} {p:.1}", cfg.label())));
                }
                all.sort_by(|a, b| a.0.total_cmp(&b.0));
                let _ = writeln!(t, "      candidates: {}", all.into_iter().map(|x| x.1).collect::<Vec<_>>().join(", "));
            }
        }
    }
    Ok(t)
}

/// How picks `f` rank against the fastest timed: shapes, picks within 5% of the fastest, picks not timed,
/// geometric mean and lowest of fastest / pick over the timed ones.
struct Score {
    n: usize,
    within: usize,
    untimed: usize,
    geo: f64,
    lowest: f64,
}

impl Score {
    fn of(rows: &[Ranked], f: impl Fn(&Ranked) -> Option<f64>) -> Score {
        let n = rows.len();
        let ratios: Vec<f64> = rows.iter().map(|r| f(r).map_or(0.0, |t| r.best.1 / t)).collect();
        let within = ratios.iter().filter(|&&x| x >= 1.0 / 1.05).count();
        let timed: Vec<f64> = ratios.iter().copied().filter(|&x| x > 0.0).collect();
        let geo = (timed.iter().map(|x| x.ln()).sum::<f64>() / timed.len().max(1) as f64).exp();
        let lowest = timed.iter().copied().fold(f64::INFINITY, f64::min);
        Score { n, within, untimed: n - timed.len(), geo, lowest }
    }
}

/// `within 5%: a / n (x%), geometric mean of fastest / pick y` for picks `f`.
fn score(rows: &[Ranked], f: impl Fn(&Ranked) -> Option<f64>) -> String {
    let Score { n, within, untimed, geo, lowest } = Score::of(rows, f);
    format!("within 5% of the fastest at {within}/{n} ({:.0}%), {untimed} not timed; fastest/pick geometric mean {geo:.3}, lowest {lowest:.3}",
            100.0 * within as f64 / n.max(1) as f64)
}

pub fn rank_main(args: &[String]) -> i32 {
    let (mut cache, mut cost, mut shapes, mut gpu_name) = (None, None, None, "H200".to_string());
    let (mut f32_times, mut fp8_times): (Option<String>, Option<String>) = (None, None);
    let mut every = false;
    let mut l2_mib: Option<f64> = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-h" | "--help" => {
                print!("{RANK_HELP}");
                return 0;
            }
            "--candidates" => every = true,
            "--l2-mib" => match it.next().map(|v| v.parse::<f64>()) {
                Some(Ok(v)) if v > 0.0 && v.is_finite() => l2_mib = Some(v),
                _ => return usage("--l2-mib needs a positive number of MiB"),
            },
            "--tune-cache" | "--cost" | "--shapes" | "--gpu" | "--f32-times" | "--fp8-times" => match it.next() {
                Some(v) if a == "--fp8-times" => fp8_times = Some(v.clone()),
                Some(v) if a == "--cost" => cost = Some(v.clone()),
                Some(v) if a == "--f32-times" => f32_times = Some(v.clone()),
                Some(v) if a == "--shapes" => shapes = Some(v.clone()),
                Some(v) if a == "--gpu" => gpu_name = v.clone(),
                Some(v) => cache = Some(v.clone()),
                None => return usage(&format!("{a} needs a value")),
            },
            other => return usage(&format!("rank: unknown option `{other}`\n{RANK_HELP}")),
        }
    }
    if let Some(path) = fp8_times {
        if l2_mib.is_some() && cost.is_some() {
            return usage("--l2-mib applies to the shipped costs; a --cost file carries its GPU's L2");
        }
        return match super::calibrate_fp8::rank(&path, cost.as_deref(), &gpu_name, l2_mib.map(|m| (m * (1u64 << 20) as f64) as u64)) {
            Ok(t) => {
                print!("{t}");
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        };
    }
    if let Some(path) = f32_times {
        return match super::calibrate_f32::rank(&path, cost.as_deref(), &gpu_name) {
            Ok(t) => {
                print!("{t}");
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        };
    }
    if let Some(path) = shapes {
        return match picks(&path, cost.as_deref(), &gpu_name, every) {
            Ok(t) => {
                print!("{t}");
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        };
    }
    let Some(cache) = cache else { return usage(RANK_HELP) };
    let run = || -> Result<String> {
        let c = TuneCache::open(&cache)?;
        let gpu = c.entries().next().map(|(k, _)| k.split('|').next().unwrap_or("").to_string()).unwrap_or_default();
        let model = match &cost {
            Some(p) => CostModel::parse(&std::fs::read_to_string(p).map_err(|e| Error::InvalidInput(format!("{p}: {e}")))?, p)?,
            None => CostModel::shipped(&gpu, 132),
        };
        let rows = evaluate(&model, &c)?;
        if let Ok(path) = std::env::var("KERNEL_LAB_RANK_DUMP") {
            // Every timed candidate beside its prediction (for studying the model away from the GPU).
            let mut d = String::from("shape\tlabel\tus\tpredicted_us\n");
            for (key, e) in c.entries() {
                let Some(shape) = key.rsplit('|').next() else { continue };
                let dims: Vec<usize> = shape.split('x').filter_map(|x| x.parse().ok()).collect();
                let [m, n, k] = dims[..] else { continue };
                let s = Shape::new(m, n, k)?;
                for t in &e.timed {
                    let label = t.label.strip_suffix("+pad").unwrap_or(&t.label);
                    let Ok(st) = gemm::step_by_label(label) else { continue };
                    let p = model.predict(st, s, t.label.ends_with("+pad"), model.sms, kernel_lab_bench::runtime::tuning::decode_blocks_per_sm(), model.h8_resident);
                    let _ = writeln!(d, "{shape}\t{}\t{:.2}\t{}", t.label, t.median_us, p.map_or("-".into(), |p| format!("{p:.2}")));
                }
            }
            std::fs::write(&path, d).map_err(|e| Error::InvalidInput(format!("{path}: {e}")))?;
        }
        let mut t = format!("model: {}\n{:<5} {:<18} {:<16} {:<16} {:<16} {:<16}\n", model.source, "type", "shape", "fastest µs", "model µs", "rule µs", "entry µs");
        for r in &rows {
            let show = |(l, us): &(String, Option<f64>)| format!("{l} {}", us.map_or("-".into(), |u| format!("{u:.1}")));
            let _ = writeln!(t, "{:<5} {:<18} {:<16} {:<16} {:<16} {:<16}", r.kind, r.shape.to_string(), format!("{} {:.1}", r.best.0, r.best.1), show(&r.model), show(&r.rule), show(&r.entry));
        }
        let _ = writeln!(t, "model: {}", score(&rows, |r| r.model.1));
        let _ = writeln!(t, "rule:  {} (the rule the cache recorded)", score(&rows, |r| r.rule.1));
        let _ = writeln!(t, "entry: {} (the rules now, overruled where the model predicts ≥ {:.0}% faster)", score(&rows, |r| r.entry.1), 100.0 * gemm::MODEL_OVERRIDE_MARGIN);
        Ok(t)
    };
    match run() {
        Ok(t) => {
            print!("{t}");
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entry point's picks with `gpu`'s shipped model, ranked against every candidate a real run of
    /// that GPU timed (`fixture`: its autotune cache, each shape's candidates within 1.3× of the fastest
    /// kept).
    fn entry_rank(gpu: &str, fixture: &str) -> Score {
        let cache = TuneCache::open(&fixture_path(fixture)).unwrap();
        Score::of(&evaluate(&CostModel::shipped(gpu, 132), &cache).unwrap(), |r| r.entry.1)
    }

    /// A guard on the shipped cost models (issue 48: the pick within 5% of the fastest at >= 90% of
    /// sampled shapes): an edit of their constants or of the choice that loses ranked shapes fails here,
    /// not on the next GPU. The fixtures are real runs: every candidate on session 105's H100 shapes
    /// (results/2026-12-05-h100-session105, calls 1, 2 and 4: 22 of 128-512 rows, 40 held out of 1-2048,
    /// the 8 lowest of a sample; 63 within 5% with the model as shipped, 61 before its tile steps'
    /// memory efficiency was measured there) and session 99's 22 shapes on an H200
    /// (results/2026-12-05-h200-session104, call 1: 19 within 5%). The floors sit a little under those:
    /// 85% within 5%, geometric mean 0.975, none under 0.80.
    #[test]
    fn shipped_models_rank_timed_candidates() {
        for (gpu, fixture, shapes) in [("NVIDIA H100 80GB HBM3", "h100-candidates-s105.json", 70), ("NVIDIA H200", "h200-candidates-s99.json", 22)] {
            let Score { n, within, untimed, geo, lowest } = entry_rank(gpu, fixture);
            assert_eq!(n, shapes, "{fixture}: shapes read");
            assert_eq!(untimed, 0, "{gpu}: entry picks not timed within 1.3x of the fastest");
            assert!(within as f64 >= 0.85 * n as f64, "{gpu}: the entry within 5% of the fastest at {within}/{n}");
            assert!(geo >= 0.975, "{gpu}: fastest / pick geometric mean {geo:.3}");
            assert!(lowest >= 0.80, "{gpu}: lowest fastest / pick {lowest:.3}");
        }
    }

    /// Where fixture `name` of `tests/data` lies.
    fn fixture_path(name: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
    }

    /// A fixture of `tests/data` as text.
    fn fixture_text(name: &str) -> String {
        std::fs::read_to_string(fixture_path(name)).unwrap()
    }

    /// The same guard for the f32 model (issue 48's 90% within 5% on each card): every f32 family timed at
    /// the 58 held-out corpus shapes of session 89 (`shapes.py gemm --sample 80 --seed 9292`), on an H200
    /// there and on an H100 in session 106 (`results/2026-12-05-h100-session106`; medians of 3 processes,
    /// `scripts/times-medians.py`). Each GPU's shipped constants pick within 5% of the fastest family at 56 of
    /// them; the floors: 90%, geometric mean 0.98, none under 0.90.
    #[test]
    fn shipped_f32_models_rank_timed_families() {
        for (gpu, fixture) in [("NVIDIA H100 80GB HBM3", "f32-times-h100-s106.tsv"), ("NVIDIA H200", "f32-times-h200-s89.tsv")] {
            let samples = super::super::calibrate_f32::parse_times(&fixture_text(fixture), fixture).unwrap();
            let model = kernel_lab_bench::sgemm::cost::F32Model::shipped(gpu);
            let (_, t) = super::super::calibrate_f32::rank_samples(&model, &samples).unwrap();
            assert_eq!((t.n, t.untimed), (58, 0), "{fixture}: shapes ranked, picks not timed");
            assert!(t.within as f64 >= 0.90 * t.n as f64, "{gpu}: {}", t.line("family"));
            assert!(t.geo() >= 0.98 && t.lowest() >= 0.90, "{gpu}: {}", t.line("family"));
        }
    }

    /// And for the FP8 choice's costs: every costed step (per tensor and block scales) timed at the 36
    /// held-out few-tile corpus shapes of session 89 (`--sample 160 --seed 9393`), on an H200 there and on an
    /// H100 in session 106, each with the costs shipped (the H200's on both: the H100's own calibration ranked
    /// worse per tensor, 30 against 32 of 36). Within 5%: H200 33/35 per tensor, 33/35 block; H100 32/36 and
    /// 31/35. Floors: 85%, geometric mean 0.98 per tensor and 0.975 block, lowest 0.85 and 0.75 (the H100's
    /// block 128×8192×28672: f23 1.32× f3's time). Session 108 put f27n128 in the few-tile choice: the H100's
    /// fixture has its times from session 108's call 4 at 15 of these shapes (another set of processes on the same
    /// kind of card) and fw2's at the four shapes whose split `w1_splits`' model changed (calls 3 and 5); per tensor
    /// 32/36 there. It was never timed on an H200: its three picks among the
    /// H200's shapes stay untimed (and that fixture's fw2 times at 1×1024×2048, 2×4096×2048, 8×4096×2048 are at the
    /// old rule's two splits, where the model now takes none).
    #[test]
    fn shipped_fp8_costs_rank_timed_steps() {
        // Picks a fixture did not time: with f21's DRAM floor (session 112) f28 takes one more of session 89's H200 shapes
        // (128×8192×28672, where that fixture timed f21x3 at 83.4 µs; on an H100 f28 ran 0.89× f21x3's time).
        for (gpu, fixture, untimed) in [("NVIDIA H100 80GB HBM3", "fp8-times-h100-s106.tsv", 1), ("NVIDIA H200", "fp8-times-h200-s89.tsv", 5)] {
            let samples = super::super::calibrate_fp8::parse_times(&fixture_text(fixture), fixture).unwrap();
            let costs = kernel_lab_bench::steps::fp8::Fp8Costs::shipped(gpu);
            let (_, tally) = super::super::calibrate_fp8::rank_samples(&costs, &samples);
            for (scaling, geo, lowest) in [("per-tensor", 0.98, 0.85), ("block", 0.975, 0.75)] {
                let t = &tally[scaling];
                assert!(t.n >= 31 && t.untimed <= untimed, "{fixture} {scaling}: {}", t.line("step"));
                assert!(t.within as f64 >= 0.85 * t.n as f64, "{gpu} {scaling}: {}", t.line("step"));
                assert!(t.geo() >= geo && t.lowest() >= lowest, "{gpu} {scaling}: {}", t.line("step"));
            }
        }
    }
}

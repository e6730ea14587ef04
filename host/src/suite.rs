//! The suite `cargo run --release` runs: options, the reduce table, the self-tests, JSON output.
use std::fmt::Write as _;

use crate::{
    error::{Error, Result},
    gpu::{Gpu, driver_present},
    reduce::{self, CublasSum, ReducePlan, Step},
    registry::{Family, KERNELS},
    selftest,
    timing::{Stats, rotation_copies, time_gpu},
    verify,
};

/// Relative error every reduce step must meet against the f64 reference (uniform [0.5, 1.5) data).
pub const REDUCE_TOL: f64 = 1e-5;

/// Command-line options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Families to run.
    pub families: Vec<Family>,
    /// Reduce sizes (elements).
    pub sizes: Vec<usize>,
    /// Timed repetitions per measurement.
    pub reps: usize,
    /// Untimed warm-up runs per measurement.
    pub warmup: usize,
    /// Verify only, no timing.
    pub check: bool,
    /// Print the kernel registry and exit.
    pub list: bool,
    /// Write the results as JSON here.
    pub json: Option<String>,
    /// Random seed (fresh per run unless given).
    pub seed: u64,
    /// Whether `--sizes` was given (then `--check` checks only those sizes).
    pub sizes_given: bool,
    /// Square GEMM sizes.
    pub gemm_sizes: Vec<(usize, usize, usize)>,
    /// Whether `--gemm-sizes` was given (then `--check` checks only those).
    pub gemm_sizes_given: bool,
    /// Report directory (report.json, report.md, SVG plots).
    pub out: String,
    /// Profile under Nsight Compute and compare with the bank model instead of timing.
    pub ncu: bool,
    /// Run under compute-sanitizer (memcheck, racecheck, synccheck) instead of timing.
    pub sanitize: bool,
    /// Only these GEMM steps (labels such as `v8`, `h1`; the baseline always runs). `None`: all.
    pub steps: Option<Vec<String>>,
}

/// Sizes `--check` adds: not multiples of the block, tiny, and one odd large size.
pub const CHECK_SIZES: [usize; 9] = [1, 3, 255, 256, 257, 1000, 4097, 65_537 * 3, (1 << 22) + 5];

/// `--help` text.
pub const HELP: &str = "\
kernel-lab: pure-Rust CUDA kernels, verified and timed against cuBLAS and copy bandwidth

USAGE: cargo run --release -- [OPTIONS]

OPTIONS:
  --family NAMES   comma-separated families: reduce, selftest, bankcheck, sgemm, hgemm-warp, hgemm
                   (default: all)
  --sizes LIST     reduce sizes: numbers, 2^K or K/M suffixes (default: 2^20,2^24,2^28)
  --gemm-sizes L   GEMM shapes, N (square) or MxNxK (default: 1024,2048,4096,8192; --check adds ragged
                   shapes unless given)
  --steps LABELS   only these SGEMM/HGEMM steps, e.g. v9,h1,h6 (cuBLAS always runs; default: all)
  --reps N         timed repetitions per measurement, median reported (default: 50)
  --warmup N       untimed warm-up runs per measurement (default: 5)
  --quick          small sizes and few repetitions (a smoke run of a few seconds)
  --check          verify only, no timing (adds odd sizes unless --sizes is given)
  --list           list every registered kernel (family, step, target, registers, shared memory)
  --json PATH      also write all results as JSON to PATH
  --out DIR        report directory: report.json, report.md and SVG plots (default: target/kernel-lab-report)
  --ncu            profile each family's --check run under Nsight Compute (ncu on PATH) and show the
                   shared-memory wavefronts and bank conflicts beside the bank model's predictions
  --sanitize       run each family's --check under compute-sanitizer memcheck/racecheck/synccheck
  --seed S         random seed (default: fresh each run; printed)
  -h, --help       this text

SUBCOMMANDS:
  layout ...       bank maps, swizzle solver, bank-model checks (no GPU needed; `layout --help`)
  report --json FILE [--out DIR]   rebuild the report (tables + SVG plots) from a saved run's JSON
  ab --family sgemm|hgemm A B [--rounds R] [options]
                   two steps head to head: both verified, then timed interleaved in R rounds of
                   blocks (default 8; sizes default 4096,8192; --reps caps the total, default 400)

Without a GPU: --list and `layout` work, and `cargo test` runs the CPU-side tests (layouts, bank
model, host logic, PTX checks).
";

/// Parses `2^28`, `16M`, `1K`, `1000`.
pub fn parse_size(s: &str) -> Result<usize> {
    let bad = || Error::InvalidInput(format!("size `{s}`: expected a number, 2^K, or a number with K or M suffix"));
    let s = s.trim();
    let v = if let Some(k) = s.strip_prefix("2^") {
        let k: u32 = k.parse().map_err(|_| bad())?;
        1usize.checked_shl(k).filter(|_| k < 63).ok_or_else(bad)?
    } else if let Some(m) = s.strip_suffix(['M', 'm']) {
        m.parse::<usize>().map_err(|_| bad())?.checked_mul(1 << 20).ok_or_else(bad)?
    } else if let Some(k) = s.strip_suffix(['K', 'k']) {
        k.parse::<usize>().map_err(|_| bad())?.checked_mul(1 << 10).ok_or_else(bad)?
    } else {
        s.parse().map_err(|_| bad())?
    };
    if v == 0 {
        return Err(Error::InvalidInput(format!("size `{s}`: must be at least 1")));
    }
    Ok(v)
}

/// A GEMM shape: `N` (square, any `--sizes` notation) or `MxNxK`.
pub fn parse_gemm_shape(s: &str) -> Result<(usize, usize, usize)> {
    let dims: Vec<&str> = s.split(['x', 'X']).collect();
    match dims.as_slice() {
        [n] => parse_size(n).map(|n| (n, n, n)),
        [m, n, k] => Ok((parse_size(m)?, parse_size(n)?, parse_size(k)?)),
        _ => Err(Error::InvalidInput(format!("GEMM shape `{s}`: expected N (square) or MxNxK"))),
    }
}

impl Options {
    /// Whether `--steps` (if given) names this GEMM step.
    pub fn wants_step(&self, label: &str) -> bool {
        self.steps.as_ref().is_none_or(|l| l.iter().any(|x| x == label))
    }

    /// Parses arguments (without the program name). `Ok(None)` means `--help` was printed.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Option<Options>> {
        let mut o = Options { families: Family::ALL.to_vec(), sizes: vec![1 << 20, 1 << 24, 1 << 28], reps: 50,
                              warmup: 5, check: false, list: false, json: None, seed: verify::fresh_seed(),
                              sizes_given: false, gemm_sizes: [1024, 2048, 4096, 8192].map(|n| (n, n, n)).to_vec(),
                              gemm_sizes_given: false, out: "target/kernel-lab-report".into(),
                              ncu: false, sanitize: false, steps: None };
        let mut it = args.into_iter();
        while let Some(a) = it.next() {
            let mut value = |name: &str| it.next().ok_or_else(|| Error::InvalidInput(format!("{name} needs a value")));
            let number = |name: &str, v: String| v.parse::<usize>().map_err(|_| Error::InvalidInput(format!("{name} `{v}`: not a number")));
            match a.as_str() {
                "-h" | "--help" => {
                    print!("{HELP}");
                    return Ok(None);
                }
                "--family" => {
                    o.families = value("--family")?.split(',').map(|f| {
                        Family::ALL.into_iter().find(|x| x.name() == f.trim()).ok_or_else(|| Error::InvalidInput(format!(
                            "unknown family `{f}` (known: {})", Family::ALL.map(|x| x.name()).join(", "))))
                    }).collect::<Result<_>>()?;
                }
                "--sizes" => {
                    o.sizes = value("--sizes")?.split(',').map(parse_size).collect::<Result<_>>()?;
                    o.sizes_given = true;
                }
                "--gemm-sizes" => {
                    o.gemm_sizes = value("--gemm-sizes")?.split(',').map(parse_gemm_shape).collect::<Result<_>>()?;
                    o.gemm_sizes_given = true;
                }
                "--steps" => {
                    let known: Vec<&str> = crate::sgemm::Step::ALL.iter().map(|s| s.label())
                        .chain(crate::hgemm::Step::ALL.iter().map(|s| s.label())).collect();
                    let list: Vec<String> = value("--steps")?.split(',').map(|x| x.trim().to_string()).collect();
                    if let Some(bad) = list.iter().find(|l| !known.contains(&l.as_str())) {
                        return Err(Error::InvalidInput(format!("--steps: unknown step `{bad}` (SGEMM and HGEMM steps: {})", known.join(", "))));
                    }
                    o.steps = Some(list);
                }
                "--reps" => o.reps = number("--reps", value("--reps")?)?.max(1),
                "--warmup" => o.warmup = number("--warmup", value("--warmup")?)?,
                "--quick" => {
                    o.sizes = vec![1 << 20, 1 << 22];
                    o.gemm_sizes = vec![(512, 512, 512), (1024, 1024, 1024)];
                    o.reps = 10;
                    o.warmup = 2;
                }
                "--check" => o.check = true,
                "--list" => o.list = true,
                "--json" => o.json = Some(value("--json")?),
                "--out" => o.out = value("--out")?,
                "--ncu" => o.ncu = true,
                "--sanitize" => o.sanitize = true,
                "--seed" => o.seed = number("--seed", value("--seed")?)? as u64,
                other => return Err(Error::InvalidInput(format!("unknown option `{other}` (see --help)"))),
            }
        }
        for &n in &o.sizes {
            reduce::validate_n(n)?;
        }
        Ok(Some(o))
    }
}

/// One row of the reduce table.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ReduceRow {
    /// `v0` … `v6`, `cuBLAS`, `copy`.
    pub step: String,
    /// Kernel (or library call).
    pub kernel: String,
    /// Elements.
    pub n: usize,
    /// GPU time (absent with `--check`).
    pub time: Option<Stats>,
    /// Bytes the measurement counts per run.
    pub bytes: f64,
    /// GB/s from the median time.
    pub gbps: Option<f64>,
    /// GB/s over the copy's GB/s measured in the same run.
    pub pct_of_copy: Option<f64>,
    /// v0's median time over this row's.
    pub speedup_vs_v0: Option<f64>,
    /// |got − ref| / |ref| against the f64 reference, on uniform data.
    pub rel_err: Option<f64>,
    /// Whether the sum of small integers (exact in f32) came out exact.
    pub exact_int_sum: Option<bool>,
    /// Kernel launches per run.
    pub launches: usize,
    /// Registers per thread (driver).
    pub registers: Option<i32>,
    /// Local memory bytes per thread (driver; spills or stack).
    pub local_bytes: Option<i32>,
    /// What failed, if anything.
    pub error: Option<String>,
}

impl ReduceRow {
    fn new(step: &str, kernel: &str, n: usize, bytes: f64) -> Self {
        ReduceRow { step: step.into(), kernel: kernel.into(), n, time: None, bytes, gbps: None, pct_of_copy: None,
                    speedup_vs_v0: None, rel_err: None, exact_int_sum: None, launches: 1, registers: None,
                    local_bytes: None, error: None }
    }
    /// Whether the row failed verification or errored.
    pub fn failed(&self) -> bool {
        self.error.is_some() || self.exact_int_sum == Some(false) || self.rel_err.is_some_and(|e| !(e <= REDUCE_TOL))
    }
}

/// Inputs of one size: uniform data, small integers, their references.
struct Inputs {
    uniform: Vec<cudarc::driver::CudaSlice<f32>>,
    want: f64,
    ints: cudarc::driver::CudaSlice<f32>,
    ints_want: f64,
}

fn make_inputs(gpu: &Gpu, n: usize, seed: u64, rotate: bool) -> Result<Inputs> {
    let mut rng = verify::rng(seed ^ n as u64);
    let x = verify::uniform_f32(&mut rng, n);
    let want = verify::sum_f64(&x);
    let ints = verify::small_integers_f32(&mut rng, n);
    let ints_want = verify::sum_f64(&ints);
    let copies = if rotate { rotation_copies(4 * n, gpu.info.l2_bytes) } else { 1 };
    let first = gpu.upload(&x)?;
    let mut uniform = vec![];
    for _ in 1..copies {
        let mut c = gpu.zeros::<f32>(n)?;
        reduce::copy(gpu, &first, &mut c)?;
        uniform.push(c);
    }
    uniform.insert(0, first);
    Ok(Inputs { uniform, want, ints: gpu.upload(&ints)?, ints_want })
}

fn rel(got: f32, want: f64) -> f64 {
    ((got as f64) - want).abs() / want.abs()
}

/// Runs one reduce step at one size: verification on both inputs, then timing.
fn reduce_step(gpu: &Gpu, step: Step, inp: &Inputs, o: &Options, row: &mut ReduceRow) -> Result<()> {
    let n = inp.ints.len();
    let mut plan = ReducePlan::new(gpu, step, n)?;
    let res = plan.kernel().resources()?;
    (row.registers, row.local_bytes, row.launches) = (Some(res.registers), Some(res.local_bytes), plan.launches());
    plan.poison()?;
    plan.enqueue(&inp.uniform[0])?;
    let got = plan.result()?;
    verify::check_written(plan.kernel().name(), &[got])?;
    row.rel_err = Some(rel(got, inp.want));
    plan.poison()?;
    plan.enqueue(&inp.ints)?;
    let got_int = plan.result()?;
    row.exact_int_sum = Some(got_int as f64 == inp.ints_want);
    if !o.check {
        let k = inp.uniform.len();
        row.time = Some(time_gpu(gpu, o.warmup, o.reps, |i| plan.enqueue(&inp.uniform[i % k]))?);
    }
    Ok(())
}

/// The reduce family at every size: copy and cuBLAS baselines, then each step.
pub fn run_reduce(gpu: &Gpu, o: &Options, progress: &mut dyn FnMut(&str)) -> Result<Vec<ReduceRow>> {
    let mut rows = vec![];
    let mut sizes = o.sizes.clone();
    if o.check && !o.sizes_given {
        sizes.extend(CHECK_SIZES);
    }
    for n in sizes {
        progress(&format!("reduce n = {n}: generating inputs"));
        let inp = make_inputs(gpu, n, o.seed, !o.check)?;
        let bytes = 4.0 * n as f64;
        let mut copy_row = ReduceRow::new("copy", "cuMemcpyDtoD", n, 2.0 * bytes);
        if !o.check {
            let mut dst = gpu.zeros::<f32>(n)?;
            let k = inp.uniform.len();
            let t = time_gpu(gpu, o.warmup, o.reps, |i| reduce::copy(gpu, &inp.uniform[i % k], &mut dst))?;
            copy_row.gbps = Some(t.gbps(copy_row.bytes));
            copy_row.pct_of_copy = Some(1.0);
            copy_row.time = Some(t);
        }
        let copy_gbps = copy_row.gbps;
        rows.push(copy_row);
        progress(&format!("reduce n = {n}: cuBLAS"));
        let mut blas_row = ReduceRow::new("cuBLAS", "cublasSdot(x, 1)", n, bytes);
        match (|| -> Result<()> {
            let mut blas = CublasSum::new(gpu, n)?;
            blas.poison(gpu)?;
            blas.enqueue(gpu, &inp.uniform[0])?;
            blas_row.rel_err = Some(rel(blas.result(gpu)?, inp.want));
            if !o.check {
                let k = inp.uniform.len();
                blas_row.time = Some(time_gpu(gpu, o.warmup, o.reps, |i| blas.enqueue(gpu, &inp.uniform[i % k]))?);
            }
            Ok(())
        })() {
            Ok(()) => {}
            Err(e) => blas_row.error = Some(e.to_string()),
        }
        let blas_at = rows.len();
        rows.push(blas_row);
        let v0_at = rows.len();
        for step in Step::ALL {
            progress(&format!("reduce n = {n}: {}", step.label()));
            let mut row = ReduceRow::new(step.label(), step.kernel_name(), n, bytes);
            if let Err(e) = reduce_step(gpu, step, &inp, o, &mut row) {
                row.error = Some(e.to_string());
            }
            rows.push(row);
        }
        let v0_ms = rows[v0_at].time.as_ref().map(|t| t.median_ms);
        for row in rows[blas_at..].iter_mut() {
            if let Some(t) = &row.time {
                let g = t.gbps(row.bytes);
                row.gbps = Some(g);
                row.pct_of_copy = copy_gbps.map(|c| g / c);
                row.speedup_vs_v0 = v0_ms.map(|v| v / t.median_ms);
            }
        }
    }
    Ok(rows)
}

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "-".into())
}

/// The reduce table as text.
pub fn reduce_table(rows: &[ReduceRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{:<7} {:>11} {:>11} {:>9} {:>8} {:>8} {:>9} {:>5} {:>4} {:>5} {:>5}  {}",
                     "step", "N", "median us", "GB/s", "% copy", "x v0", "rel err", "exact", "regs", "local", "launch", "kernel");
    for r in rows {
        let _ = writeln!(s, "{:<7} {:>11} {:>11} {:>9} {:>8} {:>8} {:>9} {:>5} {:>4} {:>5} {:>5}  {}{}",
            r.step, r.n,
            opt(r.time.as_ref().map(|t| t.median_ms * 1e3), |v| format!("{v:.1}")),
            opt(r.gbps, |v| format!("{v:.1}")),
            opt(r.pct_of_copy, |v| format!("{:.1}%", 100.0 * v)),
            opt(r.speedup_vs_v0, |v| format!("{v:.2}")),
            opt(r.rel_err, |v| format!("{v:.1e}")),
            r.exact_int_sum.map(|b| if b { "yes" } else { "NO" }).unwrap_or("-"),
            r.registers.map(|v| v.to_string()).unwrap_or("-".into()),
            r.local_bytes.map(|v| v.to_string()).unwrap_or("-".into()),
            r.launches, r.kernel,
            match (&r.error, r.failed()) {
                (Some(e), _) => format!("  ERROR: {e}"),
                (None, true) => "  FAILED verification".into(),
                _ => String::new(),
            });
    }
    s
}

/// `--list`: every registered kernel; with a GPU, also its registers, local and static shared memory.
pub fn list(gpu: Option<&Gpu>) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{:<24} {:<9} {:<5} {:<7} {:>6} {:>9} {:>5} {:>6} {:>7}  {}",
                     "kernel", "family", "step", "target", "block", "dyn smem", "regs", "local", "st smem", "what it does");
    for k in KERNELS {
        let res = gpu.and_then(|g| g.kernel(k.name).ok()).and_then(|k| k.resources().ok());
        let f = |v: Option<i32>| v.map(|v| v.to_string()).unwrap_or_else(|| "-".into());
        let _ = writeln!(s, "{:<24} {:<9} {:<5} {:<7} {:>6} {:>9} {:>5} {:>6} {:>7}  {}",
            k.name, k.family.name(), k.step, k.target.name(), k.block_threads, k.dyn_smem_bytes,
            f(res.map(|r| r.registers)), f(res.map(|r| r.local_bytes)), f(res.map(|r| r.static_smem_bytes)), k.about);
    }
    if gpu.is_none() {
        let _ = writeln!(s, "(no GPU: registers and memory columns need the driver)");
    }
    s
}

/// The git commit the binary was built from (set by build.rs), or "unknown".
pub fn commit() -> &'static str {
    option_env!("KERNEL_LAB_COMMIT").unwrap_or("unknown")
}

/// UTC now as `YYYY-MM-DDTHH:MM:SSZ` (no date crate needed).
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// `kernel-lab report --json FILE [--out DIR]`: the report of a saved run, without a GPU.
/// What `kernel-lab ab` parses: the family, the two step labels, the rounds, and the suite's options.
#[derive(Debug)]
pub struct AbArgs {
    /// `sgemm` or `hgemm`.
    pub family: Family,
    /// Step labels A and B.
    pub steps: (String, String),
    /// Rounds of blocks.
    pub rounds: usize,
    /// Sizes, reps, warm-up, seed, JSON path.
    pub options: Options,
}

/// `ab`'s usage line.
pub const AB_USAGE: &str = "usage: kernel-lab ab --family sgemm|hgemm A B [--rounds R] [--gemm-sizes L] [--reps N] [--warmup N] [--seed S] [--json PATH]";

/// Parses `ab`'s arguments (after `ab`).
pub fn parse_ab(args: &[String]) -> Result<AbArgs> {
    const USAGE: &str = AB_USAGE;
    let (mut labels, mut rest, mut rounds) = (vec![], vec![], 8usize);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--rounds" {
            let v = it.next().ok_or_else(|| Error::InvalidInput(format!("--rounds needs a value; {USAGE}")))?;
            rounds = v.parse().ok().filter(|&r| r >= 1).ok_or_else(|| Error::InvalidInput(format!("--rounds `{v}`: expected a number ≥ 1")))?;
        } else if ["--check", "--quick", "--list", "--ncu", "--sanitize", "--steps", "--sizes"].contains(&a.as_str()) {
            return Err(Error::InvalidInput(format!("ab does not take {a} (it times the two steps it is given); {USAGE}")));
        } else if a.starts_with("--") {
            rest.push(a.clone());
            rest.extend(it.next().cloned());
        } else {
            labels.push(a.clone());
        }
    }
    let [x, y] = labels.as_slice() else {
        return Err(Error::InvalidInput(format!("ab needs exactly two step labels (got {}); {USAGE}", labels.len())));
    };
    let reps_given = rest.iter().any(|a| a == "--reps");
    let sizes_given = rest.iter().any(|a| a == "--gemm-sizes");
    let mut o = Options::parse(rest.iter().cloned().chain(["--steps".to_string(), format!("{x},{y}")]))?
        .ok_or_else(|| Error::InvalidInput(USAGE.into()))?;
    let family = match o.families.as_slice() {
        [f @ (Family::Sgemm | Family::Hgemm)] => *f,
        _ => return Err(Error::InvalidInput(format!("ab needs --family sgemm or --family hgemm; {USAGE}"))),
    };
    let known = |l: &str| match family {
        Family::Sgemm => crate::sgemm::Step::ALL.iter().any(|s| s.label() == l),
        _ => crate::hgemm::Step::ALL.iter().any(|s| s.label() == l),
    };
    if let Some(bad) = [x, y].into_iter().find(|l| !known(l)) {
        return Err(Error::InvalidInput(format!("ab: `{bad}` is not a {} step", family.name())));
    }
    if !reps_given {
        o.reps = 400;
    }
    if !sizes_given {
        o.gemm_sizes = vec![(4096, 4096, 4096), (8192, 8192, 8192)];
    }
    Ok(AbArgs { family, steps: (x.clone(), y.clone()), rounds, options: o })
}

fn ab_main(args: &[String]) -> i32 {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{AB_USAGE}\nBoth steps are verified on random inputs, then timed interleaved in R rounds of blocks (default 8; sizes default 4096,8192; --reps caps the total, default 400).");
        return 0;
    }
    let ab = match parse_ab(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let gpu = match Gpu::new(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}\nab times kernels on a GPU; without one, `cargo test` and `kernel-lab layout` still work.");
            return 2;
        }
    };
    let o = &ab.options;
    let i = &gpu.info;
    println!("GPU: {} (sm_{}{}, {} SMs), commit {}, {}, seed {}", i.name, i.compute_capability.0, i.compute_capability.1, i.sms, commit(), utc_now(), o.seed);
    println!("A/B ({}): A = {}, B = {}, {} rounds", ab.family.name(), ab.steps.0, ab.steps.1, ab.rounds);
    let find_h = |l: &str| crate::hgemm::Step::ALL.into_iter().find(|s| s.label() == l);
    let find_s = |l: &str| crate::sgemm::Step::ALL.into_iter().find(|s| s.label() == l);
    let rows = match ab.family {
        Family::Hgemm => match (find_h(&ab.steps.0), find_h(&ab.steps.1)) {
            (Some(a), Some(b)) => crate::gemm_suite::ab::<crate::hgemm_suite::Hgemm>(&gpu, o, a, b, ab.rounds),
            _ => Err(Error::InvalidInput("unknown hgemm step".into())),
        },
        _ => match (find_s(&ab.steps.0), find_s(&ab.steps.1)) {
            (Some(a), Some(b)) => crate::gemm_suite::ab::<crate::sgemm_suite::Sgemm>(&gpu, o, a, b, ab.rounds),
            _ => Err(Error::InvalidInput("unknown sgemm step".into())),
        },
    };
    match rows {
        Ok(rows) => {
            print!("{}", crate::gemm_suite::ab_table(&rows));
            if let Some(path) = &o.json {
                let v = serde_json::json!({"gpu": i, "commit": commit(), "date": utc_now(), "seed": o.seed, "family": ab.family.name(),
                                           "rounds": ab.rounds, "ab": rows});
                if let Err(e) = std::fs::write(path, serde_json::to_string_pretty(&v).unwrap_or_default()) {
                    eprintln!("error: cannot write {path}: {e}");
                    return 2;
                }
            }
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

fn report_main(args: &[String]) -> i32 {
    let (mut json, mut out) = (None, "target/kernel-lab-report".to_string());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.next()) {
            ("--json", Some(v)) => json = Some(v.clone()),
            ("--out", Some(v)) => out = v.clone(),
            _ => {
                eprintln!("usage: kernel-lab report --json FILE [--out DIR]");
                return 2;
            }
        }
    }
    let Some(path) = json else {
        eprintln!("usage: kernel-lab report --json FILE [--out DIR]");
        return 2;
    };
    let value = match std::fs::read_to_string(&path).map_err(|e| e.to_string()).and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string())) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: cannot read {path} as JSON: {e}");
            return 2;
        }
    };
    match crate::report::write(&value, std::path::Path::new(&out)) {
        Ok(files) => {
            for f in files {
                println!("wrote {}", f.display());
            }
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

/// Runs the suite; returns the process exit code (0 all good, 1 a check failed, 2 no GPU or bad usage).
pub fn main_with_args(args: impl IntoIterator<Item = String>) -> i32 {
    let args: Vec<String> = args.into_iter().collect();
    if args.first().map(|a| a.as_str()) == Some("layout") {
        return crate::layoutcli::main(args[1..].to_vec());
    }
    if args.first().map(|a| a.as_str()) == Some("report") {
        return report_main(&args[1..]);
    }
    if args.first().map(|a| a.as_str()) == Some("ab") {
        return ab_main(&args[1..]);
    }
    let o = match Options::parse(args) {
        Ok(Some(o)) => o,
        Ok(None) => return 0,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let gpu = match Gpu::new(0) {
        Ok(g) => Some(g),
        Err(e) => {
            if !o.list {
                eprintln!("error: {e}");
                eprintln!("This machine cannot run the kernels (driver present: {}). What works without a GPU:", driver_present());
                eprintln!("  cargo run --release -- --list   every registered kernel and its family, step and target");
                eprintln!("  cargo run --release -- layout   bank maps (terminal/SVG), swizzle solver, predicted conflicts");
                eprintln!("  cargo test                      layouts, host logic, PTX contents (+ ptxas checks if ptxas is on PATH)");
                return 2;
            }
            None
        }
    };
    if o.list {
        print!("{}", list(gpu.as_ref()));
        return 0;
    }
    let gpu = gpu.expect("checked above");
    if o.ncu || o.sanitize {
        drop(gpu); // the children open the GPU themselves
        let out = std::path::Path::new(&o.out);
        let mut code = 0;
        if o.ncu {
            match crate::profile::ncu(&o, out) {
                Ok(md) => println!("{md}\n(written to {})", out.join("ncu.md").display()),
                Err(e) => { eprintln!("error: {e}"); code = 2; }
            }
        }
        if o.sanitize {
            match crate::profile::sanitize(&o, out) {
                Ok((md, clean)) => { println!("{md}\n(logs in {})", out.display()); if !clean { code = code.max(1); } }
                Err(e) => { eprintln!("error: {e}"); code = 2; }
            }
        }
        return code;
    }
    let i = &gpu.info;
    println!("GPU: {} (sm_{}{}, {} SMs, L2 {} MiB, driver {}.{}), commit {}, {}, seed {}",
             i.name, i.compute_capability.0, i.compute_capability.1, i.sms, i.l2_bytes >> 20,
             i.driver_version / 1000, i.driver_version % 1000 / 10, commit(), utc_now(), o.seed);
    let mut failed = false;
    let mut json = serde_json::json!({
        "gpu": i, "commit": commit(), "date": utc_now(), "seed": o.seed, "reps": o.reps, "warmup": o.warmup,
        "check_only": o.check,
    });
    // Progress: one indicatif bar per family on stderr (hidden when stderr is not a terminal, e.g. in CI
    // logs); a family's table is printed only after its bar is cleared, so the two never interleave.
    let bar = |family: &str, len: usize| {
        let pb = indicatif::ProgressBar::with_draw_target(Some(len as u64), indicatif::ProgressDrawTarget::stderr());
        if let Ok(style) = indicatif::ProgressStyle::with_template("{prefix:>6} [{bar:30}] {pos}/{len} {elapsed:>4} {wide_msg}") {
            pb.set_style(style.progress_chars("=> "));
        }
        pb.set_prefix(family.to_string());
        pb
    };
    let progress_to = |pb: &indicatif::ProgressBar| {
        let pb = pb.clone();
        move |msg: &str| {
            pb.set_message(msg.to_string());
            pb.inc(1);
        }
    };
    let gemm_units = |steps: usize, check_shapes: usize| {
        (o.gemm_sizes.len() + if o.check && !o.gemm_sizes_given { check_shapes } else { 0 }) * (steps + 2)
    };
    if o.families.contains(&Family::Selftest) {
        let res = selftest::run_all(&gpu, o.seed);
        println!("\n== selftest: device primitives against CPU models ==");
        for r in &res {
            let status = match (&r.failure, r.skipped) {
                (None, _) => "ok".to_string(),
                (Some(why), true) => format!("skipped: {why}"),
                (Some(why), false) => {
                    failed = true;
                    format!("FAILED: {why}")
                }
            };
            println!("  {:<24} {status}", r.kernel);
        }
        json["selftest"] = serde_json::to_value(&res).unwrap_or_default();
    }
    if o.families.contains(&Family::Bankcheck) {
        let ps = crate::bankcheck::patterns();
        println!("\n== bankcheck: replay of {} shared-memory access patterns (profile with ncu; see `layout bankcheck`) ==", ps.len());
        match crate::bankcheck::run(&gpu, &ps) {
            Ok(ran) => println!("  launched {}, skipped {} (stmatrix needs sm_90)", ran.iter().filter(|&&r| r).count(), ran.iter().filter(|&&r| !r).count()),
            Err(e) => {
                failed = true;
                println!("  FAILED: {e}");
            }
        }
    }
    if o.families.contains(&Family::Reduce) {
        let pb = bar("reduce", o.sizes.len() * (crate::reduce::Step::ALL.len() + 2));
        let result = run_reduce(&gpu, &o, &mut progress_to(&pb));
        pb.finish_and_clear();
        match result {
            Ok(rows) => {
                println!("\n== reduce: sum of N f32 (seed 003); GB/s counts 4N bytes (copy: 8N), tolerance {REDUCE_TOL:.0e} ==");
                print!("{}", reduce_table(&rows));
                failed |= rows.iter().any(|r| r.failed() && r.step != "cuBLAS");
                json["reduce"] = serde_json::to_value(&rows).unwrap_or_default();
            }
            Err(e) => {
                eprintln!("\nerror: reduce family: {e}");
                failed = true;
            }
        }
    }
    if o.families.contains(&Family::HgemmWarp) {
        let rows = crate::hgemm_warp::run(&gpu, o.seed);
        println!("\n== hgemm-warp: seed 001's 16x16x16 ladder, one warp, f16 accumulate (predicted shared-memory conflicts; measure with ncu) ==");
        println!("{:<5} {:<24} {:>9} {:>23}  {}", "step", "kernel", "rel err", "pred ld wf/confl, st", "status");
        for r in &rows {
            let pred = r.predicted.map(|(a, b, c, d)| format!("{a}/{b}, {c}/{d}")).unwrap_or_else(|| "-".into());
            let status = match (&r.error, r.skipped) {
                (None, _) => "ok".to_string(),
                (Some(e), true) => format!("skipped: {e}"),
                (Some(e), false) => { failed = true; format!("FAILED: {e}") }
            };
            println!("{:<5} {:<24} {:>9} {:>23}  {status}", r.step, r.kernel, r.rel_err.map(|e| format!("{e:.1e}")).unwrap_or("-".into()), pred);
        }
        json["hgemm_warp"] = serde_json::to_value(&rows).unwrap_or_default();
    }
    if o.families.contains(&Family::Hgemm) {
        use crate::gemm_suite::GemmFamily;
        let pb = bar("hgemm", gemm_units(crate::hgemm_suite::Hgemm::steps().iter().filter(|s| o.wants_step(s.label())).count(), crate::hgemm_suite::Hgemm::CHECK_SHAPES.len()));
        let result = crate::gemm_suite::run::<crate::hgemm_suite::Hgemm>(&gpu, &o, "hgemm", &mut progress_to(&pb));
        pb.finish_and_clear();
        match result {
            Ok(rows) => {
                println!("\n== hgemm: C = A·B, f16 in/out, f32 accumulate: v1–v10 mma.sync (seeds 000/001), h1–h6 TMA + wgmma (sm_90a); cuBLAS GemmEx f16/32F in the same run ==");
                print!("{}", crate::gemm_suite::table(&rows));
                failed |= rows.iter().any(|r| r.failed());
                json["hgemm"] = serde_json::to_value(&rows).unwrap_or_default();
            }
            Err(e) => {
                eprintln!("\nerror: hgemm family: {e}");
                failed = true;
            }
        }
        // The f16-accumulate variant, against cuBLAS in 16F compute (its own baseline and tolerance).
        if crate::hgemm_suite::HgemmF16Acc::steps().iter().any(|s| o.wants_step(s.label())) {
            let pb = bar("hgemm16", gemm_units(1, crate::hgemm_suite::HgemmF16Acc::CHECK_SHAPES.len()));
            let result = crate::gemm_suite::run::<crate::hgemm_suite::HgemmF16Acc>(&gpu, &o, "hgemm16", &mut progress_to(&pb));
            pb.finish_and_clear();
            match result {
                Ok(rows) => {
                    println!("\n== hgemm, f16 accumulation: v9h against cuBLAS GemmEx f16/16F in the same run; tolerance 2e-3 + 2^-10·sqrt(K/16) ==");
                    print!("{}", crate::gemm_suite::table(&rows));
                    failed |= rows.iter().any(|r| r.failed());
                    json["hgemm_f16acc"] = serde_json::to_value(&rows).unwrap_or_default();
                }
                Err(e) => {
                    eprintln!("\nerror: hgemm f16-accumulate family: {e}");
                    failed = true;
                }
            }
        }
    }
    if o.families.contains(&Family::Sgemm) {
        use crate::gemm_suite::GemmFamily;
        let pb = bar("sgemm", gemm_units(crate::sgemm::Step::ALL.iter().filter(|s| o.wants_step(s.label())).count(), crate::sgemm_suite::Sgemm::CHECK_SHAPES.len()));
        let result = crate::gemm_suite::run::<crate::sgemm_suite::Sgemm>(&gpu, &o, "sgemm", &mut progress_to(&pb));
        pb.finish_and_clear();
        match result {
            Ok(rows) => {
                println!("\n== sgemm: C = A·B, row-major f32 on CUDA cores (seed 004); cuBLAS SGEMM without TF32 in the same run ==");
                print!("{}", crate::gemm_suite::table(&rows));
                failed |= rows.iter().any(|r| r.failed());
                json["sgemm"] = serde_json::to_value(&rows).unwrap_or_default();
            }
            Err(e) => {
                eprintln!("\nerror: sgemm family: {e}");
                failed = true;
            }
        }
    }
    match crate::report::write(&json, std::path::Path::new(&o.out)) {
        Ok(files) => println!("\nreport: {} ({} files)", std::path::Path::new(&o.out).join("report.md").display(), files.len()),
        Err(e) => {
            eprintln!("error: writing the report: {e}");
            failed = true;
        }
    }
    if let Some(path) = &o.json {
        match std::fs::write(path, serde_json::to_string_pretty(&json).unwrap_or_default()) {
            Ok(()) => println!("\nwrote {path}"),
            Err(e) => {
                eprintln!("error: cannot write {path}: {e}");
                failed = true;
            }
        }
    }
    if failed { 1 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(a: &[&str]) -> Result<Option<Options>> {
        Options::parse(a.iter().map(|s| s.to_string()))
    }

    #[test]
    fn sizes_parse_in_every_notation() {
        assert_eq!(parse_size("2^28").unwrap(), 1 << 28);
        assert_eq!(parse_size("16M").unwrap(), 16 << 20);
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("1000").unwrap(), 1000);
        for bad in ["0", "x", "2^", "2^99", "-1", "1.5M"] {
            assert!(parse_size(bad).is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn options_parse_and_reject_clearly() {
        let o = parse(&["--family", "reduce", "--sizes", "1K,2^20", "--reps", "7", "--seed", "5"]).unwrap().unwrap();
        assert_eq!(o.families, vec![Family::Reduce]);
        assert_eq!((o.sizes.clone(), o.reps, o.seed), (vec![1024, 1 << 20], 7, 5));
        assert!(parse(&["--family", "nope"]).unwrap_err().to_string().contains("unknown family `nope`"));
        let o = parse(&["--gemm-sizes", "1000,4096x2048x64"]).unwrap().unwrap();
        assert_eq!(o.gemm_sizes, vec![(1000, 1000, 1000), (4096, 2048, 64)]);
        assert!(parse(&["--gemm-sizes", "4x4"]).unwrap_err().to_string().contains("MxNxK"));
        let ab = |a: &[&str]| parse_ab(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let x = ab(&["--family", "hgemm", "v3", "v4", "--rounds", "6"]).unwrap();
        assert_eq!((x.steps.0.as_str(), x.steps.1.as_str(), x.rounds, x.options.reps, x.options.gemm_sizes.len()), ("v3", "v4", 6, 400, 2));
        assert!(ab(&["--family", "hgemm", "v3"]).unwrap_err().to_string().contains("exactly two step labels"));
        assert!(ab(&["v3", "v4"]).unwrap_err().to_string().contains("--family sgemm or --family hgemm"));
        assert!(ab(&["--family", "sgemm", "v9", "h1"]).unwrap_err().to_string().contains("not a sgemm step"));
        assert!(ab(&["--family", "hgemm", "v3", "v4", "--rounds", "0"]).unwrap_err().to_string().contains("--rounds"));
        assert!(ab(&["--family", "hgemm", "--check", "v3", "v4"]).unwrap_err().to_string().contains("does not take --check"));
        let o = parse(&["--steps", "v9,h1"]).unwrap().unwrap();
        assert_eq!(o.steps, Some(vec!["v9".to_string(), "h1".to_string()]));
        assert!(parse(&["--steps", "v9,h99"]).unwrap_err().to_string().contains("unknown step `h99`"));
        assert!(parse(&["--bogus"]).unwrap_err().to_string().contains("--bogus"));
        assert!(parse(&["--reps"]).unwrap_err().to_string().contains("needs a value"));
        assert!(parse(&["--sizes", "2^32"]).unwrap_err().to_string().contains("exceeds"));
    }

    #[test]
    fn rows_fail_on_error_inexact_or_large_error() {
        let mut r = ReduceRow::new("v0", "k", 1, 4.0);
        assert!(!r.failed());
        r.rel_err = Some(2e-5);
        assert!(r.failed());
        r.rel_err = Some(f64::NAN);
        assert!(r.failed());
        r.rel_err = Some(1e-7);
        r.exact_int_sum = Some(false);
        assert!(r.failed());
    }

    #[test]
    fn utc_now_is_iso8601() {
        let s = utc_now();
        assert_eq!(s.len(), 20);
        assert!(s.starts_with("20") && s.ends_with('Z') && &s[10..11] == "T");
    }

    #[test]
    fn list_names_every_kernel_without_a_gpu() {
        let s = list(None);
        for k in KERNELS {
            assert!(s.contains(k.name));
        }
    }
}

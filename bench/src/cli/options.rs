//! The suite's command line: options, `--help`, and the size notations.
use kernel_lab_bench::{
    Error, Result,
    families::{
        gemm::{GemmFamily, GemmRun, Shape},
        reduce::{self, ReduceRun},
    },
    runtime::verify,
    steps::{self, Family, KernelInfo},
};

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
    /// The attention family times each fused step alone (`--attn-solo`), not interleaved with the unfused path.
    pub attn_solo: bool,
    /// With `--attn-solo`: milliseconds the GPU is left idle before each fused step's timing (`--attn-idle-ms`).
    pub attn_idle_ms: u64,
    /// Print every kernel's descriptor and exit.
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
    /// Only these steps (`--steps hgemm:v9,h6`; the baselines always run). `None`: all.
    pub steps: Option<Vec<&'static KernelInfo>>,
    /// The `gemm` family's forced configuration for f16/bf16 (`--config h6`); `None`: chosen per shape.
    pub config: Option<&'static kernel_lab_bench::steps::hgemm::Step>,
    /// The `gemm` family's forced SGEMM step for f32 (`--dtype f32 --config v12`); `None`: chosen.
    pub config_f32: Option<&'static kernel_lab_bench::steps::sgemm::Step>,
    /// The `gemm` family's element types (`--dtype f16,bf16,f32`; default all three, or the `--config`
    /// step's).
    pub dtypes: Vec<kernel_lab_bench::steps::gemm::Elem>,
    /// Whether `--dtype` was given (the attention family times f16 alone by default).
    pub dtypes_given: bool,
    /// The attention family's shapes `(batch, heads, len, head_dim)` (`--attn-sizes`); `None`: its sweep.
    pub attn_sizes: Option<Vec<(usize, usize, usize, usize)>>,
    /// The `gemm` family takes each shape's configuration from this autotune cache, tuning the shapes
    /// it lacks, and the `fp8` family reports each shape's tuned step (`--autotune`:
    /// `kernel_lab_bench::tune::default_path`; `--tune-cache PATH`); `None`: the rules.
    pub tune_cache: Option<std::path::PathBuf>,
    /// The `fp8` family times only the library's step per shape and scaling (`--entry`; what
    /// `gemm_fp8` runs), and sums each scaling up against its cuBLASLt baselines.
    pub fp8_entry: bool,
    /// No option chose what to run (`cargo run --release` as it is): the headline — each family's
    /// library choice against its baseline on default shapes — then each ladder's main path at one
    /// size ([`crate::cli::headline`]). `--full` or any selecting option runs the tables instead.
    pub headline: bool,
}

/// `--help` text.
pub const HELP: &str = "\
kernel-lab: pure-Rust CUDA kernels, verified and timed against cuBLAS and copy bandwidth

USAGE: cargo run --release -- [OPTIONS]

With no option: the headline (each family's library choice against its baseline on model shapes:
geometric mean, lowest, how many under 90%), then each ladder's main path at one size (~80 s on an H200).

OPTIONS:
  --full           every step of every family at every size (the full tables; tens of minutes)
  --family NAMES   comma-separated families: reduce, selftest, bankcheck, sgemm, hgemm-warp, hgemm,
                   gemm (the library's entry point on a shape sweep), fp8 (e4m3 GEMM, sm_90a, against
                   cuBLASLt FP8; its own sweep unless --gemm-sizes), attention (forward: FlashAttention-2
                   against the unfused path) (default: all)
  --attn-sizes L   attention shapes BxHxLxD, each run causal and not (default: 4x16x4096x64,
                   4x16x4096x128, 1x16x16384x64, 1x16x16384x128; head dims 64 and 128)
  --attn-solo      time each fused attention step alone (--warmup runs, then --reps or 1 s, as
                   torch's peer script times SDPA), not interleaved with the unfused path: no
                   power-hungry neighbour before each block (the column × unfused stays empty)
  --attn-idle-ms N with --attn-solo: leave the GPU idle N ms (at most 60000) before each fused step's
                   timing, so that a short one (--reps 20) is a burst from idle, as torch's peer script
                   times SDPA with --idle-ms
  --sizes LIST     reduce sizes: numbers, 2^K or K/M suffixes (default: 2^20,2^24,2^28)
  --gemm-sizes L   GEMM shapes, N (square) or MxNxK (default: 1024,2048,4096,8192; the gemm family:
                   its sweep of decode, prefill, projection, unaligned and square shapes; --check adds
                   ragged shapes unless given)
  --shapes-file F  GEMM shapes from F, one MxNxK[<TAB>model<TAB>layer<TAB>tp] a line, as
                   ../shared/shapes/shapes.py gemm writes them (the gemm and fp8 families)
  --sample N       N shapes of --shapes-file (default: the embedded corpus, shapes.py gemm's 1,785
                   shapes of published models), drawn by --seed (give it to repeat a sample)
  --config STEP    the gemm family runs this step instead of its choice per shape: an hgemm step for
                   f16/bf16 (h6, v10, d2, h6-bf16, …), an sgemm step for f32 (v11, v12, v13, …);
                   without --dtype a label both ladders have (v2-v10) means the hgemm step;
                   shapes it cannot run say why
  --autotune       the gemm family takes each shape's configuration from the autotune cache
                   ($KERNEL_LAB_TUNE_CACHE, else $XDG_CACHE_HOME or ~/.cache, kernel-lab/gemm-tune.json), first timing
                   every candidate on this GPU (verified, interleaved rounds) for shapes it lacks;
                   the row's note lists what was measured; the fp8 family adds each shape's tuned
                   step per scaling after its table. Not with --config
  --tune-cache P   --autotune with the cache file P
  --entry          the fp8 family times only the library's step per shape and scaling (what gemm_fp8
                   runs) and sums each scaling up against its cuBLASLt baselines (without --family:
                   the fp8 family alone)
  --dtype LIST     the gemm family's element types: f16, bf16, f32 (default: all three; with --config,
                   its type)
  --steps LABELS   only these reduce/SGEMM/HGEMM/FP8/attention steps, as family:label (hgemm:v9,sgemm:v11,
                   attention:a15-d128) or a bare label that names one step of the --family list (h6);
                   cuBLAS (attention: the unfused path) always runs
  --reps N         timed repetitions per measurement, median reported (default: 50)
  --warmup N       untimed warm-up runs per measurement (default: 5)
  --quick          small sizes and few repetitions (a smoke run: 2.4 min with every family on an H100, session 29)
  --check          verify only, no timing (adds odd sizes unless --sizes is given)
  --list           list every registered kernel (family, step, target, registers, shared memory)
  --json PATH      also write all results as JSON to PATH
  --out DIR        report directory: report.json, report.md and SVG plots (default: target/kernel-lab-report)
  --ncu            profile each family's --check run under Nsight Compute (ncu on PATH) and show the
                   shared-memory wavefronts and bank conflicts beside the bank model's predictions
                   (progress on stderr: each family's run, each kernel profiled)
  --sanitize       run each family's --check under compute-sanitizer memcheck/racecheck/synccheck
                   (one run per tool and family; progress and each run's verdict on stderr)
  --seed S         random seed (default: fresh each run; printed)
  -h, --help       this text

SUBCOMMANDS:
  layout ...       bank maps, swizzle solver, bank-model checks (no GPU needed; `layout --help`)
  report --json FILE [--out DIR]   rebuild the report (tables + SVG plots) from a saved run's JSON
  ab --family sgemm|hgemm|fp8|reduce|attention A B [--rounds R] [options]
                   two steps head to head: both verified, then timed interleaved in R rounds of
                   blocks (default 8; sizes default 4096,8192, attention its sweep's shapes of the
                   steps' head dim; --reps caps the total, default 400)
  calibrate [--dtype f16|f32|fp8]   measure the GEMM cost models' constants on this GPU (seconds), kept
                   where the entry points find them (`calibrate --help`)
  rank --tune-cache FILE [--cost FILE]   how often the cost model's pick is within 5% of the fastest
                   configuration an autotune cache timed (no GPU needed; `--f32-times FILE` /
                   `--fp8-times FILE`: the f32 model / the FP8 choice against timings of their steps)
  tuned [--tune-cache PATH]   the autotune cache's entries: per GPU, type and shape the tuned step,
                   the rule's and how much faster the tuned one ran (no GPU needed)
  decode [--shapes BxHxKxLxD,..]   decode attention over a KV cache against a device copy (`decode --help`)
  prefill [--shapes BxHxKxLxD,..] [--varlen N:LO-HI:SEED]   prefill attention over packed sequences against
                   the fixed-length kernel, and varlen against equal lengths (`prefill --help`)
  backward [--shapes BxHxKxLxD,..]   attention backward (dQ, dK, dV) against the forward (`backward --help`)
  w8 [--shapes MxNxK,..]   FP8 weights (step w1) against the 16-bit GEMM on the same weights (`w8 --help`)

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

/// An attention shape `BxHxLxD` (batch, heads, sequence length, head dim).
pub fn parse_attn_shape(s: &str) -> Result<(usize, usize, usize, usize)> {
    let parts: Vec<&str> = s.trim().split('x').collect();
    let num = |p: &str| p.trim().parse::<usize>().map_err(|_| Error::InvalidInput(format!("--attn-sizes: `{s}` is not BxHxLxD (batch, heads, length, head dim)")));
    match parts.as_slice() {
        [b, h, l, d] => Ok((num(b)?, num(h)?, num(l)?, num(d)?)),
        _ => Err(Error::InvalidInput(format!("--attn-sizes: `{s}` is not BxHxLxD (batch, heads, length, head dim)"))),
    }
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
    /// Whether `--steps` (if given) names the kernel `name`.
    pub fn wants(&self, name: &str) -> bool {
        self.steps.as_ref().is_none_or(|l| l.iter().any(|k| k.name == name))
    }

    /// The kernels `--steps` names (PTX names), for the library's run configs; `None`: all.
    fn only(&self) -> Option<Vec<&'static str>> {
        self.steps.as_ref().map(|v| v.iter().map(|k| k.name).collect())
    }

    /// The GEMM shapes of this run for family `F`: `--gemm-sizes`, plus `F`'s ragged shapes under
    /// `--check` unless sizes were given; and the rest of the options as the library's [`GemmRun`].
    pub fn gemm_run<F: GemmFamily>(&self) -> Result<GemmRun> {
        let mut shapes: Vec<Shape> = self.gemm_sizes.iter().map(|&(m, n, k)| Shape::new(m, n, k)).collect::<Result<_>>()?;
        if self.check && !self.gemm_sizes_given {
            for &(m, n, k) in F::CHECK_SHAPES {
                shapes.push(Shape::new(m, n, k)?);
            }
        }
        Ok(GemmRun { shapes, reps: self.reps, warmup: self.warmup, check: self.check, seed: self.seed, only: self.only(), entry: false })
    }

    /// The `gemm` family's shapes: `--gemm-sizes` if given, else its sweep (plus its check shapes under
    /// `--check`).
    pub fn gemm_entry_run(&self, elem: kernel_lab_bench::steps::gemm::Elem) -> Result<GemmRun> {
        use kernel_lab_bench::families::gemm_entry::{CHECK_SHAPES, SWEEP, SWEEP_F32};
        let sweep = if elem == kernel_lab_bench::steps::gemm::Elem::F32 { SWEEP_F32 } else { SWEEP };
        let mut dims = if self.gemm_sizes_given { self.gemm_sizes.clone() } else { sweep.to_vec() };
        if self.check && !self.gemm_sizes_given {
            dims.extend_from_slice(CHECK_SHAPES);
        }
        let shapes = dims.iter().map(|&(m, n, k)| Shape::new(m, n, k)).collect::<Result<_>>()?;
        Ok(GemmRun { shapes, reps: self.reps, warmup: self.warmup, check: self.check, seed: self.seed, only: None, entry: false })
    }

    /// The `fp8` family's shapes: `--gemm-sizes` if given, else its sweep (plus its check shapes under
    /// `--check`).
    pub fn fp8_run(&self) -> Result<GemmRun> {
        use kernel_lab_bench::families::fp8::{CHECK_SHAPES, SWEEP};
        let mut dims = if self.gemm_sizes_given { self.gemm_sizes.clone() } else { SWEEP.to_vec() };
        if self.check && !self.gemm_sizes_given {
            dims.extend_from_slice(CHECK_SHAPES);
        }
        let shapes = dims.iter().map(|&(m, n, k)| Shape::new(m, n, k)).collect::<Result<_>>()?;
        Ok(GemmRun { shapes, reps: self.reps, warmup: self.warmup, check: self.check, seed: self.seed, only: self.only(), entry: self.fp8_entry })
    }

    /// The attention family's run: `--attn-sizes` (else its sweep, plus its check shapes under
    /// `--check`), each causal and not; element types from `--dtype`, else f16 when timing and both
    /// under `--check`.
    pub fn attention_run(&self) -> Result<kernel_lab_bench::families::attention::AttnRun> {
        use kernel_lab_bench::{attention::AttnShape, families::attention::{AttnRun, CHECK_SHAPES, SWEEP}, steps::gemm::Elem};
        let mut dims = self.attn_sizes.clone().unwrap_or_else(|| SWEEP.to_vec());
        if self.check && self.attn_sizes.is_none() {
            dims.extend_from_slice(CHECK_SHAPES);
        }
        let mut shapes = vec![];
        for (b, h, l, d) in dims {
            for causal in [false, true] {
                shapes.push(AttnShape::new(b, h, l, d, causal)?);
            }
        }
        // Attention runs f16 and bf16; f32 (the gemm family's SGEMM entry point) is not one of its types.
        let elems: Vec<Elem> = if self.dtypes_given || self.check { self.dtypes.iter().copied().filter(|&e| e != Elem::F32).collect() } else { vec![Elem::F16] };
        if elems.is_empty() {
            return Err(Error::InvalidInput("--dtype f32: the attention family runs f16 and bf16".into()));
        }
        Ok(AttnRun { shapes, elems, reps: self.reps, warmup: self.warmup, check: self.check, solo: self.attn_solo, idle_ms: if self.attn_solo { self.attn_idle_ms } else { 0 }, only: self.only(), seed: self.seed })
    }

    /// The reduce sizes of this run (`--check` adds odd sizes unless `--sizes` was given).
    pub fn reduce_run(&self) -> ReduceRun {
        let mut sizes = self.sizes.clone();
        if self.check && !self.sizes_given {
            sizes.extend(reduce::CHECK_SIZES);
        }
        ReduceRun { sizes, reps: self.reps, warmup: self.warmup, check: self.check, seed: self.seed, only: self.only() }
    }

    /// Parses arguments (without the program name). `Ok(None)` means `--help` was printed.
    pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Option<Options>> {
        let mut o = Options { families: Family::ALL.to_vec(), sizes: vec![1 << 20, 1 << 24, 1 << 28], reps: 50,
                              warmup: 5, check: false, attn_solo: false, attn_idle_ms: 0, list: false, json: None, seed: verify::fresh_seed(),
                              sizes_given: false, gemm_sizes: [1024, 2048, 4096, 8192].map(|n| (n, n, n)).to_vec(),
                              gemm_sizes_given: false, out: "target/kernel-lab-report".into(),
                              ncu: false, sanitize: false, steps: None, config: None, config_f32: None, dtypes: vec![], dtypes_given: false, attn_sizes: None,
                              tune_cache: None, fp8_entry: false, headline: false };
        // Options that only say how to run (not what): the headline run keeps them.
        const HOW: [&str; 6] = ["--seed", "--out", "--json", "--reps", "--warmup", "--attn-idle-ms"];
        let mut selected = false;
        let (mut autotune, mut tune_path): (bool, Option<String>) = (false, None);
        let mut steps_spec: Option<String> = None;
        let mut family_given = false;
        let mut config_label: Option<String> = None;
        let (mut shapes_file, mut sample): (Option<String>, Option<usize>) = (None, None);
        let mut print_shapes = false;
        let mut seen: Vec<String> = vec![];
        let mut it = args.into_iter();
        while let Some(a) = it.next() {
            if a.starts_with("--") && a != "--quick" && seen.contains(&a) {
                return Err(Error::InvalidInput(format!("{a} given twice")));
            }
            seen.push(a.clone());
            selected |= !HOW.contains(&a.as_str());
            let mut value = |name: &str| it.next().ok_or_else(|| Error::InvalidInput(format!("{name} needs a value")));
            let number = |name: &str, v: String| v.parse::<usize>().map_err(|_| Error::InvalidInput(format!("{name} `{v}`: not a number")));
            match a.as_str() {
                "-h" | "--help" => {
                    print!("{HELP}");
                    return Ok(None);
                }
                "--family" => {
                    family_given = true;
                    o.families = value("--family")?.split(',').map(|f| {
                        Family::ALL.into_iter().find(|x| x.name() == f.trim()).ok_or_else(|| Error::InvalidInput(format!(
                            "unknown family `{f}` (known: {})", Family::ALL.map(|x| x.name()).join(", "))))
                    }).collect::<Result<_>>()?;
                }
                "--sizes" => {
                    o.sizes = value("--sizes")?.split(',').map(parse_size).collect::<Result<_>>()?;
                    o.sizes_given = true;
                }
                "--attn-sizes" => {
                    o.attn_sizes = Some(value("--attn-sizes")?.split(',').map(parse_attn_shape).collect::<Result<_>>()?);
                }
                "--gemm-sizes" => {
                    o.gemm_sizes = value("--gemm-sizes")?.split(',').map(parse_gemm_shape).collect::<Result<_>>()?;
                    o.gemm_sizes_given = true;
                }
                "--shapes-file" => shapes_file = Some(value("--shapes-file")?),
                "--sample" => sample = Some(number("--sample", value("--sample")?)?),
                "--print-shapes" => print_shapes = true,
                "--steps" => steps_spec = Some(value("--steps")?),
                "--config" => config_label = Some(value("--config")?),
                "--dtype" => {
                    use kernel_lab_bench::steps::gemm::Elem;
                    o.dtypes_given = true;
                    o.dtypes = value("--dtype")?.split(',').map(|d| match d.trim() {
                        "f16" => Ok(Elem::F16),
                        "bf16" => Ok(Elem::Bf16),
                        "f32" => Ok(Elem::F32),
                        other => Err(Error::InvalidInput(format!("--dtype `{other}`: expected f16, bf16 or f32"))),
                    }).collect::<Result<_>>()?;
                }
                "--reps" => o.reps = number("--reps", value("--reps")?)?.max(1),
                "--warmup" => o.warmup = number("--warmup", value("--warmup")?)?,
                "--quick" => {
                    o.sizes = vec![1 << 20, 1 << 22];
                    o.gemm_sizes = vec![(512, 512, 512), (1024, 1024, 1024)];
                    o.reps = 10;
                    o.warmup = 2;
                    // A smoke run: blocks settle for at most 64 calls, not 30 ms (unless the knob says).
                    kernel_lab_bench::runtime::tuning::quick_settle();
                }
                "--check" => o.check = true,
                "--full" => {}
                "--attn-solo" => o.attn_solo = true,
                "--attn-idle-ms" => o.attn_idle_ms = number("--attn-idle-ms", value("--attn-idle-ms")?)?.min(60_000) as u64,
                "--list" => o.list = true,
                "--json" => o.json = Some(value("--json")?),
                "--out" => o.out = value("--out")?,
                "--ncu" => o.ncu = true,
                "--sanitize" => o.sanitize = true,
                "--seed" => o.seed = number("--seed", value("--seed")?)? as u64,
                "--autotune" => autotune = true,
                "--entry" => o.fp8_entry = true,
                "--tune-cache" => tune_path = Some(value("--tune-cache")?),
                other => return Err(Error::InvalidInput(format!("unknown option `{other}` (see --help)"))),
            }
        }
        o.headline = !selected;
        if shapes_file.is_some() || sample.is_some() {
            if o.gemm_sizes_given {
                return Err(Error::InvalidInput("--gemm-sizes lists shapes; --shapes-file and --sample take them from a corpus: give one or the other".into()));
            }
            let all = match &shapes_file {
                Some(f) => kernel_lab_bench::corpus::parse(&std::fs::read_to_string(f).map_err(|e| Error::InvalidInput(format!("--shapes-file {f}: {e}")))?, f)?,
                None => kernel_lab_bench::corpus::embedded(),
            };
            let picked = match sample {
                Some(0) => return Err(Error::InvalidInput("--sample 0: draw at least one shape".into())),
                Some(n) => kernel_lab_bench::corpus::sample(&all, n, o.seed),
                None => all,
            };
            o.gemm_sizes = picked.iter().map(|c| (c.m, c.n, c.k)).collect();
            o.gemm_sizes_given = true;
            if print_shapes {
                for c in &picked {
                    println!("{}x{}x{}\t{}\t{}\t{}", c.m, c.n, c.k, c.model, c.layer, c.tp);
                }
                return Ok(None);
            }
        }
        for &n in &o.sizes {
            reduce::validate_size(n)?;
        }
        if o.fp8_entry {
            // `--entry` alone means the fp8 family's entry (the other families have no such mode).
            if !family_given {
                o.families = vec![Family::Fp8];
            }
            if o.ncu || o.sanitize {
                return Err(Error::InvalidInput("--entry times the fp8 entry point; --ncu and --sanitize run their own fixed checks: give one or the other".into()));
            }
            if !o.families.contains(&Family::Fp8) {
                return Err(Error::InvalidInput("--entry applies to the fp8 family (the gemm family always times the entry point); --family does not name fp8".into()));
            }
            if steps_spec.is_some() {
                return Err(Error::InvalidInput("--entry times the library's own step per shape and scaling; --steps names steps: give one or the other".into()));
            }
        }
        if autotune || tune_path.is_some() {
            if config_label.is_some() {
                return Err(Error::InvalidInput("--autotune chooses each shape's configuration by timing; --config forces one: give one or the other".into()));
            }
            if o.check || o.ncu || o.sanitize {
                return Err(Error::InvalidInput("--autotune times candidates; it does not combine with --check, --ncu or --sanitize".into()));
            }
            if !o.families.iter().any(|f| matches!(f, Family::Gemm | Family::Fp8)) {
                return Err(Error::InvalidInput("--autotune applies to the gemm and fp8 families; --family names neither".into()));
            }
            o.tune_cache = Some(match tune_path {
                Some(p) => p.into(),
                None => kernel_lab_bench::tune::default_path()?,
            });
        }
        for &(m, n, k) in &o.gemm_sizes {
            Shape::new(m, n, k)?;
        }
        {
            // `--config` names an hgemm step for f16/bf16 and an sgemm step for f32; without `--dtype`,
            // the hgemm ladder first (its type), then the sgemm ladder (f32).
            use kernel_lab_bench::steps::gemm::Elem;
            match (&config_label, o.dtypes.is_empty()) {
                (None, true) => o.dtypes = vec![Elem::F16, Elem::Bf16, Elem::F32],
                (None, false) => {}
                (Some(l), true) => match kernel_lab_bench::gemm::step_by_label(l) {
                    Ok(st) => (o.config, o.dtypes) = (Some(st), vec![st.elem]),
                    Err(e16) => match kernel_lab_bench::sgemm::step_by_label(l) {
                        Ok(st) => (o.config_f32, o.dtypes) = (Some(st), vec![Elem::F32]),
                        Err(e32) => return Err(Error::InvalidInput(format!("{e16}; {e32}"))),
                    },
                },
                (Some(l), false) => {
                    if o.dtypes.iter().any(|&d| d != Elem::F32) {
                        o.config = Some(kernel_lab_bench::gemm::step_by_label(l)?);
                    }
                    if o.dtypes.contains(&Elem::F32) {
                        o.config_f32 = Some(kernel_lab_bench::sgemm::step_by_label(l)?);
                    }
                }
            }
        }
        if let Some(spec) = steps_spec {
            // Labels are resolved after every option is read: a bare label may only name one step of
            // the families this run covers.
            let list = spec.split(',').map(|x| steps::resolve_label(x.trim(), &o.families).map_err(|e| Error::InvalidInput(format!("--steps: {e}"))))
                .collect::<Result<Vec<_>>>()?;
            o.steps = Some(list);
        }
        Ok(Some(o))
    }
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
        assert!(parse(&["--bogus"]).unwrap_err().to_string().contains("--bogus"));
        assert!(parse(&["--reps"]).unwrap_err().to_string().contains("needs a value"));
        assert!(parse(&["--sizes", "2^33"]).is_ok(), "v7 takes 2^33");
        assert!(parse(&["--sizes", "2^61"]).unwrap_err().to_string().contains("exceeds"));
        assert!(parse(&["--check", "--check"]).unwrap_err().to_string().contains("--check given twice"));
    }

    #[test]
    fn entry_is_the_fp8_familys_and_not_with_steps() {
        assert!(parse(&["--family", "fp8", "--entry"]).unwrap().unwrap().fp8_entry);
        assert!(!parse(&["--family", "fp8"]).unwrap().unwrap().fp8_entry, "every step unless asked");
        let e = parse(&["--family", "gemm", "--entry"]).unwrap_err().to_string();
        assert!(e.contains("fp8"), "{e}");
        assert_eq!(parse(&["--entry"]).unwrap().unwrap().families, vec![Family::Fp8], "--entry alone: the fp8 family");
        let e = parse(&["--entry", "--sanitize"]).unwrap_err().to_string();
        assert!(e.contains("--sanitize"), "{e}");
        let e = parse(&["--family", "fp8", "--entry", "--steps", "f14"]).unwrap_err().to_string();
        assert!(e.contains("--steps"), "{e}");
    }

    #[test]
    fn autotune_takes_a_cache_and_refuses_what_it_cannot_combine_with() {
        let o = parse(&["--family", "gemm", "--tune-cache", "/tmp/x.json"]).unwrap().unwrap();
        assert_eq!(o.tune_cache.as_deref(), Some(std::path::Path::new("/tmp/x.json")));
        assert!(parse(&["--family", "gemm"]).unwrap().unwrap().tune_cache.is_none(), "the rules unless asked");
        let e = parse(&["--autotune", "--config", "h6s4"]).unwrap_err().to_string();
        assert!(e.contains("--config"), "{e}");
        for other in ["--check", "--ncu", "--sanitize"] {
            let e = parse(&["--tune-cache", "/tmp/x.json", other]).unwrap_err().to_string();
            assert!(e.contains(other), "{other}: {e}");
        }
        let e = parse(&["--family", "sgemm", "--tune-cache", "/tmp/x.json"]).unwrap_err().to_string();
        assert!(e.contains("gemm and fp8"), "{e}");
        assert!(parse(&["--family", "fp8", "--tune-cache", "/tmp/x.json"]).unwrap().unwrap().tune_cache.is_some());
    }

    #[test]
    fn steps_are_named_per_family_and_ambiguity_is_refused() {
        let names = |o: Options| o.steps.unwrap().iter().map(|k| k.name).collect::<Vec<_>>();
        assert_eq!(names(parse(&["--steps", "hgemm:v9,sgemm:v9,h1"]).unwrap().unwrap()), ["hgemm_block_v9", "sgemm_v9", "hgemm_tma_v1"]);
        // A bare label resolves within the families of the run, whatever the order of the flags.
        assert_eq!(names(parse(&["--steps", "v9", "--family", "hgemm"]).unwrap().unwrap()), ["hgemm_block_v9"]);
        let e = parse(&["--steps", "v9"]).unwrap_err().to_string();
        assert!(e.contains("ambiguous") && e.contains("sgemm:v9") && e.contains("hgemm:v9"), "{e}");
        assert!(parse(&["--steps", "hgemm:v9,h99"]).unwrap_err().to_string().contains("unknown step `h99`"));
        assert!(parse(&["--steps", "sgemm:h1"]).unwrap_err().to_string().contains("not a sgemm step"));
        let o = parse(&["--steps", "hgemm:v9"]).unwrap().unwrap();
        assert!(o.wants("hgemm_block_v9") && !o.wants("sgemm_v9"));
    }

    #[test]
    fn corpus_shapes_come_from_a_file_or_a_seeded_sample() {
        let o = parse(&["--family", "gemm", "--sample", "20", "--seed", "3"]).unwrap().unwrap();
        assert_eq!(o.gemm_sizes.len(), 20);
        assert!(o.gemm_sizes_given);
        assert_eq!(o.gemm_sizes, parse(&["--family", "gemm", "--sample", "20", "--seed", "3"]).unwrap().unwrap().gemm_sizes);
        assert_ne!(o.gemm_sizes, parse(&["--family", "gemm", "--sample", "20", "--seed", "4"]).unwrap().unwrap().gemm_sizes);
        let all = kernel_lab_bench::corpus::embedded();
        assert!(o.gemm_sizes.iter().all(|&(m, n, k)| all.iter().any(|c| (c.m, c.n, c.k) == (m, n, k))));
        let dir = std::env::temp_dir().join(format!("kl-shapes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("s.tsv");
        std::fs::write(&f, "# mine\n7x9x11\n13x4096x64\tm\tqkv\t1\n").unwrap();
        let fs = f.to_str().unwrap();
        assert_eq!(parse(&["--shapes-file", fs]).unwrap().unwrap().gemm_sizes, vec![(7, 9, 11), (13, 4096, 64)]);
        assert_eq!(parse(&["--shapes-file", fs, "--sample", "1", "--seed", "1"]).unwrap().unwrap().gemm_sizes.len(), 1);
        let e = parse(&["--shapes-file", fs, "--gemm-sizes", "64"]).unwrap_err().to_string();
        assert!(e.contains("one or the other"), "{e}");
        assert!(parse(&["--sample", "0"]).unwrap_err().to_string().contains("at least one"));
        assert!(parse(&["--shapes-file", "/nonexistent/x.tsv"]).unwrap_err().to_string().contains("/nonexistent/x.tsv"));
        std::fs::write(&f, "7x9\n").unwrap();
        assert!(parse(&["--shapes-file", fs]).unwrap_err().to_string().contains(":1:"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn check_adds_ragged_shapes_unless_sizes_are_given() {
        use kernel_lab_bench::families::hgemm::Hgemm;
        // --config: an hgemm label sets its type; an sgemm-only label means f32; --dtype f32 takes
        // the sgemm ladder's step of that label.
        use kernel_lab_bench::steps::gemm::Elem;
        let o = parse(&["--config", "v13"]).unwrap().unwrap();
        assert_eq!((o.dtypes.clone(), o.config_f32.map(|s| s.kernel.name), o.config.is_none()), (vec![Elem::F32], Some("sgemm_v13"), true));
        let o = parse(&["--config", "h6-bf16"]).unwrap().unwrap();
        assert_eq!((o.dtypes.clone(), o.config.map(|s| s.kernel.name)), (vec![Elem::Bf16], Some("hgemm_tma_v6_bf16")));
        let o = parse(&["--dtype", "f32", "--config", "v10"]).unwrap().unwrap();
        assert_eq!(o.config_f32.map(|s| s.kernel.name), Some("sgemm_v10"));
        assert_eq!(parse(&[]).unwrap().unwrap().dtypes, [Elem::F16, Elem::Bf16, Elem::F32]);
        let e = parse(&["--config", "zz"]).unwrap_err().to_string();
        assert!(e.contains("not an f32-accumulating hgemm step") && e.contains("not an sgemm step"), "{e}");
        assert!(parse(&["--dtype", "f32", "--config", "h6"]).unwrap_err().to_string().contains("not an sgemm step"));
        assert!(parse(&["--dtype", "f64"]).unwrap_err().to_string().contains("f16, bf16 or f32"));
        // Attention under --check keeps its own types (f32 is the gemm family's); f32 alone is refused.
        assert_eq!(parse(&["--check"]).unwrap().unwrap().attention_run().unwrap().elems, [Elem::F16, Elem::Bf16]);
        assert!(parse(&["--attn-solo"]).unwrap().unwrap().attention_run().unwrap().solo && !parse(&[]).unwrap().unwrap().attention_run().unwrap().solo);
        let idle = |a: &[&str]| parse(a).unwrap().unwrap().attention_run().unwrap().idle_ms;
        assert_eq!((idle(&["--attn-solo", "--attn-idle-ms", "1500"]), idle(&["--attn-idle-ms", "1500"]), idle(&["--attn-solo"])), (1500, 0, 0));
        let only = parse(&["--family", "attention", "--steps", "a15-d128,attention:a12-d128-bf16"]).unwrap().unwrap().attention_run().unwrap().only;
        assert_eq!(only, Some(vec!["attn_a15_d128_f16", "attn_a12_d128_bf16"]));
        assert!(parse(&["--family", "attention", "--steps", "a15-d96"]).unwrap_err().to_string().contains("unknown step `a15-d96`"));
        assert!(parse(&["--dtype", "f32", "--family", "attention"]).unwrap().unwrap().attention_run().unwrap_err().to_string().contains("f16 and bf16"));
        // Both ladders asked for: the label must name a step in each (v10 does; v13 is sgemm-only).
        let o = parse(&["--dtype", "f16,f32", "--config", "v10"]).unwrap().unwrap();
        assert_eq!((o.config.map(|s| s.kernel.name), o.config_f32.map(|s| s.kernel.name)), (Some("hgemm_block_v10"), Some("sgemm_v10")));
        assert!(parse(&["--dtype", "f16,f32", "--config", "v13"]).unwrap_err().to_string().contains("not an f32-accumulating hgemm step"));
        let o = parse(&["--check"]).unwrap().unwrap();
        assert_eq!(o.gemm_run::<Hgemm>().unwrap().shapes.len(), 4 + Hgemm::CHECK_SHAPES.len());
        assert_eq!(o.reduce_run().sizes.len(), 3 + reduce::CHECK_SIZES.len());
        let o = parse(&["--check", "--gemm-sizes", "64", "--sizes", "1K"]).unwrap().unwrap();
        assert_eq!((o.gemm_run::<Hgemm>().unwrap().shapes.len(), o.reduce_run().sizes), (1, vec![1024]));
    }
}

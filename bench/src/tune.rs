//! Autotuning for the GEMM entry points ([`crate::gemm`] for f16 / bf16, [`crate::sgemm`] for f32,
//! [`crate::fp8`] for e4m3 with either scaling): every candidate configuration for one shape is
//! verified, timed on *this* GPU in interleaved rounds, and the fastest is kept in a cache file, so the
//! next plan for that shape, GPU and build takes it without timing anything.
//!
//! ```ignore
//! let mut cache = TuneCache::open(tune::default_path()?)?;
//! let (mut plan, tuned) = tune::plan16(&gpu, s, Elem::F16, &mut cache)?; // times once, then cached
//! println!("{}", tuned.entry.summary());                                  // what it measured
//! plan.run(&d_a, &d_b, &mut d_c)?;
//! ```
//!
//! The rule-based choice ([`crate::gemm::choose`], [`crate::sgemm::choose`]) stays the default: a
//! documented function of the shape, tested on the CPU. Tuning is for the shapes a user runs often,
//! where a choice measured on their card beats a rule fitted on ours (the rules' boundaries come from
//! one H100's runs; a kernel's edge over its neighbour there is often a few percent).
//!
//! * **Candidates** ([`candidates16`], [`candidates32`], [`candidates_fp8`]): the rule's choice first,
//!   then the steps the rules choose among that take the shape, padded where the entry point would pad:
//!   f16 / bf16 every step of [`crate::gemm::RULE_STEPS`] (the list `default_step` is held to; on Hopper
//!   d15, d16, d9, d4, d2, d2m64, d7, d11, h10, h6s4 and the h8 the split model picks; without sm_90a
//!   d2, d2m64, v10), f32 v11, v12, v13, v20, v27 and v15's, v19's forms for the GPU, FP8 the steps
//!   [`candidates_fp8`] lists.
//! * **Verification**: each candidate's C is poisoned, computed and compared with cuBLAS's (or the f64
//!   CPU reference where cuBLAS is missing); a candidate over the entry point's tolerance is an error,
//!   not a loser — it is a bug.
//! * **Timing**: one probe run each; a candidate slower than [`PRUNE_FACTOR`]× the rule's probe is
//!   dropped (listed as pruned). The rest are timed in [`ROUNDS`] rounds, the order rotated each round,
//!   each block after [`SETTLE_MS`] of untimed runs, about [`BLOCK_MS`] of timed ones (held launches,
//!   as the suite times; at most [`MAX_BLOCK_REPS`] runs a block); the median over all of a candidate's
//!   samples ranks it. For f16 / bf16 / f32 at `M ≤` [`DECODE_MAX_M`] B is rotated over copies beyond
//!   L2, as the `gemm` family times decode shapes (FP8 shapes are not rotated).
//! * **The key** ([`Key`]): GPU name, SM count, compute capability, driver version, a fingerprint of
//!   the embedded PTX (any kernel change invalidates every entry), the host's version and
//!   [`TUNE_EPOCH`] (bumped when a rule or a launch parameter changes), the values of the environment
//!   knobs that change launches ([`KNOBS`]), the type and the shape. The file is JSON ([`TuneCache`]),
//!   rewritten atomically (a synced temporary file, then a rename); a file that does not parse is an
//!   error naming it, never silently replaced. Concurrent runs on one file: the last writer's entries
//!   win. An entry whose step this build no longer has, or that this GPU or shape refuses, is tuned
//!   again; a tuning whose file cannot be written still returns its plan (`Tuned::save_error`).
use std::{
    cell::RefCell,
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};
use serde::{Deserialize, Serialize};

use crate::{
    error::{DriverContext, Error, Result},
    families::{
        gemm::{self as family, GemmFamily, Reference, Shape, cpu_reference, memory_bytes},
        hgemm::{Hgemm, HgemmBf16, TOL, TOL_BF16},
        sgemm::Sgemm,
    },
    gemm::{self, Config, DECODE_MAX_M, HalfPlan},
    runtime::{
        gpu::Gpu,
        timing::{rotation_copies, settle_calls, time_samples, unix_ms_now},
        verify,
    },
    sgemm::{self, SgemmPlan},
    steps::{fp8::{self as f8, Scaling}, gemm::Elem, hgemm as h, sgemm as sg},
};

/// A candidate whose probe run takes more than this many times the rule's choice's is not timed.
pub const PRUNE_FACTOR: f64 = 3.0;
/// Rounds of timing blocks (the candidates' order rotated each round).
pub const ROUNDS: usize = 3;
/// Untimed runs before each timed block, in ms of GPU time (what one kernel leaves to the next).
pub const SETTLE_MS: f64 = 10.0;
/// Timed runs per block, in ms of GPU time (between 3 and [`MAX_BLOCK_REPS`] runs).
pub const BLOCK_MS: f64 = 20.0;
/// The most timed runs in one block.
pub const MAX_BLOCK_REPS: usize = 50;
/// The relative L2 tolerance of the f32 entry point (as the `gemm` family's f32 rows).
pub const TOL_F32: f64 = 1e-5;

/// Bump when a rule, a grid, a split or another host-side launch parameter changes what a step does on
/// a shape without changing its PTX: every older entry is then tuned again. 2: session 25's f32 rule
/// (v23 for 8 < M ≤ 16) and v31 / v32. 3: session 29's transposed tiles above 512 rows
/// (`gemm::transposed_over_h6`).
pub const TUNE_EPOCH: u32 = 3;

/// The environment variables that change how a step launches (grids, splits, clusters, the PTX loaded,
/// the modules withheld): their values are part of the key, so a tuning made under one is not reused
/// without it.
pub const KNOBS: [&str; 6] = ["KERNEL_LAB_DECODE_BLOCKS_PER_SM", "KERNEL_LAB_FP8_CLUSTERS", "KERNEL_LAB_SGEMM_SPLIT", "KERNEL_LAB_SGEMM_FIXED_SPLIT",
                              "KERNEL_LAB_PTX_DIR", "KERNEL_LAB_WITHHOLD"];

/// `NAME=value` of each set [`KNOBS`] variable, `;`-separated (empty when none is set).
fn knobs() -> String {
    KNOBS.iter().filter_map(|k| std::env::var(k).ok().map(|v| format!("{k}={v}"))).collect::<Vec<_>>().join(";")
}

/// Where a tuning is kept: `$KERNEL_LAB_TUNE_CACHE`, else `$XDG_CACHE_HOME/kernel-lab/gemm-tune.json`,
/// else `$HOME/.cache/kernel-lab/gemm-tune.json`.
pub fn default_path() -> Result<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(p) = var("KERNEL_LAB_TUNE_CACHE") {
        return Ok(p);
    }
    let base = var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|h| h.join(".cache")))
        .ok_or_else(|| Error::InvalidInput("autotune: no cache file (set KERNEL_LAB_TUNE_CACHE, XDG_CACHE_HOME or HOME, or pass --tune-cache)".into()))?;
    Ok(base.join("kernel-lab").join("gemm-tune.json"))
}

/// The PTX fingerprint a tuning is kept under (`runtime::ptx::kernels_fingerprint`).
pub use crate::runtime::ptx::kernels_fingerprint;

/// What a tuning is valid for. Its string form ([`Key::as_string`]) indexes the cache file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    /// The GPU's name (`NVIDIA H100 80GB HBM3`).
    pub gpu: String,
    /// Its SM count.
    pub sms: u32,
    /// Its compute capability.
    pub cc: (i32, i32),
    /// The CUDA driver API version.
    pub driver: i32,
    /// [`kernels_fingerprint`] of the build.
    pub kernels: u64,
    /// The host's version and [`TUNE_EPOCH`] (`0.1.0+e3`).
    pub host: String,
    /// The set [`KNOBS`] (`NAME=value;…`, empty when none).
    pub knobs: String,
    /// What is multiplied: `f16`, `bf16`, `f32`, `e4m3-tensor` (FP8, per-tensor scales) or
    /// `e4m3-block` (FP8, 1×128 / 128×128 block scales).
    pub kind: String,
    /// The GEMM's shape.
    pub shape: Shape,
}

impl Key {
    /// The key of `s` in `elem` on `gpu` with this build's kernels.
    pub fn new(gpu: &Gpu, elem: Elem, s: Shape) -> Key {
        Key::of_kind(gpu, elem_name(elem), s)
    }

    /// The key of an FP8 GEMM of `s` with `scaling` on `gpu`.
    pub fn fp8(gpu: &Gpu, scaling: Scaling, s: Shape) -> Key {
        Key::of_kind(gpu, scaling_name(scaling), s)
    }

    fn of_kind(gpu: &Gpu, kind: &str, s: Shape) -> Key {
        let i = &gpu.info;
        Key { gpu: i.name.clone(), sms: i.sms, cc: i.compute_capability, driver: i.driver_version, kernels: kernels_fingerprint(),
              host: format!("{}+e{TUNE_EPOCH}", env!("CARGO_PKG_VERSION")), knobs: knobs(), kind: kind.into(), shape: s }
    }

    /// `NVIDIA H100 80GB HBM3|sms=132|sm_90|driver=13000|ptx=…|host=0.1.0+e3|knobs=|f16|256x4096x14336`.
    pub fn as_string(&self) -> String {
        format!("{}|sms={}|sm_{}{}|driver={}|ptx={:016x}|host={}|knobs={}|{}|{}", self.gpu, self.sms, self.cc.0, self.cc.1, self.driver, self.kernels,
                self.host, self.knobs, self.kind, self.shape)
    }
}

fn scaling_name(s: Scaling) -> &'static str {
    match s {
        Scaling::PerTensor => "e4m3-tensor",
        Scaling::Block => "e4m3-block",
    }
}

fn elem_name(e: Elem) -> &'static str {
    match e {
        Elem::F16 => "f16",
        Elem::Bf16 => "bf16",
        Elem::F32 => "f32",
    }
}

/// One timed candidate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timed {
    /// Its configuration's label (`d7`, `h6s4+pad`, `v30`).
    pub label: String,
    /// Median time over its samples, µs.
    pub median_us: f64,
    /// Its relative L2 error against the reference.
    pub rel_err: f64,
    /// How many samples the median is over.
    pub samples: usize,
}

/// What a tuning found for one key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The winner's step label (`d7`, `v30`; padding follows from the shape as in the entry point).
    pub step: String,
    /// The rule-based choice's configuration label, for comparison.
    pub rule: String,
    /// Every timed candidate, fastest first.
    pub timed: Vec<Timed>,
    /// Candidates not timed, each with why (`d2 (probe 3.4× the rule's)`, a refusal).
    pub pruned: Vec<String>,
    /// When it was tuned (UTC ms since the Unix epoch).
    pub unix_ms: u64,
}

impl Entry {
    /// `d7 52.1 µs (rule d7); d11 58.0; h6s4 70.2; not timed: d2 (…)`.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        for (i, t) in self.timed.iter().enumerate() {
            if i == 0 {
                s += &format!("{} {:.1} µs (rule {})", t.label, t.median_us, self.rule);
            } else {
                s += &format!("; {} {:.1}", t.label, t.median_us);
            }
        }
        if !self.pruned.is_empty() {
            s += &format!("; not timed: {}", self.pruned.join(", "));
        }
        s
    }

    /// The rule's time over the winner's (1.0 when the rule won; `None` if the rule was not timed).
    pub fn gain_over_rule(&self) -> Option<f64> {
        let rule = self.timed.iter().find(|t| t.label == self.rule)?;
        Some(rule.median_us / self.timed.first()?.median_us)
    }
}

/// The cache file's contents.
#[derive(Default, Deserialize)]
struct File {
    version: u32,
    entries: BTreeMap<String, Entry>,
}

const FILE_VERSION: u32 = 1;

/// The tunings on disk: a JSON file of [`Entry`]s by [`Key`].
pub struct TuneCache {
    path: PathBuf,
    entries: BTreeMap<String, Entry>,
}

impl TuneCache {
    /// Reads `path` (an absent file is an empty cache). A file that cannot be read or parsed, or that
    /// another version of the format wrote, is an error naming it.
    pub fn open(path: impl Into<PathBuf>) -> Result<TuneCache> {
        let path = path.into();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(TuneCache { path, entries: BTreeMap::new() }),
            Err(e) => return Err(Error::InvalidInput(format!("autotune cache {}: cannot read it: {e}", path.display()))),
        };
        let file: File = serde_json::from_str(&text).map_err(|e| Error::InvalidInput(format!(
            "autotune cache {}: not a tuning file ({e}); delete it or pass another --tune-cache", path.display())))?;
        if file.version != FILE_VERSION {
            return Err(Error::InvalidInput(format!("autotune cache {}: format version {} (this build reads {FILE_VERSION}); delete it or pass another --tune-cache",
                                                   path.display(), file.version)));
        }
        Ok(TuneCache { path, entries: file.entries })
    }

    /// The file this cache reads and writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The tuning for `key`, if any.
    pub fn get(&self, key: &Key) -> Option<&Entry> {
        self.entries.get(&key.as_string())
    }

    /// Every tuning, by its key's string form ([`Key::as_string`]), in key order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &Entry)> {
        self.entries.iter().map(|(k, e)| (k.as_str(), e))
    }

    /// How many tunings the cache holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Records `entry` for `key` and rewrites the file (atomically: a temporary file beside it, synced,
    /// then renamed over it), creating its directory if needed. On an error the file and this cache are
    /// as they were (the temporary file removed).
    pub fn insert(&mut self, key: &Key, entry: Entry) -> Result<()> {
        let k = key.as_string();
        let old = self.entries.insert(k.clone(), entry);
        let written = self.write();
        if written.is_err() {
            match old {
                Some(o) => self.entries.insert(k, o),
                None => self.entries.remove(&k),
            };
        }
        written
    }

    fn write(&self) -> Result<()> {
        use std::io::Write;
        #[derive(Serialize)]
        struct FileRef<'a> {
            version: u32,
            entries: &'a BTreeMap<String, Entry>,
        }
        let text = serde_json::to_string_pretty(&FileRef { version: FILE_VERSION, entries: &self.entries })
            .map_err(|e| Error::InvalidInput(format!("autotune cache: cannot serialize: {e}")))?;
        let io = |what: &str, e: std::io::Error| Error::InvalidInput(format!("autotune cache {}: cannot {what}: {e}", self.path.display()));
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| io("create its directory", e))?;
        }
        let tmp = self.path.with_extension(format!("tmp{}", std::process::id()));
        let r = (|| {
            let mut f = std::fs::File::create(&tmp).map_err(|e| io("create a temporary file", e))?;
            f.write_all(text.as_bytes()).map_err(|e| io("write", e))?;
            f.sync_all().map_err(|e| io("sync", e))?;
            std::fs::rename(&tmp, &self.path).map_err(|e| io("replace", e))
        })();
        if r.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        r
    }
}

/// Whether a plan came from the cache or was tuned now, and what the tuning measured.
#[derive(Clone, Debug)]
pub struct Tuned {
    /// The tuning.
    pub entry: Entry,
    /// Taken from the cache (no timing in this call).
    pub cached: bool,
    /// A fresh tuning that could not be written to the cache file: why (the plan is still returned).
    pub save_error: Option<String>,
}

impl Tuned {
    /// `autotuned (tuned now, 1.013× the rule's h6s4): h10 368.2 µs (rule h6s4); h6s4 372.9 …` — where the
    /// choice came from, its gain over the rule's where that was timed, what the tuning measured, and a
    /// write error if the cache file could not take it.
    pub fn note(&self) -> String {
        format!("autotuned ({}{}): {}{}", if self.cached { "cached" } else { "tuned now" },
                self.entry.gain_over_rule().map(|g| format!(", {g:.3}× the rule's {}", self.entry.rule)).unwrap_or_default(), self.entry.summary(),
                self.save_error.as_ref().map(|e| format!(" (not saved: {e})")).unwrap_or_default())
    }
}

/// Records a fresh tuning in `cache`; a write error is kept in the result, not raised: the tuning is
/// verified and its plan usable either way.
fn record(cache: &mut TuneCache, key: &Key, entry: Entry) -> Tuned {
    let save_error = cache.insert(key, entry.clone()).err().map(|e| e.to_string());
    Tuned { entry, cached: false, save_error }
}

/// Whether a cached entry's plan failed because the entry itself no longer applies (its step unknown
/// to this build, refused by this shape or GPU): then it is tuned again. Other errors (memory, driver)
/// are the caller's.
fn stale(e: &Error) -> bool {
    matches!(e, Error::InvalidInput(_) | Error::Unsupported { .. })
}

/// The cached tuning of `key` with what `build` makes of its step label, if it still applies: `None` on
/// a miss, when `build` does not know the label (`None` from it) or refuses it as [`stale`] — then the
/// shape is tuned again; any other error of `build` is the caller's. The outline every `plan*` and
/// [`step_fp8`] start with.
fn from_cache<P>(cache: &TuneCache, key: &Key, build: impl FnOnce(&str) -> Option<Result<P>>) -> Result<Option<(P, Tuned)>> {
    let Some(e) = cache.get(key) else { return Ok(None) };
    match build(&e.step) {
        Some(Ok(p)) => Ok(Some((p, Tuned { entry: e.clone(), cached: true, save_error: None }))),
        Some(Err(err)) if !stale(&err) => Err(err),
        _ => Ok(None),
    }
}

/// Every candidate of `configs` that `build` can make, in order, and `label (why)` for each it cannot
/// (pruned) — except the first, the rule's: what the entry point runs, so when it cannot run, neither
/// can the tuning, and its error is returned.
fn build_candidates<C, T>(configs: Vec<C>, label: impl Fn(&C) -> String, mut build: impl FnMut(&C) -> Result<T>) -> Result<(Vec<T>, Vec<String>)> {
    let (mut built, mut pruned) = (vec![], vec![]);
    for (i, c) in configs.into_iter().enumerate() {
        match build(&c) {
            Ok(t) => built.push(t),
            Err(e) if i == 0 => return Err(e),
            Err(e) => pruned.push(format!("{} ({e})", label(&c))),
        }
    }
    Ok((built, pruned))
}

/// The f16 / bf16 candidates for `s` (pure; the CPU tests cover it): the rule's configuration first,
/// then every step of [`gemm::RULE_STEPS`] that takes `s` (padded where needed) on this GPU, each once —
/// the decode steps only up to their `tune_max_m`, h8 in every cluster size this GPU holds.
pub fn candidates16(s: Shape, hopper: bool, sms: u32, h8_resident: [u32; 7], elem: Elem) -> Result<Vec<Config>> {
    let rule = gemm::choose(s, hopper, sms, h8_resident, None, elem)?;
    // Every step the rule can return (`gemm::RULE_STEPS`) that this GPU runs, the decode ones only up to
    // their `tune_max_m`.
    let mut pool: Vec<&'static h::Step> = gemm::RULE_STEPS.iter()
        .filter(|r| r.tune_max_m.is_none_or(|mx| s.m <= mx) && !(hopper && r.only_without_sm90a))
        .filter_map(|r| r.for_elem(elem))
        .filter(|st| hopper || st.kernel.target != crate::steps::Target::Sm90a)
        // h8's cluster sizes are added below, by residency; d28's clusters stay (decode tiles).
        .filter(|st| !h::H8.iter().chain(h::H8_BF16.iter()).any(|h8| h8.kernel.name == st.kernel.name))
        // The ragged-weight steps (d24) only where N is off 8: elsewhere d2 does their work faster
        // (0.66–0.87× d2, session 56).
        .filter(|st| st.needs.aligned_b_c() || s.n % 8 != 0)
        .collect();
    if hopper {
        // Every h8 cluster size the GPU holds (the cost model weighs them all).
        let h8: &'static [h::Step] = if elem == Elem::Bf16 { &h::H8_BF16 } else { &h::H8 };
        pool.extend(h8.iter().zip(h8_resident).filter(|&(_, r)| r > 0).map(|(st, _)| st));
    }
    let mut out = vec![rule];
    for st in pool {
        if let Ok(c) = gemm::choose(s, hopper, sms, h8_resident, Some(st), elem)
            && !out.iter().any(|o| o.step.kernel.name == c.step.kernel.name)
        {
            out.push(c);
        }
    }
    Ok(out)
}

/// The f32 candidates for `s` (pure): the rule's step first, then v11, v12, v13, v33, v34, v20, v15's and v19's
/// forms for this GPU (their Hopper forms with `hopper`) and, on Hopper, v27 — each once, each one
/// [`sgemm::choose`] accepts for `s`.
pub fn candidates32(s: Shape, sms: u32, hopper: bool) -> Result<Vec<&'static sg::Step>> {
    let rule = sgemm::choose(s, sms, hopper, None)?;
    let mut pool: Vec<&'static sg::Step> = vec![&sg::V11, &sg::V12, &sg::V13, &sg::V33, &sg::V34, &sg::V20, sgemm::hopper_form(&sg::V15, s, hopper), sgemm::hopper_form(&sg::V19, s, hopper)];
    if hopper {
        pool.push(&sg::V27);
    }
    let mut out = vec![rule];
    for st in pool {
        if let Ok(st) = sgemm::choose(s, sms, hopper, Some(st))
            && !out.iter().any(|o| o.kernel.name == st.kernel.name)
        {
            out.push(st);
        }
    }
    Ok(out)
}

/// A candidate ready to run: its label and its launch `(a, b, c)`.
struct Candidate<'g, E> {
    label: String,
    run: Box<dyn FnMut(&CudaSlice<E>, &CudaSlice<E>, &mut CudaSlice<E>) -> Result<()> + 'g>,
}

/// The f16 / bf16 entry point's plan for `s`, its configuration from `cache` or, on a miss, from tuning
/// now (the result written to `cache`).
pub fn plan16<'g>(gpu: &'g Gpu, s: Shape, elem: Elem, cache: &mut TuneCache) -> Result<(HalfPlan, Tuned)> {
    if elem == Elem::F32 {
        return Err(Error::InvalidInput("autotune: plan16 takes f16 or bf16 (f32: plan32)".into()));
    }
    let key = Key::new(gpu, elem, s);
    if let Some(hit) = from_cache(cache, &key, |l| gemm::step_by_label(l).ok().map(|st| HalfPlan::new(gpu, s, Some(st), elem)))? {
        return Ok(hit);
    }
    let hopper = gpu.cannot_run(&h::H6.kernel).is_none();
    let resident = if hopper { gemm::h8_resident(gpu)? } else { [0; 7] };
    let mut configs = candidates16(s, hopper, gpu.info.sms, resident, elem)?;
    // The entry point's own choice on this GPU first (`gemm::refine_decode`: d15 may give way to d2;
    // `gemm::entry_choice`: the cost model may overrule the rules).
    let entry_rule = match gemm::Choice::from_env() {
        gemm::Choice::Rule => gemm::refine_decode(configs[0], &gemm::calibrate::model_for(gpu), s, hopper, gpu.info.sms, resident, elem),
        gemm::Choice::RuleUnlessModel => gemm::entry_choice(&gemm::calibrate::model_for(gpu), s, hopper, gpu.info.sms, resident, elem)?,
        gemm::Choice::CostModel => configs[0],
    };
    if let Some(i) = configs.iter().position(|c| *c == entry_rule) {
        configs[..=i].rotate_right(1);
    }
    let rule = configs[0].label();
    let (cands, pruned) = build_candidates(configs, Config::label, |c| {
        let mut p = HalfPlan::new(gpu, s, Some(c.step), elem)?;
        Ok(Candidate { label: c.label(), run: Box::new(move |a, b, c| p.run(a, b, c)) })
    })?;
    let mut entry = match elem {
        Elem::Bf16 => measure::<HgemmBf16>(gpu, s, TOL_BF16, &rule, cands, pruned)?,
        _ => measure::<Hgemm>(gpu, s, TOL, &rule, cands, pruned)?,
    };
    let best = step_of_label16(&entry.timed[0].label)?;
    entry.step = best.kernel.step.to_string();
    let plan = HalfPlan::new(gpu, s, Some(best), elem)?;
    Ok((plan, record(cache, &key, entry)))
}

/// The step of a configuration label (`h6s4+pad` → h6s4).
fn step_of_label16(label: &str) -> Result<&'static h::Step> {
    gemm::step_by_label(label.strip_suffix("+pad").unwrap_or(label))
}

/// The f32 entry point's plan for `s`, its step from `cache` or, on a miss, from tuning now.
pub fn plan32<'g>(gpu: &'g Gpu, s: Shape, cache: &mut TuneCache) -> Result<(SgemmPlan, Tuned)> {
    let key = Key::new(gpu, Elem::F32, s);
    if let Some(hit) = from_cache(cache, &key, |l| sgemm::step_by_label(l).ok().map(|st| SgemmPlan::new(gpu, s, Some(st))))? {
        return Ok(hit);
    }
    let hopper = gpu.cannot_run(&sg::V21.kernel).is_none();
    let steps = candidates32(s, gpu.info.sms, hopper)?;
    let rule = steps[0].kernel.step.to_string();
    let (cands, pruned) = build_candidates(steps, |st| st.kernel.step.to_string(), |st| {
        let mut p = SgemmPlan::new(gpu, s, Some(st))?;
        Ok(Candidate { label: st.kernel.step.to_string(), run: Box::new(move |a, b, c| p.run(a, b, c)) })
    })?;
    let mut entry = measure::<Sgemm>(gpu, s, TOL_F32, &rule, cands, pruned)?;
    let best = sgemm::step_by_label(&entry.timed[0].label)?;
    entry.step = best.kernel.step.to_string();
    let plan = SgemmPlan::new(gpu, s, Some(best))?;
    Ok((plan, record(cache, &key, entry)))
}

/// Verifies every candidate on fresh random inputs, prunes the slow ones by a probe run, times the rest
/// in rounds, and returns the entry (its `step` left for the caller to fill from the winner's label).
/// `cands[0]` is the rule's configuration: its probe sets the pruning bar, and it is always timed.
fn measure<'g, F: GemmFamily>(gpu: &'g Gpu, s: Shape, tol: f64, rule: &str, mut cands: Vec<Candidate<'g, F::Elem>>, pruned: Vec<String>) -> Result<Entry>
where
    F::Elem: DeviceRepr + ValidAsZeroBits,
{
    if cands.is_empty() {
        return Err(Error::InvalidInput(format!("autotune {s}: no candidate can run it here ({})", pruned.join("; "))));
    }
    let elem_bytes = std::mem::size_of::<F::Elem>();
    let rotate = if s.m <= DECODE_MAX_M { rotation_copies(elem_bytes * s.k * s.n, gpu.info.l2_bytes) } else { 1 };
    let (device, host) = memory_bytes(elem_bytes as u64, s);
    crate::runtime::budget::check(gpu, &format!("autotune {s}"), device + (elem_bytes * s.k * s.n * rotate) as u64, host)?;
    let (d_a, d_b) = family::inputs::<F>(gpu, s, verify::fresh_seed())?;
    let mut b_copies = vec![];
    for _ in 1..rotate {
        let mut c = gpu.zeros::<F::Elem>(s.k * s.n)?;
        gpu.stream.memcpy_dtod(&d_b, &mut c).during(|| "copying B for rotation".into())?;
        b_copies.push(c);
    }
    let b_at = |i: usize| if i % rotate == 0 { &d_b } else { &b_copies[i % rotate - 1] };
    let mut d_c = gpu.zeros::<F::Elem>(s.m * s.n)?;
    // The reference: cuBLAS's C on the device, or the f64 CPU product where cuBLAS is missing.
    let want = match F::baseline(gpu) {
        Ok(bl) => {
            F::run_baseline(&bl, gpu, s, &d_a, &d_b, &mut d_c)?;
            gpu.sync_after(F::BASELINE)?;
            Reference::Device(d_c.clone())
        }
        Err(_) if cpu_reference(s) => Reference::Host(family::host_reference::<F>(gpu, s, &d_a, &d_b)?),
        Err(e) => return Err(Error::InvalidInput(format!("autotune {s}: nothing to verify the candidates against ({} unavailable: {e})", F::BASELINE))),
    };
    let mut errs = vec![];
    for c in &mut cands {
        let rel = family::checked(gpu, &c.label, s, F::KIND, F::to_f64, &mut d_c, &want, &mut |out| (c.run)(&d_a, &d_b, out))?;
        if !(rel <= tol) {
            return Err(Error::Verification(format!("autotune {s}: {} has relative error {rel:.2e}, over the tolerance {tol:.0e}", c.label)));
        }
        errs.push(rel);
    }
    drop(want);
    let d_c = RefCell::new(d_c);
    let runners = cands.into_iter().zip(errs).map(|(mut c, rel_err)| {
        let (d_a, b_at, d_c) = (&d_a, &b_at, &d_c);
        Runner { label: c.label, rel_err, run: Box::new(move |i| (c.run)(d_a, b_at(i), &mut d_c.borrow_mut())) }
    }).collect();
    rank(gpu, rule, runners, pruned)
}

/// A verified candidate, ready to time: `run(i)` enqueues its `i`-th repetition.
struct Runner<'a> {
    label: String,
    rel_err: f64,
    run: Box<dyn FnMut(usize) -> Result<()> + 'a>,
}

/// Times verified candidates (`runners[0]` the rule's) as the module doc says — one probe each, the ones
/// over [`PRUNE_FACTOR`]× the rule's dropped, [`ROUNDS`] rotated rounds of settled blocks — and ranks
/// them, fastest first (the entry's `step` left for the caller to fill from the winner's label).
fn rank(gpu: &Gpu, rule: &str, runners: Vec<Runner<'_>>, pruned: Vec<String>) -> Result<Entry> {
    rank_with(rule, runners, pruned, &mut |work, reps| time_samples(gpu, 0, reps, work))
}

/// [`rank`] with the clock given: `time(work, reps)` times `work(0) … work(reps − 1)` and returns one
/// sample (ms) per call (the GPU's: [`time_samples`], held, no warm-up). Every call any runner gets —
/// probe, settle or timed — takes the next repetition index, so consecutive runs read consecutive
/// rotated copies of B and a timed run never finds its copy left in L2 by the run before.
fn rank_with(rule: &str, mut runners: Vec<Runner<'_>>, mut pruned: Vec<String>,
             time: &mut dyn FnMut(&mut dyn FnMut(usize) -> Result<()>, usize) -> Result<Vec<f64>>) -> Result<Entry> {
    let mut at = 0usize;
    let mut probe = vec![];
    for r in &mut runners {
        // One untimed run (first-launch costs), then one timed.
        (r.run)(at)?;
        let base = at + 1;
        probe.push(time(&mut |i| (r.run)(base + i), 1)?[0]);
        at += 2;
    }
    let bar = PRUNE_FACTOR * probe[0];
    let mut kept = vec![];
    for (i, r) in runners.iter().enumerate() {
        if i > 0 && probe[i] > bar {
            pruned.push(format!("{} (probe {:.1}× the rule's)", r.label, probe[i] / probe[0]));
        } else {
            kept.push(i);
        }
    }
    let mut samples: Vec<Vec<f64>> = vec![vec![]; runners.len()];
    for round in 0..ROUNDS {
        for j in 0..kept.len() {
            let i = kept[(j + round) % kept.len()];
            let p = probe[i].max(1e-3);
            for _ in 0..settle_calls(SETTLE_MS, p, usize::MAX) {
                (runners[i].run)(at)?;
                at += 1;
            }
            let reps = ((BLOCK_MS / p) as usize).clamp(3, MAX_BLOCK_REPS);
            let base = at;
            let run = &mut runners[i].run;
            samples[i].extend(time(&mut |r| run(base + r), reps)?);
            at += reps;
        }
    }
    let mut timed: Vec<Timed> = kept.iter().map(|&i| {
        let n = samples[i].len();
        let st = crate::runtime::timing::Stats::from_samples(&mut samples[i]);
        Timed { label: runners[i].label.clone(), median_us: st.median_ms * 1e3, rel_err: runners[i].rel_err, samples: n }
    }).collect();
    timed.sort_by(|a, b| a.median_us.total_cmp(&b.median_us));
    Ok(Entry { step: String::new(), rule: rule.to_string(), timed, pruned, unix_ms: unix_ms_now() })
}

/// The FP8 candidates for `m × n × k` with `scaling` (pure; `resident` as [`crate::fp8::step_for`]'s): the
/// rule's step first, then the other steps the rules choose among — per tensor fw2 and fw1 (up to their
/// 16 rows), f25 (up to its 32 rows), f14, f18, f12, f17, f1 and, where f14's tiles fill less than one round of
/// the SMs, f22 and f21 in every cluster size that leaves each split `F21_MIN_K_TILES` K tiles and fits at least
/// once; block
/// scales fwb (up to its 16 rows), f20, f19, f16, f15, f9, f3 and, where f3's tiles fill less than one round,
/// f23 — that take the shape, each once.
pub fn candidates_fp8(scaling: Scaling, m: usize, n: usize, k: usize, sms: u32, resident: [u32; 7]) -> Vec<&'static f8::Step> {
    let rule = crate::fp8::step_for(scaling, m, n, k, sms, resident);
    let mut pool: Vec<&'static f8::Step> = match scaling {
        Scaling::PerTensor => vec![&f8::FW2, &f8::FW1, &f8::F14, &f8::F18, &f8::F12, &f8::F17, &f8::F1],
        Scaling::Block => vec![&f8::FWB, &f8::F20, &f8::F19, &f8::F16, &f8::F15, &f8::F9, &f8::F3],
    };
    let kt = (k as u64).div_ceil(layout::fp8::tiles::BK as u64);
    if scaling == Scaling::PerTensor && m <= layout::fp8::tiles::F25_ROWS as usize {
        pool.push(&f8::F25);
    }
    if scaling == Scaling::PerTensor && f8::F14.tiles(m, n) < sms as u64 {
        pool.push(&f8::F22);
        pool.extend(f8::F21.iter().zip(resident).filter(|(st, r)| *r > 0 && kt / st.cluster as u64 >= f8::F21_MIN_K_TILES as u64)
                                  .map(|(st, _)| st));
    }
    if scaling == Scaling::Block && f8::F3.tiles(m, n) < sms as u64 {
        pool.push(&f8::F23);
    }
    let mut out = vec![rule];
    for st in pool {
        if st.rejects(m, n, k).is_none() && !out.iter().any(|o| o.kernel.name == st.kernel.name) {
            out.push(st);
        }
    }
    out
}

/// The FP8 step for `m × n × k` with `scaling`, from `cache` or, on a miss, from tuning now: every
/// candidate verified against the product of the dequantized inputs (f64 on the CPU for small shapes,
/// else `cublasSgemm` on the device) within the family's tolerance, then timed as the module doc says
/// on the same operands every launch (not rotated beyond the L2, unlike the FP8 family's timing at
/// M ≤ 64 since session 100: at decode sizes a tuned pick may favour weights in the L2).
/// Build an [`crate::fp8::Fp8Gemm`] with it over your operands.
pub fn step_fp8(gpu: &Gpu, scaling: Scaling, m: usize, n: usize, k: usize, cache: &mut TuneCache) -> Result<(&'static f8::Step, Tuned)> {
    use crate::families::fp8 as fam;
    let s = Shape::new(m, n, k)?;
    let key = Key::fp8(gpu, scaling, s);
    let by_label = |l: &str| f8::STEPS.iter().chain(f8::WEIGHT_ONLY_ROUTES).find(|st| st.kernel.step == l && st.scaling == scaling && st.rejects(m, n, k).is_none());
    if let Some(hit) = from_cache(cache, &key, |l| by_label(l).filter(|st| gpu.cannot_run(&st.kernel).is_none()).map(Ok))? {
        return Ok(hit);
    }
    let steps = candidates_fp8(scaling, m, n, k, gpu.info.sms, crate::fp8::f21_resident(gpu)?);
    if let Some(why) = gpu.cannot_run(&steps[0].kernel) {
        return Err(Error::Unsupported { kernel: steps[0].kernel.name.into(), needs: "sm_90a (Hopper)".into(), have: why });
    }
    fam::check_budget(gpu, s)?;
    let (a, b, mut a32, mut b32) = fam::operands_of(gpu, s, scaling, verify::fresh_seed())?;
    let blas = fam::reference_blas(gpu)?;
    let want = fam::reference(gpu, blas.as_ref(), s, &a, &b, &mut a32, &mut b32)?;
    drop((a32, b32));
    let mut c = gpu.zeros::<u16>(m * n)?;
    let (built, pruned) = build_candidates(steps, |st| st.kernel.step.to_string(), |&st| Ok((st, crate::fp8::Fp8Gemm::new(gpu, st, &a, &b, &c)?)))?;
    let mut runners = vec![];
    for (st, g) in built {
        let tol = fam::tolerance(st.promotes, k);
        let rel = family::checked(gpu, st.kernel.name, s, crate::runtime::device_check::ElemKind::Bf16, fam::bf16_to_f64, &mut c, &want, &mut |c| g.run(gpu, &a, &b, c))?;
        if !(rel <= tol) {
            return Err(Error::Verification(format!("autotune fp8 {s}: {} has relative error {rel:.2e}, over the tolerance {tol:.1e}", st.kernel.step)));
        }
        runners.push((st.kernel.step.to_string(), rel, g));
    }
    drop(want);
    let c = RefCell::new(c);
    let rule = runners[0].0.clone();
    let runners = runners.into_iter().map(|(label, rel_err, g)| {
        let (a, b, c) = (&a, &b, &c);
        Runner { label, rel_err, run: Box::new(move |_| g.run(gpu, a, b, &mut c.borrow_mut())) }
    }).collect();
    let mut entry = rank(gpu, &rule, runners, pruned)?;
    let best = by_label(&entry.timed[0].label).ok_or_else(|| Error::InvalidInput(format!("autotune fp8: no step `{}` (internal error)", entry.timed[0].label)))?;
    entry.step = best.kernel.step.to_string();
    Ok((best, record(cache, &key, entry)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: [u32; 7] = [66, 33, 22, 16, 13, 11, 9];

    fn shape(m: usize, n: usize, k: usize) -> Shape {
        Shape::new(m, n, k).unwrap()
    }

    #[test]
    fn candidates_start_with_the_rule_and_each_takes_the_shape_once() {
        for (m, n, k) in [(1, 4096, 4096), (16, 4096, 14336), (64, 4096, 4096), (256, 4096, 14336), (1000, 1000, 1000), (4095, 4095, 4095), (8192, 8192, 8192), (7, 13, 1)] {
            let s = shape(m, n, k);
            for (hopper, elem) in [(true, Elem::F16), (true, Elem::Bf16), (false, Elem::F16), (false, Elem::Bf16)] {
                let c = candidates16(s, hopper, 132, R, elem).unwrap();
                assert_eq!(c[0], gemm::choose(s, hopper, 132, R, None, elem).unwrap(), "{s} {hopper} {elem:?}: the rule first");
                for (i, x) in c.iter().enumerate() {
                    assert_eq!(x.step.elem, elem, "{s}: {}", x.label());
                    assert_eq!(gemm::choose(s, hopper, 132, R, Some(x.step), elem).unwrap(), *x, "{s}: {} as the entry point would run it", x.label());
                    assert!(c[..i].iter().all(|y| y.step.kernel.name != x.step.kernel.name), "{s}: {} twice", x.label());
                    assert!(hopper || x.step.kernel.target != crate::steps::Target::Sm90a, "{s}: {} needs sm_90a", x.label());
                }
                // Hopper has several to choose among at every shape; without sm_90a up to M = 64 at least
                // d2 and d2m64, past that perhaps one (f16 v10, bf16 d2m64).
                let least = match (hopper, m <= 64) { (true, _) => 4, (false, true) => 2, (false, false) => 1 };
                assert!(c.len() >= least, "{s} {hopper} {elem:?}: {:?}", c.iter().map(|x| x.label()).collect::<Vec<_>>());
            }
        }
        // No decode step far past its range: 8192³ times d7, d11, h10, h6s4 and the h8 the model picks.
        let c: Vec<String> = candidates16(shape(8192, 8192, 8192), true, 132, R, Elem::F16).unwrap().iter().map(|x| x.label()).collect();
        assert_eq!(c[..4], ["h6s4", "d7", "d11", "h10"], "{c:?}");
        let c: Vec<String> = candidates16(shape(16, 4096, 4096), true, 132, R, Elem::Bf16).unwrap().iter().map(|x| x.label()).collect();
        assert!(c[0] == "d15-bf16" && ["d2-bf16", "d9-bf16", "d16-bf16", "d7-bf16", "h6s4-bf16"].iter().all(|l| c.contains(&l.to_string())), "{c:?}");
        // The regime-sensitive shape of the sweep: d7 (the rule) and d11 (multicast) both timed.
        let c: Vec<String> = candidates16(shape(256, 4096, 14336), true, 132, R, Elem::F16).unwrap().iter().map(|x| x.label()).collect();
        assert!(c[0] == "d7" && c.contains(&"d11".to_string()) && c.contains(&"h6s4".to_string()), "{c:?}");
        // d24 only where N is off 8: first there (the rule), never at aligned N.
        assert!(candidates16(shape(1, 4096, 4096), true, 132, R, Elem::F16).unwrap().iter().all(|x| !x.label().starts_with("d24")));
        let c: Vec<String> = candidates16(shape(4, 30522, 1024), true, 132, R, Elem::F16).unwrap().iter().map(|x| x.label()).collect();
        assert!(c[0] == "d24" && c.contains(&"d2+pad".to_string()), "{c:?}");
        // 4095³ pads, as the entry point does.
        assert!(candidates16(shape(4095, 4095, 4095), true, 132, R, Elem::F16).unwrap().iter().all(|x| x.padded));
    }

    #[test]
    fn f32_candidates_start_with_the_rule() {
        for (m, n, k) in [(1, 4096, 4096), (127, 8191, 1024), (1000, 1000, 1000), (4096, 4096, 4096), (5, 9, 32)] {
            let s = shape(m, n, k);
            for hopper in [true, false] {
                let c = candidates32(s, 132, hopper).unwrap();
                assert_eq!(c[0].kernel.name, sgemm::choose(s, 132, hopper, None).unwrap().kernel.name);
                assert!(c.len() >= 4, "{s}");
                assert!(hopper || c.iter().all(|x| x.kernel.target != crate::steps::Target::Sm90a), "{s}");
                for (i, x) in c.iter().enumerate() {
                    assert!(c[..i].iter().all(|y| y.kernel.name != x.kernel.name), "{s}: {} twice", x.kernel.step);
                }
            }
        }
        let c: Vec<&str> = candidates32(shape(127, 8191, 1024), 132, true).unwrap().iter().map(|x| x.kernel.step).collect();
        assert_eq!(c[0], "v31", "{c:?}");
    }

    /// An H100's cluster residency (h8's, f21's twin in threads and shared memory).
    const H100: [u32; 7] = layout::hopper::tma_hgemm::H100_H8_RESIDENT;

    #[test]
    fn fp8_candidates_start_with_the_rule_and_keep_their_scaling() {
        for (m, n, k) in [(4096, 4096, 4096), (2048, 4096, 11008), (4096, 28672, 8192), (130, 264, 400), (1, 8, 16)] {
            for scaling in [Scaling::PerTensor, Scaling::Block] {
                let c = candidates_fp8(scaling, m, n, k, 132, H100);
                assert_eq!(c[0].kernel.name, crate::fp8::step_for(scaling, m, n, k, 132, H100).kernel.name, "{m}x{n}x{k}");
                for (i, st) in c.iter().enumerate() {
                    assert!(st.scaling == scaling && st.rejects(m, n, k).is_none(), "{m}x{n}x{k}: {}", st.kernel.step);
                    assert!(c[..i].iter().all(|o| o.kernel.name != st.kernel.name), "{m}x{n}x{k}: {} twice", st.kernel.step);
                }
            }
        }
        // At the block-scaled shape under cuBLASLt's block mode, the wave model's f19 and its stream-K twin f20.
        let c: Vec<&str> = candidates_fp8(Scaling::Block, 2048, 4096, 11008, 132, H100).iter().map(|s| s.kernel.step).collect();
        assert!(c[0] == "f19" && c.contains(&"f20") && c.contains(&"f16"), "{c:?}");
        let c: Vec<&str> = candidates_fp8(Scaling::PerTensor, 2048, 11008, 4096, 132, H100).iter().map(|s| s.kernel.step).collect();
        assert!(c.contains(&"f14") && c.contains(&"f18") && !c.iter().any(|s| s.starts_with("f21") || *s == "f22"), "{c:?}");
        // Few tiles: f22 (the rule's, first), f14, and f21 in the sizes that leave each split 2 K tiles
        // (12 K tiles: 2 … 6).
        let c: Vec<&str> = candidates_fp8(Scaling::PerTensor, 256, 768, 1536, 132, H100).iter().map(|s| s.kernel.step).collect();
        assert!(c[0] == "f22" && c.contains(&"f14") && c.contains(&"f21x2") && c.contains(&"f21x5") && !c.contains(&"f21x7"), "{c:?}");
        assert!(!candidates_fp8(Scaling::PerTensor, 256, 768, 1536, 132, [0; 7]).iter().any(|s| s.cluster_split));
        // Up to 32 rows f25 too: the rule's at 32×11008×4096 (f22 beside it), fw2's rival at 8×5120×8192.
        let c: Vec<&str> = candidates_fp8(Scaling::PerTensor, 32, 11008, 4096, 132, H100).iter().map(|s| s.kernel.step).collect();
        assert!(c[0] == "f25" && c.contains(&"f22") && c.contains(&"f14"), "{c:?}");
        let c: Vec<&str> = candidates_fp8(Scaling::PerTensor, 8, 5120, 8192, 132, H100).iter().map(|s| s.kernel.step).collect();
        assert!(c[0] == "fw2" && c.contains(&"f25"), "{c:?}");
        assert!(!candidates_fp8(Scaling::PerTensor, 33, 11008, 4096, 132, H100).iter().any(|s| s.kernel.step == "f25"));
    }

    #[test]
    fn ranking_prunes_by_the_rules_probe_rotates_and_sorts() {
        use std::{cell::RefCell, rc::Rc};
        // Four candidates with fixed run times (ms): the rule, a faster one, a slower one within the bar,
        // one over PRUNE_FACTOR × the rule's. Each run records the repetition index it was given.
        let ms = [0.050, 0.040, 0.120, 0.200];
        let calls: Rc<RefCell<Vec<(usize, usize)>>> = Rc::default();
        let runners: Vec<Runner<'static>> = ms.iter().enumerate().map(|(c, _)| {
            let calls = calls.clone();
            Runner { label: format!("c{c}"), rel_err: 1e-4 * c as f64, run: Box::new(move |i| {
                calls.borrow_mut().push((c, i));
                Ok(())
            }) }
        }).collect();
        // The clock runs the work and reports the running candidate's time (read from the last call).
        let calls2 = calls.clone();
        let mut clock = move |work: &mut dyn FnMut(usize) -> Result<()>, reps: usize| -> Result<Vec<f64>> {
            let mut v = vec![];
            for r in 0..reps {
                work(r)?;
                v.push(ms[calls2.borrow().last().unwrap().0]);
            }
            Ok(v)
        };
        let e = rank_with("c0", runners, vec!["cX (refused)".into()], &mut clock).unwrap();
        let order: Vec<&str> = e.timed.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(order, ["c1", "c0", "c2"], "fastest first; c3 pruned");
        assert_eq!(e.pruned, ["cX (refused)", "c3 (probe 4.0× the rule's)"]);
        assert!((e.timed[0].median_us - 40.0).abs() < 1e-9 && e.timed[0].rel_err == 1e-4);
        // Every kept candidate sampled in every round (at least 3 a block); the pruned one only probed.
        assert!(e.timed.iter().all(|t| t.samples >= 3 * ROUNDS), "{e:?}");
        let calls = calls.borrow();
        assert_eq!(calls.iter().filter(|c| c.0 == 3).count(), 2, "probe: one untimed run and one timed");
        // One running index over every call: consecutive runs take consecutive copies of B.
        assert!(calls.windows(2).all(|w| w[1].1 == w[0].1 + 1), "indices run on without repeats");
        // The rounds rotate the order of the kept (c0, c1, c2): each block is its settle and timed runs.
        let mut blocks: Vec<usize> = calls.iter().skip(2 * ms.len()).map(|c| c.0).collect();
        blocks.dedup();
        assert_eq!(blocks, [0, 1, 2, 1, 2, 0, 2, 0, 1], "three rounds, each starting one candidate later");
    }

    fn entry(step: &str) -> Entry {
        Entry { step: step.into(), rule: "d7".into(),
                // Values a plain JSON float parse reads back one ULP off (a GPU run found them).
                timed: vec![Timed { label: step.into(), median_us: 52.0, rel_err: 4.5809747284758163e-5, samples: 60 },
                            Timed { label: "d7".into(), median_us: 57.2, rel_err: 4.580974728475816e-5, samples: 60 },
                            Timed { label: "d2m64".into(), median_us: 20.655999891459945, rel_err: 1e-4, samples: 60 }],
                pruned: vec!["d2 (probe 9.0× the rule's)".into()], unix_ms: 1 }
    }

    fn key(m: usize) -> Key {
        Key { gpu: "NVIDIA H100 80GB HBM3".into(), sms: 132, cc: (9, 0), driver: 13000, kernels: 0xabc, host: "0.1.0+e2".into(), knobs: String::new(),
              kind: "f16".into(), shape: shape(m, 4096, 14336) }
    }

    #[test]
    fn the_cache_round_trips_through_its_file_and_refuses_a_foreign_one() {
        let dir = std::env::temp_dir().join(format!("kernel-lab-tune-test-{}", std::process::id()));
        let path = dir.join("sub").join("gemm-tune.json");
        let _ = std::fs::remove_dir_all(&dir);
        let mut c = TuneCache::open(&path).unwrap();
        assert!(c.is_empty(), "an absent file is an empty cache");
        c.insert(&key(256), entry("d11")).unwrap();
        c.insert(&key(128), entry("d7")).unwrap();
        let back = TuneCache::open(&path).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back.get(&key(256)), Some(&entry("d11")));
        assert_eq!(back.get(&key(128)).map(|e| e.step.as_str()), Some("d7"));
        // Any part of the key tells entries apart.
        let mut other = key(256);
        other.kernels = 0xabd;
        assert!(back.get(&other).is_none(), "another kernel build");
        other = key(256);
        other.kind = "bf16".into();
        assert!(back.get(&other).is_none(), "another element type");
        other = key(256);
        other.sms = 114;
        assert!(back.get(&other).is_none(), "another GPU");
        other = key(256);
        other.host = "0.1.0+e3".into();
        assert!(back.get(&other).is_none(), "another tuning epoch");
        other = key(256);
        other.knobs = "KERNEL_LAB_SGEMM_SPLIT=2".into();
        assert!(back.get(&other).is_none(), "a launch knob set");
        // A write that fails leaves the cache as it was: a directory where the file should be.
        let mut blocked = TuneCache::open(dir.join("blocked")).unwrap();
        std::fs::create_dir_all(dir.join("blocked")).unwrap();
        assert!(blocked.insert(&key(256), entry("d11")).is_err());
        assert!(blocked.get(&key(256)).is_none() && blocked.is_empty(), "not recorded when not written");
        std::fs::remove_dir_all(dir.join("blocked")).unwrap();
        // No temporary file is left beside it.
        assert_eq!(std::fs::read_dir(path.parent().unwrap()).unwrap().count(), 1);
        // A file that is not a tuning file, or another version's, is refused naming it.
        std::fs::write(&path, "{ not json").unwrap();
        let e = TuneCache::open(&path).err().unwrap().to_string();
        assert!(e.contains("gemm-tune.json") && e.contains("not a tuning file"), "{e}");
        std::fs::write(&path, r#"{"version": 99, "entries": {}}"#).unwrap();
        let e = TuneCache::open(&path).err().unwrap().to_string();
        assert!(e.contains("version 99"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_cached_entry_is_used_only_while_its_step_still_applies() {
        let dir = std::env::temp_dir().join(format!("kernel-lab-tune-cache-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut c = TuneCache::open(dir.join("t.json")).unwrap();
        let build = |l: &str| Some(Ok(l.to_string()));
        assert!(from_cache(&c, &key(256), build).unwrap().is_none(), "a miss");
        c.insert(&key(256), entry("d11")).unwrap();
        let (p, t) = from_cache(&c, &key(256), build).unwrap().unwrap();
        assert_eq!((p.as_str(), t.cached, t.entry.step.as_str()), ("d11", true, "d11"));
        assert!(from_cache(&c, &key(256), |_| None::<Result<String>>).unwrap().is_none(), "a label this build does not know: tuned again");
        let refused = |_: &str| Some(Err::<String, _>(Error::InvalidInput("d11 needs M ≤ 64".into())));
        assert!(from_cache(&c, &key(256), refused).unwrap().is_none(), "a step the shape refuses: tuned again");
        let failed = |_: &str| Some(Err::<String, _>(Error::Verification("out of memory".into())));
        assert!(from_cache(&c, &key(256), failed).err().unwrap().to_string().contains("out of memory"), "other errors are the caller's");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn candidates_that_cannot_run_are_pruned_but_the_rules_is_an_error() {
        let build = |x: &u32| if x % 2 == 0 { Ok(*x) } else { Err(Error::InvalidInput(format!("{x} is odd"))) };
        let (built, pruned) = build_candidates(vec![2u32, 3, 4, 5], |x| format!("c{x}"), build).unwrap();
        assert_eq!(built, vec![2, 4]);
        assert_eq!(pruned, vec!["c3 (invalid input: 3 is odd)".to_string(), "c5 (invalid input: 5 is odd)".to_string()]);
        let e = build_candidates(vec![1u32, 2], |x| format!("c{x}"), build).err().unwrap().to_string();
        assert!(e.contains("1 is odd"), "{e}");
    }

    #[test]
    fn summaries_and_gains_read_from_the_entry() {
        let e = entry("d11");
        assert_eq!(e.summary(), "d11 52.0 µs (rule d7); d7 57.2; d2m64 20.7; not timed: d2 (probe 9.0× the rule's)");
        assert!((e.gain_over_rule().unwrap() - 57.2 / 52.0).abs() < 1e-12);
        let t = Tuned { entry: e.clone(), cached: false, save_error: Some("disk full".into()) };
        assert_eq!(t.note(), format!("autotuned (tuned now, 1.100× the rule's d7): {} (not saved: disk full)", e.summary()));
        assert_eq!(Tuned { save_error: None, cached: true, ..t }.note(), format!("autotuned (cached, 1.100× the rule's d7): {}", e.summary()));
        let k = key(256).as_string();
        assert_eq!(k, "NVIDIA H100 80GB HBM3|sms=132|sm_90|driver=13000|ptx=0000000000000abc|host=0.1.0+e2|knobs=|f16|256x4096x14336");
    }

    #[test]
    fn the_fingerprint_is_stable_and_covers_the_kernels() {
        assert_eq!(kernels_fingerprint(), kernels_fingerprint());
        assert_ne!(kernels_fingerprint(), 0xcbf2_9ce4_8422_2325, "the PTX was hashed");
    }
}

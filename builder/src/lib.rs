//! `ptx-builder`: build a `#![no_std]` Rust kernel crate to PTX from any crate's `build.rs` — the role
//! rust-cuda's `cuda_builder` plays, on rustc's own `nvptx64-nvidia-cuda` backend.
//!
//! ```no_run
//! // build.rs of a crate that launches kernels written in the crate `../my-kernels`:
//! use ptx_builder::{PtxBuilder, Sm};
//!
//! fn main() {
//!     let built = PtxBuilder::new("../my-kernels")
//!         .target(Sm::Sm80)
//!         .build()
//!         .unwrap_or_else(|e| panic!("{e}"));
//!     // $OUT_DIR/my_kernels_sm_80.ptx, for `include_str!(concat!(env!("OUT_DIR"), "/my_kernels_sm_80.ptx"))`.
//!     assert_eq!(built[0].path.file_name().unwrap(), "my_kernels_sm_80.ptx");
//! }
//! ```
//!
//! What [`PtxBuilder::build`] does, per target:
//! 1. reads the nightly the kernel crate pins in its `rust-toolchain.toml` and, if rustup lacks it (or its
//!    `rust-src`/`llvm-tools` components), installs it once with `rustup toolchain install`, reported as a
//!    cargo warning (current rustup does not install a pinned toolchain on first use);
//! 2. runs `rustup run <nightly> cargo build --release --target nvptx64-nvidia-cuda -Zbuild-std=core` in
//!    the kernel crate, in a target directory of its own (the outer build holds the usual one's lock),
//!    with `-Ctarget-cpu=<sm>`, the PTX ISA feature, any `--cfg` given for that target, and the linker
//!    script `nvptx-link` (written next to the target directory): `llvm-link` → `opt` (internalize all but
//!    the kernels, O3) → `llc --nvptx-short-ptr`, from the toolchain's `llvm-tools`; the script also moves
//!    `//@entry-directive <kernel> <directive>` lines (from `global_asm!`) into that kernel's entry, which
//!    is how launch bounds (`.maxntid`, `.minnctapersm`) reach the PTX, and applies
//!    `//@param-align <kernel> <index> <align>` lines to that parameter's declaration (rustc stops at 16
//!    bytes; a `CUtensorMap` passed by value needs `.align 64`: `nvptx_std::grid_constant_tensor_maps!`);
//! 3. copies the PTX to `$OUT_DIR/<lib name>_<sm>.ptx`, writes `$OUT_DIR/<lib name>_launchers.rs`
//!    (typed host launchers of the crate's `#[kernel]` functions: [`launchers`]), and prints `cargo::rerun-if-changed` for the
//!    kernel crate's sources, manifest, build script and toolchain pin, plus any [`PtxBuilder::watch`]ed
//!    path (a path dependency, say).
//!
//! A kernel that fails to compile shows rustc's messages as rustc printed them ([`Error::Compile`]).
//! The outer cargo's environment meant for the build script (its `RUSTC`, rustflags, target, profile, …)
//! is kept away from the nested build; `CARGO_ENCODED_RUSTFLAGS` is set explicitly because an empty
//! one (what build scripts inherit) would silently override config rustflags.
pub mod launchers;

use std::{
    env, fmt, fs,
    path::{Path, PathBuf},
    process::{Command, Output},
};

/// The linker script rustc calls for `nvptx64-nvidia-cuda` (see the crate docs).
pub const NVPTX_LINK: &str = include_str!("nvptx-link");

/// A PTX target: the `-Ctarget-cpu` of the build and the `.target` of the PTX.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sm {
    /// Ampere A100 and later (`mma.sync`, `ldmatrix`, `cp.async`); runs on Hopper too.
    Sm80,
    /// Ampere consumer parts (RTX 30, A10).
    Sm86,
    /// Ada (RTX 40, L4, L40).
    Sm89,
    /// Hopper without the `a` features.
    Sm90,
    /// Hopper with `wgmma`, `setmaxnreg`, TMA multicast…: runs on compute capability 9.0 only.
    Sm90a,
}

impl Sm {
    /// `sm_80`, …
    pub fn name(self) -> &'static str {
        match self {
            Sm::Sm80 => "sm_80",
            Sm::Sm86 => "sm_86",
            Sm::Sm89 => "sm_89",
            Sm::Sm90 => "sm_90",
            Sm::Sm90a => "sm_90a",
        }
    }
}

/// One built PTX module.
#[derive(Clone, Debug)]
pub struct BuiltPtx {
    /// Its target.
    pub sm: Sm,
    /// Its module ([`PtxBuilder::module`]), or `None` for the whole crate.
    pub module: Option<String>,
    /// `$OUT_DIR/<lib name>_<sm>.ptx` (or in [`PtxBuilder::out_dir`]).
    pub path: PathBuf,
}

/// Why a build failed. Each message names what to do.
#[derive(Debug)]
pub enum Error {
    /// The kernel crate has no `rust-toolchain.toml` with a `channel` (and none was given).
    NoToolchainPin(PathBuf),
    /// rustup is not on `PATH`, in `$CARGO_HOME/bin` or in `~/.cargo/bin`.
    NoRustup {
        /// The toolchain that would have been used.
        channel: String,
    },
    /// `rustup toolchain install` (or `component add`) failed.
    Install {
        /// The toolchain.
        channel: String,
        /// rustup's messages.
        stderr: String,
    },
    /// The kernel crate did not compile; rustc's messages were printed to stderr as they came.
    Compile {
        /// The crate's directory.
        krate: PathBuf,
        /// The target.
        sm: Sm,
    },
    /// A file could not be read, written or run.
    Io(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let by_hand = |c: &str| format!("rustup toolchain install {c} --profile minimal -c rust-src -c llvm-tools");
        match self {
            Error::NoToolchainPin(p) => write!(f, "{} has no rust-toolchain.toml naming a nightly `channel` (or call .toolchain(…))", p.display()),
            Error::NoRustup { channel } => write!(f, "kernels are built with the nightly toolchain {channel} through rustup, and rustup was not found \
                (PATH, $CARGO_HOME/bin, ~/.cargo/bin). Install rustup (https://rustup.rs), then run: {}", by_hand(channel)),
            Error::Install { channel, stderr } => write!(f, "installing the device toolchain {channel} failed:\n{stderr}\nrun by hand: {}", by_hand(channel)),
            Error::Compile { krate, sm } => write!(f, "{} failed to compile for {} (nvptx64-nvidia-cuda); rustc's messages are above", krate.display(), sm.name()),
            Error::Io(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

/// Builds one kernel crate to PTX; one setter per option (see the crate docs for what `build` does).
#[derive(Clone, Debug)]
pub struct PtxBuilder {
    krate: PathBuf,
    targets: Vec<(Sm, Vec<String>)>,
    target_dir: Option<PathBuf>,
    out_dir: Option<PathBuf>,
    toolchain: Option<String>,
    ptx_isa: String,
    isa_for: Vec<(Sm, String)>,
    install: bool,
    watch: Vec<PathBuf>,
    modules: Vec<(String, Vec<String>)>,
    only: Option<Vec<String>>,
}

impl PtxBuilder {
    /// The kernel crate at `path`; a relative path is taken from the calling crate's directory
    /// (`CARGO_MANIFEST_DIR`). No target yet: add at least one with [`PtxBuilder::target`].
    pub fn new(path: impl AsRef<Path>) -> Self {
        let base = env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from).unwrap_or_default();
        PtxBuilder { krate: base.join(path), targets: vec![], target_dir: None, out_dir: None, toolchain: None,
                     ptx_isa: "ptx80".into(), isa_for: vec![], install: true, watch: vec![], modules: vec![], only: None }
    }

    /// Also build for `sm` (one PTX module per target).
    pub fn target(mut self, sm: Sm) -> Self {
        if !self.targets.iter().any(|(s, _)| *s == sm) {
            self.targets.push((sm, vec![]));
        }
        self
    }

    /// Pass `--cfg <cfg>` to the build for `sm` only (adds the target if needed): e.g. compile the
    /// Hopper-only kernels (`#[cfg(lab_sm90)]`) into the `sm_90a` module alone.
    pub fn cfg(mut self, sm: Sm, cfg: &str) -> Self {
        self = self.target(sm);
        if let Some((_, cfgs)) = self.targets.iter_mut().find(|(s, _)| *s == sm) {
            cfgs.push(cfg.to_string());
        }
        self
    }

    /// The nested build's target directory (default: `<workspace target dir>/ptx-builder/<lib name>`, from
    /// `OUT_DIR`; one subdirectory per target). It must not be the outer build's own.
    pub fn target_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.target_dir = Some(dir.into());
        self
    }

    /// Where the `.ptx` files are copied (default: `OUT_DIR`).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// The nightly to build with (default: the kernel crate's `rust-toolchain.toml`).
    pub fn toolchain(mut self, channel: &str) -> Self {
        self.toolchain = Some(channel.to_string());
        self
    }

    /// The PTX ISA feature (default `ptx80`: PTX 8.0, what TMA and `wgmma` need; a CUDA 12.0+ driver).
    pub fn ptx_isa(mut self, feature: &str) -> Self {
        self.ptx_isa = feature.to_string();
        self
    }

    /// The PTX ISA feature for `sm` alone (adds the target if needed), in place of [`PtxBuilder::ptx_isa`]'s:
    /// e.g. `ptx81` for an `sm_90a` module that uses `red.global.add.v4.f32` (a CUDA 12.1+ driver) while
    /// the `sm_80` module keeps PTX 8.0.
    pub fn ptx_isa_for(mut self, sm: Sm, feature: &str) -> Self {
        self = self.target(sm);
        self.isa_for.retain(|(s, _)| *s != sm);
        self.isa_for.push((sm, feature.to_string()));
        self
    }

    /// Whether a missing toolchain is installed with rustup (default: yes) or is an error.
    pub fn install_toolchain(mut self, yes: bool) -> Self {
        self.install = yes;
        self
    }

    /// Build the crate once more per target as module `name`, with its cargo `features` (and no default
    /// features): `<lib>_<sm>_<name>.ptx`. With modules, the crate is built only as its modules (one PTX
    /// file each per target, so a program JIT-compiles only what it loads); without, as one
    /// `<lib>_<sm>.ptx`. The modules of one target build one after another in its target directory, so
    /// the dependencies (`core` from `-Zbuild-std`, path crates) are compiled once; the linker keeps
    /// each module's PTX under its own name, so a module cargo finds fresh keeps its own output.
    pub fn module(mut self, name: &str, features: &[&str]) -> Self {
        self.modules.retain(|(n, _)| n != name);
        self.modules.push((name.to_string(), features.iter().map(|f| f.to_string()).collect()));
        self
    }

    /// Keep only the modules named in `names` (an edit loop that rebuilds one family's PTX); an unknown
    /// name is an error at [`PtxBuilder::build`].
    pub fn only_modules(mut self, names: &[&str]) -> Self {
        self.only = Some(names.iter().map(|n| n.to_string()).collect());
        self
    }

    /// Rerun the calling build script when `path` (relative to the calling crate) changes too — a path
    /// dependency of the kernel crate, say.
    pub fn watch(mut self, path: impl AsRef<Path>) -> Self {
        let base = env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from).unwrap_or_default();
        self.watch.push(base.join(path));
        self
    }

    /// Builds every target; see the crate docs.
    pub fn build(self) -> Result<Vec<BuiltPtx>, Error> {
        let manifest = self.krate.join("Cargo.toml");
        let lib = lib_name(&manifest)?;
        if env::var_os("OUT_DIR").is_some() {
            // Called from a build script: tell cargo what to watch.
            for p in ["src", "Cargo.toml", "build.rs", "rust-toolchain.toml"].map(|p| self.krate.join(p)).iter().chain(&self.watch) {
                println!("cargo::rerun-if-changed={}", p.display());
            }
        }
        let channel = match &self.toolchain {
            Some(c) => c.clone(),
            None => pinned_channel(&self.krate)?,
        };
        let rustup = rustup().ok_or_else(|| Error::NoRustup { channel: channel.clone() })?;
        ensure_toolchain(&rustup, &channel, self.install)?;
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => PathBuf::from(env::var_os("OUT_DIR").ok_or_else(|| Error::Io("OUT_DIR is not set: call build() from a build script, or give .out_dir(…)".into()))?),
        };
        let target_dir = match &self.target_dir {
            Some(d) => d.clone(),
            None => default_target_dir(&out_dir).join(&lib),
        };
        // Absolute paths: the nested cargo runs in the kernel crate's directory, and the same target
        // directory reached by another spelling would give other rustflags (a full rebuild).
        let absolute = |p: PathBuf| if p.is_absolute() { p } else { env::current_dir().map(|d| d.join(&p)).unwrap_or(p) };
        let (out_dir, target_dir) = (absolute(out_dir), absolute(target_dir));
        let krate = fs::canonicalize(&self.krate).unwrap_or_else(|_| absolute(self.krate.clone()));
        fs::create_dir_all(&target_dir).map_err(|e| Error::Io(format!("cannot create {}: {e}", target_dir.display())))?;
        let linker = target_dir.join("nvptx-link");
        if fs::read_to_string(&linker).ok().as_deref() != Some(NVPTX_LINK) {
            fs::write(&linker, NVPTX_LINK).map_err(|e| Error::Io(format!("cannot write {}: {e}", linker.display())))?;
            make_executable(&linker)?;
        }
        // Modules to build: the named ones (all, or `only_modules`), else the whole crate as one.
        let mut modules: Vec<(Option<String>, Vec<String>)> = self.modules.iter().map(|(n, f)| (Some(n.clone()), f.clone())).collect();
        if let Some(only) = &self.only {
            if let Some(bad) = only.iter().find(|n| !self.modules.iter().any(|(m, _)| m == *n)) {
                return Err(Error::Io(format!("no module `{bad}` (modules: {})", self.modules.iter().map(|(m, _)| m.as_str()).collect::<Vec<_>>().join(", "))));
            }
            modules.retain(|(n, _)| n.as_ref().is_some_and(|n| only.contains(n)));
        }
        if modules.is_empty() {
            modules.push((None, vec![]));
        }
        // The targets build side by side (each nested build is one codegen unit: one core), each in its
        // own target directory, its modules one after another; results and errors come back in the order
        // the targets (then modules) were given.
        let results: Vec<Result<Vec<BuiltPtx>, Error>> = std::thread::scope(|scope| {
            let jobs: Vec<_> = self.targets.iter().map(|(sm, cfgs)| {
                let (rustup, channel, krate, linker, lib, out_dir, modules) = (&rustup, &channel, &krate, &linker, &lib, &out_dir, &modules);
                let dir = target_dir.join(sm.name());
                let isa = self.isa_for.iter().find(|(s, _)| s == sm).map_or(&self.ptx_isa, |(_, isa)| isa);
                scope.spawn(move || {
                    modules.iter().map(|(module, features)| {
                        let job = Job { rustup, channel, krate, target_dir: &dir, linker, sm: *sm, cfgs, isa, lib, module: module.as_deref(), features };
                        let ptx = build_one(&job)?;
                        let dest = match module {
                            Some(m) => out_dir.join(format!("{lib}_{}_{m}.ptx", sm.name())),
                            None => out_dir.join(format!("{lib}_{}.ptx", sm.name())),
                        };
                        fs::copy(&ptx, &dest).map_err(|e| Error::Io(format!("cannot copy {} to {}: {e}", ptx.display(), dest.display())))?;
                        Ok(BuiltPtx { sm: *sm, module: module.clone(), path: dest })
                    }).collect::<Result<Vec<_>, Error>>()
                })
            }).collect();
            jobs.into_iter().map(|j| j.join().unwrap_or_else(|_| Err(Error::Io("a PTX build thread panicked".into())))).collect()
        });
        let built: Vec<BuiltPtx> = results.into_iter().collect::<Result<Vec<_>, Error>>()?.into_iter().flatten().collect();
        // Typed launchers from the #[kernel] records of every target (a kernel built for several targets
        // must have one signature).
        let mut records: Vec<launchers::Record> = vec![];
        for b in &built {
            let ptx = fs::read_to_string(&b.path).map_err(|e| Error::Io(format!("cannot read {}: {e}", b.path.display())))?;
            for r in launchers::read(&target_dir.join(b.sm.name()).join("kernel-records"), &ptx)? {
                match records.iter().find(|o| o.name == r.name) {
                    Some(o) if *o != r => return Err(Error::Io(format!("kernel `{}` has different signatures on different targets", r.name))),
                    Some(_) => {}
                    None => records.push(r),
                }
            }
        }
        records.sort_by(|a, b| a.name.cmp(&b.name));
        let dest = out_dir.join(format!("{lib}_launchers.rs"));
        let text = launchers::generate(&lib, &records);
        if fs::read_to_string(&dest).ok().as_deref() != Some(text.as_str()) {
            fs::write(&dest, text).map_err(|e| Error::Io(format!("cannot write {}: {e}", dest.display())))?;
        }
        Ok(built)
    }
}

/// `<target dir of the outer build>/ptx-builder`, found from `OUT_DIR` (`<target>/<profile>/build/<pkg>-<hash>/out`).
fn default_target_dir(out_dir: &Path) -> PathBuf {
    out_dir.ancestors().nth(4).map(|t| t.join("ptx-builder")).unwrap_or_else(|| out_dir.join("ptx-builder"))
}

/// The crate's library name: `[lib] name`, else the package name with `-` → `_`.
fn lib_name(manifest: &Path) -> Result<String, Error> {
    let text = fs::read_to_string(manifest).map_err(|e| Error::Io(format!("cannot read {}: {e}", manifest.display())))?;
    let (mut section, mut package, mut lib) = (String::new(), None, None);
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.to_string();
        } else if let Some(v) = line.strip_prefix("name").map(str::trim_start).and_then(|v| v.strip_prefix('=')) {
            let v = v.trim().trim_matches('"').to_string();
            match section.as_str() {
                "[package]" => package = Some(v),
                "[lib]" => lib = Some(v),
                _ => {}
            }
        }
    }
    lib.or(package).map(|n| n.replace('-', "_")).ok_or_else(|| Error::Io(format!("{} names no package", manifest.display())))
}

/// The `[package]` name of `manifest` as written (`my-kernels`).
fn package_name(manifest: &Path) -> Option<String> {
    let text = fs::read_to_string(manifest).ok()?;
    let mut in_package = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package && let Some(v) = line.strip_prefix("name").map(str::trim_start).and_then(|v| v.strip_prefix('=')) {
            return Some(v.trim().trim_matches('"').to_string());
        }
    }
    None
}

fn pinned_channel(krate: &Path) -> Result<String, Error> {
    let pin = krate.join("rust-toolchain.toml");
    fs::read_to_string(&pin).ok()
        .and_then(|t| t.lines().find_map(|l| l.trim().strip_prefix("channel").and_then(|v| v.split('"').nth(1)).map(str::to_string)))
        .ok_or(Error::NoToolchainPin(krate.to_path_buf()))
}

/// `rustup`: on `PATH`, or in `$CARGO_HOME/bin` / `~/.cargo/bin`.
fn rustup() -> Option<PathBuf> {
    let works = |p: &Path| Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success());
    let mut candidates = vec![PathBuf::from("rustup")];
    if let Some(home) = env::var_os("CARGO_HOME") {
        candidates.push(PathBuf::from(home).join("bin/rustup"));
    }
    if let Some(home) = env::var_os("HOME") {
        candidates.push(PathBuf::from(home).join(".cargo/bin/rustup"));
    }
    candidates.into_iter().find(|p| works(p))
}

fn run(rustup: &Path, args: &[&str]) -> Result<Output, Error> {
    Command::new(rustup).args(args).env_remove("RUSTUP_TOOLCHAIN").output()
        .map_err(|e| Error::Io(format!("cannot run {} {}: {e}", rustup.display(), args.join(" "))))
}

/// Installs `channel` with `rust-src` and `llvm-tools` if rustup lacks either.
fn ensure_toolchain(rustup: &Path, channel: &str, install: bool) -> Result<(), Error> {
    let stdout = |o: Output| String::from_utf8_lossy(&o.stdout).into_owned();
    // Whether the channel is installed, and with both components.
    let state = || -> Result<(bool, bool), Error> {
        let installed = stdout(run(rustup, &["toolchain", "list"])?).lines().any(|l| l.starts_with(channel));
        let components = if installed { stdout(run(rustup, &["component", "list", "--installed", "--toolchain", channel])?) } else { String::new() };
        Ok((installed, installed && ["rust-src", "llvm-tools"].iter().all(|c| components.lines().any(|l| l.starts_with(c)))))
    };
    let (installed, complete) = state()?;
    if complete {
        return Ok(());
    }
    if !install {
        return Err(Error::Install { channel: channel.into(), stderr: "not installed, and install_toolchain(false) was asked".into() });
    }
    println!("cargo::warning=installed the device toolchain {channel} with rust-src and llvm-tools (only the PTX build needs it; once): \
              rustup toolchain install {channel} --profile minimal -c rust-src -c llvm-tools");
    // Two build scripts installing into a fresh rustup home at once (CI's first build) can fail one on the other's
    // clean-up ("could not remove 'setup' file: …/rustup-init", before it installs anything): what counts is the
    // toolchain being there, so a failed install waits, looks again and tries again (three tries, 5 and 10 s apart).
    let mut out = None;
    for attempt in 0..3u64 {
        if attempt > 0 {
            std::thread::sleep(std::time::Duration::from_secs(5 * attempt));
            if state()?.1 {
                return Ok(());
            }
        }
        let o = if installed {
            run(rustup, &["component", "add", "--toolchain", channel, "rust-src", "llvm-tools"])?
        } else {
            run(rustup, &["toolchain", "install", channel, "--profile", "minimal", "-c", "rust-src", "-c", "llvm-tools"])?
        };
        if o.status.success() || state()?.1 {
            return Ok(());
        }
        out = Some(o);
    }
    let stderr = out.map(|o| String::from_utf8_lossy(&o.stderr).into_owned()).unwrap_or_default();
    Err(Error::Install { channel: channel.into(), stderr })
}

#[cfg(unix)]
fn make_executable(p: &Path) -> Result<(), Error> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(p, fs::Permissions::from_mode(0o755)).map_err(|e| Error::Io(format!("cannot chmod {}: {e}", p.display())))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<(), Error> {
    Ok(())
}

/// One nested build: a target, and a module (its features) or the whole crate.
struct Job<'a> {
    rustup: &'a Path,
    channel: &'a str,
    krate: &'a Path,
    target_dir: &'a Path,
    linker: &'a Path,
    sm: Sm,
    cfgs: &'a [String],
    isa: &'a str,
    lib: &'a str,
    module: Option<&'a str>,
    features: &'a [String],
}

fn build_one(job: &Job) -> Result<PathBuf, Error> {
    let Job { rustup, channel, krate, target_dir, linker, sm, cfgs, isa, lib, module, features } = *job;
    let mut flags = vec![format!("-Ctarget-cpu={}", sm.name()), format!("-Ctarget-feature=+{isa}"), format!("-Clinker={}", linker.display())];
    for c in cfgs {
        flags.extend(["--cfg".to_string(), c.clone()]);
    }
    // The #[kernel] records (`launchers`): written by the attribute while the crate compiles. A target
    // directory whose records were never completed (built by an older ptx-builder, or the directory
    // removed) has the kernel crate itself recompiled once, so that the attribute runs again.
    let records = target_dir.join("kernel-records");
    let complete = records.join(".complete");
    if !complete.exists() {
        let package = package_name(&krate.join("Cargo.toml")).unwrap_or_else(|| lib.to_string());
        if let Ok(dirs) = fs::read_dir(target_dir.join("nvptx64-nvidia-cuda/release/.fingerprint")) {
            for d in dirs.flatten() {
                let n = d.file_name().to_string_lossy().to_string();
                if n.starts_with(&format!("{package}-")) || n.starts_with(&format!("{lib}-")) {
                    let _ = fs::remove_dir_all(d.path());
                }
            }
        }
    }
    let mut cmd = Command::new(rustup);
    cmd.current_dir(krate)
        .env("NVPTX_KERNEL_RECORDS", &records)
        .args(["run", channel, "cargo", "build", "--release", "--target", "nvptx64-nvidia-cuda", "-Zbuild-std=core", "--color", "always"])
        .arg("--target-dir").arg(target_dir)
        .env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"));
    // A module: its features, and the linker told to keep its PTX under the module's name too (cargo
    // names a cdylib without a hash, so the modules of one target directory share one output file).
    if let Some(m) = module {
        cmd.arg("--no-default-features").arg("--features").arg(features.join(",")).env("NVPTX_LINK_MODULE", m);
    } else {
        cmd.env_remove("NVPTX_LINK_MODULE");
    }
    let outer_only = ["RUSTFLAGS", "RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTDOC", "RUSTUP_TOOLCHAIN", "CARGO",
                      "CARGO_TARGET_DIR", "CARGO_BUILD_TARGET", "CARGO_BUILD_TARGET_DIR", "CARGO_BUILD_RUSTFLAGS",
                      "TARGET", "HOST", "OUT_DIR", "PROFILE", "OPT_LEVEL", "DEBUG", "NUM_JOBS"];
    let outer_prefix = ["CARGO_PROFILE_", "CARGO_CFG_", "CARGO_FEATURE_", "CARGO_PKG_", "CARGO_MANIFEST_", "CARGO_TARGET_", "DEP_"];
    for (k, _) in env::vars() {
        if outer_only.contains(&k.as_str()) || outer_prefix.iter().any(|p| k.starts_with(p)) {
            cmd.env_remove(&k);
        }
    }
    let what = module.map_or_else(|| sm.name().to_string(), |m| format!("{}, module {m}", sm.name()));
    let out = cmd.output().map_err(|e| Error::Io(format!("cannot run cargo for {} ({what}): {e}", krate.display())))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        // rustc's diagnostics as they are (from the first error or warning on).
        let start = stderr.find("\u{1b}[0m\u{1b}[1m\u{1b}[38;5;9merror").or_else(|| stderr.find("error")).unwrap_or(0);
        eprintln!("{}", &stderr[start..]);
        return Err(Error::Compile { krate: krate.to_path_buf(), sm });
    }
    for line in stderr.lines() {
        let plain = strip_ansi(line);
        if plain.starts_with("warning:") && !plain.contains("unstable feature specified for `-Ctarget-feature`") && !plain.contains("generated") {
            println!("cargo::warning={lib} ({what}): {}", plain.trim_start_matches("warning: "));
        }
    }
    let _ = fs::create_dir_all(&records).and_then(|_| fs::write(&complete, ""));
    let ptx = match module {
        None => target_dir.join(format!("nvptx64-nvidia-cuda/release/{lib}.ptx")),
        Some(m) => target_dir.join(format!("nvptx64-nvidia-cuda/release/deps/{lib}.ptx.{m}")),
    };
    if ptx.exists() {
        return Ok(ptx);
    }
    if module.is_some() && !job_retried(target_dir) {
        // Fresh to cargo but linked before modules existed (an older linker script): link it again.
        let _ = fs::remove_dir_all(target_dir.join("nvptx64-nvidia-cuda/release/.fingerprint"));
        return build_one(job);
    }
    Err(Error::Io(format!("{lib} built for {} but {} is missing (did nvptx-link run?)", sm.name(), ptx.display())))
}

/// Whether [`build_one`] already cleared `target_dir`'s fingerprints once in this process (it does so
/// at most once per directory: a second miss is an error, not a loop).
fn job_retried(target_dir: &Path) -> bool {
    static DONE: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
    if done.iter().any(|d| d == target_dir) {
        return true;
    }
    done.push(target_dir.to_path_buf());
    false
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lib_names_come_from_the_manifest() {
        let dir = env::temp_dir().join(format!("ptx-builder-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let m = dir.join("Cargo.toml");
        fs::write(&m, "[package]\nname = \"my-kernels\"\nversion = \"0.1.0\"\n").unwrap();
        assert_eq!(lib_name(&m).unwrap(), "my_kernels");
        fs::write(&m, "[package]\nname = \"my-kernels\"\n[lib]\ncrate-type = [\"cdylib\"]\nname = \"k\"\n").unwrap();
        assert_eq!(lib_name(&m).unwrap(), "k");
        assert!(matches!(pinned_channel(&dir), Err(Error::NoToolchainPin(_))));
        fs::write(dir.join("rust-toolchain.toml"), "[toolchain]\nchannel = \"nightly-2026-05-20\"\n").unwrap();
        assert_eq!(pinned_channel(&dir).unwrap(), "nightly-2026-05-20");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn options_accumulate_and_messages_name_the_fix() {
        let b = PtxBuilder::new("k").target(Sm::Sm80).cfg(Sm::Sm90a, "lab_sm90").target(Sm::Sm80);
        assert_eq!(b.targets, vec![(Sm::Sm80, vec![]), (Sm::Sm90a, vec!["lab_sm90".to_string()])]);
        let e = Error::NoRustup { channel: "nightly-x".into() }.to_string();
        assert!(e.contains("rustup toolchain install nightly-x --profile minimal -c rust-src -c llvm-tools"), "{e}");
        assert_eq!(default_target_dir(Path::new("/w/target/release/build/host-abc/out")), Path::new("/w/target/ptx-builder"));
        assert!(NVPTX_LINK.starts_with("#!/usr/bin/env bash") && NVPTX_LINK.contains("//@entry-directive") && NVPTX_LINK.contains("//@param-align"));
    }
}

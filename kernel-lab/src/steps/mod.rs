//! Every kernel of `kernels-gpu`, declared once.
//!
//! A ladder step is one descriptor in its family's file here (`reduce.rs`, `sgemm.rs`, `hgemm.rs`,
//! `hgemm_warp.rs`, `fp8.rs`, `attention.rs`, `comm.rs`; the self-tests and replay kernels in `selftest.rs` and `bankcheck.rs`): its PTX
//! entry, family, label, target, block size, launch bounds, dynamic shared memory (computed from the
//! `layout` constants the kernel itself uses), grid rule, the bank-model trace that predicts it, and
//! the instructions the PTX test must find. Everything else derives from these lists: the kernel
//! loader ([`crate::runtime::gpu::Gpu::kernel`]), each family's step list, the traces, `--list`, the
//! suite, the benches and the PTX tests. `cargo test` fails when a kernel in the PTX has no
//! descriptor, a descriptor has no kernel, or the launch bounds in the PTX disagree with it.
pub mod attention;
pub mod bankcheck;
pub mod check;
pub mod comm;
pub mod fp8;
pub mod gemm;
pub mod hgemm;
pub mod hgemm_warp;
pub mod reduce;
pub mod selftest;
pub mod sgemm;

/// The PTX target a kernel is built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Target {
    /// `.target sm_80`: Ampere and later (`mma.sync`, `ldmatrix`, `cp.async`).
    Sm80,
    /// `.target sm_90a`: Hopper only (`wgmma`, TMA, `setmaxnreg`, `stmatrix`).
    Sm90a,
}

impl Target {
    /// All targets, in the order they are tried.
    pub const ALL: [Target; 2] = [Target::Sm80, Target::Sm90a];

    /// The module's name, as in `kernels_<name>.ptx` and error messages.
    pub fn name(self) -> &'static str {
        match self {
            Target::Sm80 => "sm_80",
            Target::Sm90a => "sm_90a",
        }
    }

    /// The oldest driver (`cuDriverGetVersion`: 12010 for CUDA 12.1) that JIT-compiles this module: its
    /// PTX ISA version (`sm_80` 8.0, `sm_90a` 8.1: kernel-lab/build.rs; the PTX test checks both lines).
    pub fn min_driver(self) -> i32 {
        match self {
            Target::Sm80 => 12000,
            Target::Sm90a => 12010,
        }
    }

    /// Whether a GPU of compute capability `(major, minor)` runs this module. `sm_90a` code runs only
    /// on compute capability 9.0 exactly (the `a` features are not forward compatible).
    pub fn runs_on(self, cc: (i32, i32)) -> bool {
        match self {
            Target::Sm80 => cc >= (8, 0),
            Target::Sm90a => cc == (9, 0),
        }
    }
}

/// Kernel families; the suite prints one table per family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Family {
    /// Seed 003's reduction ladder.
    Reduce,
    /// Single-warp checks of the device primitives.
    Selftest,
    /// Replay microkernels for checking the bank model against Nsight Compute.
    Bankcheck,
    /// Seed 004's SGEMM ladder on CUDA cores.
    Sgemm,
    /// Seed 001's single-warp 16×16×16 tensor-core ladder.
    HgemmWarp,
    /// Block-level tensor-core HGEMM (seeds 000, 001) and the Hopper steps.
    Hgemm,
    /// Attention forward: the unfused baseline and FlashAttention-2 (issue 17).
    Attention,
    /// FP8 (e4m3) GEMM on Hopper: per-tensor and block scaling, against cuBLASLt (issue 16).
    Fp8,
    /// The library's GEMM entry point (`kernel_lab::gemm`) on a shape sweep: no kernels of its own,
    /// it runs an HGEMM step chosen per shape.
    Gemm,
    /// All-reduce across GPUs over NVLink peer memory (issue 52; `kernel_lab::comm`, the
    /// `kernel-lab allreduce` command; never in [`Family::ALL`]: it needs a group of GPUs).
    Comm,
    /// Device-side inputs and verification (`runtime::device_check`; never in [`Family::ALL`]).
    Check,
    /// A kernel of your own crate, loaded with `Gpu::load_kernel` (never in [`Family::ALL`]).
    External,
}

impl Family {
    /// The name used by `--family` and in `--steps family:label`.
    pub fn name(self) -> &'static str {
        match self {
            Family::Reduce => "reduce",
            Family::Selftest => "selftest",
            Family::Bankcheck => "bankcheck",
            Family::Sgemm => "sgemm",
            Family::HgemmWarp => "hgemm-warp",
            Family::Hgemm => "hgemm",
            Family::Gemm => "gemm",
            Family::Fp8 => "fp8",
            Family::Attention => "attention",
            Family::Comm => "comm",
            Family::Check => "check",
            Family::External => "external",
        }
    }
    /// Every family.
    pub const ALL: [Family; 9] = [Family::Reduce, Family::Selftest, Family::Bankcheck, Family::Sgemm, Family::HgemmWarp, Family::Hgemm, Family::Gemm, Family::Fp8, Family::Attention];

    /// The family called `name`.
    pub fn by_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// Launch bounds a kernel declares in its own file (`launch_bounds!` in `kernels-gpu`), which
/// `ptx-builder`'s `nvptx-link` writes into the entry as `.maxntid` and `.minnctapersm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LaunchBounds {
    /// `.maxntid N, 1, 1`: the most threads per block the kernel may be launched with.
    pub max_threads: u32,
    /// `.minnctapersm B`: blocks per SM ptxas must leave room for (register budget).
    pub min_blocks_per_sm: Option<u32>,
}

/// `.maxntid threads` alone.
pub const fn bounds(max_threads: u32) -> Option<LaunchBounds> {
    Some(LaunchBounds { max_threads, min_blocks_per_sm: None })
}

/// `.maxntid threads` and `.minnctapersm blocks`.
pub const fn bounds_min(max_threads: u32, blocks: u32) -> Option<LaunchBounds> {
    Some(LaunchBounds { max_threads, min_blocks_per_sm: Some(blocks) })
}

/// What the PTX test checks in a kernel's body (`bench/tests/ptx_contents.rs`): instruction texts it must
/// contain, texts it must not contain, and exact counts of instructions starting with a prefix.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct PtxCheck {
    /// Substrings the body must contain (the instructions the step is about).
    pub has: &'static [&'static str],
    /// Substrings it must not contain (what the step has not learned yet, or must not do).
    pub lacks: &'static [&'static str],
    /// `(prefix, n)`: exactly `n` instructions start with `prefix`.
    pub count: &'static [(&'static str, usize)],
    /// `(prefix, n)`: at least `n` instructions start with `prefix`.
    pub at_least: &'static [(&'static str, usize)],
}

impl PtxCheck {
    /// No checks beyond the ones every kernel gets.
    pub const NONE: PtxCheck = PtxCheck { has: &[], lacks: &[], count: &[], at_least: &[] };
    /// Only `has`.
    pub const fn has(has: &'static [&'static str]) -> PtxCheck {
        PtxCheck { has, ..PtxCheck::NONE }
    }
}

/// One kernel: what every family's descriptor holds.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct KernelInfo {
    /// PTX entry name (the Rust function name, `#[unsafe(no_mangle)]`).
    pub name: &'static str,
    /// Its family.
    pub family: Family,
    /// Its label in the family's ladder (`v0`, `h6`, …), or `-`.
    pub step: &'static str,
    /// The PTX module it is in.
    pub target: Target,
    /// Threads per block it is launched with.
    pub block_threads: u32,
    /// Launch bounds in its PTX entry, if its file declares them.
    pub launch_bounds: Option<LaunchBounds>,
    /// Dynamic shared memory per block, in bytes.
    pub dyn_smem_bytes: u32,
    /// What the step changes.
    pub about: &'static str,
    /// What the PTX test must find.
    #[serde(skip)]
    pub ptx: PtxCheck,
}

impl KernelInfo {
    /// `family:label`, how `--steps` names a step unambiguously.
    pub fn qualified(&self) -> String {
        format!("{}:{}", self.family.name(), self.step)
    }
}

/// Every kernel, family by family, in ladder order.
pub fn all() -> impl Iterator<Item = &'static KernelInfo> {
    reduce::STEPS.iter().map(|s| &s.kernel)
        .chain(selftest::KERNELS.iter())
        .chain(sgemm::STEPS.iter().map(|s| &s.kernel))
        .chain(sgemm::KERNELS.iter())
        .chain(hgemm_warp::STEPS.iter().map(|s| &s.kernel))
        .chain(hgemm::STEPS.iter().map(|s| &s.kernel))
        .chain(fp8::STEPS.iter().map(|s| &s.kernel))
        .chain(fp8::KERNELS.iter())
        .chain(fp8::WEIGHT_ONLY.iter())
        .chain(fp8::WEIGHT_ONLY_ROUTES.iter().map(|st| &st.kernel))
        .chain(attention::STEPS.iter().map(|s| &s.kernel))
        .chain(attention::DECODE.iter())
        .chain(attention::PREFILL.iter())
        .chain(attention::BACKWARD.iter())
        .chain(comm::KERNELS.iter())
        .chain(bankcheck::KERNELS.iter())
        .chain(check::KERNELS.iter())
}

/// The kernel called `name`.
pub fn find(name: &str) -> Option<&'static KernelInfo> {
    all().find(|k| k.name == name)
}

/// The kernels of one family.
pub fn family(f: Family) -> impl Iterator<Item = &'static KernelInfo> {
    all().filter(move |k| k.family == f)
}

/// A step label from the command line: `family:label` or a bare `label` (which must name exactly one
/// step across the families given).
pub fn resolve_label(spec: &str, families: &[Family]) -> Result<&'static KernelInfo, String> {
    let ladder = |k: &&KernelInfo| k.step != "-";
    if let Some((fam, label)) = spec.split_once(':') {
        let f = Family::by_name(fam).ok_or_else(|| format!(
            "unknown family `{fam}` in `{spec}` (known: {})", Family::ALL.map(|f| f.name()).join(", ")))?;
        return family(f).filter(ladder).find(|k| k.step == label).ok_or_else(|| format!(
            "`{label}` is not a {} step (its steps: {})", f.name(), family(f).filter(ladder).map(|k| k.step).collect::<Vec<_>>().join(", ")));
    }
    let matches: Vec<&KernelInfo> = all().filter(ladder).filter(|k| k.step == spec && families.contains(&k.family)).collect();
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(format!("unknown step `{spec}` (steps: {})",
                          all().filter(ladder).filter(|k| families.contains(&k.family)).map(|k| k.qualified()).collect::<Vec<_>>().join(", "))),
        many => Err(format!("step `{spec}` is ambiguous: write one of {}",
                            many.iter().map(|k| k.qualified()).collect::<Vec<_>>().join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_labels_unique_per_family() {
        let v: Vec<&KernelInfo> = all().collect();
        for (i, a) in v.iter().enumerate() {
            assert!(v[i + 1..].iter().all(|b| b.name != a.name), "{} declared twice", a.name);
            assert!(a.step == "-" || v[i + 1..].iter().all(|b| b.family != a.family || b.step != a.step), "{} used twice", a.qualified());
        }
    }

    #[test]
    fn find_returns_the_entry_or_none() {
        assert_eq!(find("reduce_v3").map(|k| k.step), Some("v3"));
        assert!(find("reduce_v99").is_none());
    }

    #[test]
    fn launch_bounds_admit_the_block_size() {
        for k in all() {
            if let Some(b) = k.launch_bounds {
                assert!(k.block_threads <= b.max_threads, "{}: launched with {} threads, .maxntid {}", k.name, k.block_threads, b.max_threads);
            }
        }
    }

    #[test]
    fn labels_resolve_per_family_and_ambiguity_is_refused() {
        let fams = Family::ALL;
        assert_eq!(resolve_label("hgemm:v9", &fams).unwrap().name, "hgemm_block_v9");
        assert_eq!(resolve_label("sgemm:v9", &fams).unwrap().name, "sgemm_v9");
        assert_eq!(resolve_label("h6", &fams).unwrap().name, "hgemm_tma_v6");
        let e = resolve_label("v9", &fams).unwrap_err();
        assert!(e.contains("ambiguous") && e.contains("sgemm:v9") && e.contains("hgemm:v9"), "{e}");
        assert_eq!(resolve_label("v9", &[Family::Sgemm]).unwrap().name, "sgemm_v9");
        assert!(resolve_label("hgemm:v99", &fams).unwrap_err().contains("not a hgemm step"));
        assert!(resolve_label("nope:v1", &fams).unwrap_err().contains("unknown family `nope`"));
        assert!(resolve_label("q7", &fams).unwrap_err().contains("unknown step `q7`"));
    }
}

//! The PTX modules `build.rs` compiled from `kernels-gpu` — one per family and target — embedded in
//! the binary, and the lookups the tests and the loader make in them (entry names, bodies, parameters).

use std::sync::OnceLock;

pub use crate::steps::Target;
use crate::steps::Family;

/// A PTX module: one family's kernels for one target (`kernels-gpu` is built once per family;
/// `kernel-lab/build.rs` lists the same names). A program JIT-compiles only the kernels it launches,
/// each cut from its module ([`Module::entry_module`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Module {
    /// The reduction ladder.
    Reduce,
    /// The SGEMM ladder (CUDA cores).
    Sgemm,
    /// The tensor-core HGEMM ladders (warp, block, Hopper, decode): the f16/bf16 GEMM's kernels.
    Hgemm,
    /// FP8 GEMM and quantization.
    Fp8,
    /// Attention.
    Attention,
    /// All-reduce over peer memory.
    Comm,
    /// Device-side fills and verification (`runtime::device_check`).
    Check,
    /// The primitives' self-tests and the bank-model replay kernels.
    Selftest,
}

impl Module {
    /// Every module.
    pub const ALL: [Module; 8] = [Module::Reduce, Module::Sgemm, Module::Hgemm, Module::Fp8, Module::Attention, Module::Comm, Module::Check, Module::Selftest];

    /// Its name (the kernels-gpu feature it is built with).
    pub fn name(self) -> &'static str {
        match self {
            Module::Reduce => "reduce",
            Module::Sgemm => "sgemm",
            Module::Hgemm => "hgemm",
            Module::Fp8 => "fp8",
            Module::Attention => "attention",
            Module::Comm => "comm",
            Module::Check => "check",
            Module::Selftest => "selftest",
        }
    }

    /// The module holding a registered family's kernels (`None` for kernels of your own crate).
    pub fn of(family: Family) -> Option<Module> {
        Some(match family {
            Family::Reduce => Module::Reduce,
            Family::Sgemm => Module::Sgemm,
            Family::HgemmWarp | Family::Hgemm | Family::Gemm => Module::Hgemm,
            Family::Fp8 => Module::Fp8,
            Family::Attention => Module::Attention,
            Family::Comm => Module::Comm,
            Family::Check => Module::Check,
            Family::Selftest | Family::Bankcheck => Module::Selftest,
            Family::External => return None,
        })
    }

    /// This module's PTX for `target`: the embedded text, or — for a fast edit loop —
    /// `kernels_gpu_<sm>_<module>.ptx` from the directory in `KERNEL_LAB_PTX_DIR` where that file exists
    /// (`ptx-build kernels-gpu --module NAME --out-dir DIR` writes it; said once on stderr, so a run
    /// never uses it silently). Empty when the crate is built without its `kernels` feature.
    pub fn ptx(self, target: Target) -> &'static str {
        static DEV: OnceLock<Vec<Option<&'static str>>> = OnceLock::new();
        let dev = DEV.get_or_init(|| Target::ALL.iter().flat_map(|&t| Module::ALL.map(move |m| dev_module(t, m))).collect());
        let ti = Target::ALL.iter().position(|&t| t == target).unwrap_or(0);
        let mi = Module::ALL.iter().position(|&m| m == self).unwrap_or(0);
        dev[ti * Module::ALL.len() + mi].unwrap_or(EMBEDDED[ti][mi])
    }

    /// [`entry_module`] of this module's PTX for `target`, with the module's entry spans found once per
    /// process (a scan of up to 17 MB of text), so that each kernel's cut costs only its own copy.
    pub fn entry_module(self, target: Target, name: &str) -> Option<String> {
        type Spans = Vec<(&'static str, usize, usize)>;
        static SPANS: OnceLock<Vec<OnceLock<Spans>>> = OnceLock::new();
        let all = SPANS.get_or_init(|| (0..Target::ALL.len() * Module::ALL.len()).map(|_| OnceLock::new()).collect());
        let ti = Target::ALL.iter().position(|&t| t == target).unwrap_or(0);
        let mi = Module::ALL.iter().position(|&m| m == self).unwrap_or(0);
        let ptx = self.ptx(target);
        cut_entry(ptx, all[ti * Module::ALL.len() + mi].get_or_init(|| entry_spans(ptx)), name)
    }
}

impl Target {
    /// Every module of this target, concatenated (for tests and fingerprints that look at all the
    /// kernels at once; the loader loads modules one by one with [`Module::ptx`]).
    pub fn ptx(self) -> &'static str {
        static ALL: OnceLock<Vec<String>> = OnceLock::new();
        let all = ALL.get_or_init(|| Target::ALL.iter().map(|&t| Module::ALL.iter().map(|m| m.ptx(t)).collect::<Vec<_>>().join("\n")).collect());
        &all[Target::ALL.iter().position(|&t| t == self).unwrap_or(0)]
    }
}

/// FNV-1a (64-bit) over the PTX of every target: stable across builds of the same kernels, different
/// after any change to one — the key under which measurements of these kernels (the autotune cache, the
/// GEMM cost model's calibration) are kept. Computed once per process.
pub fn kernels_fingerprint() -> u64 {
    static FP: OnceLock<u64> = OnceLock::new();
    *FP.get_or_init(|| {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for ptx in Target::ALL.map(|t| t.ptx()) {
            for &b in ptx.as_bytes() {
                h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
            }
            h = (h ^ 0xff).wrapping_mul(0x0100_0000_01b3);
        }
        h
    })
}

/// The PTX of the module that holds registered kernel `name` for `target` (the whole target's text for
/// a name the registry lacks): where its entry is looked up without scanning every module.
pub fn module_of(target: Target, name: &str) -> &'static str {
    match crate::steps::find(name).and_then(|k| Module::of(k.family)) {
        Some(m) => m.ptx(target),
        None => target.ptx(),
    }
}

/// `$KERNEL_LAB_PTX_DIR/kernels_gpu_<sm>_<module>.ptx`, read once and kept for the process's life.
fn dev_module(t: Target, m: Module) -> Option<&'static str> {
    let path = std::path::Path::new(&std::env::var_os("KERNEL_LAB_PTX_DIR")?).join(format!("kernels_gpu_{}_{}.ptx", t.name(), m.name()));
    let text = std::fs::read_to_string(&path).ok()?;
    eprintln!("note: {} {} PTX from {} (KERNEL_LAB_PTX_DIR), not the one built into this binary", t.name(), m.name(), path.display());
    Some(Box::leak(text.into_boxed_str()))
}

#[cfg(feature = "kernels")]
macro_rules! embedded {
    ($sm:literal) => {
        [
            include_str!(concat!(env!("OUT_DIR"), "/kernels_gpu_", $sm, "_reduce.ptx")),
            include_str!(concat!(env!("OUT_DIR"), "/kernels_gpu_", $sm, "_sgemm.ptx")),
            include_str!(concat!(env!("OUT_DIR"), "/kernels_gpu_", $sm, "_hgemm.ptx")),
            include_str!(concat!(env!("OUT_DIR"), "/kernels_gpu_", $sm, "_fp8.ptx")),
            include_str!(concat!(env!("OUT_DIR"), "/kernels_gpu_", $sm, "_attention.ptx")),
            include_str!(concat!(env!("OUT_DIR"), "/kernels_gpu_", $sm, "_comm.ptx")),
            include_str!(concat!(env!("OUT_DIR"), "/kernels_gpu_", $sm, "_check.ptx")),
            include_str!(concat!(env!("OUT_DIR"), "/kernels_gpu_", $sm, "_selftest.ptx")),
        ]
    };
}
/// The embedded modules, by target (`Target::ALL` order) and module (`Module::ALL` order).
#[cfg(feature = "kernels")]
static EMBEDDED: [[&str; 8]; 2] = [embedded!("sm_80"), embedded!("sm_90a")];
#[cfg(not(feature = "kernels"))]
static EMBEDDED: [[&str; 8]; 2] = [[""; 8]; 2];


/// The `.entry` names in a PTX module, in order.
pub fn entries(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .filter_map(|l| l.trim_start().strip_prefix(".visible .entry "))
        .map(|rest| rest.split('(').next().unwrap_or(rest).trim())
        .collect()
}

/// The body (from `.entry name(` to the closing `}` at column 0) of kernel `name` in `ptx`.
pub fn entry_body<'a>(ptx: &'a str, name: &str) -> Option<&'a str> {
    let start = ptx.find(&format!(".visible .entry {name}("))?;
    let rest = &ptx[start..];
    let end = rest.find("\n}").map(|e| e + 2).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// The sizes in bytes of kernel `name`'s parameters, from its `.entry` header (`.param .u64 …` → 8,
/// `.param .f32 …` → 4, `.param .align A .b8 x[N]` → N); `None` if the entry or a type is not found.
pub fn entry_params(ptx: &str, name: &str) -> Option<Vec<u32>> {
    let start = ptx.find(&format!(".entry {name}("))?;
    let head = ptx[start..].split(')').next()?;
    head.lines().filter_map(|l| l.trim().strip_prefix(".param")).map(|rest| {
        let words: Vec<&str> = rest.split_whitespace().collect();
        if let Some(array) = words.iter().find(|w| w.contains('[')) {
            return array.split('[').nth(1)?.trim_end_matches([']', ',']).parse().ok();
        }
        let ty = words.iter().find(|w| !w.starts_with(".align") && !w.starts_with(".ptr") && w.starts_with('.'))?;
        ty[2..].parse::<u32>().ok().map(|bits| bits / 8)
    }).collect()
}

/// A module of kernel `name` alone, cut from `ptx`: the text with every other `.entry` removed (the
/// header, the `.global` tables and `.extern` declarations stay). The driver JIT-compiles a module
/// whole, so a program that launches a few kernels of a family compiles those few, not the family's
/// hundred (seconds each with a cold driver cache). Sound only while no two kernels share state through
/// a module-scope variable: every `.global` of ours is an initialized read-only table (a test checks).
/// `None` when `ptx` has no entry `name`.
pub fn entry_module(ptx: &str, name: &str) -> Option<String> {
    cut_entry(ptx, &entry_spans(ptx), name)
}

/// [`entry_module`] with `ptx`'s [`entry_spans`] given.
fn cut_entry(ptx: &str, spans: &[(&str, usize, usize)], name: &str) -> Option<String> {
    let (_, keep_start, keep_end) = *spans.iter().find(|s| s.0 == name)?;
    let mut out = String::with_capacity(keep_end - keep_start + 64 * 1024);
    let mut at = 0;
    for &(_, start, end) in spans {
        out.push_str(&ptx[at..start]);
        if start == keep_start {
            out.push_str(&ptx[start..end]);
        }
        at = end;
    }
    out.push_str(&ptx[at..]);
    Some(out)
}

/// Each `.visible .entry`'s name and byte range in `ptx` (from its header line to its closing `}` at
/// column 0 and that line's newline), in one pass.
pub fn entry_spans(ptx: &str) -> Vec<(&str, usize, usize)> {
    let mut spans = vec![];
    let mut open: Option<(&str, usize)> = None;
    let mut at = 0;
    for line in ptx.split_inclusive('\n') {
        let next = at + line.len();
        if let Some(rest) = line.strip_prefix(".visible .entry ") {
            open = Some((rest.split('(').next().unwrap_or(rest).trim(), at));
        } else if line.trim_end() == "}" {
            if let Some((name, start)) = open.take() {
                spans.push((name, start, next));
            }
        }
        at = next;
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Braces opened minus closed, `//` comments left out.
    fn brace_balance(text: &str) -> i64 {
        text.lines().map(|l| l.split("//").next().unwrap_or(""))
            .map(|l| l.matches('{').count() as i64 - l.matches('}').count() as i64).sum()
    }

    #[test]
    fn an_entry_module_holds_one_entry_and_everything_else() {
        let ptx = ".version 8.1\n.target sm_90a\n.global .align 4 .b8 t[4] = {0, 1, 2, 3};\n\
                   .visible .entry a(\n.param .u32 a_param_0\n)\n{\n\t{\n\tret;\n\t}\n}\n\
                   // .globl b\n.visible .entry b(\n)\n{\n\tbar.sync \t0;\n}\n";
        let b = entry_module(ptx, "b").unwrap();
        assert_eq!(entries(&b), vec!["b"]);
        assert!(b.starts_with(".version 8.1\n.target sm_90a\n.global") && b.contains("bar.sync") && !b.contains("ret;"));
        let a = entry_module(ptx, "a").unwrap();
        assert_eq!(entries(&a), vec!["a"]);
        assert!(a.contains("ret;") && a.contains(".global") && !a.contains("bar.sync"));
        assert!(entry_module(ptx, "c").is_none());
        // Every kernel of ours: its module has that one entry and balanced braces, and the entries' spans
        // plus the common text are the whole module (nothing lost between entries).
        for t in Target::ALL {
            for ptx in Module::ALL.map(|m| m.ptx(t)) {
                let spans = entry_spans(ptx);
                assert_eq!(spans.iter().map(|s| s.0).collect::<Vec<_>>(), entries(ptx), "{}: every entry has a span", t.name());
                let in_entries: usize = spans.iter().map(|s| s.2 - s.1).sum();
                for &(n, start, end) in &spans {
                    assert_eq!(brace_balance(&ptx[start..end]), 0, "{} {n}: braces balance", t.name());
                }
                for &(n, start, end) in spans.iter().step_by(spans.len() / 8 + 1) {
                    let m = entry_module(ptx, n).unwrap();
                    assert_eq!(Module::ALL.iter().find(|x| x.ptx(t) == ptx).and_then(|x| x.entry_module(t, n)).as_ref(), Some(&m), "{} {n}: cached spans", t.name());
                    assert_eq!(entries(&m), vec![n], "{} {n}: one entry", t.name());
                    assert_eq!(m.len(), ptx.len() - in_entries + (end - start), "{} {n}: the common text and its entry", t.name());
                }
            }
        }
    }

    #[test]
    fn module_scope_variables_are_read_only_tables() {
        // Per-kernel modules (`entry_module`) give each kernel its own copy of a module-scope variable:
        // fine for initialized tables, wrong for state two kernels share (a counter, a flag). Such a
        // variable would need its kernels loaded from one module (`Gpu::module`).
        for t in Target::ALL {
            for (m, ptx) in Module::ALL.map(|m| (m, m.ptx(t))) {
                // (Module-scope `.shared` is per CTA, so a copy per module changes nothing.)
                for l in ptx.lines().filter(|l| l.starts_with(".global") || l.starts_with(".visible .global")) {
                    assert!(l.contains(" = {"), "{} {}: a module-scope variable without an initializer: {l}", t.name(), m.name());
                }
            }
        }
    }

    #[test]
    fn entry_parameters_are_sized() {
        let ptx = ".visible .entry k(\n\t.param .u64 .ptr .align 1 k_param_0,\n\t.param .u32 k_param_1,\n\t.param .f32 k_param_2,\n\t.param .align 16 .b8 k_param_3[128]\n)\n{\n}\n";
        assert_eq!(entry_params(ptx, "k"), Some(vec![8, 4, 4, 128]));
        assert_eq!(entry_params(ptx, "nope"), None);
        // Every kernel of ours has readable parameters (none only where its header declares none).
        for t in Target::ALL {
            for ptx in Module::ALL.map(|m| m.ptx(t)) {
                for name in entries(ptx) {
                    let parameterless = ptx.contains(&format!(".entry {name}()"));
                    assert!(entry_params(ptx, name).is_some_and(|p| p.is_empty() == parameterless), "{name}");
                }
            }
        }
    }

    #[test]
    fn entries_and_bodies_are_found() {
        let ptx = ".visible .entry a(\n.param .u32 a_param_0\n)\n{\n\tret;\n}\n.visible .entry b(\n)\n{\n\tbar.sync \t0;\n}\n";
        assert_eq!(entries(ptx), vec!["a", "b"]);
        assert!(entry_body(ptx, "b").unwrap().contains("bar.sync"));
        assert!(!entry_body(ptx, "a").unwrap().contains("bar.sync"));
        assert!(entry_body(ptx, "c").is_none());
    }

    #[test]
    fn sm90a_runs_only_on_cc_9_0() {
        assert!(Target::Sm90a.runs_on((9, 0)));
        assert!(!Target::Sm90a.runs_on((8, 9)));
        assert!(!Target::Sm90a.runs_on((10, 0)));
        assert!(Target::Sm80.runs_on((9, 0)) && Target::Sm80.runs_on((8, 0)) && !Target::Sm80.runs_on((7, 5)));
    }
}

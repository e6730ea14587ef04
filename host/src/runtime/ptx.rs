//! The PTX modules `build.rs` compiled from `kernels-gpu`, embedded in the binary, and the two
//! lookups the tests and the loader make in them (entry names, entry bodies).

use std::sync::OnceLock;

pub use crate::steps::Target;

impl Target {
    /// This target's PTX: the embedded module, or — for a fast edit loop — `kernels_gpu_<sm>.ptx` from
    /// the directory in `KERNEL_LAB_PTX_DIR` where that file exists (`ptx-build … --out-dir DIR` writes
    /// it; said once on stderr, so a run never uses it silently).
    pub fn ptx(self) -> &'static str {
        static DEV: OnceLock<[Option<&'static str>; 2]> = OnceLock::new();
        let dev = DEV.get_or_init(|| Target::ALL.map(dev_module));
        let i = Target::ALL.iter().position(|&t| t == self).unwrap_or(0);
        dev[i].unwrap_or(match self {
            Target::Sm80 => SM80,
            Target::Sm90a => SM90A,
        })
    }
}

/// `$KERNEL_LAB_PTX_DIR/kernels_gpu_<sm>.ptx`, read once and kept for the process's life.
fn dev_module(t: Target) -> Option<&'static str> {
    let path = std::path::Path::new(&std::env::var_os("KERNEL_LAB_PTX_DIR")?).join(format!("kernels_gpu_{}.ptx", t.name()));
    let text = std::fs::read_to_string(&path).ok()?;
    eprintln!("note: {} PTX from {} (KERNEL_LAB_PTX_DIR), not the one built into this binary", t.name(), path.display());
    Some(Box::leak(text.into_boxed_str()))
}

/// PTX for `sm_80`.
pub static SM80: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels_gpu_sm_80.ptx"));
/// PTX for `sm_90a`.
pub static SM90A: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels_gpu_sm_90a.ptx"));

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_parameters_are_sized() {
        let ptx = ".visible .entry k(\n\t.param .u64 .ptr .align 1 k_param_0,\n\t.param .u32 k_param_1,\n\t.param .f32 k_param_2,\n\t.param .align 16 .b8 k_param_3[128]\n)\n{\n}\n";
        assert_eq!(entry_params(ptx, "k"), Some(vec![8, 4, 4, 128]));
        assert_eq!(entry_params(ptx, "nope"), None);
        // Every kernel of ours has readable parameters (none only where its header declares none).
        for t in Target::ALL {
            for name in entries(t.ptx()) {
                let parameterless = t.ptx().contains(&format!(".entry {name}()"));
                assert!(entry_params(t.ptx(), name).is_some_and(|p| p.is_empty() == parameterless), "{name}");
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

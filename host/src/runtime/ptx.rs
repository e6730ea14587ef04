//! The PTX modules `build.rs` compiled from `kernels-gpu`, embedded in the binary, and the two
//! lookups the tests and the loader make in them (entry names, entry bodies).

pub use crate::steps::Target;

impl Target {
    /// The embedded PTX text of this target's module.
    pub fn ptx(self) -> &'static str {
        match self {
            Target::Sm80 => SM80,
            Target::Sm90a => SM90A,
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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

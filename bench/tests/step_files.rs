//! The ladders' file rule (top-level README, "adding a step"): every step is one file in its ladder's
//! `steps/` folder, declared by `kernels-gpu/build.rs`, and **no step file imports another step** —
//! what several steps share lives beside `steps/` in a named module. So a step can be read, changed or
//! removed without touching the steps after it. Source-level, runs anywhere.
use std::{fs, path::Path};

/// The file stems of `dir`'s `.rs` files.
fn stems(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| p.file_stem().expect("a file name").to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// The step modules that `text` (a step file of ladder `ladder`) names in code — `super::<step>`,
/// `crate::<ladder>::<step>` — other than `me`; comment lines are skipped (a doc may cite a step).
fn steps_named(text: &str, ladder: &str, steps: &[String], me: &str) -> Vec<String> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut found = vec![];
    for line in text.lines().map(str::trim).filter(|l| !l.starts_with("//")) {
        for prefix in ["super::".to_string(), format!("crate::{ladder}::")] {
            for (i, _) in line.match_indices(prefix.as_str()) {
                let rest = &line[i + prefix.len()..];
                let name: String = rest.chars().take_while(|&c| word(c)).collect();
                if name != me && steps.contains(&name) && !found.contains(&name) {
                    found.push(name);
                }
            }
        }
    }
    found
}

#[test]
fn no_step_file_imports_another_step() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels-gpu/src");
    let mut checked = 0;
    let mut broken = vec![];
    for ladder in ["reduce", "sgemm", "hgemm", "fp8", "attention"] {
        let dir = src.join(ladder).join("steps");
        let steps = stems(&dir);
        assert!(steps.len() >= 5, "{}: only {} step files: is the path right?", dir.display(), steps.len());
        for me in &steps {
            let text = fs::read_to_string(dir.join(format!("{me}.rs"))).expect("readable source");
            let named = steps_named(&text, ladder, &steps, me);
            if !named.is_empty() {
                broken.push(format!("{ladder}/steps/{me}.rs uses {}", named.join(", ")));
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "checked only {checked} step files");
    assert!(broken.is_empty(), "step files importing other steps (move what they share into a module beside steps/):\n{}", broken.join("\n"));
}

#[test]
fn the_scan_finds_imports_and_skips_comments() {
    let steps = ["v3_a".to_string(), "v4_b".to_string(), "v5_c".to_string()];
    let text = "//! d4 extends [`super::v3_a`]\nuse super::v3_a::{decode, W};\nuse super::elem::F16;\nlet x = crate::hgemm::v4_b::f();\nsuper::v5_c::g();";
    assert_eq!(steps_named(text, "hgemm", &steps, "v5_c"), vec!["v3_a".to_string(), "v4_b".to_string()]);
    assert!(steps_named("use super::shared::{a};\n// use super::v3_a::x;", "hgemm", &steps, "v4_b").is_empty());
}

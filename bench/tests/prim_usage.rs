//! Every device primitive (the `nvptx-std` crate) is used by a kernel or a self-test of `kernels-gpu` or of an example kernel crate, or
//! by another primitive that is: a wrapper nothing exercises is untested PTX text. Source-level, runs
//! anywhere.
use std::{fs, path::{Path, PathBuf}};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.expect("directory entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Whole-word occurrences of `name` in `text`, outside the `fn name` declaration itself.
fn uses(text: &str, name: &str) -> usize {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).filter(|&(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word) && !text[..i].ends_with("fn ")
    }).count()
}

#[test]
fn every_primitive_is_used_by_a_kernel_or_self_test() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (mut prim, mut rest) = (vec![], vec![]);
    rust_files(&root.join("nvptx-std/src"), &mut prim);
    rust_files(&root.join("kernels-gpu/src"), &mut rest);
    // The example kernel crates are kernels too (built and run on a GPU by their examples).
    for ex in ["examples/rmsnorm/kernels/src", "examples/cuda-std-names/kernels/src"] {
        rust_files(&root.join(ex), &mut rest);
    }
    let read = |p: &PathBuf| fs::read_to_string(p).expect("readable source");
    let outside: String = rest.iter().map(read).collect();
    let inside: String = prim.iter().map(read).collect();
    let mut names = vec![];
    for line in inside.lines().map(str::trim) {
        for prefix in ["pub fn ", "pub unsafe fn ", "pub const fn "] {
            if let Some(rest) = line.strip_prefix(prefix) {
                names.push(rest.split(['(', '<']).next().unwrap_or("").to_string());
            }
        }
    }
    assert!(names.len() > 30, "found only {} primitives: is the path right?", names.len());
    // A primitive counts as used if a kernel uses it, or a primitive that a kernel uses calls it, or the
    // body of a macro a kernel calls (`printf!`) names it.
    let macro_bodies: String = inside.split("macro_rules! ").skip(1)
        .filter(|chunk| { let name = chunk.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next().unwrap_or(""); outside.contains(&format!("{name}!(")) })
        .map(|chunk| chunk.split("\n}\n").next().unwrap_or(""))
        .collect();
    let used_outside = |n: &str| uses(&outside, n) > 0 || uses(&macro_bodies, n) > 0;
    let unused: Vec<&String> = names.iter().filter(|n| !used_outside(n) && !names.iter().any(|m| m != *n && used_outside(m) && {
        // `m`'s body in nvptx-std mentions `n`: find `fn m` and scan to the next `fn `.
        inside.split("fn ").any(|chunk| chunk.starts_with(m.as_str()) && uses(chunk, n) > 0)
    })).collect();
    assert!(unused.is_empty(), "primitives no kernel or self-test uses (remove them or add a self-test): {unused:?}");
}

//! `ptx-build`: the builder from the command line, for a fast edit loop — rebuild only the PTX you
//! need into a directory, without relinking the host, and point the host at it:
//!
//! ```text
//! cargo run -q --release -p ptx-builder --bin ptx-build -- kernels-gpu --target sm_80 --out-dir target/dev-ptx
//! KERNEL_LAB_PTX_DIR=target/dev-ptx target/release/kernel-lab --family reduce --check
//! ```
//! Options: `--target sm_80|sm_86|sm_89|sm_90|sm_90a` (repeatable), `--cfg SM=NAME` (repeatable),
//! `--module NAME` (repeatable: build only that module, the crate with the feature `NAME`, into
//! `<lib>_<sm>_NAME.ptx`; kernels-gpu's modules are its families: `reduce`, `sgemm`, `hgemm`, `fp8`,
//! `attention`, `check`, `selftest`),
//! `--out-dir DIR` (default `target/dev-ptx`), `--target-dir DIR` (default
//! `target/ptx-builder/<lib>`: the one `kernel-lab/build.rs` uses, so both builds share incremental state).
use std::{path::PathBuf, process::exit};

use ptx_builder::{PtxBuilder, Sm};

fn sm(name: &str) -> Sm {
    match name {
        "sm_80" => Sm::Sm80,
        "sm_86" => Sm::Sm86,
        "sm_89" => Sm::Sm89,
        "sm_90" => Sm::Sm90,
        "sm_90a" => Sm::Sm90a,
        other => {
            eprintln!("error: unknown target `{other}` (sm_80, sm_86, sm_89, sm_90, sm_90a)");
            exit(2)
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(krate) = args.next().filter(|a| !a.starts_with('-')) else {
        eprintln!("usage: ptx-build CRATE_DIR [--target SM]... [--cfg SM=NAME]... [--module NAME]... [--out-dir DIR] [--target-dir DIR]");
        exit(2)
    };
    let krate = PathBuf::from(krate);
    let lib = krate.file_name().map(|n| n.to_string_lossy().replace('-', "_")).unwrap_or_default();
    let (mut b, mut out, mut tdir) = (PtxBuilder::new(&krate), PathBuf::from("target/dev-ptx"), PathBuf::from("target/ptx-builder").join(&lib));
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| { eprintln!("error: {a} needs a value"); exit(2) });
        match a.as_str() {
            "--target" => b = b.target(sm(&value())),
            "--cfg" => {
                let v = value();
                let Some((s, c)) = v.split_once('=') else { eprintln!("error: --cfg expects SM=NAME, got `{v}`"); exit(2) };
                b = b.cfg(sm(s), c);
            }
            "--module" => {
                let m = value();
                b = b.module(&m, &[m.as_str()]);
            }
            "--out-dir" => out = PathBuf::from(value()),
            "--target-dir" => tdir = PathBuf::from(value()),
            other => {
                eprintln!("error: unknown option `{other}`");
                exit(2)
            }
        }
    }
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("error: cannot create {}: {e}", out.display());
        exit(1)
    }
    match b.out_dir(&out).target_dir(&tdir).build() {
        Ok(built) => built.iter().for_each(|p| println!("{}", p.path.display())),
        Err(e) => {
            eprintln!("error: {e}");
            exit(1)
        }
    }
}

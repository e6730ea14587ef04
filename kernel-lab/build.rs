//! Builds `kernels-gpu` to PTX with this workspace's `ptx-builder` crate (the role rust-cuda's
//! `cuda_builder` plays; any crate can use it the same way) and stamps the commit the suite reports.
//!
//! Two targets: `sm_80` (everything that runs on Ampere and Hopper: `mma.sync`, `ldmatrix`, `cp.async`)
//! and `sm_90a` with `--cfg lab_sm90` (adds the Hopper-only kernels: `stmatrix`, `wgmma`, TMA); for
//! each, one module per family (kernels-gpu's features); at run time each kernel is cut from its
//! family's module and JIT-compiled alone (`runtime::ptx::entry_module`). `ptx-builder` installs the nightly pinned in `kernels-gpu/rust-toolchain.toml` when it is
//! missing, shows a kernel compile error as rustc printed it, and writes
//! `$OUT_DIR/kernels_gpu_<sm>_<family>.ptx`, which `src/runtime/ptx.rs` embeds with `include_str!`.
//! No CUDA toolkit is involved. Without the `kernels` feature nothing is built (the runtime alone).
use std::{path::PathBuf, process::Command};

use ptx_builder::{PtxBuilder, Sm};

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("..");
    // The commit the suite reports (results are tied to it).
    let git = |args: &[&str]| Command::new("git").current_dir(&root).args(args).output().ok()
        .filter(|o| o.status.success()).map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if let Some(head) = git(&["rev-parse", "--short=12", "HEAD"]) {
        println!("cargo::rustc-env=KERNEL_LAB_COMMIT={head}");
    }
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        let dir = root.join(dir);
        println!("cargo::rerun-if-changed={}", dir.join("HEAD").display());
        println!("cargo::rerun-if-changed={}", dir.join("refs/heads").display());
    }
    println!("cargo::rerun-if-env-changed=NVPTX_LLVM_BIN");
    if std::env::var_os("CARGO_FEATURE_KERNELS").is_none() {
        return;
    }
    let mut builder = PtxBuilder::new("../kernels-gpu");
    // The families' modules; `src/runtime/ptx.rs` (`Module`) lists the same names.
    for family in ["reduce", "sgemm", "hgemm", "fp8", "attention", "comm", "check", "selftest"] {
        builder = builder.module(family, &[family]);
    }
    let built = builder
        .target(Sm::Sm80)
        .cfg(Sm::Sm90a, "lab_sm90")
        // PTX 8.1 for the Hopper module: SGEMM v23/v24's `red.global.add.v4.f32` (a CUDA 12.1+ driver).
        .ptx_isa_for(Sm::Sm90a, "ptx81")
        .watch("../layout/src")
        .watch("../layout/Cargo.toml")
        .watch("../nvptx-std/src")
        .watch("../nvptx-std/Cargo.toml")
        .build();
    if let Err(e) = built {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

//! Builds `kernels-gpu` to PTX (the role rust-cuda's `cuda_builder` plays) and embeds it in the host.
//!
//! For each target (`sm_80`: everything that runs on Ampere and Hopper; `sm_90a`: the same plus the
//! Hopper-only kernels under `--cfg lab_sm90`) it runs a nested
//! `cargo build --release --target nvptx64-nvidia-cuda -Zbuild-std=core` of `kernels-gpu` in its own
//! target directory (`target/nvptx-kernels/<sm>`), with `tools/nvptx-link` as the linker (llvm-link →
//! opt → llc from the toolchain's `llvm-tools`), and copies the PTX to `$OUT_DIR/kernels_<sm>.ptx`,
//! which `src/ptx.rs` embeds with `include_str!`. No CUDA toolkit is involved.
//!
//! Only the device build needs the nightly: the workspace builds on stable, and the nested build runs
//! `rustup run <pin> cargo …` with the toolchain pinned in `kernels-gpu/rust-toolchain.toml`. When that
//! toolchain (or its `rust-src`/`llvm-tools` components) is missing, this script installs it once with
//! `rustup toolchain install`, saying so; without rustup, or if the download fails, it stops with the
//! command to run by hand.
//!
//! Cargo reruns this script only when the kernel sources, the layout crate, the linker or the toolchain
//! pin change; the nested cargo itself is incremental. A kernel compile error is printed as rustc
//! printed it, followed by one line saying which target failed.
use std::{env, fs, path::{Path, PathBuf}, process::Command};

const TARGETS: [(&str, &[&str]); 2] = [("sm_80", &[]), ("sm_90a", &["--cfg", "lab_sm90"])];

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let root = manifest.parent().expect("host/ lives in the workspace root").to_path_buf();
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    for p in ["kernels-gpu/src", "kernels-gpu/Cargo.toml", "kernels-gpu/build.rs", "layout/src", "layout/Cargo.toml",
              "tools/nvptx-link", "kernels-gpu/rust-toolchain.toml"] {
        println!("cargo::rerun-if-changed={}", root.join(p).display());
    }
    println!("cargo::rerun-if-env-changed=NVPTX_LLVM_BIN");
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
    let toolchain = device_toolchain(&root);
    for (sm, extra) in TARGETS {
        let ptx = build_ptx(&root, &toolchain, sm, extra);
        fs::copy(&ptx, out_dir.join(format!("kernels_{sm}.ptx")))
            .unwrap_or_else(|e| fail(&format!("cannot copy {} to OUT_DIR: {e}", ptx.display())));
    }
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

/// The channel pinned in `kernels-gpu/rust-toolchain.toml`, installed (with `rust-src` and
/// `llvm-tools`) if it is not yet.
fn device_toolchain(root: &Path) -> String {
    let pin_file = root.join("kernels-gpu/rust-toolchain.toml");
    let pin = fs::read_to_string(&pin_file).unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", pin_file.display())));
    let channel = pin.lines().find_map(|l| l.trim().strip_prefix("channel")).and_then(|v| v.split('"').nth(1))
        .unwrap_or_else(|| fail(&format!("{} names no `channel = \"…\"`", pin_file.display()))).to_string();
    let by_hand = format!("rustup toolchain install {channel} --profile minimal -c rust-src -c llvm-tools");
    let Some(rustup) = rustup() else {
        fail(&format!("the kernels are built with the nightly toolchain {channel} through rustup, and rustup was not found \
                       (PATH, $CARGO_HOME/bin, ~/.cargo/bin). Install rustup (https://rustup.rs), then run: {by_hand}"));
    };
    let run = |args: &[&str]| Command::new(&rustup).args(args).env_remove("RUSTUP_TOOLCHAIN").output()
        .unwrap_or_else(|e| fail(&format!("cannot run {} {}: {e}", rustup.display(), args.join(" "))));
    let have = |out: std::process::Output| String::from_utf8_lossy(&out.stdout).into_owned();
    let installed = have(run(&["toolchain", "list"])).lines().any(|l| l.starts_with(&channel));
    let components = if installed { have(run(&["component", "list", "--installed", "--toolchain", &channel])) } else { String::new() };
    let complete = ["rust-src", "llvm-tools"].iter().all(|c| components.lines().any(|l| l.starts_with(c)));
    if !installed || !complete {
        println!("cargo::warning=installed the device toolchain {channel} with rust-src and llvm-tools (only the PTX build of kernels-gpu needs it; once): {by_hand}");
        let out = if installed {
            run(&["component", "add", "--toolchain", &channel, "rust-src", "llvm-tools"])
        } else {
            run(&["toolchain", "install", &channel, "--profile", "minimal", "-c", "rust-src", "-c", "llvm-tools"])
        };
        if !out.status.success() {
            eprintln!("{}", String::from_utf8_lossy(&out.stderr));
            fail(&format!("installing the device toolchain {channel} failed (rustup's messages are above); run by hand: {by_hand}"));
        }
    }
    channel
}

fn build_ptx(root: &Path, toolchain: &str, sm: &str, extra: &[&str]) -> PathBuf {
    let target_dir = root.join("target").join("nvptx-kernels").join(sm);
    let linker = root.join("tools").join("nvptx-link");
    let mut flags = vec![format!("-Ctarget-cpu={sm}"), "-Ctarget-feature=+ptx80".to_string(),
                         format!("-Clinker={}", linker.display())];
    flags.extend(extra.iter().map(|s| s.to_string()));
    let mut cmd = Command::new(rustup().unwrap_or_else(|| fail("rustup disappeared")));
    cmd.current_dir(root.join("kernels-gpu"))
        .args(["run", toolchain, "cargo", "build", "--release", "--target", "nvptx64-nvidia-cuda", "-Zbuild-std=core", "--color", "always"])
        .arg("--target-dir").arg(&target_dir)
        // An empty CARGO_ENCODED_RUSTFLAGS (what build scripts inherit) would silently override any
        // config rustflags, so the flags are set here explicitly (TOOLCHAIN.md §2).
        .env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f"));
    for (k, _) in env::vars() {
        let outer_only = ["RUSTFLAGS", "RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTDOC", "RUSTUP_TOOLCHAIN", "CARGO",
                          "CARGO_TARGET_DIR", "CARGO_BUILD_TARGET", "CARGO_BUILD_TARGET_DIR", "CARGO_BUILD_RUSTFLAGS",
                          "TARGET", "HOST", "OUT_DIR", "PROFILE", "OPT_LEVEL", "DEBUG", "NUM_JOBS"];
        let outer_prefix = ["CARGO_PROFILE_", "CARGO_CFG_", "CARGO_FEATURE_", "CARGO_PKG_", "CARGO_MANIFEST_",
                            "CARGO_ENCODED_RUSTFLAGS", "CARGO_TARGET_", "DEP_"];
        if outer_only.contains(&k.as_str()) || outer_prefix.iter().any(|p| k.starts_with(p)) {
            if k != "CARGO_ENCODED_RUSTFLAGS" {
                cmd.env_remove(&k);
            }
        }
    }
    let out = cmd.output().unwrap_or_else(|e| fail(&format!("cannot run cargo for kernels-gpu ({sm}): {e}")));
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        // Show rustc's diagnostics as they are (they start at the first "error"/"warning" line).
        let start = stderr.find("\u{1b}[0m\u{1b}[1m\u{1b}[38;5;9merror").or_else(|| stderr.find("error"))
            .unwrap_or(0);
        eprintln!("{}", &stderr[start..]);
        fail(&format!("kernels-gpu failed to compile for {sm} (nvptx64-nvidia-cuda); rustc's messages are above"));
    }
    for line in stderr.lines() {
        let plain = strip_ansi(line);
        if plain.starts_with("warning:") && !plain.contains("unstable feature specified for `-Ctarget-feature`")
            && !plain.contains("generated") {
            println!("cargo::warning=kernels-gpu ({sm}): {}", plain.trim_start_matches("warning: "));
        }
    }
    let ptx = target_dir.join("nvptx64-nvidia-cuda/release/kernels_gpu.ptx");
    if !ptx.exists() {
        fail(&format!("kernels-gpu built for {sm} but {} is missing (did tools/nvptx-link run?)", ptx.display()));
    }
    ptx
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

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(1);
}

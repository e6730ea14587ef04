//! `--list`: every kernel's descriptor, with the driver's resource counts where a GPU is present.
use std::fmt::Write as _;

use kernel_lab_bench::{runtime::gpu::Gpu, steps};

/// `--list`: every registered kernel; with a GPU, also its registers, local and static shared memory.
pub fn list(gpu: Option<&Gpu>) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{:<24} {:<9} {:<5} {:<7} {:>6} {:>9} {:>5} {:>6} {:>7}  {}",
                     "kernel", "family", "step", "target", "block", "dyn smem", "regs", "local", "st smem", "what it does");
    for k in steps::all() {
        let res = gpu.and_then(|g| g.kernel(k.name).ok()).and_then(|k| k.resources().ok());
        let f = |v: Option<i32>| v.map(|v| v.to_string()).unwrap_or_else(|| "-".into());
        let _ = writeln!(s, "{:<24} {:<9} {:<5} {:<7} {:>6} {:>9} {:>5} {:>6} {:>7}  {}",
            k.name, k.family.name(), k.step, k.target.name(), k.block_threads, k.dyn_smem_bytes,
            f(res.map(|r| r.registers)), f(res.map(|r| r.local_bytes)), f(res.map(|r| r.static_smem_bytes)), k.about);
    }
    if gpu.is_none() {
        let _ = writeln!(s, "(no GPU: registers and memory columns need the driver)");
    }
    s
}


#[cfg(test)]
mod tests {
    #[test]
    fn list_names_every_kernel_without_a_gpu() {
        let s = super::list(None);
        for k in kernel_lab_bench::steps::all() {
            assert!(s.contains(k.name), "{}", k.name);
        }
    }
}

//! Memory checked up front: a measurement states the device and host bytes it will allocate, and is
//! refused with one line — the shape, the bytes needed, the bytes free — before anything is allocated,
//! instead of running out of memory (or swapping) minutes into a run.
use crate::{
    error::{DriverContext, Error, Result},
    runtime::gpu::Gpu,
};

/// Bytes as GiB with two decimals.
fn gib(b: u64) -> String {
    format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64)
}

/// `Err` naming `what` and both sizes when `device` bytes exceed `device_free` or `host` bytes exceed
/// `host_free` (`None`: unknown, not checked).
pub fn fits(what: &str, device: u64, device_free: u64, host: u64, host_free: Option<u64>) -> Result<()> {
    if device > device_free {
        return Err(Error::InvalidInput(format!("{what} needs {} of device memory, {} is free: refused before allocating", gib(device), gib(device_free))));
    }
    if let Some(free) = host_free.filter(|&f| host > f) {
        return Err(Error::InvalidInput(format!("{what} needs {} of host memory, {} is available: refused before allocating", gib(host), gib(free))));
    }
    Ok(())
}

/// `MemAvailable` from `/proc/meminfo`, where there is one.
pub fn host_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = text.lines().find_map(|l| l.strip_prefix("MemAvailable:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}

/// Checks `device` and `host` bytes against the GPU's free memory (`cuMemGetInfo`, less 5% for the
/// libraries' own workspaces) and the host's available memory.
pub fn check(gpu: &Gpu, what: &str, device: u64, host: u64) -> Result<()> {
    let (free, _) = gpu.ctx.mem_get_info().during(|| "cuMemGetInfo".to_string())?;
    fits(what, device, free as u64 / 20 * 19, host, host_available())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_what_and_both_sizes() {
        assert!(fits("x", 10, 10, 5, Some(5)).is_ok());
        assert!(fits("x", 10, 10, 5, None).is_ok());
        let e = fits("sgemm 131072x131072x131072", 3 << 36, 141 << 30, 0, None).unwrap_err().to_string();
        assert!(e.contains("sgemm 131072x131072x131072 needs 192.00 GiB of device memory, 141.00 GiB is free"), "{e}");
        let e = fits("y", 1, 2, 3 << 30, Some(1 << 30)).unwrap_err().to_string();
        assert!(e.contains("3.00 GiB of host memory, 1.00 GiB is available"), "{e}");
        // Monotone: needing more never turns a refusal into a pass.
        for need in [0u64, 1, 1 << 20, 1 << 40] {
            for free in [0u64, 1, 1 << 20, 1 << 40] {
                if fits("z", need, free, 0, None).is_err() {
                    assert!(fits("z", need + 1, free, 0, None).is_err());
                }
            }
        }
        assert!(host_available().is_none_or(|b| b > 0));
    }
}

//! Helpers for the criterion benches: GPU time from CUDA events fed to criterion through
//! `Bencher::iter_custom`, so criterion's statistics run on device time, not host wall-clock.
use std::time::Duration;

use cudarc::driver::sys::CUevent_flags;
use kernel_lab::{Error, Result, runtime::gpu::Gpu};

/// The GPU, or `None` after printing why the benches are skipped (no driver or no device).
pub fn gpu_or_skip(bench: &str) -> Option<Gpu> {
    kernel_lab::runtime::gpu::gpu_or_skip(&format!("bench {bench}"))
}

/// GPU time of `iters` back-to-back calls of `work`, between two CUDA events on the library's stream,
/// behind a hold (`kernel_lab::runtime::timing::hold`) long enough for the host to enqueue them all,
/// so the first call does not wait for the host.
pub fn gpu_time(gpu: &Gpu, iters: u64, mut work: impl FnMut() -> Result<()>) -> Result<Duration> {
    let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let err = |what: &'static str| move |source| Error::Driver { what: what.into(), source };
    let start = gpu.ctx.new_event(flags).map_err(err("creating a bench event"))?;
    let end = gpu.ctx.new_event(flags).map_err(err("creating a bench event"))?;
    kernel_lab::runtime::timing::hold(gpu, kernel_lab::runtime::timing::HOLD_MIN_NS * iters.clamp(1, 100))?;
    start.record(&gpu.stream).map_err(err("recording the start event"))?;
    for _ in 0..iters {
        work()?;
    }
    end.record(&gpu.stream).map_err(err("recording the end event"))?;
    end.synchronize().map_err(err("waiting for the benched work"))?;
    let ms = start.elapsed_ms(&end).map_err(err("reading the event time"))?;
    Ok(Duration::from_secs_f64(ms as f64 * 1e-3))
}

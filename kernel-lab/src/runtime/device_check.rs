//! Inputs and verification on the device (`kernels-gpu/src/check/`): a buffer of any size is filled
//! with random values without a host copy, and an output is compared with a reference output where
//! both live, with three scalars coming back. This is what lets a 20 GB GEMM output or a 2^33-element
//! reduction be checked in seconds with bounded host memory (issue 18).
use cudarc::driver::{CudaSlice, DeviceRepr};
pub use layout::random::Dist;

use crate::{
    error::{Error, Result},
    launch,
    runtime::gpu::{Gpu, Kernel},
    steps::check::BLOCK,
};

/// How a device buffer's elements are stored (its bits; the fill and compare kernels per kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemKind {
    /// IEEE f32.
    F32,
    /// IEEE f16 (bits in a `u16`).
    F16,
    /// bfloat16 (bits in a `u16`).
    Bf16,
}

impl ElemKind {
    /// Bytes per element.
    pub const fn bytes(self) -> usize {
        match self {
            ElemKind::F32 => 4,
            ElemKind::F16 | ElemKind::Bf16 => 2,
        }
    }
    /// The name in messages.
    pub const fn name(self) -> &'static str {
        match self {
            ElemKind::F32 => "f32",
            ElemKind::F16 => "f16",
            ElemKind::Bf16 => "bf16",
        }
    }
    fn fill_kernel(self) -> &'static str {
        match self {
            ElemKind::F32 => "check_fill_f32",
            ElemKind::F16 => "check_fill_f16",
            ElemKind::Bf16 => "check_fill_bf16",
        }
    }
    fn compare_kernel(self) -> &'static str {
        match self {
            ElemKind::F32 => "check_compare_f32",
            ElemKind::F16 => "check_compare_f16",
            ElemKind::Bf16 => "check_compare_bf16",
        }
    }
}

/// Blocks for a grid-stride pass over `n` elements: enough for a few waves, never more than needed.
fn grid(gpu: &Gpu, n: usize) -> u32 {
    (n.div_ceil(BLOCK as usize) as u64).clamp(1, gpu.info.sms as u64 * 16) as u32
}

fn check_kind<T>(kind: ElemKind, what: &str) -> Result<()> {
    if std::mem::size_of::<T>() != kind.bytes() {
        return Err(Error::InvalidInput(format!("{what}: a buffer of {}-byte elements cannot hold {}", std::mem::size_of::<T>(), kind.name())));
    }
    Ok(())
}

/// Fills `buf` (elements of `kind`) with `layout::random::value(dist, seed, i)` for every index `i`,
/// rounded to `kind`. Enqueued on the library's stream.
pub fn fill<T: DeviceRepr>(gpu: &Gpu, buf: &mut CudaSlice<T>, kind: ElemKind, dist: Dist, seed: u64) -> Result<()> {
    check_kind::<T>(kind, "fill")?;
    let k = gpu.kernel(kind.fill_kernel())?;
    let (n, dist) = (buf.len() as u64, dist as u32);
    // SAFETY: `check_fill_*(g_out, n, seed, dist)` writes exactly elements 0..n of `g_out`, which `buf`
    // holds (its element size matches the kernel's, checked above); BLOCK threads, any grid.
    unsafe { launch!(gpu, &k, grid = grid(gpu, buf.len()), &mut *buf, &n, &seed, &dist) }
}

/// A device buffer of `n` elements of `kind` filled as [`fill`] does.
pub fn random<T: DeviceRepr + cudarc::driver::ValidAsZeroBits>(gpu: &Gpu, n: usize, kind: ElemKind, dist: Dist, seed: u64) -> Result<CudaSlice<T>> {
    let mut buf = gpu.zeros::<T>(n)?;
    fill(gpu, &mut buf, kind, dist, seed)?;
    Ok(buf)
}

/// `Σ x` of an f32 buffer, summed in f64 on the device (exact when every partial sum is an integer
/// below 2^53, as for [`Dist::SmallInt`] inputs). Waits for the result.
pub fn sum_f64(gpu: &Gpu, x: &CudaSlice<f32>) -> Result<f64> {
    let k = gpu.kernel("check_sum_f64")?;
    let mut acc = gpu.zeros::<f64>(1)?;
    let n = x.len() as u64;
    // SAFETY: `check_sum_f64(g_in, n, g_acc)` reads elements 0..n of `x` and adds to `acc[0]`, a fresh
    // zeroed f64 nothing else touches until the download below (same stream).
    unsafe { launch!(gpu, &k, grid = grid(gpu, x.len()), x, &n, &mut acc)? };
    Ok(download_after(gpu, &k, &acc)?[0])
}

fn download_after<T: DeviceRepr + Default + Clone>(gpu: &Gpu, k: &Kernel, buf: &CudaSlice<T>) -> Result<Vec<T>> {
    gpu.sync_after(k.name())?;
    gpu.download(buf)
}

/// The result of comparing an output with its reference on the device.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Comparison {
    /// `‖got − want‖₂ / ‖want‖₂` over the elements of `got` that are not NaN (the absolute norm when
    /// `want` is all zeros).
    pub rel_l2: f64,
    /// Elements of `got` that are NaN: left holding the poison, or computed as NaN.
    pub unwritten: u64,
}

impl Comparison {
    /// `Err` naming `what` when any element was unwritten, or the error exceeds `tol` (NaN fails).
    pub fn check(&self, what: &str, n: usize, tol: f64) -> Result<()> {
        if self.unwritten > 0 {
            return Err(Error::Verification(format!("{what}: {} of {n} outputs not written (NaN)", self.unwritten)));
        }
        crate::runtime::verify::check_tolerance(what, self.rel_l2, tol)
    }
}

/// Compares `got` with `want` (both `kind`, the same length) on the device. Waits for the result.
pub fn compare<T: DeviceRepr>(gpu: &Gpu, got: &CudaSlice<T>, want: &CudaSlice<T>, kind: ElemKind) -> Result<Comparison> {
    check_kind::<T>(kind, "compare")?;
    if got.len() != want.len() {
        return Err(Error::InvalidInput(format!("compare: length mismatch, {} against {}", got.len(), want.len())));
    }
    let k = gpu.kernel(kind.compare_kernel())?;
    let (mut acc, mut unwritten) = (gpu.zeros::<f64>(2)?, gpu.zeros::<u64>(1)?);
    let n = got.len() as u64;
    // SAFETY: `check_compare_*(g_got, g_want, n, g_acc, g_unwritten)` reads elements 0..n of both
    // buffers (same length, element size checked) and adds to two fresh zeroed f64 and one u64 that
    // nothing else touches until the downloads below (same stream).
    unsafe { launch!(gpu, &k, grid = grid(gpu, got.len()), got, want, &n, &mut acc, &mut unwritten)? };
    let sums = download_after(gpu, &k, &acc)?;
    let unwritten = gpu.download(&unwritten)?[0];
    let rel_l2 = if sums[1] == 0.0 { sums[0].sqrt() } else { (sums[0] / sums[1]).sqrt() };
    Ok(Comparison { rel_l2, unwritten })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_fail_on_unwritten_or_large_errors() {
        assert!(Comparison { rel_l2: 1e-4, unwritten: 0 }.check("k", 10, 1e-3).is_ok());
        let e = Comparison { rel_l2: 0.0, unwritten: 3 }.check("k on 2x2x2", 10, 1e-3).unwrap_err().to_string();
        assert!(e.contains("3 of 10 outputs not written"), "{e}");
        assert!(Comparison { rel_l2: 2e-3, unwritten: 0 }.check("k", 10, 1e-3).is_err());
        assert!(Comparison { rel_l2: f64::NAN, unwritten: 0 }.check("k", 10, 1e-3).is_err());
        assert!(check_kind::<u16>(ElemKind::F32, "fill").unwrap_err().to_string().contains("2-byte elements cannot hold f32"));
        assert!(check_kind::<u16>(ElemKind::Bf16, "fill").is_ok());
    }
}

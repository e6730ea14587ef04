//! Launching one SGEMM step on device operands given by address (the f32 twin of
//! [`gemm::launch`](crate::gemm::launch)): the step's shape rule and grid, C zeroed first where the
//! step's splits of K add into it.
use crate::{
    error::{Error, Result},
    gemm::{Shape, launch::Operand},
    launch,
    runtime::gpu::{Gpu, Kernel},
    steps::sgemm::{self as steps, Step},
};

/// Enqueues `c = a · b` with `step`'s kernel (already loaded as `kernel`).
pub fn launch(gpu: &Gpu, kernel: &Kernel, step: &Step, s: Shape, a: Operand, b: Operand, c: Operand) -> Result<()> {
    s.check_buffers("f32", a.len, b.len, c.len)?;
    Operand::require_aligned16(&[("A", a), ("B", b), ("C", c)], step.kernel.name, String::new)?;
    s.check_step(step)?;
    let grid = s.grid(step, gpu.info.sms)?;
    let (m, n, k) = (s.m as u32, s.n as u32, s.k as u32);
    if step.args == crate::steps::gemm::Args::PointersSplitK {
        let (splits, k_split) = step.split_k(m, n, k, gpu.info.sms, 1);
        if splits > 1 && kernel.pdl {
            // v21–v26: C zeroed by a grid this kernel overlaps; its adds wait for that grid.
            zero_before_dependent(gpu, c, s.m * s.n)?;
        } else if splits > 1 {
            // The splits add into C: zero it first (on the same stream, so before the kernel).
            // SAFETY: `c.ptr` addresses at least M·N f32 of live device memory (the operand's length,
            // checked above; the caller keeps it alive across the call).
            unsafe { cudarc::driver::result::memset_d8_async(c.ptr, 0, s.m * s.n * 4, gpu.stream.cu_stream()) }
                .map_err(|source| Error::Launch { kernel: format!("{} (zeroing C)", kernel.name()), source })?;
        }
        // SAFETY: `sgemm_v12/v13/v14/v15(a, b, c, m, n, k, k_split)`: lengths checked, 16-byte
        // aligned operands (checked); grid `(⌈N/cols⌉, ⌈M/rows⌉ · splits)` of the step's tile (v12 128×128,
        // v14 64×128, v15 32×128, v13 16×32) from the same `split_k` as `k_split` (a multiple of 16, of 128 for
        // v13, or K itself with one split); with several splits C was zeroed just before on this
        // stream and only the kernel's atomic adds touch it — or, for a PDL-aware step (v21–v26: its
        // adds behind `griddepcontrol.wait`), the grid just enqueued zeroes it and writes nothing else,
        // and with one split the kernel waits for the previous grid before any access.
        return unsafe { launch!(gpu, kernel, grid = grid, &a.ptr, &b.ptr, &c.ptr, &m, &n, &k, &k_split) };
    }
    // SAFETY: every sgemm kernel takes (a: M·K f32, b: K·N f32, c: M·N f32, m, n, k) — lengths checked
    // above; operands 16-byte aligned (checked; v5/v6 load 16-byte vectors); the shape
    // meets the step's `needs` (checked); the grid covers C with the step's block tile, and block size
    // and shared memory come from its descriptor.
    unsafe { launch!(gpu, kernel, grid = grid, &a.ptr, &b.ptr, &c.ptr, &m, &n, &k) }
}

/// Enqueues `sgemm_zero_before_dependent` on C's `len` f32: the grid before a PDL-aware split-K step,
/// which lets that step start at once and is waited for only before the adds. At most two blocks per
/// SM, so every block is resident (and has let the GEMM start) from the first wave.
fn zero_before_dependent(gpu: &Gpu, c: Operand, len: usize) -> Result<()> {
    let k = gpu.kernel(steps::ZERO_BEFORE_DEPENDENT.name)?;
    let blocks = len.div_ceil(4).div_ceil(steps::ZERO_THREADS as usize).clamp(1, 2 * gpu.info.sms.max(1) as usize) as u32;
    let len = len as u64;
    // SAFETY: `sgemm_zero_before_dependent(c, len)`: `c` holds `len` = M·N f32 (checked by the caller),
    // 16-byte aligned (checked by `launch`); any grid and block size; the only grid after it that
    // touches C is the dependent GEMM, which waits for it first.
    unsafe { launch!(gpu, &k, grid = blocks, &c.ptr, &len) }
}


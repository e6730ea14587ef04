//! `cargo run --release --example rmsnorm`: RMSNorm of 16384 rows × 4096 f32 (256 MiB in, 256 MiB out,
//! beyond L2) with a kernel from our own crate, verified against f64 and timed against a device copy of
//! the same bytes, interleaved.
use kernel_lab::{Result, cudarc::driver::LaunchConfig, error::DriverContext, runtime::{gpu::Gpu, timing::time_pair, verify}};
use rmsnorm_example::{PTX, kernels::rmsnorm_f32, rmsnorm_f64};

const ROWS: usize = 16384;
const COLS: usize = 4096;

fn main() {
    kernel_lab::runtime::gpu::main_on_gpu("This example runs its kernel on a GPU; `cargo test` checks its CPU reference.", run)
}

fn run(gpu: &Gpu) -> Result<()> {
    let k = rmsnorm_f32::load(gpu, PTX, "rmsnorm_kernels_sm_80")?;
    let mut rng = verify::rng(verify::fresh_seed());
    let (x, w) = (verify::uniform_f32(&mut rng, ROWS * COLS), verify::uniform_f32(&mut rng, COLS));
    let (d_x, d_w, mut d_y, mut d_copy) = (gpu.upload(&x)?, gpu.upload(&w)?, gpu.zeros::<f32>(ROWS * COLS)?, gpu.zeros::<f32>(ROWS * COLS)?);
    // One block of 256 threads per row, 32 bytes of shared memory (the 8 warps' sums).
    let cfg = LaunchConfig { grid_dim: (ROWS as u32, 1, 1), block_dim: (rmsnorm_f32::MAX_THREADS, 1, 1), shared_mem_bytes: 32 };
    // SAFETY: the kernel's contract: ROWS·COLS f32 in x and y, COLS in w (fresh, 256-byte-aligned
    // allocations), COLS % 4 == 0, one 256-thread block per row, 32 bytes of shared memory.
    let rmsnorm = |d_y: &mut _| unsafe { rmsnorm_f32::launch(gpu, &k, cfg, &d_x, &d_w, d_y, COLS as u32, 1e-6) };
    gpu.poison(&mut d_y)?;
    rmsnorm(&mut d_y)?;
    gpu.sync_after(rmsnorm_f32::NAME)?;
    let y: Vec<f64> = verify::checked_download(gpu, &d_y, rmsnorm_f32::NAME)?;
    let err = verify::rel_l2(&y, &rmsnorm_f64(&x, &w, COLS, 1e-6));
    verify::check_tolerance(rmsnorm_f32::NAME, err, 1e-5)?;
    let (t, t_copy) = time_pair(gpu, 5, 200, 2000.0, |_, copy| if copy { gpu.stream.memcpy_dtod(&d_x, &mut d_copy).during(|| "copy".into()) } else { rmsnorm(&mut d_y) })?;
    let bytes = 2.0 * (ROWS * COLS * 4) as f64;
    println!("GPU: {}\nrmsnorm {ROWS}x{COLS} f32: rel L2 error {err:.1e} vs f64; {:.1} us, {:.0} GB/s = {:.1}% of a device copy of the same bytes ({:.0} GB/s), timed interleaved",
             gpu.info.name, t.median_ms * 1e3, t.gbps(bytes), 100.0 * t_copy.median_ms / t.median_ms, t_copy.gbps(bytes));
    Ok(())
}

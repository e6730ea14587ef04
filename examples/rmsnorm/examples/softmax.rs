//! `cargo run --release --example softmax`: softmax over 16384 rows × 4096 f32 (256 MiB in and out),
//! verified against f64 and timed against a device copy of the same bytes, interleaved.
use kernel_lab::{Result, cudarc::driver::LaunchConfig, error::DriverContext, runtime::{gpu::Gpu, timing::time_pair, verify}};
use rmsnorm_example::{PTX, kernels::softmax_f32, softmax_f64};

const ROWS: usize = 16384;
const COLS: usize = 4096;

fn main() {
    kernel_lab::runtime::gpu::main_on_gpu("This example runs its kernel on a GPU; `cargo test` checks its CPU reference.", run)
}

fn run(gpu: &Gpu) -> Result<()> {
    let k = softmax_f32::load(gpu, PTX, "rmsnorm_kernels_sm_80")?;
    // Inputs spread over [-8, 8): exponents that differ, rows whose max matters.
    let x: Vec<f32> = verify::uniform_f32(&mut verify::rng(verify::fresh_seed()), ROWS * COLS).iter().map(|v| 8.0 * v).collect();
    let d_x = gpu.upload(&x)?;
    let mut d_y = gpu.zeros::<f32>(ROWS * COLS)?;
    // One block of 256 threads per row, 64 bytes of shared memory (two reductions' 8 warp slots).
    let cfg = LaunchConfig { grid_dim: (ROWS as u32, 1, 1), block_dim: (softmax_f32::MAX_THREADS, 1, 1), shared_mem_bytes: 64 };
    // SAFETY: the kernel's contract: ROWS·COLS f32 in x and y (fresh allocations), COLS % 4 == 0, one
    // block of 256 threads per row, 64 bytes of shared memory.
    let softmax = |d_y: &mut _| unsafe { softmax_f32::launch(gpu, &k, cfg, &d_x, d_y, COLS as u32) };
    gpu.poison(&mut d_y)?;
    softmax(&mut d_y)?;
    gpu.sync_after(softmax_f32::NAME)?;
    let y = verify::checked_download(gpu, &d_y, softmax_f32::NAME)?;
    let err = verify::rel_l2(&y, &softmax_f64(&x, COLS));
    verify::check_tolerance(softmax_f32::NAME, err, 1e-5)?;
    let mut d_copy = gpu.zeros::<f32>(ROWS * COLS)?;
    let (t, t_copy) = time_pair(gpu, 5, 200, 2000.0, |_, base| if base {
        gpu.stream.memcpy_dtod(&d_x, &mut d_copy).during(|| "device copy".into())
    } else {
        softmax(&mut d_y)
    })?;
    let bytes = 2.0 * (ROWS * COLS * 4) as f64;
    println!("GPU: {}\nsoftmax {ROWS}x{COLS} f32: rel L2 error {err:.1e} vs f64; {:.1} us, {:.0} GB/s = {:.1}% of a device copy of the same bytes, timed interleaved",
             gpu.info.name, t.median_ms * 1e3, t.gbps(bytes), 100.0 * t_copy.median_ms / t.median_ms);
    Ok(())
}

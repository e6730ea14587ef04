//! `cargo run --release -p cuda-std-names-example --example bounds_cost`: what slice bounds checks cost
//! in the two cuda_std-style kernels. Each kernel is timed against its `get_unchecked` twin in
//! interleaved rounds (`time_pair`), after both results were checked equal (the checks never fire on
//! valid input, so the outputs must be bit-identical).
use cuda_std_names_example::{PTX, kernels::{matmul_simple, matmul_unchecked, vector_add, vector_add_unchecked}};
use kernel_lab::{Result, cudarc::driver::LaunchConfig, runtime::{gpu::Gpu, timing::time_pair, verify}};

const MODULE: &str = "cuda_std_names_kernels_sm_80";

fn main() {
    kernel_lab::runtime::gpu::main_on_gpu("This example times kernels on a GPU; `cargo test` checks them where one exists.", run)
}

fn run(gpu: &Gpu) -> Result<()> {
    let mut rng = verify::rng(verify::fresh_seed());
    println!("GPU: {}", gpu.info.name);
    // vector_add over 2^26 f32 (768 MiB moved: past any L2).
    let n = 1 << 26;
    let (d_x, d_y) = (gpu.upload(&verify::uniform_f32(&mut rng, n))?, gpu.upload(&verify::uniform_f32(&mut rng, n))?);
    let (mut s1, mut s2) = (gpu.zeros::<f32>(n)?, gpu.zeros::<f32>(n)?);
    let (k1, k2) = (vector_add::load(gpu, PTX, MODULE)?, vector_add_unchecked::load(gpu, PTX, MODULE)?);
    let cfg = LaunchConfig { grid_dim: ((n as u32).div_ceil(256), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    // SAFETY: x, y, sum each hold n f32.
    let add = |checked: bool, s1: &mut _, s2: &mut _| unsafe {
        if checked { vector_add::launch(gpu, &k1, cfg, &d_x, &d_y, s1) } else { vector_add_unchecked::launch(gpu, &k2, cfg, &d_x, &d_y, s2) }
    };
    gpu.poison(&mut s1)?;
    gpu.poison(&mut s2)?;
    add(true, &mut s1, &mut s2)?;
    add(false, &mut s1, &mut s2)?;
    same("vector_add", &gpu.download(&s1)?, &gpu.download(&s2)?)?;
    let (t1, t2) = time_pair(gpu, 5, 400, 2000.0, |_, unchecked| add(!unchecked, &mut s1, &mut s2))?;
    println!("vector_add, 2^26 f32:  checked {:8.1} us, unchecked {:8.1} us: checks cost {:.3}x", t1.median_ms * 1e3, t2.median_ms * 1e3, t1.median_ms / t2.median_ms);
    // matmul_simple at 1024 × 1024 × 1024 (rust-cuda's naive kernel, one thread per output).
    let m = 1024;
    let (d_a, d_b) = (gpu.upload(&verify::uniform_f32(&mut rng, m * m))?, gpu.upload(&verify::uniform_f32(&mut rng, m * m))?);
    let (mut c1, mut c2) = (gpu.zeros::<f32>(m * m)?, gpu.zeros::<f32>(m * m)?);
    let (k1, k2) = (matmul_simple::load(gpu, PTX, MODULE)?, matmul_unchecked::load(gpu, PTX, MODULE)?);
    let cfg = LaunchConfig { grid_dim: ((m as u32).div_ceil(16), (m as u32).div_ceil(16), 1), block_dim: (16, 16, 1), shared_mem_bytes: 0 };
    // SAFETY: a, b, c each hold m·m f32; beta = 0, so the poisoned c is never read into the result.
    let mm = |checked: bool, c1: &mut _, c2: &mut _| unsafe {
        if checked { matmul_simple::launch(gpu, &k1, cfg, &d_a, &d_b, c1, m, m, m, 1.0, 0.0) } else { matmul_unchecked::launch(gpu, &k2, cfg, &d_a, &d_b, c2, m, m, m, 1.0, 0.0) }
    };
    mm(true, &mut c1, &mut c2)?;
    mm(false, &mut c1, &mut c2)?;
    same("matmul", &gpu.download(&c1)?, &gpu.download(&c2)?)?;
    let (t1, t2) = time_pair(gpu, 3, 200, 2000.0, |_, unchecked| mm(!unchecked, &mut c1, &mut c2))?;
    println!("matmul_simple, 1024^3: checked {:8.1} us, unchecked {:8.1} us: checks cost {:.3}x", t1.median_ms * 1e3, t2.median_ms * 1e3, t1.median_ms / t2.median_ms);
    Ok(())
}

/// Both twins' outputs, bit for bit (and written: no NaN left from the poison).
fn same(what: &str, a: &[f32], b: &[f32]) -> Result<()> {
    verify::check_written(what, a)?;
    match a.iter().zip(b).position(|(x, y)| x.to_bits() != y.to_bits()) {
        None => Ok(()),
        Some(i) => Err(kernel_lab::Error::Verification(format!("{what}: checked and unchecked differ at {i}: {} vs {}", a[i], b[i]))),
    }
}

//! The two cuda_std-style kernels launched through their typed launchers on a GPU (skipped, and said
//! so, without one): slices passed as (address, length), outputs poisoned first and checked against f64.
use cuda_std_names_example::{PTX, kernels::{matmul_simple, vector_add}, matmul_f64};
use kernel_lab::{cudarc::driver::LaunchConfig, runtime::{gpu::gpu_or_skip, verify}};

const MODULE: &str = "cuda_std_names_kernels_sm_80";


#[test]
fn vector_add_takes_slices_and_stops_at_their_length() {
    let Some(gpu) = gpu_or_skip("vector_add_takes_slices_and_stops_at_their_length") else { return };
    let n = 100_003; // not a multiple of the block: the bound check `i < x.len()` matters
    let mut rng = verify::rng(verify::fresh_seed());
    let (x, y) = (verify::uniform_f32(&mut rng, n), verify::uniform_f32(&mut rng, n));
    let (d_x, d_y) = (gpu.upload(&x).unwrap(), gpu.upload(&y).unwrap());
    // One element more than x: the kernel must leave it as poisoned.
    let mut d_sum = gpu.zeros::<f32>(n + 1).unwrap();
    gpu.poison(&mut d_sum).unwrap();
    let k = vector_add::load(&gpu, PTX, MODULE).unwrap();
    let cfg = LaunchConfig { grid_dim: ((n as u32).div_ceil(256), 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    // SAFETY: sum holds x.len() + 1 writable f32, y as many as x.
    unsafe { vector_add::launch(&gpu, &k, cfg, &d_x, &d_y, &mut d_sum) }.unwrap();
    gpu.sync_after(vector_add::NAME).unwrap();
    let sum = gpu.download(&d_sum).unwrap();
    verify::check_written(vector_add::NAME, &sum[..n]).unwrap();
    assert!(sum[n].is_nan(), "the element past x.len() was written: {}", sum[n]);
    for i in 0..n {
        assert_eq!(sum[i], x[i] + y[i], "element {i}");
    }
    // A block above the GPU's limit is refused before the launch.
    let bad = LaunchConfig { block_dim: (2048, 1, 1), ..cfg };
    // SAFETY: refused before any launch.
    let e = unsafe { vector_add::launch(&gpu, &k, bad, &d_x, &d_y, &mut d_sum) }.unwrap_err().to_string();
    assert!(e.contains("2048"), "{e}");
}

#[test]
fn matmul_simple_matches_f64_on_a_ragged_shape() {
    let Some(gpu) = gpu_or_skip("matmul_simple_matches_f64_on_a_ragged_shape") else { return };
    let (rows, cols, inner) = (67, 45, 129);
    let mut rng = verify::rng(verify::fresh_seed());
    let (a, b, c) = (verify::uniform_f32(&mut rng, rows * inner), verify::uniform_f32(&mut rng, inner * cols), verify::uniform_f32(&mut rng, rows * cols));
    let (d_a, d_b) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
    let mut d_c = gpu.upload(&c).unwrap();
    let k = matmul_simple::load(&gpu, PTX, MODULE).unwrap();
    let cfg = LaunchConfig { grid_dim: ((rows as u32).div_ceil(16), (cols as u32).div_ceil(16), 1), block_dim: (16, 16, 1), shared_mem_bytes: 0 };
    // SAFETY: c holds rows·cols f32; the slices carry their own lengths.
    unsafe { matmul_simple::launch(&gpu, &k, cfg, &d_a, &d_b, &mut d_c, rows, cols, inner, 1.5, -0.5) }.unwrap();
    gpu.sync_after(matmul_simple::NAME).unwrap();
    let got: Vec<f64> = gpu.download(&d_c).unwrap().iter().map(|&v| v as f64).collect();
    let err = verify::rel_l2(&got, &matmul_f64(&a, &b, &c, (rows, cols, inner), 1.5, -0.5));
    assert!(err < 1e-5, "relative L2 error {err:.2e}");
}

//! Host side of the primitive self-tests: launch each `selftest_*` kernel on random data and compare
//! with a CPU model of the instruction (fragment layouts, shuffle semantics, shared-memory widths).
use half::f16;
use layout::fragment::Ldmatrix;
use rand::Rng;

use crate::{
    error::{Error, Result},
    launch,
    runtime::{gpu::Gpu, verify::{self, check_tolerance, check_written}},
};

/// Outcome of one self-test.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SelftestResult {
    /// Kernel name.
    pub kernel: &'static str,
    /// `None` if it passed, otherwise why not (or why it was skipped).
    pub failure: Option<String>,
    /// Whether it was skipped (e.g. an sm_90a kernel on another GPU).
    pub skipped: bool,
}

/// Runs every self-test; each result says passed, failed (why) or skipped (why).
pub fn run_all(gpu: &Gpu, seed: u64) -> Vec<SelftestResult> {
    let tests: [(&'static str, fn(&Gpu, u64) -> Result<()>); 12] = [
        ("selftest_mma_f32_f16", mma_f32),
        ("selftest_mma_swizzled", mma_swizzled),
        ("selftest_mma_f16_f16", mma_f16),
        ("selftest_shuffle", shuffle),
        ("selftest_printf", printf),
        ("selftest_thread_indices", thread_indices),
        ("selftest_warp_sync", warp_sync),
        ("selftest_shared_widths", shared_widths),
        ("selftest_stmatrix", stmatrix),
        ("selftest_wgmma_tma", wgmma_tma),
        ("selftest_mbarrier_handoff", mbarrier_handoff),
        ("launch_cost_tma_*", launch_cost_copies),
    ];
    tests.iter().map(|&(kernel, f)| match f(gpu, seed) {
        Ok(()) => SelftestResult { kernel, failure: None, skipped: false },
        Err(e @ Error::Unsupported { .. }) => SelftestResult { kernel, failure: Some(e.to_string()), skipped: true },
        Err(e) => SelftestResult { kernel, failure: Some(e.to_string()), skipped: false },
    }).collect()
}

fn random_f16_tile(rng: &mut impl Rng) -> Vec<f16> {
    (0..256).map(|_| f16::from_f32(rng.random_range(-1.0f32..1.0))).collect()
}

fn bits(x: &[f16]) -> Vec<u16> {
    x.iter().map(|v| v.to_bits()).collect()
}

/// `C = A·B` for 16×16 row-major tiles, in f64.
fn matmul_16(a: &[f16], b: &[f16]) -> Vec<f64> {
    let mut c = vec![0.0; 256];
    for i in 0..16 {
        for j in 0..16 {
            c[i * 16 + j] = (0..16).map(|k| a[i * 16 + k].to_f64() * b[k * 16 + j].to_f64()).sum();
        }
    }
    c
}

fn mma_f32(gpu: &Gpu, seed: u64) -> Result<()> {
    mma_f32_through(gpu, seed, "selftest_mma_f32_f16")
}

fn mma_swizzled(gpu: &Gpu, seed: u64) -> Result<()> {
    mma_f32_through(gpu, seed ^ 0x77, "selftest_mma_swizzled")
}

fn mma_f32_through(gpu: &Gpu, seed: u64, kernel: &str) -> Result<()> {
    let k = gpu.kernel(kernel)?;
    let mut rng = verify::rng(seed ^ 0x11);
    let (a, b) = (random_f16_tile(&mut rng), random_f16_tile(&mut rng));
    let (g_a, g_b) = (gpu.upload(&bits(&a))?, gpu.upload(&bits(&b))?);
    let mut g_c = gpu.zeros::<f32>(256)?;
    gpu.poison(&mut g_c)?;
    // SAFETY: (g_a, g_b: 256 f16 each, 256-byte aligned allocations; g_c: 256 f32), one block of 32.
    unsafe { launch!(gpu, &k, grid = 1, &g_a, &g_b, &mut g_c)? };
    gpu.sync_after(k.name())?;
    let c = gpu.download(&g_c)?;
    check_written(k.name(), &c)?;
    let got: Vec<f64> = c.iter().map(|&v| v as f64).collect();
    // f16 products are exact in f32; 16 f32 additions: relative error ~1e-7.
    check_tolerance(k.name(), verify::rel_l2(&got, &matmul_16(&a, &b)), 1e-5)
}

fn mma_f16(gpu: &Gpu, seed: u64) -> Result<()> {
    let k = gpu.kernel("selftest_mma_f16_f16")?;
    let mut rng = verify::rng(seed ^ 0x22);
    let (a, b) = (random_f16_tile(&mut rng), random_f16_tile(&mut rng));
    let (g_a, g_b) = (gpu.upload(&bits(&a))?, gpu.upload(&bits(&b))?);
    let mut g_c = gpu.upload(&vec![0xFFFFu16; 256])?; // poison: f16 NaN
    // SAFETY: as `mma_f32`, with g_c 256 u16 (4-byte aligned allocation).
    unsafe { launch!(gpu, &k, grid = 1, &g_a, &g_b, &mut g_c)? };
    gpu.sync_after(k.name())?;
    let c: Vec<f32> = gpu.download(&g_c)?.into_iter().map(|h| f16::from_bits(h).to_f32()).collect();
    check_written(k.name(), &c)?;
    let got: Vec<f64> = c.iter().map(|&v| v as f64).collect();
    // f16 accumulation of 16 terms of magnitude <= 1: relative error a few 1e-3.
    check_tolerance(k.name(), verify::rel_l2(&got, &matmul_16(&a, &b)), 1e-2)
}

/// `printf!` from 32 lanes: each call returns `vprintf`'s count of the 6 arguments (CUDA's printf
/// contract: the number of arguments, negative on error); the lines go to this process's stdout at the
/// synchronization.
fn printf(gpu: &Gpu, _seed: u64) -> Result<()> {
    let k = gpu.kernel("selftest_printf")?;
    let mut g_out = gpu.zeros::<i32>(32)?;
    gpu.poison(&mut g_out)?;
    // SAFETY: g_out 32 i32, one block of 32 threads.
    unsafe { launch!(gpu, &k, grid = 1, &mut g_out)? };
    gpu.sync_after(k.name())?;
    let out = gpu.download(&g_out)?;
    match out.iter().position(|&r| r != 6) {
        Some(l) => Err(Error::Verification(format!("{}: lane {l}'s vprintf returned {}, want 6 (its argument count)", k.name(), out[l]))),
        None => Ok(()),
    }
}

/// A 3-D grid (3 × 2 × 4) of 32-thread blocks: every thread's y/z registers and `index_2d`, against
/// what the launch implies.
fn thread_indices(gpu: &Gpu, _seed: u64) -> Result<()> {
    const WORDS: usize = 10;
    let (gx, gy, gz, bx) = (3u32, 2u32, 4u32, 32u32);
    let k = gpu.kernel("selftest_thread_indices")?;
    let n = (gx * gy * gz * bx) as usize;
    let mut g_out = gpu.zeros::<u32>(WORDS * n)?;
    gpu.poison(&mut g_out)?;
    // SAFETY: g_out holds WORDS u32 per thread of the grid; blocks of 32 threads (1-D).
    unsafe { launch!(gpu, &k, grid = (gx, gy, gz), &mut g_out)? };
    gpu.sync_after(k.name())?;
    let out = gpu.download(&g_out)?;
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                for t in 0..bx {
                    let i = (((z * gy + y) * gx + x) * bx + t) as usize;
                    let want = [0, 0, y, z, 1, 1, gy, gz, x * bx + t, y];
                    if out[WORDS * i..WORDS * (i + 1)] != want {
                        return Err(Error::Verification(format!("{}: block ({x}, {y}, {z}) thread {t} wrote {:?}, want {want:?}", k.name(), &out[WORDS * i..WORDS * (i + 1)])));
                    }
                }
            }
        }
    }
    Ok(())
}

fn shuffle(gpu: &Gpu, seed: u64) -> Result<()> {
    let k = gpu.kernel("selftest_shuffle")?;
    let x: Vec<f32> = verify::small_integers_f32(&mut verify::rng(seed ^ 0x33), 32);
    let g_in = gpu.upload(&x)?;
    let mut g_out = gpu.zeros::<f32>(128)?;
    gpu.poison(&mut g_out)?;
    // SAFETY: g_in 32 f32, g_out 128 f32, one block of 32 threads.
    unsafe { launch!(gpu, &k, grid = 1, &g_in, &mut g_out)? };
    gpu.sync_after(k.name())?;
    let out = gpu.download(&g_out)?;
    check_written(k.name(), &out)?;
    let total: f32 = x.iter().sum(); // small integers: exact in any order
    for l in 0..32 {
        let want = [x[l ^ 5], if l + 3 < 32 { x[l + 3] } else { x[l] }, total, l as f32];
        if out[4 * l..4 * l + 4] != want {
            return Err(Error::Verification(format!("{}: lane {l} got {:?}, want {want:?}", k.name(), &out[4 * l..4 * l + 4])));
        }
    }
    Ok(())
}

fn warp_sync(gpu: &Gpu, seed: u64) -> Result<()> {
    let k = gpu.kernel("selftest_warp_sync")?;
    let mut rng = verify::rng(seed ^ 0x5A);
    let x: Vec<u32> = (0..2).map(|_| rng.random_range(1..1u32 << 30)).collect();
    let g_in = gpu.upload(&x)?;
    let mut g_out = gpu.upload(&vec![u32::MAX; 64])?;
    // SAFETY: g_in 2 u32, g_out 64 u32, one block of 64 threads with 8 bytes of dynamic shared memory
    // (the descriptor's).
    unsafe { launch!(gpu, &k, grid = 1, &g_in, &mut g_out)? };
    gpu.sync_after(k.name())?;
    let out = gpu.download(&g_out)?;
    for (t, &got) in out.iter().enumerate() {
        let want = x[t / 32] + (t % 32) as u32;
        if got != want {
            return Err(Error::Verification(format!("{}: thread {t} (warp {}, lane {}) got {got:#x}, want {want:#x}", k.name(), t / 32, t % 32)));
        }
    }
    Ok(())
}

/// `selftest_mbarrier_handoff`: warp 1 reads, in each of the 4 rounds, the word thread 0 wrote in that
/// round (`g_in + r`), every lane.
fn mbarrier_handoff(gpu: &Gpu, seed: u64) -> Result<()> {
    const ROUNDS: usize = 4;
    let k = gpu.kernel("selftest_mbarrier_handoff")?;
    let x = verify::rng(seed ^ 0xB0).random_range(1..1u32 << 30);
    let g_in = gpu.upload(&[x])?;
    let mut g_out = gpu.upload(&vec![u32::MAX; 32 * ROUNDS])?;
    // SAFETY: g_in 1 u32, g_out 32 · ROUNDS u32 (the kernel's ROUNDS), one block of 64 threads, no
    // dynamic shared memory (the descriptor's).
    unsafe { launch!(gpu, &k, grid = 1, &g_in, &mut g_out)? };
    gpu.sync_after(k.name())?;
    for (i, &got) in gpu.download(&g_out)?.iter().enumerate() {
        let want = x + (i / 32) as u32;
        if got != want {
            return Err(Error::Verification(format!("{}: round {}, lane {} read {got:#x}, want {want:#x}", k.name(), i / 32, i % 32)));
        }
    }
    Ok(())
}

fn shared_widths(gpu: &Gpu, seed: u64) -> Result<()> {
    let k = gpu.kernel("selftest_shared_widths")?;
    let mut rng = verify::rng(seed ^ 0x44);
    let w: Vec<u32> = (0..256).map(|_| rng.random::<u32>() | 1).collect();
    let g_in = gpu.upload(&w)?;
    let mut g_out = gpu.upload(&vec![0u32; 512])?;
    // SAFETY: g_in 256 u32, g_out 512 u32, one block of 64 threads, 1024 B dynamic shared (registered).
    unsafe { launch!(gpu, &k, grid = 1, &g_in, &mut g_out)? };
    gpu.sync_after(k.name())?;
    let out = gpu.download(&g_out)?;
    for t in 0..64 {
        let want = [w[255 - t], w[128 + 2 * t], w[129 + 2 * t], w[(3 * t + 1) % 256]];
        let want4 = [w[4 * (63 - t)], w[4 * (63 - t) + 1], w[4 * (63 - t) + 2], w[4 * (63 - t) + 3]];
        if out[4 * t..4 * t + 4] != want || out[256 + 4 * t..256 + 4 * t + 4] != want4 {
            return Err(Error::Verification(format!("{}: thread {t} read the wrong shared words", k.name())));
        }
    }
    Ok(())
}

fn stmatrix(gpu: &Gpu, seed: u64) -> Result<()> {
    let k = gpu.kernel("selftest_stmatrix")?;
    let mut rng = verify::rng(seed ^ 0x55);
    let x: Vec<u16> = (0..256).map(|_| rng.random::<u16>() | 1).collect();
    let g_in = gpu.upload(&x)?;
    let mut g_out = gpu.upload(&vec![0u16; 512])?;
    // SAFETY: g_in 256 u16, g_out 512 u16, one block of 32 threads.
    unsafe { launch!(gpu, &k, grid = 1, &g_in, &mut g_out)? };
    gpu.sync_after(k.name())?;
    let out = gpu.download(&g_out)?;
    // Lane l's register i, half h holds x at `Ldmatrix::X4.tile_rc(l, i, h)` (the kernel builds the
    // ldmatrix.x4 fragment); stmatrix.x4 stores it at that place of the first tile, .x4.trans at
    // `X4_TRANS.tile_rc(l, i, h)` of the second. Both maps are bijections, so this covers all 512.
    let at = |(r, c): (u32, u32)| (r * 16 + c) as usize;
    for lane in 0..32 {
        for reg in 0..4 {
            for half in 0..2 {
                let want = x[at(Ldmatrix::X4.tile_rc(lane, reg, half))];
                for (base, st, name) in [(0, Ldmatrix::X4, "stmatrix.x4"), (256, Ldmatrix::X4_TRANS, "stmatrix.x4.trans")] {
                    let (r, c) = st.tile_rc(lane, reg, half);
                    if out[base + at((r, c))] != want {
                        return Err(Error::Verification(format!("{}: {name} wrong at ({r}, {c}) (lane {lane}, register {reg}, half {half})", k.name())));
                    }
                }
            }
        }
    }
    Ok(())
}

/// TMA (`SWIZZLE_128B`) → `wgmma.m64n64k16`: `D₀ = A · Bᵀ` for 64×64 f16 `A` (M×K) and `B` (N×K), both
/// K-major; `D₁ = A · C` for `C` (K×N, MN-major, `imm-trans-b = 1`); f32 out.
/// Passing means the layout crate's TMA swizzle, its `wgmma` descriptor and the accumulator fragment
/// agree with the hardware (a wrong swizzle or descriptor reads the wrong K elements: error ~1, not 1e-6).
fn wgmma_tma(gpu: &Gpu, seed: u64) -> Result<()> {
    use layout::hopper::{TmaSwizzle, TmaTile2d};
    let k = gpu.kernel("selftest_wgmma_tma")?;
    let mut rng = verify::rng(seed ^ 0x66);
    let a: Vec<f16> = (0..4096).map(|_| f16::from_f32(rng.random_range(-1.0f32..1.0))).collect();
    let b: Vec<f16> = (0..4096).map(|_| f16::from_f32(rng.random_range(-1.0f32..1.0))).collect();
    let c: Vec<f16> = (0..4096).map(|_| f16::from_f32(rng.random_range(-1.0f32..1.0))).collect();
    let (g_a, g_b, g_c) = (gpu.upload(&bits(&a))?, gpu.upload(&bits(&b))?, gpu.upload(&bits(&c))?);
    let tile = TmaTile2d { elem_bytes: 2, rows: 64, cols: 64, stride_bytes: 128, box_rows: 64, box_cols: 64, swizzle: TmaSwizzle::B128 };
    let enc = |g| crate::runtime::tma::TensorMap2d::encode_f16(gpu, g, tile);
    let (t_a, t_b, t_c) = (enc(&g_a)?, enc(&g_b)?, enc(&g_c)?);
    let mut g_d = gpu.zeros::<f32>(8192)?;
    gpu.poison(&mut g_d)?;
    // SAFETY: the tensor maps describe g_a/g_b/g_c (64×64 f16, box 64×64, 128B swizzle), which stay alive
    // until the sync below; g_d has 8192 f32; one CTA of 128 threads (registered), on an sm_90 GPU (the
    // kernel lives only in the sm_90a module, so `gpu.kernel` refused other GPUs above).
    unsafe { launch!(gpu, &k, grid = 1, &t_a.dev, &t_b.dev, &t_c.dev, &mut g_d)? };
    gpu.sync_after(k.name())?;
    let d = gpu.download(&g_d)?;
    check_written(k.name(), &d)?;
    let got: Vec<f64> = d.iter().map(|&v| v as f64).collect();
    let dot = |m: usize, n: usize, rhs: &dyn Fn(usize, usize) -> f64| -> f64 {
        (0..64).map(|kk| a[m * 64 + kk].to_f64() * rhs(kk, n)).sum()
    };
    let want_bt: Vec<f64> = (0..4096).map(|i| dot(i / 64, i % 64, &|kk, n| b[n * 64 + kk].to_f64())).collect();
    let want_c: Vec<f64> = (0..4096).map(|i| dot(i / 64, i % 64, &|kk, n| c[kk * 64 + n].to_f64())).collect();
    // f16 products exact in f32, 64 f32 additions: relative error ~1e-7.
    check_tolerance(&format!("{} (A·Bᵀ, both K-major)", k.name()), verify::rel_l2(&got[..4096], &want_bt), 1e-5)?;
    check_tolerance(&format!("{} (A·C, C MN-major)", k.name()), verify::rel_l2(&got[4096..], &want_c), 1e-5)
}

/// The TMA copy kernels of the launch-cost table (`kernels-gpu/src/selftest/launch_cost.rs`), and
/// whether each takes its tensor maps by value.
pub const LAUNCH_COST_TMA: [(&str, bool); 5] = [
    ("launch_cost_tma_gmem", false),
    ("launch_cost_tma_gmem_read", false),
    ("launch_cost_tma_gmem_smem200", false),
    ("launch_cost_tma_param", true),
    ("launch_cost_tma_param_read", true),
];

/// A: `64·ctas` rows × 64 random f16; C poisoned; the two tensor maps (box 64×64, no swizzle).
struct CopyCase {
    /// A on the device: owned here so that `t_a` stays valid (only the map is passed).
    _g_a: cudarc::driver::CudaSlice<u16>,
    g_c: cudarc::driver::CudaSlice<u16>,
    a: Vec<u16>,
    t_a: crate::runtime::tma::TensorMap2d,
    t_c: crate::runtime::tma::TensorMap2d,
    ctas: u32,
}

impl CopyCase {
    fn new(gpu: &Gpu, seed: u64, ctas: u32) -> Result<CopyCase> {
        use crate::runtime::tma::TensorMap2d;
        use layout::hopper::{TmaSwizzle, TmaTile2d};
        let mut rng = verify::rng(seed ^ 0x1c);
        let rows = 64 * ctas as u64;
        let a: Vec<u16> = (0..rows * 64).map(|_| f16::from_f32(rng.random_range(-1.0f32..1.0)).to_bits()).collect();
        let g_a = gpu.upload(&a)?;
        let g_c = gpu.zeros::<u16>(a.len())?;
        let tile = TmaTile2d { elem_bytes: 2, rows, cols: 64, stride_bytes: 128, box_rows: 64, box_cols: 64, swizzle: TmaSwizzle::None };
        let (t_a, t_c) = (TensorMap2d::encode_f16(gpu, &g_a, tile)?, TensorMap2d::encode_f16(gpu, &g_c, tile)?);
        Ok(CopyCase { _g_a: g_a, g_c, a, t_a, t_c, ctas })
    }

    /// Launches `kernel` over the case (maps by value if `by_value`).
    fn launch(&mut self, gpu: &Gpu, kernel: &crate::runtime::gpu::Kernel, by_value: bool) -> Result<()> {
        // SAFETY: the maps describe A and g_c (64·ctas rows × 64 f16, box 64×64, no swizzle), which
        // live in `self` as long as the maps; one CTA of 32 threads (registered) per 64 rows; nothing
        // reads g_c during the launch. Maps by value go to the kernels declared with
        // `TensorMapParam` parameters, by pointer to the others (`LAUNCH_COST_TMA` says which; `launch!`
        // checks the parameter sizes against the PTX: 128 bytes against 8).
        unsafe {
            if by_value {
                launch!(gpu, kernel, grid = self.ctas, &self.t_a.host, &self.t_c.host)
            } else {
                launch!(gpu, kernel, grid = self.ctas, &self.t_a.dev, &self.t_c.dev)
            }
        }
    }
}

/// Every launch-cost TMA variant copies A to C exactly (C poisoned first), on 1 and 3 CTAs.
fn launch_cost_copies(gpu: &Gpu, seed: u64) -> Result<()> {
    for ctas in [1, 3] {
        for (i, (name, by_value)) in LAUNCH_COST_TMA.into_iter().enumerate() {
            let k = gpu.kernel(name)?;
            let mut case = CopyCase::new(gpu, seed ^ (i as u64) << 8 ^ ctas as u64, ctas)?;
            gpu.poison(&mut case.g_c)?;
            case.launch(gpu, &k, by_value)?;
            gpu.sync_after(k.name())?;
            let c = gpu.download(&case.g_c)?;
            if let Some(at) = (0..c.len()).find(|&i| c[i] != case.a[i]) {
                return Err(Error::Verification(format!("{name} on {ctas} CTAs: C[{at}] = {:#06x}, A has {:#06x}", c[at], case.a[at])));
            }
        }
    }
    Ok(())
}

/// One row of the launch-cost table: a kernel, its grid, its median GPU time.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LaunchCost {
    /// Kernel name.
    pub kernel: &'static str,
    /// CTAs launched.
    pub ctas: u32,
    /// Median GPU time of one launch (µs), held timing.
    pub median_us: f64,
    /// Fastest launch (µs).
    pub min_us: f64,
}

/// The fixed cost of a launch: the empty kernel and each TMA copy variant on 1 CTA and on one per SM,
/// timed held (`runtime::timing`), the variants interleaved round by round (`rounds` rounds of `reps`
/// launches each), medians over all samples. sm_90 only.
pub fn launch_costs(gpu: &Gpu, seed: u64, rounds: usize, reps: usize) -> Result<Vec<LaunchCost>> {
    use crate::runtime::timing::time_samples;
    let empty = gpu.kernel("launch_cost_empty")?;
    let kernels = LAUNCH_COST_TMA.into_iter().map(|(n, v)| Ok((gpu.kernel(n)?, v))).collect::<Result<Vec<_>>>()?;
    let mut out = Vec::new();
    for ctas in [1, gpu.info.sms] {
        let mut case = CopyCase::new(gpu, seed, ctas)?;
        let mut samples = vec![Vec::new(); 1 + kernels.len()];
        for _ in 0..rounds {
            samples[0].extend(time_samples(gpu, 2, reps, |_| {
                // SAFETY: no parameters; any grid.
                unsafe { launch!(gpu, &empty, grid = ctas,) }
            })?);
            for (j, (k, by_value)) in kernels.iter().enumerate() {
                samples[1 + j].extend(time_samples(gpu, 2, reps, |_| case.launch(gpu, k, *by_value))?);
            }
        }
        let names = std::iter::once(empty.name()).chain(kernels.iter().map(|(k, _)| k.name()));
        for (kernel, mut s) in names.zip(samples) {
            let st = crate::runtime::timing::Stats::from_samples(&mut s);
            out.push(LaunchCost { kernel, ctas, median_us: st.median_ms * 1e3, min_us: st.min_ms * 1e3 });
        }
    }
    Ok(out)
}

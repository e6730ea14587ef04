//! GPU tests: every kernel against its reference on fresh random data. Without a GPU (no driver or no
//! device) each test says plainly that it was skipped and passes.

use kernel_lab_bench::{
    Error,
    families::{
        reduce::{self, CublasSum, ReducePlan},
        selftest,
    },
    runtime::{gpu::{gpu_or_skip, report_skip}, verify},
    steps,
};


/// Sizes: tiny, around the block (256) and the v3 tile (512), odd, and large enough for several passes.
const SIZES: [usize; 14] = [1, 2, 3, 255, 256, 257, 511, 512, 513, 1000, 4097, 65_536 * 3 + 7, 1 << 20, (1 << 22) + 3];

#[test]
fn every_reduce_step_matches_the_f64_reference() {
    let Some(gpu) = gpu_or_skip("every_reduce_step_matches_the_f64_reference") else { return };
    let seed = verify::fresh_seed();
    for &n in &SIZES {
        let mut rng = verify::rng(seed ^ n as u64);
        let x = verify::uniform_f32(&mut rng, n);
        let ints = verify::small_integers_f32(&mut rng, n);
        let (want, want_int) = (verify::sum_f64(&x), verify::sum_f64(&ints));
        let (d_x, d_ints) = (gpu.upload(&x).unwrap(), gpu.upload(&ints).unwrap());
        for step in steps::reduce::STEPS {
            let mut plan = ReducePlan::new(&gpu, step, n).unwrap();
            // Run twice on each input: v6's counter must reset itself between launches.
            for rep in 0..2 {
                plan.poison().unwrap();
                plan.enqueue(&d_x).unwrap();
                let got = plan.result().unwrap();
                let rel = ((got as f64) - want).abs() / want;
                assert!(rel <= 1e-5, "{} n={n} rep={rep} seed={seed}: got {got}, want {want}, rel {rel:.2e}", step.kernel.name);
                plan.poison().unwrap();
                plan.enqueue(&d_ints).unwrap();
                let got = plan.result().unwrap();
                assert_eq!(got as f64, want_int, "{} n={n} rep={rep} seed={seed}: integer sum not exact", step.kernel.name);
            }
        }
    }
}

#[test]
fn bad_reduce_input_gives_clear_errors() {
    let Some(gpu) = gpu_or_skip("bad_reduce_input_gives_clear_errors") else { return };
    let empty = gpu.zeros::<f32>(0).ok();
    if let Some(empty) = empty {
        for step in steps::reduce::STEPS {
            assert_eq!(reduce::sum(&gpu, step, &empty).unwrap(), 0.0, "{}: the sum of nothing is 0", step.kernel.name);
        }
    }
    assert!(ReducePlan::new(&gpu, &steps::reduce::V2, 0).err().unwrap().to_string().contains("n = 0"));
    let mut plan = ReducePlan::new(&gpu, &steps::reduce::V5, 1000).unwrap();
    let short = gpu.zeros::<f32>(999).unwrap();
    let e = plan.enqueue(&short).unwrap_err().to_string();
    assert!(e.contains("length mismatch") && e.contains("reduce_v5") && e.contains("999"), "{e}");
    // Wrong argument count or sizes are refused before the launch, naming the kernel and both lists.
    let k5 = gpu.kernel("reduce_v5").unwrap();
    let (x, mut out) = (gpu.zeros::<f32>(1000).unwrap(), gpu.zeros::<f32>(1).unwrap());
    // SAFETY: refused before the launch (two arguments for three parameters; a u64 for a u32).
    let e = unsafe { kernel_lab_bench::launch!(gpu, &k5, grid = 1u32, &x, &mut out) }.unwrap_err().to_string();
    assert!(e.contains("`reduce_v5` takes 3 parameters of [8, 8, 4] bytes") && e.contains("passes 2"), "{e}");
    let n64 = 1000u64;
    // SAFETY: as above.
    let e = unsafe { kernel_lab_bench::launch!(gpu, &k5, grid = 1u32, &x, &mut out, &n64) }.unwrap_err().to_string();
    assert!(e.contains("[8, 8, 8]"), "{e}");
    let e = gpu.kernel("no_such_kernel").err().unwrap().to_string();
    assert!(e.contains("no_such_kernel") && e.contains("no descriptor"), "{e}");
}

#[test]
fn cublas_baseline_matches_the_reference() {
    let Some(gpu) = gpu_or_skip("cublas_baseline_matches_the_reference") else { return };
    let n = 1_000_003;
    let x = verify::uniform_f32(&mut verify::rng(verify::fresh_seed()), n);
    let d = gpu.upload(&x).unwrap();
    let mut blas = CublasSum::new(&gpu, n).unwrap();
    blas.poison(&gpu).unwrap();
    blas.enqueue(&gpu, &d).unwrap();
    let got = blas.result(&gpu).unwrap() as f64;
    let want = verify::sum_f64(&x);
    assert!((got - want).abs() / want < 1e-5, "cublasSdot(x, 1) = {got}, want {want}");
}

#[test]
fn device_primitives_match_their_cpu_models() {
    let Some(gpu) = gpu_or_skip("device_primitives_match_their_cpu_models") else { return };
    let results = selftest::run_all(&gpu, verify::fresh_seed());
    for r in &results {
        if r.skipped {
            report_skip(&r.kernel, &r.failure.as_deref().unwrap_or(""));
        }
    }
    let failures: Vec<_> = results.iter().filter(|r| !r.skipped && r.failure.is_some()).collect();
    assert!(failures.is_empty(), "{failures:#?}");
    // Where the sm_90a module runs (compute capability 9.0, not withheld), nothing may be skipped.
    let hopper = gpu.cannot_run(&steps::hgemm::H6.kernel).is_none();
    assert!(!hopper || results.iter().all(|r| !r.skipped), "on sm_90 no self-test may be skipped");
}

#[test]
fn every_sgemm_step_matches_the_f64_reference_on_ragged_shapes() {
    use kernel_lab_bench::{families::{gemm::Shape, sgemm}, steps::sgemm::STEPS};
    let Some(gpu) = gpu_or_skip("every_sgemm_step_matches_the_f64_reference_on_ragged_shapes") else { return };
    let seed = verify::fresh_seed();
    let shapes = [(1, 1, 1), (1, 300, 200), (300, 1, 200), (300, 200, 1), (129, 129, 129), (255, 257, 3), (130, 514, 66),
                  (4097, 129, 33), (256, 256, 256), (131, 260, 68), (1000, 1000, 1000),
                  // N off 4 with K % 4 == 0 (v16's clamped edges load B element by element; split K)
                  (70, 1031, 516), (33, 4097, 1024),
                  // N off 4 with K % 16 == 0 (v29's unclamped loop; its last stage clamped), N down to 9
                  (127, 127, 48), (5, 9, 32),
                  // N off 4 with K off 16 (v32's predicated last stage; split K: only the last split's is partial)
                  (65, 1031, 1000), (3, 33, 20), (5, 37, 8)];
    for (m, n, k) in shapes {
        let s = Shape::new(m, n, k).unwrap();
        let mut rng = verify::rng(seed ^ (m * 131 + n * 7 + k) as u64);
        let a: Vec<f32> = (0..m * k).map(|_| rand::Rng::random_range(&mut rng, -1.0f32..1.0)).collect();
        let b: Vec<f32> = (0..k * n).map(|_| rand::Rng::random_range(&mut rng, -1.0f32..1.0)).collect();
        let want = sgemm::reference_f64(&a, &b, s);
        let (d_a, d_b) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
        let mut d_c = gpu.zeros::<f32>(m * n).unwrap();
        for step in STEPS {
            if gpu.cannot_run(&step.kernel).is_some() {
                continue; // v21–v26 off Hopper (sm_90a) or a pre-12.1 driver: said once below
            }
            let kern = gpu.kernel(step.kernel.name).unwrap();
            gpu.poison(&mut d_c).unwrap();
            if step.rejects(m, n, k).is_some() {
                let e = sgemm::launch(&gpu, &kern, step, s, &d_a, &d_b, &mut d_c).unwrap_err().to_string();
                assert!(e.contains("multiples of 4"), "{e}");
                continue;
            }
            sgemm::launch(&gpu, &kern, step, s, &d_a, &d_b, &mut d_c).unwrap();
            gpu.sync_after(kern.name()).unwrap();
            let c = gpu.download(&d_c).unwrap();
            verify::check_written(kern.name(), &c).unwrap();
            let got: Vec<f64> = c.iter().map(|&v| v as f64).collect();
            let err = verify::rel_l2(&got, &want);
            assert!(err <= 1e-5, "{} {s} seed={seed}: rel L2 error {err:.2e}", step.kernel.name);
        }
    }
    let kern = gpu.kernel("sgemm_v6").unwrap();
    let s = Shape::new(4, 4, 4).unwrap();
    let (short, b) = (gpu.zeros::<f32>(15).unwrap(), gpu.zeros::<f32>(16).unwrap());
    let mut c = gpu.zeros::<f32>(16).unwrap();
    let e = sgemm::launch(&gpu, &kern, &kernel_lab_bench::steps::sgemm::V6, s, &short, &b, &mut c).unwrap_err().to_string();
    assert!(e.contains("length mismatch") && e.contains("A holds 15"), "{e}");
    for step in STEPS.iter().filter(|st| gpu.cannot_run(&st.kernel).is_some()) {
        report_skip(&format!("{} in every_sgemm_step…", step.kernel.step), &gpu.cannot_run(&step.kernel).unwrap());
    }
}

#[test]
fn seed_001_warp_ladder_matches_the_f64_reference() {
    let Some(gpu) = gpu_or_skip("seed_001_warp_ladder_matches_the_f64_reference") else { return };
    let rows = kernel_lab_bench::families::hgemm_warp::run(&gpu, verify::fresh_seed());
    for r in &rows {
        if r.skipped {
            report_skip(&r.kernel, &r.error.as_deref().unwrap_or(""));
        } else {
            assert!(r.error.is_none(), "{}: {:?}", r.kernel, r.error);
        }
    }
    assert!(gpu.cannot_run(&steps::hgemm::H6.kernel).is_some() || rows.iter().all(|r| !r.skipped), "on sm_90 no step may be skipped");
}

/// The kernel `name`, or `None` after saying on stderr why this GPU cannot run it (a Hopper step on an
/// older GPU); any other error fails the test.
fn kernel_or_skip(gpu: &kernel_lab_bench::Gpu, name: &str) -> Option<kernel_lab_bench::runtime::gpu::Kernel> {
    match gpu.kernel(name) {
        Ok(k) => Some(k),
        Err(e @ Error::Unsupported { .. }) => {
            report_skip(name, &e);
            None
        }
        Err(e) => panic!("{name}: {e}"),
    }
}

#[test]
fn every_hgemm_step_matches_the_f64_reference_or_names_its_constraint() {
    use half::f16;
    use kernel_lab_bench::{families::{gemm::Shape, hgemm}, steps::hgemm::STEPS};
    let Some(gpu) = gpu_or_skip("every_hgemm_step_matches_the_f64_reference_or_names_its_constraint") else { return };
    let seed = verify::fresh_seed();
    for (m, n, k) in [(1, 8, 8), (7, 200, 1000), (130, 264, 72), (257, 100, 24), (33, 9, 13), (4097, 129, 40), (256, 512, 64), (300, 520, 192), (1000, 1000, 1000), (130, 264, 1024),
                      // 9 × 16 = 144 tiles of 128×256: on 132 SMs h10 streams the 12-tile tail's 16 K tiles
                      // (ragged M, N, K) over every CTA, 1–2 K tiles each, 11–12 contributors a tile.
                      (1100, 4000, 1000),
                      // 17 × 16 = 272 tiles of 128×320 (h12): three rounds of the persistent walk on 132 SMs, so
                      // each consumer's C staging is reused across tiles; M, N, K off the tiles.
                      (2100, 5000, 136),
                      // N off 8 by every residue class the ragged-weight steps (d24) see, over 1 and many
                      // splits of K and each tile height; the aligned steps refuse these.
                      (3, 1001, 640), (16, 1002, 4096), (40, 1003, 192), (64, 1004, 1024), (100, 1005, 512), (256, 1006, 64), (5, 1007, 8)] {
        let s = Shape::new(m, n, k).unwrap();
        let mut rng = verify::rng(seed ^ (m * 131 + n * 7 + k) as u64);
        let a: Vec<f16> = (0..m * k).map(|_| f16::from_f32(rand::Rng::random_range(&mut rng, -1.0f32..1.0))).collect();
        let b: Vec<f16> = (0..k * n).map(|_| f16::from_f32(rand::Rng::random_range(&mut rng, -1.0f32..1.0))).collect();
        let want = hgemm::reference_f64(&a, &b, s);
        let bits = |x: &[f16]| x.iter().map(|v| v.to_bits()).collect::<Vec<u16>>();
        let (d_a, d_b) = (gpu.upload(&bits(&a)).unwrap(), gpu.upload(&bits(&b)).unwrap());
        // The bf16 twins: the same inputs rounded to bf16, their own reference and tolerance.
        let a16: Vec<u16> = a.iter().map(|v| half::bf16::from_f32(v.to_f32()).to_bits()).collect();
        let b16: Vec<u16> = b.iter().map(|v| half::bf16::from_f32(v.to_f32()).to_bits()).collect();
        let w = |x: &[u16]| x.iter().map(|&v| half::bf16::from_bits(v).to_f32()).collect::<Vec<_>>();
        let want_bf16 = kernel_lab_bench::families::gemm::reference_f64(&w(&a16), &w(&b16), s);
        let (d_a16, d_b16) = (gpu.upload(&a16).unwrap(), gpu.upload(&b16).unwrap());
        for step in STEPS {
            let bf = step.elem == kernel_lab_bench::steps::gemm::Elem::Bf16;
            let (d_a, d_b, want) = if bf { (&d_a16, &d_b16, &want_bf16) } else { (&d_a, &d_b, &want) };
            // A GPU without sm_90a runs the sm_80 steps and skips the Hopper ones, naming why.
            let Some(kern) = kernel_or_skip(&gpu, step.kernel.name) else { continue };
            let mut d_c = gpu.upload(&vec![0xFFFFu16; m * n]).unwrap();
            if step.rejects(m, n, k).is_some() {
                let e = hgemm::launch(&gpu, &kern, step, s, d_a, d_b, &mut d_c).unwrap_err().to_string();
                assert!(e.contains("multiples of 8") || e.contains("a multiple of 8"), "{e}");
                continue;
            }
            hgemm::launch(&gpu, &kern, step, s, d_a, d_b, &mut d_c).unwrap();
            gpu.sync_after(kern.name()).unwrap();
            let widen = |h: u16| if bf { half::bf16::from_bits(h).to_f64() } else { f16::from_bits(h).to_f64() };
            let c: Vec<f64> = gpu.download(&d_c).unwrap().iter().map(|&h| widen(h)).collect();
            assert!(c.iter().all(|v| v.is_finite()), "{} {s}: output not fully written", step.kernel.name);
            let err = verify::rel_l2(&c, want);
            let tol = if bf { hgemm::TOL_BF16 } else { hgemm::tolerance(step, s) };
            assert!(err <= tol, "{} {s} seed={seed}: rel L2 {err:.2e}", step.kernel.name);
        }
    }
}

#[test]
fn d24_reads_weights_and_writes_c_at_any_offset_from_16_bytes() {
    // d24 on views of larger buffers that start 0–7 elements past a 16-byte boundary (B and C), with N
    // odd, ≡ 2, 4 and 6 mod 8: every element written (C poisoned, and the elements around the view
    // untouched), the product against f64.
    use half::f16;
    use kernel_lab_bench::{families::{gemm::Shape, hgemm}, gemm::launch::{Operand, Workspace}, steps::hgemm as st};
    let Some(gpu) = gpu_or_skip("d24_reads_weights_and_writes_c_at_any_offset_from_16_bytes") else { return };
    let seed = verify::fresh_seed();
    let mut ws = Workspace::new();
    for (step, m, n, k) in [(&st::D24, 5, 1001, 1024), (&st::D24, 1, 258, 4096), (&st::D24M64, 33, 203, 320), (&st::D24M128, 129, 132, 256), (&st::D24_BF16, 7, 94, 512)] {
        let Some(kern) = kernel_or_skip(&gpu, step.kernel.name) else { continue };
        let bf = step.elem == kernel_lab_bench::steps::gemm::Elem::Bf16;
        let s = Shape::new(m, n, k).unwrap();
        let mut rng = verify::rng(seed ^ (m * 131 + n * 7 + k) as u64);
        let mut draw = |len: usize| -> Vec<f32> { (0..len).map(|_| rand::Rng::random_range(&mut rng, -1.0f32..1.0)).collect() };
        let (a, b) = (draw(m * k), draw(k * n));
        let to16 = |x: &[f32]| -> Vec<u16> { x.iter().map(|&v| if bf { half::bf16::from_f32(v).to_bits() } else { f16::from_f32(v).to_bits() }).collect() };
        let back = |h: u16| if bf { half::bf16::from_bits(h).to_f64() } else { f16::from_bits(h).to_f64() };
        let (a16, b16) = (to16(&a), to16(&b));
        let want = kernel_lab_bench::families::gemm::reference_f64(&a16.iter().map(|&h| back(h) as f32).collect::<Vec<_>>(),
                                                                   &b16.iter().map(|&h| back(h) as f32).collect::<Vec<_>>(), s);
        let d_a = gpu.upload(&a16).unwrap();
        for off in 0..8usize {
            let mut bb = vec![0x7C00u16; k * n + 16]; // +inf around the view: read by mistake, it would show
            bb[off..off + k * n].copy_from_slice(&b16);
            let d_b = gpu.upload(&bb).unwrap();
            let d_c = gpu.upload(&vec![0xFFFFu16; m * n + 16]).unwrap();
            let (pa, pb, pc) = (Operand::of(&gpu, &d_a), Operand::of(&gpu, &d_b), Operand::of(&gpu, &d_c));
            let view = |o: Operand, len: usize| Operand { ptr: o.ptr + 2 * off as u64, len };
            ws.launch(&gpu, &kern, step, s, pa, view(pb, k * n), view(pc, m * n)).unwrap();
            gpu.sync_after(kern.name()).unwrap();
            let c = gpu.download(&d_c).unwrap();
            assert!(c[..off].iter().chain(&c[off + m * n..]).all(|&h| h == 0xFFFF), "{} {s} offset {off}: wrote outside C", step.kernel.step);
            let got: Vec<f64> = c[off..off + m * n].iter().map(|&h| back(h)).collect();
            assert!(got.iter().all(|v| v.is_finite()), "{} {s} offset {off}: output not fully written (or read the +inf around B)", step.kernel.step);
            let err = verify::rel_l2(&got, &want);
            let tol = if bf { hgemm::TOL_BF16 } else { hgemm::tolerance(step, s) };
            assert!(err <= tol, "{} {s} offset {off} seed={seed}: rel L2 {err:.2e}", step.kernel.step);
        }
    }
    // An odd address is refused before any launch.
    let (d_a, d_b, d_c) = (gpu.zeros::<u16>(8 * 64).unwrap(), gpu.zeros::<u16>(64 * 9 + 1).unwrap(), gpu.zeros::<u16>(8 * 9 + 1).unwrap());
    let kern = gpu.kernel(st::D24.kernel.name).unwrap();
    let odd = |o: Operand, len: usize| Operand { ptr: o.ptr + 1, len };
    let e = ws.launch(&gpu, &kern, &st::D24, Shape::new(8, 9, 64).unwrap(), Operand::of(&gpu, &d_a), odd(Operand::of(&gpu, &d_b), 64 * 9), Operand { len: 8 * 9, ..Operand::of(&gpu, &d_c) })
        .unwrap_err().to_string();
    assert!(e.contains("B at device address") && e.contains("not 2-byte aligned"), "{e}");
}

#[test]
fn device_fills_sums_and_comparisons_match_the_host() {
    use kernel_lab_bench::runtime::device_check::{self, Dist, ElemKind};
    use layout::random::value;
    let Some(gpu) = gpu_or_skip("device_fills_sums_and_comparisons_match_the_host") else { return };
    let seed = verify::fresh_seed();
    for n in [1usize, 255, 257, 100_003] {
        for dist in [Dist::Symmetric, Dist::Positive, Dist::SmallInt] {
            // Every element, bit for bit, as layout::random computes it on the host.
            let x: Vec<f32> = gpu.download(&device_check::random::<f32>(&gpu, n, ElemKind::F32, dist, seed).unwrap()).unwrap();
            let first_bad = (0..n).find(|&i| x[i].to_bits() != value(dist, seed, i as u64).to_bits());
            assert_eq!(first_bad, None, "check_fill_f32 {dist:?} n={n} seed={seed}");
            let h: Vec<u16> = gpu.download(&device_check::random::<u16>(&gpu, n, ElemKind::F16, dist, seed).unwrap()).unwrap();
            assert!((0..n).all(|i| h[i] == half::f16::from_f32(value(dist, seed, i as u64)).to_bits()), "check_fill_f16 {dist:?} n={n} seed={seed}");
            let b: Vec<u16> = gpu.download(&device_check::random::<u16>(&gpu, n, ElemKind::Bf16, dist, seed).unwrap()).unwrap();
            assert!((0..n).all(|i| b[i] == half::bf16::from_f32(value(dist, seed, i as u64)).to_bits()), "check_fill_bf16 {dist:?} n={n} seed={seed}");
            // The f64 sum against the host's pairwise f64 sum of the same elements.
            let d_x = gpu.upload(&x).unwrap();
            let (got, want) = (device_check::sum_f64(&gpu, &d_x).unwrap(), verify::sum_f64(&x));
            assert!((got - want).abs() <= 1e-12 * want.abs().max(1.0), "check_sum_f64 n={n}: {got} vs {want}");
            if dist == Dist::SmallInt {
                assert_eq!(got, want, "integer sums are exact in f64");
            }
        }
        // Comparison: against the host's rel_l2 on a perturbed copy, and NaNs counted, not summed.
        let want: Vec<f32> = (0..n).map(|i| value(Dist::Symmetric, seed, i as u64)).collect();
        let mut got: Vec<f32> = want.iter().enumerate().map(|(i, &w)| w + 1e-3 * value(Dist::Symmetric, seed ^ 1, i as u64)).collect();
        let host = verify::rel_l2(&got.iter().map(|&v| v as f64).collect::<Vec<_>>(), &want.iter().map(|&v| v as f64).collect::<Vec<_>>());
        let (d_got, d_want) = (gpu.upload(&got).unwrap(), gpu.upload(&want).unwrap());
        let c = device_check::compare(&gpu, &d_got, &d_want, ElemKind::F32).unwrap();
        assert!((c.rel_l2 - host).abs() <= 1e-9 * host, "check_compare_f32 n={n}: {} vs {host}", c.rel_l2);
        assert_eq!(c.unwritten, 0);
        got[n / 2] = f32::NAN;
        got[n - 1] = f32::NAN;
        let c = device_check::compare(&gpu, &gpu.upload(&got).unwrap(), &d_want, ElemKind::F32).unwrap();
        assert_eq!(c.unwritten, if n == 1 { 1 } else { 2 }, "n={n}");
        // f16/bf16: the same buffers rounded; equal buffers compare at exactly 0.
        for kind in [ElemKind::F16, ElemKind::Bf16] {
            let d = device_check::random::<u16>(&gpu, n, kind, Dist::Symmetric, seed).unwrap();
            let c = device_check::compare(&gpu, &d, &d, kind).unwrap();
            assert_eq!((c.rel_l2, c.unwritten), (0.0, 0), "{kind:?} n={n}");
            let mut poisoned = d.clone();
            gpu.poison(&mut poisoned).unwrap();
            let c = device_check::compare(&gpu, &poisoned, &d, kind).unwrap();
            assert_eq!(c.unwritten, n as u64, "{kind:?}: every poisoned element counted");
        }
    }
}

/// d9 (d4 with programmatic dependent launch) in a chain where each launch reads the previous one's
/// output: C₁ = A·W, C₂ = C₁·W, C₃ = C₂·W queued back to back behind a hold (a GPU-side spin, so the
/// three launches are all queued before the first runs and each may be dispatched while the previous
/// one still runs). Every link must equal d4's (the same kernel body, launched plainly) bit for bit: a
/// launch that read its input before `griddepcontrol.wait` would see a poisoned or stale C. A first
/// pass on the same buffers fills the tensor-map cache, so the timed pass has no copy between launches
/// (a copy on the stream would serialize them and hide a missing wait).
#[test]
fn pdl_launches_wait_for_the_previous_grid() {
    use kernel_lab_bench::{families::{gemm::Shape, hgemm}, runtime::{device_check::{self, Dist, ElemKind}, timing}, steps::hgemm::{D4, D9, D12}};
    let Some(gpu) = gpu_or_skip("pdl_launches_wait_for_the_previous_grid") else { return };
    let (d4, d9, d12) = match (gpu.kernel(D4.kernel.name), gpu.kernel(D9.kernel.name), gpu.kernel(D12.kernel.name)) {
        (Ok(a), Ok(b), Ok(c)) => (a, b, c),
        (Err(e @ Error::Unsupported { .. }), _, _) | (_, Err(e @ Error::Unsupported { .. }), _) | (_, _, Err(e @ Error::Unsupported { .. })) => {
            report_skip("pdl_launches_wait_for_the_previous_grid", &e);
            return;
        }
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => panic!("{e}"),
    };
    assert!(d9.pdl && d12.pdl && !d4.pdl, "d9's and d12's PTX wait on the previous grid (a PDL launch), d4's does not");
    let seed = verify::fresh_seed();
    // M = 16 rows of activations through a 2048×2048 weight: 1 × 32 tiles of 64×64, K = 2048 (32 stages).
    let (m, k) = (16usize, 2048usize);
    let s = Shape::new(m, k, k).unwrap();
    // Weights scaled so that the chain stays in f16's range: entries in [-1/32, 1/32).
    let w = device_check::random::<u16>(&gpu, k * k, ElemKind::F16, Dist::Symmetric, seed ^ 3).unwrap();
    let w_host: Vec<u16> = gpu.download(&w).unwrap().iter().map(|&v| half::f16::from_f32(half::f16::from_bits(v).to_f32() / 32.0).to_bits()).collect();
    let w = gpu.upload(&w_host).unwrap();
    let a = device_check::random::<u16>(&gpu, m * k, ElemKind::F16, Dist::Symmetric, seed ^ 4).unwrap();
    let mut links = vec![gpu.zeros::<u16>(m * k).unwrap(), gpu.zeros::<u16>(m * k).unwrap(), gpu.zeros::<u16>(m * k).unwrap()];
    let mut chain_with = |kern: &kernel_lab_bench::runtime::gpu::Kernel, step, sync_each: bool| -> Vec<Vec<u16>> {
        for pass in 0..2 {
            for c in links.iter_mut() {
                gpu.poison(c).unwrap();
            }
            if pass == 1 && !sync_each {
                timing::hold(&gpu, 200_000).unwrap(); // 200 µs: the three launches queue up behind it
            }
            hgemm::launch(&gpu, kern, step, s, &a, &w, &mut links[0]).unwrap();
            for i in 1..3 {
                if sync_each {
                    gpu.sync_after(kern.name()).unwrap();
                }
                let (done, rest) = links.split_at_mut(i);
                hgemm::launch(&gpu, kern, step, s, &done[i - 1], &w, &mut rest[0]).unwrap();
            }
            gpu.sync_after(kern.name()).unwrap();
        }
        links.iter().map(|c| gpu.download(c).unwrap()).collect()
    };
    // d2 (sm_80) runs on Hopper from its sm_90a build, PDL-aware there (`kernels-gpu/src/util/pdl.rs`: the
    // wait first, the next grid released after its K loop): its queued chain must equal its chain with the
    // host waiting between launches, bit for bit (d2 sums its splits in a fixed order).
    let d2 = gpu.kernel(kernel_lab_bench::steps::hgemm::D2.kernel.name).unwrap();
    let hopper = gpu.runs(kernel_lab_bench::steps::Target::Sm90a);
    assert_eq!(d2.pdl, hopper && kernel_lab_bench::runtime::gpu::pdl_enabled(), "d2 is launched with PDL exactly where its sm_90a build runs");
    let (queued, synced) = (chain_with(&d2, &kernel_lab_bench::steps::hgemm::D2, false), chain_with(&d2, &kernel_lab_bench::steps::hgemm::D2, true));
    for (i, (p, q)) in synced.iter().zip(&queued).enumerate() {
        assert!(q.iter().all(|&v| half::f16::from_bits(v).is_finite()), "link {i}: d2's output not fully written (seed {seed})");
        assert!(p == q, "link {i}: d2's queued chain differs from its synchronized chain (seed {seed})");
    }
    // d2 told that B is ready at launch (`BReady::AtLaunch`: each link writes the next one's A, never
    // the weights): on Hopper its first weight stages are copied before the wait. The same bits again,
    // at this K (several stages a split) and at K = 64 (one stage: fewer than the ring's first copies).
    for kk in [k, 64] {
        use kernel_lab_bench::gemm::{BReady, launch::{Operand, Workspace}};
        let s2 = Shape::new(m, kk, kk).unwrap();
        let mut ws = Workspace::new();
        let mut run = |ready: BReady, sync_each: bool| -> Vec<Vec<u16>> {
            let mut links = [gpu.zeros::<u16>(m * kk).unwrap(), gpu.zeros::<u16>(m * kk).unwrap(), gpu.zeros::<u16>(m * kk).unwrap()];
            for c in links.iter_mut() {
                gpu.poison(c).unwrap();
            }
            if !sync_each {
                timing::hold(&gpu, 200_000).unwrap();
            }
            let op = |c: &cudarc::driver::CudaSlice<u16>| Operand::of(&gpu, c);
            let pw = Operand { ptr: op(&w).ptr, len: kk * kk };
            let pa = Operand { ptr: op(&a).ptr, len: m * kk };
            ws.launch_ready(&gpu, &d2, &kernel_lab_bench::steps::hgemm::D2, s2, pa, pw, op(&links[0]), ready).unwrap();
            for i in 1..3 {
                if sync_each {
                    gpu.sync_after("d2").unwrap();
                }
                ws.launch_ready(&gpu, &d2, &kernel_lab_bench::steps::hgemm::D2, s2, op(&links[i - 1]), pw, op(&links[i]), ready).unwrap();
            }
            gpu.sync_after("d2").unwrap();
            links.iter().map(|c| gpu.download(c).unwrap()).collect()
        };
        let (early, synced) = (run(BReady::AtLaunch, false), run(BReady::AfterPrevious, true));
        for (i, (p, q)) in synced.iter().zip(&early).enumerate() {
            assert!(q.iter().all(|&v| half::f16::from_bits(v).is_finite()), "K = {kk}, link {i}: d2 (B at launch) left output unwritten (seed {seed})");
            assert!(p == q, "K = {kk}, link {i}: d2 with B read at launch differs from its synchronized chain (seed {seed})");
        }
    }
    let mut chain = |kern, step| chain_with(kern, step, false);
    let plain = chain(&d4, &D4);
    // d12 also passes its tensor maps by value: 128-byte parameters by reference through cuLaunchKernelEx.
    for (label, kern, step) in [("d9", &d9, &D9), ("d12", &d12, &D12)] {
        let pdl = chain(kern, step);
        for (i, (p, q)) in plain.iter().zip(&pdl).enumerate() {
            assert!(q.iter().all(|&v| half::f16::from_bits(v).is_finite()), "link {i}: {label}'s output not fully written (seed {seed})");
            assert!(p == q, "link {i}: {label} differs from d4 (seed {seed})");
        }
    }
}

#[test]
fn the_gemm_entry_point_takes_any_shape() {
    use kernel_lab_bench::{
        families::{gemm::Shape, hgemm},
        gemm::{GemmDesc, GemmPlan, HalfPlan, gemm, step_by_label},
        runtime::device_check::{self, Dist, ElemKind},
        steps::gemm::Elem,
    };
    let Some(gpu) = gpu_or_skip("the_gemm_entry_point_takes_any_shape") else { return };
    let seed = verify::fresh_seed();
    let mut rng = verify::rng(seed);
    use rand::Rng;
    // Fixed edge shapes, then a random sweep: primes, K = 1, N = 1, dimensions off every tile.
    let mut shapes = vec![(1, 1, 1), (1, 1, 4095), (1, 4095, 1), (3, 5, 7), (127, 131, 1), (257, 263, 269), (1000, 999, 17), (64, 4096, 4095), (4097, 129, 40),
                          (16, 4096, 4096), (65, 1024, 520)];
    for _ in 0..12 {
        shapes.push((rng.random_range(1..600), rng.random_range(1..600), rng.random_range(1..600)));
    }
    for (elem, kind, tol) in [(Elem::F16, ElemKind::F16, hgemm::TOL), (Elem::Bf16, ElemKind::Bf16, hgemm::TOL_BF16)] {
        let widen = |v: u16| if elem == Elem::Bf16 { half::bf16::from_bits(v).to_f32() } else { half::f16::from_bits(v).to_f32() };
        for &(m, n, k) in &shapes {
            let s = Shape::new(m, n, k).unwrap();
            let a = device_check::random::<u16>(&gpu, m * k, kind, Dist::Symmetric, seed ^ 1).unwrap();
            let b = device_check::random::<u16>(&gpu, k * n, kind, Dist::Symmetric, seed ^ 2).unwrap();
            let want = kernel_lab_bench::families::gemm::reference_f64(&gpu.download(&a).unwrap().iter().map(|&v| widen(v)).collect::<Vec<_>>(),
                                                                 &gpu.download(&b).unwrap().iter().map(|&v| widen(v)).collect::<Vec<_>>(), s);
            let mut c = gpu.zeros::<u16>(m * n).unwrap();
            gpu.poison(&mut c).unwrap();
            // The typed API on views of the u16 buffers (the caller's own allocations, as f16 / bf16).
            let desc = GemmDesc::new(m, n, k);
            // SAFETY: u16, f16 and bf16 are 2-byte types of which every bit pattern is a value; the
            // views cover exactly the buffers' lengths.
            let config = unsafe {
                let mut cv = c.transmute_mut::<half::f16>(m * n).unwrap();
                if elem == Elem::Bf16 {
                    let mut cv = c.transmute_mut::<half::bf16>(m * n).unwrap();
                    gemm::<half::bf16, _, _, _>(&gpu, desc, &a.transmute::<half::bf16>(m * k).unwrap(), &b.transmute::<half::bf16>(k * n).unwrap(), &mut cv)
                } else {
                    gemm::<half::f16, _, _, _>(&gpu, desc, &a.transmute::<half::f16>(m * k).unwrap(), &b.transmute::<half::f16>(k * n).unwrap(), &mut cv)
                }
            }.unwrap();
            gpu.sync_after("gemm").unwrap();
            let got: Vec<f64> = gpu.download(&c).unwrap().iter().map(|&v| widen(v) as f64).collect();
            assert!(got.iter().all(|v| !v.is_nan()), "{elem:?} {s} via {config}: output not fully written (seed {seed})");
            let err = verify::rel_l2(&got, &want);
            assert!(err <= tol, "{elem:?} {s} via {config}: rel L2 {err:.2e} (seed {seed})");
            // Padded only when K or N is off 8 — except N off 8 with K on it up to RAGGED_MAX_M rows, which
            // the ragged-weight step (d24) reads where it lies.
            let ragged = n % 8 != 0 && k % 8 == 0 && m <= kernel_lab_bench::gemm::RAGGED_MAX_M;
            assert_eq!(config.padded, (k % 8 != 0 || n % 8 != 0) && !ragged, "{s}: padded only when K or N is off 8 and d24 cannot take it");
            assert_eq!(config.label.starts_with("d24"), ragged, "{s}: {}", config.label);
            assert!(!config.staged, "{s}: dense aligned operands run as they are");
            assert_eq!(step_by_label(config.label).unwrap().elem, elem);
        }
    }
    // A forced configuration this GPU cannot run is refused with the reason, before any launch.
    if gpu.cannot_run(&steps::hgemm::H6.kernel).is_some() {
        let e = HalfPlan::new(&gpu, Shape::new(64, 64, 64).unwrap(), Some(step_by_label("h6").unwrap()), Elem::F16).err().unwrap().to_string();
        assert!(e.contains("h6") && e.contains("sm_90a") && !e.contains("--config"), "{e}");
        let e = GemmPlan::<half::f16>::with_step(&gpu, GemmDesc::new(64, 64, 64), "h6").err().unwrap().to_string();
        assert!(e.contains("sm_90a"), "{e}");
    }
}

#[test]
fn the_gemm_api_takes_strided_and_offset_operands_on_the_callers_stream() {
    // Sub-matrices of larger buffers (pitches beyond the widths), views at offsets that are not 16-byte
    // aligned, and a stream of the caller's own: each product checked against f64, C's pitch gaps
    // checked untouched, in f16, bf16 and f32.
    use kernel_lab_bench::{
        families::gemm::Shape,
        gemm::{Element, GemmDesc, GemmPlan},
        runtime::device_check::{self, Dist, ElemKind},
    };
    let Some(gpu) = gpu_or_skip("the_gemm_api_takes_strided_and_offset_operands_on_the_callers_stream") else { return };
    let stream = gpu.ctx.new_stream().unwrap();
    let mine = kernel_lab_bench::Gpu::with_stream(stream.clone()).unwrap();
    let seed = verify::fresh_seed();
    fn check<T: Element>(gpu: &kernel_lab_bench::Gpu, seed: u64, kind: ElemKind, to_f32: fn(u32) -> f32, tol: f64) {
        // (m, n, k, padding of A's, B's and C's rows, offset): all three strided, or one alone (the others
        // then go to the kernel as they are), or none.
        for &(m, n, k, (pa, pb, pc), off) in &[(37usize, 64usize, 72usize, (8usize, 8usize, 8usize), 0usize), (100, 40, 33, (3, 3, 3), 1), (16, 4096, 512, (64, 64, 64), 8),
                                                (300, 136, 256, (0, 0, 0), 3), (4, 4096, 512, (0, 0, 24), 0), (64, 256, 128, (16, 0, 0), 0), (48, 200, 96, (0, 8, 0), 0)] {
            let pad = pa + pb + pc;
            let desc = GemmDesc::new(m, n, k).with_strides(k + pa, n + pb, n + pc);
            let (sa, sb, sc) = desc.spans();
            let bits = std::mem::size_of::<T>() * 8;
            let generate = |len: usize, s: u64| -> Vec<f32> {
                if bits == 32 {
                    let d = device_check::random::<f32>(gpu, len, ElemKind::F32, Dist::Symmetric, s).unwrap();
                    gpu.download(&d).unwrap()
                } else {
                    let d = device_check::random::<u16>(gpu, len, kind, Dist::Symmetric, s).unwrap();
                    gpu.download(&d).unwrap().into_iter().map(|v| to_f32(v as u32)).collect()
                }
            };
            let (ha, hb) = (generate(off + sa, seed ^ 11), generate(off + sb, seed ^ 12));
            let dense = |h: &[f32], rows: usize, cols: usize, ld: usize| (0..rows).flat_map(|r| (0..cols).map(move |c| h[off + r * ld + c])).collect::<Vec<f32>>();
            let want = kernel_lab_bench::families::gemm::reference_f64(&dense(&ha, m, k, desc.lda), &dense(&hb, k, n, desc.ldb), Shape::new(m, n, k).unwrap());
            let up = |h: &[f32]| -> cudarc::driver::CudaSlice<T> {
                // The values are exact in T (they came from T's own bits).
                let v: Vec<T> = h.iter().map(|&x| from_f32::<T>(x)).collect();
                gpu.stream.clone_htod(&v).unwrap()
            };
            let (da, db) = (up(&ha), up(&hb));
            let sentinel = from_f32::<T>(-7.0);
            let mut dc = gpu.stream.clone_htod(&vec![sentinel; off + sc]).unwrap();
            let mut plan = GemmPlan::<T>::new(gpu, desc).unwrap();
            plan.run(&da.slice(off..), &db.slice(off..), &mut dc.slice_mut(off..)).unwrap();
            gpu.stream.synchronize().unwrap();
            let hc: Vec<T> = gpu.stream.clone_dtoh(&dc).unwrap();
            let got: Vec<f64> = (0..m).flat_map(|r| (0..n).map(move |c| (r, c))).map(|(r, c)| to_f64(hc[off + r * desc.ldc + c])).collect();
            let err = verify::rel_l2(&got, &want);
            assert!(err <= tol, "{} {desc} offset {off} via {}: rel L2 {err:.2e} (seed {seed})", T::NAME, plan.config());
            assert!(plan.config().staged == (pad != 0 || off % (16 / std::mem::size_of::<T>()) != 0), "{desc} offset {off}: {}", plan.config());
            for r in 0..m {
                for c in n..desc.ldc.min(sc.saturating_sub(r * desc.ldc)) {
                    assert_eq!(to_f64(hc[off + r * desc.ldc + c]), -7.0, "{desc}: C's pitch gap at row {r}, column {c} was written");
                }
            }
        }
        // A too-short operand is refused before any launch, naming it.
        let desc = GemmDesc::new(8, 8, 8);
        let a = gpu.stream.alloc_zeros::<T>(63).unwrap();
        let b = gpu.stream.alloc_zeros::<T>(64).unwrap();
        let mut c = gpu.stream.alloc_zeros::<T>(64).unwrap();
        let e = GemmPlan::<T>::new(gpu, desc).unwrap().run(&a, &b, &mut c).unwrap_err().to_string();
        assert!(e.contains("A holds 63"), "{e}");
    }
    fn from_f32<T: Element>(x: f32) -> T {
        // SAFETY: T is f16, bf16 or f32 (sealed); each arm builds exactly that type's bits.
        unsafe {
            match std::mem::size_of::<T>() {
                4 => std::mem::transmute_copy(&x),
                _ if T::NAME == "bf16" => std::mem::transmute_copy(&half::bf16::from_f32(x)),
                _ => std::mem::transmute_copy(&half::f16::from_f32(x)),
            }
        }
    }
    fn to_f64<T: Element>(x: T) -> f64 {
        // SAFETY: as in `from_f32`, T is one of the three sealed types.
        unsafe {
            match std::mem::size_of::<T>() {
                4 => std::mem::transmute_copy::<T, f32>(&x) as f64,
                _ if T::NAME == "bf16" => std::mem::transmute_copy::<T, half::bf16>(&x).to_f64(),
                _ => std::mem::transmute_copy::<T, half::f16>(&x).to_f64(),
            }
        }
    }
    check::<half::f16>(&mine, seed, ElemKind::F16, |b| half::f16::from_bits(b as u16).to_f32(), 2e-3);
    check::<half::bf16>(&mine, seed, ElemKind::Bf16, |b| half::bf16::from_bits(b as u16).to_f32(), 8e-3);
    check::<f32>(&mine, seed, ElemKind::F32, |b| f32::from_bits(b), 1e-5);
}

#[test]
fn the_f32_entry_point_takes_any_shape() {
    // Every SGEMM step the chooser can pick (v11, v20; v15 / v22 and v19 / v21 with split K, the second
    // of each on Hopper; v33 with 1-16 rows, N off 4 and split K by waves), at edge shapes and a random sweep, against the
    // f64 reference; C poisoned before.
    use kernel_lab_bench::{
        families::gemm::Shape,
        runtime::device_check::{self, Dist, ElemKind},
        gemm::{GemmDesc, GemmPlan},
        sgemm::{SgemmPlan, step_by_label},
    };
    let Some(gpu) = gpu_or_skip("the_f32_entry_point_takes_any_shape") else { return };
    let seed = verify::fresh_seed();
    let mut rng = verify::rng(seed);
    use rand::Rng;
    let mut shapes = vec![(1, 1, 1), (1, 4096, 4096), (3, 1000, 777), (16, 1024, 4096), (17, 33, 4099), (32, 4097, 130), (70, 130, 1030),
                          (512, 512, 512), (127, 1031, 1024), (1000, 1000, 1000), (300, 2050, 300), (1100, 2100, 100),
                          (128, 1024, 300), (24, 2048, 1024), (2048, 2048, 64), (2000, 2000, 64), (127, 1031, 1000),
                          (4, 5001, 768), (3, 1001, 2048), (1, 5120, 13824), (9, 50257, 130), (256, 4099, 1024)];
    // v33: (4, 5001, 768) N off 4 on the strided interior loop; (3, 1001, 2048) also split by waves
    // (32 strips, four splits: the strided adds); (1, 5120, 13824) four splits (160 strips); (9, 50257, 130)
    // K off 128: the edge loop with strided lanes.
    // (128, 1024, 300): K off 16, no split; (24, …): v15 / v23; (32, 4097, 130): v15 / v26 (N off 4); (127, 1031, 1024): v19 / v25;
    // (2048, 2048, 64): v11; (2000, 2000, 64): v20. On Hopper the cost model picks (session 87): v33 at (127, 1031, 1024),
    // v26 at (127, 1031, 1000) and (9, 50257, 130) (K off 128 past 8 rows), v32 at (32, 4097, 130), v31 at (256, 4099, 1024),
    // v24 at (1000, 1000, 1000), v23 at (512, 512, 512).
    for _ in 0..10 {
        shapes.push((rng.random_range(1..600), rng.random_range(1..2000), rng.random_range(1..3000)));
    }
    let mut used = std::collections::BTreeSet::new();
    for &(m, n, k) in &shapes {
        let s = Shape::new(m, n, k).unwrap();
        let a = device_check::random::<f32>(&gpu, m * k, ElemKind::F32, Dist::Symmetric, seed ^ 1).unwrap();
        let b = device_check::random::<f32>(&gpu, k * n, ElemKind::F32, Dist::Symmetric, seed ^ 2).unwrap();
        let want = kernel_lab_bench::families::gemm::reference_f64(&gpu.download(&a).unwrap(), &gpu.download(&b).unwrap(), s);
        let mut c = gpu.zeros::<f32>(m * n).unwrap();
        gpu.poison(&mut c).unwrap();
        let mut plan = GemmPlan::<f32>::new(&gpu, GemmDesc::new(m, n, k)).unwrap();
        plan.run(&a, &b, &mut c).unwrap();
        let step = kernel_lab_bench::steps::sgemm::STEPS.iter().find(|st| st.kernel.name == plan.config().kernel).unwrap();
        gpu.sync_after("gemm f32").unwrap();
        let got: Vec<f64> = gpu.download(&c).unwrap().iter().map(|&v| v as f64).collect();
        assert!(got.iter().all(|v| !v.is_nan()), "{s} via {}: output not fully written (seed {seed})", step.kernel.step);
        let err = verify::rel_l2(&got, &want);
        assert!(err <= 1e-5, "{s} via {}: rel L2 {err:.2e} (seed {seed})", step.kernel.step);
        used.insert(step.kernel.step);
    }
    // gemm_f32 ran the chooser's step for every shape on this GPU (which of v11 / v19 / v20 depends on
    // the SM count), and the SM-count-independent picks are reached: the small-M steps and, on Hopper
    // with a 12.1+ driver, all four PDL forms.
    let hopper = gpu.cannot_run(&kernel_lab_bench::steps::sgemm::V21.kernel).is_none();
    let chosen: std::collections::BTreeSet<&str> = shapes.iter()
        .map(|&(m, n, k)| kernel_lab_bench::sgemm::default_step_by(&kernel_lab_bench::sgemm::calibrate::model_for(&gpu), Shape::new(m, n, k).unwrap(), gpu.info.sms, hopper).kernel.step).collect();
    assert_eq!(used, chosen, "gemm_f32 runs the chooser's step");
    let want: &[&str] = if hopper { &["v33", "v23", "v24", "v26", "v31", "v32"] } else { &["v33", "v15", "v19"] };
    assert!(want.iter().all(|l| used.contains(l)), "the shapes reach every step the chooser picks here: {used:?}");
    // A forced step that cannot take the shape is refused naming the rule, before any launch.
    let e = SgemmPlan::new(&gpu, Shape::new(8, 8, 7).unwrap(), Some(step_by_label("v10").unwrap())).err().unwrap().to_string();
    assert!(e.contains("step v10") && e.contains("multiples of 4"), "{e}");
}

#[test]
fn the_f32_calibration_times_every_family_and_fits_it() {
    // `kernel-lab calibrate --dtype f32`'s measurement: every family's calibration shapes timed, the
    // constants fitted from the shipped ones reproducing their own timings (median error under 15%), and
    // the model's text form read back.
    use kernel_lab_bench::sgemm::{calibrate, cost};
    let Some(gpu) = gpu_or_skip("the_f32_calibration_times_every_family_and_fits_it") else { return };
    if gpu.cannot_run(&kernel_lab_bench::steps::sgemm::V24.kernel).is_some() {
        let e = calibrate::calibrate(&gpu, &mut |_| {}).err().expect("refused off Hopper").to_string();
        assert!(e.contains("sm_90a"), "{e}");
        eprintln!("the_f32_calibration_times_every_family_and_fits_it: skipped the fit (no sm_90a)");
        return;
    }
    let t0 = std::time::Instant::now();
    let cal = calibrate::calibrate(&gpu, &mut |_| {}).unwrap();
    let secs = t0.elapsed().as_secs_f64();
    assert!(cal.skipped.is_empty(), "{:?}", cal.skipped);
    for (fam, name) in cost::FAMILIES.iter().enumerate() {
        let want = cost::calibration_shapes(fam, gpu.info.sms).len();
        let got = cal.samples.iter().filter(|x| cost::family_of(&x.step) == Some(fam)).count();
        assert_eq!(got, want, "{name}: every calibration shape timed");
    }
    let mut errs: Vec<f64> = cal.samples.iter().map(|x| {
        let fam = cost::family_of(&x.step).unwrap();
        let st = kernel_lab_bench::sgemm::step_by_label(&x.step).unwrap();
        let p = cal.model.costs[fam].predict(&cost::schedule(st, x.shape, gpu.info.sms).unwrap(), x.shape, gpu.info.sms);
        assert!(x.us > 0.0 && p > 0.0, "{} {}: {} µs, predicted {p}", x.step, x.shape, x.us);
        (p / x.us - 1.0).abs()
    }).collect();
    errs.sort_by(f64::total_cmp);
    assert!(errs[errs.len() / 2] < 0.15, "median fit error {:.1}%", 100.0 * errs[errs.len() / 2]);
    let back = cost::F32Model::parse(&cal.model.to_text(), "calibration").unwrap();
    assert_eq!(back.sms, gpu.info.sms);
    assert!(back.source.contains("calibrated on"), "{}", back.source);
    eprintln!("f32 calibration: {} timings in {secs:.1} s, median fit error {:.1}%", cal.samples.len(), 100.0 * errs[errs.len() / 2]);
}

#[test]
fn split_k_steps_stay_correct_in_any_order() {
    // d1 needs a zeroed workspace, d2 leaves its partials in its own: run them interleaved on shapes
    // with several splits (a shared workspace once made d1 fail after d2).
    use kernel_lab_bench::{
        families::{gemm::Shape, hgemm},
        runtime::device_check::{self, Dist, ElemKind},
    };
    let Some(gpu) = gpu_or_skip("split_k_steps_stay_correct_in_any_order") else { return };
    let seed = verify::fresh_seed();
    // h7, d3 and d25 (Hopper) share d2's partials workspace and counters.
    let order = [&steps::hgemm::D2, &steps::hgemm::D1, &steps::hgemm::H7, &steps::hgemm::D3, &steps::hgemm::D25, &steps::hgemm::D2M64, &steps::hgemm::D1,
                 &steps::hgemm::H7, &steps::hgemm::D25, &steps::hgemm::D3, &steps::hgemm::D2, &steps::hgemm::D1];
    for (m, n, k) in [(130, 264, 72), (300, 520, 192), (16, 512, 8192), (1, 4096, 4096), (200, 1024, 4096)] {
        let s = Shape::new(m, n, k).unwrap();
        let a = device_check::random::<u16>(&gpu, m * k, ElemKind::F16, Dist::Symmetric, seed ^ 3).unwrap();
        let b = device_check::random::<u16>(&gpu, k * n, ElemKind::F16, Dist::Symmetric, seed ^ 4).unwrap();
        let f = |d: &kernel_lab_bench::cudarc::driver::CudaSlice<u16>| gpu.download(d).unwrap().iter().map(|&v| half::f16::from_bits(v).to_f32()).collect::<Vec<_>>();
        let want = kernel_lab_bench::families::gemm::reference_f64(&f(&a), &f(&b), s);
        let mut c = gpu.zeros::<u16>(m * n).unwrap();
        for step in order {
            if let Some(why) = gpu.cannot_run(&step.kernel) {
                report_skip(step.kernel.name, &why);
                continue;
            }
            let kern = gpu.kernel(step.kernel.name).unwrap();
            gpu.poison(&mut c).unwrap();
            hgemm::launch(&gpu, &kern, step, s, &a, &b, &mut c).unwrap();
            gpu.sync_after(step.kernel.name).unwrap();
            let got: Vec<f64> = gpu.download(&c).unwrap().iter().map(|&v| half::f16::from_bits(v).to_f64()).collect();
            let err = verify::rel_l2(&got, &want);
            assert!(err <= hgemm::TOL, "{} on {s} (splits {:?}): rel L2 {err:.2e} (seed {seed})", step.kernel.name,
                    hgemm::split_k(step, s, gpu.info.sms));
        }
    }
}

/// The timing loop's hold: a hold of `ns` keeps the GPU busy for `ns` (`%globaltimer` ticks in ns),
/// so timed as work it measures that long; and a short kernel timed behind holds never waits for the
/// host: the start event is still pending when the work is enqueued, or the sample is retaken.
#[test]
fn timing_holds_measure_gpu_time() {
    use kernel_lab_bench::runtime::timing::{hold, time_gpu};
    let Some(gpu) = gpu_or_skip("timing_holds_measure_gpu_time") else { return };
    for ns in [50_000u64, 200_000] {
        let t = time_gpu(&gpu, 2, 20, |_| hold(&gpu, ns)).unwrap();
        let want_ms = ns as f64 * 1e-6;
        assert!(t.median_ms >= want_ms && t.median_ms < want_ms * 1.2 + 0.01,
                "a hold of {ns} ns timed {:.4} ms (want {want_ms:.4} ms, within 20% + 10 µs)", t.median_ms);
    }
    // A zero-length hold is a launch with no work: what the GPU spends on an empty kernel.
    let t = time_gpu(&gpu, 2, 50, |_| hold(&gpu, 0)).unwrap();
    assert!(t.median_ms < 0.02, "an empty kernel timed {:.4} ms behind a hold: host latency leaks into the samples", t.median_ms);
}

#[test]
fn autotune_verifies_times_and_caches_the_fastest_candidate() {
    use kernel_lab_bench::{
        families::{gemm::Shape, hgemm},
        runtime::device_check::{self, Dist, ElemKind},
        steps::gemm::Elem,
        tune::{self, Key, TuneCache},
    };
    let Some(gpu) = gpu_or_skip("autotune_verifies_times_and_caches_the_fastest_candidate") else { return };
    let dir = std::env::temp_dir().join(format!("kernel-lab-autotune-gpu-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("tune.json");
    let seed = verify::fresh_seed();
    let widen = |elem: Elem, v: u16| if elem == Elem::Bf16 { half::bf16::from_bits(v).to_f32() } else { half::f16::from_bits(v).to_f32() };
    // A decode shape (the most candidates), a padded one, then the f32 entry point with N off 4.
    for (elem, kind, tol, (m, n, k)) in [(Elem::F16, ElemKind::F16, hgemm::TOL, (16, 4096, 4096)), (Elem::Bf16, ElemKind::Bf16, hgemm::TOL_BF16, (33, 4095, 40))] {
        let s = Shape::new(m, n, k).unwrap();
        let mut cache = TuneCache::open(&path).unwrap();
        let (mut plan, tuned) = tune::plan16(&gpu, s, elem, &mut cache).unwrap();
        let e = &tuned.entry;
        assert!(!tuned.cached, "{s}: not in a fresh cache");
        assert!(e.timed.windows(2).all(|w| w[0].median_us <= w[1].median_us) && e.timed.iter().all(|t| t.median_us > 0.0 && t.samples >= 3 * tune::ROUNDS),
                "{s}: timed fastest first, every candidate sampled in every round: {}", e.summary());
        assert!(e.timed.iter().all(|t| t.rel_err <= tol), "{s}: {}", e.summary());
        assert_eq!((e.timed[0].label.as_str(), e.step.as_str()), (plan.config().label().as_str(), plan.config().step.kernel.step), "{s}: the plan runs the winner");
        assert!(e.timed.iter().any(|t| t.label == e.rule), "{s}: the rule's choice is always timed: {}", e.summary());
        // Several candidates considered (timed or pruned by their probe) wherever sm_90a runs.
        assert!(e.timed.len() + e.pruned.len() >= 2 || gpu.cannot_run(&steps::hgemm::H6.kernel).is_some(), "{s}: {}", e.summary());
        assert!(tuned.save_error.is_none(), "{s}: {:?}", tuned.save_error);
        // The winner verified again on inputs the tuning never saw, C poisoned first.
        let a = device_check::random::<u16>(&gpu, m * k, kind, Dist::Symmetric, seed ^ 3).unwrap();
        let b = device_check::random::<u16>(&gpu, k * n, kind, Dist::Symmetric, seed ^ 4).unwrap();
        let want = kernel_lab_bench::families::gemm::reference_f64(&gpu.download(&a).unwrap().iter().map(|&v| widen(elem, v)).collect::<Vec<_>>(),
                                                             &gpu.download(&b).unwrap().iter().map(|&v| widen(elem, v)).collect::<Vec<_>>(), s);
        let mut c = gpu.zeros::<u16>(m * n).unwrap();
        gpu.poison(&mut c).unwrap();
        plan.run(&a, &b, &mut c).unwrap();
        gpu.sync_after("autotuned gemm").unwrap();
        let got: Vec<f64> = gpu.download(&c).unwrap().iter().map(|&v| widen(elem, v) as f64).collect();
        assert!(got.iter().all(|v| !v.is_nan()), "{s}: output not fully written");
        let err = verify::rel_l2(&got, &want);
        assert!(err <= tol, "{s} via {}: rel L2 {err:.2e} (seed {seed})", e.step);
        // The file has it; a second plan takes it without timing, from a cache reopened from disk.
        let mut again = TuneCache::open(&path).unwrap();
        assert_eq!(again.get(&Key::new(&gpu, elem, s)), Some(e));
        let (plan2, t2) = tune::plan16(&gpu, s, elem, &mut again).unwrap();
        assert!(t2.cached && t2.entry == *e && plan2.config() == plan.config(), "{s}: cached");
        if elem == Elem::F16 {
            // An entry naming a step this build does not have is tuned again and overwritten.
            let mut stale = e.clone();
            stale.step = "no-such-step".into();
            again.insert(&Key::new(&gpu, elem, s), stale).unwrap();
            let (_, t3) = tune::plan16(&gpu, s, elem, &mut again).unwrap();
            assert!(!t3.cached && t3.entry.step != "no-such-step", "{s}: a stale entry is tuned again");
            assert_eq!(TuneCache::open(&path).unwrap().get(&Key::new(&gpu, elem, s)).map(|x| x.step.clone()), Some(t3.entry.step.clone()));
        }
    }
    let s = Shape::new(127, 131, 48).unwrap();
    let mut cache = TuneCache::open(&path).unwrap();
    assert_eq!(cache.len(), 2);
    let (mut plan, tuned) = tune::plan32(&gpu, s, &mut cache).unwrap();
    assert!(!tuned.cached && tuned.entry.step == plan.step().kernel.step && tuned.entry.timed.len() >= 2, "{}", tuned.entry.summary());
    let a = device_check::random::<f32>(&gpu, s.m * s.k, ElemKind::F32, Dist::Symmetric, seed ^ 5).unwrap();
    let b = device_check::random::<f32>(&gpu, s.k * s.n, ElemKind::F32, Dist::Symmetric, seed ^ 6).unwrap();
    let want = kernel_lab_bench::families::gemm::reference_f64(&gpu.download(&a).unwrap(), &gpu.download(&b).unwrap(), s);
    let mut c = gpu.zeros::<f32>(s.m * s.n).unwrap();
    gpu.poison(&mut c).unwrap();
    plan.run(&a, &b, &mut c).unwrap();
    gpu.sync_after("autotuned sgemm").unwrap();
    let got: Vec<f64> = gpu.download(&c).unwrap().iter().map(|&v| v as f64).collect();
    let err = verify::rel_l2(&got, &want);
    assert!(got.iter().all(|v| !v.is_nan()) && err <= tune::TOL_F32, "{s} via {}: rel L2 {err:.2e}", plan.step().kernel.step);
    assert_eq!(TuneCache::open(&path).unwrap().len(), 3);
    std::fs::remove_dir_all(&dir).unwrap();
}

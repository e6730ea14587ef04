//! GPU tests of the FP8 path (issue 16): the quantization kernels against the host model of e4m3, the
//! FP8 GEMM steps against the f64 product of their dequantized inputs, promotion's effect on the error
//! as K grows, and bad input refused before any launch. Without a GPU, or on a GPU without sm_90a, each
//! test says it was skipped and passes.
use std::io::Write;

use kernel_lab_bench::{
    families::fp8::{TOL_PROMOTED, promotion_study, tolerance},
    fp8::{self, Fp8Gemm, Fp8Matrix, Operand},
    runtime::{device_check::{self, Dist, ElemKind}, gpu::Gpu, verify},
    steps::fp8::{F1, F12, F14, F15, F16, F19, F2, F20, F27, FW1, FW1_MAX_M, FW2, FW2_MAX_M, FWB, STEPS, Scaling, Step, WEIGHT_ONLY_ROUTES},
};
use layout::fp8::{E4M3_MAX, SCALE_BLOCK, f32_to_e4m3, scale_a_index, scale_b_index};

use kernel_lab_bench::runtime::gpu::gpu_that_runs_or_skip;

fn hopper_or_skip(test: &str) -> Option<Gpu> {
    gpu_that_runs_or_skip(test, &F1.kernel)
}

fn random(gpu: &Gpu, n: usize, seed: u64) -> (Vec<f32>, cudarc::driver::CudaSlice<f32>) {
    let mut rng = verify::rng(seed);
    // Magnitudes spread over 2^-12 .. 2^4, so per-block scales differ from the tensor's.
    let x: Vec<f32> = verify::uniform_f32(&mut rng, n).iter().enumerate().map(|(i, v)| v * (1u32 << (i * 7 % 17)) as f32 / 4096.0).collect();
    let d = gpu.upload(&x).unwrap();
    (x, d)
}

/// Every byte and scale of each quantization equals the host model's: `s = amax / 448` over the
/// group, `q = e4m3(x / s)` rounded to nearest even with saturation.
#[test]
fn quantization_matches_the_host_model() {
    let Some(gpu) = hopper_or_skip("quantization_matches_the_host_model") else { return };
    let seed = verify::fresh_seed();
    for (rows, cols) in [(1usize, 16usize), (3, 260), (130, 384), (257, 1000)] {
        let (x, d_x) = random(&gpu, rows * cols, seed ^ (rows * cols) as u64);
        for (scaling, op) in [(Scaling::PerTensor, Operand::A), (Scaling::Block, Operand::A), (Scaling::Block, Operand::B)] {
            let m = fp8::quantize(&gpu, &d_x, rows, cols, scaling, op).unwrap();
            let (q, s) = (gpu.download(&m.q).unwrap(), gpu.download(&m.scales).unwrap());
            let group_of = |r: usize, c: usize| -> usize {
                match (scaling, op) {
                    (Scaling::PerTensor, _) => 0,
                    (Scaling::Block, Operand::A) => scale_a_index(r as u32, c as u32, rows as u32) as usize,
                    (Scaling::Block, Operand::B) => scale_b_index(r as u32, c as u32, cols as u32) as usize,
                }
            };
            let mut amax = vec![0f32; s.len()];
            for r in 0..rows {
                for c in 0..cols {
                    let g = group_of(r, c);
                    amax[g] = amax[g].max(x[r * cols + c].abs());
                }
            }
            for (g, (&got, &a)) in s.iter().zip(&amax).enumerate() {
                assert_eq!(got, a / E4M3_MAX, "{scaling:?} {op:?} {rows}x{cols}: scale {g} (seed {seed})");
            }
            for r in 0..rows {
                for c in 0..cols {
                    let i = r * cols + c;
                    let want = f32_to_e4m3(x[i] / s[group_of(r, c)]);
                    assert_eq!(q[i], want, "{scaling:?} {op:?} {rows}x{cols}: element ({r}, {c}) = {} (seed {seed})", x[i]);
                }
            }
        }
    }
}

/// f16 and bf16 inputs quantize to the same bytes and scales as the same values held in f32 (the
/// 16-bit quantizers widen exactly), for every scaling.
#[test]
fn sixteen_bit_inputs_quantize_like_their_f32_values() {
    let Some(gpu) = hopper_or_skip("sixteen_bit_inputs_quantize_like_their_f32_values") else { return };
    let seed = verify::fresh_seed();
    for elem in [kernel_lab_bench::steps::gemm::Elem::F16, kernel_lab_bench::steps::gemm::Elem::Bf16] {
        for (rows, cols) in [(3usize, 260usize), (130, 384)] {
            let (x, _) = random(&gpu, rows * cols, seed ^ (rows * cols) as u64);
            let bits: Vec<u16> = x.iter().map(|&v| if elem == kernel_lab_bench::steps::gemm::Elem::Bf16 { half::bf16::from_f32(v).to_bits() } else { half::f16::from_f32(v).to_bits() }).collect();
            let wide: Vec<f32> = bits.iter().map(|&b| if elem == kernel_lab_bench::steps::gemm::Elem::Bf16 { half::bf16::from_bits(b).to_f32() } else { half::f16::from_bits(b).to_f32() }).collect();
            let (d16, d32) = (gpu.upload(&bits).unwrap(), gpu.upload(&wide).unwrap());
            for (scaling, op) in [(Scaling::PerTensor, Operand::A), (Scaling::Block, Operand::A), (Scaling::Block, Operand::B)] {
                let a = fp8::quantize_16(&gpu, &d16, elem, rows, cols, scaling, op).unwrap();
                let b = fp8::quantize(&gpu, &d32, rows, cols, scaling, op).unwrap();
                assert_eq!(gpu.download(&a.q).unwrap(), gpu.download(&b.q).unwrap(), "{elem:?} {scaling:?} {op:?} {rows}x{cols} bytes (seed {seed})");
                assert_eq!(gpu.download(&a.scales).unwrap(), gpu.download(&b.scales).unwrap(), "{elem:?} {scaling:?} {op:?} {rows}x{cols} scales");
            }
        }
    }
}

/// C (bf16) downloaded as f64.
fn bf16_values(gpu: &Gpu, c: &cudarc::driver::CudaSlice<u16>) -> Vec<f64> {
    gpu.download(c).unwrap().into_iter().map(|v| half::bf16::from_bits(v).to_f64()).collect()
}

/// Poisons C, runs the prepared GEMM on `(a, b)`, and returns C as f64 after checking that every element
/// was written (`what` names the run in the failure).
fn run_fully_written(gpu: &Gpu, g: &Fp8Gemm, (a, b): (&Fp8Matrix, &Fp8Matrix), c: &mut cudarc::driver::CudaSlice<u16>, what: &str) -> Vec<f64> {
    gpu.poison(c).unwrap();
    g.run(gpu, a, b, c).unwrap();
    gpu.sync_after(g.step().kernel.name).unwrap();
    let got = bf16_values(gpu, c);
    assert!(got.iter().all(|v| !v.is_nan()), "{what}: output not fully written");
    got
}

/// Every FP8 step on ragged shapes (M, N not multiples of the tiles, K not a multiple of 128; 1 to 16
/// K tiles, odd and even: f4 pairs them) with magnitudes varying by row and K block, fully written and
/// within tolerance of the f64 reference; run twice on the same prepared GEMM.
#[test]
fn fp8_steps_match_the_dequantized_reference() {
    let Some(gpu) = hopper_or_skip("fp8_steps_match_the_dequantized_reference") else { return };
    let seed = verify::fresh_seed();
    for (m, n, k) in [(1usize, 8usize, 16usize), (130, 264, 400), (300, 136, 1024), (129, 520, 2048), (64, 128, 384), (200, 256, 640), (4, 392, 400), (260, 200, 2064)] {
        let (ha, _) = random(&gpu, m * k, seed ^ 1);
        let (hb, _) = random(&gpu, n * k, seed ^ 2);
        // Magnitudes that differ by row and by 128-deep K block (×2^-4 … 2^4): block scales differ from
        // one block to the next, so a scale applied to the wrong row, column block or K block shows.
        let vary = |r: usize, c: usize| 2f32.powi(((r * 5 + (c / 128) * 3) % 9) as i32 - 4);
        let a32 = gpu.upload(&ha.iter().enumerate().map(|(i, v)| v * vary(i / k, i % k)).collect::<Vec<_>>()).unwrap();
        let b32 = gpu.upload(&hb.iter().enumerate().map(|(i, v)| v * vary(i / k / 128, i % k)).collect::<Vec<_>>()).unwrap();
        for step in STEPS {
            if let Some(why) = step.rejects(m, n, k) {
                // The only rule these shapes may break: f15's and f19's M % 4 (their scale map's row stride).
                assert!(step.scale_map && m % 4 != 0, "{m}x{n}x{k}: {why}");
                continue;
            }
            let a = fp8::quantize(&gpu, &a32, m, k, step.scaling, Operand::A).unwrap();
            let b = fp8::quantize(&gpu, &b32, n, k, step.scaling, Operand::B).unwrap();
            let want = fp8::reference_f64(&gpu, &a, &b).unwrap();
            let mut c = gpu.zeros::<u16>(m * n).unwrap();
            let g = Fp8Gemm::new(&gpu, step, &a, &b, &c).unwrap();
            for rep in 0..2 {
                let got = run_fully_written(&gpu, &g, (&a, &b), &mut c, &format!("{} {m}x{n}x{k} rep {rep}", step.kernel.name));
                let err = verify::rel_l2(&got, &want);
                assert!(err <= tolerance(step.promotes, k), "{} {m}x{n}x{k} rep {rep}: rel L2 {err:.2e} (seed {seed})", step.kernel.name);
            }
        }
    }
}

/// fw1 and fw2 (per tensor, a few rows of A through the weight-only kernel: A widened by a launch of its
/// own, or in fw2's registers) on decode shapes: 1–16 rows (each of the token tiles), N off 32 (a ragged
/// last row tile), K off 128, one and several splits of K; products' scales small, ordinary, and past
/// fw1's block-scale range (inputs ×10⁶ and ×10³: its power of two clamped to 2^7, the rest in A's widened
/// values); fully written, within tolerance of the f64 reference, three runs on one prepared GEMM
/// (split-K counters left zero); and `gemm_fp8` takes fw2 up to `FW2_MAX_M` rows, fw1 up to `FW1_MAX_M`, neither above.
/// fwb (block scales) the same on block-scaled operands of the same inputs, whose magnitudes vary by row
/// and K block (so each block's scale differs), and `gemm_fp8` takes it for block scales up to 16 rows.
#[test]
fn the_weight_only_routes_match_the_reference_at_decode_shapes() {
    let Some(gpu) = hopper_or_skip("the_weight_only_routes_match_the_reference_at_decode_shapes") else { return };
    let seed = verify::fresh_seed();
    for (m, n, k, gain) in [(1usize, 8usize, 16usize, 1.0f32), (3, 392, 400, 1.0), (8, 264, 2064, 1e-3), (16, 4104, 4096, 1.0), (9, 1032, 8192, 1.0), (2, 520, 1024, 0.0)] {
        let (ga, gb) = if gain == 0.0 { (1e6f32, 1e3f32) } else { (gain, gain) };
        let (ha, _) = random(&gpu, m * k, seed ^ 11);
        let (hb, _) = random(&gpu, n * k, seed ^ 12);
        // Magnitudes that differ from one 128-deep block of K to the next and from row to row (×2^-5 …
        // 2^5), so that block scales differ everywhere: a scale taken from the wrong token, row block
        // or K block shows as a large error.
        let vary = |r: usize, c: usize| 2f32.powi(((r * 7 + (c / 128) * 3) % 11) as i32 - 5);
        let a32 = gpu.upload(&ha.iter().enumerate().map(|(i, v)| v * ga * vary(i / k, i % k)).collect::<Vec<_>>()).unwrap();
        let b32 = gpu.upload(&hb.iter().enumerate().map(|(i, v)| v * gb * vary(i / k / 128, i % k)).collect::<Vec<_>>()).unwrap();
        let per_tensor = (fp8::quantize(&gpu, &a32, m, k, Scaling::PerTensor, Operand::A).unwrap(),
                          fp8::quantize(&gpu, &b32, n, k, Scaling::PerTensor, Operand::B).unwrap());
        let block = (fp8::quantize(&gpu, &a32, m, k, Scaling::Block, Operand::A).unwrap(), fp8::quantize(&gpu, &b32, n, k, Scaling::Block, Operand::B).unwrap());
        let wants = [fp8::reference_f64(&gpu, &per_tensor.0, &per_tensor.1).unwrap(), fp8::reference_f64(&gpu, &block.0, &block.1).unwrap()];
        let mut c = gpu.zeros::<u16>(m * n).unwrap();
        for step in WEIGHT_ONLY_ROUTES {
            assert!(step.rejects(m, n, k).is_none(), "{m}x{n}x{k}");
            let ((a, b), want) = if step.scaling == Scaling::Block { (&block, &wants[1]) } else { (&per_tensor, &wants[0]) };
            let g = Fp8Gemm::new(&gpu, step, a, b, &c).unwrap();
            for rep in 0..3 {
                let what = format!("{} {m}x{n}x{k} rep {rep}", step.kernel.step);
                let got = run_fully_written(&gpu, &g, (a, b), &mut c, &what);
                let err = verify::rel_l2(&got, want);
                assert!(err <= tolerance(step.promotes, k), "{what} (inputs ×{ga:e}, ×{gb:e}): rel L2 {err:.2e} (seed {seed})");
            }
        }
        assert_eq!(fp8::default_step(&gpu, Scaling::PerTensor, m, n, k).unwrap(), if m <= FW2_MAX_M { &FW2 } else { &FW1 });
        assert_eq!(fp8::default_step(&gpu, Scaling::Block, m, n, k).unwrap(), &FWB);
    }
    let above = fp8::default_step(&gpu, Scaling::PerTensor, FW1_MAX_M + 1, 4096, 4096).unwrap();
    assert!(!WEIGHT_ONLY_ROUTES.contains(&above));
    for step in WEIGHT_ONLY_ROUTES {
        let e = step.rejects(FW1_MAX_M + 1, 4096, 4096).unwrap();
        assert!(e.contains("at most 16 rows"), "{e}");
    }
}

/// A stream-K step's tail on a shape where it streams (4 tile rows and about 1.25 waves of tiles, K
/// ragged and only a few K tiles, so tail tiles are summed from several contributors' slots): fully
/// written, within the step's tolerance of the f64 reference and close to its whole-tile twin's output
/// (the same products summed in another order), run three times on one prepared GEMM (each tail tile's
/// last contributor must have reset its counter, or the next run's tickets would be off).
fn streams_the_tail_and_matches(test: &str, step: &'static Step, twin: &'static Step) {
    use layout::hopper::tma_hgemm::stream_k_tail;
    let Some(gpu) = hopper_or_skip(test) else { return };
    let seed = verify::fresh_seed();
    let sms = gpu.info.sms;
    let (bm, bn) = (step.tile.0, step.tile.1);
    // 4 tile rows × tn tile columns ≈ 1.25 waves; K tiles enough that every CTA gets one of the tail.
    let tn = (sms + sms / 4).div_ceil(4);
    let tail = stream_k_tail(4 * tn, sms, 1 << 20);
    assert!(tail > 0, "{sms} SMs: 4 x {tn} tiles should leave a tail");
    let k_tiles = sms.div_ceil(tail) + 1;
    let (m, n, k) = ((4 * bm - 12) as usize, (tn * bn - 8) as usize, (k_tiles * 128 - 112) as usize);
    assert_eq!(stream_k_tail(4 * tn, sms, k_tiles), tail, "{m}x{n}x{k} streams its tail");
    let (_, a32) = random(&gpu, m * k, seed ^ 1);
    let (_, b32) = random(&gpu, n * k, seed ^ 2);
    let a = fp8::quantize(&gpu, &a32, m, k, step.scaling, Operand::A).unwrap();
    let b = fp8::quantize(&gpu, &b32, n, k, step.scaling, Operand::B).unwrap();
    let want = fp8::reference_f64(&gpu, &a, &b).unwrap();
    let mut c_twin = gpu.zeros::<u16>(m * n).unwrap();
    Fp8Gemm::new(&gpu, twin, &a, &b, &c_twin).unwrap().run(&gpu, &a, &b, &mut c_twin).unwrap();
    gpu.sync_after(twin.kernel.name).unwrap();
    let of_twin = bf16_values(&gpu, &c_twin);
    let (name, twin_name, tol) = (step.kernel.step, twin.kernel.step, tolerance(step.promotes, k));
    let mut c = gpu.zeros::<u16>(m * n).unwrap();
    let g = Fp8Gemm::new(&gpu, step, &a, &b, &c).unwrap();
    for rep in 0..3 {
        let got = run_fully_written(&gpu, &g, (&a, &b), &mut c, &format!("{name} {m}x{n}x{k} rep {rep}"));
        let err = verify::rel_l2(&got, &want);
        assert!(err <= tol, "{name} {m}x{n}x{k} rep {rep}: rel L2 {err:.2e} against f64 (seed {seed})");
        let vs_twin = verify::rel_l2(&got, &of_twin);
        assert!(vs_twin <= tol, "{name} {m}x{n}x{k} rep {rep}: rel L2 {vs_twin:.2e} against {twin_name} (seed {seed})");
        let _ = writeln!(std::io::stderr(), "{name} {m}x{n}x{k} (tail {tail} of {} tiles) rep {rep}: rel L2 {err:.2e} vs f64, {vs_twin:.2e} vs {twin_name}", 4 * tn);
    }
}

/// f14 (per tensor, 128×256 tiles) against f12.
#[test]
fn f14_streams_the_tail_and_matches_f12() {
    streams_the_tail_and_matches("f14_streams_the_tail_and_matches_f12", &F14, &F12);
}

/// f16 (block scales, staged, 128×192 tiles) against f15.
#[test]
fn f16_streams_the_tail_and_matches_f15() {
    streams_the_tail_and_matches("f16_streams_the_tail_and_matches_f15", &F16, &F15);
}

/// f20 (block scales, staged, 192×128 tiles, three consumers: partials of three warpgroups in a slot,
/// the ticket on named barrier 4) against f19.
#[test]
fn f20_streams_the_tail_and_matches_f19() {
    streams_the_tail_and_matches("f20_streams_the_tail_and_matches_f19", &F20, &F19);
}

/// Few tiles over a deep K where f22's small tiles need two rounds (one 128-row tile × 17 of 128×256, 136
/// of 64×64 on 132 SMs; 32 K tiles; M, K off the tiles): the library's per-tensor choice is f21 (K split
/// over a cluster), within tolerance of the f64 reference and no less accurate than f14, three runs on one
/// prepared GEMM. (Each split sums only its share of K in the tensor core's reduced-precision
/// accumulators: the first GPU run of this test, at 200×1000×5104, measured 3.2e-3 against f14's ~2e-2.)
#[test]
fn f21_is_the_default_for_few_tiles_over_deep_k_and_matches_f14() {
    let Some(gpu) = hopper_or_skip("f21_is_the_default_for_few_tiles_over_deep_k_and_matches_f14") else { return };
    let seed = verify::fresh_seed();
    let (m, n, k) = (65usize, 4352usize, 4000usize);
    let step = fp8::default_step(&gpu, Scaling::PerTensor, m, n, k).unwrap();
    assert!(step.cluster_split, "{m}x{n}x{k}: the default is {}, not f21", step.kernel.step);
    let (_, a32) = random(&gpu, m * k, seed ^ 7);
    let (_, b32) = random(&gpu, n * k, seed ^ 8);
    let a = fp8::quantize(&gpu, &a32, m, k, Scaling::PerTensor, Operand::A).unwrap();
    let b = fp8::quantize(&gpu, &b32, n, k, Scaling::PerTensor, Operand::B).unwrap();
    let want = fp8::reference_f64(&gpu, &a, &b).unwrap();
    let mut c14 = gpu.zeros::<u16>(m * n).unwrap();
    let err14 = verify::rel_l2(&run_fully_written(&gpu, &Fp8Gemm::new(&gpu, &F14, &a, &b, &c14).unwrap(), (&a, &b), &mut c14, "f14"), &want);
    let mut c = gpu.zeros::<u16>(m * n).unwrap();
    let g = Fp8Gemm::new(&gpu, step, &a, &b, &c).unwrap();
    assert_eq!(g.grid(), 17 * step.cluster, "one cluster per tile");
    for rep in 0..3 {
        let what = format!("{} {m}x{n}x{k} rep {rep}", step.kernel.step);
        let got = run_fully_written(&gpu, &g, (&a, &b), &mut c, &what);
        let err = verify::rel_l2(&got, &want);
        assert!(err <= tolerance(false, k) && err <= 1.05 * err14, "{what}: rel L2 {err:.2e} against f64, f14's {err14:.2e} (seed {seed})");
    }
}

/// Where 128×256 tiles leave the last round mostly empty the per-tensor choice takes f27's width that fills
/// it: 1000×5096×1040 is 160 tiles of f14's (two rounds on 132 SMs), 128 of 128×320 — N off the tile (the
/// last tile's second B box partly past N) and K off 128; within tolerance of the f64 reference, fully
/// written, three runs on one prepared GEMM, and the entry point `gemm_fp8` runs the same step.
#[test]
fn f27_is_the_default_where_its_tiles_fill_the_rounds_and_matches_the_reference() {
    let Some(gpu) = hopper_or_skip("f27_is_the_default_where_its_tiles_fill_the_rounds_and_matches_the_reference") else { return };
    let seed = verify::fresh_seed();
    let (m, n, k) = (1000usize, 5096usize, 1040usize);
    let step = fp8::default_step(&gpu, Scaling::PerTensor, m, n, k).unwrap();
    if gpu.info.sms == 132 {
        assert_eq!(step.kernel.step, "f27n320", "{m}x{n}x{k} on 132 SMs");
    }
    let (_, a32) = random(&gpu, m * k, seed ^ 9);
    let (_, b32) = random(&gpu, n * k, seed ^ 10);
    let a = fp8::quantize(&gpu, &a32, m, k, Scaling::PerTensor, Operand::A).unwrap();
    let b = fp8::quantize(&gpu, &b32, n, k, Scaling::PerTensor, Operand::B).unwrap();
    let want = fp8::reference_f64(&gpu, &a, &b).unwrap();
    for st in &F27 {
        let mut c = gpu.zeros::<u16>(m * n).unwrap();
        let g = Fp8Gemm::new(&gpu, st, &a, &b, &c).unwrap();
        for rep in 0..3 {
            let what = format!("{} {m}x{n}x{k} rep {rep}", st.kernel.step);
            let err = verify::rel_l2(&run_fully_written(&gpu, &g, (&a, &b), &mut c, &what), &want);
            assert!(err <= tolerance(false, k), "{what}: rel L2 {err:.2e} against f64 (seed {seed})");
        }
    }
    let mut c = gpu.zeros::<u16>(m * n).unwrap();
    gpu.poison(&mut c).unwrap();
    assert_eq!(fp8::gemm_fp8(&gpu, &a, &b, &mut c).unwrap().kernel.name, step.kernel.name);
    let err = verify::rel_l2(&bf16_values(&gpu, &c), &want);
    assert!(err <= tolerance(false, k), "gemm_fp8 {m}x{n}x{k} ({}): rel L2 {err:.2e} (seed {seed})", step.kernel.step);
}

/// The library entry point picks the step for the operands' scaling and gets the same answer.
#[test]
fn gemm_fp8_runs_the_default_step_for_each_scaling() {
    let Some(gpu) = hopper_or_skip("gemm_fp8_runs_the_default_step_for_each_scaling") else { return };
    let seed = verify::fresh_seed();
    // 257×264×1024: f14's or f22's tiles and f3's, on `random`'s positive values spread over 2^-12 .. 2^4;
    // 32×11008×4096: f25 per tensor (a 32-row shape whose weights stream beyond a round of f22's tiles) and
    // f23, on symmetric values (the bench's) — per tensor, all of K in the tensor core, 4096-deep sums of
    // positive terms err past `tolerance` (f25 1.9e-2 against 1.2e-2 on `random`'s, session 86; cuBLASLt's
    // fast accumulation and f1 alike: the promotion study in `--family fp8`, 7.9e-2 at K 4096).
    for (m, n, k, spread) in [(257, 264, 1024, true), (32, 11008, 4096, false)] {
        let upload = |len: usize, s: u64| {
            if spread { random(&gpu, len, s).1 } else { device_check::random(&gpu, len, ElemKind::F32, Dist::Symmetric, s).unwrap() }
        };
        let (a32, b32) = (upload(m * k, seed ^ 3), upload(n * k, seed ^ 4));
        for scaling in [Scaling::PerTensor, Scaling::Block] {
            let a = fp8::quantize(&gpu, &a32, m, k, scaling, Operand::A).unwrap();
            let b = fp8::quantize(&gpu, &b32, n, k, scaling, Operand::B).unwrap();
            let mut c = gpu.zeros::<u16>(m * n).unwrap();
            gpu.poison(&mut c).unwrap();
            let step = fp8::gemm_fp8(&gpu, &a, &b, &mut c).unwrap();
            assert_eq!(step.kernel.name, fp8::default_step(&gpu, scaling, m, n, k).unwrap().kernel.name);
            let got = bf16_values(&gpu, &c);
            let err = verify::rel_l2(&got, &fp8::reference_f64(&gpu, &a, &b).unwrap());
            assert!(got.iter().all(|v| !v.is_nan()) && err <= tolerance(step.promotes, k), "{m}x{n}x{k} {scaling:?}: {} rel L2 {err:.2e} (seed {seed})", step.kernel.name);
        }
    }
}

#[test]
fn the_fp8_calibration_times_every_costed_step_and_fits_it() {
    // `kernel-lab calibrate --dtype fp8`'s measurement: every costed step's calibration shapes timed, the costs
    // fitted from the shipped ones reproducing their own timings (median error under 15%), f27's speeds from its
    // full-round timings, read back from text.
    use kernel_lab_bench::{fp8::calibrate, steps::fp8::{FP8_COSTED, Fp8Costs}};
    let Some(gpu) = hopper_or_skip("the_fp8_calibration_times_every_costed_step_and_fits_it") else { return };
    let t0 = std::time::Instant::now();
    let cal = calibrate::calibrate(&gpu, &mut |_| {}).unwrap();
    let secs = t0.elapsed().as_secs_f64();
    assert!(cal.skipped.is_empty(), "{:?}", cal.skipped);
    let plan = calibrate::plan(gpu.info.sms, gpu.info.l2_bytes as u64);
    for name in FP8_COSTED {
        let want = plan.iter().filter(|t| calibrate::config_of(t.0) == Some(name)).count();
        assert_eq!(cal.samples.iter().filter(|x| calibrate::config_of(&x.step) == Some(name)).count(), want, "{name}: every calibration shape timed");
    }
    let mut errs: Vec<f64> = cal.samples.iter().filter(|x| !calibrate::is_speed_timing(&x.step)).map(|x| {
        let p = calibrate::predict(&cal.costs, x, gpu.info.sms).unwrap();
        assert!(x.us > 0.0 && p > 0.0, "{} {:?}: {} µs, predicted {p}", x.step, x.shape, x.us);
        (p / x.us - 1.0).abs()
    }).collect();
    errs.sort_by(f64::total_cmp);
    assert!(errs[errs.len() / 2] < 0.15, "median fit error {:.1}%", 100.0 * errs[errs.len() / 2]);
    // f27's speeds: f14 and the three widths timed over full rounds, the speeds the wave model's ratio of them.
    assert_eq!(cal.samples.iter().filter(|x| calibrate::is_speed_timing(&x.step)).count(), calibrate::F27_SPEED_LABELS.len());
    let v = calibrate::f27_speeds(&cal.samples, gpu.info.sms).unwrap();
    assert!(cal.costs.f27_speed == v && v.iter().all(|&x| x > 0.5 && x < 1.5), "{v:?}");
    let back = Fp8Costs::parse(&cal.costs.to_text(), "calibration").unwrap();
    assert_eq!((back.sms, back.f21_resident), (gpu.info.sms, fp8::f21_resident(&gpu).unwrap()));
    assert!(back.f27_speed.iter().zip(v).all(|(a, b)| (a - b).abs() < 1e-4), "{:?} against {v:?}", back.f27_speed);
    eprintln!("FP8 calibration: {} timings in {secs:.1} s, median fit error {:.1}%", cal.samples.len(), 100.0 * errs[errs.len() / 2]);
}

/// K off 16 and N off 8 (the TMA's row strides), each alone and both: `gemm_fp8` runs the default step of
/// the padded shape on zero-padded copies and writes exactly C's M×N, for both scalings, at decode (the
/// weight-only routes), M % 4 = 0 and not (f15's scale map or f9), against the f64 product of the caller's
/// own (unpadded) operands.
#[test]
fn gemm_fp8_takes_k_and_n_off_the_tma_multiples() {
    let Some(gpu) = hopper_or_skip("gemm_fp8_takes_k_and_n_off_the_tma_multiples") else { return };
    let seed = verify::fresh_seed();
    for (m, n, k) in [(5usize, 100usize, 1000usize), (132, 264, 40), (64, 250, 256), (33, 4100, 136), (260, 1030, 200)] {
        let (_, a32) = random(&gpu, m * k, seed ^ (m * k) as u64);
        let (_, b32) = random(&gpu, n * k, seed ^ (n * k + 1) as u64);
        for scaling in [Scaling::PerTensor, Scaling::Block] {
            let a = fp8::quantize(&gpu, &a32, m, k, scaling, Operand::A).unwrap();
            let b = fp8::quantize(&gpu, &b32, n, k, scaling, Operand::B).unwrap();
            assert!(k % 16 != 0 || n % 8 != 0, "{m}x{n}x{k} is off a multiple");
            assert!(Fp8Gemm::new(&gpu, fp8::default_step(&gpu, scaling, m, n, k).unwrap(), &a, &b, &gpu.zeros::<u16>(m * n).unwrap()).is_err(),
                    "{m}x{n}x{k}: the steps themselves refuse it");
            let mut c = gpu.zeros::<u16>(m * n).unwrap();
            gpu.poison(&mut c).unwrap();
            let step = fp8::gemm_fp8(&gpu, &a, &b, &mut c).unwrap();
            assert_eq!(step.kernel.name, fp8::default_step(&gpu, scaling, m, n.next_multiple_of(8), k.next_multiple_of(16)).unwrap().kernel.name);
            let got = bf16_values(&gpu, &c);
            let err = verify::rel_l2(&got, &fp8::reference_f64(&gpu, &a, &b).unwrap());
            assert!(got.iter().all(|v| v.is_finite()) && err <= tolerance(step.promotes, k),
                    "{scaling:?} {m}x{n}x{k}: {} rel L2 {err:.2e} (seed {seed})", step.kernel.name);
        }
    }
}

/// Why promotion exists: on positive inputs (sums that do not cancel) the error of f1, which keeps all
/// of K in the tensor core's accumulators, grows with K; f2's, promoted every 128, stays at the bf16
/// output's rounding.
#[test]
fn without_promotion_the_error_grows_with_k() {
    let Some(gpu) = hopper_or_skip("without_promotion_the_error_grows_with_k") else { return };
    let rows = promotion_study(&gpu, 128, &[256, 16384, 65536], Dist::Positive, verify::fresh_seed()).unwrap();
    let (short, long) = (&rows[0], &rows[2]);
    assert!(long.f1 > 4.0 * short.f1 && long.f1 > 2.0 * long.f2, "f1 error should grow with K: {rows:?}");
    for r in &rows {
        assert!(r.f2 <= TOL_PROMOTED, "f2 at K = {}: {:.2e} (promotion keeps it at the output rounding): {rows:?}", r.k, r.f2);
    }
}

/// Bad input is refused before any launch, naming the rule.
#[test]
fn bad_fp8_input_gives_clear_errors() {
    let Some(gpu) = hopper_or_skip("bad_fp8_input_gives_clear_errors") else { return };
    let (_, a32) = random(&gpu, 64 * 40, 7);
    let a = fp8::quantize(&gpu, &a32, 64, 40, Scaling::PerTensor, Operand::A).unwrap();
    let b = fp8::quantize(&gpu, &a32, 64, 40, Scaling::PerTensor, Operand::B).unwrap();
    let c = gpu.zeros::<u16>(64 * 64).unwrap();
    let e = Fp8Gemm::new(&gpu, &F1, &a, &b, &c).err().expect("K = 40 must be refused").to_string();
    assert!(e.contains("K must be a multiple of 16"), "{e}");
    let e = Fp8Gemm::new(&gpu, &F2, &a, &b, &c).err().expect("per-tensor operands on f2 must be refused").to_string();
    assert!(e.contains("Block"), "{e}");
    // f15 reads A's scales through a tensor map of ⌈K/128⌉ rows of M f32: M % 4.
    let ((_, xa), (_, xb)) = (random(&gpu, 130 * 128, 8), random(&gpu, 136 * 128, 9));
    let a = fp8::quantize(&gpu, &xa, 130, 128, Scaling::Block, Operand::A).unwrap();
    let b = fp8::quantize(&gpu, &xb, 136, 128, Scaling::Block, Operand::B).unwrap();
    let c = gpu.zeros::<u16>(130 * 136).unwrap();
    let e = Fp8Gemm::new(&gpu, &F15, &a, &b, &c).err().expect("M = 130 must be refused by f15").to_string();
    assert!(e.contains("M must be a multiple of 4") && e.contains("130x136x128"), "{e}");
    // A NaN in the input: its block's scale is NaN, reported by quantize with the block.
    let mut x = vec![0.5f32; 4 * 256];
    x[2 * 256 + 130] = f32::NAN;
    let d_x = gpu.upload(&x).unwrap();
    let e = fp8::quantize(&gpu, &d_x, 4, 256, Scaling::Block, Operand::A).err().expect("NaN input must be refused").to_string();
    assert!(e.contains("row 2, columns 128..256"), "{e}");
    x[2 * 256 + 130] = f32::INFINITY;
    let d_x = gpu.upload(&x).unwrap();
    let e = fp8::quantize(&gpu, &d_x, 4, 256, Scaling::PerTensor, Operand::A).err().expect("Inf input must be refused").to_string();
    assert!(e.contains("whole tensor"), "{e}");
    // Scales a caller passes in are checked too.
    let q = gpu.zeros::<u8>(128 * 128).unwrap();
    let s = gpu.upload(&[1.0f32, f32::NAN]).unwrap();
    let e = Fp8Matrix::from_parts(&gpu, q, s, 128, 256 / 2, Scaling::Block, Operand::A).err().expect("wrong scale count").to_string();
    assert!(e.contains("scales, the layout needs"), "{e}");
    assert_eq!(SCALE_BLOCK, 128);
}

/// The autotuner (`kernel_lab_bench::tune::step_fp8`): per scaling, every candidate verified and timed, the
/// fastest cached; the step it returns runs correctly on operands the tuning never saw, and a second call
/// takes it from the file without timing.
#[test]
fn autotune_picks_a_verified_fp8_step_and_caches_it() {
    use kernel_lab_bench::tune::{self, TuneCache};
    let Some(gpu) = hopper_or_skip("autotune_picks_a_verified_fp8_step_and_caches_it") else { return };
    let dir = std::env::temp_dir().join(format!("kernel-lab-autotune-fp8-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("tune.json");
    let seed = verify::fresh_seed();
    let (m, n, k) = (520, 1032, 1024);
    let (_, a32) = random(&gpu, m * k, seed ^ 5);
    let (_, b32) = random(&gpu, n * k, seed ^ 6);
    for scaling in [Scaling::PerTensor, Scaling::Block] {
        let mut cache = TuneCache::open(&path).unwrap();
        let (step, t) = tune::step_fp8(&gpu, scaling, m, n, k, &mut cache).unwrap();
        let e = &t.entry;
        assert!(!t.cached && step.scaling == scaling && e.step == step.kernel.step && e.timed[0].label == e.step, "{scaling:?}: {}", e.summary());
        assert!(e.timed.len() >= 2 && e.timed.windows(2).all(|w| w[0].median_us <= w[1].median_us), "{scaling:?}: {}", e.summary());
        assert!(e.timed.iter().any(|x| x.label == e.rule) && e.rule == fp8::default_step(&gpu, scaling, m, n, k).unwrap().kernel.step, "{scaling:?}: {}", e.summary());
        let a = fp8::quantize(&gpu, &a32, m, k, scaling, Operand::A).unwrap();
        let b = fp8::quantize(&gpu, &b32, n, k, scaling, Operand::B).unwrap();
        let mut c = gpu.zeros::<u16>(m * n).unwrap();
        let g = Fp8Gemm::new(&gpu, step, &a, &b, &c).unwrap();
        let got = run_fully_written(&gpu, &g, (&a, &b), &mut c, &format!("autotuned {}", step.kernel.name));
        let err = verify::rel_l2(&got, &fp8::reference_f64(&gpu, &a, &b).unwrap());
        assert!(err <= tolerance(step.promotes, k), "{scaling:?}: {} rel L2 {err:.2e} (seed {seed})", step.kernel.name);
        let mut again = TuneCache::open(&path).unwrap();
        let (step2, t2) = tune::step_fp8(&gpu, scaling, m, n, k, &mut again).unwrap();
        assert!(t2.cached && std::ptr::eq(step, step2) && t2.entry == *e, "{scaling:?}: cached");
    }
    assert_eq!(TuneCache::open(&path).unwrap().len(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

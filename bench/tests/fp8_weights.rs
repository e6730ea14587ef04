//! GPU tests of FP8 weights for 16-bit models (`kernel_lab::fp8_weights`, steps w5 and w1): the
//! power-of-two block quantizer against the host model in both layouts (packed: the padding zero), w5 on
//! packed and w1 on natural weights (every token-tile variant, split and unsplit, ragged N and K) and the dequantize-then-GEMM route against the f64 product of the dequantized weights, the
//! output poisoned first and checked fully written (rows past M untouched), every e4m3 code
//! (subnormals included) through the widening, repeat runs bitwise equal (the split counters reset),
//! and bad input refused before any launch. Without a GPU, or on a GPU without sm_90a, each test says
//! it was skipped and passes.
mod common;

use common::Half;
use half::{bf16, f16};
use kernel_lab_bench::{
    fp8_weights::{Fp8Weights, W8Plan, W8Step, WeightLayout, w1_splits, w1_stream_bytes_per_us},
    runtime::{gpu::{Gpu, gpu_that_runs_or_skip}, verify},
    steps::fp8::F1,
};
use layout::fp8::{
    E4M3_MAX, SCALE_BLOCK, e4m3_to_f32, f32_to_e4m3, scale_b_index,
    weights::{Wide, packed_index, packed_len, pow2_scale_bits},
};
use rand::Rng;

fn hopper_or_skip(test: &str) -> Option<Gpu> {
    gpu_that_runs_or_skip(test, &F1.kernel)
}

fn wide<T: Half>() -> Wide {
    if T::NAME == "bf16" { Wide::Bf16 } else { Wide::F16 }
}

/// Random weights `n × k` in `T`: each 128×128 block its own magnitude (2^-12 .. 2^2), so the blocks'
/// scales differ and small values land in e4m3's subnormals; row 0 holds every finite e4m3 code times
/// 2^-10 in its first 254 columns (where k allows), in blocks whose other values stay below 0.25, so
/// their scale is 2^-10 and the quantizer must keep those codes exactly.
fn weights<T: Half>(rng: &mut impl Rng, n: usize, k: usize) -> (Vec<T>, Vec<f32>) {
    let blocks = (n.div_ceil(128), k.div_ceil(128));
    let mut mags: Vec<f32> = (0..blocks.0 * blocks.1).map(|_| 2f32.powi(rng.random_range(-12..=2))).collect();
    for m in mags.iter_mut().take(blocks.1.min(2)) {
        *m = 0.25;
    }
    let mut w: Vec<T> = (0..n * k).map(|i| {
        let (r, c) = (i / k, i % k);
        T::of(rng.random_range(-1.0f32..1.0) * mags[(r / 128) * blocks.1 + c / 128])
    }).collect();
    let codes: Vec<u8> = (0..=255u8).filter(|q| q & 0x7F != 0x7F).collect();
    for (c, &q) in codes.iter().enumerate().take(k) {
        w[c] = T::of(e4m3_to_f32(q) / 1024.0);
    }
    let f = w.iter().map(|x| x.to()).collect();
    (w, f)
}

/// The quantized weights checked against the host model (power-of-two scale per block from the block's
/// amax, every byte `e4m3(w / s)` where its layout puts it; packed: every padding byte zero); returns the
/// dequantized weights as f64.
fn check_quantized<T: Half>(gpu: &Gpu, w8: &Fp8Weights, wf: &[f32], n: usize, k: usize, seed: u64) -> Vec<f64> {
    let (q, s) = (gpu.download(w8.q()).unwrap(), gpu.download(w8.scales()).unwrap());
    let packed = w8.layout() == WeightLayout::Packed;
    assert_eq!(q.len(), if packed { packed_len(n as u32, k as u32) } else { n * k }, "{n}x{k} {:?}: bytes", w8.layout());
    let at = |r: usize, c: usize| if packed { packed_index(r as u32, c as u32, k as u32) } else { r * k + c };
    if packed {
        let mut used = vec![false; q.len()];
        for r in 0..n {
            for c in 0..k {
                used[at(r, c)] = true;
            }
        }
        assert!(q.iter().zip(&used).all(|(&b, &u)| u || b == 0), "{n}x{k} packed: a padding byte is not zero (seed {seed})");
    }
    let kb = k.div_ceil(SCALE_BLOCK as usize);
    let mut amax = vec![0f32; s.len()];
    for r in 0..n {
        for c in 0..k {
            let b = scale_b_index(r as u32, c as u32, k as u32) as usize;
            amax[b] = amax[b].max(wf[r * k + c].abs());
        }
    }
    for (b, (&got, &a)) in s.iter().zip(&amax).enumerate() {
        assert_eq!(got.to_bits(), pow2_scale_bits(a, wide::<T>()), "{} {n}x{k}: block {b} (row block {}, column block {}), amax {a}: scale {got} (seed {seed})",
                   T::NAME, b / kb, b % kb);
        assert!(got * E4M3_MAX >= a);
    }
    let mut deq = vec![0f64; n * k];
    for r in 0..n {
        for c in 0..k {
            let i = r * k + c;
            let sc = s[scale_b_index(r as u32, c as u32, k as u32) as usize];
            let b = q[at(r, c)];
            assert_eq!(b, f32_to_e4m3(wf[i] / sc), "{} {n}x{k} {:?}: ({r}, {c}) = {} (seed {seed})", T::NAME, w8.layout(), wf[i]);
            deq[i] = e4m3_to_f32(b) as f64 * sc as f64;
        }
    }
    if k >= 256 {
        // Row 0's first 254 columns are e4m3 codes times 2^-10: kept exactly.
        for c in 0..254 {
            assert_eq!(deq[c] as f32, wf[c], "code column {c}");
        }
    }
    deq
}

/// `y (m × n)` against the f64 product: `|y − ref| ≤ 2^-7 |ref| + 2^-16 Σ|x·w| + u (1 + Σ′|x|)` (the
/// output's rounding to 16 bits, ≤ 2^-8 relative for bf16, plus f32 accumulation over K in the tensor
/// core and across warps and splits; `u` half the type's smallest subnormal, 2^-25 for f16: an output
/// below 2^-14 rounds to that absolute grid, and so does a widened f16 weight times its block's 2^e
/// where it lies below 2^-14 — w1/w5 on f16, session 74: Σ′ over those weights' activations); every
/// element written (the poison is NaN).
fn check_product<T: Half>(y: &[T], x: &[f32], deq: &[f64], m: usize, n: usize, k: usize, what: &str) {
    let u = if T::NAME == "f16" { 2f64.powi(-25) } else { 2f64.powi(-134) };
    for i in 0..m {
        for j in 0..n {
            let (mut r, mut mag, mut xs) = (0f64, 0f64, 0f64);
            for c in 0..k {
                let p = x[i * k + c] as f64 * deq[j * k + c];
                r += p;
                mag += p.abs();
                if deq[j * k + c].abs() < 2f64.powi(-14) {
                    xs += (x[i * k + c] as f64).abs();
                }
            }
            let got = y[i * n + j].to() as f64;
            assert!(got.is_finite(), "{what}: y[{i}][{j}] not written (poison left) or not finite: {got}");
            let tol = r.abs() / 128.0 + mag / 65536.0 + u * (1.0 + xs) + 1e-30;
            assert!((got - r).abs() <= tol, "{what}: y[{i}][{j}] = {got}, reference {r} (|err| {:.3e} > {tol:.3e})", (got - r).abs());
        }
    }
}

/// One shape through the plan for weights in `layout` (decode: w5 packed, w1 natural).
fn run_case<T: Half>(gpu: &Gpu, m: usize, n: usize, k: usize, seed: u64, layout: WeightLayout) {
    run_step::<T>(gpu, m, n, k, seed, W8Step::default_for(layout))
}

/// One shape through the plan for decode step `step` (on its layout's weights).
fn run_step<T: Half>(gpu: &Gpu, m: usize, n: usize, k: usize, seed: u64, step: W8Step) {
    let layout = step.layout();
    let mut rng = verify::rng(seed ^ (m * 1_000_003 + n * 1009 + k) as u64);
    let (w, wf) = weights::<T>(&mut rng, n, k);
    let d_w = gpu.upload(&w).unwrap();
    let w8 = Fp8Weights::quantize_in::<T, _>(gpu, &d_w, n, k, layout).unwrap();
    let deq = check_quantized::<T>(gpu, &w8, &wf, n, k, seed);
    let x: Vec<T> = (0..m * k).map(|_| T::of(rng.random_range(-2.0f32..2.0))).collect();
    let xf: Vec<f32> = x.iter().map(|v| v.to()).collect();
    let d_x = gpu.upload(&x).unwrap();
    // One row more than M, poisoned (NaN bits in both types): must stay untouched.
    let poison = T::of(f32::NAN);
    let mut d_y = gpu.upload(&vec![poison; (m + 1) * n]).unwrap();
    let mut plan = W8Plan::<T>::for_step(gpu, m, n, k, step).unwrap();
    let label = plan.label();
    if m <= 32 {
        assert!(label.starts_with(&format!("{}-", step.label())), "{label} for {step:?} at {m} tokens");
    }
    let what = format!("{} {m}x{n}x{k} {label} (seed {seed})", T::NAME);
    plan.run(&d_x, &w8, &mut d_y).unwrap();
    let y1 = gpu.download(&d_y).unwrap();
    check_product(&y1[..m * n], &xf, &deq, m, n, k, &what);
    assert!(y1[m * n..].iter().all(|v| v.to().is_nan()), "{what}: wrote past row {m}");
    // Again: the split counters were reset, and the sum is in a fixed order.
    plan.run(&d_x, &w8, &mut d_y).unwrap();
    let y2 = gpu.download(&d_y).unwrap();
    assert!(y1.iter().zip(&y2).all(|(a, b)| a.to().to_bits() == b.to().to_bits()), "{what}: a second run differs");
}

#[test]
fn weight_only_decode_matches_the_f64_product() {
    let Some(gpu) = hopper_or_skip("weight_only_decode_matches_the_f64_product") else { return };
    let seed = verify::fresh_seed();
    // Token tiles 8, 16, 32 (M = 1, 8, 9, 16, 17, 32); N ragged against the 32-row tiles and the 128-row
    // scale blocks; K a multiple of 16 but not of 64 (a partial last step); splits from 1 to 16
    // (32 rows and deep K: one tile split 16 ways).
    // More tiles than one wave of blocks (1×20000×256).
    // Many tiles of shallow K (1×100000×256, 2×70000×64: one step a tile), a short deep one (5×32×16384), and 69
    // tiles of deep K that the split model splits neither 1 nor 16 ways (4×2200×16384: three on an H100 or H200).
    let cases = [(1, 4096, 512), (1, 100, 16), (3, 257, 1040), (8, 130, 400), (9, 64, 14336), (16, 4096, 256), (17, 96, 4112), (32, 33, 2048), (5, 32, 16384),
                 (1, 20000, 256), (1, 100_000, 256), (2, 70_000, 64), (4, 2200, 16384)];
    for (m, n, k) in cases {
        for step in [W8Step::W5, W8Step::W1] {
            run_step::<bf16>(&gpu, m, n, k, seed, step);
            run_step::<f16>(&gpu, m, n, k, seed, step);
        }
    }
    assert_eq!(w1_splits(32, 16384, gpu.info.sms, w1_stream_bytes_per_us(gpu.info.dram_peak_bytes_per_us)).0, 16, "the deep-K case must exercise the most splits");
    assert_eq!(w1_splits(100, 16, gpu.info.sms, w1_stream_bytes_per_us(gpu.info.dram_peak_bytes_per_us)).0, 1);
    let mid = w1_splits(2200, 16384, gpu.info.sms, w1_stream_bytes_per_us(gpu.info.dram_peak_bytes_per_us)).0;
    assert!((2..=4).contains(&mid), "4x2200x16384 must exercise a middle split count, got {mid}");
    // The split model's stream rate comes from the driver's memory clock and bus width; on a Hopper card both exist
    // (an H100 SXM: 2,619 MHz × 5,120 bits, 3.35e6 bytes a µs).
    let peak = gpu.info.dram_peak_bytes_per_us;
    assert!(peak.is_some_and(|p| (1e6..2e7).contains(&p)), "the DRAM's peak from the driver: {peak:?}");
}

#[test]
fn above_32_tokens_the_dequantized_weights_go_through_the_gemm() {
    let Some(gpu) = hopper_or_skip("above_32_tokens_the_dequantized_weights_go_through_the_gemm") else { return };
    let seed = verify::fresh_seed();
    for layout in [WeightLayout::Packed, WeightLayout::Natural] {
        for (m, n, k) in [(33, 256, 512), (100, 200, 272)] {
            run_case::<bf16>(&gpu, m, n, k, seed, layout);
            run_case::<f16>(&gpu, m, n, k, seed, layout);
            assert!(W8Plan::<bf16>::for_layout(&gpu, m, n, k, layout).unwrap().label().starts_with("dequantize + "));
        }
        // The dequantized matrix itself: exactly the host's dequantization, transposed.
        let (n, k) = (130, 400);
        let mut rng = verify::rng(seed);
        let (w, wf) = weights::<bf16>(&mut rng, n, k);
        let w8 = Fp8Weights::quantize_in::<bf16, _>(&gpu, &gpu.upload(&w).unwrap(), n, k, layout).unwrap();
        let deq = check_quantized::<bf16>(&gpu, &w8, &wf, n, k, seed);
        let mut out = gpu.upload(&vec![bf16::NAN; k * n]).unwrap();
        w8.dequantize_t::<bf16, _>(&gpu, &mut out).unwrap();
        let got = gpu.download(&out).unwrap();
        for c in 0..k {
            for r in 0..n {
                assert_eq!(got[c * n + r].to_f32(), deq[r * k + c] as f32, "{layout:?} dequantized ({r}, {c}) (seed {seed})");
            }
        }
    }
}

#[test]
fn bad_input_is_refused_before_any_launch() {
    let Some(gpu) = hopper_or_skip("bad_input_is_refused_before_any_launch") else { return };
    let (n, k) = (64, 128);
    let w = gpu.upload(&vec![bf16::from_f32(0.5); n * k]).unwrap();
    let w8 = Fp8Weights::quantize::<bf16, _>(&gpu, &w, n, k).unwrap();
    let msg = |r: kernel_lab_bench::Result<()>| r.unwrap_err().to_string();
    // K not a multiple of 16, M = 0.
    assert!(W8Plan::<bf16>::new(&gpu, 1, n, 40).err().unwrap().to_string().contains("multiple of 16"));
    assert!(W8Plan::<bf16>::new(&gpu, 0, n, k).err().unwrap().to_string().contains("tokens"));
    // Weights quantized for bf16, used with f16 activations.
    let mut p16 = W8Plan::<f16>::new(&gpu, 1, n, k).unwrap();
    let (x16, mut y16) = (gpu.zeros::<f16>(k).unwrap(), gpu.zeros::<f16>(n).unwrap());
    assert!(msg(p16.run(&x16, &w8, &mut y16)).contains("quantized for"));
    // Shapes that differ, operands too short, x not 16-byte aligned.
    let mut p = W8Plan::<bf16>::new(&gpu, 2, n, k).unwrap();
    let (x, mut y) = (gpu.zeros::<bf16>(2 * k + 8).unwrap(), gpu.zeros::<bf16>(2 * n).unwrap());
    let mut other = W8Plan::<bf16>::new(&gpu, 2, n, 2 * k).unwrap();
    assert!(msg(other.run(&x, &w8, &mut y)).contains("weights of 64×128"));
    assert!(msg(p.run(&x.slice(..k), &w8, &mut y)).contains("x holds"));
    assert!(msg(p.run(&x.slice(1..), &w8, &mut y)).contains("16-byte aligned"));
    // Packed weights given to a plan for the natural layout.
    let mut nat = W8Plan::<bf16>::for_layout(&gpu, 2, n, k, WeightLayout::Natural).unwrap();
    assert!(msg(nat.run(&x, &w8, &mut y)).contains("layout"));
    // A block beyond the scale range, and NaN, named by block.
    let mut big = vec![bf16::from_f32(1.0); n * k];
    big[5] = bf16::from_f32(1.0e5);
    let e = Fp8Weights::quantize::<bf16, _>(&gpu, &gpu.upload(&big).unwrap(), n, k).err().unwrap().to_string();
    assert!(e.contains("57344") && e.contains("rows 0.."), "{e}");
    big[5] = bf16::NAN;
    let e = Fp8Weights::quantize::<bf16, _>(&gpu, &gpu.upload(&big).unwrap(), n, k).err().unwrap().to_string();
    assert!(e.contains("NaN"), "{e}");
    // Too few weights for the shape.
    assert!(Fp8Weights::quantize::<bf16, _>(&gpu, &w, n + 1, k).err().unwrap().to_string().contains("elements for a 65×128"));
}

/// w1 told that its weights are ready at launch (`W8Plan::set_w_ready(BReady::AtLaunch)`: on Hopper it
/// reads its first step's weights before `griddepcontrol.wait`) in a chain where each launch reads the
/// previous one's output, y₁ = x·Wᵀ, y₂ = y₁·Wᵀ, y₃ = y₂·Wᵀ, queued behind a hold (a GPU-side spin) so
/// each link may start while the previous one runs: every link equal, bit for bit, to the chain with
/// the host waiting between launches and the weights read after the wait (w1 sums its splits in a
/// fixed order), and fully written. A link that read its activations before the wait would see the
/// previous link's poison.
#[test]
fn w1_with_weights_at_launch_waits_for_its_activations() {
    use kernel_lab_bench::{gemm::BReady, runtime::timing};
    let Some(gpu) = hopper_or_skip("w1_with_weights_at_launch_waits_for_its_activations") else { return };
    let seed = verify::fresh_seed();
    // K = N = 2048 (split K), and a shallow K = N = 256 (one split); M = 1 (t8) and 9 (t16).
    for (m, k) in [(1usize, 2048usize), (9, 2048), (1, 256)] {
        let mut rng = verify::rng(seed ^ (m * 7919 + k) as u64);
        // Entries in [-1/64, 1/64): the chain's values stay of the order of x's.
        let w: Vec<bf16> = (0..k * k).map(|_| bf16::from_f32(rng.random_range(-1.0f32..1.0) / 64.0)).collect();
        let w8 = Fp8Weights::quantize::<bf16, _>(&gpu, &gpu.upload(&w).unwrap(), k, k).unwrap();
        let x: Vec<bf16> = (0..m * k).map(|_| bf16::from_f32(rng.random_range(-2.0f32..2.0))).collect();
        let x = gpu.upload(&x).unwrap();
        let chain = |ready: BReady, sync_each: bool| -> Vec<Vec<bf16>> {
            let mut plan = W8Plan::<bf16>::new(&gpu, m, k, k).unwrap();
            plan.set_w_ready(ready);
            let mut links: Vec<_> = (0..3).map(|_| gpu.upload(&vec![bf16::NAN; m * k]).unwrap()).collect();
            if !sync_each {
                timing::hold(&gpu, 200_000).unwrap(); // 200 µs: the three launches queue up behind it
            }
            plan.run(&x, &w8, &mut links[0]).unwrap();
            for i in 1..3 {
                if sync_each {
                    gpu.sync_after("w1").unwrap();
                }
                let (done, rest) = links.split_at_mut(i);
                plan.run(&done[i - 1], &w8, &mut rest[0]).unwrap();
            }
            gpu.sync_after("w1").unwrap();
            links.iter().map(|y| gpu.download(y).unwrap()).collect()
        };
        let (queued, synced) = (chain(BReady::AtLaunch, false), chain(BReady::AfterPrevious, true));
        for (i, (p, q)) in synced.iter().zip(&queued).enumerate() {
            let what = format!("{m}x{k}x{k} link {i} (seed {seed})");
            assert!(q.iter().all(|v| v.is_finite()), "{what}: not fully written");
            assert!(q.iter().any(|v| v.to_f32() != 0.0), "{what}: all zeros");
            assert!(p.iter().zip(q).all(|(a, b)| a.to_bits() == b.to_bits()), "{what}: the queued chain with weights at launch differs from the synchronized one");
        }
    }
}

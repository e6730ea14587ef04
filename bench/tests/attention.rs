//! GPU tests of the attention family (issue 17): the fused kernel and the unfused baseline against the
//! f64 CPU reference on ragged shapes (lengths off every tile, one query), both element types, causal
//! and not, at the usual scale and at a sharp one, and with a row max that jumps late; the persistent
//! steps (a12, a15) bit for bit against their one-CTA-per-tile twin, a17 against a11; bad input refused before any launch. Without a GPU each test says it was skipped and passes.

use kernel_lab_bench::{
    attention::{AttnShape, Unfused, flash, flash_with, reference_f64},
    families::attention::{LSE_TOL, o_tol},
    runtime::{device_check::{self, Dist, ElemKind}, gpu::{Gpu, gpu_or_skip, report_skip}, verify},
    steps::{attention::{Kind, Step, all_of}, gemm::Elem},
};
use cudarc::driver::CudaSlice;


fn widen(elem: Elem, x: Vec<u16>) -> Vec<f64> {
    x.into_iter().map(|v| if elem == Elem::Bf16 { half::bf16::from_bits(v).to_f64() } else { half::f16::from_bits(v).to_f64() }).collect()
}

/// Runs `fused` (or, with `None`, the unfused path) on Q, K, V (`qkv`) into a poisoned O and LSE and
/// checks both against the f64 reference `(wo, wl)`: fully written and finite, within the family's
/// tolerances. `case` completes the failure message.
#[allow(clippy::too_many_arguments)]
fn run_and_check(gpu: &Gpu, fused: Option<&'static Step>, unfused: &mut Unfused, s: AttnShape, elem: Elem, scale: f32, qkv: [&CudaSlice<u16>; 3],
                 (wo, wl): (&[f64], &[f64]), case: &str) {
    let [q, k, v] = qkv;
    let (mut o, mut lse) = (gpu.zeros::<u16>(s.elems()).unwrap(), gpu.zeros::<f32>(s.heads_total() * s.len).unwrap());
    gpu.poison(&mut o).unwrap();
    gpu.poison(&mut lse).unwrap();
    match fused {
        Some(step) => flash_with(gpu, step, s, scale, q, k, v, &mut o, &mut lse).unwrap(),
        None => unfused.run(gpu, scale, q, k, v, &mut o, &mut lse).unwrap(),
    }
    gpu.sync_after("attention").unwrap();
    let go = widen(elem, gpu.download(&o).unwrap());
    let gl: Vec<f64> = gpu.download(&lse).unwrap().into_iter().map(f64::from).collect();
    let what = format!("{} {s} {elem:?} {case}", fused.map_or("unfused", |st| st.kernel.name));
    assert!(go.iter().chain(&gl).all(|x| x.is_finite()), "{what}: not finite or not fully written");
    let (eo, el) = (verify::rel_l2(&go, wo), verify::rel_l2(&gl, wl));
    assert!(eo <= o_tol(elem) && el <= LSE_TOL, "{what}: O rel L2 {eo:.2e}, LSE rel L2 {el:.2e}");
}

#[test]
fn fused_and_unfused_match_the_f64_reference() {
    let Some(gpu) = gpu_or_skip("fused_and_unfused_match_the_f64_reference") else { return };
    let seed = verify::fresh_seed();
    for (b, h, l, d) in [(1, 2, 1, 64), (1, 3, 100, 64), (2, 2, 257, 128), (1, 1, 64, 128), (2, 1, 130, 64)] {
        for causal in [false, true] {
            for elem in [Elem::F16, Elem::Bf16] {
                let s = AttnShape::new(b, h, l, d, causal).unwrap();
                let kind = if elem == Elem::Bf16 { ElemKind::Bf16 } else { ElemKind::F16 };
                let rnd = |salt: u64| device_check::random::<u16>(&gpu, s.elems(), kind, Dist::Symmetric, seed ^ salt ^ (l * 7 + d) as u64).unwrap();
                let (q, k, v) = (rnd(1), rnd(2), rnd(3));
                let (fq, fk, fv) = (widen(elem, gpu.download(&q).unwrap()), widen(elem, gpu.download(&k).unwrap()), widen(elem, gpu.download(&v).unwrap()));
                // The usual scale, a sharp one (8×: scores with a standard deviation of ~2.7, peaked rows), and a
                // negative one (valid input; the Hopper body takes a separate path for it).
                for scale in [s.default_scale(), 8.0 * s.default_scale(), -s.default_scale()] {
                    let (wo, wl) = reference_f64(s, scale as f64, &fq, &fk, &fv);
                    let mut unfused = Unfused::new(&gpu, s, elem).unwrap();
                    // Steps this GPU cannot run (a6 without sm_90a) say so and are left out.
                    let fused_steps: Vec<_> = all_of(Kind::Flash, d as u32, elem)
                        .filter(|st| match gpu.cannot_run(&st.kernel) {
                            Some(why) => {
                                eprintln!("SKIPPED {} on this GPU: {why}", st.kernel.name);
                                false
                            }
                            None => true,
                        })
                        .map(Some).collect();
                    for fused in fused_steps.into_iter().chain([None]) {
                        run_and_check(&gpu, fused, &mut unfused, s, elem, scale, [&q, &k, &v], (&wo, &wl), &format!("scale {scale} (seed {seed})"));
                    }
                }
            }
        }
    }
}

/// Scores whose row max jumps late in the sequence: every query row is the same positive vector, and two
/// keys in the fourth 128-key tile have every element 4 (scaled score, base 2, ~23 at D = 64 and ~33 at
/// D = 128 above the rest: a9 moves its max and exponentiates that tile again) and 30 (~173 and ~245:
/// the first pass against the old max overflows f32 to infinity, so only exponentiating again from the
/// raw scores gives the right P).
/// Random elsewhere; every fused step and the unfused path against the f64 reference.
#[test]
fn a_row_max_that_jumps_late_is_handled() {
    let Some(gpu) = gpu_or_skip("a_row_max_that_jumps_late_is_handled") else { return };
    let seed = verify::fresh_seed();
    for (elem, d) in [(Elem::F16, 64), (Elem::Bf16, 128), (Elem::F16, 128)] {
        for (planted, value) in [(3 * 128 + 5, 4.0), (3 * 128 + 77, 30.0)] {
            let s = AttnShape::new(1, 2, 600, d, false).unwrap();
            let kind = if elem == Elem::Bf16 { ElemKind::Bf16 } else { ElemKind::F16 };
            let rnd = |salt: u64| device_check::random::<u16>(&gpu, s.elems(), kind, Dist::Symmetric, seed ^ salt).unwrap();
            let to16 = |x: f64| if elem == Elem::Bf16 { half::bf16::from_f64(x).to_bits() } else { half::f16::from_f64(x).to_bits() };
            let mut hq = gpu.download(&rnd(1)).unwrap();
            let mut hk = gpu.download(&rnd(2)).unwrap();
            hq.iter_mut().for_each(|x| *x = to16(0.5));
            for head in 0..2 {
                let row = head * s.len + planted;
                hk[row * d..(row + 1) * d].iter_mut().for_each(|x| *x = to16(value));
            }
            let (q, k, v) = (gpu.upload(&hq).unwrap(), gpu.upload(&hk).unwrap(), rnd(3));
            let (fq, fk, fv) = (widen(elem, hq), widen(elem, hk), widen(elem, gpu.download(&v).unwrap()));
            let scale = s.default_scale();
            let (wo, wl) = reference_f64(s, scale as f64, &fq, &fk, &fv);
            let mut unfused = Unfused::new(&gpu, s, elem).unwrap();
            let runnable: Vec<_> = all_of(Kind::Flash, d as u32, elem).filter(|st| gpu.cannot_run(&st.kernel).is_none()).map(Some).collect();
            for fused in runnable.into_iter().chain([None]) {
                run_and_check(&gpu, fused, &mut unfused, s, elem, scale, [&q, &k, &v], (&wo, &wl), &format!("key {planted} = {value} (seed {seed})"));
            }
        }
    }
}

/// a12 (persistent: one CTA per SM walks pairs of query tiles, its ring running on across them) against
/// a9, the same body with one CTA per query tile: the same arithmetic on every tile, so O and LSE must be
/// **bit for bit** equal. The shapes give each CTA several units (B·H · pairs ≫ SMs), odd tile counts
/// (a middle tile alone), ragged lengths, causal and not, and one shape with fewer units than SMs.
/// a15 (a12 in clusters of 2 sharing K/V by multicast) likewise: the odd tile counts leave the second
/// CTA of a cluster without rows, and with the causal mask the first CTA of each pair skips the last
/// stage its cluster walks.
#[test]
fn the_persistent_walk_matches_one_cta_per_tile() {
    let Some(gpu) = gpu_or_skip("the_persistent_walk_matches_one_cta_per_tile") else { return };
    let seed = verify::fresh_seed();
    for (b, h, l, d) in [(4, 16, 1300, 128), (2, 40, 640, 64), (1, 3, 1000, 64), (8, 33, 257, 128)] {
        for causal in [false, true] {
            for elem in [Elem::F16, Elem::Bf16] {
                let s = AttnShape::new(b, h, l, d, causal).unwrap();
                // a9 first, then the persistent steps a12 and a15.
                let steps: Vec<_> = all_of(Kind::Flash, d as u32, elem).filter(|st| st.kernel.step.starts_with("a9-") || st.persistent).collect();
                if let Some(why) = steps.iter().find_map(|st| gpu.cannot_run(&st.kernel)) {
                    report_skip("the_persistent_walk_matches_one_cta_per_tile", &why);
                    return;
                }
                assert!(steps.len() == 3 && steps[0].kernel.step.starts_with("a9-"), "a9, a12 and a15 for {s} {elem:?}");
                let kind = if elem == Elem::Bf16 { ElemKind::Bf16 } else { ElemKind::F16 };
                let rnd = |salt: u64| device_check::random::<u16>(&gpu, s.elems(), kind, Dist::Symmetric, seed ^ salt ^ (l * 7 + d) as u64).unwrap();
                let (q, k, v) = (rnd(1), rnd(2), rnd(3));
                let out: Vec<(Vec<u16>, Vec<f32>)> = steps.iter().map(|st| run_poisoned(&gpu, st, s, [&q, &k, &v])).collect();
                assert!(out[0].1.iter().all(|x| x.is_finite()), "a9 {s} {elem:?}: LSE not finite or not fully written");
                for (st, (o, lse)) in steps.iter().zip(&out).skip(1) {
                    let what = format!("{} vs {} {s} {elem:?} (seed {seed})", st.kernel.name, steps[0].kernel.name);
                    let o_diff = out[0].0.iter().zip(o).filter(|(a, b)| a != b).count();
                    let lse_diff = out[0].1.iter().zip(lse).filter(|(a, b)| a.to_bits() != b.to_bits()).count();
                    assert!(o_diff == 0 && lse_diff == 0, "{what}: {o_diff} of {} O elements and {lse_diff} of {} LSE values differ", s.elems(), out[0].1.len());
                }
            }
        }
    }
}

/// `st` on `s` at the default scale into poisoned O and LSE buffers: their contents, for bit-for-bit
/// comparisons between steps.
fn run_poisoned(gpu: &Gpu, st: &'static Step, s: AttnShape, [q, k, v]: [&CudaSlice<u16>; 3]) -> (Vec<u16>, Vec<f32>) {
    let (mut o, mut lse) = (gpu.zeros::<u16>(s.elems()).unwrap(), gpu.zeros::<f32>(s.heads_total() * s.len).unwrap());
    gpu.poison(&mut o).unwrap();
    gpu.poison(&mut lse).unwrap();
    flash_with(gpu, st, s, s.default_scale(), q, k, v, &mut o, &mut lse).unwrap();
    gpu.sync_after(st.kernel.name).unwrap();
    (gpu.download(&o).unwrap(), gpu.download(&lse).unwrap())
}

/// a17 (a11's body on the grouped grid, `layout::attention::a17_grid`) gives a11's output **bit for bit**:
/// the same blocks with another launch order. The shapes make several head groups (K and V of a head
/// above a third of the 24 MiB budget: groups of 1, 2 and 3 heads), ragged lengths, causal and not.
#[test]
fn the_grouped_walk_matches_a11() {
    let Some(gpu) = gpu_or_skip("the_grouped_walk_matches_a11") else { return };
    let seed = verify::fresh_seed();
    for (b, h, l, d) in [(1, 4, 32768, 128), (1, 6, 16384 + 50, 128), (2, 3, 32768 - 1, 64), (3, 1, 300, 64)] {
        let (gx, _, gz) = layout::attention::a17_grid(l as u32, d as u32, (b * h) as u32, layout::attention::A11_BQ);
        assert!((b, h) == (3, 1) || gz > 1, "{b}x{h}x{l}x{d}: groups {gx} x {gz}");
        for causal in [false, true] {
            let elem = if d == 64 { Elem::Bf16 } else { Elem::F16 };
            let s = AttnShape::new(b, h, l, d, causal).unwrap();
            let steps: Vec<_> = all_of(Kind::Flash, d as u32, elem).filter(|st| st.kernel.step.starts_with("a11-") || st.grouped).collect();
            assert!(steps.len() == 2 && steps[1].grouped, "a11 and a17 for {s} {elem:?}");
            let kind = if elem == Elem::Bf16 { ElemKind::Bf16 } else { ElemKind::F16 };
            let rnd = |salt: u64| device_check::random::<u16>(&gpu, s.elems(), kind, Dist::Symmetric, seed ^ salt ^ (l * 7 + d) as u64).unwrap();
            let (q, k, v) = (rnd(1), rnd(2), rnd(3));
            let out: Vec<(Vec<u16>, Vec<f32>)> = steps.iter().map(|st| run_poisoned(&gpu, st, s, [&q, &k, &v])).collect();
            assert!(out[0].1.iter().all(|x| x.is_finite()), "a11 {s} {elem:?}: LSE not finite or not fully written");
            let o_diff = out[0].0.iter().zip(&out[1].0).filter(|(a, b)| a != b).count();
            let lse_diff = out[0].1.iter().zip(&out[1].1).filter(|(a, b)| a.to_bits() != b.to_bits()).count();
            assert!(o_diff == 0 && lse_diff == 0, "a17 vs a11 {s} {elem:?} (seed {seed}): {o_diff} of {} O elements and {lse_diff} of {} LSE values differ",
                    s.elems(), out[0].1.len());
        }
    }
}

#[test]
fn bad_attention_input_gives_clear_errors() {
    let Some(gpu) = gpu_or_skip("bad_attention_input_gives_clear_errors") else { return };
    let s = AttnShape::new(1, 2, 64, 64, false).unwrap();
    let (q, k, v) = (gpu.zeros::<u16>(s.elems()).unwrap(), gpu.zeros::<u16>(s.elems() - 8).unwrap(), gpu.zeros::<u16>(s.elems()).unwrap());
    let (mut o, mut lse) = (gpu.zeros::<u16>(s.elems()).unwrap(), gpu.zeros::<f32>(128).unwrap());
    let e = flash(&gpu, s, Elem::F16, 0.125, &q, &k, &v, &mut o, &mut lse).unwrap_err().to_string();
    assert!(e.contains("K holds") && e.contains("8184"), "{e}");
    let e = flash(&gpu, s, Elem::F16, f32::NAN, &q, &q, &v, &mut o, &mut lse).unwrap_err().to_string();
    assert!(e.contains("scale NaN"), "{e}");
    assert!(AttnShape::new(1, 1, 64, 80, false).unwrap_err().to_string().contains("head dim 80"));
    // Beyond memory: the unfused path's scores for L = 2^20 and 64 heads are 384 TiB; refused up front.
    let big = AttnShape::new(1, 64, 1 << 20, 128, false).unwrap();
    let t = std::time::Instant::now();
    let e = Unfused::new(&gpu, big, Elem::F16).err().expect("must be refused").to_string();
    assert!(e.contains("unfused attention") && t.elapsed().as_secs() < 5, "{e}");
}

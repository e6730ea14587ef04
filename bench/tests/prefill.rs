//! GPU tests of prefill attention (issue 49, steps a19, a24–a31; a33 on `mma.sync`, any GPU): packed sequences of different lengths
//! (1, 127, 128, 129, empty ones; at D = 256 around its 64-key tiles), grouped heads, head dims
//! 64/96/128/256, causal (bottom-right, with queries the last tokens of longer keys) and not (including
//! fewer keys than queries), f16 and bf16, against the f64 reference with O and LSE poisoned first; at
//! a large shape against the fixed-length fused kernel (a12/a15) on the same data with the K/V heads
//! repeated, and at D = 256 against the f64 reference on sampled rows; bad input refused before any
//! launch. Without a GPU (or off Hopper) each test says it was skipped and passes.
mod common;

use common::{Half, rounded};
use half::{bf16, f16};
use kernel_lab_bench::{
    attention::{
        AttentionDesc, AttentionPlan,
        prefill::{HEAD_DIMS, PrefillDesc, PrefillPlan, PrefillSchedule, reference_f64, reference_row_f64},
    },
    families::attention::{LSE_TOL, o_tol},
    runtime::{gpu::{Gpu, gpu_that_runs_or_skip}, verify},
    steps::{attention::PREFILL, gemm::Elem},
};

/// Offsets from lengths.
fn cu(lens: &[u32]) -> Vec<u32> {
    std::iter::once(0).chain(lens.iter().scan(0, |s, &l| {
        *s += l;
        Some(*s)
    })).collect()
}

/// The GPU when it runs the Hopper prefill kernels, else a skip line.
fn hopper_or_skip(test: &str) -> Option<Gpu> {
    gpu_that_runs_or_skip(test, &PREFILL[0])
}

struct Case {
    desc: PrefillDesc,
    q_lens: Vec<u32>,
    k_lens: Vec<u32>,
}

/// Runs `case` with O and LSE poisoned, against the f64 reference, on the library's plan.
fn check<T: Half>(gpu: &Gpu, case: &Case, elem: Elem, seed: u64) {
    check_with::<T>(gpu, case, elem, seed, None, None)
}

/// [`check_with`] on a named persistent step (`PrefillPlan::with_kernel`).
fn check_kernel<T: Half>(gpu: &Gpu, case: &Case, elem: Elem, seed: u64, kernel: &str, max_ctas: Option<u32>) {
    check_plan::<T>(gpu, case, elem, seed, max_ctas, |d| PrefillPlan::<T>::with_kernel(gpu, d, PrefillSchedule::Persistent, kernel).unwrap())
}

/// [`check`] with the schedule given (`None`: the library's) and at most `max_ctas` persistent CTAs.
fn check_with<T: Half>(gpu: &Gpu, case: &Case, elem: Elem, seed: u64, schedule: Option<PrefillSchedule>, max_ctas: Option<u32>) {
    check_plan::<T>(gpu, case, elem, seed, max_ctas, |d| match schedule {
        Some(s) => PrefillPlan::<T>::with_schedule(gpu, d, s).unwrap(),
        None => PrefillPlan::<T>::new(gpu, d).unwrap(),
    })
}

/// Runs `case` on the plan `plan_of` makes, at most `max_ctas` persistent CTAs, against the f64 reference.
fn check_plan<T: Half>(gpu: &Gpu, case: &Case, elem: Elem, seed: u64, max_ctas: Option<u32>, plan_of: impl Fn(PrefillDesc) -> PrefillPlan<T>) {
    let d = case.desc;
    let (cq, ck) = (cu(&case.q_lens), cu(&case.k_lens));
    let (tq, tk) = (*cq.last().unwrap() as usize, *ck.last().unwrap() as usize);
    let mut rng = verify::rng(seed);
    let (q, fq) = rounded::<T>(&mut rng, tq * d.heads * d.head_dim);
    let (k, fk) = rounded::<T>(&mut rng, tk * d.kv_heads * d.head_dim);
    let (v, fv) = rounded::<T>(&mut rng, tk * d.kv_heads * d.head_dim);
    let (wo, wl) = reference_f64(&d, &cq, &ck, &fq, &fk, &fv);
    let (dq, dk, dv) = (gpu.upload(&q).unwrap(), gpu.upload(&k).unwrap(), gpu.upload(&v).unwrap());
    let mut o = gpu.zeros::<T>(tq * d.heads * d.head_dim).unwrap();
    let mut lse = gpu.zeros::<f32>(tq * d.heads).unwrap();
    gpu.poison(&mut o).unwrap();
    gpu.poison(&mut lse).unwrap();
    let mut plan = plan_of(d);
    if let Some(n) = max_ctas {
        plan.set_max_ctas(n).unwrap();
    }
    plan.run(&dq, &dk, &dv, &cq, &ck, &mut o, &mut lse).unwrap();
    gpu.sync_after("prefill attention").unwrap();
    let go: Vec<f64> = gpu.download(&o).unwrap().into_iter().map(|x| x.to() as f64).collect();
    let gl: Vec<f64> = gpu.download(&lse).unwrap().into_iter().map(f64::from).collect();
    let what = format!("{d:?} q {:?} k {:?} {elem:?} {} (≤ {max_ctas:?} CTAs)", case.q_lens, case.k_lens, plan.kernel());
    assert!(go.iter().chain(&gl).all(|x| x.is_finite()), "{what}: O or LSE not finite or not fully written");
    let (eo, el) = (verify::rel_l2(&go, &wo), verify::rel_l2(&gl, &wl));
    assert!(eo <= o_tol(elem) && el <= LSE_TOL, "{what}: O rel L2 {eo:.2e}, LSE rel L2 {el:.2e}");
    // Per sequence too: a wrong short sequence must not hide inside a long one's error.
    for b in 0..case.q_lens.len() {
        let (r0, r1) = (cq[b] as usize * d.heads, cq[b + 1] as usize * d.heads);
        if r1 > r0 {
            let e = verify::rel_l2(&go[r0 * d.head_dim..r1 * d.head_dim], &wo[r0 * d.head_dim..r1 * d.head_dim]);
            assert!(e <= 2.0 * o_tol(elem), "{what}: sequence {b}: O rel L2 {e:.2e}");
        }
    }
}

fn cases() -> Vec<Case> {
    let c = |desc: PrefillDesc, q: &[u32], k: &[u32]| Case { desc, q_lens: q.to_vec(), k_lens: k.to_vec() };
    vec![
        // Llama-3's 32/8 heads, D = 128, causal, lengths around the 128-row tile.
        c(PrefillDesc::new(32, 8, 128).causal(), &[1, 127, 128, 129, 300], &[1, 127, 128, 129, 300]),
        // Plain heads, D = 64, an empty sequence in the middle.
        c(PrefillDesc::new(8, 8, 64), &[200, 0, 77], &[200, 0, 77]),
        // Phi-3's D = 96 with 12/4 heads: chunked prefill (new queries after a cached prefix), causal.
        c(PrefillDesc::new(12, 4, 96).causal(), &[5, 130, 64], &[300, 130, 700]),
        // Phi-3's D = 96 without the mask, 8/2 heads: queries and keys of different lengths, one query alone.
        c(PrefillDesc::new(8, 2, 96), &[129, 1, 300], &[200, 77, 300]),
        // Cross attention with fewer keys than queries (not causal), 16/2 heads, a scale of our own.
        c(PrefillDesc::new(16, 2, 128).with_scale(0.05), &[50, 260], &[20, 129]),
        // One K/V head for all: multi-query, D = 64, causal with a long prefix.
        c(PrefillDesc::new(4, 1, 64).causal(), &[257], &[600]),
        // Gemma-2's 16/8 heads at D = 256 (a24), causal, lengths around its 64-key and 128-query tiles.
        c(PrefillDesc::new(16, 8, 256).causal(), &[1, 63, 64, 65, 200], &[1, 63, 64, 65, 200]),
        // D = 256 cross attention with fewer keys than queries, and an empty sequence; a scale of our own.
        c(PrefillDesc::new(8, 2, 256).with_scale(0.03), &[50, 0, 130], &[20, 0, 300]),
        // D = 256 chunked prefill: new queries after cached prefixes, multi-query, causal.
        c(PrefillDesc::new(4, 1, 256).causal(), &[5, 129], &[300, 129]),
        // D = 256 around a28's 80-key tiles: prefixes of 80 and 160 keys, causal, 8/4 heads.
        c(PrefillDesc::new(8, 4, 256).causal(), &[79, 80, 81, 161], &[159, 80, 241, 161]),
        // D = 128 chunked prefill, 8/2 heads, causal: new queries after prefixes of 295, 0 and 256 keys (ragged and
        // whole 128-key tiles), so that a persistent CTA's units end and start mid-ring (session 94).
        c(PrefillDesc::new(8, 2, 128).causal(), &[5, 130, 129], &[300, 130, 385]),
    ]
}

#[test]
fn prefill_matches_the_f64_reference() {
    let Some(gpu) = hopper_or_skip("prefill_matches_the_f64_reference") else { return };
    let seed = verify::fresh_seed();
    for (i, case) in cases().iter().enumerate() {
        check::<f16>(&gpu, case, Elem::F16, seed ^ i as u64);
        check::<bf16>(&gpu, case, Elem::Bf16, seed ^ (i as u64) << 8);
        if case.desc.head_dim == 256 {
            // a24 (one CTA a tile) too.
            check_with::<bf16>(&gpu, case, Elem::Bf16, seed ^ (i as u64) << 16, Some(PrefillSchedule::CtaPerTile), None);
        }
        // The persistent kernel (a31 at D = 256, a29 at 96, a26 and a27 below) as the library launches it, and walking many
        // units a CTA on 3 and on 1 CTAs.
        check_with::<bf16>(&gpu, case, Elem::Bf16, seed ^ (i as u64) << 20, Some(PrefillSchedule::Persistent), None);
        check_with::<f16>(&gpu, case, Elem::F16, seed ^ (i as u64) << 24, Some(PrefillSchedule::Persistent), Some(3));
        check_with::<bf16>(&gpu, case, Elem::Bf16, seed ^ (i as u64) << 32, Some(PrefillSchedule::Persistent), Some(1));
    }
}

/// a33 (`PrefillSchedule::MmaSync`: a19's problem on FlashAttention-2's `mma.sync` tiles, the library's prefill
/// off Hopper) on every case of head dim 64–128, f16 and bf16, on any GPU; head dim 256 refused by name. With
/// `KERNEL_LAB_WITHHOLD=sm_90a` the library's own plan is a33 too (checked here where the GPU says so).
#[test]
fn prefill_on_mma_sync_matches_the_f64_reference() {
    let Some(gpu) = kernel_lab_bench::runtime::gpu::gpu_or_skip("prefill_on_mma_sync_matches_the_f64_reference") else { return };
    let seed = verify::fresh_seed();
    let mut ran = 0;
    for (i, case) in cases().iter().enumerate() {
        if case.desc.head_dim == 256 {
            let e = PrefillPlan::<bf16>::with_schedule(&gpu, case.desc, PrefillSchedule::MmaSync).err().expect("no mma.sync kernel at head dim 256");
            assert!(e.to_string().contains("has no `mma.sync` kernel"), "{e}");
            continue;
        }
        check_with::<f16>(&gpu, case, Elem::F16, seed ^ (i as u64) << 40, Some(PrefillSchedule::MmaSync), None);
        check_with::<bf16>(&gpu, case, Elem::Bf16, seed ^ (i as u64) << 44, Some(PrefillSchedule::MmaSync), None);
        if case.desc.head_dim == 96 {
            // a33's 96 entry (S and O over the head's 96 dims; named, not yet the library's) against f64 too.
            check_plan::<bf16>(&gpu, case, Elem::Bf16, seed ^ (i as u64) << 48, None,
                               |d| PrefillPlan::<bf16>::with_kernel(&gpu, d, PrefillSchedule::MmaSync, "attn_a33_d96_bf16").unwrap());
            check_plan::<f16>(&gpu, case, Elem::F16, seed ^ (i as u64) << 52, None,
                              |d| PrefillPlan::<f16>::with_kernel(&gpu, d, PrefillSchedule::MmaSync, "attn_a33_d96_f16").unwrap());
        }
        ran += 1;
    }
    assert!(ran >= 7, "{ran} cases of head dim ≤ 128");
    let plan = PrefillPlan::<bf16>::new(&gpu, PrefillDesc::new(8, 2, 96).causal()).unwrap();
    let hopper = gpu.runs(kernel_lab_bench::steps::Target::Sm90a);
    assert_eq!((plan.schedule(), plan.kernel()), if hopper { (PrefillSchedule::Persistent, "attn_a29_d96_bf16") } else { (PrefillSchedule::MmaSync, "attn_a33_d128_bf16") });
}

/// Every persistent prefill step the library does not launch by default (a27 and the session's
/// experiments) on each case of its width and element type, as launched and on 1 CTA.
#[test]
fn every_named_persistent_prefill_step_matches_the_f64_reference() {
    let Some(gpu) = hopper_or_skip("every_named_persistent_prefill_step_matches_the_f64_reference") else { return };
    // `name`'s element type where it is a persistent step for `d` other than the library's kernel.
    let named_for = |name: &str, d: PrefillDesc| -> Option<Elem> {
        let s = PrefillSchedule::Persistent;
        if name.ends_with("_bf16") && name != d.kernel_name("bf16", s).unwrap() && PrefillPlan::<bf16>::with_kernel(&gpu, d, s, name).is_ok() {
            Some(Elem::Bf16)
        } else if name.ends_with("_f16") && name != d.kernel_name("f16", s).unwrap() && PrefillPlan::<f16>::with_kernel(&gpu, d, s, name).is_ok() {
            Some(Elem::F16)
        } else {
            None
        }
    };
    let seed = verify::fresh_seed();
    let mut ran = std::collections::BTreeSet::new();
    for (i, case) in cases().iter().enumerate() {
        for (j, k) in PREFILL.iter().enumerate() {
            let seed = seed ^ ((i as u64) << 8 | j as u64);
            match named_for(k.name, case.desc) {
                Some(Elem::Bf16) => {
                    check_kernel::<bf16>(&gpu, case, Elem::Bf16, seed, k.name, None);
                    check_kernel::<bf16>(&gpu, case, Elem::Bf16, seed << 1, k.name, Some(1));
                }
                Some(Elem::F16) => {
                    check_kernel::<f16>(&gpu, case, Elem::F16, seed, k.name, None);
                    check_kernel::<f16>(&gpu, case, Elem::F16, seed << 1, k.name, Some(3));
                }
                _ => continue,
            }
            ran.insert(k.name);
        }
    }
    // Every persistent step that is not the library's kernel for its width ran on some case.
    let named: std::collections::BTreeSet<&str> =
        PREFILL.iter().filter(|k| HEAD_DIMS.iter().any(|&d| named_for(k.name, PrefillDesc::new(8, 8, d)).is_some())).map(|k| k.name).collect();
    assert!(!named.is_empty() && named == ran, "named persistent steps {named:?}, run {ran:?}");
}

/// At 2 × 2048 tokens, 16/4 heads, D = 128, causal and not: a19, a26 and a33 against the fixed-length fused kernel
/// (`AttentionPlan`, a15/a12) on the same values, K/V heads repeated to 16 and every tensor moved to
/// `[B·H][L][D]`.
#[test]
fn prefill_matches_the_fixed_length_kernel_at_a_large_shape() {
    let Some(gpu) = hopper_or_skip("prefill_matches_the_fixed_length_kernel_at_a_large_shape") else { return };
    let (b, l, h, hk, dd) = (2usize, 2048usize, 16usize, 4usize, 128usize);
    let mut rng = verify::rng(verify::fresh_seed());
    let (q, _) = rounded::<f16>(&mut rng, b * l * h * dd);
    let (k, _) = rounded::<f16>(&mut rng, b * l * hk * dd);
    let (v, _) = rounded::<f16>(&mut rng, b * l * hk * dd);
    // Token-major [b·l][heads][D] → head-major [b·h][l][D] (K/V head of query head x: x / group).
    let heads_major = |x: &[f16], heads: usize| -> Vec<f16> {
        let mut out = vec![f16::ZERO; b * h * l * dd];
        for bi in 0..b {
            for hi in 0..h {
                for t in 0..l {
                    let src = ((bi * l + t) * heads + hi * heads / h) * dd;
                    out[((bi * h + hi) * l + t) * dd..][..dd].copy_from_slice(&x[src..src + dd]);
                }
            }
        }
        out
    };
    let (hq, hkk, hv) = (heads_major(&q, h), heads_major(&k, hk), heads_major(&v, hk));
    let cq = cu(&[l as u32, l as u32]);
    for (causal, schedule) in [(false, PrefillSchedule::CtaPerTile), (true, PrefillSchedule::CtaPerTile), (false, PrefillSchedule::Persistent),
                               (true, PrefillSchedule::Persistent), (false, PrefillSchedule::MmaSync), (true, PrefillSchedule::MmaSync)] {
        let d = if causal { PrefillDesc::new(h, hk, dd).causal() } else { PrefillDesc::new(h, hk, dd) };
        let mut o = gpu.zeros::<f16>(q.len()).unwrap();
        let mut lse = gpu.zeros::<f32>(b * l * h).unwrap();
        gpu.poison(&mut o).unwrap();
        gpu.poison(&mut lse).unwrap();
        PrefillPlan::<f16>::with_schedule(&gpu, d, schedule).unwrap().run(&gpu.upload(&q).unwrap(), &gpu.upload(&k).unwrap(), &gpu.upload(&v).unwrap(), &cq, &cq, &mut o,
                                                      &mut lse).unwrap();
        let fd = if causal { AttentionDesc::new(b, h, l, dd).causal() } else { AttentionDesc::new(b, h, l, dd) };
        let mut ro = gpu.zeros::<f16>(hq.len()).unwrap();
        let mut rl = gpu.zeros::<f32>(b * h * l).unwrap();
        AttentionPlan::<f16>::new(&gpu, fd).unwrap().run(&gpu.upload(&hq).unwrap(), &gpu.upload(&hkk).unwrap(), &gpu.upload(&hv).unwrap(), &mut ro, &mut rl)
                                                    .unwrap();
        gpu.sync_after("prefill and fixed-length attention").unwrap();
        let (go, gl) = (gpu.download(&o).unwrap(), gpu.download(&lse).unwrap());
        let (wo, wl) = (gpu.download(&ro).unwrap(), gpu.download(&rl).unwrap());
        // a19's rows in head-major order.
        let go_hm: Vec<f64> = heads_major_of(&go, b, l, h, dd);
        let gl_hm: Vec<f64> = (0..b * h * l).map(|i| {
            let (bh, t) = (i / l, i % l);
            gl[((bh / h) * l + t) * h + bh % h] as f64
        }).collect();
        let wo: Vec<f64> = wo.iter().map(|x| x.to_f64()).collect();
        let wl: Vec<f64> = wl.iter().map(|&x| x as f64).collect();
        assert!(go_hm.iter().chain(&gl_hm).all(|x| x.is_finite()), "causal {causal}, {schedule:?}: O or LSE not fully written");
        let (eo, el) = (verify::rel_l2(&go_hm, &wo), verify::rel_l2(&gl_hm, &wl));
        assert!(eo <= o_tol(Elem::F16) && el <= LSE_TOL, "causal {causal}, {schedule:?}: prefill vs the fixed-length kernel: O rel L2 {eo:.2e}, LSE {el:.2e}");
    }
}

/// At D = 256 (the library's a31) on sequences of 2048, 1000 and 2048 tokens, 16/8 heads, causal and not, bf16: O and
/// the LSE fully written, and 384 sampled (token, head) rows against the f64 reference of those rows.
#[test]
fn prefill_d256_matches_the_reference_on_sampled_rows_at_a_large_shape() {
    let Some(gpu) = hopper_or_skip("prefill_d256_matches_the_reference_on_sampled_rows_at_a_large_shape") else { return };
    let (h, hk, dd) = (16usize, 8usize, 256usize);
    let lens = [2048u32, 1000, 2048];
    let cq = cu(&lens);
    let tokens = *cq.last().unwrap() as usize;
    let seed = verify::fresh_seed();
    let mut rng = verify::rng(seed);
    let (q, fq) = rounded::<bf16>(&mut rng, tokens * h * dd);
    let (k, fk) = rounded::<bf16>(&mut rng, tokens * hk * dd);
    let (v, fv) = rounded::<bf16>(&mut rng, tokens * hk * dd);
    let (dq, dk, dv) = (gpu.upload(&q).unwrap(), gpu.upload(&k).unwrap(), gpu.upload(&v).unwrap());
    for causal in [false, true] {
        let d = if causal { PrefillDesc::new(h, hk, dd).causal() } else { PrefillDesc::new(h, hk, dd) };
        let mut o = gpu.zeros::<bf16>(q.len()).unwrap();
        let mut lse = gpu.zeros::<f32>(tokens * h).unwrap();
        gpu.poison(&mut o).unwrap();
        gpu.poison(&mut lse).unwrap();
        let mut plan = PrefillPlan::<bf16>::new(&gpu, d).unwrap();
        assert_eq!(plan.kernel(), "attn_a31_d256_bf16");
        plan.run(&dq, &dk, &dv, &cq, &cq, &mut o, &mut lse).unwrap();
        gpu.sync_after("prefill attention at D = 256").unwrap();
        let go: Vec<f64> = gpu.download(&o).unwrap().into_iter().map(|x| x.to_f64()).collect();
        let gl: Vec<f64> = gpu.download(&lse).unwrap().into_iter().map(f64::from).collect();
        assert!(go.iter().chain(&gl).all(|x| x.is_finite()), "causal {causal}: O or LSE not finite or not fully written");
        // Sampled rows: each sequence's first and last tokens, the 64/80/128 tile edges, and random ones.
        let mut rows = vec![];
        for (b, &l) in lens.iter().enumerate() {
            for t in [0, 1, 63, 64, 79, 80, 127, 128, 159, 160, l as usize - 1] {
                rows.push((cq[b] as usize + t, (t * 7 + b) % h));
            }
        }
        while rows.len() < 384 {
            rows.push((rand::Rng::random_range(&mut rng, 0..tokens), rand::Rng::random_range(&mut rng, 0..h)));
        }
        let (mut got, mut want, mut got_l, mut want_l) = (vec![], vec![], vec![], vec![]);
        for &(tok, head) in &rows {
            let b = cq.iter().rposition(|&c| c as usize <= tok).unwrap().min(lens.len() - 1);
            let (k0, t) = (cq[b] as usize, tok - cq[b] as usize);
            let keys = if causal { t + 1 } else { lens[b] as usize };
            let (ow, lw) = reference_row_f64(&fq[(tok * h + head) * dd..][..dd], &fk, &fv, k0, keys, hk, head / (h / hk), d.scale() as f64);
            got.extend_from_slice(&go[(tok * h + head) * dd..][..dd]);
            want.extend(ow);
            got_l.push(gl[tok * h + head]);
            want_l.push(lw);
        }
        let (eo, el) = (verify::rel_l2(&got, &want), verify::rel_l2(&got_l, &want_l));
        assert!(eo <= o_tol(Elem::Bf16) && el <= LSE_TOL, "causal {causal} (seed {seed}): sampled rows: O rel L2 {eo:.2e}, LSE {el:.2e}");
    }
}

/// Token-major `[b·l][h][d]` O to head-major `[b·h][l][d]`, as f64.
fn heads_major_of(x: &[f16], b: usize, l: usize, h: usize, d: usize) -> Vec<f64> {
    let mut out = vec![0.0; x.len()];
    for bi in 0..b {
        for hi in 0..h {
            for t in 0..l {
                for c in 0..d {
                    out[((bi * h + hi) * l + t) * d + c] = x[((bi * l + t) * h + hi) * d + c].to_f64();
                }
            }
        }
    }
    out
}

#[test]
fn bad_prefill_input_gives_clear_errors() {
    let Some(gpu) = hopper_or_skip("bad_prefill_input_gives_clear_errors") else { return };
    let d = PrefillDesc::new(8, 2, 64).causal();
    assert!(PrefillPlan::<f32>::new(&gpu, d).err().unwrap().to_string().contains("f16 or bf16"));
    assert!(PrefillPlan::<f16>::new(&gpu, PrefillDesc::new(8, 3, 64)).err().unwrap().to_string().contains("does not divide"));
    assert!(PrefillPlan::<f16>::new(&gpu, PrefillDesc::new(8, 2, 192)).err().unwrap().to_string().contains("head dim 192"));
    assert_eq!(PrefillPlan::<f16>::with_schedule(&gpu, PrefillDesc::new(8, 2, 128), PrefillSchedule::Persistent).unwrap().kernel(), "attn_a26_d128_f16");
    assert!(PrefillPlan::<f16>::new(&gpu, PrefillDesc::new(8, 2, 256)).unwrap().set_max_ctas(0).unwrap_err().to_string().contains("at least 1"));
    let mut plan = PrefillPlan::<f16>::new(&gpu, d).unwrap();
    let q = gpu.zeros::<f16>(10 * 8 * 64).unwrap();
    let kv = gpu.zeros::<f16>(10 * 2 * 64).unwrap();
    let mut o = gpu.zeros::<f16>(10 * 8 * 64).unwrap();
    let mut lse = gpu.zeros::<f32>(10 * 8 - 1).unwrap();
    let e = plan.run(&q, &kv, &kv, &[0, 10], &[0, 10], &mut o, &mut lse).unwrap_err().to_string();
    assert!(e.contains("LSE holds 79 elements, 80 needed"), "{e}");
    let mut lse = gpu.zeros::<f32>(10 * 8).unwrap();
    let e = plan.run(&q, &kv, &kv, &[0, 6, 10], &[0, 5, 10], &mut o, &mut lse).unwrap_err().to_string();
    assert!(e.contains("sequence 0 has 6 queries but 5 keys"), "{e}");
    let e = plan.run(&q, &kv, &kv, &[0, 10], &[0, 11], &mut o, &mut lse).unwrap_err().to_string();
    assert!(e.contains("K holds 1280 elements, 1408 needed"), "{e}");
}

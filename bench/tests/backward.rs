//! GPU tests of attention backward (issue 50, steps b1, b2, b5, b6, b7 and — where the GPU runs `sm_90a` code — b3, b4, b9): dQ, dK, dV against the f64 reference on packed
//! sequences of lengths 0, 1, 127, 128, 129 and more, grouped heads (dK, dV summed over the group),
//! causal (bottom-right, queries the last tokens of longer keys) and not (fewer keys than queries
//! too), head dims 64 and 128, token-major and head-major, f16 and bf16, every gradient poisoned first;
//! every gradient bitwise the same over 10 runs with the deterministic dQ (steps b2, b3), dK and dV
//! over two with atomic dQ (b7, b6, b5, b1, b9: the default on Hopper, b4; every case run every way); a NaN in the next
//! sequence kept out of a sequence's gradients; at a larger shape grouped heads against the same
//! problem with the K/V heads repeated (the group's gradients summed on the host); bad input refused
//! before any launch. Without a GPU each test says it was skipped and passes.
mod common;

use common::{Half, rounded};
use half::{bf16, f16};
use kernel_lab_bench::{
    attention::{
        backward::{BackwardDesc, BackwardPlan, DqMode, Engine, Grads, Order, reference_f64},
        prefill::{PrefillDesc, reference_f64 as forward_f64},
    },
    runtime::{gpu::{Gpu, gpu_or_skip}, verify},
    steps::gemm::Elem,
};

/// Relative L2 tolerance of dQ, dK, dV against the f64 reference: P and dS are rounded to the element
/// type before their products (as in FlashAttention), so bf16 sits ~4× f16 (8 bits of mantissa against 11).
fn grad_tol(elem: Elem) -> f64 {
    if elem == Elem::Bf16 { 3e-2 } else { 8e-3 }
}

/// Offsets from lengths.
fn cu(lens: &[u32]) -> Vec<u32> {
    std::iter::once(0).chain(lens.iter().scan(0, |s, &l| {
        *s += l;
        Some(*s)
    })).collect()
}

struct Case {
    desc: BackwardDesc,
    q_lens: Vec<u32>,
    k_lens: Vec<u32>,
    /// A named step in place of the library's b7 / b8 (atomic dQ on `mma.sync`): b1, b5, b6, b7 or b8.
    step: Option<&'static str>,
}

/// A plan the tests run: a dQ mode, an engine, and for atomic dQ on `mma.sync` a named step (b1, b5, b6) in
/// place of the library's b7.
#[derive(Clone, Copy, Debug)]
struct Variant {
    dq: DqMode,
    engine: Engine,
    step: Option<&'static str>,
}

/// The plan of `desc` (whose mode and engine the caller set), with `step` (b1, b5, b6) in place of b7.
fn make_plan<T: Half>(gpu: &Gpu, desc: BackwardDesc, step: Option<&str>) -> BackwardPlan<T> {
    let plan = BackwardPlan::<T>::new(gpu, desc).unwrap();
    let Some(step) = step else { return plan };
    if step == "b4" && !plan.is_wgmma() {
        return plan; // b4 is sm_90a's: elsewhere the variant runs the plan's own kernel
    }
    // The plan's own atomic kernel (b7, or b8 at D = 64, on mma.sync; b9 on wgmma, for b4) with its step
    // replaced: `attn_bwd_<step>_d…` (`attn_bwd_b4c_d…` for b9's causal entry).
    let (own, rest) = plan.kernel().split_at("attn_bwd_b7".len());
    let own_ok: &[&str] = if step == "b4" { &["attn_bwd_b9"] } else { &["attn_bwd_b7", "attn_bwd_b8"] };
    assert!(own_ok.contains(&own), "{step} replaces {own_ok:?} only: the plan runs {}", plan.kernel());
    let name = format!("attn_bwd_{step}{rest}");
    BackwardPlan::<T>::with_kernel(gpu, desc, &name).unwrap()
}

/// Token-major `[tokens][heads][d]` to head-major `[b·heads][l][d]` for `b` sequences of `l` tokens.
fn to_head_major<T: Copy>(x: &[T], b: usize, l: usize, heads: usize, d: usize) -> Vec<T> {
    let mut out = x.to_vec();
    for bi in 0..b {
        for h in 0..heads {
            for t in 0..l {
                out[((bi * heads + h) * l + t) * d..][..d].copy_from_slice(&x[((bi * l + t) * heads + h) * d..][..d]);
            }
        }
    }
    out
}

/// The device's gradients and the reference's, both token-major, as f64.
type Run = ([Vec<f64>; 3], [Vec<f64>; 3]);

/// Runs `case` with the gradients poisoned; returns them (token-major) and the f64 reference's.
fn run<T: Half>(gpu: &Gpu, case: &Case, seed: u64) -> Run {
    let mut plan = make_plan::<T>(gpu, case.desc, case.step);
    run_with(gpu, case, seed, &mut plan)
}

/// [`run`] on `plan` (made for `case.desc` and step, perhaps run before on other lengths). dQ is taken from
/// the second of two runs, where anything the first left in the plan's workspaces would show (session 113
/// tried leaving the accumulator to the conversion to zero), dK and dV from the first (and checked bitwise
/// the same on the second).
fn run_with<T: Half>(gpu: &Gpu, case: &Case, seed: u64, plan: &mut BackwardPlan<T>) -> Run {
    let d = case.desc;
    let (cq, ck) = (cu(&case.q_lens), cu(&case.k_lens));
    let (tq, tk) = (*cq.last().unwrap() as usize, *ck.last().unwrap() as usize);
    let (nq, nk) = (tq * d.heads * d.head_dim, tk * d.kv_heads * d.head_dim);
    let mut rng = verify::rng(seed);
    let (q, fq) = rounded::<T>(&mut rng, nq);
    let (k, fk) = rounded::<T>(&mut rng, nk);
    let (v, fv) = rounded::<T>(&mut rng, nk);
    let (d_o, fdo) = rounded::<T>(&mut rng, nq);
    // The forward's O (rounded to T) and LSE from the f64 reference.
    let pd = PrefillDesc { heads: d.heads, kv_heads: d.kv_heads, head_dim: d.head_dim, causal: d.causal, scale: d.scale };
    let (o, lse) = forward_f64(&pd, &cq, &ck, &fq, &fk, &fv);
    let o: Vec<T> = o.iter().map(|&x| T::of(x as f32)).collect();
    let lse: Vec<f32> = lse.iter().map(|&x| x as f32).collect();
    let want = reference_f64(&d, &cq, &ck, &fq, &fk, &fv, &fdo);
    // Head-major runs get every tensor reordered (equal lengths), and their gradients reordered back.
    let (hm, b) = (d.order == Order::HeadMajor, case.q_lens.len());
    let (lq, lk) = (case.q_lens[0] as usize, case.k_lens[0] as usize);
    let qo = |x: &[T]| if hm { to_head_major(x, b, lq, d.heads, d.head_dim) } else { x.to_vec() };
    let ko = |x: &[T]| if hm { to_head_major(x, b, lk, d.kv_heads, d.head_dim) } else { x.to_vec() };
    let lo = if hm { to_head_major(&lse, b, lq, d.heads, 1) } else { lse };
    let up = |x: Vec<T>| gpu.upload(&x).unwrap();
    let (gq, gk, gv, go, gdo, gl) = (up(qo(&q)), up(ko(&k)), up(ko(&v)), up(qo(&o)), up(qo(&d_o)), gpu.upload(&lo).unwrap());
    let mut dq = gpu.zeros::<T>(nq).unwrap();
    let (mut dk, mut dv) = (gpu.zeros::<T>(nk).unwrap(), gpu.zeros::<T>(nk).unwrap());
    for g in [&mut dq, &mut dk, &mut dv] {
        gpu.poison(g).unwrap();
    }
    let deterministic = plan.desc().dq == DqMode::Deterministic; // the default resolved: b9 on Hopper, b7 elsewhere (both atomic)
    plan.run(&gq, &gk, &gv, &go, &gl, &gdo, &cq, &ck, Grads { dq: &mut dq, dk: &mut dk, dv: &mut dv }).unwrap();
    gpu.sync_after(plan.kernel()).unwrap();
    let back = |x: &cudarc::driver::CudaSlice<T>, heads: usize, l: usize| -> Vec<f64> {
        let h = gpu.download(x).unwrap();
        // Head-major back to token-major: the inverse permutation of `to_head_major`.
        let h = if hm {
            let mut out = h.clone();
            for bi in 0..b {
                for hh in 0..heads {
                    for t in 0..l {
                        out[((bi * l + t) * heads + hh) * d.head_dim..][..d.head_dim].copy_from_slice(&h[((bi * heads + hh) * l + t) * d.head_dim..][..d.head_dim]);
                    }
                }
            }
            out
        } else {
            h
        };
        h.into_iter().map(|x| x.to() as f64).collect()
    };
    let mut got = [back(&dq, d.heads, lq), back(&dk, d.kv_heads, lk), back(&dv, d.kv_heads, lk)];
    // dK and dV are each summed by one CTA in a fixed order: a second run gives the same bits. Its dQ (poisoned
    // again) is the one returned: the run after another is where an accumulator not zeroed would show.
    gpu.poison(&mut dq).unwrap();
    plan.run(&gq, &gk, &gv, &go, &gl, &gdo, &cq, &ck, Grads { dq: &mut dq, dk: &mut dk, dv: &mut dv }).unwrap();
    gpu.sync_after(plan.kernel()).unwrap();
    let again = [back(&dk, d.kv_heads, lk), back(&dv, d.kv_heads, lk)];
    assert!(again[0] == got[1] && again[1] == got[2], "{d:?}: dK or dV changed between two runs");
    let dq2 = back(&dq, d.heads, lq);
    if deterministic {
        assert!(dq2 == got[0], "{d:?}: deterministic dQ changed between two runs");
    }
    got[0] = dq2;
    // Deterministic dQ (b2, b3): nine more runs, every gradient bitwise the same as the first's.
    if deterministic {
        for run in 2..=10 {
            gpu.poison(&mut dq).unwrap();
            plan.run(&gq, &gk, &gv, &go, &gl, &gdo, &cq, &ck, Grads { dq: &mut dq, dk: &mut dk, dv: &mut dv }).unwrap();
            gpu.sync_after(plan.kernel()).unwrap();
            let now = [back(&dq, d.heads, lq), back(&dk, d.kv_heads, lk), back(&dv, d.kv_heads, lk)];
            assert!(now == got, "{d:?}: deterministic gradients changed at run {run}");
        }
    }
    (got, [want.0, want.1, want.2])
}

fn check<T: Half>(gpu: &Gpu, case: &Case, elem: Elem, seed: u64) {
    let what = format!("{:?} q {:?} k {:?} {elem:?}", case.desc, case.q_lens, case.k_lens);
    assert_gradients(&what, run::<T>(gpu, case, seed), elem);
}

/// Every gradient of `run` finite (fully written) and within `elem`'s tolerance of the reference's; `what` names it.
fn assert_gradients(what: &str, (got, want): Run, elem: Elem) {
    for (name, g, w) in [("dQ", &got[0], &want[0]), ("dK", &got[1], &want[1]), ("dV", &got[2], &want[2])] {
        assert!(g.iter().all(|x| x.is_finite()), "{what}: {name} not finite or not fully written");
        let e = verify::rel_l2(g, w);
        eprintln!("{what}: {name} rel L2 {e:.2e}");
        assert!(e <= grad_tol(elem), "{what}: {name} rel L2 {e:.2e} > {:.0e}", grad_tol(elem));
    }
}

fn cases() -> Vec<Case> {
    let c = |desc: BackwardDesc, q: &[u32], k: &[u32]| Case { desc, q_lens: q.to_vec(), k_lens: k.to_vec(), step: None };
    vec![
        // Grouped heads 8/2, D = 128, causal, lengths around the 64-query and 128-key tiles.
        c(BackwardDesc::new(8, 2, 128).causal(), &[1, 127, 128, 129, 300], &[1, 127, 128, 129, 300]),
        // Grouped heads 8/2, D = 64, causal, lengths around the 64- and 128-query tiles (b8's padding).
        c(BackwardDesc::new(8, 2, 64).causal(), &[1, 63, 64, 65, 129, 300], &[1, 63, 64, 65, 129, 300]),
        // Plain heads, D = 64, an empty sequence in the middle.
        c(BackwardDesc::new(4, 4, 64), &[200, 0, 77], &[200, 0, 77]),
        // Chunked: new queries after a cached prefix (causal bottom-right), 6/2 heads, D = 128.
        c(BackwardDesc::new(6, 2, 128).causal(), &[5, 130], &[300, 130]),
        // Cross attention with fewer keys than queries, multi-query (1 K/V head), a scale of our own.
        c(BackwardDesc::new(4, 1, 64).with_scale(0.05), &[50, 260], &[20, 129]),
        // Head-major [B·H][L][D] (the fixed-length forward's order), causal, 4/2 heads.
        c(BackwardDesc::new(4, 2, 64).causal().with_order(Order::HeadMajor), &[150, 150], &[150, 150]),
        c(BackwardDesc::new(2, 2, 128).with_order(Order::HeadMajor), &[70, 70, 70], &[190, 190, 190]),
    ]
}

/// The plans every test runs: the default (`DqMode::Fastest`: b9 where the GPU runs `sm_90a` code, else
/// b7), the deterministic mode's (b3 where the GPU runs `sm_90a` code, else b2 again), b2 on `mma.sync`, b7
/// (b8 at D = 64: atomic dQ on `mma.sync`), and by name the steps before it — b1, b6, b5 — b8 (D = 64 only: every
/// test runs it on its D = 64 cases) and b7 (at D = 64 the step before b8); b4 (b9, the default there, without its
/// producer warpgroup) where the GPU runs `sm_90a` code (elsewhere that variant runs the default plan again).
const VARIANTS: [Variant; 10] = [
    Variant { dq: DqMode::Fastest, engine: Engine::Auto, step: None },
    Variant { dq: DqMode::Deterministic, engine: Engine::Auto, step: None },
    Variant { dq: DqMode::Deterministic, engine: Engine::MmaSync, step: None },
    Variant { dq: DqMode::Atomic, engine: Engine::MmaSync, step: None },
    Variant { dq: DqMode::Atomic, engine: Engine::MmaSync, step: Some("b1") },
    Variant { dq: DqMode::Atomic, engine: Engine::MmaSync, step: Some("b6") },
    Variant { dq: DqMode::Atomic, engine: Engine::MmaSync, step: Some("b5") },
    Variant { dq: DqMode::Atomic, engine: Engine::MmaSync, step: Some("b8") },
    Variant { dq: DqMode::Atomic, engine: Engine::MmaSync, step: Some("b7") },
    Variant { dq: DqMode::Atomic, engine: Engine::Auto, step: Some("b4") },
];

/// Every case of [`cases`] run with `plan` (a dQ mode and engine) in f16 and bf16 against the f64 reference.
fn check_cases(gpu: &Gpu, v: Variant) {
    let seed = verify::fresh_seed();
    for (i, case) in cases().into_iter().enumerate() {
        if v.step == Some("b8") && case.desc.head_dim != 64 {
            continue; // b8 is a D = 64 kernel
        }
        let case = Case { desc: case.desc.with_dq(v.dq).with_engine(v.engine), step: v.step, ..case };
        check::<f16>(gpu, &case, Elem::F16, seed ^ i as u64);
        check::<bf16>(gpu, &case, Elem::Bf16, seed ^ (i as u64) << 8);
    }
}

/// The default plan (`DqMode::Fastest`: b9 on Hopper, b7 elsewhere): every case against the f64 reference
/// (dK and dV bitwise the same on a second run; with b2 every gradient over 10 runs).
#[test]
fn backward_matches_the_f64_reference() {
    let Some(gpu) = gpu_or_skip("backward_matches_the_f64_reference") else { return };
    let plan = BackwardPlan::<f16>::new(&gpu, BackwardDesc::new(4, 2, 64)).unwrap();
    eprintln!("default plan: {} ({:?}, {})", plan.kernel(), plan.desc().dq, if plan.is_wgmma() { "b9, wgmma" } else { "b7, mma.sync" });
    check_cases(&gpu, VARIANTS[0]);
}

/// One default plan (b9 on Hopper, b7 / b8 elsewhere) run on problem after problem of its heads and width —
/// more tokens, fewer, other offsets, then the first again — every one against the f64 reference: the plan's
/// workspaces (offsets, dQ's accumulator, the statistics) grown and reused between them.
#[test]
fn a_reused_plan_gives_every_problem_its_own_gradients() {
    let Some(gpu) = gpu_or_skip("a_reused_plan_gives_every_problem_its_own_gradients") else { return };
    let seed = verify::fresh_seed();
    for desc in [BackwardDesc::new(8, 2, 128).causal(), BackwardDesc::new(4, 4, 64)] {
        let mut plan = BackwardPlan::<bf16>::new(&gpu, desc).unwrap();
        let lens: [&[u32]; 4] = [&[1, 127, 128, 129, 300], &[700], &[65, 0, 3], &[1, 127, 128, 129, 300]];
        for (i, l) in lens.into_iter().enumerate() {
            let case = Case { desc, q_lens: l.to_vec(), k_lens: l.to_vec(), step: None };
            let run = run_with::<bf16>(&gpu, &case, seed ^ (i as u64) << 16, &mut plan);
            assert_gradients(&format!("{desc:?} {} run {i} q {l:?}", plan.kernel()), run, Elem::Bf16);
        }
    }
}

/// The deterministic mode (b3 on Hopper, b2 elsewhere): the same cases, every gradient bitwise the same
/// over 10 runs.
#[test]
fn deterministic_backward_matches_the_reference_bitwise_over_10_runs() {
    let Some(gpu) = gpu_or_skip("deterministic_backward_matches_the_reference_bitwise_over_10_runs") else { return };
    let plan = BackwardPlan::<f16>::new(&gpu, BackwardDesc::new(4, 2, 64).with_dq(DqMode::Deterministic)).unwrap();
    eprintln!("deterministic plan: {} ({})", plan.kernel(), if plan.is_wgmma() { "b3, wgmma" } else { "b2, mma.sync" });
    check_cases(&gpu, VARIANTS[1]);
}

/// Step b2 on `mma.sync` where the deterministic mode runs b3: the same cases, bitwise stable over 10 runs.
#[test]
fn mma_sync_backward_matches_the_reference() {
    let Some(gpu) = gpu_or_skip("mma_sync_backward_matches_the_reference") else { return };
    check_cases(&gpu, VARIANTS[2]);
}

/// Step b7, b8 at D = 64 (dQ by atomic adds, `DqMode::Atomic` on `mma.sync`: b5's warps, dQ into tile blocks in
/// the reductions' order, CTAs longest first; b8 on 128-query tiles): the same cases — several sequences and grouped heads, so every
/// (key block, head, sequence) is reached through the remapped block index — against the f64 reference (dK and dV bitwise the same on a second run).
#[test]
fn atomic_dq_backward_matches_the_reference() {
    let Some(gpu) = gpu_or_skip("atomic_dq_backward_matches_the_reference") else { return };
    check_cases(&gpu, VARIANTS[3]);
}

/// Step b1 (b5's step before, atomic dQ, by `BackwardPlan::with_kernel`): the same cases against the f64
/// reference (dK and dV bitwise the same on a second run).
#[test]
fn b1_backward_matches_the_reference() {
    let Some(gpu) = gpu_or_skip("b1_backward_matches_the_reference") else { return };
    check_cases(&gpu, VARIANTS[4]);
}

/// Step b6 (b5 adding dQ into padded tile blocks in its reductions' order, by `BackwardPlan::with_kernel`,
/// with its own conversion): the same cases against the f64 reference (dK and dV bitwise the same on a
/// second run) — ragged tiles, empty sequences and grouped heads exercise the padded blocks.
#[test]
fn b6_backward_matches_the_reference() {
    let Some(gpu) = gpu_or_skip("b6_backward_matches_the_reference") else { return };
    check_cases(&gpu, VARIANTS[5]);
}

/// Step b5 (b1 on FlashAttention-2's warp layout, dQ into Q's layout, by `BackwardPlan::with_kernel`): the
/// same cases against the f64 reference (dK and dV bitwise the same on a second run).
#[test]
fn b5_backward_matches_the_reference() {
    let Some(gpu) = gpu_or_skip("b5_backward_matches_the_reference") else { return };
    check_cases(&gpu, VARIANTS[6]);
}

/// Step b8 (b7 on 128-query tiles at D = 64, by `BackwardPlan::with_kernel`): the D = 64 cases against the f64
/// reference — ragged lengths around 64 and 128 queries, an empty sequence, grouped heads, cross attention.
#[test]
fn b8_backward_matches_the_reference() {
    let Some(gpu) = gpu_or_skip("b8_backward_matches_the_reference") else { return };
    check_cases(&gpu, VARIANTS[7]);
}

/// Step b7 by name (at D = 128 the plan's own; at D = 64 the step before b8): the same cases against the f64
/// reference.
#[test]
fn b7_backward_matches_the_reference() {
    let Some(gpu) = gpu_or_skip("b7_backward_matches_the_reference") else { return };
    check_cases(&gpu, VARIANTS[8]);
}

/// Step b4 (b9, the default on Hopper, without its producer warpgroup, by `BackwardPlan::with_kernel`; sm_90a): every
/// case against the f64 reference (dK and dV bitwise the same on a second run).
#[test]
fn b4_backward_matches_the_reference() {
    let Some(gpu) = gpu_or_skip("b4_backward_matches_the_reference") else { return };
    check_cases(&gpu, VARIANTS[9]);
}

/// A sequence's gradients never see the values packed after it. b4's TMA box brings the rows after a
/// sequence's last query tile into shared memory (the next sequence's); the mask hides them, but a NaN
/// there would still reach dK and dV as 0 × NaN unless they are zeroed. Two packed sequences (the first
/// 70 queries and keys: its last tile holds 6 of its rows and 58 of the next's), the second's Q, K, V, O
/// and dO all NaN: the first's dQ, dK, dV against the f64 reference of the first alone, every plan of
/// [`VARIANTS`], causal and not, f16 and bf16.
#[test]
fn a_neighbours_nan_stays_out_of_a_sequences_gradients() {
    let Some(gpu) = gpu_or_skip("a_neighbours_nan_stays_out_of_a_sequences_gradients") else { return };
    fn one<T: Half>(gpu: &Gpu, causal: bool, var: Variant, seed: u64) {
        let (h, hk, dd, l1, l2) = (2usize, 1usize, 64usize, 70usize, 100usize);
        let desc = BackwardDesc::new(h, hk, dd).with_dq(var.dq).with_engine(var.engine);
        let desc = if causal { desc.causal() } else { desc };
        let (cq, c1) = (cu(&[l1 as u32, l2 as u32]), cu(&[l1 as u32]));
        let (nq, nk, n1q, n1k) = ((l1 + l2) * h * dd, (l1 + l2) * hk * dd, l1 * h * dd, l1 * hk * dd);
        let mut rng = verify::rng(seed);
        let (mut q, fq) = rounded::<T>(&mut rng, nq);
        let (mut k, fk) = rounded::<T>(&mut rng, nk);
        let (mut v, fv) = rounded::<T>(&mut rng, nk);
        let (mut d_o, fdo) = rounded::<T>(&mut rng, nq);
        let pd = PrefillDesc { heads: h, kv_heads: hk, head_dim: dd, causal, scale: None };
        let (o1, lse1) = forward_f64(&pd, &c1, &c1, &fq[..n1q], &fk[..n1k], &fv[..n1k]);
        let want = reference_f64(&desc, &c1, &c1, &fq[..n1q], &fk[..n1k], &fv[..n1k], &fdo[..n1q]);
        // The second sequence: NaN everywhere (its LSE too).
        let nan = T::of(f32::NAN);
        for x in [&mut q[n1q..], &mut d_o[n1q..], &mut k[n1k..], &mut v[n1k..]] {
            x.fill(nan);
        }
        let mut o: Vec<T> = o1.iter().map(|&x| T::of(x as f32)).collect();
        o.resize(nq, nan);
        let mut lse: Vec<f32> = lse1.iter().map(|&x| x as f32).collect();
        lse.resize((l1 + l2) * h, f32::NAN);
        let up = |x: &[T]| gpu.upload(x).unwrap();
        let (mut dq, mut dk, mut dv) = (gpu.zeros::<T>(nq).unwrap(), gpu.zeros::<T>(nk).unwrap(), gpu.zeros::<T>(nk).unwrap());
        for g in [&mut dq, &mut dk, &mut dv] {
            gpu.poison(g).unwrap();
        }
        let mut plan = make_plan::<T>(gpu, desc, var.step);
        plan.run(&up(&q), &up(&k), &up(&v), &up(&o), &gpu.upload(&lse).unwrap(), &up(&d_o), &cq, &cq, Grads { dq: &mut dq, dk: &mut dk, dv: &mut dv }).unwrap();
        gpu.sync_after(plan.kernel()).unwrap();
        for (name, got, want, n) in [("dQ", &dq, &want.0, n1q), ("dK", &dk, &want.1, n1k), ("dV", &dv, &want.2, n1k)] {
            let got: Vec<f64> = gpu.download(got).unwrap()[..n].iter().map(|y| y.to() as f64).collect();
            assert!(got.iter().all(|x| x.is_finite()), "{} causal {causal}: the first sequence's {name} has non-finite values", plan.kernel());
            let e = verify::rel_l2(&got, want);
            assert!(e <= 3e-2, "{} causal {causal}: the first sequence's {name} rel L2 {e:.2e}", plan.kernel());
        }
    }
    let seed = verify::fresh_seed();
    for v in VARIANTS {
        for causal in [false, true] {
            one::<f16>(&gpu, causal, v, seed);
            one::<bf16>(&gpu, causal, v, seed ^ 1);
        }
    }
}

/// 2 × 1000 tokens, 16/4 heads, D = 128 (b8: 64), causal, bf16 (every plan of [`VARIANTS`]): grouped heads against the same
/// problem with each K/V head repeated for its 4 query heads, whose dK and dV (per query head) are summed on the host.
#[test]
fn grouped_heads_match_repeated_heads_summed() {
    let Some(gpu) = gpu_or_skip("grouped_heads_match_repeated_heads_summed") else { return };
    for var in VARIANTS {
        grouped_against_repeated(&gpu, var, if var.step == Some("b8") { 64 } else { 128 });
    }
}

fn grouped_against_repeated(gpu: &Gpu, var: Variant, dd: usize) {
    let (l, h, hk) = (1000u32, 16usize, 4usize);
    let cq = cu(&[l, l]);
    let t = 2 * l as usize;
    let mut rng = verify::rng(verify::fresh_seed());
    let mut r = |n: usize| rounded::<bf16>(&mut rng, n).0;
    let (q, k, v, o, d_o) = (r(t * h * dd), r(t * hk * dd), r(t * hk * dd), r(t * h * dd), r(t * h * dd));
    let lse: Vec<f32> = (0..t * h).map(|i| 3.0 + (i % 7) as f32).collect();
    let repeat = |x: &[bf16]| -> Vec<bf16> { (0..t * h).flat_map(|i| x[((i / h) * hk + (i % h) / (h / hk)) * dd..][..dd].to_vec()).collect() };
    {
        let (mode, engine) = (var.dq, var.engine);
        let mut grads = Vec::new();
        for (heads_kv, kk, vv) in [(hk, k.clone(), v.clone()), (h, repeat(&k), repeat(&v))] {
            let desc = BackwardDesc::new(h, heads_kv, dd).causal().with_dq(mode).with_engine(engine);
            let n_kv = t * heads_kv * dd;
            let (mut dq, mut dk, mut dv) = (gpu.zeros::<bf16>(q.len()).unwrap(), gpu.zeros::<bf16>(n_kv).unwrap(), gpu.zeros::<bf16>(n_kv).unwrap());
            let up = |x: &[bf16]| gpu.upload(x).unwrap();
            make_plan::<bf16>(gpu, desc, var.step).run(&up(&q), &up(&kk), &up(&vv), &up(&o), &gpu.upload(&lse).unwrap(), &up(&d_o), &cq, &cq,
                                                              Grads { dq: &mut dq, dk: &mut dk, dv: &mut dv }).unwrap();
            gpu.sync_after("attention backward").unwrap();
            let f = |x: &cudarc::driver::CudaSlice<bf16>| gpu.download(x).unwrap().iter().map(|y| y.to_f64()).collect::<Vec<f64>>();
            grads.push([f(&dq), f(&dk), f(&dv)]);
        }
        // The repeated problem's per-query-head dK, dV summed over each group.
        let sum = |x: &[f64]| -> Vec<f64> { (0..t * hk * dd).map(|i| (0..h / hk).map(|j| x[((i / (hk * dd)) * h + (i / dd % hk) * (h / hk) + j) * dd + i % dd]).sum()).collect() };
        let (dq_e, dk_e, dv_e) = (verify::rel_l2(&grads[0][0], &grads[1][0]), verify::rel_l2(&grads[0][1], &sum(&grads[1][1])), verify::rel_l2(&grads[0][2], &sum(&grads[1][2])));
        eprintln!("{var:?}: grouped against repeated: dQ {dq_e:.2e}, dK {dk_e:.2e}, dV {dv_e:.2e}");
        assert!(dq_e < 1e-2 && dk_e < 1e-2 && dv_e < 1e-2, "{var:?}: grouped heads against repeated heads: dQ {dq_e:.2e}, dK {dk_e:.2e}, dV {dv_e:.2e}");
    }
}

/// Keys past a sequence's end must add nothing even where a query's LSE is very negative: constant Q and
/// K of opposite signs give scores of −18 (f16) and −98 (bf16), so a padded key's P = e^(−LSE) would
/// overflow and make dQ NaN (dS = ±∞ times a zero K row) — session 51's review found b1 and b2 doing
/// that without the mask; both modes, both types, against the f64 reference.
#[test]
fn padded_keys_add_nothing_where_the_lse_is_very_negative() {
    let Some(gpu) = gpu_or_skip("padded_keys_add_nothing_where_the_lse_is_very_negative") else { return };
    fn one<T: Half>(gpu: &Gpu, x: f32, var: Variant) {
        let (mode, engine) = (var.dq, var.engine);
        let d = BackwardDesc::new(1, 1, 64).with_dq(mode).with_engine(engine);
        let (cq, ck) = (cu(&[1, 3]), cu(&[1, 70]));
        let (tq, tk) = (4usize, 71usize);
        let q: Vec<T> = vec![T::of(x); tq * 64];
        let k: Vec<T> = vec![T::of(-x); tk * 64];
        let v: Vec<T> = (0..tk * 64).map(|i| T::of(((i % 7) as f32 - 3.0) / 4.0)).collect();
        let d_o: Vec<T> = (0..tq * 64).map(|i| T::of(((i % 5) as f32 - 2.0) / 4.0)).collect();
        let f = |a: &[T]| a.iter().map(|y| y.to()).collect::<Vec<f32>>();
        let pd = PrefillDesc::new(1, 1, 64);
        let (o, lse) = forward_f64(&pd, &cq, &ck, &f(&q), &f(&k), &f(&v));
        assert!(lse.iter().all(|&l| l < -10.0), "the case needs very negative LSEs: {lse:?}");
        let o: Vec<T> = o.iter().map(|&y| T::of(y as f32)).collect();
        let lse: Vec<f32> = lse.iter().map(|&y| y as f32).collect();
        let (wq, wk, wv) = reference_f64(&d, &cq, &ck, &f(&q), &f(&k), &f(&v), &f(&d_o));
        let up = |a: &[T]| gpu.upload(a).unwrap();
        let (mut dq, mut dk, mut dv) = (gpu.zeros::<T>(tq * 64).unwrap(), gpu.zeros::<T>(tk * 64).unwrap(), gpu.zeros::<T>(tk * 64).unwrap());
        for g in [&mut dq, &mut dk, &mut dv] {
            gpu.poison(g).unwrap();
        }
        make_plan::<T>(gpu, d, var.step).run(&up(&q), &up(&k), &up(&v), &up(&o), &gpu.upload(&lse).unwrap(), &up(&d_o), &cq, &ck,
                                                     Grads { dq: &mut dq, dk: &mut dk, dv: &mut dv }).unwrap();
        gpu.sync_after("attention backward").unwrap();
        for (name, got, want) in [("dQ", &dq, &wq), ("dK", &dk, &wk), ("dV", &dv, &wv)] {
            let got: Vec<f64> = gpu.download(got).unwrap().iter().map(|y| y.to() as f64).collect();
            let worst = got.iter().zip(want).map(|(a, b)| (a - b).abs()).fold(0.0f64, |m, e| if e.is_nan() { f64::INFINITY } else { m.max(e) });
            assert!(worst <= 2e-2, "{mode:?} {engine:?} x = {x}: {name} off the reference by {worst:.3e} (NaN counts as ∞)");
        }
    }
    for v in VARIANTS {
        one::<f16>(&gpu, 1.5, v);
        one::<bf16>(&gpu, 3.5, v);
    }
}

#[test]
fn bad_backward_input_gives_clear_errors() {
    let Some(gpu) = gpu_or_skip("bad_backward_input_gives_clear_errors") else { return };
    // A named kernel the plan cannot launch as its own: refused, naming those it could.
    let atomic = BackwardDesc::new(8, 2, 64).with_dq(DqMode::Atomic).with_engine(Engine::MmaSync);
    let e = BackwardPlan::<f16>::with_kernel(&gpu, atomic, "attn_bwd_b2kv_d64_f16").err().unwrap().to_string();
    assert!(e.contains("does not launch as") && e.contains("attn_bwd_b1_d64_f16") && e.contains("attn_bwd_b5_d64_f16") && e.contains("attn_bwd_b7_d64_f16"), "{e}");
    assert!(BackwardPlan::<f16>::with_kernel(&gpu, atomic, "attn_bwd_b1_d128_f16").is_err(), "b1 of another head dim");
    let d = BackwardDesc::new(8, 2, 64).causal();
    assert!(BackwardPlan::<f32>::new(&gpu, d).err().unwrap().to_string().contains("f16 or bf16"));
    assert!(BackwardPlan::<f16>::new(&gpu, BackwardDesc::new(8, 2, 256)).err().unwrap().to_string().contains("head dim 256"));
    // The wgmma kernels (b3, b4) where the GPU cannot run them: refused, naming what they need.
    for dq in [DqMode::Deterministic, DqMode::Atomic] {
        match BackwardPlan::<f16>::new(&gpu, d.with_dq(dq).with_engine(Engine::Wgmma)) {
            Ok(p) => assert!(p.is_wgmma() && p.kernel().starts_with(if dq == DqMode::Atomic { "attn_bwd_b9c_" } else { "attn_bwd_b3kvc_" }), "{}", p.kernel()),
            Err(e) => assert!(e.to_string().contains("sm_90a"), "{dq:?}: {e}"),
        }
    }
    let mut plan = BackwardPlan::<f16>::new(&gpu, d).unwrap();
    let q = gpu.zeros::<f16>(10 * 8 * 64).unwrap();
    let kv = gpu.zeros::<f16>(10 * 2 * 64).unwrap();
    let lse = gpu.zeros::<f32>(10 * 8 - 1).unwrap();
    let (mut dq, mut dk, mut dv) = (gpu.zeros::<f16>(10 * 8 * 64).unwrap(), gpu.zeros::<f16>(10 * 2 * 64).unwrap(), gpu.zeros::<f16>(10 * 2 * 64).unwrap());
    let e = plan.run(&q, &kv, &kv, &q, &lse, &q, &[0, 10], &[0, 10], Grads { dq: &mut dq, dk: &mut dk, dv: &mut dv }).unwrap_err().to_string();
    assert!(e.contains("LSE holds 79 elements, 80 needed"), "{e}");
    let lse = gpu.zeros::<f32>(10 * 8).unwrap();
    let e = plan.run(&q, &kv, &kv, &q, &lse, &q, &[0, 6, 10], &[0, 5, 10], Grads { dq: &mut dq, dk: &mut dk, dv: &mut dv }).unwrap_err().to_string();
    assert!(e.contains("sequence 0 has 6 queries but 5 keys"), "{e}");
    let mut small = gpu.zeros::<f16>(10 * 2 * 64 - 8).unwrap();
    let e = plan.run(&q, &kv, &kv, &q, &lse, &q, &[0, 10], &[0, 10], Grads { dq: &mut dq, dk: &mut small, dv: &mut dv }).unwrap_err().to_string();
    assert!(e.contains("dK holds 1272 elements, 1280 needed"), "{e}");
}

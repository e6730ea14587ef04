//! GPU tests of the all-reduce (issue 52). On one GPU the custom steps' protocol runs with several
//! ranks sharing it ([`Group::same_gpu`]): every element of every rank against the exact sum (random
//! integers, fresh per run), the same bits on every rank, sizes that leave some two-shot segments
//! short or empty, many calls in a row (the epochs and staging halves), an in-place result that keeps
//! the rank's input where a step did not write; a rank that never launches is reported by `check()`
//! after the timeout, names the peer, and the custom steps are refused from then on (no hang); bad
//! input refused before any launch (the fused all-reduce + RMSNorm's too; its bits are checked against
//! the unfused pair in `llm/tests/kernels.rs`). With two or more GPUs, the same on real GPUs and NCCL
//! beside them, and the fused all-reduce + RMSNorm against a host reference there. Without a GPU each
//! test says it was skipped and passes.
use half::{bf16, f16};
use kernel_lab_bench::{
    Error,
    comm::{Algo, AllReduce, AllReduceOptions, Group, Placement, Reducible, ResidualNorm},
    cudarc::driver::{CudaContext, CudaSlice},
    runtime::gpu::{Gpu, gpu_or_skip, report_skip},
};
use rand::{Rng, SeedableRng};

/// Exact small integers in every element type.
trait Int: Reducible {
    fn of(x: i32) -> Self;
    fn int(self) -> i32;
}
impl Int for f32 {
    fn of(x: i32) -> Self { x as f32 }
    fn int(self) -> i32 { self as i32 }
}
impl Int for f16 {
    fn of(x: i32) -> Self { f16::from_f32(x as f32) }
    fn int(self) -> i32 { self.to_f32() as i32 }
}
impl Int for bf16 {
    fn of(x: i32) -> Self { bf16::from_f32(x as f32) }
    fn int(self) -> i32 { self.to_f32() as i32 }
}

/// Fresh random inputs in −8..=8 per rank (|sum| ≤ 64 over 8 ranks: exact in bf16).
fn inputs(world: usize, n: usize, rng: &mut impl Rng) -> Vec<Vec<i32>> {
    (0..world).map(|_| (0..n).map(|_| rng.random_range(-8..=8)).collect()).collect()
}

fn upload<T: Int>(group: &Group, ins: &[Vec<i32>]) -> Vec<CudaSlice<T>> {
    group.ranks().iter().zip(ins).map(|(g, v)| g.upload(&v.iter().map(|&x| T::of(x)).collect::<Vec<T>>()).unwrap()).collect()
}

/// Runs `algo` on fresh data and checks every element of every rank against the exact sum.
fn check_once<T: Int>(ar: &AllReduce, algo: Algo, n: usize, rng: &mut impl Rng) {
    let g = ar.group();
    let ins = inputs(g.world(), n, rng);
    let mut bufs = upload::<T>(g, &ins);
    ar.all_reduce_in_place_with(algo, &mut bufs.iter_mut().collect::<Vec<_>>()).unwrap();
    ar.check().unwrap();
    let want: Vec<i32> = (0..n).map(|i| ins.iter().map(|v| v[i]).sum()).collect();
    for (r, (gpu, b)) in g.ranks().iter().zip(&bufs).enumerate() {
        let got = gpu.download(b).unwrap();
        if let Some(i) = (0..n).find(|&i| got[i].int() != want[i]) {
            panic!("{} over {} ranks, n {n} {}: rank {r} element {i} = {} (want {}, its input {})", algo.name(), g.world(), T::SUFFIX, got[i].int(), want[i], ins[r][i]);
        }
    }
}

fn custom_only() -> AllReduceOptions {
    AllReduceOptions { use_nccl: false, ..AllReduceOptions::default() }
}

#[test]
fn custom_steps_sum_exactly_on_ranks_sharing_one_gpu() {
    let Some(gpu) = gpu_or_skip("custom_steps_sum_exactly_on_ranks_sharing_one_gpu") else { return };
    let mut rng = rand::rngs::StdRng::from_os_rng();
    for world in [1, 2, 3, 5, 8] {
        let ar = AllReduce::new(Group::same_gpu(&gpu, world).unwrap(), AllReduceOptions { capacity_bytes: 4 << 20, ..custom_only() }).unwrap();
        assert_eq!(ar.placement(), Placement::SameGpu);
        assert!(ar.unavailable(Algo::Nccl).is_some(), "NCCL must refuse ranks sharing a GPU");
        for algo in [Algo::OneShot, Algo::TwoShot] {
            // 8 elements: one vector (most segments empty); odd vector counts; more vectors than one
            // block-stride (512 threads x 64 blocks = 32768 vectors: 262144 bf16); the capacity; past
            // it (three chunks, the last short).
            for n in [8, 8 * 3, 8 * 1001, 8 * 40_000, (4 << 20) / 2, (4 << 20) + 8 * 999] {
                check_once::<bf16>(&ar, algo, n, &mut rng);
            }
            check_once::<f16>(&ar, algo, 8 * 777, &mut rng);
            check_once::<f32>(&ar, algo, 4 * 777, &mut rng);
        }
    }
}

#[test]
fn many_calls_in_a_row_stay_in_step() {
    let Some(gpu) = gpu_or_skip("many_calls_in_a_row_stay_in_step") else { return };
    let mut rng = rand::rngs::StdRng::from_os_rng();
    let ar = AllReduce::new(Group::same_gpu(&gpu, 4).unwrap(), custom_only()).unwrap();
    // Alternating steps and sizes (grids of 1 to 64 blocks) reuse the staging halves and flags in
    // every pattern; 200 calls enqueued without a wait between them, the last checked exactly.
    let n = 8 * 5000;
    let ins = inputs(4, n, &mut rng);
    let mut bufs = upload::<bf16>(ar.group(), &ins);
    let mut small = upload::<bf16>(ar.group(), &inputs(4, 64, &mut rng));
    for i in 0..200 {
        let algo = if i % 3 == 0 { Algo::TwoShot } else { Algo::OneShot };
        ar.all_reduce_in_place_with(algo, &mut small.iter_mut().collect::<Vec<_>>()).unwrap();
        if i == 199 {
            ar.all_reduce_in_place_with(algo, &mut bufs.iter_mut().collect::<Vec<_>>()).unwrap();
        }
    }
    ar.check().unwrap();
    let want: Vec<i32> = (0..n).map(|i| ins.iter().map(|v| v[i]).sum()).collect();
    for (g, b) in ar.group().ranks().iter().zip(&bufs) {
        assert_eq!(g.download(b).unwrap().iter().map(|x| x.int()).collect::<Vec<_>>(), want);
    }
}

#[test]
fn a_rank_that_never_arrives_is_reported_not_waited_for() {
    let Some(gpu) = gpu_or_skip("a_rank_that_never_arrives_is_reported_not_waited_for") else { return };
    let ar = AllReduce::new(Group::same_gpu(&gpu, 2).unwrap(), AllReduceOptions { timeout: std::time::Duration::from_millis(50), ..custom_only() }).unwrap();
    let g = ar.group();
    let mut bufs: Vec<CudaSlice<f32>> = g.ranks().iter().map(|r| r.upload(&[1.0f32; 64]).unwrap()).collect();
    // One good call first: the kernels are loaded (a cold driver JITs the module for seconds, which
    // would outlast the hold below) and the group is healthy.
    ar.all_reduce_in_place_with(Algo::OneShot, &mut bufs.iter_mut().collect::<Vec<_>>()).unwrap();
    ar.check().unwrap();
    // The API launches every rank, so a rank that never arrives is made by holding rank 1's stream
    // busy past the timeout: rank 0 waits 50 ms for a peer that arrives only after 2 s.
    kernel_lab_bench::runtime::timing::hold(g.rank(1), 2_000_000_000).unwrap();
    let t0 = std::time::Instant::now();
    ar.all_reduce_in_place_with(Algo::OneShot, &mut bufs.iter_mut().collect::<Vec<_>>()).unwrap();
    let err = ar.check().unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Collective(_)), "{msg}");
    assert!(msg.contains("rank 0") && msg.contains("for rank 1"), "{msg}");
    assert!(t0.elapsed() < std::time::Duration::from_secs(20), "took {:?}", t0.elapsed());
    // Rank 0 told rank 1 to stop (rank 1's late kernel returned at once: check() waited only for the
    // hold); the status stays, and the host refuses the custom steps from now on, before any launch.
    assert!(ar.check().is_err());
    let e = ar.all_reduce_in_place_with(Algo::TwoShot, &mut bufs.iter_mut().collect::<Vec<_>>()).unwrap_err().to_string();
    assert!(e.contains("a custom call failed on this group"), "{e}");
    assert!(ar.unavailable(Algo::OneShot).is_some());
}

#[test]
fn bad_input_is_refused_before_any_launch() {
    let Some(gpu) = gpu_or_skip("bad_input_is_refused_before_any_launch") else { return };
    let ar = AllReduce::new(Group::same_gpu(&gpu, 2).unwrap(), AllReduceOptions { capacity_bytes: 1 << 20, ..custom_only() }).unwrap();
    let g = ar.group();
    let err = |e: Error| e.to_string();
    let mut a = g.rank(0).zeros::<bf16>(64).unwrap();
    let mut b = g.rank(1).zeros::<bf16>(72).unwrap();
    assert!(err(ar.all_reduce_in_place(&mut [&mut a, &mut b]).unwrap_err()).contains("rank 1's buffer holds 72 elements, rank 0's 64"));
    assert!(err(ar.all_reduce_in_place(&mut [&mut a]).unwrap_err()).contains("1 buffers for a group of 2 ranks"));
    let (mut c, mut d) = (g.rank(0).zeros::<bf16>(7).unwrap(), g.rank(1).zeros::<bf16>(7).unwrap());
    let e = err(ar.all_reduce_in_place_with(Algo::OneShot, &mut [&mut c, &mut d]).unwrap_err());
    assert!(e.contains("14 bytes, not a multiple of 16"), "{e}");
    // With NCCL off, a ragged size has no step at all: the error lists why each step refuses.
    let e = err(ar.all_reduce_in_place(&mut [&mut c, &mut d]).unwrap_err());
    assert!(e.contains("nccl: not asked for") && e.contains("oneshot: 7 bf16"), "{e}");
    let (mut e0, mut e1) = (g.rank(0).zeros::<bf16>(0).unwrap(), g.rank(1).zeros::<bf16>(0).unwrap());
    assert!(err(ar.all_reduce_in_place(&mut [&mut e0, &mut e1]).unwrap_err()).contains("empty buffers"));
    assert!(Group::same_gpu(&gpu, 9).is_err() && Group::same_gpu(&gpu, 0).is_err());
    assert!(err(Group::new(&[0, 0]).err().unwrap()).contains("listed twice"));
    assert!(AllReduce::new(Group::same_gpu(&gpu, 2).unwrap(), AllReduceOptions { capacity_bytes: 100, ..custom_only() }).is_err());
    // The all-reduce fused with the residual add and RMSNorm: every mismatch named before any launch.
    let fused = |rows: usize, hidden: usize, wlen: usize, ranks: usize, eps: f32| -> String {
        let mut bufs: Vec<_> = (0..2).map(|r| {
            let g = g.rank(r);
            (g.zeros::<bf16>(rows * hidden).unwrap(), g.zeros::<bf16>(rows * hidden).unwrap(), g.zeros::<bf16>(wlen).unwrap(), g.zeros::<bf16>(rows * hidden).unwrap())
        }).collect();
        let mut v: Vec<_> = bufs.iter_mut().take(ranks).map(|(p, x, w, y)| ResidualNorm { partial: p.as_view(), residual: x.as_view_mut(), weight: w.as_view(), out: y.as_view_mut() }).collect();
        err(ar.all_reduce_add_rmsnorm(&mut v, hidden, eps).unwrap_err())
    };
    assert!(fused(2, 64, 64, 1, 1e-5).contains("1 ranks' buffers for a group of 2"));
    assert!(fused(2, 60, 60, 2, 1e-5).contains("hidden = 60"));
    assert!(fused(1, 16392, 16392, 2, 1e-5).contains("hidden = 16392"));
    assert!(fused(2, 64, 56, 2, 1e-5).contains("rank 0's weight holds 56 elements, not 64"));
    assert!(fused(2, 64, 64, 2, f32::NAN).contains("finite"));
    // 2 ranks x 4096 rows x 128 bf16 = 2 MiB: more than a staging half of 1 MiB.
    let e = fused(4096, 128, 128, 2, 1e-5);
    assert!(e.contains("more than a staging half"), "{e}");
    ar.check().unwrap();
}

#[test]
fn every_step_agrees_across_real_gpus() {
    let Some(_gpu) = gpu_or_skip("every_step_agrees_across_real_gpus") else { return };
    let n_gpus = CudaContext::device_count().unwrap() as usize;
    let ar = AllReduce::new(Group::new(&(0..n_gpus.min(8)).collect::<Vec<_>>()).unwrap(), AllReduceOptions::default()).unwrap();
    let mut rng = rand::rngs::StdRng::from_os_rng();
    let mut ran = vec![];
    for algo in Algo::ALL {
        if let Some(why) = ar.unavailable(algo) {
            report_skip(&format!("every_step_agrees_across_real_gpus ({})", algo.name()), &why);
            continue;
        }
        for n in [8, 8 * 1001, 8 * 100_000] {
            check_once::<bf16>(&ar, algo, n, &mut rng);
        }
        check_once::<f32>(&ar, algo, 4 * 999, &mut rng);
        ran.push(algo);
    }
    if n_gpus >= 2 && ar.group().no_peer_access().is_none() {
        assert!(ran.contains(&Algo::OneShot) && ran.contains(&Algo::TwoShot));
    }
    let _: &Gpu = ar.group().rank(0);
}

/// The all-reduce fused with the residual add and RMSNorm across real GPUs (NVLink peer memory, PDL across
/// devices): every rank's residual equals the host's rounding of `x + round(Σ partial)` exactly, its
/// normed rows are within one bf16 step of an f64 reference, every rank holds the same bits, the partials
/// are untouched and the output is fully written; calls alternate with the one-shot and two-shot steps,
/// which share the staging halves and the epoch. Skipped with fewer than two GPUs or without peer access.
#[test]
fn the_fused_norm_agrees_across_real_gpus() {
    let Some(_gpu) = gpu_or_skip("the_fused_norm_agrees_across_real_gpus") else { return };
    let n_gpus = CudaContext::device_count().unwrap() as usize;
    let skip = |why: &str| {
        report_skip("the_fused_norm_agrees_across_real_gpus", &why);
    };
    if n_gpus < 2 {
        return skip("fewer than two GPUs");
    }
    let ar = AllReduce::new(Group::new(&(0..n_gpus.min(8)).collect::<Vec<_>>()).unwrap(), AllReduceOptions::default()).unwrap();
    if let Some(why) = ar.group().no_peer_access() {
        return skip(why);
    }
    let g = ar.group();
    let w = g.world();
    let mut rng = rand::rngs::StdRng::from_os_rng();
    let b = |x: f32| bf16::from_f32(x);
    for (rows, hidden) in [(1usize, 4096usize), (32, 8192), (70, 1000)] {
        let n = rows * hidden;
        let x: Vec<bf16> = (0..n).map(|_| b(rng.random_range(-2.0..2.0))).collect();
        let wt: Vec<bf16> = (0..hidden).map(|_| b(rng.random_range(-1.5..1.5))).collect();
        for call in 0..3 {
            let parts: Vec<Vec<bf16>> = (0..w).map(|_| (0..n).map(|_| b(rng.random_range(-1.0..1.0))).collect()).collect();
            let mut dp: Vec<_> = g.ranks().iter().zip(&parts).map(|(r, p)| r.upload(p).unwrap()).collect();
            let mut dx: Vec<_> = g.ranks().iter().map(|r| r.upload(&x).unwrap()).collect();
            let dw: Vec<_> = g.ranks().iter().map(|r| r.upload(&wt).unwrap()).collect();
            let mut dy: Vec<_> = g.ranks().iter().map(|r| r.upload(&vec![bf16::NAN; n]).unwrap()).collect();
            let mut v: Vec<_> = dp.iter().zip(dx.iter_mut()).zip(&dw).zip(dy.iter_mut())
                .map(|(((p, xx), ww), yy)| ResidualNorm { partial: p.as_view(), residual: xx.as_view_mut(), weight: ww.as_view(), out: yy.as_view_mut() }).collect();
            ar.all_reduce_add_rmsnorm(&mut v, hidden, 1e-5).unwrap();
            drop(v);
            // A plain all-reduce between fused calls, on the same staging and epochs.
            let algo = if call % 2 == 0 { Algo::OneShot } else { Algo::TwoShot };
            ar.all_reduce_in_place_with(algo, &mut dp.iter_mut().collect::<Vec<_>>()).unwrap();
            ar.check().unwrap();
            // Host reference: the sum in f32 in rank order, rounded; the residual add rounded; the norm in f64.
            let h: Vec<bf16> = (0..n).map(|i| {
                let d = parts.iter().fold(-0.0f32, |acc, p| acc + p[i].to_f32());
                b(x[i].to_f32() + b(d).to_f32())
            }).collect();
            let mut y0: Option<Vec<bf16>> = None;
            for (r, rank) in g.ranks().iter().enumerate() {
                assert!(rank.download(&dx[r]).unwrap() == h, "rows {rows} hidden {hidden} call {call}: rank {r}'s residual differs from the host's rounding");
                let y = rank.download(&dy[r]).unwrap();
                assert!(y.iter().all(|v| !v.is_nan()), "rows {rows} hidden {hidden}: rank {r}'s output not fully written");
                for row in 0..rows {
                    let hr = &h[row * hidden..][..hidden];
                    let inv = 1.0 / (hr.iter().map(|v| v.to_f64() * v.to_f64()).sum::<f64>() / hidden as f64 + 1e-5).sqrt();
                    let far = (0..hidden).filter(|&c| {
                        let want = b(wt[c].to_f32() * b((hr[c].to_f64() * inv) as f32).to_f32()).to_f32();
                        (y[row * hidden + c].to_f32() - want).abs() > 1e-6_f32.max(want.abs() / 128.0)
                    }).count();
                    assert!(far * 1000 <= hidden, "rows {rows} hidden {hidden} row {row}: rank {r}, {far} elements more than one bf16 step off");
                }
                match &y0 {
                    None => y0 = Some(y),
                    Some(y0) => assert!(*y0 == y, "rows {rows} hidden {hidden}: rank {r}'s output differs from rank 0's"),
                }
            }
            // The one-shot or two-shot call after the fused one summed the partials the fused call left as they were.
            for (r, rank) in g.ranks().iter().enumerate() {
                let got = rank.download(&dp[r]).unwrap();
                let want: Vec<bf16> = (0..n).map(|i| b(parts.iter().fold(-0.0f32, |acc, p| acc + p[i].to_f32()))).collect();
                assert!(got == want, "rows {rows} call {call}: rank {r}'s partials after the plain all-reduce");
            }
        }
    }
}

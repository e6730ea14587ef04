//! What the embedded PTX must hold: every kernel with a descriptor (`kernel_lab_bench::steps`) and nothing
//! else, each with the launch bounds and the instructions its descriptor declares; shared accesses as
//! `ld.shared`/`st.shared` (never generic), barriers never predicated, no local memory, no panic path.
//! Runs anywhere (no GPU, no CUDA toolkit).
use std::collections::BTreeSet;

use kernel_lab_bench::{
    runtime::ptx,
    steps::{self, Family, LaunchBounds, Target},
};

fn body(target: Target, name: &str) -> &'static str {
    ptx::entry_body(ptx::module_of(target, name), name).unwrap_or_else(|| panic!("{name} missing from the {} PTX", target.name()))
}

fn instructions(body: &str) -> impl Iterator<Item = &str> {
    body.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('.') && !l.ends_with(':'))
}

#[test]
fn ptx_targets_are_as_built() {
    assert!(Target::Sm80.ptx().contains(".target sm_80"));
    assert!(Target::Sm90a.ptx().contains(".target sm_90a"));
    // PTX 8.0 (a CUDA 12.0 driver) for sm_80; 8.1 for the Hopper module (kernel-lab/build.rs: `red.global.add.v4.f32`).
    // `Target::min_driver` states the same, and `Gpu::cannot_run` refuses a module the driver cannot JIT.
    for (t, version, driver) in [(Target::Sm80, ".version 8.0", 12000), (Target::Sm90a, ".version 8.1", 12010)] {
        assert!(t.ptx().contains(version), "{} PTX is not {version}", t.name());
        assert_eq!(t.min_driver(), driver, "{}", t.name());
    }
    assert_eq!(kernel_lab_bench::runtime::gpu::cuda_version(Target::Sm90a.min_driver()), "12.1");
    assert_eq!(kernel_lab_bench::runtime::gpu::cuda_version(13000), "13.0");
}

#[test]
fn each_kernel_is_in_its_familys_module_and_nowhere_else() {
    use kernel_lab_bench::runtime::ptx::Module;
    for t in Target::ALL {
        for m in Module::ALL {
            let ptx = m.ptx(t);
            assert!(t == Target::Sm80 && m == Module::Fp8 || ptx.contains(&format!(".target {}", t.name())), "{} {}: no PTX", m.name(), t.name());
            for name in ptx::entries(ptx) {
                let k = steps::find(name).unwrap_or_else(|| panic!("{name} in the {} module has no descriptor", m.name()));
                assert_eq!(Module::of(k.family), Some(m), "{name} ({:?}) is in the {} module", k.family, m.name());
            }
        }
    }
    // Every registered kernel is in exactly one module of each target it is built for.
    let listed: Vec<(Target, BTreeSet<&str>)> = Target::ALL.iter()
        .flat_map(|&t| Module::ALL.map(|m| (t, ptx::entries(m.ptx(t)).into_iter().collect::<BTreeSet<_>>()))).collect();
    for k in steps::all() {
        for t in Target::ALL.into_iter().filter(|&t| t == Target::Sm90a || k.target == Target::Sm80) {
            let n = listed.iter().filter(|(lt, names)| *lt == t && names.contains(k.name)).count();
            assert_eq!(n, 1, "{} is in {n} {} modules", k.name, t.name());
        }
    }
}

#[test]
fn descriptors_and_ptx_list_the_same_kernels() {
    let sm80: BTreeSet<&str> = ptx::entries(Target::Sm80.ptx()).into_iter().collect();
    let sm90a: BTreeSet<&str> = ptx::entries(Target::Sm90a.ptx()).into_iter().collect();
    let reg80: BTreeSet<&str> = steps::all().filter(|k| k.target == Target::Sm80).map(|k| k.name).collect();
    let reg_all: BTreeSet<&str> = steps::all().map(|k| k.name).collect();
    let no_descriptor: Vec<_> = sm90a.difference(&reg_all).collect();
    let no_kernel: Vec<_> = reg_all.difference(&sm90a).collect();
    assert!(no_descriptor.is_empty(), "kernels in the PTX without a descriptor in kernel_lab_bench::steps: {no_descriptor:?}");
    assert!(no_kernel.is_empty(), "descriptors whose kernel is not in the PTX (file missing, or not compiled for sm_90a?): {no_kernel:?}");
    assert_eq!(sm80, reg80, "sm_80 PTX entries (left) differ from the sm_80 descriptors (right)");
}

/// The launch bounds `ptx-builder`'s `nvptx-link` wrote between the entry's parameter list and its body.
fn launch_bounds_in_ptx(target: Target, name: &str) -> Option<LaunchBounds> {
    let head = body(target, name).split('{').next().unwrap_or("");
    let num = |directive: &str| head.lines().map(str::trim).find_map(|l| l.strip_prefix(directive))
        .map(|v| v.split(',').next().unwrap_or("").trim().parse::<u32>().unwrap_or_else(|_| panic!("{name}: bad {directive} `{v}`")));
    let max_threads = num(".maxntid")?;
    Some(LaunchBounds { max_threads, min_blocks_per_sm: num(".minnctapersm") })
}

#[test]
fn launch_bounds_in_the_ptx_are_the_descriptors() {
    for k in steps::all() {
        for t in Target::ALL.into_iter().filter(|&t| t == Target::Sm90a || k.target == Target::Sm80) {
            assert_eq!(launch_bounds_in_ptx(t, k.name), k.launch_bounds,
                       "{} ({}): launch bounds in the PTX (left; from its file's launch_bounds!) differ from its descriptor (right)", k.name, t.name());
        }
    }
}

#[test]
fn each_kernel_holds_what_its_descriptor_says() {
    for k in steps::all() {
        let b = body(k.target, k.name);
        for needle in k.ptx.has {
            assert!(b.contains(needle), "{} ({}) lacks `{needle}`", k.name, k.qualified());
        }
        for needle in k.ptx.lacks {
            assert!(!b.contains(needle), "{} ({}) must not contain `{needle}`", k.name, k.qualified());
        }
        let count = |prefix: &str| instructions(b).filter(|l| l.starts_with(prefix)).count();
        for &(prefix, n) in k.ptx.count {
            assert_eq!(count(prefix), n, "{}: instructions starting with `{prefix}`", k.name);
        }
        for &(prefix, n) in k.ptx.at_least {
            assert!(count(prefix) >= n, "{}: at least {n} instructions starting with `{prefix}`, found {}", k.name, count(prefix));
        }
    }
}

#[test]
fn shared_and_global_accesses_name_their_state_space() {
    for k in steps::all() {
        for l in instructions(body(k.target, k.name)) {
            let op = l.split_whitespace().next().unwrap_or("");
            if op.starts_with("ld.") || op.starts_with("st.") {
                // The state space follows the memory-model qualifiers (`st.release.sys.global`).
                let qualifiers = ["relaxed", "release", "acquire", "volatile", "weak", "sys", "gpu", "cta", "cluster"];
                let space = op.split('.').skip(1).find(|q| !qualifiers.contains(q)).unwrap_or("");
                let local_ok = space == "local" && prints(body(k.target, k.name));
                assert!(local_ok || ["shared", "shared::cluster", "global", "param"].contains(&space),
                        "{}: generic memory access `{l}` (shared data must use ld/st.shared)", k.name);
            }
        }
    }
}

#[test]
fn barriers_are_never_predicated() {
    // How many each reduce step has is in its descriptor (`count`); here: none may be conditional.
    for k in steps::all() {
        let bars: Vec<&str> = instructions(body(k.target, k.name)).filter(|l| l.contains("bar.sync")).collect();
        assert!(bars.iter().all(|l| !l.starts_with('@')), "{}: a barrier is predicated: {bars:?}", k.name);
    }
}

#[test]
fn hopper_only_instructions_stay_out_of_the_sm80_module() {
    for needle in ["stmatrix", "wgmma", "setmaxnreg", "cp.async.bulk"] {
        assert!(!Target::Sm80.ptx().contains(needle), "{needle} must not reach the sm_80 module");
    }
}

#[test]
fn v9s_lesson_is_an_order_of_instructions() {
    let b = |name: &str| body(Target::Sm80, name);
    // v9's lesson is an order: after a stage barrier, the next stage's first fragments are loaded and a
    // full k16 step of MMAs (on fragments loaded before the barrier) runs before the stage refill is
    // issued. v8 issues its copies right after the barrier and loads before any MMA.
    let mmas_over_prefetch = |v: &str| {
        let ins: Vec<&str> = instructions(b(v)).collect();
        ins.iter().enumerate().filter(|(_, l)| l.starts_with("bar.sync")).any(|(i, _)| {
            let after = &ins[i + 1..];
            let ld = after.iter().take_while(|l| l.starts_with("ldmatrix") || !l.starts_with("mma.sync")).filter(|l| l.starts_with("ldmatrix")).count();
            let rest = &after[after.iter().position(|l| l.starts_with("mma.sync")).unwrap_or(after.len())..];
            let mma = rest.iter().take_while(|l| !l.starts_with("cp.async.cg") && !l.starts_with("bar.sync") && !l.starts_with("ldmatrix")).filter(|l| l.starts_with("mma.sync")).count();
            ld == 8 && mma == 32 && rest.iter().skip(mma).find(|l| l.starts_with("cp.async.cg") || l.starts_with("bar.sync")).is_some_and(|l| l.starts_with("cp.async.cg"))
        })
    };
    use steps::hgemm::{V8, V9, V9S4, V9P, V9H, V10};
    assert!(mmas_over_prefetch(V9.kernel.name), "v9: barrier, 8 ldmatrix of the next stage, 32 mma, then the refill");
    assert!([V9S4, V9P, V9H, V10].iter().all(|v| mmas_over_prefetch(v.kernel.name)), "v9s4, v9p, v9h, v10: as v9");
    assert!(!mmas_over_prefetch(V8.kernel.name), "v8 has no cross-stage prefetch");
}

#[test]
fn no_kernel_can_panic() {
    // A reachable panic (bounds check, division by zero, overflow) shows up as a call into
    // core::panicking; every index and divisor in the kernels is meant to be provably fine.
    for t in Target::ALL {
        for m in ptx::Module::ALL {
            for name in ptx::entries(m.ptx(t)) {
                let b = ptx::entry_body(m.ptx(t), name).unwrap();
                assert!(!b.contains("panicking"), "{name} ({}) has a panic path", t.name());
            }
        }
    }
}

/// Whether a kernel body calls `vprintf` (`printf!`): its argument buffer lives in local memory, as
/// CUDA C++'s does (vprintf takes its address) — the one exemption from the two tests below.
fn prints(body: &str) -> bool {
    body.contains("vprintf")
}

#[test]
fn no_kernel_uses_local_memory() {
    for t in Target::ALL {
        for m in ptx::Module::ALL {
            for name in ptx::entries(m.ptx(t)) {
                let b = ptx::entry_body(m.ptx(t), name).unwrap();
                assert!(prints(b) || (!b.contains("__local_depot") && !b.contains(".local")), "{name} ({}) uses local memory", t.name());
            }
        }
    }
}

#[test]
fn every_family_has_kernels() {
    // `gemm` is the entry point over the hgemm steps: no kernels of its own.
    for f in Family::ALL.into_iter().filter(|&f| f != Family::Gemm) {
        assert!(steps::family(f).next().is_some(), "family {} is empty", f.name());
    }
}

#[test]
fn hopper_round_trip_holds_tma_mbarrier_and_wgmma_with_pinned_accumulators() {
    let b = body(Target::Sm90a, "selftest_wgmma_tma");
    assert!(b.matches("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16").count() >= 4, "at least one wgmma per K step of 16");
    assert!(b.contains(", p, 1, 1, 0, 0;") && b.contains(", p, 1, 1, 0, 1;"), "both the K-major and the MN-major (trans-b) wgmma");
    // The 4 wgmmas must accumulate in the same 32 registers (no copies between them, which would make
    // ptxas serialize the pipeline): each `{…}` accumulator list after the instruction is identical.
    let lists: Vec<&str> = b.split("m64n64k16.f32.f16.f16").skip(1).map(|s| s.split('}').next().unwrap_or("")).collect();
    assert!(lists.windows(2).all(|w| w[0] == w[1]), "accumulator registers differ between wgmmas: {lists:?}");
    assert!(!Target::Sm80.ptx().contains("wgmma"), "wgmma must stay out of the sm_80 module");
}

#[test]
fn hopper_steps_are_tma_and_wgmma_only() {
    // h1 issues its 3 loads in the loop; h2 in the prologue and in the loop.
    use steps::hgemm::{H1, H2, H3, H4, H5, H6};
    for (step, loads) in [(H1, 3), (H2, 6), (H3, 3), (H4, 5), (H5, 5), (H6, 5)] {
        let name = step.kernel.name;
        let b = body(Target::Sm90a, name);
        // LLVM may unroll a loop that issues loads (h3's producer): a multiple of the loads per tile.
        let per_tile = if matches!(name, "hgemm_tma_v4" | "hgemm_tma_v5" | "hgemm_tma_v6") { 5 } else { 3 };
        let issued = b.matches("cp.async.bulk.tensor.2d.shared::cluster.global").count();
        assert!(issued >= loads && issued % per_tile == 0, "{name}: A and the B boxes per issue site, got {issued}");
        // h1/h2: one warpgroup, 2×2 m64n64k16 × 4 K steps; h3: each consumer 1×2 m64n64k16 × 4 K steps;
        // h4–h6: each consumer one m64n256k16 (128 accumulators) × 4 K steps.
        let (shape, wgmmas, sets) = match name {
            "hgemm_tma_v3" => ("m64n64k16", 8, 2),
            "hgemm_tma_v4" | "hgemm_tma_v5" | "hgemm_tma_v6" => ("m64n256k16", 4, 1),
            _ => ("m64n64k16", 16, 4),
        };
        assert_eq!(b.matches(", p, 1, 1, 0, 1;").count(), wgmmas, "{name}: {shape} per K tile, B MN-major");
        assert_eq!(b.matches(&format!("wgmma.mma_async.sync.aligned.{shape}.f32.f16.f16")).count(), wgmmas, "{name}: all wgmmas {shape}");
        let lists: std::collections::BTreeSet<&str> =
            b.split(&format!("{shape}.f32.f16.f16")).skip(1).map(|s| s.split('}').next().unwrap_or("")).collect();
        assert_eq!(lists.len(), sets, "{name}: the wgmmas must use exactly {sets} accumulator sets (no copies)");
        // No trap anywhere and no branch between the wgmmas of a K tile: a trap branch in the K loop (the
        // descriptors' run-time checks, once) made ptxas serialize every wgmma (C7518, 0.8× on h4/h6);
        // descriptors are now built from compile-time-checked constants (hgemm/tma.rs).
        let k_loop = b.split("wgmma.fence.sync.aligned").nth(1).and_then(|s| s.split("wgmma.commit_group").next()).unwrap_or("");
        assert!(!k_loop.contains("bra"), "{name}: a branch between the wgmmas of a K tile");
        // Only h6 writes shared memory itself (its C staging tiles, for the TMA store).
        assert_eq!(b.contains("st.shared"), name == "hgemm_tma_v6", "{name}: st.shared only in the TMA-store epilogue");
        assert!(!Target::Sm80.ptx().contains(name), "{name} must stay out of the sm_80 module");
    }
    // setmaxnreg needs launch bounds (else ptxas ignores it): h3–h6 declare `.maxntid 384`.
    for step in [H3, H4, H5, H6] {
        assert_eq!(launch_bounds_in_ptx(Target::Sm90a, step.kernel.name).map(|b| b.max_threads), Some(384), "{}", step.kernel.name);
    }
}

/// The decode step's kernels are PDL-aware in their sm_90a build (`kernels-gpu/src/util/pdl.rs`): the
/// runtime then loads that build on Hopper and launches it with programmatic dependent launch. Before
/// `griddepcontrol.wait` (in the text, where the prologue is) nothing touches global memory but d2's
/// weight copies and w1's weight loads, each under its flag, and ad3's length and older keys, and the wait comes before `launch_dependents` (one grid of look-ahead;
/// d2's after its K loop). Their sm_80 build
/// holds no `griddepcontrol` (sm_80 has none).
#[test]
fn the_decode_steps_sm90a_builds_wait_on_the_previous_grid_first() {
    let pdl = ["hgemm_decode_v2", "hgemm_decode_v2_bf16", "hgemm_decode_v2_m64", "hgemm_decode_v2_m64_bf16", "hgemm_decode_v2_m128",
               "attn_decode_d128_bf16", "attn_decode_d64_f16", "attn_decode2_d128_bf16", "attn_decode2_d256_f16", "attn_decode3_d128_bf16", "attn_decode3_d64_f16", "attn_kv_append", "fp8_w1_t8_bf16",
               "fp8_w1_t32_f16", "fp8_w5_t8_bf16", "fp8_w5_t32_f16"];
    for name in pdl {
        let k = steps::find(name).unwrap_or_else(|| panic!("{name}: no descriptor"));
        let b = body(Target::Sm90a, name);
        let ins: Vec<&str> = instructions(b).collect();
        let wait = ins.iter().position(|l| l.starts_with("griddepcontrol.wait")).unwrap_or_else(|| panic!("{name}: no griddepcontrol.wait"));
        let release = ins.iter().position(|l| l.starts_with("griddepcontrol.launch_dependents")).unwrap_or_else(|| panic!("{name}: no launch_dependents"));
        assert!(wait < release, "{name}: launch_dependents before the wait");
        // d2 (session 63) copies its first weight stages before the wait where its `flags` parameter (the
        // tenth, `_param_9`) says B is not the previous grid's output (`BReady::AtLaunch`): `cp.async` into
        // shared memory, and only after that parameter is read.
        // w1 (session 64) likewise loads its first two steps' weights and block scales into registers
        // (`ld.global.nc`) under its `flags` (the eleventh parameter).
        // Decode attention's ad3 (session 70) reads the length, the page table and its first tiles' older
        // keys before the wait (its contract: `CacheReady::AtLaunch`); ad1 and ad2 nothing.
        let (b_early, w_early, a_early) = (name.starts_with("hgemm_decode_v2"), name.starts_with("fp8_w1") || name.starts_with("fp8_w5"), name.starts_with("attn_decode3"));
        let flags_param = if w_early { "_param_10" } else { "_param_9" };
        let flags_read = ins[..wait].iter().position(|l| l.starts_with("ld.param") && l.contains(flags_param));
        for (i, l) in ins[..wait].iter().enumerate() {
            // A predicated instruction (`@%p1 ld.global…`) without its guard.
            let l = l.strip_prefix('@').map_or(*l, |r| r.split_once(char::is_whitespace).map_or(r, |(_, op)| op.trim_start()));
            let a_read = ["cp.async.cg.shared.global", "ld.global.nc", "ld.global.b32", "cp.async.commit_group"].iter().any(|p| l.starts_with(p));
            if a_early && a_read {
                continue;
            }
            if (b_early && l.starts_with("cp.async.cg.shared.global")) || (w_early && l.starts_with("ld.global.nc")) {
                assert!(flags_read.is_some_and(|f| f < i), "{name}: `{l}` before griddepcontrol.wait and before its flags are read");
                continue;
            }
            let touches = ["ld.global", "st.global", "atom.", "red.", "cp.async", "prefetch", "ld.volatile", "ld.relaxed", "ld.acquire", "ld.u", "ld.b", "st.u", "st.b"]
                .iter().any(|p| l.starts_with(p));
            assert!(!touches, "{name}: `{l}` before griddepcontrol.wait");
        }
        // ad3's point: its first tiles' copies are issued before the wait — but not Q's (the grid before
        // writes Q): Q's pointer (the first parameter) is not even read before it. (A proxy: a compiler that
        // hoisted that parameter's load alone would fail this without a race; look at the PTX then.)
        if a_early {
            assert!(ins[..wait].iter().any(|l| l.contains("cp.async.cg.shared.global")), "{name}: no K/V copy before griddepcontrol.wait");
            assert!(!ins[..wait].iter().any(|l| l.starts_with("ld.param") && l.contains(&format!("{name}_param_0]"))), "{name}: Q's pointer read before griddepcontrol.wait");
        }
        // The next grid is released only after the K loop's last copies (d2: after `cp.async.wait_group 0`).
        if b_early {
            assert!(ins[..release].iter().any(|l| l.starts_with("cp.async.wait_group 0")), "{name}: the next grid released before the K loop ended");
        }
        // w1: after its K loop, i.e. after every `mma` of it.
        if w_early {
            assert!(!ins[release..].iter().any(|l| l.starts_with("mma.sync")), "{name}: the next grid released before the K loop ended");
        }
        if k.target == Target::Sm80 {
            assert!(!body(Target::Sm80, name).contains("griddepcontrol"), "{name}: griddepcontrol in the sm_80 build");
        }
    }
}

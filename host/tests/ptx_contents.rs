//! What the embedded PTX must hold: every registered kernel and nothing else, each step's instructions,
//! shared accesses as `ld.shared`/`st.shared` (never generic), barriers neither duplicated nor predicated,
//! no local memory. Runs anywhere (no GPU, no CUDA toolkit).
use std::collections::BTreeSet;

use kernel_lab::{ptx::{self, Target}, registry::{self, KERNELS}};

fn body(target: Target, name: &str) -> &'static str {
    ptx::entry_body(target.ptx(), name).unwrap_or_else(|| panic!("{name} missing from the {} PTX", target.name()))
}

fn instructions(body: &str) -> impl Iterator<Item = &str> {
    body.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('.') && !l.ends_with(':'))
}

#[test]
fn ptx_targets_are_as_built() {
    assert!(Target::Sm80.ptx().contains(".target sm_80"));
    assert!(Target::Sm90a.ptx().contains(".target sm_90a"));
    for t in Target::ALL {
        assert!(t.ptx().contains(".version 8.0"), "{} PTX is not ISA 8.0", t.name());
    }
}

#[test]
fn registry_and_ptx_list_the_same_kernels() {
    let sm80: BTreeSet<&str> = ptx::entries(ptx::SM80).into_iter().collect();
    let sm90a: BTreeSet<&str> = ptx::entries(ptx::SM90A).into_iter().collect();
    let reg80: BTreeSet<&str> = KERNELS.iter().filter(|k| k.target == Target::Sm80).map(|k| k.name).collect();
    let reg_all: BTreeSet<&str> = KERNELS.iter().map(|k| k.name).collect();
    assert_eq!(sm80, reg80, "sm_80 PTX entries (left) differ from the registry's sm_80 kernels (right)");
    assert_eq!(sm90a, reg_all, "sm_90a PTX entries (left) differ from all registered kernels (right)");
}

#[test]
fn each_reduce_step_holds_the_instructions_it_is_about() {
    let has = |name: &str, needle: &str| body(Target::Sm80, name).contains(needle);
    for v in ["reduce_v0", "reduce_v1", "reduce_v2", "reduce_v3", "reduce_v4"] {
        assert!(has(v, "ld.shared.") && has(v, "st.shared."), "{v}: tree must use ld/st.shared");
        assert!(!has(v, "ld.global.nc.v4"), "{v}: no vector loads before v5");
    }
    assert!(!has("reduce_v3", "shfl.sync"), "v3 has no shuffles");
    assert!(has("reduce_v4", "shfl.sync.bfly.b32"), "v4 reduces the last warp with shfl.sync");
    assert!(has("reduce_v5", "ld.global.nc.v4.f32"), "v5 loads 128 bits at a time");
    assert!(has("reduce_v6", "ld.global.nc.L1::no_allocate.v4.f32"), "v6 streams with no L1 allocation");
    assert!(has("reduce_v6", "atom.acq_rel.gpu.global.add.u32"), "v6 takes a ticket with an acq_rel atomic");
    let v6_loads = instructions(body(Target::Sm80, "reduce_v6")).filter(|l| l.starts_with("ld.global.nc.L1::no_allocate.v4")).count();
    assert!(v6_loads >= 5, "v6 unrolls four vector loads plus the remainder loop, found {v6_loads}");
}

#[test]
fn shared_and_global_accesses_name_their_state_space() {
    for k in KERNELS {
        for l in instructions(body(k.target, k.name)) {
            let op = l.split_whitespace().next().unwrap_or("");
            if op.starts_with("ld.") || op.starts_with("st.") {
                let space = op.split('.').nth(1).unwrap_or("");
                assert!(["shared", "global", "param", "relaxed"].contains(&space),
                        "{}: generic memory access `{l}` (shared data must use ld/st.shared)", k.name);
            }
        }
    }
}

#[test]
fn barriers_are_neither_duplicated_nor_predicated() {
    // Expected `bar.sync` per kernel: v0-v3 one after the load plus one per tree level (log2 256 = 8);
    // v4 stops the tree at 64 (levels 128, 64); v5 `block_sum_f32` has 2; v6 2 + 1 + 2.
    let expect = [("reduce_v0", 9), ("reduce_v1", 9), ("reduce_v2", 9), ("reduce_v3", 9), ("reduce_v4", 3),
                  ("reduce_v5", 2), ("reduce_v6", 5)];
    for (name, n) in expect {
        let b = body(Target::Sm80, name);
        let bars: Vec<&str> = instructions(b).filter(|l| l.contains("bar.sync")).collect();
        assert_eq!(bars.len(), n, "{name}: expected {n} bar.sync, found {bars:?}");
        assert!(bars.iter().all(|l| !l.starts_with('@')), "{name}: a barrier is predicated: {bars:?}");
    }
}

#[test]
fn primitives_compile_to_their_instructions() {
    let f32mma = body(Target::Sm80, "selftest_mma_f32_f16");
    for needle in ["cp.async.cg.shared.global", "cp.async.commit_group", "cp.async.wait_group 0",
                   "ldmatrix.sync.aligned.m8n8.x4.shared.b16", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                   "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"] {
        assert!(f32mma.contains(needle), "selftest_mma_f32_f16 lacks {needle}");
    }
    let sw = body(Target::Sm80, "selftest_mma_swizzled");
    assert!(sw.contains("xor.b32") && sw.contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16"),
            "Swizzle<3,1,3> compiles to plain integer ops in front of ldmatrix");
    assert!(!f32mma.contains("xor.b32"), "the unswizzled tile needs no xor");
    assert!(body(Target::Sm80, "selftest_mma_f16_f16").contains("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"));
    let widths = body(Target::Sm80, "selftest_shared_widths");
    for needle in ["st.shared.v4.u32", "ld.shared.u32", "ld.shared.v2.u32", "ld.shared.v4.u32", "ld.shared.b32"] {
        assert!(widths.contains(needle), "selftest_shared_widths lacks {needle}");
    }
    let sm90 = body(Target::Sm90a, "selftest_stmatrix");
    assert!(sm90.contains("stmatrix.sync.aligned.m8n8.x4.shared.b16") && sm90.contains("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
    assert!(!ptx::SM80.contains("stmatrix"), "stmatrix must not reach the sm_80 module");
}

#[test]
fn each_sgemm_step_holds_the_instructions_it_is_about() {
    let b = |name: &str| body(Target::Sm80, name);
    let count = |name: &str, needle: &str| instructions(b(name)).filter(|l| l.starts_with(needle)).count();
    assert_eq!(count("sgemm_v0", "ld.shared"), 0, "v0 reads global memory only");
    assert!(count("sgemm_v1", "ld.shared") > 0, "v1 stages tiles in shared memory");
    for v in ["sgemm_v2", "sgemm_v3", "sgemm_v4"] {
        assert!(count(v, "fma.rn.f32") >= 64, "{v}: the 8x8 register tile is 64 FMAs per k");
        assert_eq!(count(v, "ld.shared.v4"), 0, "{v}: scalar shared loads before v5");
    }
    for v in ["sgemm_v5", "sgemm_v6", "sgemm_v7", "sgemm_v8", "sgemm_v9", "sgemm_v11"] {
        assert!(count(v, "ld.global.nc.v4.f32") >= 2, "{v}: 128-bit global loads of A and B");
        assert!(count(v, "ld.shared.v4") >= 4, "{v}: four 128-bit fragment loads per k");
        assert!(count(v, "st.global.v4.f32") >= 4, "{v}: 128-bit stores of C");
        assert!(count(v, "st.shared.v4") >= 1, "{v}: B stored with 128-bit stores");
    }
    assert!(count("sgemm_v10", "cp.async.cg.shared.global") >= 4 && count("sgemm_v10", "cp.async.wait_group") >= 2, "v10 pipelines with cp.async");
    for v in ["sgemm_v7", "sgemm_v8", "sgemm_v9", "sgemm_v10", "sgemm_v11"] {
        assert!(b(v).contains(".maxntid 256, 1, 1") && b(v).contains(".minnctapersm 2"), "{v}: launch bounds injected by nvptx-link");
    }
    let bars = |v: &str| instructions(b(v)).filter(|l| l.contains("bar.sync")).count();
    assert_eq!(bars("sgemm_v5"), 2, "v5: a barrier before and after the compute of each tile");
    assert_eq!(bars("sgemm_v6"), 2, "v6: one barrier after the first stage, one per step");
}

#[test]
fn each_warp_ladder_step_holds_its_instructions() {
    let b = |name: &str| body(Target::Sm80, name);
    assert!(b("hgemm_warp_v1").contains("wmma.load.a.sync.aligned.row.m16n16k16.global.f16") && !b("hgemm_warp_v1").contains(".shared"));
    for v in ["hgemm_warp_v2", "hgemm_warp_v3"] {
        assert!(b(v).contains("wmma.load.b.sync.aligned.row.m16n16k16.shared.f16") && b(v).contains("wmma.mma.sync.aligned.row.row.m16n16k16.f16.f16"));
        assert!(b(v).contains("st.shared.v4.u32"), "{v}: 128-bit tile stores");
    }
    for v in ["hgemm_warp_v4", "hgemm_warp_v5"] {
        assert!(b(v).contains("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16") && b(v).contains("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"));
        assert!(b(v).contains("shfl.sync.idx.b32"), "{v}: stmatrix emulated with shuffles");
    }
    assert!(b("hgemm_warp_v5").contains("xor.b32"), "v5 swizzles");
    assert!(body(Target::Sm90a, "hgemm_warp_v4_stmatrix").contains("stmatrix.sync.aligned.m8n8.x4.shared.b16"));
}

#[test]
fn each_hgemm_step_holds_its_instructions() {
    let b = |name: &str| body(Target::Sm80, name);
    assert!(b("hgemm_block_v1").contains("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32") && !b("hgemm_block_v1").contains(".shared"));
    for v in ["hgemm_block_v2", "hgemm_block_v3", "hgemm_block_v4", "hgemm_block_v5_s2", "hgemm_block_v5", "hgemm_block_v5_s4", "hgemm_block_v6", "hgemm_block_v7", "hgemm_block_v8", "hgemm_block_v9", "hgemm_block_v9_s4", "hgemm_block_v9_padded", "hgemm_block_v9_f16acc", "hgemm_block_v10"] {
        let n = instructions(b(v)).filter(|l| l.starts_with("mma.sync.aligned.m16n8k16")).count();
        let acc = if v == "hgemm_block_v9_f16acc" { "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16" } else { "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" };
        assert_eq!(instructions(b(v)).filter(|l| l.starts_with(acc)).count(), n, "{v}: every mma is {acc}");
        // v9 holds two loops: its own (interior blocks) and v8's (edge blocks).
        let want = match v { "hgemm_block_v7" | "hgemm_block_v8" => 128, "hgemm_block_v9" | "hgemm_block_v9_s4" | "hgemm_block_v9_padded" | "hgemm_block_v9_f16acc" | "hgemm_block_v10" => 256, _ => 64 };
        assert_eq!(n, want, "{v}: k16 steps × 4 × 8 mma per K tile, unrolled");
        assert!(b(v).contains("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"), "{v}: B fragments by ldmatrix.trans");
    }
    assert!(!b("hgemm_block_v2").contains("xor.b32") && !b("hgemm_block_v3").contains("xor.b32"));
    assert!(b("hgemm_block_v4").contains("xor.b32"), "v4 swizzles");
    assert!(b("hgemm_block_v5").contains("cp.async.cg.shared.global") && b("hgemm_block_v5").contains("cp.async.wait_group 1"));
    assert!(b("hgemm_block_v5_s2").contains("cp.async.wait_group 0") && b("hgemm_block_v5_s4").contains("cp.async.wait_group 2"));
    assert!(b("hgemm_block_v9").contains("cp.async.wait_group 1") && b("hgemm_block_v9_s4").contains("cp.async.wait_group 2"));
    assert!(b("hgemm_block_v8").contains("st.global.v4.u32") && !b("hgemm_block_v7").contains("st.global.v4.u32"), "v8 writes C with 128-bit stores");
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
    assert!(mmas_over_prefetch("hgemm_block_v9"), "v9: barrier, 8 ldmatrix of the next stage, 32 mma, then the refill");
    assert!(["hgemm_block_v9_s4", "hgemm_block_v9_padded", "hgemm_block_v9_f16acc", "hgemm_block_v10"].iter().all(|v| mmas_over_prefetch(v)), "v9s4, v9p, v9h, v10: as v9");
    assert!(!mmas_over_prefetch("hgemm_block_v8"), "v8 has no cross-stage prefetch");
}

#[test]
fn no_kernel_can_panic() {
    // A reachable panic (bounds check, division by zero, overflow) shows up as a call into
    // core::panicking; every index and divisor in the kernels is meant to be provably fine.
    for t in Target::ALL {
        for name in ptx::entries(t.ptx()) {
            let b = ptx::entry_body(t.ptx(), name).unwrap();
            assert!(!b.contains("panicking"), "{name} ({}) has a panic path", t.name());
        }
    }
}

#[test]
fn no_kernel_uses_local_memory() {
    for t in Target::ALL {
        assert!(!t.ptx().contains("__local_depot") && !t.ptx().contains(".local"), "{} PTX uses local memory", t.name());
    }
}

#[test]
fn every_family_has_kernels() {
    for f in registry::Family::ALL {
        assert!(registry::family(f).next().is_some(), "family {} is empty", f.name());
    }
}

#[test]
fn hopper_round_trip_holds_tma_mbarrier_and_wgmma_with_pinned_accumulators() {
    let b = body(Target::Sm90a, "selftest_wgmma_tma");
    for needle in ["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", "mbarrier.init.shared::cta.b64",
                   "mbarrier.arrive.expect_tx.shared::cta.b64", "mbarrier.try_wait.parity.shared::cta.b64", "fence.mbarrier_init",
                   "wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned", "wgmma.wait_group.sync.aligned 0",
                   ".shared .align 1024"] {
        assert!(b.contains(needle), "selftest_wgmma_tma lacks `{needle}`");
    }
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
    for (name, loads) in [("hgemm_tma_v1", 3), ("hgemm_tma_v2", 6), ("hgemm_tma_v3", 3), ("hgemm_tma_v4", 5), ("hgemm_tma_v5", 5), ("hgemm_tma_v6", 5)] {
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
        assert!(!b.contains("trap") && !k_loop.contains("bra"), "{name}: a trap, or a branch between the wgmmas of a K tile");
        for absent in ["ldmatrix", "ld.shared", "mma.sync", "cp.async.cg"] {
            assert!(!b.contains(absent), "{name} should not contain `{absent}`: the TMA and wgmma move all tile data");
        }
        // Only h6 writes shared memory itself (its C staging tiles, for the TMA store).
        assert_eq!(b.contains("st.shared"), name == "hgemm_tma_v6", "{name}: st.shared only in the TMA-store epilogue");
        assert!(!Target::Sm80.ptx().contains(name), "{name} must stay out of the sm_80 module");
    }
    let b = body(Target::Sm90a, "hgemm_tma_v3");
    for needle in ["setmaxnreg.dec.sync.aligned.u32 40", "setmaxnreg.inc.sync.aligned.u32 232", "mbarrier.arrive.shared::cta.b64"] {
        assert!(b.contains(needle), "hgemm_tma_v3 lacks `{needle}`");
    }
    let b6 = body(Target::Sm90a, "hgemm_tma_v6");
    for needle in ["cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "cp.async.bulk.commit_group", "cp.async.bulk.wait_group.read 0",
                   "cp.async.bulk.wait_group 0", "fence.proxy.async.shared::cta", ", 128;"] {
        assert!(b6.contains(needle), "hgemm_tma_v6 lacks `{needle}`");
    }
    assert!(b6.contains("bar.sync") && !b6.contains("st.global"), "hgemm_tma_v6: named warpgroup barriers; C only through the TMA");
    let entry = Target::Sm90a.ptx().split(".entry hgemm_tma_v3").nth(1).and_then(|s| s.split('{').next()).unwrap_or("");
    assert!(entry.contains(".maxntid 384, 1, 1"), "hgemm_tma_v3 needs .maxntid for setmaxnreg: {entry}");
}

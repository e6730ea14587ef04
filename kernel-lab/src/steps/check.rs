//! Device-side inputs and verification (`kernels-gpu/src/check/`): random fills, an f64 sum, error
//! norms of one output against another. Not a ladder: the families use them through
//! `runtime::device_check`.
use super::{Family, KernelInfo, PtxCheck, Target};

/// Threads per block of every check kernel (`kernels_gpu::check::BLOCK`).
pub const BLOCK: u32 = 256;

const fn check(name: &'static str, ptx: PtxCheck, about: &'static str) -> KernelInfo {
    KernelInfo { name, family: Family::Check, step: "-", target: Target::Sm80, block_threads: BLOCK, launch_bounds: None, dyn_smem_bytes: 0, about, ptx }
}

/// The sum and compare kernels end with a warp butterfly in f64 (two 32-bit shuffles per step) and
/// one relaxed reduction per warp.
const REDUCES: PtxCheck = PtxCheck { has: &["red.relaxed.gpu.global.add.f64", "shfl.sync.bfly.b32"], lacks: &["bar.sync"], count: &[], at_least: &[("shfl.sync.bfly.b32", 10)] };

/// Every check kernel.
pub const KERNELS: &[KernelInfo] = &[
    check("check_fill_f32", PtxCheck { lacks: &["ld.global"], ..PtxCheck::has(&["st.global.b32"]) }, "fills n f32 from layout::random (seed, index)"),
    check("check_fill_f16", PtxCheck::has(&["cvt.rn.f16x2.f32", "st.global.b16"]), "fills n f16 from layout::random"),
    check("check_fill_bf16", PtxCheck::has(&["cvt.rn.bf16x2.f32", "st.global.b16"]), "fills n bf16 from layout::random"),
    check("check_sum_f64", REDUCES, "Σ x of n f32, in f64"),
    check("check_compare_f32", PtxCheck { has: &["red.relaxed.gpu.global.add.u64"], ..REDUCES }, "Σ(got−want)², Σwant², NaN count of n f32"),
    check("check_compare_f16", PtxCheck { has: &["red.relaxed.gpu.global.add.u64", "cvt.f32.f16"], ..REDUCES }, "the same on f16"),
    check("check_hold_ns", PtxCheck { lacks: &["ld.global", "st.global"], ..PtxCheck::has(&["%globaltimer"]) }, "one thread spins n ns on %globaltimer: holds the stream while a timed launch is enqueued"),
    check("check_compare_bf16", PtxCheck { has: &["red.relaxed.gpu.global.add.u64", "shl.b32"], ..REDUCES }, "the same on bf16"),
];

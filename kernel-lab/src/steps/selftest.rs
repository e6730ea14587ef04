//! Self-tests of the device primitives (`kernels-gpu/src/selftest/`): one warp (or one warpgroup)
//! each, checked against a CPU model by `families::selftest`.
use super::{Family, KernelInfo, PtxCheck, Target};

const fn selftest(name: &'static str, target: Target, block_threads: u32, dyn_smem_bytes: u32, ptx: PtxCheck, about: &'static str) -> KernelInfo {
    KernelInfo { name, family: Family::Selftest, step: "-", target, block_threads, launch_bounds: None, dyn_smem_bytes, about, ptx }
}

/// Every self-test kernel.
pub const KERNELS: &[KernelInfo] = &[
    selftest("selftest_mma_f32_f16", Target::Sm80, 32, 0,
        PtxCheck { has: &["cp.async.cg.shared.global", "cp.async.commit_group", "cp.async.wait_group 0", "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
                          "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"],
                   lacks: &["xor.b32"], count: &[], at_least: &[] },
        "cp.async + ldmatrix.x4(.trans) + mma.m16n8k16 f16->f32"),
    // Swizzle<3,1,3> compiles to plain integer ops in front of ldmatrix.
    selftest("selftest_mma_swizzled", Target::Sm80, 32, 0, PtxCheck::has(&["xor.b32", "ldmatrix.sync.aligned.m8n8.x4.shared.b16"]),
        "seed 001 v5: cp.async + ldmatrix through a Swizzle<3,1,3> tile"),
    selftest("selftest_mma_f16_f16", Target::Sm80, 32, 0, PtxCheck::has(&["mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"]),
        "cp.async + ldmatrix.x4(.trans) + mma.m16n8k16 f16->f16"),
    selftest("selftest_thread_indices", Target::Sm80, 32, 0, PtxCheck::has(&["%tid.y", "%tid.z", "%ctaid.z", "%ntid.y", "%nctaid.z"]),
        "the y and z special registers and index_2d, on a 3-D grid of 1-D blocks"),
    selftest("selftest_printf", Target::Sm80, 32, 0, PtxCheck::has(&["vprintf", "call.uni"]),
        "printf! over vprintf: a line per lane with i32, u8, u64, f32 (as double), f64 and a pointer"),
    selftest("selftest_shuffle", Target::Sm80, 32, 0, PtxCheck::has(&["shfl.sync.bfly.b32", "shfl.sync.down.b32"]), "shfl.sync bfly/down, warp sum, %laneid"),
    selftest("selftest_warp_sync", Target::Sm80, 64, 8, PtxCheck::has(&["bar.warp.sync 0xffffffff", "fence.acq_rel.gpu", "st.shared.b32"]),
        "warp_id, bar.warp.sync (a warp-local handoff through shared memory), fence.acq_rel.gpu"),
    selftest("selftest_shared_widths", Target::Sm80, 64, 1024,
        PtxCheck::has(&["st.shared.v4.u32", "ld.shared.u32", "ld.shared.v2.u32", "ld.shared.v4.u32", "ld.shared.b32"]),
        "st.shared.v4, ld.shared 32/64/128-bit, plain Rust shared loads"),
    selftest("selftest_stmatrix", Target::Sm90a, 32, 0,
        PtxCheck::has(&["stmatrix.sync.aligned.m8n8.x4.shared.b16", "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"]), "stmatrix.x4 and .x4.trans (sm_90)"),
    selftest("selftest_wgmma_tma", Target::Sm90a, 128, 0,
        PtxCheck::has(&["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", "mbarrier.init.shared::cta.b64",
                        "mbarrier.arrive.expect_tx.shared::cta.b64", "mbarrier.try_wait.parity.shared::cta.b64", "fence.mbarrier_init",
                        "wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned", "wgmma.wait_group.sync.aligned 0", ".shared .align 1024"]),
        "TMA 2-D loads (SWIZZLE_128B) + mbarrier + wgmma.m64n64k16, K-major and MN-major B, through layout::hopper descriptors (sm_90a)"),
    selftest("selftest_mbarrier_handoff", Target::Sm90a, 64, 0,
        PtxCheck::has(&["mbarrier.init.shared::cta.b64", "mbarrier.arrive.shared::cta.b64", "mbarrier.try_wait.parity.shared::cta.b64", "st.shared.u32",
                        "ld.shared.u32", "bar.warp.sync"]),
        "st.shared + mbarrier.arrive / try_wait hand-off between a producer thread and a consumer warp, four rounds (f15's scale slot)"),
    selftest("launch_cost_empty", Target::Sm90a, 32, 0, PtxCheck::has(&["ret;"]), "an empty kernel: the launch alone (the launch-cost table's floor)"),
    selftest("launch_cost_tma_gmem", Target::Sm90a, 32, 0, PtxCheck::has(LAUNCH_COST_TMA),
        "one 64×64 box per CTA, TMA load + store, tensor maps in global memory, last wait `wait_group 0`"),
    selftest("launch_cost_tma_gmem_read", Target::Sm90a, 32, 0, PtxCheck::has(&["cp.async.bulk.wait_group.read 0"]),
        "as launch_cost_tma_gmem, last wait `wait_group.read 0`"),
    selftest("launch_cost_tma_gmem_smem200", Target::Sm90a, 32, 200 * 1024, PtxCheck::has(LAUNCH_COST_TMA),
        "as launch_cost_tma_gmem, launched with 200 KiB of dynamic shared memory (unused)"),
    selftest("launch_cost_tma_param", Target::Sm90a, 32, 0,
        PtxCheck::has(&[".param .align 64 .b8 launch_cost_tma_param_param_0[128]", "cvta.param.u64", "cp.async.bulk.wait_group 0"]),
        "as launch_cost_tma_gmem, tensor maps passed by value (__grid_constant__)"),
    selftest("launch_cost_tma_param_read", Target::Sm90a, 32, 0,
        PtxCheck::has(&[".param .align 64 .b8 launch_cost_tma_param_read_param_1[128]", "cvta.param.u64", "cp.async.bulk.wait_group.read 0"]),
        "as launch_cost_tma_param, last wait `wait_group.read 0`"),
];

/// What every global-memory-map variant of the launch-cost kernel must contain.
const LAUNCH_COST_TMA: &[&str] = &["prefetch.tensormap", "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
    "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "cp.async.bulk.wait_group 0"];

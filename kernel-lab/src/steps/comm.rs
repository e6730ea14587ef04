//! The all-reduce ladder (`kernels-gpu/src/comm/`, issue 52): v1 one-shot and v2 two-shot over NVLink
//! peer memory, each for f32, f16 and bf16; v3, the one-shot pushed and fused with the residual add and
//! RMSNorm, for f16 and bf16. v0 is NCCL (`kernel_lab::comm::Nccl`), no kernel of ours. Launched by
//! `kernel_lab::comm::AllReduce` only: same grid on every rank, [`layout::comm::BLOCK`] threads (v3:
//! `NORM_THREADS`, 32 bytes of dynamic shared memory).
use super::{Family, KernelInfo, PtxCheck, Target, bounds};

/// What every all-reduce kernel's PTX must show: the system-scope release and acquire of the flags, the
/// barrier that spreads a timeout to the whole block, the timer the waits are bounded by, the 128-bit
/// accesses, and no local memory (the peer table indexed at run time went to the stack once).
const HAS: &[&str] = &["st.release.sys.global.u64", "ld.acquire.sys.global.u64", "bar.red.or.pred", "%globaltimer", "ld.global.cg.v4.u32",
                       "st.global.v4.u32", "atom.acq_rel.gpu.global.add.u32"];
const LACKS: &[&str] = &["trap", "ld.local", "st.local"];

const ONESHOT_ABOUT: &str = "one-shot: one barrier, then each rank reads every peer's input over NVLink and sums it (latency-bound sizes)";
const TWOSHOT_ABOUT: &str = "two-shot: reduce-scatter then all-gather through peer memory, two barriers; 2(w−1)/w of the message read per rank";

const NORM_ABOUT: &str = "pushed one-shot fused with the residual add and RMSNorm: each rank stores its partial rows into its peers' memory, one barrier, \
                          then sum, x += sum, y = w · norm(x), one block per row";

const fn kernel(name: &'static str, label: &'static str, about: &'static str) -> KernelInfo {
    KernelInfo { name, family: Family::Comm, step: label, target: Target::Sm80, block_threads: layout::comm::BLOCK, launch_bounds: bounds(layout::comm::BLOCK),
                 dyn_smem_bytes: 0, about, ptx: PtxCheck { has: HAS, lacks: LACKS, count: &[], at_least: &[] } }
}

/// Every all-reduce kernel.
pub const KERNELS: &[KernelInfo] = &[
    kernel("allreduce_v1_oneshot_f32", "v1-f32", ONESHOT_ABOUT),
    kernel("allreduce_v1_oneshot_f16", "v1-f16", ONESHOT_ABOUT),
    kernel("allreduce_v1_oneshot_bf16", "v1-bf16", ONESHOT_ABOUT),
    kernel("allreduce_v2_twoshot_f32", "v2-f32", TWOSHOT_ABOUT),
    kernel("allreduce_v2_twoshot_f16", "v2-f16", TWOSHOT_ABOUT),
    kernel("allreduce_v2_twoshot_bf16", "v2-bf16", TWOSHOT_ABOUT),
    norm_kernel("allreduce_v3_rmsnorm_f16", "v3-f16"),
    norm_kernel("allreduce_v3_rmsnorm_bf16", "v3-bf16"),
];

/// v3: `layout::comm::NORM_THREADS` threads, 32 bytes of dynamic shared memory (the row's sum of
/// squares, one slot per warp).
const fn norm_kernel(name: &'static str, label: &'static str) -> KernelInfo {
    KernelInfo { block_threads: layout::comm::NORM_THREADS, launch_bounds: bounds(layout::comm::NORM_THREADS), dyn_smem_bytes: 32, ..kernel(name, label, NORM_ABOUT) }
}

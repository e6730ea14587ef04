//! The replay kernels (`kernels-gpu/src/bankcheck/`): one warp issues one shared-memory instruction at
//! given per-lane addresses, for checking the bank model against Nsight Compute (`families::bankcheck`).
use super::{Family, KernelInfo, PtxCheck, Target};

/// Dynamic shared memory of the replay kernels.
pub const REPLAY_SMEM: u32 = 48 * 1024;

const fn replay(name: &'static str, target: Target, has: &'static [&'static str], about: &'static str) -> KernelInfo {
    KernelInfo { name, family: Family::Bankcheck, step: "-", target, block_threads: 32, launch_bounds: None, dyn_smem_bytes: REPLAY_SMEM, about,
                 ptx: PtxCheck::has(has) }
}

/// Every replay kernel.
pub const KERNELS: &[KernelInfo] = &[
    replay("bank_replay_ld_b32", Target::Sm80, &["ld.shared.u32"], "one ld.shared.u32 at given per-lane offsets"),
    replay("bank_replay_ld_b64", Target::Sm80, &["ld.shared.v2.u32"], "one ld.shared.v2.u32 at given per-lane offsets"),
    replay("bank_replay_ld_b128", Target::Sm80, &["ld.shared.v4.u32"], "one ld.shared.v4.u32 at given per-lane offsets"),
    replay("bank_replay_st_b32", Target::Sm80, &["st.shared.u32"], "one st.shared.u32 at given per-lane offsets"),
    replay("bank_replay_st_b64", Target::Sm80, &["st.shared.v2.u32"], "one st.shared.v2.u32 at given per-lane offsets"),
    replay("bank_replay_st_b128", Target::Sm80, &["st.shared.v4.u32"], "one st.shared.v4.u32 at given per-lane offsets"),
    replay("bank_replay_ldmatrix_x1", Target::Sm80, &["ldmatrix.sync.aligned.m8n8.x1.shared.b16"], "one ldmatrix.x1 at given row addresses"),
    replay("bank_replay_ldmatrix_x2", Target::Sm80, &["ldmatrix.sync.aligned.m8n8.x2.shared.b16"], "one ldmatrix.x2 at given row addresses"),
    replay("bank_replay_ldmatrix_x4", Target::Sm80, &["ldmatrix.sync.aligned.m8n8.x4.shared.b16"], "one ldmatrix.x4 at given row addresses"),
    replay("bank_replay_ldmatrix_x1_trans", Target::Sm80, &["ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16"], "one ldmatrix.x1.trans at given row addresses"),
    replay("bank_replay_ldmatrix_x2_trans", Target::Sm80, &["ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"], "one ldmatrix.x2.trans at given row addresses"),
    replay("bank_replay_ldmatrix_x4_trans", Target::Sm80, &["ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"], "one ldmatrix.x4.trans at given row addresses"),
    replay("bank_replay_stmatrix_x1", Target::Sm90a, &["stmatrix.sync.aligned.m8n8.x1.shared.b16"], "one stmatrix.x1 at given row addresses (sm_90)"),
    replay("bank_replay_stmatrix_x2", Target::Sm90a, &["stmatrix.sync.aligned.m8n8.x2.shared.b16"], "one stmatrix.x2 at given row addresses (sm_90)"),
    replay("bank_replay_stmatrix_x4", Target::Sm90a, &["stmatrix.sync.aligned.m8n8.x4.shared.b16"], "one stmatrix.x4 at given row addresses (sm_90)"),
    replay("bank_replay_stmatrix_x1_trans", Target::Sm90a, &["stmatrix.sync.aligned.m8n8.x1.trans.shared.b16"], "one stmatrix.x1.trans at given row addresses (sm_90)"),
    replay("bank_replay_stmatrix_x2_trans", Target::Sm90a, &["stmatrix.sync.aligned.m8n8.x2.trans.shared.b16"], "one stmatrix.x2.trans at given row addresses (sm_90)"),
    replay("bank_replay_stmatrix_x4_trans", Target::Sm90a, &["stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"], "one stmatrix.x4.trans at given row addresses (sm_90)"),
];

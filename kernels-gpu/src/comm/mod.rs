//! All-reduce across the GPUs of one host over NVLink peer memory (issue 52): `out = Σ_ranks in`,
//! the same bits on every rank. Each rank launches the same kernel on its own stream; the ranks meet
//! at barriers made of flags in each other's memory (`layout::comm`'s map).
//!
//! | step | file | idea |
//! |------|------|------|
//! | v0 | — (the host's `comm::Nccl`) | NCCL's ring / tree all-reduce: the engine and the baseline |
//! | v1 | `steps/v1_oneshot.rs` | one barrier, then every rank reads every peer's whole input and sums: latency-bound sizes |
//! | v2 | `steps/v2_twoshot.rs` | reduce-scatter then all-gather through peer memory: each rank reads `2(w−1)/w` of the message instead of `w−1` |
//! | v3 | `steps/v3_rmsnorm.rs` | one-shot pushed into the peers' staging, fused with the residual add and RMSNorm that follow it in a transformer layer |
//!
//! Shared machinery (`peer.rs`): the barrier (release/acquire at system scope, a timeout on every
//! wait), the epoch and status words, the element types summed in f32.
//!
//! Launch contract (checked by the host, `kernel_lab::comm`, the only caller): `layout::comm::BLOCK`
//! threads, a grid of at most `MAX_BLOCKS` blocks and the same grid on every rank for a call; every
//! rank makes the same calls in the same order; `n_vec` 16-byte vectors fit in one staging half.
pub mod peer;

// The steps: one module per file of `src/comm/steps/`, declared by kernels-gpu/build.rs.
include!(concat!(env!("OUT_DIR"), "/comm_steps.rs"));

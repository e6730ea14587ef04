//! Collectives across the GPUs of one host (issue 52): a [`Group`] of ranks driven by this process,
//! [`Nccl`] (the engine, through cudarc's bindings) and [`AllReduce`], which runs NCCL or the lab's
//! own all-reduce kernels over NVLink peer memory (`kernels-gpu/src/comm`: one-shot, two-shot),
//! choosing by message size with a [`LinkModel`]; and the all-reduce a tensor-parallel layer ends with,
//! fused with the residual add and RMSNorm that follow it ([`AllReduce::all_reduce_add_rmsnorm`]).
//!
//! ```no_run
//! use kernel_lab::comm::{AllReduce, AllReduceOptions, Group};
//! # fn main() -> kernel_lab::Result<()> {
//! let group = Group::new(&[0, 1])?;                       // or Group::from_streams(your streams)
//! let ar = AllReduce::new(group, AllReduceOptions::default())?;
//! let mut bufs: Vec<_> = ar.group().ranks().iter().map(|g| g.zeros::<half::bf16>(4096)).collect::<Result<_, _>>()?;
//! let algo = ar.all_reduce_in_place(&mut bufs.iter_mut().collect::<Vec<_>>())?;   // on each rank's stream
//! ar.check()?;                                            // waits; a timed-out rank is an error here
//! # let _ = algo; Ok(()) }
//! ```
pub mod allreduce;
pub mod group;
pub mod nccl;

pub use allreduce::{Algo, AllReduce, AllReduceOptions, LinkModel, NormReducible, PeerTable, Reducible, ResidualNorm};
pub use group::{Group, Placement};
pub use layout::comm::MAX_RANKS;
pub use nccl::Nccl;

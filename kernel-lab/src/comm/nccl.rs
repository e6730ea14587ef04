//! NCCL, the engine (step v0 of the all-reduce ladder): one communicator per rank of a [`Group`],
//! made in this process (`ncclCommInitAll`) through cudarc's bindings, loaded at run time.
//!
//! NVLink multicast (NVLS) must stay off on shared machines: set `NCCL_NVLS_ENABLE=0` in the
//! environment before the first communicator is made (the `kernel-lab` and `llm` binaries do it at
//! start; a library cannot change the environment soundly once threads run).
use cudarc::{
    driver::DevicePtrMut,
    nccl::{Comm, NcclType, ReduceOp, result as nccl},
};

use super::group::{Group, Placement};
use crate::error::{Error, Result};

/// Whether `libnccl.so` can be loaded (no GPU needed to ask).
pub fn available() -> bool {
    // SAFETY: only tries to dlopen the library by its usual names; no NCCL call is made.
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

/// Why NCCL cannot run here, or `None`.
pub fn unavailable_reason(group: &Group) -> Option<String> {
    if !available() {
        return Some("libnccl.so was not found on the loader path (install NCCL, or put a directory holding libnccl.so on LD_LIBRARY_PATH; \
                     pip's nvidia-nccl package ships libnccl.so.2: link it as libnccl.so)".into());
    }
    if group.placement() == Placement::SameGpu && group.world() > 1 {
        return Some("NCCL takes one GPU per rank; this group runs its ranks on one GPU".into());
    }
    None
}

/// One NCCL communicator per rank of a group, each on its rank's stream.
pub struct Nccl {
    comms: Vec<Comm>,
}

fn nccl_err(what: &str, e: nccl::NcclError) -> Error {
    Error::Collective(format!("NCCL {what}: {:?}", e.0))
}

impl Nccl {
    /// Communicators for every rank of `group` (one GPU per rank).
    pub fn new(group: &Group) -> Result<Nccl> {
        if let Some(why) = unavailable_reason(group) {
            return Err(Error::Unsupported { kernel: "NCCL".into(), needs: "libnccl.so and one GPU per rank".into(), have: why });
        }
        let streams = group.ranks().iter().map(|g| g.stream.clone()).collect();
        let comms = Comm::from_devices(streams).map_err(|e| nccl_err("ncclCommInitAll", e))?;
        Ok(Nccl { comms })
    }

    /// Ranks.
    pub fn world(&self) -> usize {
        self.comms.len()
    }

    /// `Σ_ranks bufs[r]` into every `bufs[r]`, enqueued on each rank's stream (one NCCL group call).
    /// The buffers must have the same length (checked by the caller, `AllReduce`).
    pub fn all_reduce_in_place<T: NcclType, B: DevicePtrMut<T>>(&self, bufs: &mut [&mut B]) -> Result<()> {
        if bufs.len() != self.comms.len() {
            return Err(Error::InvalidInput(format!("{} buffers for {} NCCL ranks", bufs.len(), self.comms.len())));
        }
        nccl::group_start().map_err(|e| nccl_err("ncclGroupStart", e))?;
        let mut first_err = None;
        for (c, b) in self.comms.iter().zip(bufs.iter_mut()) {
            if let Err(e) = c.all_reduce_in_place(*b, &ReduceOp::Sum) {
                first_err.get_or_insert(nccl_err("ncclAllReduce", e));
            }
        }
        let end = nccl::group_end().map_err(|e| nccl_err("ncclGroupEnd", e));
        match first_err {
            Some(e) => Err(e),
            None => end.map(|_| ()),
        }
    }
}

//! A group of ranks driven by one process: one [`Gpu`] (context and stream) per rank, peer access
//! enabled between every pair where the hardware allows it.
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream, sys};

use crate::{
    error::{DriverContext, Error, Result},
    runtime::gpu::Gpu,
};

/// Where a group's ranks live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// One GPU per rank (the real thing).
    OneGpuPerRank,
    /// Every rank on the same GPU, each on its own stream: the custom all-reduce's protocol (peer
    /// pointers, flags, epochs, timeouts) runs unchanged, over local memory instead of NVLink. For
    /// testing on one GPU and for tensor-parallel code paths; NCCL refuses it; timings mean nothing.
    SameGpu,
}

/// The ranks of a collective, each a [`Gpu`] (context and stream) of its own. Rank `r` is the `r`-th
/// ordinal or stream given.
pub struct Group {
    ranks: Vec<Gpu>,
    placement: Placement,
    /// Why the ranks cannot read each other's memory (`None`: they can).
    no_peer_access: Option<String>,
}

impl Group {
    /// One rank per device ordinal (distinct, 1 to `layout::comm::MAX_RANKS` of them), each on its
    /// device's primary context and a new stream; peer access enabled between every pair.
    pub fn new(ordinals: &[usize]) -> Result<Group> {
        check_world(ordinals.len())?;
        for (i, o) in ordinals.iter().enumerate() {
            if ordinals[..i].contains(o) {
                return Err(Error::InvalidInput(format!(
                    "device {o} is listed twice in {ordinals:?}: a group takes one rank per GPU (Group::same_gpu runs several ranks on one GPU for tests)")));
            }
        }
        let ranks = ordinals.iter().map(|&o| {
            let gpu = Gpu::new(o)?;
            let stream = gpu.ctx.new_stream().during(|| format!("creating rank {o}'s stream"))?;
            Gpu::with_stream(stream)
        }).collect::<Result<Vec<_>>>()?;
        Self::with_ranks(ranks, Placement::OneGpuPerRank)
    }

    /// Every GPU the driver sees, in ordinal order.
    pub fn all() -> Result<Group> {
        if !crate::runtime::gpu::driver_present() {
            return Err(Error::NoGpu("the CUDA driver library (libcuda.so) was not found".into()));
        }
        let n = CudaContext::device_count().map_err(|e| Error::NoGpu(crate::error::driver_msg(&e)))? as usize;
        Self::new(&(0..n.min(layout::comm::MAX_RANKS)).collect::<Vec<_>>())
    }

    /// `world` ranks on `gpu`'s device, each on a new stream of its context ([`Placement::SameGpu`]).
    pub fn same_gpu(gpu: &Gpu, world: usize) -> Result<Group> {
        check_world(world)?;
        let ranks = (0..world).map(|r| {
            let stream = gpu.ctx.new_stream().during(|| format!("creating rank {r}'s stream"))?;
            Gpu::with_stream(stream)
        }).collect::<Result<Vec<_>>>()?;
        Self::with_ranks(ranks, Placement::SameGpu)
    }

    /// The group of the caller's streams, one per rank: all on distinct devices, or all on one.
    pub fn from_streams(streams: Vec<Arc<CudaStream>>) -> Result<Group> {
        check_world(streams.len())?;
        let ords: Vec<usize> = streams.iter().map(|s| s.context().ordinal()).collect();
        let placement = if ords.iter().all(|&o| o == ords[0]) && ords.len() > 1 {
            Placement::SameGpu
        } else if ords.iter().enumerate().all(|(i, o)| !ords[..i].contains(o)) {
            Placement::OneGpuPerRank
        } else {
            return Err(Error::InvalidInput(format!("the streams' devices {ords:?} mix shared and distinct GPUs: give one stream per GPU, or all on one GPU")));
        };
        let ranks = streams.into_iter().map(Gpu::with_stream).collect::<Result<Vec<_>>>()?;
        Self::with_ranks(ranks, placement)
    }

    fn with_ranks(ranks: Vec<Gpu>, placement: Placement) -> Result<Group> {
        let no_peer_access = match placement {
            Placement::SameGpu => None,
            Placement::OneGpuPerRank => enable_peer_access(&ranks)?,
        };
        Ok(Group { ranks, placement, no_peer_access })
    }

    /// Ranks in the group.
    pub fn world(&self) -> usize {
        self.ranks.len()
    }

    /// Rank `r`'s GPU (context and stream).
    pub fn rank(&self, r: usize) -> &Gpu {
        &self.ranks[r]
    }

    /// Every rank's GPU, in rank order.
    pub fn ranks(&self) -> &[Gpu] {
        &self.ranks
    }

    /// Where the ranks live.
    pub fn placement(&self) -> Placement {
        self.placement
    }

    /// Why the ranks cannot read each other's memory, or `None` when they can (then the custom
    /// all-reduce runs; otherwise only NCCL does).
    pub fn no_peer_access(&self) -> Option<&str> {
        self.no_peer_access.as_deref()
    }

    /// Waits for every rank's stream.
    pub fn synchronize(&self) -> Result<()> {
        for (r, g) in self.ranks.iter().enumerate() {
            g.stream.synchronize().during(|| format!("synchronizing rank {r}'s stream"))?;
        }
        Ok(())
    }
}

fn check_world(world: usize) -> Result<()> {
    if world == 0 || world > layout::comm::MAX_RANKS {
        return Err(Error::InvalidInput(format!("a group takes 1 to {} ranks, not {world}", layout::comm::MAX_RANKS)));
    }
    Ok(())
}

/// Enables peer access from every rank's context to every other's; `Some(why)` when a pair cannot.
fn enable_peer_access(ranks: &[Gpu]) -> Result<Option<String>> {
    for (i, a) in ranks.iter().enumerate() {
        for (j, b) in ranks.iter().enumerate() {
            if i == j {
                continue;
            }
            let mut can = 0;
            // SAFETY: writes one int through a valid pointer; both devices come from live contexts.
            unsafe { sys::cuDeviceCanAccessPeer(&mut can, a.ctx.cu_device(), b.ctx.cu_device()) }.result()
                .during(|| format!("cuDeviceCanAccessPeer({}, {})", a.ctx.ordinal(), b.ctx.ordinal()))?;
            if can == 0 {
                return Ok(Some(format!("device {} cannot access device {}'s memory (no NVLink or PCIe peer path)", a.ctx.ordinal(), b.ctx.ordinal())));
            }
        }
    }
    for (i, a) in ranks.iter().enumerate() {
        a.ctx.bind_to_thread().during(|| format!("binding rank {i}'s context"))?;
        for (j, b) in ranks.iter().enumerate() {
            if i == j {
                continue;
            }
            // SAFETY: `a`'s context is current on this thread (bound above); `b`'s context is live
            // (the group holds it) and on another device that `a`'s can access (checked above).
            let r = unsafe { sys::cuCtxEnablePeerAccess(b.ctx.cu_ctx(), 0) };
            if r != sys::CUresult::CUDA_SUCCESS && r != sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
                r.result().during(|| format!("cuCtxEnablePeerAccess from device {} to {}", a.ctx.ordinal(), b.ctx.ordinal()))?;
            }
        }
    }
    Ok(None)
}

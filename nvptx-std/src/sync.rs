//! Barriers and memory fences.

/// `bar.sync 0` (CUDA's `__syncthreads()`): waits until every thread of the block arrives, and makes
/// shared- and global-memory writes made before it by the block visible to the block after it.
///
/// It comes from `llvm.nvvm.barrier0`, which LLVM marks `convergent`: the optimizer neither duplicates it
/// into branches nor moves it across control flow (checked by a host test on the PTX of the reduce
/// kernels, whose barrier sits inside a data-dependent loop).
///
/// # Safety
/// Every thread of the block must reach the same barrier the same number of times (no barrier under a
/// condition that differs between threads of a block); otherwise the behavior is undefined (hang).
#[inline(always)]
pub unsafe fn sync_threads() {
    // SAFETY: forwarded to the caller (see # Safety).
    unsafe { core::arch::nvptx::_syncthreads() }
}

/// `bar.warp.sync 0xffffffff` (`__syncwarp()`): orders memory among the lanes of a warp.
///
/// # Safety
/// All 32 lanes of the warp must execute it.
#[inline(always)]
pub unsafe fn sync_warp() {
    // SAFETY: forwarded to the caller. Not `pure`/`nomem`: it orders memory and is collective.
    unsafe { core::arch::asm!("bar.warp.sync 0xffffffff;", options(nostack)) }
}

/// `fence.acq_rel.gpu` (CUDA's `__threadfence()`): this thread's earlier writes become visible at GPU
/// scope before its later ones.
#[inline(always)]
pub fn thread_fence() {
    // SAFETY: a fence has no preconditions; the default memory clobber keeps the compiler from moving
    // memory accesses across it.
    unsafe { core::arch::asm!("fence.acq_rel.gpu;", options(nostack)) }
}

unsafe extern "C" {
    // LLVM's convergent intrinsic for `barrier.sync.aligned id, count` (so the optimizer treats it as a
    // barrier, unlike inline asm).
    #[link_name = "llvm.nvvm.barrier.cta.sync.aligned.count"]
    fn barrier_cta_sync_aligned_count(id: u32, count: u32);
}

/// `barrier.sync.aligned id, count;` (`bar.sync id, count`): a named barrier among `count` threads
/// (whole warps), e.g. one warpgroup (`count = 128`) without stopping the block's other warpgroups.
///
/// # Safety
/// `id` in 1..16 (0 is [`sync_threads`]'s); exactly `count` threads (a multiple of 32, whole warps,
/// each warp converged) reach it, the same number of times; no other group uses `id` meanwhile.
#[inline(always)]
pub unsafe fn sync_named(id: u32, count: u32) {
    // SAFETY: forwarded to the caller.
    unsafe { barrier_cta_sync_aligned_count(id, count) }
}

/// `bar.arrive id, count;` — arrives on named barrier `id` without waiting: the other half of a
/// producer/consumer hand-off where `count` threads meet, some with [`sync_named`] (they wait) and the
/// rest with this (they go on). Attention a8 uses it to take turns between two warpgroups.
///
/// # Safety
/// As [`sync_named`]: `id` in 1..16, whole converged warps; per phase of the barrier, the arriving and
/// the syncing threads together number exactly `count`.
#[inline(always)]
pub unsafe fn arrive_named(id: u32, count: u32) {
    // SAFETY: forwarded to the caller. Not `pure`: orders memory, collective.
    unsafe { core::arch::asm!("bar.arrive {0}, {1};", in(reg32) id, in(reg32) count, options(nostack)) }
}

/// `nanosleep.u32 ns;` — suspends the thread for about `ns` nanoseconds (at most 1 ms; the hardware
/// may wake it earlier). Safe: it only delays the calling thread.
#[inline(always)]
pub fn nanosleep(ns: u32) {
    // SAFETY: no memory is touched; the thread resumes on its own.
    unsafe { core::arch::asm!("nanosleep.u32 {0};", in(reg32) ns, options(nomem, nostack)) }
}

/// `griddepcontrol.launch_dependents;` (sm_90) — lets the grid launched after this one on the stream
/// with *programmatic stream serialization* (programmatic dependent launch, PDL) be scheduled once
/// every CTA of this grid has executed it or exited: its CTAs may then start on free SMs and run up
/// to their [`griddepcontrol_wait`] while this grid finishes. Without such a dependent it does
/// nothing. Safe: it orders no memory and only tells the scheduler it may start the next grid early;
/// what the next grid may touch before its `griddepcontrol.wait` is that grid's contract.
#[inline(always)]
pub fn griddepcontrol_launch_dependents() {
    // SAFETY: a scheduling hint; reads and writes no memory the program sees.
    unsafe { core::arch::asm!("griddepcontrol.launch_dependents;", options(nostack)) }
}

/// `griddepcontrol.wait;` (sm_90) — blocks the thread until every grid this one depends on
/// programmatically has completed and its memory operations are visible; returns at once when the
/// grid was launched without such a dependency. A PDL-aware kernel calls it before its first access
/// to global memory that a previous grid may write or read (its inputs, and its outputs: the same C
/// written by the previous launch). Safe: it only waits.
#[inline(always)]
pub fn griddepcontrol_wait() {
    // SAFETY: waits; afterwards the previous grids' writes are visible (acts as an acquire of them).
    unsafe { core::arch::asm!("griddepcontrol.wait;", options(nostack)) }
}

unsafe extern "C" {
    // LLVM's convergent `__syncthreads_or`: `bar.red.or.pred` over barrier 0.
    #[link_name = "llvm.nvvm.barrier0.or"]
    fn barrier0_or(pred: i32) -> i32;
}

/// `bar.red.or.pred` (CUDA's `__syncthreads_or`): a block barrier, like [`sync_threads`], that also
/// returns whether `pred` was true in any thread of the block. From LLVM's convergent intrinsic, so
/// the optimizer never moves it across control flow.
///
/// # Safety
/// Every thread of the block reaches it (block-uniform control flow), as for [`sync_threads`].
#[inline(always)]
pub unsafe fn sync_threads_or(pred: bool) -> bool {
    // SAFETY: forwarded to the caller.
    unsafe { barrier0_or(pred as i32) != 0 }
}

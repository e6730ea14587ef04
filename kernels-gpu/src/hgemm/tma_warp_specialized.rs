//! The warp-specialized CTA of the Hopper steps h3–h6 (introduced by h3, whose file explains it):
//! the stage [`Ring`] with its full and empty mbarriers, and [`warp_specialized!`], the skeleton every
//! warp-specialized kernel runs — written once here, so a step file holds only its own producer and
//! consumer code.
//!
//! ```text
//! 384 threads = 3 warpgroups
//!   warpgroup 0 (producer)     setmaxnreg.dec 40;  thread 0 loops: wait until a stage is empty, issue its TMA loads
//!   warpgroups 1, 2 (consumers) setmaxnreg.inc 232; wait until a stage is full, wgmma, release it (mh = 0, 1: rows 64·mh ..)
//! ```
//!
//! The kernels using it declare `launch_bounds!(kernel, 384, 1)`: without `.maxntid` and
//! `.minnctapersm`, ptxas ignores `setmaxnreg` (TOOLCHAIN.md §4.4). Register budget:
//! 128 · 40 + 256 · 232 = 64 512 ≤ 65 536.
use crate::prim::{thread::lane_id, tma::TensorMap};

/// Consumer warps (two warpgroups): the empty barriers' arrival count.
pub(crate) const CONSUMER_WARPS: u32 = 8;

/// The stage ring of the warp-specialized steps (h3–h6) and its full and empty mbarriers, laid out in the
/// launch's dynamic shared memory by [`Ring::in_dynamic_smem`]:
///
/// ```text
/// dynamic smem ─┬ ≤ 1023 B of alignment slack
///   s_ring ─────┼ stage 0 | stage 1 | … | stage stages−1      (stage_bytes each, 1024-aligned)
///   s_extra ────┼ extra bytes (h6: the C staging tiles)
///   s_full ─────┼ stages × 8 B: full barriers (the TMA landed the stage; 1 arrival + tx bytes)
///   s_empty ────┴ stages × 8 B: empty barriers (every consumer warp is done; CONSUMER_WARPS arrivals)
/// ```
#[derive(Clone, Copy)]
pub(crate) struct Ring {
    /// First stage.
    s_ring: u32,
    /// Full barriers.
    s_full: u32,
    /// Empty barriers.
    s_empty: u32,
    /// Stages.
    stages: u32,
    /// Bytes per stage (a multiple of 1024, so every stage stays aligned to the 128B pattern's period).
    stage_bytes: u32,
}

impl Ring {
    /// Lays out `stages` stages of `stage_bytes`, then `extra_bytes`, then the barriers, from the dynamic
    /// shared memory's start rounded up to 1024 bytes; returns the ring and the extra region's address.
    /// The launch must provide `layout::hopper::tma_hgemm::dyn_smem(stages, stage_bytes, extra_bytes, 2)`
    /// bytes (the host registry asks for exactly that).
    #[inline(always)]
    pub(crate) fn in_dynamic_smem(stages: u32, stage_bytes: u32, extra_bytes: u32) -> (Ring, u32) {
        use crate::prim::shared::{Align16, addr_of, dynamic};
        let s_ring = (addr_of(dynamic::<Align16>()) + 1023) & !1023;
        let s_extra = s_ring + stages * stage_bytes;
        let s_full = s_extra + extra_bytes;
        (Ring { s_ring, s_full, s_empty: s_full + 8 * stages, stages, stage_bytes }, s_extra)
    }

    /// Stage, full barrier and empty barrier of running K-tile index `it`, and its use `u = it / stages`.
    #[inline(always)]
    pub(crate) fn at(self, it: u32) -> (u32, u32, u32, u32) {
        let s = it % self.stages;
        (self.s_ring + s * self.stage_bytes, self.s_full + 8 * s, self.s_empty + 8 * s, it / self.stages)
    }

    /// Thread 0 of the block: prefetches both tensor maps, initializes the full barriers (one arrival:
    /// the producer's `expect_tx`) and the empty barriers ([`CONSUMER_WARPS`] arrivals), then fences the
    /// initialization for the async proxy. The caller follows with a block barrier.
    ///
    /// # Safety
    /// One thread, before any other use of the barriers; the launch provides the bytes
    /// [`Ring::in_dynamic_smem`] names; the tensor maps are valid.
    #[inline(always)]
    pub(crate) unsafe fn init(self, tmap_a: *const TensorMap, tmap_b: *const TensorMap) {
        // SAFETY: forwarded to the caller.
        unsafe { self.init_with(tmap_a, tmap_b, CONSUMER_WARPS) }
    }

    /// [`Ring::init`] with `empty_arrivals` arrivals per empty barrier (a cluster's steps: the consumer
    /// warps of every CTA whose stages one producer's multicast fills).
    ///
    /// # Safety
    /// As [`Ring::init`]; the caller follows with a barrier over everyone who uses the barriers (a
    /// cluster barrier when peers arrive on them).
    #[inline(always)]
    pub(crate) unsafe fn init_with(self, tmap_a: *const TensorMap, tmap_b: *const TensorMap, empty_arrivals: u32) {
        // SAFETY: forwarded to the caller.
        unsafe { self.init_counts(tmap_a, tmap_b, 1, empty_arrivals) }
    }

    /// [`Ring::init_with`] with `full_arrivals` arrivals per full barrier: 1 where one producer thread
    /// announces a stage's TMA bytes, the producer warpgroup's thread count where every producer thread
    /// announces its own `cp.async` copies (d10, [`Ring::announce`]).
    ///
    /// # Safety
    /// As [`Ring::init_with`].
    #[inline(always)]
    pub(crate) unsafe fn init_counts(self, tmap_a: *const TensorMap, tmap_b: *const TensorMap, full_arrivals: u32, empty_arrivals: u32) {
        use crate::prim::mbarrier::{fence_mbarrier_init, mbarrier_init};
        // SAFETY: forwarded to the caller; the barriers lie inside the dynamic shared memory.
        unsafe {
            crate::prim::tma::prefetch_tensormap(tmap_a);
            crate::prim::tma::prefetch_tensormap(tmap_b);
            for i in 0..self.stages {
                mbarrier_init(self.s_full + 8 * i, full_arrivals);
                mbarrier_init(self.s_empty + 8 * i, empty_arrivals);
            }
            fence_mbarrier_init();
        }
    }

    /// The producer's wait before refilling the stage of running index `it`: use `u − 1` of that stage
    /// must have been released by every consumer warp (nothing to wait for on the first use).
    ///
    /// # Safety
    /// One producer thread; barriers initialized.
    #[inline(always)]
    pub(crate) unsafe fn wait_empty(self, it: u32) {
        let (_, _, empty, u) = self.at(it);
        if u > 0 {
            // SAFETY: forwarded to the caller.
            unsafe { crate::prim::mbarrier::mbarrier_wait_parity(empty, (u - 1) & 1) };
        }
    }

    /// A consumer's wait until the stage of running index `it` has landed (phase `u` of its full barrier).
    ///
    /// # Safety
    /// Barriers initialized; the producer issues this stage.
    #[inline(always)]
    pub(crate) unsafe fn wait_full(self, it: u32) {
        let (_, full, _, u) = self.at(it);
        // SAFETY: forwarded to the caller.
        unsafe { crate::prim::mbarrier::mbarrier_wait_parity(full, u & 1) };
    }

    /// One producer thread's announcement that its share of the stage of running index `it` has
    /// landed and is visible to `wgmma` (a plain arrival on the full barrier, which counts every
    /// producer thread: [`Ring::init_counts`]).
    ///
    /// # Safety
    /// Once per producer thread per use of the stage, after that thread's copies into it completed
    /// (`cp.async.wait_group`) and a `fence.proxy.async.shared::cta` made them visible to the async proxy.
    #[inline(always)]
    pub(crate) unsafe fn announce(self, it: u32) {
        // SAFETY: forwarded to the caller.
        unsafe { crate::prim::mbarrier::mbarrier_arrive(self.at(it).1) };
    }

    /// The producer's tail in a cluster without a last cluster barrier (CUTLASS's `load_tail`): after
    /// issuing running indices `0 .. end`, waits until the last use of every stage has been released by
    /// every consumer warp its empty barrier counts — in a multicast cluster, the peers' too. After it
    /// no peer arrives on this CTA's barriers, and every multicast into this CTA has landed (its
    /// consumers waited for each full barrier before releasing), so the CTA may exit.
    ///
    /// # Safety
    /// The producer thread, after its last stage; barriers initialized.
    #[inline(always)]
    pub(crate) unsafe fn drain(self, end: u32) {
        let mut j = 0;
        while j < self.stages {
            // Index `end + j` would reuse the stage of index `end + j − stages`: wait for that release
            // (nothing to wait for where `end + j < stages`: that stage was never used).
            // SAFETY: forwarded to the caller.
            unsafe { self.wait_empty(end + j) };
            j += 1;
        }
    }

    /// One consumer warp's release of the stage of running index `it` (lane 0 arrives for the warp).
    ///
    /// # Safety
    /// Called once per warp per use, after the warp's `wgmma`s reading that stage have retired.
    #[inline(always)]
    pub(crate) unsafe fn release(self, it: u32) {
        if lane_id() == 0 {
            // SAFETY: forwarded to the caller.
            unsafe { crate::prim::mbarrier::mbarrier_arrive(self.at(it).2) };
        }
    }
}

impl Ring {
    /// [`Ring::release`] in a cluster of `CLUSTER` CTAs whose stages are filled by multicast: lane 0
    /// arrives on the stage's empty barrier of every CTA of the cluster (each CTA's producer refills the
    /// stage in all of them, so it waits for all their consumers). `CLUSTER = 1`: a local arrival.
    ///
    /// # Safety
    /// As [`Ring::release`]; with `CLUSTER > 1`, a cluster launch of `CLUSTER` CTAs whose empty barriers
    /// were initialized for `CLUSTER · CONSUMER_WARPS` arrivals, none of which has exited.
    #[inline(always)]
    pub(crate) unsafe fn release_cluster<const CLUSTER: u32>(self, it: u32) {
        if CLUSTER == 1 {
            // SAFETY: forwarded to the caller.
            unsafe { self.release(it) };
        } else if lane_id() == 0 {
            for rank in 0..CLUSTER {
                // SAFETY: forwarded to the caller; the same barrier offset in every CTA of the cluster.
                unsafe { crate::prim::cluster::mbarrier_arrive_cluster(self.at(it).2, rank) };
            }
        }
    }
}

/// The warp-specialized CTA, written once for h3–h6. It expands, in the kernel's body, to:
///
/// 1. `let (ring, s_extra) = Ring::in_dynamic_smem(stages, stage_bytes, extra_bytes)`, `let tid =
///    thread_idx_x()`, `let wg = tid / 128` (the names are the caller's), then the step's `setup`
///    `let`s (tile coordinates, K tiles: computed by every thread before the roles split);
/// 2. thread 0 initializes the ring ([`Ring::init`]), and one block barrier publishes it — the only
///    block-wide barrier of the kernel;
/// 3. warpgroup 0 gives up registers (`setmaxnreg.dec 40`) and its thread 0 runs the `producer` block;
/// 4. warpgroups 1 and 2 take them (`setmaxnreg.inc 232`) and run the `consumer` block with
///    `mh = wg − 1` (0 or 1: which 64 rows of the tile).
///
/// ```ignore
/// warp_specialized! {
///     ring: let (ring, _) = (STAGES, STAGE_BYTES, 0);
///     thread: tid, warpgroup: wg;
///     setup: { let k_tiles = k.div_ceil(BK); }
///     tensor_maps: (tmap_a, tmap_b);
///     producer: { /* one thread: wait_empty, issue the stage's TMA loads */ }
///     consumer(mh): { /* 128 threads: wait_full, wgmma, release; epilogue */ }
/// }
/// ```
///
/// Prefixes pick other shapes of the same CTA: `cluster: C;` (clusters of C CTAs whose producers fill
/// every CTA's stages), `cluster_local: …`, `empty_arrivals: …` (see the arms), and
/// `consumers: 3, registers: (p, c);` — three consumer warpgroups (`mh` 0..3; 512 threads, empty
/// barriers of 12 warps, `setmaxnreg.dec p` / `.inc c`: FP8 f17–f20, 192-row tiles; `consumers: 1`:
/// decode d14), optionally `…, first: { … };` — a block thread 0 runs right after it initialized the
/// ring, before the block barrier (d15 issues its first stages there).
///
/// Must be used inside an `unsafe` block whose safety argument covers the producer's and consumers'
/// use of the ring (the barrier protocol); the launch provides 384 threads (512 with three consumers)
/// and the dynamic shared memory [`Ring::in_dynamic_smem`] names, and the tensor maps are valid.
macro_rules! warp_specialized {
    (
        ring: let ($ring:ident, $s_extra:pat) = ($stages:expr, $stage_bytes:expr, $extra_bytes:expr);
        thread: $tid:ident, warpgroup: $wg:ident;
        setup: { $(let $p:pat = $e:expr;)* }
        tensor_maps: ($tmap_a:expr, $tmap_b:expr);
        producer: $producer:block
        consumer($mh:ident): $consumer:block
    ) => {
        let ($ring, $s_extra) = $crate::hgemm::tma_warp_specialized::Ring::in_dynamic_smem($stages, $stage_bytes, $extra_bytes);
        let $tid = $crate::prim::thread::thread_idx_x();
        let $wg = $tid / 128;
        $(let $p = $e;)*
        if $tid == 0 {
            $ring.init($tmap_a, $tmap_b);
        }
        $crate::prim::sync::sync_threads();
        if $wg == 0 {
            $crate::prim::wgmma::setmaxnreg_dec::<40>();
            if $tid == 0 $producer
        } else {
            $crate::prim::wgmma::setmaxnreg_inc::<232>();
            let $mh = $wg - 1;
            $consumer
        }
    };
    // One CTA whose stages are each read by one consumer warpgroup only (d4: the warpgroups take
    // alternate stages): the empty barriers wait for `$arrivals` warps instead of all eight.
    (
        empty_arrivals: $arrivals:expr;
        $($rest:tt)*
    ) => {
        $crate::hgemm::tma_warp_specialized::warp_specialized! {
            @cluster 1, $arrivals, 0, 1, true, 40, 232, {};
            $($rest)*
        }
    };
    // `cluster_local` with the empty barriers counting `$arrivals` warps (d5: d4's alternate stages in
    // a cluster).
    (
        cluster_local: $cluster:expr, consumer_meets: $meets:expr, empty_arrivals: $arrivals:expr;
        $($rest:tt)*
    ) => {
        $crate::hgemm::tma_warp_specialized::warp_specialized! {
            @cluster $cluster, $arrivals, $meets, 1, true, 40, 232, {};
            $($rest)*
        }
    };
    // In a cluster of `$cluster` CTAs (a `const`) whose producers fill every CTA's stages by multicast:
    // the empty barriers count every CTA's consumer warps, a cluster barrier publishes the
    // initialization to the peers, and a last cluster barrier keeps each CTA alive until no peer can
    // arrive on its barriers or multicast into it.
    (
        cluster: $cluster:expr;
        $($rest:tt)*
    ) => {
        $crate::hgemm::tma_warp_specialized::warp_specialized! {
            @cluster $cluster, $crate::hgemm::tma_warp_specialized::CONSUMER_WARPS * $cluster, 0, 1, true, 40, 232, {};
            $($rest)*
        }
    };
    // `cluster:` with the producer block run by the first `$threads` threads of warpgroup 0 (1 or
    // 32 · w, at most 128) and the full barriers counting their arrivals: d10's producer warpgroup
    // issues `cp.async` copies and each of its threads announces its own ([`Ring::announce`]).
    // `final_sync: false` drops the last cluster barrier: the producer block must then end with
    // [`Ring::drain`] (d11), which keeps the CTA alive until no peer can arrive on its barriers or
    // multicast into it, and the other threads leave as soon as they are done.
    (
        cluster: $cluster:expr, producer_threads: $threads:expr, final_sync: $final:expr;
        $($rest:tt)*
    ) => {
        $crate::hgemm::tma_warp_specialized::warp_specialized! {
            @cluster $cluster, $crate::hgemm::tma_warp_specialized::CONSUMER_WARPS * $cluster, 0, $threads, $final, 40, 232, {};
            $($rest)*
        }
    };
    // In a cluster of `$cluster` CTAs whose rings are their own (each producer fills only its CTA's
    // stages: local empty barriers), and whose consumers meet the whole cluster `$meets` times inside
    // their block (`cluster_sync`, e.g. before reading the peers' shared memory): the producer
    // warpgroup meets them as often after its block, so every thread passes every cluster barrier.
    (
        cluster_local: $cluster:expr, consumer_meets: $meets:expr;
        $($rest:tt)*
    ) => {
        $crate::hgemm::tma_warp_specialized::warp_specialized! {
            @cluster $cluster, $crate::hgemm::tma_warp_specialized::CONSUMER_WARPS, $meets, 1, true, 40, 232, {};
            $($rest)*
        }
    };
    // `cluster_local` on a CTA of `$consumers` consumer warpgroups whose thread 0 runs `$first` right
    // after initializing the ring (d28: d15's CTA with K split over a cluster, its first stages issued
    // before the first cluster barrier).
    (
        cluster_local: $cluster:expr, consumer_meets: $meets:expr, consumers: $consumers:expr, registers: ($producer_regs:expr, $regs:expr), first: $first:block;
        $($rest:tt)*
    ) => {
        $crate::hgemm::tma_warp_specialized::warp_specialized! {
            @cluster $cluster, 4 * $consumers, $meets, 1, true, $producer_regs, $regs, $first;
            $($rest)*
        }
    };
    // One CTA of `$consumers` consumer warpgroups (FP8 f17–f19: three, 512 threads, 192-row tiles): the
    // empty barriers count their `4 · $consumers` warps, and `setmaxnreg` gives the producer warpgroup's
    // threads `$producer_regs` registers and each consumer thread `$regs` (all of them must fit the 64 Ki
    // register file).
    // `consumers:` whose thread 0 also runs `$first` right after initializing the ring, before the
    // block barrier (d15: the first stages' TMA loads issued without waiting for the other threads).
    (
        consumers: $consumers:expr, registers: ($producer_regs:expr, $regs:expr), first: $first:block;
        $($rest:tt)*
    ) => {
        $crate::hgemm::tma_warp_specialized::warp_specialized! {
            @cluster 1, 4 * $consumers, 0, 1, true, $producer_regs, $regs, $first;
            $($rest)*
        }
    };
    // `consumers:` with the producer block run by the first `$threads` threads (1 or 32 · w) and the
    // full barriers counting their arrivals (FP8 f23: the producer warp's lanes stage a K block's scales,
    // each announcing its own stores, lane 0 also the TMA bytes).
    (
        consumers: $consumers:expr, registers: ($producer_regs:expr, $regs:expr), producer_threads: $threads:expr;
        $($rest:tt)*
    ) => {
        $crate::hgemm::tma_warp_specialized::warp_specialized! {
            @cluster 1, 4 * $consumers, 0, $threads, true, $producer_regs, $regs, {};
            $($rest)*
        }
    };
    (
        consumers: $consumers:expr, registers: ($producer_regs:expr, $regs:expr);
        $($rest:tt)*
    ) => {
        $crate::hgemm::tma_warp_specialized::warp_specialized! {
            @cluster 1, 4 * $consumers, 0, 1, true, $producer_regs, $regs, {};
            $($rest)*
        }
    };
    (
        @cluster $cluster:expr, $empty_arrivals:expr, $meets:expr, $producers:expr, $final:expr, $producer_regs:expr, $regs:expr, $first:block;
        ring: let ($ring:ident, $s_extra:pat) = ($stages:expr, $stage_bytes:expr, $extra_bytes:expr);
        thread: $tid:ident, warpgroup: $wg:ident;
        setup: { $(let $p:pat = $e:expr;)* }
        tensor_maps: ($tmap_a:expr, $tmap_b:expr);
        producer: $producer:block
        consumer($mh:ident): $consumer:block
    ) => {
        let ($ring, $s_extra) = $crate::hgemm::tma_warp_specialized::Ring::in_dynamic_smem($stages, $stage_bytes, $extra_bytes);
        let $tid = $crate::prim::thread::thread_idx_x();
        let $wg = $tid / 128;
        $(let $p = $e;)*
        if $tid == 0 {
            $ring.init_counts($tmap_a, $tmap_b, $producers, $empty_arrivals);
            $first
        }
        // In a cluster the first meeting only publishes the barrier initialization, which thread 0's
        // `fence.mbarrier_init.release.cluster` already orders: a relaxed arrival (7% at 1024³ for d7's
        // body in clusters of 2 with the `.release` one, session 21).
        if $cluster > 1 { $crate::prim::cluster::cluster_sync_relaxed() } else { $crate::prim::sync::sync_threads() }
        if $wg == 0 {
            $crate::prim::wgmma::setmaxnreg_dec::<{ $producer_regs }>();
            // `$producers` is a constant: one thread (`tid == 0`, as the TMA steps have it) or a prefix.
            if ($producers == 1 && $tid == 0) || ($producers > 1 && $tid < $producers) $producer
            for _ in 0..$meets {
                $crate::prim::cluster::cluster_sync();
            }
        } else {
            $crate::prim::wgmma::setmaxnreg_inc::<{ $regs }>();
            let $mh = $wg - 1;
            $consumer
        }
        if $cluster > 1 && $final { $crate::prim::cluster::cluster_sync() }
    };
}
pub(crate) use warp_specialized;

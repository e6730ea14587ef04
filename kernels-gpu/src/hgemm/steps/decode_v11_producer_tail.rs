#![cfg(lab_sm90)]
//! Decode-ladder step d11 — d8 (d7's tiles in clusters of 2 sharing the weight boxes by TMA multicast)
//! **without the last cluster barrier**: the producer thread ends with a tail that waits until every
//! stage's last use has been released by both CTAs' consumers (`Ring::drain`, CUTLASS's `load_tail`),
//! and every other thread leaves as soon as it is done.
//!
//! Why: at 1000³ (2000-byte rows) d7's TMA boxes cost the L2 ~4× the read requests of aligned rows
//! (session 14 `call7-row-pitch`), and multicast halves the weight boxes each CTA issues: `ncu`
//! (`results/2026-11-25-h100-session21/call5-h8-at-1000`, `call6-ncu-d7-d8`) counts 848 k L2 read
//! requests for d7, 567 k for d8 and 535 k for cuBLAS's kernel (`nvjet_sm90_hsh_64x128_64x8_2x1`:
//! the same 64×128 tiles in clusters of 2). Yet d8 ran only 1.02–1.06× d7 there and 0.78× at 1024³.
//! Probes (`call7`, `call8`) took d8 apart: launched as clusters of 2, d7 itself loses 3%; d8 with
//! its rings local (no multicast, no remote releases, no coupling between the two CTAs) still loses
//! 21% at 1024³ — so the cost is neither the multicast nor the coupled releases but the cluster body
//! around them. One piece of it is the last cluster barrier, where the producer warpgroup's 127 idle
//! threads and the consumers of the faster CTA wait for the pair's slowest thread. A multicast
//! cluster needs that barrier only so no CTA exits while a peer may still arrive on its barriers or
//! multicast into it — which the producer's own empty barriers already track.
//!
//! Diff from d8 (`decode_with::<E, 2, true, Tail>`; d8 is `TmaLoads<2, true>`): `Tail` wraps d8's loads
//! and sets `StageLoads::PRODUCER_TAIL`, so the body ends its producer loop with `ring.drain(end)` and
//! `warp_specialized!` drops its last cluster barrier (`final_sync: false`).
//!
//! Prediction (written after the probe `call9`, which measured this change as `d8tail`: 1.109× d7 at
//! 1000³, 1.160× at 1000×1000×2000, 0.850× at 1024³, 0.870× at 512×4096²): the same, ±2%; with d7 at
//! 85% of cuBLAS at 1000³, **~93–95%**.
//!
//! Measured (H100, `results/2026-11-25-h100-session21/call10-d11`, `call11-rule-and-sweeps`): the GPU
//! tests (every HGEMM step, the entry point), `--check` on nine shapes and memcheck / synccheck /
//! racecheck (0 / 0 / 0 hazards) pass. `ab d7 d11` (8 rounds, 13 shapes): **1000³ 1.109×** (bf16
//! 1.135×), 1000×1000×2000 1.203×, 384×3000×1000 1.120×, 256×4096×4040 1.071×, 1000×2000×1000 1.050×,
//! 1024×1000×1024 1.045×, 768×1000×1000 1.024×, 500×1000×1000 1.012×; slower where a row is a multiple
//! of 64 bytes: 1024³ 0.844×, 1000×1024×1024 0.838×, 1024×1024×1000 0.805×, 992³ 0.924×,
//! 256×4000×4096 0.954×. Through the entry point (d11 where both rows are off 64 bytes) **1000³ runs
//! at 91.7–95.0% of cuBLAS in f16 and 92.1–94.8% in bf16** over four runs (d7: 83–87%). The rest of
//! d8's cost at aligned rows (d11 0.84× d7 at 1024³, d8 0.78×) was not yet explained: neither the
//! multicast, the coupled releases, the cluster launch (3%) nor the last barrier (5%) covered it.
//!
//! Then the first cluster barrier (`call13`, `call14`): `warp_specialized!` opened every cluster kernel
//! with `barrier.cluster.arrive.release` + `wait.acquire`, which only has to publish the mbarrier
//! initialization — and `fence.mbarrier_init.release.cluster` already does. d7's body in a cluster
//! launch with no barrier ran 0.939× d7 at 1024³, with that barrier 0.873×, with a relaxed arrival
//! 0.942×. The skeleton now opens clusters with `prim::cluster::cluster_sync_relaxed` (every cluster
//! step's PTX changed: d5, d6, d8, d11, h8, h9, FP8 f5, f6, f10, f11, f13; their GPU tests pass).
//! d11 with it (`call15-final`, `ab` against d7): **1000³ 1.146×**, 1024×1000×1024 1.139×,
//! 1000×1000×2000 1.228×, 768×1000×1000 1.122×, 384×3000×1000 1.129×, 1000×2000×1000 1.107×,
//! 256×4096×4040 1.056×, 992³ 1.030×, 500×1000×1000 1.026×, 256×4000×4096 1.012×; 0.91× where B's rows
//! are aligned (1024³ 0.912×, 1024×1024×1000 0.906×, 1000×1024×1024 0.915×). So the entry point takes
//! d11 wherever B's rows are off 128 bytes (`gemm::weight_rows_off_128`). 1000³ through it: **97.1%
//! of cuBLAS (f16), 97.2% (bf16)** in the sweep, 95.9 / 96.2% alone.
use super::decode_swapped::{StageLoads, TmaLoads, decode_with};
use super::elem::{Bf16, Elem16, F16};
use super::tma_warp_specialized::Ring;
use crate::launch_bounds::launch_bounds;
use crate::prim::{cluster_dims, tma::TensorMap};

/// d8's loads (both CTAs' weight boxes multicast), ending in the producer's tail.
#[derive(Clone, Copy)]
struct Tail(TmaLoads<2, true>);

impl StageLoads for Tail {
    const THREADS: u32 = 1;
    const PRODUCER_TAIL: bool = true;

    #[inline(always)]
    unsafe fn stage(self, ring: Ring, it: u32, m: u32, n: u32, k: u32, m0: u32, n0: u32, kt: u32, rank: u32) {
        // SAFETY: forwarded (d8's stage loads).
        unsafe { self.0.stage(ring, it, m, n, k, m0, n0, kt, rank) }
    }

    #[inline(always)]
    unsafe fn finish(self, ring: Ring, end: u32) {
        // SAFETY: forwarded (nothing pending for TMA loads).
        unsafe { self.0.finish(ring, end) }
    }
}

/// The body of d11 on `E`.
///
/// # Safety
/// As [`hgemm_decode_v11`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn decode<E: Elem16>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, g_c: *mut u16, ws: *mut f32, count: *mut u32,
                            m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: forwarded; d8's body, the last cluster barrier replaced by the producer's tail (the body's
    // proof, `decode_swapped::decode`, and `Ring::drain`).
    unsafe { decode_with::<E, 2, true, _>(Tail(TmaLoads { tmap_a, tmap_b }), tmap_a, tmap_b, tmap_c, g_c, ws, count, m, n, k, splits) }
}

/// [`super::decode_v8_multicast_tma_store::hgemm_decode_v8`] ending in the producer's tail instead of a
/// cluster barrier.
///
/// # Safety
/// As `hgemm_decode_v8`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v11(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, g_c: *mut u16,
                                                   ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<F16>(tmap_a, tmap_b, tmap_c, g_c, ws, count, m, n, k, splits) }
}

/// [`hgemm_decode_v11`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v11`], the tensor maps describing bf16 matrices.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v11_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, g_c: *mut u16,
                                                        ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, splits: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16>(tmap_a, tmap_b, tmap_c, g_c, ws, count, m, n, k, splits) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v11, 384, 1);
launch_bounds!(hgemm_decode_v11_bf16, 384, 1);
cluster_dims!(hgemm_decode_v11, 2);
cluster_dims!(hgemm_decode_v11_bf16, 2);

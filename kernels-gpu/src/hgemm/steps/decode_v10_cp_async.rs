#![cfg(lab_sm90)]
//! Decode-ladder step d10 — d7 with its stages filled by **`cp.async`** from the whole producer
//! warpgroup instead of TMA boxes from one thread: for operands whose row pitch is not a multiple of
//! 128 bytes.
//!
//! Why: d7 is the entry point's step at 1000³, and it runs there at 84–87% of cuBLAS
//! (`results/2026-11-25-h100-session20/call5-…`, target 90%). `call7-row-pitch` of session 14 (M = K
//! = 1024) found the cause: with the weights' pitch a multiple of 128 bytes d7 takes 8.1 µs whether
//! or not the last tile is ragged (N = 960), with a pitch aligned to 64, 32 or 16 bytes only (N = 992,
//! 1008, 1000) it takes 9.1–10.5 µs and the TMA reads 1.5–2.1× the L2 sectors. A box row of 128 bytes
//! that straddles two 128-byte lines costs the TMA both lines. At 1000³ both operands have 2000-byte
//! rows. `cp.async` moves 16 bytes per thread, and a warp's four 128-byte row pieces fetch only the
//! 32-byte sectors they touch (at most five per piece).
//!
//! Diff from d7 (d3's body, `decode_with::<E, 1, true, CpAsyncLoads>`; d7 is `TmaLoads`):
//! * **all 128 threads of the producer warpgroup** run the producer loop (`warp_specialized!`'s
//!   `producer_threads: 128`), and each full barrier counts their 128 arrivals;
//! * a stage is 1536 copies of 16 bytes, 12 per thread: thread `t` copies the 16-byte column chunk
//!   `t % 8` of box rows `t / 8 + 16j` (j = 0..3) of the activation box and of each weight box,
//!   into the slot the TMA's `SWIZZLE_128B` would give it (chunk `c ^ (row % 8)` of the 128-byte row:
//!   `layout::swizzle::Swizzle<3,3,4>` on bytes, CuTe's `Swizzle<3,4,3>`; the same for every `j`,
//!   because 16 rows are two whole swizzle periods). A warp writes four whole 128-byte rows: each row's 128 bytes cover the 32 banks
//!   once, so no bank conflict;
//! * the same rows and columns as d7's boxes (`decode_a_box_row0`/`_rows`, `d7_weight_box_col`), and
//!   what the TMA zero-fills (K past the end, columns past N, rows past the box) is zero-filled by the
//!   copy's source size 0;
//! * **announced with a lag of [`LAG`] stages**: after issuing stage `it` a thread waits until at most
//!   `LAG` of its copy groups are pending (`cp.async.wait_group`), so stage `it − LAG` has landed, makes
//!   its writes visible to the async proxy that `wgmma` reads through (`fence.proxy.async.shared::cta`)
//!   and arrives on that stage's full barrier. The producer's last stages are announced after
//!   `wait_group 0`. (`cp.async.mbarrier.arrive` would announce without waiting, but compute-sanitizer's
//!   synccheck reports it as a missing wait, `results/2026-11-25-h100-session17/call6`.)
//!   With 8 stages the lag may be at most 6: the consumers release stage `it − 1` only once stage
//!   `it` is full, and the producer needs stage `it + LAG − 8` released before it can issue
//!   `it + LAG`.
//!
//! Prediction (before running): the L2 reads at 1000³ from d7's ~1.5–2× down to ~1.1× of the bytes,
//! and d10 at 1000³ from d7's 12.6 µs towards its 1024³ speed (8.1 µs there): **1.10–1.30× d7 at
//! 1000³** (≈ 94–110% of cuBLAS), 1.05–1.2× at 1024×1000×1024; at 1024³ (aligned: TMA reads no extra
//! line) 0.95–1.0× d7, the producer's 12 copies and waits per stage being a cost TMA does not have.
//!
//! Measured (H100, `results/2026-11-25-h100-session21/call1-d10`, `kernel-lab ab` with d7, 8 rounds
//! each, d7 faster in all 8): **wrong**. d10 is correct (the GPU tests, `--check` on eleven shapes,
//! memcheck, synccheck and racecheck all clean) and slower everywhere: **0.852× d7 at 1000³**, 0.839×
//! at 1024×1000×1024, 0.798× at 1024×1024×1000, 0.904× at 992³, and 0.784× at 1024³ where d7's pitch is
//! aligned. At K = 4096 it falls to 0.63–0.66× (256 / 512 × 4096²). Two probes (call 2, not kept)
//! ruled out the lag and the producer's fence:
//! * with the fence in the consumers after the full barrier instead, 0.846× / 0.786× at 1000³ / 1024³;
//! * announced by `cp.async.mbarrier.arrive.noinc`, with no producer wait at all, 0.874× / 0.824×, and
//!   0.73× at 256×4096² (synccheck clean in this form).
//!
//! So the copies themselves cost more than the TMA's extra L2 lines: moving 24 KiB per stage through
//! 1 536 `cp.async` of the producer warpgroup is slower than two TMA instructions, even where each TMA
//! box row reads two lines. The entry point keeps d7 at 1000³ (85% of cuBLAS). Kept as a measured
//! negative, not chosen.
use super::decode_swapped::{A_BYTES, StageLoads, decode_with};
use super::elem::{Bf16, Elem16, F16};
use super::tma_warp_specialized::Ring;
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    cp_async::{cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group},
    mbarrier::fence_proxy_async_shared_cta,
    thread::thread_idx_x,
    tma::TensorMap,
};
use layout::swizzle::Swizzle;
use layout::hopper::tma_hgemm::{B_BOX_BYTES, BK, decode_a_box_row0, decode_a_box_rows, d7_weight_box_col};

/// Stages a producer thread keeps issued but unannounced (≤ 6 with d7's 8 stages, see the module doc).
pub(super) const LAG: u32 = 4;
const _: () = assert!(LAG + 2 <= layout::hopper::tma_hgemm::D7_STAGES);

/// d10's loads: every producer thread copies 12 chunks of 16 bytes per stage from A (`g_a`, M×K,
/// row-major) and B (`g_b`, K×N, row-major) by `cp.async`, and announces stage `it − LAG` after its
/// copies landed.
#[derive(Clone, Copy)]
pub(super) struct CpAsyncLoads {
    g_a: *const u16,
    g_b: *const u16,
}

impl StageLoads for CpAsyncLoads {
    const THREADS: u32 = 128;

    #[inline(always)]
    unsafe fn stage(self, ring: Ring, it: u32, m: u32, n: u32, k: u32, m0: u32, n0: u32, kt: u32, rank: u32) {
        // SAFETY: see `copy_stage`; announcing: see `announce_landed`.
        unsafe {
            copy_stage(self.g_a, self.g_b, ring, it, m, n, k, m0, n0, kt, rank);
            cp_async_commit_group();
            if it >= LAG {
                cp_async_wait_group::<LAG>();
                announce_landed(ring, it - LAG, it - LAG + 1);
            }
        }
    }

    #[inline(always)]
    unsafe fn finish(self, ring: Ring, end: u32) {
        cp_async_wait_group::<0>();
        // SAFETY: every copy of this thread has landed.
        unsafe { announce_landed(ring, end.saturating_sub(LAG), end) };
    }
}

/// This producer thread's 12 copies of 16 bytes into the stage of running index `it`.
///
/// # Safety
/// A producer thread (`thread_idx_x() < 128`); the stage is free; `g_a`, `g_b` the M×K and K×N
/// matrices, K and N multiples of 8.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn copy_stage(g_a: *const u16, g_b: *const u16, ring: Ring, it: u32, m: u32, n: u32, k: u32, m0: u32, n0: u32, kt: u32, _rank: u32) {
    {
        let t = thread_idx_x(); // 0..128: the producer warpgroup
        let (row, chunk) = (t / 8, t % 8);
        // Where the TMA's SWIZZLE_128B puts byte (row, 16·chunk) of a box with 128-byte rows:
        // `Swizzle<3,3,4>` on bytes (CuTe `Swizzle<3,4,3>`; the layout crate tests it against the
        // documented mode), chunk c ^ (row % 8). Rows row + 16j add 2048 bytes, two whole periods.
        let s_slot = Swizzle::<3, 3, 4>::apply(row * 128 + 16 * chunk);
        let (s_stage, _, _, _) = ring.at(it);
        let k0 = kt * BK;
        let kc = k0 + 8 * chunk; // this thread's K column in the activation box
        let (a_rows, a_row0) = (decode_a_box_rows(m), decode_a_box_row0(m, m0));
        // SAFETY: every source is inside A or B when its size is 16 (row < M, kc + 8 ≤ K since K % 8 ==
        // 0; k < K, column + 8 ≤ N since N % 8 == 0), and `g_a`/`g_b` themselves (not read) when 0;
        // every destination is a 16-byte slot of this stage (row + 16j < 64, chunk < 8). The stage is
        // free (the caller waited for its empty barrier). Announcing: see `announce_landed`.
        unsafe {
            for j in 0..4u32 {
                let r = row + 16 * j;
                let ok = r < a_rows && kc < k;
                let src = if ok { g_a.add((a_row0 + r) as usize * k as usize + kc as usize) } else { g_a };
                cp_async_cg_16_zfill(s_stage + s_slot + 2048 * j, src as *const u8, if ok { 16 } else { 0 });
            }
            for nb in 0..2u32 {
                let col = d7_weight_box_col(n, n0 + 64 * nb) + 8 * chunk;
                for j in 0..4u32 {
                    let kr = k0 + row + 16 * j;
                    let ok = kr < k && col < n;
                    let src = if ok { g_b.add(kr as usize * n as usize + col as usize) } else { g_b };
                    cp_async_cg_16_zfill(s_stage + A_BYTES + nb * B_BOX_BYTES + s_slot + 2048 * j, src as *const u8, if ok { 16 } else { 0 });
                }
            }
        }
    }
}

/// Announces stages `from .. to` (running indices) whose copies by this thread have landed: one proxy
/// fence for all of them, then an arrival on each full barrier.
///
/// # Safety
/// This thread's copies into those stages are complete (`cp.async.wait_group` covering their groups),
/// and it announces each stage use once.
#[inline(always)]
unsafe fn announce_landed(ring: Ring, from: u32, to: u32) {
    // SAFETY: the fence orders this thread's completed generic-proxy writes before the async-proxy
    // reads (`wgmma`) that the arrival releases to; forwarded to the caller otherwise.
    unsafe {
        fence_proxy_async_shared_cta();
        let mut it = from;
        while it < to {
            ring.announce(it);
            it += 1;
        }
    }
}

/// The body of d10 on `E`.
///
/// # Safety
/// As [`hgemm_decode_v10`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn decode<E: Elem16>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, g_c: *mut u16, ws: *mut f32, count: *mut u32,
                            m: u32, n: u32, k: u32, splits: u32, g_a: *const u16, g_b: *const u16) {
    // SAFETY: forwarded; d7's body with the stages copied from the same matrices the maps describe.
    unsafe { decode_with::<E, 1, true, _>(CpAsyncLoads { g_a, g_b }, tmap_a, tmap_b, tmap_c, g_c, ws, count, m, n, k, splits) }
}

/// [`super::decode_v7_tma_store::hgemm_decode_v7`] with A and B copied into the ring by `cp.async`.
///
/// # Safety
/// As `hgemm_decode_v7`, plus: `g_a` is the M×K matrix `tmap_a` describes and `g_b` the K×N matrix
/// `tmap_b` describes (row-major, 16-byte aligned), K and N multiples of 8.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v10(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, g_c: *mut u16,
                                                   ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, splits: u32, g_a: *const u16,
                                                   g_b: *const u16) {
    // SAFETY: forwarded.
    unsafe { decode::<F16>(tmap_a, tmap_b, tmap_c, g_c, ws, count, m, n, k, splits, g_a, g_b) }
}

/// [`hgemm_decode_v10`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v10`], the matrices bf16.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v10_bf16(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, g_c: *mut u16,
                                                        ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, splits: u32, g_a: *const u16,
                                                        g_b: *const u16) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16>(tmap_a, tmap_b, tmap_c, g_c, ws, count, m, n, k, splits, g_a, g_b) }
}

// 384 threads, one CTA per SM: without both directives ptxas ignores `setmaxnreg`.
launch_bounds!(hgemm_decode_v10, 384, 1);
launch_bounds!(hgemm_decode_v10_bf16, 384, 1);

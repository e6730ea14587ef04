#![cfg(lab_sm90)]
//! FP8 step f27 — f12's CTA (per-tensor scales, two consumer warpgroups of 64 rows, persistent, C by
//! TMA stores in pairs of 64×64 boxes) on tiles **128 × 192, 320 or 384** wide: the width whose tile count
//! fills the SMs' rounds best, chosen by the library's wave model next to f12/f14's 256.
//!
//! Why: where 128×256 tiles leave the last round mostly empty the GPU runs a round for a fraction of
//! its work. 1024×5120×5120 is 160 tiles on 132 SMs — two rounds for 1.21 rounds of work (f14 0.77×
//! cuBLASLt's default mode, session 89; streaming the tail or the last wave and the tail by K bought
//! nothing, session 90 call 1). cuBLASLt runs it as 128 tiles of 320 × 128 (`nvjet_sm90_qqtst_320x128`,
//! `ncu`): one round of 1.25× the work. 768×6144×4096: 144 tiles of 256 (two rounds), 120 of 320 (one);
//! 2048×3072×4096: 192 of 256, 128 of 384; 4096×768×3072: 96 of 256, 128 of 192 (one round of 0.75×).
//!
//! Diff from f12 (`fp8::wide`):
//! * the tile is `128 × BN`: each consumer's accumulators `BN / 64` blocks of 64 columns
//!   (`fp8::tile::Accumulators` of 3, 5 or 6 blocks; 96, 160 or 192 f32 a thread), one K step's
//!   product `m64n192k32`, `m64n256k32 + m64n64k32` or `2 × m64n192k32`;
//! * B's stage rows come in one TMA box up to 256 rows, in two of `BN / 2` beyond (the TMA's largest
//!   box is 256 rows); the rows land back to back in the same 128-byte-swizzled layout;
//! * 4 stages at 192, 3 at 320 and 384 (56 and 64 KiB stages), C staged two boxes at a time.
//!
//! Prediction (before running): where the width takes a round off, the time of the rounds saved less
//! the wider tile's share — 1024×5120×5120 and 768×6144×4096 ~1.5× f14 (two rounds of 256 → one of
//! 320), 2048×3072×4096 ~1.3×, 4096×768×3072 (n192) ~1.25×; elsewhere the same or slower (a wider tile
//! is the same work a column; 320's odd `m64n64k32` may cost a few percent).
use crate::fp8::block_scaled::Scales;
use crate::fp8::tile::{Accumulators, Wide320, Wide384, consume_whole_k, produce_rows};
use crate::hgemm::tma_store::{stage_c_box, store_tile};
use crate::hgemm::{elem::Bf16, tma_persistent::TileWalk};
use crate::launch_bounds::launch_bounds;
use crate::prim::{
    thread::lane_id,
    tma::{TensorMap, cp_async_bulk_wait_group0},
};
use layout::fp8::tiles::{BK, BM, F27_STAGED_BOXES, f27_stage_bytes, f27_stages};
use layout::hopper::tma_hgemm::C_BOX_BYTES;

/// `acc · s`, element by element.
#[inline(always)]
fn scaled(acc: &[f32; 32], s: f32) -> [f32; 32] {
    core::array::from_fn(|i| acc[i] * s)
}

/// A consumer's accumulators stored two 64×64 boxes at a time (the staging area holds
/// [`F27_STAGED_BOXES`]), scaled by the per-tensor `s`: one `store_tile` per pair, each box staged by a
/// call with a constant accumulator reference (a loop over the boxes put them in local memory, h6).
trait PairedStore {
    /// # Safety
    /// As `tma_store::store_tile` for each pair, with `s_c` the warpgroup's two-box staging area.
    #[allow(clippy::too_many_arguments)]
    unsafe fn store_pairs(&self, s: f32, tmap_c: *const TensorMap, s_c: u32, row0: u32, n0: u32, mh: u32, leader: bool, warp: u32, lane: u32);
}

/// The `PairedStore` of accumulators whose boxes are the constant places `$acc`: pairs `[a b @ box]` and
/// a last single box `last [c @ box]`.
macro_rules! paired_store {
    ($ty:ty, |$r:ident| [$($name:ident = $acc:expr),*], $([$a:ident $b:ident @ $pa:literal])* $(last [$c:ident @ $pc:literal])?) => {
        impl PairedStore for $ty {
            #[inline(always)]
            unsafe fn store_pairs(&self, s: f32, tmap_c: *const TensorMap, s_c: u32, row0: u32, n0: u32, mh: u32, leader: bool, warp: u32, lane: u32) {
                let $r = self;
                let ($($name),*) = ($($acc),*);
                // SAFETY: forwarded to the caller; each box inside the two-box staging area.
                unsafe {
                    $(store_tile::<2>(tmap_c, s_c, row0, n0 + 64 * $pa, mh, leader, || {
                        stage_c_box::<Bf16>(&scaled($a, s), s_c, warp, lane);
                        stage_c_box::<Bf16>(&scaled($b, s), s_c + C_BOX_BYTES, warp, lane);
                    });)*
                    $(store_tile::<1>(tmap_c, s_c, row0, n0 + 64 * $pc, mh, leader, || {
                        stage_c_box::<Bf16>(&scaled($c, s), s_c, warp, lane);
                    });)?
                }
            }
        }
    };
}
paired_store!([[f32; 32]; 2], |r| [a0 = &r[0], a1 = &r[1]], [a0 a1 @ 0]);
paired_store!([[f32; 32]; 3], |r| [a0 = &r[0], a1 = &r[1], a2 = &r[2]], [a0 a1 @ 0] last [a2 @ 2]);
paired_store!(Wide320, |r| [a0 = &r.head[0], a1 = &r.head[1], a2 = &r.head[2], a3 = &r.head[3], a4 = &r.tail], [a0 a1 @ 0] [a2 a3 @ 2] last [a4 @ 4]);
paired_store!(Wide384, |r| [a0 = &r.lo[0], a1 = &r.lo[1], a2 = &r.lo[2], a3 = &r.hi[0], a4 = &r.hi[1], a5 = &r.hi[2]], [a0 a1 @ 0] [a2 a3 @ 2] [a4 a5 @ 4]);

/// The f27 body on `128 × BN` tiles with accumulators `A` (`BN / 64` blocks).
///
/// # Safety
/// 384 threads, one CTA per SM, `f27_dyn_smem(BN)` bytes of dynamic shared memory, a 1-D grid; tensor
/// maps of A (M×K e4m3, box 128 × 128), B (N×K e4m3, box `f27_b_box_rows(BN)` rows × 128), both
/// `SWIZZLE_128B`, and C (M×N bf16, 64×64 boxes); one f32 scale each at `sa`, `sb`.
#[inline(always)]
unsafe fn wave_tiles<A: Accumulators + PairedStore, const BN: u32>(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap,
                                                                  sa: *const f32, sb: *const f32, m: u32, n: u32, k: u32) {
    let staging = F27_STAGED_BOXES * C_BOX_BYTES;
    // SAFETY: f12's ring and epilogue (`fp8::wide`'s proof): every stage use is issued once by the
    // producer and released once by each consumer warp after its `wgmma`s retired (`consume_whole_k`);
    // the stage holds A's 128 rows then B's BN rows (`f27_stage_bytes`), announced as one transaction
    // of all their bytes, B's boxes at 1024-aligned offsets (`f27_b_box_rows(BN) · 128`, checked in the
    // layout crate); a staging area is rewritten only after its previous TMA store read it
    // (`store_tile`); the per-tensor scales are one f32 each (the launch contract).
    unsafe {
        crate::hgemm::tma_warp_specialized::warp_specialized! {
            cluster: 1;
            ring: let (ring, s_cstage) = (f27_stages(BN), f27_stage_bytes(BN), 2 * staging);
            thread: tid, warpgroup: wg;
            setup: {
                let (tiles_m, tiles_n) = (m.div_ceil(BM), n.div_ceil(BN));
                let k_tiles = k.div_ceil(BK);
            }
            tensor_maps: (tmap_a, tmap_b);
            producer: {
                produce_rows::<BM, BN, 1>(ring, tmap_a, tmap_b, tiles_m, tiles_n, k_tiles);
            }
            consumer(mh): {
                let (warp, lane) = ((tid / 32) % 4, lane_id());
                let s = Scales::new(sa, sb, m, n, k, 0, 0).per_tensor();
                let mut it = 0u32;
                for (tm, tn) in TileWalk::<1>::new(tiles_m, tiles_n) {
                    let r_acc: A = consume_whole_k::<A, BM, 1>(ring, &mut it, k_tiles, mh);
                    r_acc.store_pairs(s, tmap_c, s_cstage + mh * staging, tm * BM + 64 * mh, tn * BN, mh, tid % 128 == 0, warp, lane);
                }
                if tid % 128 == 0 {
                    cp_async_bulk_wait_group0();
                }
            }
        }
    }
}

/// `C = qA · qBᵀ · sa · sb` (bf16) on 128×128 tiles (f27n128, session 106; the few-tile choice weighs it since session 108).
///
/// Why: at 256–512 rows over 2k–12k columns f12's 128×256 tiles fill 16–48 of 132 SMs, and what the choice has
/// there — f21 (K split over a cluster: ~5 K tiles of fixed cost in its partials' sum), f22 (64×64 tiles, one
/// consumer warpgroup), f27n192 — runs 0.72–0.84× cuBLASLt's default mode on an H100 (session 106: 512×3072×4096
/// f21x2 18.8 µs, cuBLASLt 13.6; 256×4096×4096 f22 0.81×). 128×128 tiles double the CTAs without a split
/// (512×3072: 96 tiles, one round) at the cost of 4/3 the shared-memory fill bytes per FLOP (32 KiB a K tile for
/// 4.2 MFLOP against 48 KiB for 8.4); 6 stages of 32 KiB. f3 — block scales on the same tiles, each K tile's sums
/// promoted — measured 18.9 µs there, level with f21x2.
///
/// Prediction (before any run, H100): 512×3072×4096 15.5–18 µs (1.05–1.2× f21x2), 128×12288×4096 (96 tiles)
/// 1.0–1.1× f27n192's 27.1; slower than f22 / f21 where 128×128 tiles still leave over half the SMs idle
/// (256×2048×8192: 32 tiles). A width for the choice only if it is the fastest at several such shapes.
///
/// # Safety
/// As [`wave_tiles`] with `BN` = 128.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v27_n128(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, scale_a: *const f32,
                                                   scale_b: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { wave_tiles::<[[f32; 32]; 2], 128>(tmap_a, tmap_b, tmap_c, scale_a, scale_b, m, n, k) }
}

/// `C = qA · qBᵀ · sa · sb` (bf16) on 128×192 tiles.
///
/// # Safety
/// As [`wave_tiles`] with `BN` = 192.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v27_n192(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, scale_a: *const f32,
                                                   scale_b: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { wave_tiles::<[[f32; 32]; 3], 192>(tmap_a, tmap_b, tmap_c, scale_a, scale_b, m, n, k) }
}

/// `C = qA · qBᵀ · sa · sb` (bf16) on 128×320 tiles.
///
/// # Safety
/// As [`wave_tiles`] with `BN` = 320.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v27_n320(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, scale_a: *const f32,
                                                   scale_b: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { wave_tiles::<Wide320, 320>(tmap_a, tmap_b, tmap_c, scale_a, scale_b, m, n, k) }
}

/// `C = qA · qBᵀ · sa · sb` (bf16) on 128×384 tiles.
///
/// # Safety
/// As [`wave_tiles`] with `BN` = 384.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fp8_gemm_v27_n384(tmap_a: *const TensorMap, tmap_b: *const TensorMap, tmap_c: *const TensorMap, scale_a: *const f32,
                                                   scale_b: *const f32, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { wave_tiles::<Wide384, 384>(tmap_a, tmap_b, tmap_c, scale_a, scale_b, m, n, k) }
}

launch_bounds!(fp8_gemm_v27_n128, 384, 1);
launch_bounds!(fp8_gemm_v27_n192, 384, 1);
launch_bounds!(fp8_gemm_v27_n320, 384, 1);
launch_bounds!(fp8_gemm_v27_n384, 384, 1);

//! Pieces shared by all Hopper HGEMM steps (`tma_v1` … `tma_v6`): the 128×128×64 CTA tile as TMA boxes
//! and `wgmma` descriptors, one stage's loads and MMAs, the 2×2 grid of `m64n64k16` accumulators of one
//! warpgroup, and the epilogue from the fragments. Each step file keeps only what it changes.
//!
//! The later steps' machinery: `tma_warp_specialized` (h3's producer/consumer skeleton and mbarrier
//! ring), `tma_wide_tile` (h4's 128×256 tile), `tma_persistent` (h5's persistent producer and tile
//! order).
use crate::prim::{
    mma::pack_f16x2,
    thread::lane_id,
    tma::{TensorMap, cp_async_bulk_tensor_2d_g2s},
    wgmma::{wgmma_commit_group, wgmma_fence, wgmma_fence_operand, wgmma_m64n64k16_f32_f16, wgmma_wait_group},
};
use layout::fragment::WgmmaAcc;
use layout::hopper::WgmmaDesc;

// Tile shapes and stage sizes: `layout::hopper::tma_hgemm`, shared with the host's launch sizes.
// `B_HALF_BYTES` is one 64×64 B box (two per stage in h1–h3, four in h4–h6: `tma_wide_tile`); one
// `expect_tx` waits for a whole stage.
pub(super) use layout::hopper::tma_hgemm::{A_BYTES, B_BOX_BYTES as B_HALF_BYTES, BK, BM, BN, BN_WIDE, STAGE_BYTES, WIDE_STAGE_BYTES};

/// The accumulators of one warpgroup: `[2·mh + nh]` is the 64×64 block (rows `64·mh..`, cols `64·nh..`).
pub(super) type Acc = [[f32; 32]; 4];

/// The descriptors' fixed fields, checked when the crate is compiled (a bad layout is a build error):
/// A's 64-row K-major half and B's MN-major box at shared address 0. [`a_desc`]/[`b_desc`] move them
/// to a stage with [`WgmmaDesc::advance`], plain integer adds — no run-time check, so no `trap` branch
/// between the `wgmma`s (ptxas serializes every `wgmma` of a loop that holds one: C7518, measured
/// 0.8× on h4 and h6 before this).
const A_DESC_0: WgmmaDesc = WgmmaDesc::K_MAJOR_SW128;
const B_DESC_0: WgmmaDesc = match WgmmaDesc::mn_major_sw128(0, BK) {
    Ok(d) => d,
    Err(_) => panic!("B descriptor"),
};

/// Issues the three TMA loads of K tile `kt` into the stage at `s_stage` (A at +0, B halves after it),
/// completing on `bar`, after announcing the stage's bytes on it.
///
/// # Safety
/// One thread; `s_stage` is a 1024-aligned `.shared` address of [`STAGE_BYTES`] bytes nobody reads until
/// `bar`'s current phase completes; `bar` an initialized mbarrier expecting one arrival; the tensor maps
/// as the step kernels' `# Safety` says.
#[inline(always)]
pub(super) unsafe fn issue_stage(s_stage: u32, bar: u32, tmap_a: *const TensorMap, tmap_b: *const TensorMap, m0: u32, n0: u32, kt: u32) {
    let k0 = (kt * BK) as i32;
    // SAFETY: forwarded to the caller.
    unsafe {
        crate::prim::mbarrier::mbarrier_arrive_expect_tx(bar, STAGE_BYTES);
        cp_async_bulk_tensor_2d_g2s(s_stage, tmap_a, k0, m0 as i32, bar);
        cp_async_bulk_tensor_2d_g2s(s_stage + A_BYTES, tmap_b, n0 as i32, k0, bar);
        cp_async_bulk_tensor_2d_g2s(s_stage + A_BYTES + B_HALF_BYTES, tmap_b, n0 as i32 + 64, k0, bar);
    }
}

/// Descriptor of rows `64·mh .. 64·mh + 64` of the stage's A tile (K-major, 128-byte rows).
/// `s_stage` is a 1024-aligned `.shared` address; every such address of a CTA is below 228 KiB, so the
/// descriptor's 14-bit address field (`addr >> 4`, up to 256 KiB) holds it exactly.
#[inline(always)]
pub(super) fn a_desc(s_stage: u32, mh: u32) -> WgmmaDesc {
    A_DESC_0.advance(s_stage + mh * (A_BYTES / 2))
}

/// Descriptor of columns `64·nh .. 64·nh + 64` of the stage's B tile (MN-major, one 64×64 box).
/// Address bound as [`a_desc`].
#[inline(always)]
pub(super) fn b_desc(s_stage: u32, nh: u32) -> WgmmaDesc {
    B_DESC_0.advance(s_stage + A_BYTES + nh * B_HALF_BYTES)
}

/// `r_acc += A_tile · B_tile` for the stage at `s_stage`: 4 K steps × 2×2 `wgmma.m64n64k16` (A K-major,
/// B MN-major), one commit group, waited for before returning.
///
/// # Safety
/// All 128 threads of the warpgroup; the stage's TMA phase has completed; nobody writes the stage until
/// this returns.
#[inline(always)]
pub(super) unsafe fn mma_stage(r_acc: &mut Acc, s_stage: u32) {
    let d_a = [a_desc(s_stage, 0), a_desc(s_stage, 1)];
    let d_b = [b_desc(s_stage, 0), b_desc(s_stage, 1)];
    for acc in r_acc.iter_mut() {
        wgmma_fence_operand(acc);
    }
    // SAFETY: forwarded to the caller; the accumulators are pinned before and after the async group.
    unsafe {
        wgmma_fence();
        for ks in 0..BK / 16 {
            for mh in 0..2 {
                for nh in 0..2 {
                    // K step ks: 32 bytes along A's K-major rows, 16 rows (2048 B) down B's tile.
                    wgmma_m64n64k16_f32_f16::<0, 1>(&mut r_acc[2 * mh + nh], d_a[mh].advance(32 * ks).0,
                                                     d_b[nh].advance(2048 * ks).0, true);
                }
            }
        }
        wgmma_commit_group();
        wgmma_wait_group::<0>();
    }
    for acc in r_acc.iter_mut() {
        wgmma_fence_operand(acc);
    }
}

/// Writes one 64×64 accumulator block (places: [`WgmmaAcc::warp_lane_rc`]) to C at `(row0, col0)`: each
/// thread's column pairs as one f16x2 store. N is even and every column even, so a pair is wholly in or
/// out of N.
///
/// # Safety
/// `g_c` has `m·n` writable f16; `n` even; `warp` is the warp's index within its warpgroup.
#[inline(always)]
pub(super) unsafe fn store_block(acc: &[f32; 32], g_c: *mut u16, m: u32, n: u32, row0: u32, col0: u32, warp: u32) {
    let lane = lane_id();
    for j in 0..8u32 {
        for half in 0..2u32 {
            let i = 4 * j + 2 * half;
            let row = row0 + WgmmaAcc::<64>::warp_lane_rc(warp, lane, i).0;
            let col = col0 + WgmmaAcc::<64>::warp_lane_rc(warp, lane, i).1;
            if row < m && col < n {
                let i = i as usize;
                // SAFETY: row < m, col + 1 < n (n even, col even): inside C; 4-byte aligned.
                unsafe { *(g_c.add((row * n + col) as usize) as *mut u32) = pack_f16x2(acc[i], acc[i + 1]) };
            }
        }
    }
}

/// Writes the CTA's 128×128 C tile from the 2×2 accumulator blocks of one warpgroup.
///
/// # Safety
/// As [`store_block`].
#[inline(always)]
pub(super) unsafe fn store_c(r_acc: &Acc, g_c: *mut u16, m: u32, n: u32, m0: u32, n0: u32, warp: u32) {
    for mh in 0..2u32 {
        for nh in 0..2u32 {
            // SAFETY: forwarded to the caller.
            unsafe { store_block(&r_acc[(2 * mh + nh) as usize], g_c, m, n, m0 + 64 * mh, n0 + 64 * nh, warp) };
        }
    }
}

//! Decode ladder d1 — split-K for small M: the weights' bandwidth is the limit, not the tensor cores.
//!
//! At M ≤ 64 a GEMM reads the K×N weights once and does little with each byte: the 128×256 tiles of
//! the block and Hopper ladders leave most of a tile's rows empty and, at N = 4096, make only 16–32
//! blocks — a fraction of the SMs, each streaming its share of the weights alone. d1 shrinks the tile
//! to 16 rows × 64 columns and splits K, so the grid fills the SMs (`layout::hgemm::decode_split_with`,
//! measured with four blocks per SM; the host's default target is now one, two where the tiles leave SMs
//! idle): every SM streams B at once.
//!
//! Per block (4 warps): a 4-deep `cp.async` ring of 16×64 A and 64×64 B stages (`Swizzle<3,3,3>`,
//! conflict-free `ldmatrix`); warp w takes k16 step w of each 64-deep stage (one `ldmatrix.x4` of A,
//! four `ldmatrix.x4.trans` of B, eight `mma.m16n8k16`). At the end the four warps' partial 16×64 tiles
//! are summed through shared memory. One split writes C directly; with several, each adds its tile to
//! an f32 workspace (`red.global.add.f32`) and the last block of the tile to arrive (a counter, as
//! reduce v6 finishes) converts the sums to f16, writes C, and leaves workspace and counter zeroed for
//! the next launch — one kernel, no second pass.
use crate::prim::{
    atomic::{atom_add_acq_rel_gpu_u32, red_add_relaxed_gpu_f32, st_relaxed_gpu_u32},
    cp_async::{cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group_n},
    global::{ld_global_cg_f32, st_global_v4_u32},
    ldmatrix::{ldmatrix_x4, ldmatrix_x4_trans},
    mma::{mma_m16n8k16_f32_f16, pack_f16x2},
    shared::{self, ld_shared_u32, ld_shared_v4_f32, st_shared_f32, st_shared_u32},
    sync::{sync_threads, thread_fence},
    thread::{block_idx_x, block_idx_y, grid_dim_y, thread_idx_x},
};
use crate::launch_bounds::launch_bounds;
use layout::{
    Layout,
    fragment::{Ldmatrix, MmaM16N8K16},
    hgemm::{DECODE_A as LA, DECODE_B as LB, DECODE_BM as BM, DECODE_BN as BN, DECODE_KT as KT, DECODE_STAGE_BYTES, DECODE_STAGES as STAGES,
            DECODE_THREADS as THREADS},
};

launch_bounds!(hgemm_decode_v1, 128);

/// Issues the `cp.async` copies of K tile `kt` (rows `k0 .. k0 + KT` of this split) into stage `slot`:
/// A's 16 × 64 (one 16-byte chunk per thread) and B's 64 × 64 (four per thread); chunks outside
/// `m`, `k_end` or `n` are zero-filled. Commits the group.
///
/// # Safety
/// 128 threads call it; `a`, `b` as the kernel's contract; `k0` a multiple of 8, `k_end % 8 == 0`,
/// `n % 8 == 0` (a chunk is wholly inside or outside).
#[inline(always)]
unsafe fn load_stage(s_base: u32, slot: u32, a: *const u16, b: *const u16, m: u32, n: u32, k: u32, k_end: u32, m0: u32, n0: u32, k0: u32) {
    let tid = thread_idx_x();
    let (s_a, s_b) = (s_base + slot * DECODE_STAGE_BYTES, s_base + slot * DECODE_STAGE_BYTES + 2 * BM * KT);
    let (row, col) = (tid / 8, 8 * (tid % 8));
    let ok = m0 + row < m && k0 + col < k_end;
    let src = if ok { a.wrapping_add((m0 + row) as usize * k as usize + (k0 + col) as usize) } else { a };
    // SAFETY: 16 readable bytes where `ok` (in bounds, 16-byte aligned: k % 8 == 0, col % 8 == 0), none
    // read otherwise; the destination chunk lies inside this stage's A tile.
    unsafe { cp_async_cg_16_zfill(s_a + 2 * LA.offset(row, col), src as *const u8, if ok { 16 } else { 0 }) };
    let mut i = 0;
    while i < 4 {
        let ch = tid + THREADS * i;
        let (row, col) = (ch / 8, 8 * (ch % 8));
        let ok = k0 + row < k_end && n0 + col < n;
        let src = if ok { b.wrapping_add((k0 + row) as usize * n as usize + (n0 + col) as usize) } else { b };
        // SAFETY: as for A, inside this stage's B tile.
        unsafe { cp_async_cg_16_zfill(s_b + 2 * LB.offset(row, col), src as *const u8, if ok { 16 } else { 0 }) };
        i += 1;
    }
    cp_async_commit_group();
}

/// `C = A · B` (f16, row-major, f32 accumulation) for small M, split along K.
///
/// # Safety
/// 128 threads per block, `DECODE_SMEM` bytes of dynamic shared memory (16-byte aligned), grid
/// `(⌈n / 64⌉, ⌈m / 16⌉ · splits)` with `splits = ⌈k / k_split⌉`, `k_split` a positive multiple of 64;
/// `a`, `b`, `c` hold m·k, k·n, m·n f16, 16-byte aligned, `k % 8 == 0`, `n % 8 == 0`; when splits > 1,
/// `ws` holds `16·⌈m/16⌉ · n` f32 and `count` `⌈n/64⌉ · ⌈m/16⌉` u32, all zero at launch (the kernel
/// leaves them zero), used by no concurrent launch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v1(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32,
                                                   m: u32, n: u32, k: u32, k_split: u32) {
    let tid = thread_idx_x();
    let (warp, lane) = (tid / 32, tid % 32);
    let tiles_m = m.div_ceil(BM).max(1); // >= 1: the divisions below cannot trap
    let (tile_n, tile_m, split) = (block_idx_x(), block_idx_y() % tiles_m, block_idx_y() / tiles_m);
    let splits = grid_dim_y() / tiles_m;
    let (m0, n0) = (tile_m * BM, tile_n * BN);
    let k_begin = split * k_split;
    let k_end = if k - k_begin < k_split { k } else { k_begin + k_split };
    let tiles_k = (k_end - k_begin).div_ceil(KT);
    let s_base = shared::addr_of(shared::dynamic::<shared::Align16>());
    let mut acc = [[0.0f32; 4]; 8];
    // SAFETY: every thread runs every barrier and collective (`ldmatrix`, `mma`) the same number of
    // times (loop bounds are block-uniform); the ring's slots are written by `cp.async` only after the
    // barrier that ends their last use; addresses come from the tile layouts (inside the ring).
    unsafe {
        let mut s = 0;
        while s < STAGES - 1 {
            if s < tiles_k {
                load_stage(s_base, s, a, b, m, n, k, k_end, m0, n0, k_begin + s * KT);
            } else {
                cp_async_commit_group();
            }
            s += 1;
        }
        let mut kt = 0;
        while kt < tiles_k {
            cp_async_wait_group_n(STAGES - 2);
            sync_threads();
            let next = kt + STAGES - 1;
            if next < tiles_k {
                load_stage(s_base, next % STAGES, a, b, m, n, k, k_end, m0, n0, k_begin + next * KT);
            } else {
                cp_async_commit_group();
            }
            let slot = kt % STAGES;
            let (s_a, s_b) = (s_base + slot * DECODE_STAGE_BYTES, s_base + slot * DECODE_STAGE_BYTES + 2 * BM * KT);
            let (ar, ac) = Ldmatrix::X4.tile_addr_rc(lane);
            let fa = ldmatrix_x4(s_a + 2 * LA.offset(ar, 16 * warp + ac));
            let (br, bc) = Ldmatrix::X4_TRANS.tile_addr_rc(lane);
            let mut nj = 0;
            while nj < BN / 16 {
                let fb = ldmatrix_x4_trans(s_b + 2 * LB.offset(16 * warp + br, 16 * nj + bc));
                mma_m16n8k16_f32_f16(&mut acc[2 * nj as usize], fa, [fb[0], fb[1]]);
                mma_m16n8k16_f32_f16(&mut acc[2 * nj as usize + 1], fa, [fb[2], fb[3]]);
                nj += 1;
            }
            kt += 1;
        }
        cp_async_wait_group_n(0);
        sync_threads();
        // The four warps' partial tiles, f32 [warp][16][64], then their sum: 8 consecutive columns per thread.
        let s_red = s_base;
        let mut ni = 0;
        while ni < 8 {
            let mut i = 0;
            while i < 4 {
                let (r, col) = MmaM16N8K16::c_rc(lane, i);
                st_shared_f32(s_red + 4 * ((warp * BM + r) * BN + 8 * ni + col), acc[ni as usize][i as usize]);
                i += 1;
            }
            ni += 1;
        }
        sync_threads();
        let (r, c8) = (tid / 8, 8 * (tid % 8));
        let mut sum = [0.0f32; 8];
        let mut w = 0;
        while w < 4 {
            let at = s_red + 4 * ((w * BM + r) * BN + c8);
            let (lo, hi) = (ld_shared_v4_f32(at), ld_shared_v4_f32(at + 16));
            let mut j = 0;
            while j < 4 {
                sum[j] += lo[j];
                sum[j + 4] += hi[j];
                j += 1;
            }
            w += 1;
        }
        let (row, col) = (m0 + r, n0 + c8);
        let inside = row < m && col < n;
        let at = row as usize * n as usize + col as usize;
        if splits == 1 {
            if inside {
                let packed = core::array::from_fn(|j| pack_f16x2(sum[2 * j], sum[2 * j + 1]));
                // In bounds, 16-byte aligned (n % 8 == 0, col % 8 == 0).
                st_global_v4_u32(c.add(at) as *mut u32, packed);
            }
            return;
        }
        let ws_at = (m0 as usize + r as usize) * n as usize + col as usize;
        if inside {
            let mut j = 0;
            while j < 8 {
                red_add_relaxed_gpu_f32(ws.add(ws_at + j), sum[j]);
                j += 1;
            }
        }
        // Last block of this tile to arrive finishes it: every thread's adds are made visible (fence),
        // then one release-acquire ticket per block.
        thread_fence();
        sync_threads();
        let s_flag = s_red + 4 * 4 * BM * BN;
        let counter = count.add((tile_m * n.div_ceil(BN) + tile_n) as usize);
        if tid == 0 {
            let ticket = atom_add_acq_rel_gpu_u32(counter, 1);
            st_shared_u32(s_flag, (ticket == splits - 1) as u32);
        }
        sync_threads();
        if ld_shared_u32(s_flag) != 0 {
            thread_fence();
            if inside {
                let v: [f32; 8] = core::array::from_fn(|j| ld_global_cg_f32(ws.add(ws_at + j)));
                let packed = core::array::from_fn(|j| pack_f16x2(v[2 * j], v[2 * j + 1]));
                st_global_v4_u32(c.add(at) as *mut u32, packed);
                let mut j = 0;
                while j < 8 {
                    *ws.add(ws_at + j) = 0.0;
                    j += 1;
                }
            }
            if tid == 0 {
                st_relaxed_gpu_u32(counter, 0);
            }
        }
    }
}

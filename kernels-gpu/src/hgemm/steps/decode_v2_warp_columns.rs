//! Decode ladder d2 — d1 with the warps splitting the columns instead of K, the splits' partial tiles
//! stored (not added) and summed by the last block, and 64-row tiles for 16 < M ≤ 64.
//!
//! Changes from d1, each for a cost d1 measured (H100, weights rotated beyond L2):
//! * **Warps own columns**: warp w computes columns 16w … 16w+15 of the block's 64 over all four k16
//!   steps of a stage (four `ldmatrix.x4` of A, four `.trans` of B, eight `mma`), so a warp's sums are
//!   final for its split: d1's end-of-K reduction through 16 KiB of shared memory is gone.
//! * **Partials stored, not added**: each split writes its f32 tile with plain stores to its own slice
//!   of the workspace (`ws[split][row][col]`); the last block of the tile (the counter of d1) sums the
//!   splits from L2 in the same fragment order and writes C. d1 issued `red.global.add.f32` for every
//!   output of every split (524 288 at 16×4096×4096): it ran 1.3× slower at M = 16 than at M = 1.
//! * **`hgemm_decode_v2_m64`**: 64-row tiles (four m16 fragments of A per k16), so for 16 < M ≤ 64 the
//!   weights are read once, not once per 16 rows (d1 fell to 55% of cuBLAS at M = 64);
//!   **`hgemm_decode_v2_m128`** (`d2m128`, prefill): 128-row tiles, eight m16 fragments — the same
//!   streaming kernel for 64 < M ≤ 256, where h6's 16–32 CTAs left most SMs idle (54–63% of cuBLAS).
use super::elem::{Bf16, Elem16, F16};
use super::split_k::sum_splits;
use crate::launch_bounds::launch_bounds;
use crate::util::unroll::unroll8;
use crate::prim::{
    atomic::{atom_add_acq_rel_gpu_u32, st_relaxed_gpu_u32},
    cp_async::{cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group_n},
    ldmatrix::{ldmatrix_x4, ldmatrix_x4_trans},
    shared::{self, ld_shared_u32, st_shared_u32},
    sync::{sync_threads, thread_fence},
    thread::{block_idx_x, block_idx_y, grid_dim_y, thread_idx_x},
};
use layout::{
    Layout,
    fragment::{Ldmatrix, MmaM16N8K16},
    hgemm::{DECODE_B as LB, DECODE_BN as BN, DECODE_KT as KT, DECODE_STAGES as STAGES, DECODE_THREADS as THREADS, decode_a, decode_stage_bytes},
};

launch_bounds!(hgemm_decode_v2, 128);
launch_bounds!(hgemm_decode_v2_m64, 128);
launch_bounds!(hgemm_decode_v2_m128, 128);
launch_bounds!(hgemm_decode_v2_bf16, 128);
launch_bounds!(hgemm_decode_v2_m64_bf16, 128);

/// Issues the `cp.async` copies of one stage (A: `16·MT × 64`, B: 64 × 64; chunks outside `m`,
/// `k_end`, `n` zero-filled) into ring slot `slot`, and commits the group.
///
/// # Safety
/// 128 threads call it; `a`, `b` as the kernels' contract; `k0`, `k_end`, `n` multiples of 8.
#[inline(always)]
unsafe fn load_stage<const MT: u32>(s_base: u32, slot: u32, a: *const u16, b: *const u16, m: u32, n: u32, k: u32, k_end: u32, m0: u32, n0: u32, k0: u32) {
    let tid = thread_idx_x();
    let la = decode_a(16 * MT);
    let s_a = s_base + slot * decode_stage_bytes(16 * MT);
    let s_b = s_a + 2 * 16 * MT * KT;
    let mut i = 0;
    while i < MT {
        let ch = tid + THREADS * i;
        let (row, col) = (ch / 8, 8 * (ch % 8));
        let ok = m0 + row < m && k0 + col < k_end;
        let src = if ok { a.wrapping_add((m0 + row) as usize * k as usize + (k0 + col) as usize) } else { a };
        // SAFETY: 16 readable, aligned bytes where `ok`, none read otherwise; inside the stage's A tile.
        unsafe { cp_async_cg_16_zfill(s_a + 2 * la.offset(row, col), src as *const u8, if ok { 16 } else { 0 }) };
        i += 1;
    }
    let mut i = 0;
    while i < 4 {
        let ch = tid + THREADS * i;
        let (row, col) = (ch / 8, 8 * (ch % 8));
        let ok = k0 + row < k_end && n0 + col < n;
        let src = if ok { b.wrapping_add((k0 + row) as usize * n as usize + (n0 + col) as usize) } else { b };
        // SAFETY: as for A, inside the stage's B tile.
        unsafe { cp_async_cg_16_zfill(s_b + 2 * LB.offset(row, col), src as *const u8, if ok { 16 } else { 0 }) };
        i += 1;
    }
    cp_async_commit_group();
}

/// The body of both d2 kernels, with `MT` m16 tiles (16·MT rows of C) per block.
///
/// # Safety
/// As [`hgemm_decode_v2`], with `16·MT` for 16 and `decode_smem(16·MT)` bytes of shared memory.
#[inline(always)]
unsafe fn decode<const MT: u32, E: Elem16>(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32) {
    let bm = 16 * MT;
    let tid = thread_idx_x();
    let (warp, lane) = (tid / 32, tid % 32);
    let tiles_m = m.div_ceil(bm).max(1); // >= 1: the divisions below cannot trap
    let (tile_n, tile_m, split) = (block_idx_x(), block_idx_y() % tiles_m, block_idx_y() / tiles_m);
    let splits = grid_dim_y() / tiles_m;
    let (m0, n0) = (tile_m * bm, tile_n * BN);
    let k_begin = split * k_split;
    let k_end = if k - k_begin < k_split { k } else { k_begin + k_split };
    let tiles_k = (k_end - k_begin).div_ceil(KT);
    let la = decode_a(bm);
    let s_base = shared::addr_of(shared::dynamic::<shared::Align16>());
    let mut acc = [[[0.0f32; 4]; 2]; 8];
    // SAFETY: every thread runs every barrier and collective the same number of times (block-uniform
    // bounds); a ring slot is refilled only after the barrier that ends its last use; addresses come
    // from the tile layouts.
    unsafe {
        // sm_90: launched with PDL (`util::pdl`): wait for the previous grid before touching memory.
        crate::util::pdl::wait_then_release();
        let mut s = 0;
        while s < STAGES - 1 {
            if s < tiles_k {
                load_stage::<MT>(s_base, s, a, b, m, n, k, k_end, m0, n0, k_begin + s * KT);
            } else {
                cp_async_commit_group();
            }
            s += 1;
        }
        let (ar, ac) = Ldmatrix::X4.tile_addr_rc(lane);
        let (br, bc) = Ldmatrix::X4_TRANS.tile_addr_rc(lane);
        let mut kt = 0;
        while kt < tiles_k {
            cp_async_wait_group_n(STAGES - 2);
            sync_threads();
            let next = kt + STAGES - 1;
            if next < tiles_k {
                load_stage::<MT>(s_base, next % STAGES, a, b, m, n, k, k_end, m0, n0, k_begin + next * KT);
            } else {
                cp_async_commit_group();
            }
            let s_a = s_base + (kt % STAGES) * decode_stage_bytes(bm);
            let s_b = s_a + 2 * bm * KT;
            let mut k16 = 0;
            while k16 < KT / 16 {
                let fb = ldmatrix_x4_trans(s_b + 2 * LB.offset(16 * k16 + br, 16 * warp + bc));
                unroll8!(mi => { if mi < MT {
                    let fa = ldmatrix_x4(s_a + 2 * la.offset(16 * mi + ar, 16 * k16 + ac));
                    E::mma(&mut acc[mi as usize][0], fa, [fb[0], fb[1]]);
                    E::mma(&mut acc[mi as usize][1], fa, [fb[2], fb[3]]);
                }});
                k16 += 1;
            }
            kt += 1;
        }
        cp_async_wait_group_n(0);
        // This thread's outputs: m16 tile mi, n8 half h, pair p → (row, col) of C, two adjacent columns.
        let place = |mi: u32, h: u32, p: u32| {
            let (r, cc) = MmaM16N8K16::c_rc(lane, 2 * p);
            (m0 + 16 * mi + r, n0 + 16 * warp + 8 * h + cc)
        };
        if splits == 1 {
            unroll8!(mi => { if mi < MT {
                let mut h = 0;
                while h < 2 {
                    let mut p = 0;
                    while p < 2 {
                        let (row, col) = place(mi, h, p);
                        if row < m && col < n {
                            let v = acc[mi as usize][h as usize];
                            // In bounds; col even and n even: the 32-bit store is aligned.
                            *(c.add(row as usize * n as usize + col as usize) as *mut u32) = E::pack(v[2 * p as usize], v[2 * p as usize + 1]);
                        }
                        p += 1;
                    }
                    h += 1;
                }
            }});
            return;
        }
        // This split's partial tile into its own slice of the workspace (rows padded to the tiles).
        let m_pad = tiles_m * bm;
        let slice = |sp: u32, row: u32, col: u32| ws.add((sp as usize * m_pad as usize + row as usize) * n as usize + col as usize);
        unroll8!(mi => { if mi < MT {
            let mut h = 0;
            while h < 2 {
                let mut p = 0;
                while p < 2 {
                    let (row, col) = place(mi, h, p);
                    if col < n {
                        let v = acc[mi as usize][h as usize];
                        // One 64-bit store: col even and n even, so the address is 8-byte aligned.
                        let bits = (v[2 * p as usize].to_bits() as u64) | (v[2 * p as usize + 1].to_bits() as u64) << 32;
                        *(slice(split, row, col) as *mut u64) = bits;
                    }
                    p += 1;
                }
                h += 1;
            }
        }});
        // The last block of this tile to arrive sums the splits: every thread's stores made visible
        // (fence), one release-acquire ticket per block.
        thread_fence();
        sync_threads();
        let s_flag = s_base + decode_stage_bytes(bm) * STAGES;
        let counter = count.add((tile_m * n.div_ceil(BN) + tile_n) as usize);
        if tid == 0 {
            let ticket = atom_add_acq_rel_gpu_u32(counter, 1);
            st_shared_u32(s_flag, (ticket == splits - 1) as u32);
        }
        sync_threads();
        if ld_shared_u32(s_flag) == 0 {
            return;
        }
        thread_fence();
        unroll8!(mi => { if mi < MT {
            let mut h = 0;
            while h < 2 {
                let mut p = 0;
                while p < 2 {
                    let (row, col) = place(mi, h, p);
                    if row < m && col < n {
                        // All splits' partials loaded back to back, then added: the tail is one L2
                        // round trip, not one per split.
                        let (x, y) = sum_splits(ws, splits, m_pad as usize * n as usize, row as usize * n as usize + col as usize);
                        *(c.add(row as usize * n as usize + col as usize) as *mut u32) = E::pack(x, y);
                    }
                    p += 1;
                }
                h += 1;
            }
        }});
        if tid == 0 {
            st_relaxed_gpu_u32(counter, 0);
        }
    }
}

/// `C = A · B` (f16, row-major, f32 accumulation) for M ≤ 16 per tile row, split along K.
///
/// # Safety
/// 128 threads per block, `decode_smem(16)` bytes of dynamic shared memory (16-byte aligned), grid
/// `(⌈n / 64⌉, ⌈m / 16⌉ · splits)`, `splits = ⌈k / k_split⌉ <= split_k::MAX_SPLITS` (16), `k_split` a positive multiple of 64;
/// `a`, `b`, `c` hold m·k, k·n, m·n f16, 16-byte aligned, `k % 8 == 0`, `n % 8 == 0`; when splits > 1,
/// `ws` holds `splits · 16⌈m/16⌉ · n` f32 and `count` `⌈n/64⌉ · ⌈m/16⌉` u32, the counters zero at launch
/// (the kernel leaves them zero), neither used by a concurrent launch.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v2(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<1, F16>(a, b, c, ws, count, m, n, k, k_split) }
}

/// [`hgemm_decode_v2`] with 64-row tiles: `decode_smem(64)` bytes, grid `(⌈n / 64⌉, ⌈m / 64⌉ ·
/// splits)`, `ws` of `splits · 64⌈m/64⌉ · n` f32, `count` of `⌈n/64⌉ · ⌈m/64⌉`.
///
/// # Safety
/// As [`hgemm_decode_v2`] with those sizes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v2_m64(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<4, F16>(a, b, c, ws, count, m, n, k, k_split) }
}

/// [`hgemm_decode_v2`] with 128-row tiles (prefill, 64 < M ≤ 256): `decode_smem(128)` bytes, grid
/// `(⌈n / 64⌉, ⌈m / 128⌉ · splits)`, `ws` of `splits · 128⌈m/128⌉ · n` f32, `count` of `⌈n/64⌉ · ⌈m/128⌉`.
///
/// # Safety
/// As [`hgemm_decode_v2`] with those sizes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v2_m128(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<8, F16>(a, b, c, ws, count, m, n, k, k_split) }
}

/// [`hgemm_decode_v2`] on bf16 A, B and C.
///
/// # Safety
/// As [`hgemm_decode_v2`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v2_bf16(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<1, Bf16>(a, b, c, ws, count, m, n, k, k_split) }
}

/// [`hgemm_decode_v2_m64`] on bf16 A, B and C.
///
/// # Safety
/// As [`hgemm_decode_v2_m64`].
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn hgemm_decode_v2_m64_bf16(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32, k: u32, k_split: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<4, Bf16>(a, b, c, ws, count, m, n, k, k_split) }
}

//! The body of the column-owning split-K decode steps (d2, d24), introduced by d2 (its file explains
//! the schedule): a block computes `16·MT` rows × 64 columns of C over one split of K through a
//! `cp.async` ring; warp `w` owns columns `16w … 16w+15` over every k16 step; each split stores its f32
//! partial tile, the tile's last block sums them. What differs between the steps is how a stage holds
//! the weights and how a fragment of them is read back ([`Weights`]): d2's swizzled 16-byte rows read
//! by `ldmatrix.trans`, d24's raw rows at any alignment read element by element. A (the activations)
//! is the same in both: 16-byte rows (`K % 8 == 0`, A 16-byte aligned).
use super::elem::Elem16;
use super::split_k::sum_splits;
use crate::util::unroll::{unroll4, unroll8};
use crate::prim::{
    atomic::{atom_add_acq_rel_gpu_u32, st_relaxed_gpu_u32},
    cp_async::{cp_async_cg_16_zfill, cp_async_commit_group, cp_async_wait_group_n},
    ldmatrix::ldmatrix_x4,
    shared::{self, ld_shared_u32, st_shared_u32},
    sync::{sync_threads, thread_fence},
    thread::{block_idx_x, block_idx_y, grid_dim_y, thread_idx_x},
};
use layout::{
    Layout,
    fragment::{Ldmatrix, MmaM16N8K16},
    hgemm::{DECODE_BN as BN, DECODE_B_AT_LAUNCH, DECODE_KT as KT, DECODE_STAGES as STAGES, DECODE_THREADS as THREADS, decode_a},
};

/// How a step's stages hold the 64 × 64 weight tile (B: K × N, row-major) and how a warp reads its
/// `mma` fragments back; how C's pairs and the partials' rows are laid out for that B.
pub(crate) trait Weights {
    /// Bytes of one stage's weight part.
    const B_BYTES: u32;
    /// What a thread computes once to find its fragments in every stage.
    type Lane: Copy;
    /// This thread's [`Weights::Lane`] (`lane`, `warp`: its place in the block; `b`, `n`: the weights).
    fn lane(lane: u32, warp: u32, b: *const u16, n: u32) -> Self::Lane;
    /// Issues this thread's `cp.async` copies of the weight tile at rows `k0 …` (zero at and past
    /// `k_end`), columns `n0 … n0+63` into the stage at `s_b` (no commit).
    ///
    /// # Safety
    /// 128 threads call it (`tid` their index); `s_b` is a stage's weight part; `b` holds `K × n`
    /// elements as the step's kernels state; `k0`, `k_end` multiples of 8, `n0` a multiple of 64.
    unsafe fn load(s_b: u32, b: *const u16, n: u32, k_end: u32, n0: u32, k0: u32, tid: u32);
    /// The warp's two n8 fragments of k16 step `k16` of the stage at `s_b`: `[b0, b1]` of columns
    /// `16w … 16w+7`, then of `16w+8 … 16w+15` (`MmaM16N8K16::b_rc`).
    ///
    /// # Safety
    /// The stage's copies have landed and are visible to the block (after the ring's barrier).
    unsafe fn fragments(s_b: u32, k16: u32, lane: &Self::Lane) -> [u32; 4];
    /// Writes the packed pair (`lo` to column `col`, `hi` to `col + 1` where that is below `n`) of row
    /// `row` of C.
    ///
    /// # Safety
    /// `row < m`, `col < n`, `col` even; C holds `m × n` elements as the kernels state.
    unsafe fn store_pair(c: *mut u16, n: u32, row: u32, col: u32, pair: u32);
    /// Row pitch (f32) of the partials' slices: even, at least `n`.
    fn ws_pitch(n: u32) -> u32;
}

/// Issues the `cp.async` copies of one stage's A tile (`16·MT × 64`) into ring slot `slot` (no commit).
///
/// # Safety
/// 128 threads call it; `a` as the kernels' contract; `k0`, `k_end` multiples of 8.
#[inline(always)]
unsafe fn load_a<const MT: u32, W: Weights>(s_base: u32, slot: u32, a: *const u16, m: u32, k: u32, k_end: u32, m0: u32, k0: u32) {
    let tid = thread_idx_x();
    let la = decode_a(16 * MT);
    let s_a = s_base + slot * stage_bytes::<W>(16 * MT);
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
}

/// Issues the `cp.async` copies of one stage's weight part into ring slot `slot` (no commit).
///
/// # Safety
/// As [`Weights::load`], 128 threads calling it.
#[inline(always)]
unsafe fn load_b<const MT: u32, W: Weights>(s_base: u32, slot: u32, b: *const u16, n: u32, k_end: u32, n0: u32, k0: u32) {
    let s_b = s_base + slot * stage_bytes::<W>(16 * MT) + 2 * 16 * MT * KT;
    // SAFETY: forwarded (the stage's weight part follows its A tile).
    unsafe { W::load(s_b, b, n, k_end, n0, k0, thread_idx_x()) };
}

/// Issues the `cp.async` copies of one stage (A, then the weights) into ring slot `slot` and commits
/// the group.
///
/// # Safety
/// 128 threads call it; `a`, `b` as the kernels' contract; `k0`, `k_end` multiples of 8.
#[inline(always)]
unsafe fn load_stage<const MT: u32, W: Weights>(s_base: u32, slot: u32, a: *const u16, b: *const u16, m: u32, n: u32, k: u32, k_end: u32, m0: u32,
                                                 n0: u32, k0: u32) {
    // SAFETY: forwarded.
    unsafe {
        load_a::<MT, W>(s_base, slot, a, m, k, k_end, m0, k0);
        load_b::<MT, W>(s_base, slot, b, n, k_end, n0, k0);
    }
    cp_async_commit_group();
}

/// Bytes of one stage: the A tile of `bm` rows and the weights.
#[inline(always)]
pub(crate) const fn stage_bytes<W: Weights>(bm: u32) -> u32 {
    2 * bm * KT + W::B_BYTES
}

/// The body of the column-owning decode kernels, with `MT` m16 tiles (16·MT rows of C) per block.
///
/// # Safety
/// As `hgemm_decode_v2` (for d24: `hgemm_decode_v24`), with `16·MT` rows per tile and
/// `STAGES · stage_bytes::<W>(16·MT) + 16` bytes of dynamic shared memory.
#[inline(always)]
pub(crate) unsafe fn decode<const MT: u32, E: Elem16, W: Weights>(a: *const u16, b: *const u16, c: *mut u16, ws: *mut f32, count: *mut u32, m: u32, n: u32,
                                                                   k: u32, k_split: u32, flags: u32) {
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
    let wl = W::lane(lane, warp, b, n);
    let mut acc = [[[0.0f32; 4]; 2]; 8];
    // SAFETY: every thread runs every barrier and collective the same number of times (block-uniform
    // bounds); a ring slot is refilled only after the barrier that ends its last use; addresses come
    // from the tile layouts.
    unsafe {
        // sm_90: launched with PDL (`util::pdl`): wait for the previous grid before touching A, C, the
        // workspace and (without the flag) B. `DECODE_B_AT_LAUNCH`: the previous grid does not write B,
        // so the weights of the first stages are copied before the wait, while that grid finishes;
        // otherwise with their A tiles after it.
        let b_early = flags & DECODE_B_AT_LAUNCH != 0;
        let mut s = 0;
        while s < STAGES - 1 {
            if b_early && s < tiles_k {
                load_b::<MT, W>(s_base, s, b, n, k_end, n0, k_begin + s * KT);
            }
            s += 1;
        }
        crate::util::pdl::wait();
        let mut s = 0;
        while s < STAGES - 1 {
            if s < tiles_k {
                load_a::<MT, W>(s_base, s, a, m, k, k_end, m0, k_begin + s * KT);
                if !b_early {
                    load_b::<MT, W>(s_base, s, b, n, k_end, n0, k_begin + s * KT);
                }
            }
            cp_async_commit_group();
            s += 1;
        }
        let (ar, ac) = Ldmatrix::X4.tile_addr_rc(lane);
        let mut kt = 0;
        while kt < tiles_k {
            cp_async_wait_group_n(STAGES - 2);
            sync_threads();
            let next = kt + STAGES - 1;
            if next < tiles_k {
                load_stage::<MT, W>(s_base, next % STAGES, a, b, m, n, k, k_end, m0, n0, k_begin + next * KT);
            } else {
                cp_async_commit_group();
            }
            let s_a = s_base + (kt % STAGES) * stage_bytes::<W>(bm);
            let s_b = s_a + 2 * bm * KT;
            // The stage's four k16 steps unrolled (KT = 64), whatever MT: every fragment address an
            // immediate offset.
            const _: () = assert!(KT == 64);
            unroll4!(k16 => {
                let fb = W::fragments(s_b, k16, &wl);
                unroll8!(mi => { if mi < MT {
                    let fa = ldmatrix_x4(s_a + 2 * la.offset(16 * mi + ar, 16 * k16 + ac));
                    E::mma(&mut acc[mi as usize][0], fa, [fb[0], fb[1]]);
                    E::mma(&mut acc[mi as usize][1], fa, [fb[2], fb[3]]);
                }});
            });
            kt += 1;
        }
        cp_async_wait_group_n(0);
        // The next grid's CTAs may be scheduled once every CTA is past its K loop: released at the start
        // (as before session 63), a following GEMM's CTAs took SM slots from this one's later waves while
        // they waited (the runner's step 13 µs a layer slower with two GEMMs back to back).
        crate::util::pdl::release();
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
                            W::store_pair(c, n, row, col, E::pack(v[2 * p as usize], v[2 * p as usize + 1]));
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
        let pitch = W::ws_pitch(n);
        let slice = |sp: u32, row: u32, col: u32| ws.add((sp as usize * m_pad as usize + row as usize) * pitch as usize + col as usize);
        unroll8!(mi => { if mi < MT {
            let mut h = 0;
            while h < 2 {
                let mut p = 0;
                while p < 2 {
                    let (row, col) = place(mi, h, p);
                    if col < n {
                        let v = acc[mi as usize][h as usize];
                        // One 64-bit store: col and the pitch even, so the address is 8-byte aligned.
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
        let s_flag = s_base + stage_bytes::<W>(bm) * STAGES;
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
                        let (x, y) = sum_splits(ws, splits, m_pad as usize * pitch as usize, row as usize * pitch as usize + col as usize);
                        W::store_pair(c, n, row, col, E::pack(x, y));
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

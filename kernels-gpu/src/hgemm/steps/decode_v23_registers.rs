//! Decode step d23 — the weights **streamed through registers**: no ring, no barrier in the K loop, no
//! TMA. Each warp of a 512-thread block loads its own 16-row chunks of the block's 64 weight columns
//! with `ld.global.nc.v4` (`DEPTH` chunks in flight in its registers), passes each chunk through a
//! private 2 KiB tile (`st.shared.v4`, `bar.warp.sync`, `ldmatrix.x4.trans`: the `Cᵀ = Bᵀ·Aᵀ` operand of
//! d3, in `mma.sync.m16n8k16` form) and multiplies it by ≤ 16 activation rows. The 16 warps' sums meet
//! once, in shared memory, after the loop; one block per 64 columns, K whole (d4's grid).
//!
//! Why: d15 reads 1×4096² at 84–85% of a copy of the weights in one launch; its stream runs at ~3.17 TB/s
//! (as fast as cuBLAS's decode kernel) and what it pays beyond the stream is fixed: 4.48 µs held at one
//! K tile, against 3.7 µs for the smallest TMA round trip (`launch_cost_tma_gmem`) and 3.1 µs for an
//! empty launch. That ~0.8 µs is d15's ring set-up (24 `mbarrier.init` and a fence), the warp roles,
//! the `wgmma` pipeline's drain and the TMA store's wait. d23 has none of them: its first loads leave
//! in the first instructions of every thread, and what follows the last load is one `mma`, one block
//! barrier, a 16-way sum in shared memory and a 4-byte store per thread.
//!
//! Prediction (before running): the fixed cost ~0.4–0.6 µs lower, ~4.0 µs held at one K tile; if the
//! stream keeps d15's rate with 96 KiB in flight per SM (512 threads × 3 chunks × 64 bytes) instead of
//! d15's 120 KiB, 1×4096² ~14.8–15.0 µs: **~86–87% of the copy** (d15 84–85%). The risk is the rate:
//! 64 SMs must each take ~50 GB/s through `ld.global`, twice what the reduce ladder's `ld.global` stream
//! asks of each of 132 SMs.
//!
//! Measured (H100, `results/2026-11-26-h100-session31/call2`, `call3`; weights rotated beyond L2, two
//! processes each alternating with the rule's d15): **wrong on both counts**. The stream: 1 / 8 / 16 ×
//! 4096² at **72–75% of the copy** (d15 84.3–84.8%), 1 / 16 × 4096×14336 86–87% (d15 96.5–97.4%),
//! 1×28672×8192 91% (d2 97.6%). The fixed cost: `ab` against d15 at 1×4096×64, **0.93×** (4.5 against
//! 4.2 µs) — not lower. The same 32 MiB over 32 / 64 / 128 blocks (1×2048×8192, 4096², 8192×2048):
//! 56.5–57.1 / 74.3–74.4 / 81.5–81.7% of the copy, d15 55.9–56.0 / 84.3–84.4 / 83.9%: at 32 blocks both
//! take ~45 GB/s per SM, but where d15's 64 TMA rings already read as fast as its 128 do, d23's
//! `ld.global` stream needs twice the SMs (and 12 MiB in flight) to come near it. Correct: `--check` at
//! ten shapes (ragged K, N = 4104, M = 7 / 9 / 13 / 17 / 32, K = 8), f16 and bf16; memcheck 0 errors,
//! racecheck 0 hazards. In `ab`, whose inputs are not rotated (32 MiB, largely served by the 50 MiB L2:
//! d15 13.3 µs there against 15.4 rotated), it is 1.04× d15 at 1×4096²: the registers are not slow, the
//! DRAM stream through them is. Not chosen; kept as a measured negative.
//!
//! Layout of the work: chunk row `r` of the weights lands in tile row `layout::hgemm::d23_tile_row(r)`,
//! so that the activations a lane's B fragment needs for the chunk are 4 consecutive ones (one 8-byte
//! load); the 16 × 64 tile is `D23_W` (`Swizzle<3,3,3>`): the 8 rows of every `ldmatrix` phase and the
//! 8 lanes of every store phase fall in distinct 16-byte chunks.
use super::elem::{Bf16, Elem16, F16};
use crate::prim::kernel;
use crate::prim::{
    global::{ld_global_nc_v2_u32, ld_global_nc_v4_u32},
    ldmatrix::ldmatrix_x4_trans,
    shared::{self, ld_shared_v2_u32, st_shared_f32, st_shared_v4_u32},
    sync::{sync_threads, sync_warp},
    thread::{block_idx_x, block_idx_y, thread_idx_x},
};
use crate::util::unroll::{unroll2, unroll4};
use layout::{
    Layout,
    fragment::{Ldmatrix, MmaM16N8K16},
    hgemm::{D23_CHUNK_K as CK, D23_SUM_PITCH as PITCH, D23_THREADS as THREADS, D23_W as LW, DECODE_BN as BN, d23_tile_row},
};

/// Warps of a block.
const WARPS: u32 = THREADS / 32;
/// Chunks a warp keeps in flight in its registers (each a lane's 64 bytes of weights and 16 of
/// activations): 3 × 512 threads × 64 bytes = 96 KiB of weights in flight per SM.
const DEPTH: u32 = 3;
/// Bytes of a warp's tile.
const TILE_BYTES: u32 = 2 * CK * BN;

/// One chunk in a lane's registers: its four 16-byte pieces of weights (chunk rows `4i + lane / 8`,
/// columns `8·(lane % 8) ..`), and for each half `h` of the 16 activation rows the 4 activations
/// `4t .. 4t+3` of the chunk of row `8h + lane / 4` (`t = lane % 4`): the B fragment as it stands.
#[derive(Clone, Copy)]
struct Chunk {
    w: [[u32; 4]; 4],
    x: [[u32; 2]; 2],
}

/// Loads chunk `chunk` (K rows `16·chunk ..`) into registers; rows ≥ `k`, columns ≥ `n` and activation
/// rows ≥ `m` read as zero (nothing is loaded there).
///
/// # Safety
/// `g_a`, `g_b` as [`hgemm_decode_v23`]'s contract; `k` and `n` multiples of 8; `n0 < n`.
#[inline(always)]
unsafe fn load(g_a: *const u16, g_b: *const u16, m: u32, n: u32, k: u32, m0: u32, n0: u32, lane: u32, chunk: u32) -> Chunk {
    let k0 = CK * chunk;
    let col = n0 + 8 * (lane % 8);
    let mut c = Chunk { w: [[0; 4]; 4], x: [[0; 2]; 2] };
    unroll4!(i => {
        let row = k0 + 4 * i + lane / 8;
        if row < k && col < n {
            // SAFETY: row < k, col + 7 < n (n a multiple of 8, col one too): 16 bytes inside B, 16-byte
            // aligned (n and col multiples of 8 elements; B's base is allocation-aligned); B is read-only
            // during the launch.
            c.w[i as usize] = unsafe { ld_global_nc_v4_u32(g_b.add(row as usize * n as usize + col as usize) as *const u32) };
        }
    });
    let kk = k0 + 4 * (lane % 4);
    unroll2!(h => {
        let row = m0 + 8 * h + lane / 4;
        if row < m && kk < k {
            // SAFETY: kk a multiple of 4 below k (a multiple of 8), so kk + 3 < k: 8 bytes inside A's row,
            // 8-byte aligned (k and kk multiples of 4 elements); A is read-only during the launch.
            c.x[h as usize] = unsafe { ld_global_nc_v2_u32(g_a.add(row as usize * k as usize + kk as usize) as *const u32) };
        }
    });
    c
}

/// Multiplies one chunk into the warp's sums: its weights through the warp's tile into four A
/// fragments (64 columns = 4 × m16), each times the activations' n8 halves (the second only where
/// the block has more than 8 rows of C).
///
/// # Safety
/// The whole warp calls it together (warp-uniform `two`); `s_tile` is this warp's tile alone;
/// `st_at` / `ld_at` the lane's offsets in it (below).
#[inline(always)]
unsafe fn consume<E: Elem16>(s_tile: u32, c: &Chunk, acc: &mut [[[f32; 4]; 2]; 4], st_at: &[u32; 4], ld_at: &[u32; 4], two: bool) {
    // SAFETY: every lane writes its own 16 bytes of the tile (a permutation of the 16 × 64), then the
    // warp's barrier orders them before any lane's `ldmatrix` reads them; the second barrier orders
    // those reads before the next chunk's stores. `mma` is warp-collective and `two` warp-uniform.
    unsafe {
        unroll4!(i => { st_shared_v4_u32(s_tile + st_at[i as usize], c.w[i as usize]); });
        sync_warp();
        unroll4!(nb => {
            // `.x4.trans` over (K rows, 16 columns): matrices (K 0-7, cols 0-7), (K 8-15, cols 0-7),
            // (K 0-7, cols 8-15), (K 8-15, cols 8-15); the A fragment of `Cᵀ` wants columns 8-15 (its
            // rows 8-15) second and K 8-15 third.
            let f = ldmatrix_x4_trans(s_tile + ld_at[nb as usize]);
            let a = [f[0], f[2], f[1], f[3]];
            E::mma(&mut acc[nb as usize][0], a, c.x[0]);
            if two {
                E::mma(&mut acc[nb as usize][1], a, c.x[1]);
            }
        });
        sync_warp();
    }
}

/// The body of both kernels.
///
/// # Safety
/// As [`hgemm_decode_v23`].
#[inline(always)]
unsafe fn decode<E: Elem16>(g_a: *const u16, g_b: *const u16, g_c: *mut u16, m: u32, n: u32, k: u32) {
    let tid = thread_idx_x();
    let (warp, lane) = (tid / 32, tid % 32);
    let (n0, m0) = (block_idx_x() * BN, block_idx_y() * 16);
    let two = m - m0 > 8; // the grid covers M: m0 < m
    let s_base = shared::addr_of(shared::dynamic::<shared::Align16>());
    let s_tile = s_base + warp * TILE_BYTES;
    // The lane's store slots (chunk rows 4i + lane / 8 permuted into the tile) and `ldmatrix` rows.
    let mut st_at = [0u32; 4];
    unroll4!(i => { st_at[i as usize] = 2 * LW.offset(d23_tile_row(4 * i + lane / 8), 8 * (lane % 8)); });
    let (lr, lc) = Ldmatrix::X4_TRANS.tile_addr_rc(lane);
    let mut ld_at = [0u32; 4];
    unroll4!(nb => { ld_at[nb as usize] = 2 * LW.offset(lr, 16 * nb + lc); });
    let chunks = k.div_ceil(CK);
    let mine = if warp < chunks { (chunks - warp).div_ceil(WARPS) } else { 0 };
    let mut acc = [[[0.0f32; 4]; 2]; 4];
    // SAFETY: loads as `load`'s contract (the host's); chunks past K load nothing. Every lane of a warp
    // runs the same iterations (`mine` is warp-uniform), so the warp-collective calls in `consume` are
    // reached by all lanes; the warps share nothing until the block barrier after the loop.
    unsafe {
        // Unrolled (`unroll4!` under `d < DEPTH`): the buffers stay in registers.
        let mut buf = [Chunk { w: [[0; 4]; 4], x: [[0; 2]; 2] }; DEPTH as usize];
        unroll4!(d => { if d < DEPTH {
            buf[d as usize] = load(g_a, g_b, m, n, k, m0, n0, lane, warp + WARPS * d);
        }});
        let mut j = 0;
        while j < mine {
            unroll4!(d => { if d < DEPTH && j + d < mine {
                consume::<E>(s_tile, &buf[d as usize], &mut acc, &st_at, &ld_at, two);
                buf[d as usize] = load(g_a, g_b, m, n, k, m0, n0, lane, warp + WARPS * (j + d + DEPTH));
            }});
            j += DEPTH;
        }
    }
    // The 16 warps' sums: each writes its 16 × 64 (rows of C × columns) to its slice of the sum area,
    // which reuses the tiles; then thread `tid` adds column pair `tid % 32` of row `tid / 32` over the
    // warps and stores it.
    // SAFETY: the first barrier ends every warp's tile use (the area is reused); each (warp, row,
    // column) slot is written by one thread; the second barrier orders the writes before the reads;
    // offsets stay inside D23_DYN_SMEM (16 × 16 × PITCH f32).
    unsafe {
        sync_threads();
        unroll4!(nb => { unroll2!(h => { unroll4!(e => {
            // The accumulator holds `Cᵀ`: its fragment row is a column of C, its column a row of C.
            let (r, c) = MmaM16N8K16::c_rc(lane, e);
            let (row, col) = (8 * h + c, 16 * nb + r);
            st_shared_f32(s_base + 4 * ((warp * 16 + row) * PITCH + col), acc[nb as usize][h as usize][e as usize]);
        }); }); });
        sync_threads();
        let (row, col) = (tid / 32, 2 * (tid % 32));
        let (mut lo, mut hi) = (0.0f32, 0.0f32);
        let mut w = 0;
        while w < WARPS {
            let v = ld_shared_v2_u32(s_base + 4 * ((w * 16 + row) * PITCH + col));
            lo += f32::from_bits(v[0]);
            hi += f32::from_bits(v[1]);
            w += 1;
        }
        if m0 + row < m && n0 + col < n {
            // In bounds (n a multiple of 8 and col even: col + 1 < n too); 4-byte aligned.
            *(g_c.add((m0 + row) as usize * n as usize + (n0 + col) as usize) as *mut u32) = E::pack(lo, hi);
        }
    }
}

/// `C = A · B` (f16, f32 accumulation) for M ≤ 16 per block row: one block per 64 × 16 tile of C (grid
/// `(⌈N / 64⌉, ⌈M / 16⌉)`), K whole, the weights streamed through registers.
///
/// # Safety
/// 512 threads, `layout::hgemm::D23_DYN_SMEM` bytes of dynamic shared memory; A (M × K), B (K × N), C
/// (M × N) row-major, device-resident, A and B not written during the launch, C not overlapping them;
/// K and N multiples of 8; the grid as above.
#[kernel(threads = 512, blocks_per_sm = 1)]
pub unsafe fn hgemm_decode_v23(g_a: *const u16, g_b: *const u16, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<F16>(g_a, g_b, g_c, m, n, k) }
}

/// [`hgemm_decode_v23`] on bf16.
///
/// # Safety
/// As [`hgemm_decode_v23`], the matrices bf16.
#[kernel(threads = 512, blocks_per_sm = 1)]
pub unsafe fn hgemm_decode_v23_bf16(g_a: *const u16, g_b: *const u16, g_c: *mut u16, m: u32, n: u32, k: u32) {
    // SAFETY: forwarded.
    unsafe { decode::<Bf16>(g_a, g_b, g_c, m, n, k) }
}


#![cfg(lab_sm90)]
//! The Hopper backward steps' shared pieces (issue 50): the tile copies, the `wgmma` issues of the 64 × 64
//! products (both operands from shared memory) and of the register-A products, the fragment helpers, the
//! mask's place and the exponentials [`probs`], the streamed query item [`load_query_item`] and the
//! epilogue [`store_rows`]. Steps b3 (`steps/v23_backward_wgmma.rs`, whose file explains the layout) and
//! b4 (`steps/v27_backward_wgmma_atomic.rs`) hold the bodies and entries. b4 loads its Q and dO by the TMA
//! (its own query item) and shares the epilogue since session 66, when it stopped spilling (ptxas: the same
//! registers, spill-free; session 65's inline copy had spared its causal D = 128 entry 8 bytes of spill).
use crate::attention::hopper::pin;
use crate::hgemm::elem::Elem16;
use crate::prim::{
    cp_async::{cp_async_ca_4_zfill, cp_async_cg_16_zfill},
    ldmatrix::ldmatrix_x4,
    math::{ex2_approx_f32, fma_rn_f32},
    shared::ld_shared_v2_u32,
    wgmma::{wgmma_commit_group, wgmma_fence},
};
use crate::util::unroll::{unroll2, unroll4, unroll8};
use layout::attention::{BWD_BKV, BWD_BQ, BWD_H_ROWS as ROWS, BWD_H_STREAM as STREAM, BackwardDims as Dims, sw128_box_bytes, sw128_byte};
use layout::hopper::WgmmaDesc;

// The dK/dV kernel walks b1's grid and query tiles (the host launches both on b1's arithmetic).
const _: () = assert!(BWD_BKV == ROWS && BWD_BQ == STREAM && ROWS == 2 * 64);

/// Threads per CTA: two warpgroups.
const THREADS: u32 = 256;
/// K-major operands (Sᵀ's, S's, dP's A and B): 128-byte rows, 8-row groups 1024 bytes apart.
const K_MAJOR: WgmmaDesc = WgmmaDesc::K_MAJOR_SW128;
/// A streamed tile as the MN-major B of dV, dK, dQ (K = its 64 rows; LBO: the next 64 columns' box).
const STREAM_MN: WgmmaDesc = match WgmmaDesc::mn_major_sw128(0, STREAM) {
    Ok(d) => d,
    Err(_) => panic!("MN-major descriptor"),
};

/// Copies rows `row0 .. row0 + R` (of `len`) of a matrix whose row `r` starts at `g + r · stride`
/// (`D` 16-bit elements) into the `R × D` tile at `s_tile` ([`sw128_byte`]'s layout), 16-byte `cp.async`
/// chunks spread over the CTA's 256 threads; rows past `len` zero-filled (a zero-byte copy from `g`).
/// Thread `tid` copies column chunk `tid % (D/8)` of rows `tid / (D/8) + j · rpp` (`rpp = 2048 / D` rows
/// a pass, a multiple of 8): its shared offset moves by `rpp · 128` bytes a pass (whole swizzle periods)
/// and its source by `rpp` rows — one offset computed once, not the swizzle per chunk.
///
/// # Safety
/// `g + r · stride` is `D` readable elements, 16-byte aligned, for every `r < len` (and `g` readable);
/// `s_tile` is 1024-byte aligned and nobody reads the tile until this thread's copy group completes and
/// a barrier follows; `tid < 256`.
#[inline(always)]
pub(super) unsafe fn load_tile<const D: u32, const R: u32>(s_tile: u32, g: *const u16, stride: u32, row0: u32, len: u32, tid: u32) {
    let rpp = THREADS / (D / 8);
    const { assert!(R % (THREADS / (D / 8)) == 0 && (THREADS / (D / 8)) % 8 == 0) };
    let (r0, col) = (tid / (D / 8), 8 * (tid % (D / 8)));
    let s0 = s_tile + sw128_byte(R, r0, col);
    // SAFETY: a valid row lies inside the matrix (the caller), an invalid one reads 0 bytes from `g`;
    // the destination chunk lies inside the tile (`sw128_byte` < 2·R·D, `r0 + j·rpp < R`).
    unsafe {
        // `wrapping_add`: rows past `len` form addresses outside the matrix that are never read.
        let mut src = g.wrapping_add((row0 + r0) as usize * stride as usize + col as usize);
        let step = rpp as usize * stride as usize;
        for j in 0..R / rpp {
            let valid = row0 + r0 + j * rpp < len;
            cp_async_cg_16_zfill(s0 + j * rpp * 128, if valid { src } else { g } as *const u8, if valid { 16 } else { 0 });
            src = src.wrapping_add(step);
        }
    }
}

/// The K-major descriptor of K-step `ks` (16 columns) of the 64 rows from `row0` of a `rows`-row tile at
/// `s`.
#[inline(always)]
fn k_desc(s: u32, rows: u32, row0: u32, ks: u32) -> u64 {
    K_MAJOR.advance(s + (ks / 4) * sw128_box_bytes(rows) + row0 * 128 + 32 * (ks % 4)).0
}

/// `acc = X_w · Aᵀ` over `D`: the warpgroup's 64 rows of the resident tile at `s_x` (rows `row0..`)
/// against the 64 rows of the streamed tile at `s_a`, issued and committed (not waited for).
///
/// # Safety
/// All 128 threads of a warpgroup; both tiles written and made visible to the async proxy before; nobody
/// writes them, nor reads `acc`, until a wait retires the group.
#[inline(always)]
pub(super) unsafe fn issue_ss<E: Elem16, const D: u32>(acc: &mut [f32; 32], s_x: u32, row0: u32, s_a: u32) {
    let dx: [u64; 8] = core::array::from_fn(|ks| k_desc(s_x, ROWS, row0, ks as u32 % (D / 16)));
    let da: [u64; 8] = core::array::from_fn(|ks| k_desc(s_a, STREAM, 0, ks as u32 % (D / 16)));
    // SAFETY: forwarded.
    unsafe {
        wgmma_fence();
        unroll8!(ks => {
            if ks < D / 16 {
                E::wgmma_64::<0, 0>(acc, dx[ks as usize], da[ks as usize], ks > 0);
            }
        });
        wgmma_commit_group();
    }
}

/// The warpgroup's 64 rows from `row0` of the resident `ROWS`-row tile at `s_x` ([`sw128_byte`]'s layout,
/// D = 64) as `wgmma` A fragments, one `[u32; 4]` a K-step of 16 columns (`ldmatrix.x4`: lanes 0–15 name rows
/// `16·warp + 0..16` at the K-step's first 8 columns, lanes 16–31 the same rows 8 columns on — the A fragment of
/// `mma.m16n8k16`, which is a register-A `wgmma`'s per warp). b4 at D = 64 holds K's and V's so, for the whole
/// walk over the query tiles: Sᵀ and dPᵀ then read only their B from shared memory.
///
/// # Safety
/// All 32 lanes of each warp of the warpgroup; the tile written and visible to this thread (its copies waited
/// for and a barrier since); `s_x` 1024-byte aligned.
#[inline(always)]
pub(super) unsafe fn load_a_frags64(s_x: u32, row0: u32, warp: u32, lane: u32) -> [[u32; 4]; 4] {
    let row = row0 + 16 * warp + lane % 16;
    // SAFETY: forwarded; every address is a 16-byte chunk of the tile (row < ROWS, columns 16kk + 8·(lane/16)
    // .. + 8 < 64: the swizzle moves whole 16-byte chunks within the row's 128-byte line).
    core::array::from_fn(|kk| unsafe { ldmatrix_x4(s_x + sw128_byte(ROWS, row, 16 * kk as u32 + 8 * (lane / 16))) })
}

/// [`issue_ss`] at D = 64 with the resident rows as A fragments in registers (`x`, from [`load_a_frags64`]):
/// `acc = X_w · Aᵀ`, only the streamed tile at `s_a` read from shared memory (K-major, as `issue_ss` reads it).
///
/// # Safety
/// As [`issue_ss`]; `x` the warpgroup's fragments of its 64 resident rows.
#[inline(always)]
pub(super) unsafe fn issue_rs64_kmajor<E: Elem16>(acc: &mut [f32; 32], x: &[[u32; 4]; 4], s_a: u32) {
    let da: [u64; 4] = core::array::from_fn(|ks| k_desc(s_a, STREAM, 0, ks as u32));
    // SAFETY: forwarded.
    unsafe {
        wgmma_fence();
        unroll4!(ks => {
            E::wgmma_64_rs::<0>(acc, x[ks as usize], da[ks as usize], (ks > 0) as u32);
        });
        wgmma_commit_group();
    }
}

/// `acc += P · B` with P (64 × 64, 16-bit A fragments `p[k-step]`) from registers and B the streamed tile
/// at `s_b` read MN-major (its 64 rows are K, its `D` columns N), issued and committed.
///
/// # Safety
/// As [`issue_ss`]; `p` and `acc` untouched until the wait.
#[inline(always)]
pub(super) unsafe fn issue_rs<E: Elem16, const D: u32>(acc: &mut [[f32; 32]; 2], p: &[[u32; 4]; 4], s_b: u32) {
    let db: [u64; 4] = core::array::from_fn(|kk| STREAM_MN.advance(s_b + 2048 * kk as u32).0);
    pin(acc);
    // SAFETY: forwarded.
    unsafe {
        wgmma_fence();
        unroll4!(kk => {
            if D == 64 {
                E::wgmma_64_rs::<1>(&mut acc[0], p[kk as usize], db[kk as usize], 1);
            } else {
                E::wgmma_128_rs::<1>(acc, p[kk as usize], db[kk as usize], 1);
            }
        });
        wgmma_commit_group();
    }
}

/// A-operand fragments fixed in registers at this point of the program (an empty `asm!` that reads and
/// writes them): the dS fragments a `wgmma` still in flight reads, held until a wait has retired it — so
/// that neither compiler gives their registers to anything else before then.
#[inline(always)]
pub(super) fn pin_frags(p: &mut [[u32; 4]; 4]) {
    // SAFETY: emits no instruction; only declares the registers read and written.
    unsafe {
        core::arch::asm!("// pin_frags {0} {1} {2} {3} {4} {5} {6} {7} {8} {9} {10} {11} {12} {13} {14} {15}",
                         inout(reg32) p[0][0], inout(reg32) p[0][1], inout(reg32) p[0][2], inout(reg32) p[0][3], inout(reg32) p[1][0], inout(reg32) p[1][1],
                         inout(reg32) p[1][2], inout(reg32) p[1][3], inout(reg32) p[2][0], inout(reg32) p[2][1], inout(reg32) p[2][2], inout(reg32) p[2][3],
                         inout(reg32) p[3][0], inout(reg32) p[3][1], inout(reg32) p[3][2], inout(reg32) p[3][3], options(nomem, nostack));
    }
}

/// Stores element pair (`x[0..2]` row g, `x[2..4]` row g + 8) of n-tile `nt` into the A fragments of a
/// K = 64 product: k-step `nt / 2` holds n-tiles 2kk and 2kk + 1 (the accumulator-to-A identity).
#[inline(always)]
pub(super) fn put<E: Elem16>(p: &mut [[u32; 4]; 4], nt: u32, x: [f32; 4]) {
    p[(nt / 2) as usize][(2 * (nt % 2)) as usize] = E::pack(x[0], x[1]);
    p[(nt / 2) as usize][(2 * (nt % 2) + 1) as usize] = E::pack(x[2], x[3]);
}

/// Where a 64 × 64 product of the tile sits, for the mask: element `e` of n-tile `nt` is row
/// `row0 + 16·warp + g + 8·(e / 2)`, column `col0 + 8·nt + 2t + e % 2`; the rows are keys (`KV`) or
/// queries.
#[derive(Clone, Copy)]
pub(super) struct Place {
    pub(super) row0: u32,
    pub(super) col0: u32,
    pub(super) k_len: u32,
    pub(super) q_len: u32,
    pub(super) causal: bool,
    pub(super) off: u32,
}

impl Place {
    /// Whether element (`r`, `c`) of the tile is hidden: its key past the keys or past its query's last
    /// visible key, or its query past the queries (their Q and dO rows are zeros: b3 loads zeros there, b4
    /// zeroes what its TMA box brought; hiding them too changes nothing).
    #[inline(always)]
    pub(super) fn hidden<const KV: bool>(self, r: u32, c: u32) -> bool {
        let (key, query) = if KV { (self.row0 + r, self.col0 + c) } else { (self.col0 + c, self.row0 + r) };
        key >= self.k_len || query >= self.q_len || (self.causal && key > query + self.off)
    }
}

/// A thread's place in its warpgroup's accumulator fragments: warp, row group `g` (lane / 4) and
/// column pair `t` (lane % 4).
#[derive(Clone, Copy)]
pub(super) struct Lanes {
    pub(super) warp: u32,
    pub(super) g: u32,
    pub(super) t: u32,
}

/// P = 2^(S·scale·log2 e − log2 e·LSE) in place over the warpgroup's 64 × 64 product at `place` (0 where
/// hidden; `MASK`: the tile may hold hidden elements — without it no compare is made), and with `KV`
/// (Pᵀ: rows are keys) its A fragments `r_p`. The `log2 e · LSE` of a column's query at `s_st` (KV: shared,
/// one f32 a query), or of a row's in `r_lse` (rows `g`, `g + 8`).
///
/// # Safety
/// KV: `s_st` is the 8-byte-aligned shared address of the stage's landed, visible statistics.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn probs<E: Elem16, const KV: bool, const MASK: bool>(s: &mut [f32; 32], r_p: &mut [[u32; 4]; 4], s_st: u32, r_lse: [f32; 2], scale2: f32, place: Place,
                                                                       Lanes { warp, g, t }: Lanes) {
    unroll8!(nt => {
        let c = 8 * nt + 2 * t;
        // SAFETY: inside the statistics (c + 1 < 64), 8-byte aligned (c even); forwarded.
        let l2 = if KV { unsafe { ld_shared_v2_u32(s_st + 4 * c) }.map(f32::from_bits) } else { [0.0; 2] };
        let mut x = [0f32; 4];
        unroll4!(e => {
            let (r, cc) = (16 * warp + g + 8 * (e / 2), c + e % 2);
            let lse = if KV { l2[(e % 2) as usize] } else { r_lse[(e / 2) as usize] };
            let p = ex2_approx_f32(fma_rn_f32(s[(4 * nt + e) as usize], scale2, -lse));
            x[e as usize] = if MASK && place.hidden::<KV>(r, cc) { 0.0 } else { p };
            s[(4 * nt + e) as usize] = x[e as usize];
        });
        if KV {
            put::<E>(r_p, nt, x);
        }
    });
}

/// b3's dK/dV kernel's streamed item: rows `qt·64 ..` of query head `h`'s Q and dO (`src`; the
/// sequence's first element at `qbase`) into the stage's tiles `stage[0]`, `stage[1]`, and their
/// statistics (`log2 e · LSE`, then D) into `stage[2]`, threads 0..64 and 64..128 four bytes each; rows past
/// `q_len` zero-filled.
///
/// # Safety
/// As [`load_tile`] for Q and dO; `stats` holds `2 · heads · tokens_q` f32 (`dims`); `tid < 256`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn load_query_item<const D: u32>(stage: [u32; 3], src: [*const u16; 2], stats: *const f32, qbase: usize, h: u32, qt: u32, q_start: u32, q_len: u32, dims: Dims,
                                                   tid: u32) {
    let hq = qbase + h as usize * dims.q_head as usize;
    // SAFETY: forwarded; a statistic is read for a row below q_len only (row 0 of the sequence otherwise,
    // with a zero-byte copy).
    unsafe {
        load_tile::<D, STREAM>(stage[0], src[0].add(hq), dims.q_tok, qt * STREAM, q_len, tid);
        load_tile::<D, STREAM>(stage[1], src[1].add(hq), dims.q_tok, qt * STREAM, q_len, tid);
        if tid < 2 * STREAM {
            let (which, r) = (tid / STREAM, tid % STREAM);
            let row = qt * STREAM + r;
            let valid = row < q_len;
            let at = (which * dims.heads + h) as usize * dims.tokens_q as usize + (q_start + if valid { row } else { 0 }) as usize;
            cp_async_ca_4_zfill(stage[2] + 4 * tid, stats.add(at) as *const u8, if valid { 4 } else { 0 });
        }
    }
}

/// The epilogue (b3, b4): the warpgroup's accumulator rows `rows` (`g`, `g + 8` of the thread's warp)
/// below `end`, row `r` at element `base + r · tok` of `out[0]` (`acc0` times `scale`) and, with `KV`,
/// of `out[1]` (`acc1`), `D` columns each, packed to 16 bits.
///
/// # Safety
/// Every stored row lies inside its output tensor; nothing else writes those elements meanwhile.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn store_rows<E: Elem16, const D: u32, const KV: bool>(acc0: &[[f32; 32]; 2], acc1: &[[f32; 32]; 2], out: [*mut u16; 2], base: usize, tok: u32, rows: [u32; 2],
                                                                        end: u32, scale: f32, t: u32) {
    unroll2!(h => {
        let r = rows[h as usize];
        if r < end {
            let at = base + r as usize * tok as usize;
            unroll2!(bb => {
                if bb < D / 64 {
                    unroll8!(jj => {
                        let col = (64 * bb + 8 * jj + 2 * t) as usize;
                        let i = (4 * jj + 2 * h) as usize;
                        let (a, c) = (&acc0[bb as usize], &acc1[bb as usize]);
                        // SAFETY: forwarded (row r below `end`, column col + 1 < D).
                        unsafe {
                            *(out[0].add(at + col) as *mut u32) = E::pack(a[i] * scale, a[i + 1] * scale);
                            if KV {
                                *(out[1].add(at + col) as *mut u32) = E::pack(c[i], c[i + 1]);
                            }
                        }
                    });
                }
            });
        }
    });
}

// b4's and b9's dQ product (`steps/v27_backward_wgmma_atomic.rs`, `steps/v41_backward_producer.rs`).

/// A 128-row tile (the resident K, or dSᵀ's 128 keys) as an MN-major operand whose K is its rows: 16 rows
/// (one k-step) are 2048 bytes; LBO steps to the next 64 columns' box.
pub(super) const RES_MN: WgmmaDesc = match WgmmaDesc::mn_major_sw128(0, ROWS) {
    Ok(d) => d,
    Err(_) => panic!("MN-major descriptor"),
};

/// The first 16 of 32 accumulators: a `m64n32k16`'s (D = 64: a warpgroup's 32 of dQ's columns).
#[inline(always)]
pub(super) fn low16(acc: &mut [f32; 32]) -> &mut [f32; 16] {
    // SAFETY: `[f32; 32]` starts with 16 `f32`s, laid out as a `[f32; 16]`; the borrow is `acc`'s.
    unsafe { &mut *(acc.as_mut_ptr() as *mut [f32; 16]) }
}

/// `acc = dS · K[:, half]`: the tile's 64 queries (rows of dS, read MN-major from the dSᵀ tile at `s_ds`)
/// over the CTA's 128 keys, against columns `D/2 · wg ..` of the resident K at `s_k` (MN-major: K's
/// rows are this product's K); issued and committed. At D = 64 the half starts 64 bytes into the
/// 128-byte swizzled line: the swizzle is on absolute address bits, so the start moves like
/// [`issue_ss`]'s K-steps inside a line.
///
/// # Safety
/// All 128 threads of a warpgroup; both tiles written and made visible to the async proxy before; nobody
/// writes them, nor reads `acc`, until a wait retires the group.
#[inline(always)]
pub(super) unsafe fn issue_dq<E: Elem16, const D: u32>(acc: &mut [f32; 32], s_ds: u32, s_k: u32, wg: u32) {
    let half = if D == 128 { wg * sw128_box_bytes(ROWS) } else { 64 * wg };
    let da: [u64; 8] = core::array::from_fn(|ks| RES_MN.advance(s_ds + 2048 * ks as u32).0);
    let db: [u64; 8] = core::array::from_fn(|ks| RES_MN.advance(s_k + half + 2048 * ks as u32).0);
    // SAFETY: forwarded.
    unsafe {
        wgmma_fence();
        unroll8!(ks => {
            if D == 128 {
                E::wgmma_64::<1, 1>(acc, da[ks as usize], db[ks as usize], ks > 0);
            } else {
                E::wgmma_flat::<1, 1, [f32; 16]>(low16(acc), da[ks as usize], db[ks as usize], ks > 0);
            }
        });
        wgmma_commit_group();
    }
}

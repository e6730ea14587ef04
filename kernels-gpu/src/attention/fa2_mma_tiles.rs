//! FlashAttention-2's forward tiles on `mma.sync` (introduced by a11, whose file explains them): the
//! body [`flash_fa2_tiles`] (4 warps × 32 query rows, 128-key tiles at D = 64 and 64-key at D = 128,
//! `ldmatrix` addresses as bases plus immediates), generic over the element type, the head dimension
//! and the order in which blocks take (head, query tile) ([`ORDER_A11`], [`ORDER_A16`], [`ORDER_A17`]),
//! and the entries' macro [`fa2_tiles_entry!`]. Used by a11, a16 and a17; its key tile ([`fa2_tile`]) also by
//! a33's body [`flash_fa2_varlen`] (packed sequences of different lengths, grouped K/V heads) and
//! [`fa2_varlen_entry!`].
use crate::attention::flash::{load_rows, load_tile, quad_max, store_mtile, store_rows};
use crate::hgemm::elem::Elem16;
use crate::prim::{
    cp_async::{cp_async_commit_group, cp_async_wait_group},
    ldmatrix::{ldmatrix_x4, ldmatrix_x4_trans},
    math::ex2_approx_f32,
    shared::{Align16, addr_of, dynamic},
    sync::sync_threads,
    global::ld_global_nc_s32,
    thread::{block_idx_x, block_idx_y, block_idx_z, grid_dim_x, lane_id, thread_idx_x},
};
use crate::util::{
    opaque,
    unroll::{unroll2, unroll4, unroll8, unroll16},
};
use layout::{
    Layout,
    attention::{A11_BQ, A11_MT, A11_WARPS, PrefillDims, TileOf, a11_bkv, a11_sums_offset, a17_item, flash_tile_bytes_of, kv_tiles_of, kv_tiles_off, needs_mask_of,
                needs_mask_off, threads, tile},
};

/// A constant offset the layout promises (`row_step` / `col_step`); a compile error where it has none.
const fn step(d: Option<u32>) -> u32 {
    match d {
        Some(d) => d,
        None => panic!("the layout's offsets do not move by a constant over that step"),
    }
}

/// This lane's `ldmatrix` byte offsets in a11's tiles, at column block 0: Q's A fragments (`q`, rows of
/// this warp's first m-tile), K's B fragments (`k`, key rows 0..16) and V's `.trans` B fragments (`v`,
/// key rows 0..16). Every other fragment's offset is one of these XOR a column block `2 · 16·(i % 4)`
/// (`col_xor`), plus `2 · row_step(16)` per 16 rows and `2 · col_step(64)` per 64 columns (D = 128) —
/// all promised by the layout for these tiles (`layout` tests). The XOR is one `LOP3` per column block
/// and the constants become the `LDSM`'s immediates: three registers per lane instead of one per
/// fragment address.
#[derive(Clone, Copy)]
struct Bases {
    q: u32,
    k: u32,
    v: u32,
}

impl Bases {
    #[inline(always)]
    fn new<const D: u32>(warp: u32, lane: u32) -> Bases {
        let (tq, tkv) = (tile(A11_BQ, D), tile(a11_bkv(D), D));
        // `.x4` lane addresses: Q and V (`rows_then_cols` in flash.rs) take matrices (rows 0–7, cols 0–7),
        // (8–15, 0–7), (0–7, 8–15), (8–15, 8–15); K (`cols_then_rows`) takes (0–7, 0–7), (0–7, 8–15),
        // (8–15, 0–7), (8–15, 8–15) — two k-halves of one n-tile, then the next n-tile.
        let (r_qv, c_qv) = (lane % 16, 8 * (lane / 16));
        let (r_k, c_k) = (8 * (lane / 16) + lane % 8, 8 * (lane / 8 % 2));
        Bases { q: 2 * tq.offset(16 * A11_MT * warp + r_qv, c_qv), k: 2 * tkv.offset(r_k, c_k), v: 2 * tkv.offset(r_qv, c_qv) }
    }

    /// The same offsets, hidden from the optimizers (no instruction): the XORs and sums with them are
    /// formed where they are used, inside the key loop, instead of being hoisted out of it into registers.
    #[inline(always)]
    fn fresh(&self) -> Bases {
        Bases { q: opaque(self.q), k: opaque(self.k), v: opaque(self.v) }
    }
}

/// Byte XOR from a lane's column-block-0 offset to column block `16·(i % 4)` in a11's tiles at head dim
/// `D` (the blocks `i ≥ 4` of D = 128 add `col_step(64)` on top).
#[inline(always)]
const fn frag_xor<const D: u32>(i: u32) -> u32 {
    2 * step(tile(A11_BQ, D).col_xor(16 * (i % 4)))
}

/// a17's (head, query tile) of this block from special registers read here: `mov` from `%ctaid` and
/// `%nctaid` in asm that is not `pure`, which LLVM neither merges nor hoists, so the two are formed at
/// each use instead of held in registers across the key loop (at 255 registers, holding them spilled
/// 16 bytes at D = 64).
#[inline(always)]
fn a17_item_here() -> (u32, u32) {
    let (x, y, z, gx, gy): (u32, u32, u32, u32, u32);
    // SAFETY: reads special registers only; no memory, no side effect beyond the outputs.
    unsafe {
        core::arch::asm!("mov.u32 {0}, %ctaid.x; mov.u32 {1}, %ctaid.y; mov.u32 {2}, %ctaid.z; mov.u32 {3}, %nctaid.x; mov.u32 {4}, %nctaid.y;",
                         out(reg32) x, out(reg32) y, out(reg32) z, out(reg32) gx, out(reg32) gy, options(nomem, nostack));
    }
    a17_item(x, y, z, gx, gy)
}

/// This block's `(%ctaid.x, %ctaid.z)` read here, in asm that is not `pure` (as [`a17_item_here`]): formed
/// at each use, not held in registers across a33's key loop.
#[inline(always)]
fn ctaid_xz_here() -> (u32, u32) {
    let (x, z): (u32, u32);
    // SAFETY: reads special registers only; no memory, no side effect beyond the outputs.
    unsafe {
        core::arch::asm!("mov.u32 {0}, %ctaid.x; mov.u32 {1}, %ctaid.z;", out(reg32) x, out(reg32) z, options(nomem, nostack));
    }
    (x, z)
}

/// a11's block order: block (x, y) is query tile x of head y.
pub(super) const ORDER_A11: u32 = 0;
/// a16's: each head's query tiles in reverse (longest first with the causal mask).
pub(super) const ORDER_A16: u32 = 1;
/// a17's: the longest tiles of a group of heads first (`layout::attention::a17_item`).
pub(super) const ORDER_A17: u32 = 2;

/// The a11 body for input type `E` and head dim `D` (64 or 128): grid `(⌈l/128⌉, heads)` (a17:
/// `layout::attention::a17_grid`), 128 threads.
///
/// `ORDER` says which (head, query tile) a block takes: [`ORDER_A11`] block (x, y) tile x of head y;
/// [`ORDER_A16`] tile `⌈l/128⌉ − 1 − x` of head y, so each head's longest tiles (with the causal mask)
/// start first; [`ORDER_A17`] the grid `(group, ⌈l/128⌉, heads / group)` of
/// `layout::attention::a17_grid`, read by `a17_item`: the longest tiles of a whole group of heads first.
///
/// # Safety
/// As `attn_a11_d64_f16` for `D`.
#[inline(always)]
pub(super) unsafe fn flash_fa2_tiles<E: Elem16, const D: u32, const ORDER: u32>(g_q: *const u16, g_k: *const u16, g_v: *const u16, g_o: *mut u16, g_lse: *mut f32, l: u32,
                                                  scale: f32, causal: u32) {
    let (bq, bkv) = (A11_BQ, a11_bkv(D));
    // Byte offsets of 16 rows and of 64 columns are the same in every a11 tile (Q's and K/V's rows; `fa2_tile`).
    const {
        assert!(step(tile(a11_bkv(D), D).row_step(16)) == step(tile(A11_BQ, D).row_step(16)));
        assert!(step(tile(a11_bkv(D), D).col_step(64)) == step(tile(A11_BQ, D).col_step(64)));
        assert!(2 * step(tile(a11_bkv(D), D).col_xor(48)) == frag_xor::<D>(3) && D / 16 <= 8 && a11_bkv(D) / 16 <= 8);
    };
    // (head, query tile): a11's and a16's straight from the special registers, which ptxas re-reads
    // where they are used; a17's formed anew at each use (`a17_item_here`), not held across the loop.
    let item = || match ORDER {
        ORDER_A11 => (block_idx_y(), block_idx_x()),
        ORDER_A16 => (block_idx_y(), grid_dim_x() - 1 - block_idx_x()),
        _ => a17_item_here(),
    };
    let (head, qt) = item();
    let (tid, lane) = (thread_idx_x(), lane_id());
    let warp = tid / 32;
    let (g, t) = (lane / 4, lane % 4);
    let head_off = head as usize * l as usize * D as usize;
    let q0 = qt * bq;
    let s_base = addr_of(dynamic::<Align16>());
    let nthreads = threads(A11_WARPS);
    let s_q = s_base + flash_tile_bytes_of(bq, bkv, D, TileOf::Q, 0);
    let s_k = |st: u32| s_base + flash_tile_bytes_of(bq, bkv, D, TileOf::K, st);
    let s_v = |st: u32| s_base + flash_tile_bytes_of(bq, bkv, D, TileOf::V, st);
    let n_tiles = kv_tiles_of(l, bq, bkv, qt, causal != 0);
    let scale2 = scale * core::f32::consts::LOG2_E;
    // This thread's query rows in query tile `qt`: m-tile mt, half h (rows g and g + 8) → row_at(qt, mt, h).
    let row_at = |qt: u32, mt: u32, h: u32| qt * bq + 16 * A11_MT * warp + 16 * mt + g + 8 * h;
    let row_of = |mt: u32, h: u32| row_at(qt, mt, h);
    let bases = Bases::new::<D>(warp, lane);

    // SAFETY (the whole body): global reads and writes stay inside the head's matrices (`load_tile`'s
    // clamping, stores only for rows < l); each thread's four running sums are words of its own after
    // the K/V stages (`a11_sums_offset`, inside `a11_smem`), touched by no other thread; shared tiles
    // are written by `cp.async` groups and read only after `cp_async_wait_group` and a block barrier,
    // and a stage is refilled only after the barrier that ends the iteration which read it; every `ldmatrix` address is `s_tile + 2 · tile.offset(row, col)`
    // of a (row, col) inside its tile (the bases plus the layout's promised steps); all `ldmatrix`/`mma`/
    // shuffles are executed by full warps (every branch below is uniform per block).
    unsafe {
        let (gq, gk, gv) = (g_q.add(head_off), g_k.add(head_off), g_v.add(head_off));
        load_tile::<D>(s_q, gq, q0, bq, l, tid, nthreads);
        load_tile::<D>(s_k(0), gk, 0, bkv, l, tid, nthreads);
        load_tile::<D>(s_v(0), gv, 0, bkv, l, tid, nthreads);
        cp_async_commit_group();

        // Fragment loops are `unroll!`ed with `D`/`bkv` bounds folded per instantiation, so every array
        // index is a constant and the arrays stay in registers.
        let mut r_o = [[[0f32; 4]; 16]; 2]; // [m-tile][n-tile of 8 columns of D]
        let mut r_m = [[-1e30f32; 2]; 2]; // running max [m-tile][half]
        // The running (per-thread) sums, [m-tile][half], live in shared memory between key tiles: read and
        // written once per tile, they are the four values ptxas spilled (to local memory) when they were
        // kept in registers next to S and O (192 registers). Sum i of thread tid at word 128·i + tid: a
        // warp's accesses hit 32 consecutive words (no bank conflict).
        let sums = (dynamic::<Align16>() as *mut u8).add(a11_sums_offset(D) as usize).cast::<f32>().add(tid as usize);
        const { assert!(threads(A11_WARPS) == 128 && layout::attention::A11_SUMS_BYTES == 4 * 4 * 128) };
        let r_l = |mt: u32, h: u32| sums.add((128 * (2 * mt + h)) as usize);
        unroll4!(i => {
            *r_l(i / 2, i % 2) = 0.0;
        });

        for j in 0..n_tiles {
            let st = j % 2;
            if j + 1 < n_tiles {
                // The head's K and V pointers formed here from the parameters (`opaque` head): not two
                // 64-bit registers held across the loop.
                let ho = opaque(if ORDER == ORDER_A17 { item().0 } else { head }) as usize * l as usize * D as usize;
                load_tile::<D>(s_k(1 - st), g_k.add(ho), (j + 1) * bkv, bkv, l, tid, nthreads);
                load_tile::<D>(s_v(1 - st), g_v.add(ho), (j + 1) * bkv, bkv, l, tid, nthreads);
            }
            cp_async_commit_group();
            cp_async_wait_group::<1>();
            sync_threads();
            let kv0 = j * bkv;
            // Key tiles past the query tile's first row need the causal mask (the diagonal ones).
            let diagonal = causal != 0 && needs_mask_of(bq, bkv, if ORDER == ORDER_A17 { item().1 } else { qt }, j);
            // This thread's first row, through `opaque` (formed in the masked branch only, not kept in
            // registers across the loop for a branch most tiles skip): its keys end after it.
            let first_end = || opaque(if ORDER == ORDER_A17 { row_at(item().1, 0, 0) } else { row_of(0, 0) }) + 1;
            fa2_tile::<E, D, D>(s_q, s_k(st), s_v(st), bases.fresh(), kv0, scale2, diagonal || kv0 + bkv > l, diagonal, l, first_end, t, &mut r_o, &mut r_m, r_l);
            // Everyone is done reading stage `st` before the next iteration's copy refills it.
            sync_threads();
        }

        // Epilogue: each m-tile's rows (`flash::store_mtile`, a2's).
        let (head, qt) = if ORDER == ORDER_A17 { item() } else { (head, qt) };
        let go = g_o.add(head as usize * l as usize * D as usize);
        let lse = g_lse.add(head as usize * l as usize);
        let row_of = |mt: u32, h: u32| row_at(qt, mt, h);
        unroll2!(mt => {
            store_mtile::<E, D>(go, lse, l, [row_of(mt, 0), row_of(mt, 1)], t, &r_o[mt as usize], r_m[mt as usize], [*r_l(mt, 0), *r_l(mt, 1)]);
        });
    }
}

/// One key tile of a11's loop (a32's too), its K and V in shared memory at `sk`, `sv` and the warp's
/// queries at `s_q`: S = Q·Kᵀ for the warp's two m-tiles, scaled to base 2; where `masked`, the keys
/// from `kv0` past `k_len` — and on a `diagonal` tile past each row's own last key, `first_end()` for
/// this thread's first row (`+ 16·mt + 8·h` for the others) — set to −∞; the online softmax (a4's: the
/// running max `r_m`, the running sums at `r_l(mt, h)`, O rescaled) and O += P·V into `r_o` — S summed and O
/// formed over the first `SD` of the tiles' `D` columns (`SD = D`, or a33's 96 at D = 128: the columns past
/// the head are zero in the tiles, so S is the same, and O's are never stored).
///
/// # Safety
/// All 32 lanes of the warp, converged (every branch here is uniform per block); `s_q`, `sk`, `sv` a11's
/// tiles for `D` (`b` this lane's bases in them), complete and not being written; `r_l(mt, h)` this
/// thread's own running sums.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn fa2_tile<E: Elem16, const D: u32, const SD: u32>(s_q: u32, sk: u32, sv: u32, b: Bases, kv0: u32, scale2: f32, masked: bool, diagonal: bool, k_len: u32,
                                                       first_end: impl Fn() -> u32, t: u32, r_o: &mut [[[f32; 4]; 16]; 2], r_m: &mut [[f32; 2]; 2],
                                                       r_l: impl Fn(u32, u32) -> *mut f32) {
    let bkv = a11_bkv(D);
    let row16 = const { 2 * step(tile(A11_BQ, D).row_step(16)) };
    let col64 = const { 2 * step(tile(A11_BQ, D).col_step(64)) };
    // SAFETY: forwarded (shared reads inside the tiles: the bases plus the layout's promised steps; the
    // sums are this thread's words).
    unsafe {
        // S = Q · Kᵀ for both m-tiles: per k-step of 16 of D, Q's two A fragments, then per 16 keys one
        // K fragment (two n-tiles) into four `mma`s.
        let mut s = [[[0f32; 4]; 16]; 2]; // [m-tile][n-tile of 8 keys]
        unroll8!(ks => {
            if ks < SD / 16 {
                let q_at = s_q + (b.q ^ frag_xor::<D>(ks)) + (ks / 4) * col64;
                let k_at = sk + (b.k ^ frag_xor::<D>(ks)) + (ks / 4) * col64;
                let a = [ldmatrix_x4(q_at), ldmatrix_x4(q_at + row16)];
                unroll8!(np => {
                    if np < bkv / 16 {
                        let kb = ldmatrix_x4(k_at + np * row16);
                        unroll2!(mt => {
                            E::mma(&mut s[mt as usize][2 * np as usize], a[mt as usize], [kb[0], kb[1]]);
                            E::mma(&mut s[mt as usize][2 * np as usize + 1], a[mt as usize], [kb[2], kb[3]]);
                        });
                    }
                });
            }
        });
        // The online softmax per m-tile (a4's), P packed into the A fragments of P·V.
        // Scale to base 2; then, only on the key tiles that need it (the ragged last one, the causal
        // diagonal ones: a uniform branch), the mask as a pass of its own. Row h of m-tile mt sees the
        // keys below `end` (`k_len`, or on a diagonal tile its own last key + 1): the key of n-tile nt, element e
        // is kv0 + 2t + 8nt + e % 2, masked when 8nt + e % 2 ≥ lim — one compare with an immediate.
        unroll2!(mt => {
            unroll16!(nt => {
                if nt < bkv / 8 {
                    unroll4!(e => {
                        s[mt as usize][nt as usize][e as usize] *= scale2;
                    });
                }
            });
        });
        if masked {
            let end0 = first_end();
            unroll2!(mt => {
                let lim: [i32; 2] = core::array::from_fn(|h| {
                    let end = if diagonal { k_len.min(end0 + 16 * mt + 8 * h as u32) } else { k_len };
                    end as i32 - (kv0 + 2 * t) as i32
                });
                unroll16!(nt => {
                    if nt < bkv / 8 {
                        unroll4!(e => {
                            if (8 * nt + e % 2) as i32 >= lim[(e / 2) as usize] {
                                s[mt as usize][nt as usize][e as usize] = f32::NEG_INFINITY;
                            }
                        });
                    }
                });
            });
        }
        let mut r_p = [[[0u32; 4]; 8]; 2]; // [m-tile][k-step of 16 keys]
        unroll2!(mt => {
            let s = &mut s[mt as usize];
            let (m, p_frag) = (&mut r_m[mt as usize], &mut r_p[mt as usize]);
            // Row max.
            let mut mx = [-1e30f32; 2]; // [half]
            unroll16!(nt => {
                if nt < bkv / 8 {
                    unroll4!(e => {
                        let c = &mut mx[(e / 2) as usize];
                        *c = c.max(s[nt as usize][e as usize]);
                    });
                }
            });
            let m_new = [m[0].max(quad_max(mx[0])), m[1].max(quad_max(mx[1]))];
            let corr = [ex2_approx_f32(m[0] - m_new[0]), ex2_approx_f32(m[1] - m_new[1])];
            *m = m_new;
            // P = 2^(s - m), packed; running sums and O rescaled.
            let mut sum = [0f32; 2];
            unroll16!(nt => {
                if nt < bkv / 8 {
                    let x = &s[nt as usize];
                    let p = [ex2_approx_f32(x[0] - m[0]), ex2_approx_f32(x[1] - m[0]), ex2_approx_f32(x[2] - m[1]), ex2_approx_f32(x[3] - m[1])];
                    sum[0] += p[0] + p[1];
                    sum[1] += p[2] + p[3];
                    // n-tile nt is half (nt % 2) of k-step nt / 2: registers {0, 1} or {2, 3}.
                    p_frag[(nt / 2) as usize][(2 * (nt % 2)) as usize] = E::pack(p[0], p[1]);
                    p_frag[(nt / 2) as usize][(2 * (nt % 2) + 1) as usize] = E::pack(p[2], p[3]);
                }
            });
            *r_l(mt, 0) = *r_l(mt, 0) * corr[0] + sum[0];
            *r_l(mt, 1) = *r_l(mt, 1) * corr[1] + sum[1];
            let o = &mut r_o[mt as usize];
            unroll16!(nt => {
                if nt < SD / 8 {
                    let o = &mut o[nt as usize];
                    o[0] *= corr[0];
                    o[1] *= corr[0];
                    o[2] *= corr[1];
                    o[3] *= corr[1];
                }
            });
        });
        // O += P · V: per k-step of 16 keys and 16 columns of D, one V fragment into four `mma`s.
        unroll8!(ks => {
            if ks < bkv / 16 {
                unroll8!(np => {
                    if np < SD / 16 {
                        let vb = ldmatrix_x4_trans(sv + (b.v ^ frag_xor::<D>(np)) + (np / 4) * col64 + ks * row16);
                        unroll2!(mt => {
                            E::mma(&mut r_o[mt as usize][2 * np as usize], r_p[mt as usize][ks as usize], [vb[0], vb[1]]);
                            E::mma(&mut r_o[mt as usize][2 * np as usize + 1], r_p[mt as usize][ks as usize], [vb[2], vb[3]]);
                        });
                    }
                });
            }
        });
    }
}

/// The entry of a11 (a16, a17: another `ORDER`) for element type `$e` and head dim `$d`.
macro_rules! fa2_tiles_entry {
    ($name:ident, $e:ty, $d:literal, $order:ident) => {
        /// Flash attention forward with FA2's tiles (128-key tiles at D = 64, 64-key at D = 128): `o =
        /// softmax(q·kᵀ · scale) · v` per head (causal if `causal != 0`), `lse` the natural log-sum-exp
        /// of each row.
        ///
        /// # Safety
        /// `q`, `k`, `v` readable and `o` writable with `heads · l · D` elements (`[heads][l][D]`), `lse`
        /// with `heads · l` f32, `l ≥ 1`; launched with grid `(⌈l/128⌉, heads)` (a17:
        /// `layout::attention::a17_grid(l, D, heads, 128)`), 128 threads and `a11_smem(D)` bytes of
        /// dynamic shared memory.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, l: u32, scale: f32, causal: u32) {
            // SAFETY: forwarded.
            unsafe { $crate::attention::fa2_mma_tiles::flash_fa2_tiles::<$e, $d, { $crate::attention::fa2_mma_tiles::$order }>(q, k, v, o, lse, l, scale, causal) }
        }
        $crate::launch_bounds::launch_bounds!($name, 128);
    };
}
pub(crate) use fa2_tiles_entry;

/// a33's body: a11's tiles over one (sequence, query tile, head) of a packed batch — the prefill problem of
/// a19 (`kernel_lab::attention::prefill`) on `mma.sync`, for GPUs without `sm_90a`. Grid `(⌈max q_len/128⌉,
/// heads, batch)`, 128 threads, `a11_smem(D)` bytes of dynamic shared memory. Block (x, y, z) takes
/// sequence z's query tile `⌈q_len/128⌉ − 1 − x` (its longest first, as a16 and a19) of head y, against
/// K/V head `y / group`; a block past its sequence's tiles exits before any load. Q, O `[tokens][heads]
/// [head_dim]` and K, V `[tokens][kv_heads][head_dim]` are read and written a head's rows `heads ·
/// head_dim` (`kv_heads · head_dim`) elements apart (`load_rows`, `store_rows`; a head dim 96 in the
/// 128 kernel, its columns 96..128 zero in the tiles and not stored); the causal mask is aligned
/// bottom-right (`off = k_len − q_len`: query row `r` sees keys `0..=r + off`).
///
/// # Safety
/// As the entries of [`fa2_varlen_entry!`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn flash_fa2_varlen<E: Elem16, const D: u32, const SD: u32>(g_q: *const u16, g_k: *const u16, g_v: *const u16, g_o: *mut u16, g_lse: *mut f32, cu_q: *const i32,
                                                               cu_k: *const i32, dims: PrefillDims) {
    let (bq, bkv) = (A11_BQ, a11_bkv(D));
    let (b, head) = (block_idx_z() as usize, block_idx_y());
    // SAFETY: `cu_q` and `cu_k` hold `batch + 1` entries and `b < batch` (the grid), unwritten (caller).
    let ([q_start, q_end], [k_start, k_end]) = unsafe { ([ld_global_nc_s32(cu_q.add(b)), ld_global_nc_s32(cu_q.add(b + 1))],
                                                         [ld_global_nc_s32(cu_k.add(b)), ld_global_nc_s32(cu_k.add(b + 1))]) };
    let (q_len, k_len) = ((q_end - q_start).max(0) as u32, (k_end - k_start).max(0) as u32);
    let causal = dims.causal != 0;
    let qtiles = q_len.div_ceil(bq);
    // A block past its sequence's tiles, and (refused by the host, so never here) a sequence with queries
    // but no keys or, causal, more queries than keys: nothing to do, before any barrier or load.
    if block_idx_x() >= qtiles || k_len == 0 || (causal && k_len < q_len) {
        return;
    }
    let qt = qtiles - 1 - block_idx_x();
    let off = if causal { k_len - q_len } else { 0 };
    let n_tiles = kv_tiles_off(k_len, bq, bkv, qt, causal, off);
    let (heads, cols, group) = (dims.heads, dims.head_dim, dims.group.max(1));
    let (q_ld, kv_ld) = (heads * cols, heads / group * cols);
    // The sequence's first row of this head in Q and O, and of its K/V head in K and V (64-bit offsets in
    // elements: a packed tensor may hold more than 2^32).
    let q_base = (q_start as usize * heads as usize + head as usize) * cols as usize;
    let kv_base = |start: i32| (start as usize * (heads / group) as usize + (head / group) as usize) * cols as usize;
    let (tid, lane) = (thread_idx_x(), lane_id());
    let warp = tid / 32;
    let t = lane % 4;
    let s_base = addr_of(dynamic::<Align16>());
    let nthreads = threads(A11_WARPS);
    let s_q = s_base + flash_tile_bytes_of(bq, bkv, D, TileOf::Q, 0);
    let s_k = |st: u32| s_base + flash_tile_bytes_of(bq, bkv, D, TileOf::K, st);
    let s_v = |st: u32| s_base + flash_tile_bytes_of(bq, bkv, D, TileOf::V, st);
    let scale2 = dims.scale * core::f32::consts::LOG2_E;
    // This thread's query rows of the sequence: m-tile mt, half h (rows g and g + 8).
    let row_at = |qt: u32, mt: u32, h: u32| qt * bq + 16 * A11_MT * warp + 16 * mt + lane / 4 + 8 * h;
    let bases = Bases::new::<D>(warp, lane);

    // SAFETY (the whole body): global reads stay inside the sequence's rows of the head (`load_rows`: rows
    // below q_len / k_len of the packed tensors, the host's checked offsets and buffer lengths), stores only
    // rows < q_len and columns < head_dim; the running sums, shared tiles, barriers and warps as in a11's
    // body (`flash_fa2_tiles`, every branch uniform per block).
    unsafe {
        load_rows::<D>(s_q, g_q.add(q_base), q_ld, cols, qt * bq, bq, q_len, tid, nthreads);
        load_rows::<D>(s_k(0), g_k.add(kv_base(k_start)), kv_ld, cols, 0, bkv, k_len, tid, nthreads);
        load_rows::<D>(s_v(0), g_v.add(kv_base(k_start)), kv_ld, cols, 0, bkv, k_len, tid, nthreads);
        cp_async_commit_group();
        let mut r_o = [[[0f32; 4]; 16]; 2];
        let mut r_m = [[-1e30f32; 2]; 2];
        let sums = (dynamic::<Align16>() as *mut u8).add(a11_sums_offset(D) as usize).cast::<f32>().add(tid as usize);
        let r_l = |mt: u32, h: u32| sums.add((128 * (2 * mt + h)) as usize);
        unroll4!(i => {
            *r_l(i / 2, i % 2) = 0.0;
        });
        // The sequence's keys (first, count) and the mask's shift, loaded again where a tile needs them (the
        // index hidden, so the loads are not merged with the entry's: L1 hits) rather than held in registers
        // through the loop — held, with O and S at 192 registers, they spilled 16–24 bytes at D = 64.
        let keys = || {
            let (bx, bz) = ctaid_xz_here();
            let bz = bz as usize;
            let (ks, ke) = (ld_global_nc_s32(cu_k.add(bz)), ld_global_nc_s32(cu_k.add(bz + 1)));
            let (qs, qe) = (ld_global_nc_s32(cu_q.add(bz)), ld_global_nc_s32(cu_q.add(bz + 1)));
            let (kl, ql) = ((ke - ks).max(0) as u32, (qe - qs).max(0) as u32);
            (ks, kl, if causal { kl - ql } else { 0 }, ql.div_ceil(bq) - 1 - bx)
        };
        for j in 0..n_tiles {
            let st = j % 2;
            if j + 1 < n_tiles {
                // The K/V head's rows formed here from the sequence's first key: not two 64-bit pointers
                // held across the loop.
                let (ks, kl, _, _) = keys();
                let kb = kv_base(ks);
                load_rows::<D>(s_k(1 - st), g_k.add(kb), kv_ld, cols, (j + 1) * bkv, bkv, kl, tid, nthreads);
                load_rows::<D>(s_v(1 - st), g_v.add(kb), kv_ld, cols, (j + 1) * bkv, bkv, kl, tid, nthreads);
            }
            cp_async_commit_group();
            cp_async_wait_group::<1>();
            sync_threads();
            let (_, k_len, off, qt) = keys();
            let kv0 = j * bkv;
            let diagonal = causal && needs_mask_off(bq, bkv, qt, j, off);
            let first_end = || opaque(row_at(qt, 0, 0)) + off + 1;
            fa2_tile::<E, D, SD>(s_q, s_k(st), s_v(st), bases.fresh(), kv0, scale2, diagonal || kv0 + bkv > k_len, diagonal, k_len, first_end, t, &mut r_o, &mut r_m, r_l);
            // Everyone is done reading stage `st` before the next iteration's copy refills it.
            sync_threads();
        }
        // The sequence's queries loaded again (the index hidden, so the loads are not merged with the
        // entry's) rather than held in registers through the key loop: held, they spilled 16–24 bytes at
        // D = 128 on sm_86–sm_90.
        let (bx, bz) = ctaid_xz_here();
        let bz = bz as usize;
        let (q_start, q_end) = (ld_global_nc_s32(cu_q.add(bz)), ld_global_nc_s32(cu_q.add(bz + 1)));
        let q_len = (q_end - q_start).max(0) as u32;
        let qt = q_len.div_ceil(bq) - 1 - bx;
        let q_base = (q_start as usize * heads as usize + head as usize) * cols as usize;
        let (go, lse) = (g_o.add(q_base), g_lse.add(q_start as usize * heads as usize + head as usize));
        unroll2!(mt => {
            store_rows::<E, D>(go, q_ld, cols, lse, heads, q_len, [row_at(qt, mt, 0), row_at(qt, mt, 1)], t, &r_o[mt as usize], r_m[mt as usize],
                               [*r_l(mt, 0), *r_l(mt, 1)]);
        });
    }
}

/// The entry of a33 for element type `$e`, kernel width `$d` (64 or 128) and the head dims S and O run over,
/// `$sd` (the width, or 96 in the 128 kernel).
macro_rules! fa2_varlen_entry {
    ($name:ident, $e:ty, $d:literal) => {
        $crate::attention::fa2_mma_tiles::fa2_varlen_entry!($name, $e, $d, $d);
    };
    ($name:ident, $e:ty, $d:literal, $sd:literal) => {
        /// Prefill attention over packed sequences on FlashAttention-2's tiles (`mma.sync`): `o =
        /// softmax(q·kᵀ · scale [causal, bottom-right]) · v` and `lse` (natural, `[tokens][heads]`) of
        /// sequence `b`'s queries `cu_q[b]..cu_q[b + 1]` against its keys `cu_k[b]..cu_k[b + 1]`.
        ///
        /// # Safety
        /// `q`, `o`: `tokens_q · heads · head_dim` elements (`[tokens][heads][head_dim]`), `k`, `v`:
        /// `tokens_k · kv_heads · head_dim`, `lse`: `tokens_q · heads` f32, all 16-byte aligned; `cu_q`,
        /// `cu_k`: `batch + 1` non-decreasing `i32` in global memory from 0 to the token counts, every
        /// sequence with queries has keys (causal: at least as many); `dims.heads = kv_heads · group`,
        /// `dims.head_dim ≤ $d` a multiple of 8 (`$d`'s width: 64, or 96 / 128); grid `(⌈max q_len/128⌉,
        /// heads, batch)`, 128 threads, `a11_smem($d)` bytes of dynamic shared memory.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(q: *const u16, k: *const u16, v: *const u16, o: *mut u16, lse: *mut f32, cu_q: *const i32, cu_k: *const i32,
                                                dims: layout::attention::PrefillDims) {
            // SAFETY: forwarded.
            unsafe { $crate::attention::fa2_mma_tiles::flash_fa2_varlen::<$e, $d, $sd>(q, k, v, o, lse, cu_q, cu_k, dims) }
        }
        $crate::launch_bounds::launch_bounds!($name, 128);
    };
}
pub(crate) use fa2_varlen_entry;

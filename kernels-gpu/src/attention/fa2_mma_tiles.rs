//! FlashAttention-2's forward tiles on `mma.sync` (introduced by a11, whose file explains them): the
//! body [`flash_fa2_tiles`] (4 warps × 32 query rows, 128-key tiles at D = 64 and 64-key at D = 128,
//! `ldmatrix` addresses as bases plus immediates), generic over the element type, the head dimension
//! and the order in which blocks take (head, query tile) ([`ORDER_A11`], [`ORDER_A16`], [`ORDER_A17`]),
//! and the entries' macro [`fa2_tiles_entry!`]. Used by a11, a16 and a17.
use crate::attention::flash::{load_tile, quad_max, store_mtile};
use crate::hgemm::elem::Elem16;
use crate::prim::{
    cp_async::{cp_async_commit_group, cp_async_wait_group},
    ldmatrix::{ldmatrix_x4, ldmatrix_x4_trans},
    math::ex2_approx_f32,
    shared::{Align16, addr_of, dynamic},
    sync::sync_threads,
    thread::{block_idx_x, block_idx_y, grid_dim_x, lane_id, thread_idx_x},
};
use crate::util::{
    opaque,
    unroll::{unroll2, unroll4, unroll8, unroll16},
};
use layout::{
    Layout,
    attention::{A11_BQ, A11_MT, A11_WARPS, TileOf, a11_bkv, a11_sums_offset, a17_item, flash_tile_bytes_of, kv_tiles_of, needs_mask_of, threads, tile},
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
    // Byte offsets of 16 rows and of 64 columns in every a11 tile (the same for Q's and K/V's rows).
    let row16 = const { 2 * step(tile(A11_BQ, D).row_step(16)) };
    let col64 = const { 2 * step(tile(A11_BQ, D).col_step(64)) };
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
            let b = bases.fresh();
            let (sk, sv) = (s_k(st), s_v(st));
            // S = Q · Kᵀ for both m-tiles: per k-step of 16 of D, Q's two A fragments, then per 16 keys one
            // K fragment (two n-tiles) into four `mma`s.
            let mut s = [[[0f32; 4]; 16]; 2]; // [m-tile][n-tile of 8 keys]
            unroll8!(ks => {
                if ks < D / 16 {
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
            let kv0 = j * bkv;
            // Key tiles past the query tile's first row need the causal mask (the diagonal ones).
            let diagonal = causal != 0 && needs_mask_of(bq, bkv, if ORDER == ORDER_A17 { item().1 } else { qt }, j);
            // Scale to base 2; then, only on the key tiles that need it (the ragged last one, the causal
            // diagonal ones: a uniform branch), the mask as a pass of its own. Row h of m-tile mt sees the
            // keys below `end` (L, or on a diagonal tile its own row + 1): the key of n-tile nt, element e
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
            if diagonal || kv0 + bkv > l {
                // This thread's first row, through `opaque`: the four rows are formed here, not kept in
                // registers across the loop for a branch most tiles skip.
                let row0 = opaque(if ORDER == ORDER_A17 { row_at(item().1, 0, 0) } else { row_of(0, 0) });
                unroll2!(mt => {
                    let lim: [i32; 2] = core::array::from_fn(|h| {
                        let end = if diagonal { l.min(row0 + 16 * mt + 8 * h as u32 + 1) } else { l };
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
                    if nt < D / 8 {
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
                        if np < D / 16 {
                            let vb = ldmatrix_x4_trans(sv + (b.v ^ frag_xor::<D>(np)) + (np / 4) * col64 + ks * row16);
                            unroll2!(mt => {
                                E::mma(&mut r_o[mt as usize][2 * np as usize], r_p[mt as usize][ks as usize], [vb[0], vb[1]]);
                                E::mma(&mut r_o[mt as usize][2 * np as usize + 1], r_p[mt as usize][ks as usize], [vb[2], vb[3]]);
                            });
                        }
                    });
                }
            });
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

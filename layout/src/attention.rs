//! Fused attention (issue 17): the FlashAttention-2-style kernel's tiles, their shared-memory layouts
//! and budgets, shared by the kernels (`kernels-gpu/src/attention/`) and the host.
//!
//! `O = softmax(Q·Kᵀ · scale [+ causal mask]) · V` per (batch, head), Q, K, V, O stored `[B·H][L][D]`
//! row-major (a head's `L × D` contiguous). A block takes [`BQ`] query rows (4 warps × 16) and streams
//! the head's keys and values through shared memory [`BKV`] rows at a time.
//!
//! # The K, V and Q tiles: `Swizzle<S, 3, 3>` on f16 element offsets
//!
//! ```text
//! a tile row = D f16 = D/8 chunks of 16 bytes        (D = 64: 128 B, D = 128: 256 B)
//! element offset bits:  … row | chunk (3 bits) | element in chunk (3 bits)
//!                             ^ row's low 3 bits start at bit log2(D): S = log2(D) − 3
//! swizzled chunk = chunk ^ (row % 8)                 Swizzle<3,3,3> for D = 64, <4,3,3> for D = 128
//! (CuTe order: Swizzle<3, 3, S>; unit: f16 elements)
//! ```
//!
//! Every `ldmatrix` phase reads one 16-byte chunk from each of 8 consecutive rows at the same logical
//! chunk — for S = QKᵀ (K rows, non-transposed), for O = PV (V rows, `.trans`) and for Q's fragments
//! alike. Unswizzled, rows 128 or 256 bytes apart start in the same bank: 8-way. Swizzled, the 8 rows
//! read 8 different chunk positions: conflict-free. The `cp.async` fills write 16-byte chunks row by row:
//! the swizzle permutes chunks within a row, so they stay conflict-free.
use crate::{RowMajor, Swizzled, swizzle::SwizzleFn};

/// Query rows per block of a2 (4 warps × 16); a3 takes [`BQ_WIDE`].
pub const BQ: u32 = query_rows(4, 1);
/// Query rows per block of a3 (8 warps × 16) and a4 (4 warps × 32).
pub const BQ_WIDE: u32 = query_rows(8, 1);
/// Key/value rows per streamed tile.
pub const BKV: u32 = 64;
/// Threads per block of a2 ([`threads`] of its 4 warps).
pub const THREADS: u32 = threads(4);

/// Query rows of a block of `warps` warps, each taking `m_tiles` m-tiles of 16 rows.
pub const fn query_rows(warps: u32, m_tiles: u32) -> u32 {
    16 * m_tiles * warps
}

/// Threads of a block of `warps` warps.
pub const fn threads(warps: u32) -> u32 {
    32 * warps
}

/// The swizzled `rows × d` tile (see the module doc).
pub const fn tile(rows: u32, d: u32) -> Swizzled<RowMajor> {
    // S = log2(D) − 3: the row's low 3 bits switch the chunk (D = 64: 3, 128: 4, 256: 5).
    let s = d.trailing_zeros() - 3;
    Swizzled { inner: RowMajor { rows, cols: d }, swizzle: SwizzleFn { s, b: 3, m: 3 } }
}

/// The fused kernels' dynamic shared memory for `bq` query rows and head dimension `d`: Q (`bq × d`),
/// then two stages of K and V (`BKV × d` each), 16-bit.
pub const fn flash_smem(bq: u32, d: u32) -> u32 {
    flash_smem_of(bq, BKV, d)
}

/// [`flash_smem`] with key/value tiles of `bkv` rows.
pub const fn flash_smem_of(bq: u32, bkv: u32, d: u32) -> u32 {
    2 * (bq * d + 2 * 2 * bkv * d)
}

/// Byte offsets of the fused kernels' tiles in their dynamic shared memory: Q, then stage `stage`'s K
/// and V.
pub const fn flash_tile_bytes(bq: u32, d: u32, what: TileOf, stage: u32) -> u32 {
    flash_tile_bytes_of(bq, BKV, d, what, stage)
}

/// [`flash_tile_bytes`] with key/value tiles of `bkv` rows.
pub const fn flash_tile_bytes_of(bq: u32, bkv: u32, d: u32, what: TileOf, stage: u32) -> u32 {
    let tile = 2 * bkv * d;
    match what {
        TileOf::Q => 0,
        TileOf::K => 2 * bq * d + 2 * stage * tile,
        TileOf::V => 2 * bq * d + 2 * stage * tile + tile,
    }
}

/// a11 (FlashAttention-2's own forward tiles on `mma.sync`): warps per block.
pub const A11_WARPS: u32 = 4;
/// a11: m-tiles of 16 query rows per warp — 32 rows per warp, whose S is computed in one k-loop (every
/// K fragment feeds two `mma`s).
pub const A11_MT: u32 = 2;
/// a11: query rows per block (4 warps × 32 = 128, FA2's `kBlockM`).
pub const A11_BQ: u32 = query_rows(A11_WARPS, A11_MT);

/// a11: keys per K/V tile at head dim `d` — FA2's `kBlockN` for the sm80/sm90 forward: 128 at D = 64,
/// 64 at D = 128 (either way S and O take 192 f32 registers per thread).
pub const fn a11_bkv(d: u32) -> u32 {
    if d == 64 { 128 } else { 64 }
}

/// a11: bytes holding each thread's four running row sums (f32) between key tiles, 16 per thread.
pub const A11_SUMS_BYTES: u32 = 16 * threads(A11_WARPS);

/// a11: byte offset of the running sums, after Q and the two stages of K and V (`a11_bkv(d) × d` each).
pub const fn a11_sums_offset(d: u32) -> u32 {
    flash_smem_of(A11_BQ, a11_bkv(d), d)
}

/// a11's dynamic shared memory at head dim `d`: Q (128 × d), two stages of K and V (`a11_bkv(d) × d`),
/// the running sums: 82 KiB at D = 64, 98 KiB at D = 128 (two blocks per H100 SM).
pub const fn a11_smem(d: u32) -> u32 {
    a11_sums_offset(d) + A11_SUMS_BYTES
}
const _: () = assert!(a11_smem(64) == 82 * 1024 && a11_smem(128) == 98 * 1024
                      && flash_tile_bytes_of(A11_BQ, a11_bkv(128), 128, TileOf::V, 1) + 2 * a11_bkv(128) * 128 == a11_sums_offset(128));

/// Which tile of [`flash_tile_bytes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TileOf {
    /// The block's query rows.
    Q,
    /// A stage's keys.
    K,
    /// A stage's values.
    V,
}

/// Key/value tiles query tile `qt` (of `bq` rows) visits: all `⌈l / BKV⌉`, or with a causal mask those
/// holding a key ≤ its last row, `⌈(qt + 1) · bq / BKV⌉`.
pub const fn kv_tiles(l: u32, bq: u32, qt: u32, causal: bool) -> u32 {
    kv_tiles_of(l, bq, BKV, qt, causal)
}

/// [`kv_tiles`] with key/value tiles of `bkv` rows.
pub const fn kv_tiles_of(l: u32, bq: u32, bkv: u32, qt: u32, causal: bool) -> u32 {
    kv_tiles_off(l, bq, bkv, qt, causal, 0)
}

/// [`kv_tiles_of`] for `k_len` keys with the causal mask aligned bottom-right: query row `r` sees keys
/// `0..=r + off` (`off = k_len − q_len`, FlashAttention's convention when the queries are the last
/// `q_len` of the `k_len` tokens; 0 when queries and keys are the same tokens).
pub const fn kv_tiles_off(k_len: u32, bq: u32, bkv: u32, qt: u32, causal: bool, off: u32) -> u32 {
    let all = k_len.div_ceil(bkv);
    let upto = ((qt + 1) * bq + off).div_ceil(bkv);
    if causal && upto < all { upto } else { all }
}

/// Whether key tile `j` needs the causal mask for query tile `qt` (of `bq` rows): it holds a key past
/// the tile's first query row.
pub const fn needs_mask(bq: u32, qt: u32, j: u32) -> bool {
    needs_mask_of(bq, BKV, qt, j)
}

/// [`needs_mask`] with key/value tiles of `bkv` rows.
pub const fn needs_mask_of(bq: u32, bkv: u32, qt: u32, j: u32) -> bool {
    needs_mask_off(bq, bkv, qt, j, 0)
}

/// [`needs_mask_of`] with the causal mask aligned bottom-right by `off` ([`kv_tiles_off`]): key tile `j`
/// holds a key past `qt · bq + off`, the first query row's last key.
pub const fn needs_mask_off(bq: u32, bkv: u32, qt: u32, j: u32, off: u32) -> bool {
    (j + 1) * bkv > qt * bq + off + 1
}

/// a6 (Hopper, TMA + `wgmma`): query rows per CTA — two consumer warpgroups of 64.
pub const A6_BQ: u32 = 128;
/// a6: keys per K/V tile (one `wgmma.m64n128k16` row of S per K step).
pub const A6_BKV: u32 = 128;
/// a6: stages of the K/V ring.
pub const A6_STAGES: u32 = 2;
/// a7: stages of the K/V ring. a7 releases a stage one iteration later than a6 (its P·V retires at the
/// next iteration's wait) and issues the next tile's S before its softmax, so with 2 stages the next
/// tile's loads could start only as it was needed (measured: 0.70–0.86× a6); 3 stages give them one
/// iteration of slack.
pub const A7_STAGES: u32 = 3;
/// a6: bytes of one TMA box, 128 rows × 64 elements (128-byte rows, `SWIZZLE_128B`): Q, K and V tiles
/// are `D / 64` such boxes side by side along D.
pub const A6_BOX_BYTES: u32 = 128 * 128;
/// a6: bytes of the Q tile (`A6_BQ × D`).
pub const fn a6_q_bytes(d: u32) -> u32 {
    (d / 64) * A6_BOX_BYTES
}
/// a6: bytes of one ring stage, a K tile then a V tile (`A6_BKV × D` each).
pub const fn a6_stage_bytes(d: u32) -> u32 {
    2 * (d / 64) * A6_BOX_BYTES
}
/// a6/a7: dynamic shared memory with `stages` ring stages — the ring, then Q, then a full and an empty
/// barrier per stage, from a 1024-aligned start (`hopper::tma_hgemm::dyn_smem`): a6 (2 stages) 160 KiB
/// at D = 128, 80 KiB at D = 64; a7 (3 stages) 225 KiB and 113 KiB.
pub const fn a6_smem(d: u32, stages: u32) -> u32 {
    crate::hopper::tma_hgemm::dyn_smem(stages, a6_stage_bytes(d), a6_q_bytes(d), 2)
}
/// a12 (persistent): a7's ring with 8 more bytes after Q, its empty barrier (every consumer warp is
/// done with this query tile's Q; the producer then loads the next).
pub const fn a12_smem(d: u32) -> u32 {
    crate::hopper::tma_hgemm::dyn_smem(A7_STAGES, a6_stage_bytes(d), a6_q_bytes(d) + 8, 2)
}
/// a12 (persistent): the work units per head of length `l` when the walk pairs query tiles (tile
/// `qtiles − 1 − p` with tile `p`; the middle one of an odd count alone).
pub const fn a12_pairs(l: u32) -> u32 {
    a12_pairs_of(l, A6_BQ)
}

/// [`a12_pairs`] for a walk whose tiles are `rows` query rows (a15: a cluster of 2 CTAs walks
/// 256-row tiles, 128 per CTA).
pub const fn a12_pairs_of(l: u32, rows: u32) -> u32 {
    l.div_ceil(rows).div_ceil(2)
}

/// a12: the CTAs of a launch over `heads` heads of length `l` on `sms` SMs. With no more query tiles
/// than SMs, one CTA per tile (pairing them would halve the CTAs); otherwise one per SM, and no more
/// than the pairs ([`a12_paired`] tells the kernel which).
///
/// ```text
/// tiles = heads · ⌈l/128⌉ ≤ sms → grid = tiles            (single tiles)
/// otherwise                     → grid = min(sms, heads · ⌈tiles per head / 2⌉)  (pairs)
/// ```
pub const fn a12_grid(l: u32, heads: u32, sms: u32) -> u32 {
    a12_grid_of(l, heads, sms, A6_BQ)
}

/// [`a12_grid`] for a walk whose tiles are `rows` query rows, over `slots` places that each run one
/// walk at a time: a15's clusters of 2 (`rows` 256, `slots` the clusters that fit at once). Returns
/// the walks launched (a15: clusters; the grid is twice that).
pub const fn a12_grid_of(l: u32, heads: u32, slots: u32, rows: u32) -> u32 {
    let tiles = heads as u64 * l.div_ceil(rows) as u64;
    let slots = if slots == 0 { 1 } else { slots as u64 };
    let units = heads as u64 * a12_pairs_of(l, rows) as u64;
    (if tiles <= slots { tiles } else if units < slots { units } else { slots }) as u32
}

/// a12: whether a launch of `grid` CTAs (from [`a12_grid`]) walks pairs of query tiles: exactly when
/// there are more tiles than CTAs.
pub const fn a12_paired(l: u32, heads: u32, grid: u32) -> bool {
    a12_paired_of(l, heads, grid, A6_BQ)
}

/// [`a12_paired`] for `walks` walks (from [`a12_grid_of`]) over tiles of `rows` query rows.
pub const fn a12_paired_of(l: u32, heads: u32, walks: u32, rows: u32) -> bool {
    (walks as u64) < heads as u64 * l.div_ceil(rows) as u64
}

/// a15: CTAs per cluster. The two CTAs of a cluster compute query tiles `2·t` and `2·t + 1` of one
/// head and walk the same key tiles; each loads half of every K/V stage (the K and V boxes of even
/// index: rank 0; odd: rank 1) and multicasts it into both.
pub const A15_CLUSTER: u32 = 2;

/// a24 (Hopper, head dim 256): keys per K/V tile. At D = 256 a 128-key stage of K and V would be 128 KiB
/// and O takes 128 accumulator registers a thread, so the tile is 64 keys: S is `m64n64k16` (32
/// registers), P·V `m64n256k16`.
pub const A24_BKV: u32 = 64;
/// a24: head dim.
pub const A24_D: u32 = 256;
/// a24: bytes of one K or one V tile, `A24_BKV × 256` 16-bit: four TMA boxes of 64 keys × 64 dims
/// (8 KiB each, 128-byte swizzled rows) side by side along D.
pub const A24_HALF_BYTES: u32 = A24_BKV * A24_D * 2;
/// a24: bytes of one box of a K or V tile (64 keys × 128 bytes).
pub const A24_KV_BOX_BYTES: u32 = A24_BKV * 128;
/// a24: entries of the ring, each one K tile or one V tile (K of key tile `j` at running index `2j`, its V
/// at `2j + 1`): K and V are waited for and released apart — K once S = Q·Kᵀ retired, V once P·V did —
/// so the next tile's K streams in while this tile's P·V still reads V (FlashAttention-3's separate K
/// and V pipelines), two key tiles in flight.
pub const A24_HALVES: u32 = 4;
/// a24: dynamic shared memory — the ring of K and V tiles, then Q (128 rows × 256: 64 KiB), then a full
/// and an empty barrier per ring entry: 193 KiB.
pub const fn a24_smem() -> u32 {
    crate::hopper::tma_hgemm::dyn_smem(A24_HALVES, A24_HALF_BYTES, a6_q_bytes(A24_D), 2)
}
/// a25: the unit CTA `cta` of `grid` takes in round `round` — `round · grid + cta` on even rounds,
/// `round · grid + grid − 1 − cta` on odd ones (a snake over units sorted by work, most first: no CTA
/// takes the longest unit of every round). The host keeps `units + grid` below 2^32.
pub const fn a25_unit(round: u32, cta: u32, grid: u32) -> u32 {
    round * grid + if round % 2 == 0 { cta } else { grid - 1 - cta }
}

/// a25 (a24 persistent): a24's with 8 more bytes after Q, its empty barrier (every consumer warp is done
/// with this unit's Q; the producer then loads the next).
pub const fn a25_smem() -> u32 {
    a25_smem_of(A24_BKV)
}

/// a28 (a25 with wider key tiles, FlashAttention-3's 128 × 80 at D = 256): keys per K/V tile. S is
/// `m64n80k16` (40 registers a thread), P five `m16n8k16` K-steps; the ring's four 40 KiB entries and
/// Q's 64 KiB fill 225 KiB of the 227.
pub const A28_BKV: u32 = 80;
/// a24/a25/a28: bytes of one K or one V tile of `bkv` keys × 256 16-bit (four TMA boxes along D).
pub const fn a24_half_bytes_of(bkv: u32) -> u32 {
    bkv * A24_D * 2
}
/// a24/a25/a28: bytes of one box of a K or V tile (`bkv` keys × 128 bytes).
pub const fn a24_box_bytes_of(bkv: u32) -> u32 {
    bkv * 128
}
/// a25's dynamic shared memory with `bkv`-key tiles (a28: [`A28_BKV`]).
pub const fn a25_smem_of(bkv: u32) -> u32 {
    crate::hopper::tma_hgemm::dyn_smem(A24_HALVES, a24_half_bytes_of(bkv), a6_q_bytes(A24_D) + 8, 2)
}
/// a28: a25's layout with 80-key tiles.
pub const fn a28_smem() -> u32 {
    a25_smem_of(A28_BKV)
}

const _: () = assert!(A6_BQ == 128 && A6_BKV == 128 && a6_smem(128, A7_STAGES) <= crate::hopper::tma_hgemm::MAX_DYN_SMEM
                      && a12_smem(128) <= crate::hopper::tma_hgemm::MAX_DYN_SMEM
                      && a25_smem() <= crate::hopper::tma_hgemm::MAX_DYN_SMEM && A24_HALF_BYTES % 1024 == 0 && A24_HALF_BYTES == 4 * A24_KV_BOX_BYTES
                      && a28_smem() <= crate::hopper::tma_hgemm::MAX_DYN_SMEM && a24_box_bytes_of(A28_BKV) % 1024 == 0 && A28_BKV % 16 == 0
                      && A24_HALF_BYTES == a24_half_bytes_of(A24_BKV) && A24_KV_BOX_BYTES == a24_box_bytes_of(A24_BKV));

/// a17: bytes of K and V one head's key tiles hold in L2 while its query tiles run, at most, for the
/// head groups of [`a17_item`]: half the H100's 50 MiB L2.
pub const A17_L2_BUDGET: u64 = 24 << 20;

/// a17: heads per group — the largest divisor of `heads` whose groups keep their K and V (`2 · l · d`
/// 16-bit values a head) within [`A17_L2_BUDGET`]; 1 where no larger one does (then a17 walks as a16).
/// A divisor, so that every block of [`a17_grid`] has a head.
pub const fn a17_group(l: u32, d: u32, heads: u32) -> u32 {
    let per_head = 4 * l as u64 * d as u64;
    let cap = if per_head == 0 { 1 } else { A17_L2_BUDGET / per_head };
    let mut g = if cap < heads as u64 { cap as u32 } else { heads };
    while g > 1 && heads % g != 0 {
        g -= 1;
    }
    if g < 1 { 1 } else { g }
}

/// a17: the grid `(group, tiles, heads / group)` for `heads` heads of `l` rows in query tiles of `bq`
/// ([`a17_group`] heads a group).
pub const fn a17_grid(l: u32, d: u32, heads: u32, bq: u32) -> (u32, u32, u32) {
    let g = a17_group(l, d, heads);
    (g, l.div_ceil(bq), heads / g)
}

/// a17: the (head, query tile) of block `(x, y, z)` of the grid `(gx, gy, ·)` of [`a17_grid`]. Blocks
/// start x fastest, then y, then z: within a group of `gx` heads every head's last (longest, with the
/// causal mask) query tile first, then every head's next-to-last, …, and the groups one after the other
/// — so a group's longest tiles start first and its shortest fill the last wave, while only the group's
/// K and V need to stay in L2. No division: the kernel re-forms both from its special registers
/// wherever it needs them, as a11 does.
///
/// ```text
/// heads = 4, group gx = 2, tiles gy = 3   launch order:  0  1  2  3  4  5 |  6  7  8  9 10 11
///                                          (x, y, z):   00 10 01 11 02 12 | 00 10 01 11 02 12  (z = 0 | 1)
///                                               head:    0  1  0  1  0  1 |  2  3  2  3  2  3
///                                                 qt:    2  2  1  1  0  0 |  2  2  1  1  0  0
/// ```
pub const fn a17_item(x: u32, y: u32, z: u32, gx: u32, gy: u32) -> (u32, u32) {
    (z * gx + x, gy.saturating_sub(1 + y))
}

/// Decode (issue 49, step ad1): warps per CTA; each warp streams its own key tiles.
pub const DECODE_WARPS: u32 = 4;
/// Keys per warp tile (one `mma` k-step of P·V; a page of 16–256 tokens holds whole tiles).
pub const DECODE_KEYS: u32 = 16;
/// Query rows per CTA: the grouped heads of one K/V head times the query tokens, padded to one m-tile.
pub const DECODE_ROWS: u32 = 16;
/// Keys a split's length is a multiple of: one tile per warp.
pub const DECODE_SPLIT_UNIT: u32 = DECODE_WARPS * DECODE_KEYS;

/// Where decode finds a sequence's keys and values (a kernel parameter, by value; elements, not bytes):
/// key `k` of sequence `b`, K/V head `h` starts at `page·page_stride + h·head_stride + (k % page_size)·row_stride`
/// with `page = table[b·max_pages + k / page_size]` — or `page = b` where `table` is 0 (contiguous:
/// `page_size` is then the cache's max length).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct DecodeCache {
    /// Elements from one page (contiguous: one sequence) to the next.
    pub page_stride: u64,
    /// Elements from one K/V head to the next within a page.
    pub head_stride: u64,
    /// Elements from one token to the next within a page and head.
    pub row_stride: u64,
    /// Device address of the `[batch][max_pages]` i32 page table; 0: contiguous.
    pub table: u64,
    /// Table entries per sequence (contiguous: 1).
    pub max_pages: u32,
    /// Tokens per page (contiguous: the cache's max length).
    pub page_size: u32,
    /// Pages in the cache (contiguous: the batch): an entry outside `0..num_pages` is read as an empty
    /// page and never dereferenced.
    pub num_pages: u32,
    /// A sequence's capacity in tokens, `max_pages · page_size`: longer lengths are clamped to it.
    pub capacity: u32,
}

/// Decode's sizes besides the cache (a kernel parameter, by value).
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct DecodeDims {
    /// Query heads (`kv_heads · group`).
    pub heads: u32,
    /// Query heads per K/V head.
    pub group: u32,
    /// New query tokens per sequence (`group · q_len ≤ DECODE_ROWS`).
    pub q_len: u32,
    /// Keys per split, a multiple of [`DECODE_SPLIT_UNIT`].
    pub chunk: u32,
    /// Softmax scale.
    pub scale: f32,
}

/// Prefill's sizes (a19, variable lengths and grouped heads; a kernel parameter, by value). Q and O are
/// `[tokens][heads][head_dim]`, K and V `[tokens][heads / group][head_dim]`, the LSE `[tokens][heads]`;
/// sequence `b`'s tokens are `cu_q[b]..cu_q[b + 1]` of Q (and O) and `cu_k[b]..cu_k[b + 1]` of K and V.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct PrefillDims {
    /// Query heads (`kv_heads · group`).
    pub heads: u32,
    /// Query heads per K/V head.
    pub group: u32,
    /// Head dim of O's rows (96 in a kernel built for 128: the columns past it are zero in the loads and
    /// not stored).
    pub head_dim: u32,
    /// Causal mask (bottom-right: query `r` of `q_len` sees keys `0..=r + k_len − q_len`): 1, else 0.
    pub causal: u32,
    /// Softmax scale.
    pub scale: f32,
}

/// The tile width (elements) decode keeps a row of head dim `d` in: 64, 128 or 256 (D = 96 in 128; the
/// columns past `d` are never loaded nor read).
pub const fn decode_width(d: u32) -> u32 {
    if d <= 64 { 64 } else if d <= 128 { 128 } else { 256 }
}

/// K/V stages per warp: 3, or 2 at width 256 (three would take 200 KiB). Five at width 64 (width 128's
/// bytes in flight a warp) gained 1–2% at latency-bound shapes and lost 0.7% at 64×32×8×2048×64 (session
/// 71, commit `0dbe580`): kept at 3.
pub const fn decode_stages(d: u32) -> u32 {
    if decode_width(d) == 256 { 2 } else { 3 }
}

/// Bytes of one warp's K (or V) tile: `DECODE_KEYS × width` 16-bit.
pub const fn decode_tile_bytes(d: u32) -> u32 {
    2 * DECODE_KEYS * decode_width(d)
}

/// Byte offset of warp `warp`'s K (`v = false`) or V tile of stage `stage`, after the Q tile.
pub const fn decode_kv_offset(d: u32, warp: u32, stage: u32, v: bool) -> u32 {
    2 * DECODE_ROWS * decode_width(d) + decode_tile_bytes(d) * (2 * (warp * decode_stages(d) + stage) + v as u32)
}

/// Decode's dynamic shared memory: Q (`DECODE_ROWS × width`), then per warp and stage a K and a V tile.
/// The same bytes hold, after the key loop, the warps' f32 partial outputs (`DECODE_WARPS × 16 × d`) and
/// their row maxima and sums ([`decode_merge_offset`]).
pub const fn decode_smem(d: u32) -> u32 {
    decode_kv_offset(d, DECODE_WARPS, 0, false)
}

/// Byte offset of the cross-warp merge area (reusing the K/V stages): warp w's row maxima at
/// `+ 4·(16·w + r)`, its row sums `+ 256` further, its O (f32, `16 × d`) from `+ 512`.
pub const fn decode_merge_offset(d: u32) -> u32 {
    decode_kv_offset(d, 0, 0, false)
}

// ---- Backward (issue 50) ---------------------------------------------------------------------------

/// Backward step b1 (FlashAttention-2's backward on `mma.sync`): warps per CTA, each owning 16 of the
/// CTA's keys (their dK and dV rows stay in its registers).
pub const BWD_WARPS: u32 = 8;
/// b1: keys per CTA ([`BWD_WARPS`] × 16).
pub const BWD_BKV: u32 = 16 * BWD_WARPS;
/// b1: queries per streamed tile (Q, dO, the LSE and `D = rowsum(dO ∘ O)` of 64 rows).
pub const BWD_BQ: u32 = 64;

/// Which of b1's shared-memory tiles ([`bwd_offset`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BwdTile {
    /// The CTA's keys, `BWD_BKV × d` (loaded once).
    K,
    /// The CTA's values, `BWD_BKV × d`.
    V,
    /// A stage's queries, `BWD_BQ × d`.
    Q,
    /// A stage's output gradients, `BWD_BQ × d`.
    DO,
    /// dSᵀ of the current query tile, `BWD_BKV × BWD_BQ` 16-bit (keys are rows): written by the warps
    /// that own the keys, read `.trans` as dS for dQ = dS · K.
    DS,
    /// A stage's `log2(e) · LSE` of the tile's queries, `BWD_BQ` f32.
    Lse,
    /// A stage's `D = rowsum(dO ∘ O)` of the tile's queries, `BWD_BQ` f32.
    Delta,
}

/// Byte offset of `what` (stage `stage` for Q, dO, LSE and D) in b1's dynamic shared memory at head dim
/// `d`: K, V, two stages of (Q, dO), dSᵀ, two stages of (LSE, D). Every 16-bit tile is [`tile`]-swizzled.
pub const fn bwd_offset(d: u32, what: BwdTile, stage: u32) -> u32 {
    bwd_qt_offset(d, BWD_BQ, what, stage)
}

/// [`bwd_offset`] with query tiles of `qt` rows (b8: 128 at D = 64): the Q, dO and statistics tiles `qt`
/// rows, dSᵀ `BWD_BKV × qt`.
pub const fn bwd_qt_offset(d: u32, qt: u32, what: BwdTile, stage: u32) -> u32 {
    let kv = 2 * BWD_BKV * d;
    let qd = 2 * qt * d;
    let stats = 2 * kv + 4 * qd + 2 * BWD_BKV * qt;
    match what {
        BwdTile::K => 0,
        BwdTile::V => kv,
        BwdTile::Q => 2 * kv + 2 * stage * qd,
        BwdTile::DO => 2 * kv + 2 * stage * qd + qd,
        BwdTile::DS => 2 * kv + 4 * qd,
        BwdTile::Lse => stats + 2 * stage * 4 * qt,
        BwdTile::Delta => stats + 2 * stage * 4 * qt + 4 * qt,
    }
}

/// b1's dynamic shared memory at head dim `d`: 81 KiB at D = 64, 145 KiB at D = 128.
pub const fn bwd_smem(d: u32) -> u32 {
    bwd_offset(d, BwdTile::Lse, 2)
}
const _: () = assert!(bwd_smem(64) == 81 * 1024 && bwd_smem(128) == 145 * 1024);

/// Step b5 (FlashAttention-2's warp layout): b1's shared memory ([`bwd_offset`]) with Pᵀ's tile after it —
/// `BWD_BKV × BWD_BQ` 16-bit, keys as rows, [`tile`]-swizzled like dSᵀ's ([`BwdTile::DS`]).
pub const fn bwd5_pt_offset(d: u32) -> u32 {
    bwd_qt_pt_offset(d, BWD_BQ)
}

/// b5's dynamic shared memory at head dim `d`: 97 KiB at D = 64, 161 KiB at D = 128.
pub const fn bwd5_smem(d: u32) -> u32 {
    bwd_qt_smem(d, BWD_BQ)
}
const _: () = assert!(bwd5_smem(64) == 97 * 1024 && bwd5_smem(128) == 161 * 1024 && bwd5_pt_offset(64) % 1024 == 0);

/// [`bwd5_pt_offset`] with query tiles of `qt` rows ([`bwd_qt_offset`]'s end; Pᵀ `BWD_BKV × qt`).
pub const fn bwd_qt_pt_offset(d: u32, qt: u32) -> u32 {
    bwd_qt_offset(d, qt, BwdTile::Lse, 2)
}

/// [`bwd5_smem`] with query tiles of `qt` rows: b8 (`qt` = 128, D = 64) 162 KiB.
pub const fn bwd_qt_smem(d: u32, qt: u32) -> u32 {
    bwd_qt_pt_offset(d, qt) + 2 * BWD_BKV * qt
}
/// b8's query tile: 128 rows at head dim 64 (FlashAttention-2's `kBlockM` there).
pub const BWD8_BQ: u32 = 128;
const _: () = assert!(bwd_qt_smem(64, BWD8_BQ) == 162 * 1024 && bwd_qt_pt_offset(64, BWD8_BQ) % 1024 == 0 && bwd_qt_offset(64, BWD8_BQ, BwdTile::DS, 0) % 1024 == 0);

/// The first query tile (of [`BWD_BQ`] rows) that sees a key of the block starting at key `k0`: 0, or
/// with the causal mask aligned bottom-right by `off = k_len − q_len` (query `r` sees keys `0..=r + off`)
/// the tile of query `k0 − off`.
pub const fn bwd_first_q_tile(k0: u32, off: u32, causal: bool) -> u32 {
    bwd_first_q_tile_of(k0, off, causal, BWD_BQ)
}

/// [`bwd_first_q_tile`] for query tiles of `qt` rows.
pub const fn bwd_first_q_tile_of(k0: u32, off: u32, causal: bool, qt: u32) -> u32 {
    if causal && k0 > off { (k0 - off) / qt } else { 0 }
}

/// Whether query tile `qt` needs the causal mask against the key block starting at `k0`: some key of the
/// block lies past a query's last visible key (`qt · BWD_BQ + off`, the tile's first row's).
pub const fn bwd_needs_mask(k0: u32, qt: u32, off: u32) -> bool {
    bwd_needs_mask_of(k0, qt, off, BWD_BQ)
}

/// [`bwd_needs_mask`] for query tile `t` of `qt` rows.
pub const fn bwd_needs_mask_of(k0: u32, t: u32, off: u32, qt: u32) -> bool {
    k0 + BWD_BKV - 1 > t * qt + off
}

/// Backward step b2 (deterministic dQ): query rows per CTA of its dQ kernel (4 warps × 16).
pub const BWD_DQ_BQ: u32 = 64;
/// b2's dQ kernel: keys per streamed K/V tile.
pub const BWD_DQ_BKV: u32 = 64;
/// b2's dQ kernel: warps per CTA.
pub const BWD_DQ_WARPS: u32 = 4;

/// Byte offset in b2's dQ kernel's dynamic shared memory at head dim `d`: Q, dO (`BWD_DQ_BQ × d` each), then
/// per stage K and V (`BWD_DQ_BKV × d` each); `what` is [`BwdTile::Q`], [`BwdTile::DO`], [`BwdTile::K`] or
/// [`BwdTile::V`] (any other tile: the end).
pub const fn bwd_dq_offset(d: u32, what: BwdTile, stage: u32) -> u32 {
    let (tq, tkv) = (2 * BWD_DQ_BQ * d, 2 * BWD_DQ_BKV * d);
    match what {
        BwdTile::Q => 0,
        BwdTile::DO => tq,
        BwdTile::K => 2 * tq + 2 * stage * tkv,
        BwdTile::V => 2 * tq + 2 * stage * tkv + tkv,
        _ => 2 * tq + 4 * tkv,
    }
}

/// b2's dQ kernel's dynamic shared memory: 48 KiB at D = 64, 96 KiB at D = 128 (two CTAs per SM).
pub const fn bwd_dq_smem(d: u32) -> u32 {
    bwd_dq_offset(d, BwdTile::DS, 0)
}
const _: () = assert!(bwd_dq_smem(64) == 48 * 1024 && bwd_dq_smem(128) == 96 * 1024);

/// Backward step b3 (Hopper, `wgmma`): rows of the two resident tiles a CTA keeps (two consumer
/// warpgroups of 64 rows each): the dK/dV kernel's K and V (keys), the dQ kernel's Q and dO (queries).
pub const BWD_H_ROWS: u32 = 128;
/// b3: rows of the streamed tiles (the dK/dV kernel's Q and dO, the dQ kernel's K and V).
pub const BWD_H_STREAM: u32 = 64;
/// b3: stages of streamed tiles — three, so that a tile's last product (dK, dQ) may still run while the
/// next tile's copies land in the stage two tiles back.
pub const BWD_H_STAGES: u32 = 3;

/// Which of b3's shared-memory regions ([`bwd_h_offset`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BwdHTile {
    /// The first resident tile (`BWD_H_ROWS × d`): K (dK/dV kernel) or Q (dQ kernel).
    X,
    /// The second resident tile: V or dO.
    Y,
    /// A stage's first streamed tile (`BWD_H_STREAM × d`): Q or K.
    A,
    /// A stage's second streamed tile: dO or V.
    B,
    /// A stage's `log2(e) · LSE` then `D = rowsum(dO ∘ O)` of its queries (`2 × BWD_H_STREAM` f32; the
    /// dK/dV kernel only).
    Stats,
    /// Step b4 only ([`bwd_h4_offset`], [`BWD_H4_DS`] buffers by the tile's parity): the tile's dSᵀ,
    /// `BWD_H_ROWS` keys × `BWD_H_STREAM` queries in [`sw128_byte`]'s layout — both warpgroups' halves,
    /// the A operand of dQ = dS·K.
    Ds,
    /// Step b4 only ([`bwd_h4_offset`], "stage" = the warpgroup + 2 × the buffer, [`bwd_h4_dq_bufs`]
    /// buffers by the tile's parity): a warpgroup's half of the tile's dQ in f32, `BWD_H_STREAM` queries ×
    /// `d / 2` columns in [`bwd_h4_dq_at`]'s order, the source of the bulk reduce-add into the warpgroup's
    /// half of the tile's block of dQ's accumulator.
    Dq,
}

/// Bytes of one 64-column box of a `rows`-row 16-bit tile under `SWIZZLE_128B` (128-byte rows).
pub const fn sw128_box_bytes(rows: u32) -> u32 {
    rows * 128
}

/// Byte of element `(r, c)` in a `rows × d` 16-bit tile kept as the TMA's `SWIZZLE_128B` boxes of 64
/// columns (box `c / 64` after box `c / 64 − 1`; inside a box 128-byte rows whose 16-byte chunks are
/// XORed with the row's low 3 bits): the layout `wgmma`'s K-major and MN-major 128-byte descriptors read,
/// from a 1024-byte-aligned base.
pub const fn sw128_byte(rows: u32, r: u32, c: u32) -> u32 {
    (c / 64) * sw128_box_bytes(rows) + SwizzleFn { s: 3, b: 3, m: 4 }.apply(r * 128 + (c % 64) * 2)
}

/// Byte offset of `what` (stage `stage` for the streamed tiles and statistics) in b3's dynamic shared
/// memory at head dim `d`, from the first 1024-byte boundary of it: X, Y, then [`BWD_H_STAGES`] stages of
/// (A, B, statistics). Every tile starts on a 1024-byte boundary (the swizzle's period).
pub const fn bwd_h_offset(d: u32, what: BwdHTile, stage: u32) -> u32 {
    let res = 2 * BWD_H_ROWS * d;
    let str_ = 2 * BWD_H_STREAM * d;
    let stage_bytes = 2 * str_ + 1024; // the statistics' 512 bytes padded to the period
    let s0 = 2 * res + stage * stage_bytes;
    match what {
        BwdHTile::X => 0,
        BwdHTile::Y => res,
        BwdHTile::A => s0,
        BwdHTile::B => s0 + str_,
        BwdHTile::Stats => s0 + 2 * str_,
        BwdHTile::Ds | BwdHTile::Dq => bwd_h4_offset(d, what, stage),
    }
}

/// b3's dynamic shared memory at head dim `d` (both kernels): 1024 bytes of alignment slack, the two
/// resident tiles and the stages — 84 KiB at D = 64, 164 KiB at D = 128.
pub const fn bwd_h_smem(d: u32) -> u32 {
    1024 + bwd_h_offset(d, BwdHTile::A, BWD_H_STAGES)
}
const _: () = assert!(bwd_h_smem(64) == 84 * 1024 && bwd_h_smem(128) == 164 * 1024);

/// Step b4: dSᵀ tiles, by the tile's parity — a warpgroup may write the next tile's while the other's
/// dQ product still reads this one (one CTA barrier a tile).
pub const BWD_H4_DS: u32 = 2;

/// Step b4's dQ staging buffers a warpgroup ([`BwdHTile::Dq`]): two at D = 64, where shared memory has the
/// room, so that a tile's dQ stores wait only for the bulk reduce two tiles back to have read its buffer
/// (`cp.async.bulk.wait_group.read 1`; measured 0.987–0.996× the time of one, session 83); one at D = 128,
/// whose 226.5 KiB leave none (`wait_group.read 0`: the last tile's reduce).
pub const fn bwd_h4_dq_bufs(d: u32) -> u32 {
    if d <= 64 { 2 } else { 1 }
}

/// Byte offset of `what` in step b4's dynamic shared memory at head dim `d`, from its first 1024-byte
/// boundary: b3's X and Y, [`BWD_H_STAGES`] stages of (A, B) without the statistics, [`BWD_H4_DS`] dSᵀ
/// tiles ([`BwdHTile::Ds`], by `stage`), the warpgroups' dQ halves ([`BwdHTile::Dq`], `stage` = the
/// warpgroup + 2 × the buffer, [`bwd_h4_dq_bufs`] buffers), then the stages' statistics packed (512
/// bytes each): the statistics leave the stages so that dQ's 32 KiB of f32 fit at D = 128. Every tile
/// starts on a 1024-byte boundary.
pub const fn bwd_h4_offset(d: u32, what: BwdHTile, stage: u32) -> u32 {
    let res = 2 * BWD_H_ROWS * d;
    let str_ = 2 * BWD_H_STREAM * d;
    let s0 = 2 * res + stage * 2 * str_;
    let ds0 = 2 * res + BWD_H_STAGES * 2 * str_;
    let dq0 = ds0 + BWD_H4_DS * 2 * BWD_H_ROWS * BWD_H_STREAM;
    let stats0 = dq0 + 2 * bwd_h4_dq_bufs(d) * bwd_h4_dq_bytes(d);
    match what {
        BwdHTile::X => 0,
        BwdHTile::Y => res,
        BwdHTile::A => s0,
        BwdHTile::B => s0 + str_,
        BwdHTile::Ds => ds0 + stage * 2 * BWD_H_ROWS * BWD_H_STREAM,
        BwdHTile::Dq => dq0 + stage * bwd_h4_dq_bytes(d),
        BwdHTile::Stats => stats0 + stage * 8 * BWD_H_STREAM,
    }
}

/// Bytes of a warpgroup's dQ half ([`BwdHTile::Dq`]): `BWD_H_STREAM` rows × `d / 2` f32 — 8 KiB at D = 64,
/// 16 KiB at D = 128.
pub const fn bwd_h4_dq_bytes(d: u32) -> u32 {
    BWD_H_STREAM * d / 2 * 4
}

/// Where element `(r, c)` (query row `r` < `BWD_H_STREAM`, column `c` < d) of a 64-row dQ tile lies in
/// step b4's tile block (64 · d f32, per query head and padded tile: [`bwd_h4_dq_tile`]), which is also
/// the order of a warpgroup's half in shared memory ([`BwdHTile::Dq`]): the order the accumulators leave
/// the registers. Warpgroup `w = c / (d/2)` owns half `w` (32 · d f32); in it, thread `tid` (0..128, of
/// warp `r / 16`, lane `4 · (r % 8) + (c % 8) / 2`) keeps its pair `k = 2 · nt + hh` (n-tile `nt = (c %
/// (d/2)) / 8`, row half `hh = (r % 16) / 8`) at `2 · (128 · k + tid)`: a warp's `st.shared.v2` of one pair
/// covers 256 consecutive bytes (conflict-free), and a half is one contiguous bulk reduce.
pub const fn bwd_h4_dq_at(d: u32, r: u32, c: u32) -> u32 {
    let half = d / 2;
    let (w, cc) = (c / half, c % half);
    let k = 2 * (cc / 8) + (r % 16) / 8;
    let tid = 32 * (r / 16) + 4 * (r % 8) + (cc % 8) / 2;
    w * 32 * d + 2 * (128 * k + tid) + cc % 2
}

/// Step b4's first padded 64-row tile of sequence `b` starting at query token `q_start`: FlashAttention-3's
/// padding, `(q_start + 64·b) / 64` — sequence b + 1 starts at least `⌈q_len / 64⌉` tiles later, so the
/// sequences' tiles never share a block, and every tile index stays below [`bwd_h4_dq_tiles`].
pub const fn bwd_h4_dq_tile(q_start: u32, b: u32) -> u32 {
    bwd_dq_tile_of(q_start, b, BWD_H_STREAM)
}

/// [`bwd_h4_dq_tile`] for kernels walking query tiles of `qt` rows (64 or 128; b8: 128): `(q_start + qt·b) /
/// 64` — sequence b + 1 starts at least `⌊q_len / 64⌋ + qt / 64` 64-row tiles later, past the last of b's
/// `⌈q_len / qt⌉` tiles of `qt / 64` blocks each, and every tile index stays below [`bwd_dq_tiles_of`].
pub const fn bwd_dq_tile_of(q_start: u32, b: u32, qt: u32) -> u32 {
    (q_start + qt * b) / BWD_H_STREAM
}

/// [`bwd_h4_dq_tiles`] for query tiles of `qt` rows: `tokens_q / 64 + (qt / 64) · batch`.
pub const fn bwd_dq_tiles_of(tokens_q: u32, batch: u32, qt: u32) -> u32 {
    tokens_q / BWD_H_STREAM + (qt / BWD_H_STREAM) * batch
}

/// Padded tiles step b4's dQ accumulator holds for `tokens_q` query tokens in `batch` sequences: `tokens_q /
/// 64 + batch` (its size: that × heads × 64 · d f32).
pub const fn bwd_h4_dq_tiles(tokens_q: u32, batch: u32) -> u32 {
    bwd_dq_tiles_of(tokens_q, batch, BWD_H_STREAM)
}

/// Where element `(r, c)` (query row `r` < 64, column `c` < d) of a 64-row dQ tile lies in the tile blocks of
/// steps b6–b8 (64 · d f32 per query head and padded tile, b4's blocks: [`bwd_h4_dq_tile`], [`bwd_h4_dq_tiles`])
/// whose dQ warps each own 32 rows × `dqc` columns (b6, b7: `dqc` = d / 4, 2 × 4 warps over a 64-row tile; b8:
/// 32 at D = 64, 4 × 2 warps over a 128-row tile): the order the reductions leave the registers, so that a
/// warp's `red` of one fragment element covers 32 consecutive f32 — 128 bytes, 4 whole sectors, where Q's
/// layout takes 8 rows × 4 f32 at every other column (8 sectors, half of each): FlashAttention-2's dQ
/// accumulator. The 32 × `dqc` block at rows `32·(r / 32)`, columns `dqc·(c / dqc)` is slot `w = r / 32 + 2 ·
/// (c / dqc)`, `32 · dqc` f32 at `32 · dqc · w`; in it lane `4 · (r % 8) + (c % 8) / 2` keeps its reduction `k =
/// (dqc/2) · mt + 4 · nt + 2 · hh + c % 2` (m-tile `mt = (r % 32) / 16`, row half `hh = (r % 16) / 8`, n-tile `nt
/// = (c % dqc) / 8`) at `32 · k + lane`.
pub const fn bwd_dq_block_at(dqc: u32, r: u32, c: u32) -> u32 {
    let w = r / 32 + 2 * (c / dqc);
    let (rr, cc) = (r % 32, c % dqc);
    let k = (dqc / 2) * (rr / 16) + 4 * (cc / 8) + 2 * ((rr % 16) / 8) + cc % 2;
    32 * dqc * w + 32 * k + 4 * (rr % 8) + (cc % 8) / 2
}

/// The element `(r, c)` at place `p` of a tile block: [`bwd_dq_block_at`]'s inverse.
pub const fn bwd_dq_block_rc(dqc: u32, p: u32) -> (u32, u32) {
    let (w, k, lane) = (p / (32 * dqc), (p % (32 * dqc)) / 32, p % 32);
    let (mt, nt, e) = (k / (dqc / 2), (k / 4) % (dqc / 8), k % 4);
    (32 * (w % 2) + 16 * mt + lane / 4 + 8 * (e / 2), dqc * (w / 2) + 8 * nt + 2 * (lane % 4) + e % 2)
}

/// Step b4's stage barriers (an 8-byte mbarrier a stage, the TMA's copies of Q and dO complete on it):
/// after the statistics, from [`bwd_h4_offset`]'s base.
pub const fn bwd_h4_bars(d: u32) -> u32 {
    bwd_h4_offset(d, BwdHTile::Stats, BWD_H_STAGES)
}

/// Step b4's dynamic shared memory: 1024 bytes of alignment slack, [`bwd_h4_offset`]'s regions and 64
/// bytes for the stage barriers — 146.5 KiB + 64 B at D = 64 (two dQ buffers), 226.5 KiB + 64 B at D = 128
/// (the limit is 227 KiB).
pub const fn bwd_h4_smem(d: u32) -> u32 {
    1024 + bwd_h4_bars(d) + 64
}
const _: () = assert!(bwd_h4_smem(64) == 146 * 1024 + 576 && bwd_h4_smem(128) == 226 * 1024 + 576 && BWD_H_STAGES * 8 <= 64);

/// The backward kernels' sizes and strides (a kernel parameter, by value). Q, O, dO and dQ share one
/// layout, K, V, dK and dV another, and the forward's LSE a third, each as element strides between a
/// head's consecutive tokens (`*_tok`) and between heads (`*_head`); sequence `b` starts at element
/// `cu_q[b] · heads · D` of Q (`cu_k[b] · kv_heads · D` of K, `cu_q[b] · heads` of the LSE). Token-major
/// `[tokens][heads][D]` (packed sequences; `[B][L][H][D]` at equal lengths) has `tok = heads · D`,
/// `head = D`; head-major `[B·H][L][D]` (the forward steps') `tok = D`, `head = L · D`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct BackwardDims {
    /// Query heads (`kv_heads · group`).
    pub heads: u32,
    /// Query heads per K/V head: a CTA walks each of them for its K/V head.
    pub group: u32,
    /// Causal mask (bottom-right): 1, else 0.
    pub causal: u32,
    /// Softmax scale of the forward.
    pub scale: f32,
    /// Query tokens in all: the pitch of a head in the `log2(e) · LSE` and `D` workspaces (`[heads][tokens_q]`).
    pub tokens_q: u32,
    /// Q, O, dO, dQ: elements between a head's consecutive tokens.
    pub q_tok: u32,
    /// Q, O, dO, dQ: elements between heads.
    pub q_head: u32,
    /// K, V, dK, dV: elements between a head's consecutive tokens.
    pub k_tok: u32,
    /// K, V, dK, dV: elements between heads.
    pub k_head: u32,
    /// The forward's LSE: elements between a head's consecutive tokens.
    pub lse_tok: u32,
    /// The forward's LSE: elements between heads.
    pub lse_head: u32,
}

#[cfg(test)]
mod tests {

    #[test]
    fn a25_snake_gives_every_unit_to_one_cta_once() {
        for (units, grid) in [(1u32, 1u32), (5, 132), (132, 132), (133, 132), (1000, 132), (7, 3), (640, 132), (528, 132)] {
            let (mut seen, mut work) = ([0u32; 1000], [0u64; 132]);
            for cta in 0..grid {
                let mut r = 0;
                loop {
                    let u = a25_unit(r, cta, grid);
                    if u >= units {
                        break;
                    }
                    seen[u as usize] += 1;
                    work[cta as usize] += (units - u) as u64; // unit u's work: decreasing, as the host sorts
                    r += 1;
                }
            }
            assert!(seen[..units as usize].iter().all(|&n| n == 1), "{units} units on {grid}");
            // Snake: over full rounds every CTA's sum of ranks is the same.
            if units % (2 * grid) == 0 {
                assert!(work[..grid as usize].iter().all(|&w| w == work[0]), "{units} on {grid}");
            }
        }
    }

    /// b4's dQ tile block: [`bwd_h4_dq_at`] puts each element of a 64 × d tile on its own 4 bytes of the
    /// 64 · d f32 block, warpgroup w's columns in half w; a thread's pair (its accumulators 4·nt + 2·hh and
    /// + 1: row 16·warp + g + 8·hh, columns 8·nt + 2t, + 1 of its half) on 8 aligned bytes; a warp's
    /// `st.shared.v2` of one pair conflict-free (2 wavefronts, the minimum for 256 bytes). And the padded
    /// tiles: the sequences' tiles are disjoint and below `bwd_h4_dq_tiles`, on random lengths.
    #[test]
    fn b4_dq_blocks_hold_each_element_once_and_store_conflict_free() {
        extern crate std;
        for d in [64u32, 128] {
            let mut seen = std::vec![false; (64 * d) as usize];
            for r in 0..BWD_H_STREAM {
                for c in 0..d {
                    let at = bwd_h4_dq_at(d, r, c);
                    assert!(at < 64 * d && !seen[at as usize], "d {d} ({r}, {c})");
                    seen[at as usize] = true;
                    assert_eq!(at / (32 * d), c / (d / 2), "half of ({r}, {c})");
                }
            }
            for w in 0..2 {
                for warp in 0..4 {
                    for nt in 0..d / 16 {
                        for hh in 0..2 {
                            let addrs: [u32; 32] = core::array::from_fn(|l| {
                                let (g, t) = (l as u32 / 4, l as u32 % 4);
                                let (r, c) = (16 * warp + g + 8 * hh, d / 2 * w + 8 * nt + 2 * t);
                                let at = bwd_h4_dq_at(d, r, c);
                                assert_eq!((at % 2, bwd_h4_dq_at(d, r, c + 1)), (0, at + 1));
                                4 * (at - 32 * d * w)
                            });
                            let cost = bank::lsu(&addrs, u32::MAX, 8, bank::Op::Store).unwrap();
                            assert_eq!((cost.wavefronts, cost.conflicts()), (2, 0), "d {d} w {w} warp {warp} nt {nt} hh {hh}");
                        }
                    }
                }
            }
        }
        for qt in [64u32, 128] {
            for case in 0..200u64 {
                let below = |i: u64, n: u64| (crate::random::hash(case, i) % n) as u32;
                let batch = 1 + below(0, 9);
                let lens: std::vec::Vec<u32> = (0..batch).map(|b| below(1 + b as u64, 300)).collect();
                let (mut start, mut next) = (0, 0);
                for (b, &len) in lens.iter().enumerate() {
                    let first = bwd_dq_tile_of(start, b as u32, qt);
                    assert!(first >= next, "qt {qt} {lens:?}");
                    assert_eq!(qt != 64 || first == bwd_h4_dq_tile(start, b as u32), true);
                    // Every 64-row block of the sequence's qt-row tiles, padding rows included.
                    next = first + len.div_ceil(qt) * (qt / 64);
                    start += len;
                }
                assert!(next <= bwd_dq_tiles_of(start, batch, qt), "qt {qt} {lens:?}");
            }
        }
    }

    /// b6–b8's dQ tile blocks: [`bwd_dq_block_at`] puts each element of a 64 × d tile on its own place of the
    /// 64 · d f32 block ([`bwd_dq_block_rc`] its inverse) for the warps' widths used (`dqc` = d / 4: b6, b7;
    /// 32 at D = 64: b8); lane l's reduction k of the 32 × `dqc` block at slot w (its fragment `dq[mt][nt][e]`,
    /// `(mt, nt, e) = (k / (dqc/2), (k / 4) % (dqc/8), k % 4)`, at row `32·(w % 2) + 16·mt + l/4 + 8·(e/2)`,
    /// column `dqc·(w/2) + 8·nt + 2·(l % 4) + e % 2`) at `32·dqc·w + 32·k + l`: a warp's `red` is 128
    /// consecutive bytes, as the kernels add it.
    #[test]
    fn dq_blocks_hold_each_element_once_and_a_warps_red_is_128_consecutive_bytes() {
        extern crate std;
        for (d, dqc) in [(64u32, 16u32), (128, 32), (64, 32)] {
            let mut seen = std::vec![false; (64 * d) as usize];
            for r in 0..BWD_BQ {
                for c in 0..d {
                    let at = bwd_dq_block_at(dqc, r, c);
                    assert!(at < 64 * d && !seen[at as usize], "d {d} dqc {dqc} ({r}, {c})");
                    seen[at as usize] = true;
                    assert_eq!(bwd_dq_block_rc(dqc, at), (r, c), "d {d} dqc {dqc} place {at}");
                }
            }
            for w in 0..2 * d / dqc {
                for k in 0..dqc {
                    let (mt, nt, e) = (k / (dqc / 2), (k / 4) % (dqc / 8), k % 4);
                    for l in 0..32 {
                        let (r, c) = (32 * (w % 2) + 16 * mt + l / 4 + 8 * (e / 2), dqc * (w / 2) + 8 * nt + 2 * (l % 4) + e % 2);
                        assert_eq!(bwd_dq_block_at(dqc, r, c), 32 * dqc * w + 32 * k + l, "d {d} dqc {dqc} slot {w} k {k} lane {l}");
                    }
                }
            }
        }
    }

    /// b4's dQ = dS·K[:, half]: warpgroup `w`'s B descriptor starts at column `D/2 · w` of the resident K
    /// (`BWD_H_ROWS` keys × D; at D = 64 that is 64 bytes into the swizzled line, the swizzle being on the
    /// absolute address), its A the dSᵀ tile (keys × 64 queries); at K-step `ks` (16 keys, 2048 bytes)
    /// element (n, k) of B is K[16·ks + k][D/2 · w + n] and element (m, k) of A is dSᵀ[16·ks + k][m].
    #[test]
    fn b4_dq_descriptors_read_the_half_of_k_and_ds_transposed() {
        use crate::hopper::WgmmaDesc;
        let rows = BWD_H_ROWS;
        let desc = match WgmmaDesc::mn_major_sw128(0, rows) {
            Ok(x) => x,
            Err(_) => panic!("descriptor"),
        };
        for d in [64u32, 128] {
            for base in [0u32, 5 * 1024] {
                for w in 0..2 {
                    let half = if d == 128 { w * sw128_box_bytes(rows) } else { 64 * w };
                    for ks in 0..rows / 16 {
                        let b = desc.advance(base + half + 2048 * ks);
                        let a = desc.advance(base + 2048 * ks);
                        for k in 0..16 {
                            for n in 0..d / 2 {
                                assert_eq!(b.mn_major_sw128_byte(n, k), base + sw128_byte(rows, 16 * ks + k, d / 2 * w + n), "B d {d} w {w} ks {ks} ({n}, {k})");
                            }
                            for m in 0..BWD_H_STREAM {
                                assert_eq!(a.mn_major_sw128_byte(m, k), base + sw128_byte(rows, 16 * ks + k, m), "A ks {ks} ({m}, {k})");
                            }
                        }
                    }
                }
            }
        }
    }

    /// b3's tiles: every element of a `rows × d` tile lands where `wgmma`'s MN-major 128-byte descriptor
    /// over the tile (K = the rows) reads it, where its K-major one (rows = M or N, 64 columns a box)
    /// reads it, each element on its own 2 bytes, and the regions do not overlap.
    #[test]
    fn b3_tiles_are_what_the_wgmma_descriptors_read() {
        extern crate std;
        use crate::hopper::WgmmaDesc;
        for (rows, d) in [(64u32, 64u32), (64, 128), (128, 64), (128, 128)] {
            let mn = match WgmmaDesc::mn_major_sw128(0, rows) {
                Ok(x) => x,
                Err(_) => panic!("descriptor"),
            };
            let mut seen = std::collections::HashSet::new();
            for r in 0..rows {
                for c in 0..d {
                    let at = sw128_byte(rows, r, c);
                    assert_eq!(at, mn.mn_major_sw128_byte(c, r), "rows {rows} d {d} ({r}, {c})");
                    // K-major (PTX canonical layout, 128-byte swizzle): 8-row groups SBO = 1024 apart, the
                    // box of columns c / 64 advanced by whole boxes.
                    let k_major = (c / 64) * sw128_box_bytes(rows) + crate::swizzle::SwizzleFn { s: 3, b: 3, m: 4 }.apply((r / 8) * 1024 + (r % 8) * 128 + (c % 64) * 2);
                    assert_eq!(at, k_major);
                    assert!(at + 2 <= 2 * rows * d && seen.insert(at));
                }
            }
        }
        for d in [64, 128] {
            let mut ends = 0;
            for (what, st, bytes) in [(BwdHTile::X, 0, 2 * BWD_H_ROWS * d), (BwdHTile::Y, 0, 2 * BWD_H_ROWS * d), (BwdHTile::A, 0, 2 * BWD_H_STREAM * d),
                                      (BwdHTile::B, 0, 2 * BWD_H_STREAM * d), (BwdHTile::Stats, 0, 8 * BWD_H_STREAM), (BwdHTile::A, 1, 2 * BWD_H_STREAM * d),
                                      (BwdHTile::B, 1, 2 * BWD_H_STREAM * d), (BwdHTile::Stats, 1, 8 * BWD_H_STREAM), (BwdHTile::A, 2, 2 * BWD_H_STREAM * d),
                                      (BwdHTile::B, 2, 2 * BWD_H_STREAM * d), (BwdHTile::Stats, 2, 8 * BWD_H_STREAM)] {
                let at = bwd_h_offset(d, what, st);
                assert!(at >= ends && at % 1024 == 0, "{what:?} stage {st} at {at}");
                ends = at + bytes;
            }
            assert!(1024 + ends <= bwd_h_smem(d), "b3's regions fit its shared memory");
            // b4: in order, not overlapping, the tiles on the swizzle's 1024-byte period, the statistics
            // on 16 bytes (4-byte copies, 8-byte loads), all inside bwd_h4_smem and the 227 KiB limit.
            let mut ends = 0;
            let mut regions = std::vec::Vec::new();
            for st in 0..BWD_H_STAGES {
                regions.extend([(BwdHTile::A, st, 2 * BWD_H_STREAM * d), (BwdHTile::B, st, 2 * BWD_H_STREAM * d)]);
            }
            regions.extend([(BwdHTile::Ds, 0, 2 * BWD_H_ROWS * BWD_H_STREAM), (BwdHTile::Ds, 1, 2 * BWD_H_ROWS * BWD_H_STREAM)]);
            for st in 0..2 * bwd_h4_dq_bufs(d) {
                regions.push((BwdHTile::Dq, st, bwd_h4_dq_bytes(d)));
            }
            for st in 0..BWD_H_STAGES {
                regions.push((BwdHTile::Stats, st, 8 * BWD_H_STREAM));
            }
            for (what, st, bytes) in [(BwdHTile::X, 0, 2 * BWD_H_ROWS * d), (BwdHTile::Y, 0, 2 * BWD_H_ROWS * d)].into_iter().chain(regions) {
                let at = bwd_h4_offset(d, what, st);
                let align = if what == BwdHTile::Stats { 16 } else { 1024 };
                assert!(at >= ends && at % align == 0, "b4 {what:?} stage {st} at {at}");
                ends = at + bytes;
            }
            assert!(ends <= bwd_h4_bars(d) && bwd_h4_bars(d) % 8 == 0, "b4's barriers after its regions");
            assert!(1024 + bwd_h4_bars(d) + 8 * BWD_H_STAGES <= bwd_h4_smem(d) && bwd_h4_smem(d) <= 227 * 1024, "b4's regions fit its shared memory");
        }
    }

    /// The bottom-right causal walk against brute force: a query tile visits exactly the key tiles
    /// holding a key some valid row of it sees, and a tile is masked exactly where some row of the
    /// query tile has a key in it beyond its limit (or the tile runs past the keys).
    #[test]
    fn bottom_right_causal_tiles_match_brute_force() {
        for (q_len, k_len) in [(1u32, 1u32), (1, 300), (100, 100), (129, 700), (300, 300), (256, 1000), (77, 4096)] {
            let off = k_len - q_len;
            for qt in 0..q_len.div_ceil(128) {
                let rows = qt * 128..((qt + 1) * 128).min(q_len);
                let n = kv_tiles_off(k_len, 128, 128, qt, true, off);
                let needed = (0..k_len.div_ceil(128)).filter(|&j| rows.clone().any(|r| j * 128 <= r + off)).count() as u32;
                assert_eq!(n, needed, "q_len {q_len} k_len {k_len} qt {qt}");
                for j in 0..n {
                    // Rows past q_len in the tile are computed (not stored): the mask must cover the tile's full 128 rows.
                    let masked = (j * 128..(j + 1) * 128).any(|c| c >= k_len || (qt * 128..(qt + 1) * 128).any(|r| c > r + off));
                    assert!(!masked || needs_mask_off(128, 128, qt, j, off) || (j + 1) * 128 > k_len, "q_len {q_len} k_len {k_len} qt {qt} j {j}");
                }
                assert_eq!(kv_tiles_off(k_len, 128, 128, qt, false, off), k_len.div_ceil(128));
            }
        }
    }
    use super::*;

    #[test]
    fn the_persistent_grid_pairs_tiles_only_when_they_outnumber_the_ctas() {
        // 4×16 heads × 32 tiles on 132 SMs: pairs, one CTA per SM.
        assert_eq!(a12_grid(4096, 64, 132), 132);
        assert!(a12_paired(4096, 64, 132));
        // 16 heads × 8 tiles = 128 ≤ 132: one CTA per tile, unpaired.
        assert_eq!(a12_grid(1024, 16, 132), 128);
        assert!(!a12_paired(1024, 16, 128));
        // 3 heads × 11 tiles = 33 tiles on 16 SMs: 3 × 6 = 18 pairs > 16 → 16 CTAs, paired.
        assert_eq!((a12_grid(1300, 3, 16), a12_paired(1300, 3, 16)), (16, true));
        // 2 heads × 5 tiles = 10 on 8 SMs: 6 pairs < 8 → 6 CTAs, paired.
        assert_eq!((a12_grid(640, 2, 8), a12_paired(640, 2, 6)), (6, true));
        assert_eq!(a12_grid(1, 1, 0), 1);
    }

    #[test]
    fn a15s_cluster_walk_covers_every_query_tile_once_and_balances_the_causal_pairs() {
        // 4×16 heads at L = 4096 on 66 clusters: 16 cluster tiles (256 rows) per head, paired.
        let rows = A6_BQ * A15_CLUSTER;
        assert_eq!(a12_grid_of(4096, 64, 66, rows), 66);
        assert!(a12_paired_of(4096, 64, 66, rows));
        // 1 head of 1000 rows: 4 cluster tiles ≤ 66 → one cluster per tile, unpaired.
        assert_eq!(a12_grid_of(1000, 1, 66, rows), 4);
        assert!(!a12_paired_of(1000, 1, 4, rows));
        for (l, causal) in [(4096u32, true), (4096, false), (1000, true), (1300, true), (129, false)] {
            let ct = l.div_ceil(rows);
            let mut seen = [0u32; 64];
            for p in 0..a12_pairs_of(l, rows) {
                let (heavy, light) = (ct - 1 - p, p);
                let mut walked = 0;
                let tiles: &[u32] = if heavy == light { &[heavy] } else { &[heavy, light] };
                for &t in tiles {
                    let walk = kv_tiles_of(l, rows, A6_BKV, t, causal);
                    walked += walk;
                    for rank in 0..A15_CLUSTER {
                        let qt = A15_CLUSTER * t + rank;
                        if qt * A6_BQ < l {
                            seen[qt as usize] += 1;
                            // A rank never needs more key tiles than its cluster walks.
                            assert!(kv_tiles_of(l, A6_BQ, A6_BKV, qt, causal) <= walk);
                        }
                    }
                }
                // Causal: every pair (but an odd count's middle tile) walks the same key tiles.
                if causal && heavy != light && l % rows == 0 {
                    assert_eq!(walked, 2 * ct + 2, "l {l} pair {p}");
                }
            }
            assert!(seen[..l.div_ceil(A6_BQ) as usize].iter().all(|&n| n == 1), "l {l}: {seen:?}");
        }
    }
    use crate::{Layout, bank};

    /// The module doc's claim: every `ldmatrix` phase on a swizzled tile is one wavefront, and 8 on the
    /// unswizzled tile (8 rows at the same chunk, 128 or 256 bytes apart) — on a2–a5's tiles (`BKV`
    /// keys, and Q of 64 or 128 rows) and a11's (`a11_bkv(d)` keys: 128 at D = 64).
    #[test]
    fn ldmatrix_phases_on_the_swizzled_tiles_are_conflict_free() {
        for (rows, d) in [(BKV, 64u32), (BKV, 128), (BQ_WIDE, 64), (BQ_WIDE, 128), (a11_bkv(64), 64), (a11_bkv(128), 128), (A11_BQ, 64), (A11_BQ, 128)] {
            let sw = tile(rows, d);
            for chunk in 0..d / 8 {
                for row0 in (0..rows).step_by(8) {
                    let addrs: [u32; 8] = core::array::from_fn(|r| 2 * sw.offset(row0 + r as u32, 8 * chunk));
                    let plain: [u32; 8] = core::array::from_fn(|r| 2 * ((row0 + r as u32) * d + 8 * chunk));
                    let w = |a: &[u32; 8]| bank::lsu(a, u32::MAX, 16, bank::Op::Load).unwrap().wavefronts;
                    assert_eq!(w(&addrs), 1, "d {d} chunk {chunk} rows {row0}..");
                    assert_eq!(w(&plain), 8, "d {d} chunk {chunk} rows {row0}.. unswizzled");
                }
            }
            let mut seen = [0u64; 256];
            sw.check(&mut seen).unwrap();
        }
    }

    #[test]
    fn budgets_and_tile_counts() {
        assert_eq!(flash_smem(BQ, 128), 2 * (64 * 128 + 4 * 64 * 128));
        assert_eq!(flash_tile_bytes(BQ, 64, TileOf::V, 1), 2 * 64 * 64 + 3 * 2 * 64 * 64);
        assert_eq!(flash_tile_bytes(BQ_WIDE, 64, TileOf::K, 0), 2 * 128 * 64);
        assert_eq!(kv_tiles(4096, BQ, 0, true), 1);
        assert_eq!(kv_tiles(4096, BQ, 63, true), 64);
        assert_eq!(kv_tiles(4096, BQ_WIDE, 0, true), 2);
        assert_eq!(kv_tiles(100, BQ, 1, false), 2);
        assert_eq!(kv_tiles(100, BQ, 5, true), 2);
        // Masks: with 64-row query tiles only the diagonal key tile; with 128 rows the two under them.
        assert!(needs_mask(BQ, 3, 3) && !needs_mask(BQ, 3, 2));
        assert!(needs_mask(BQ_WIDE, 1, 2) && needs_mask(BQ_WIDE, 1, 3) && !needs_mask(BQ_WIDE, 1, 1));
        assert_eq!((threads(8), query_rows(8, 1), query_rows(4, 2)), (256, BQ_WIDE, BQ_WIDE));
        // a11: 128 query rows, key tiles of 128 (D = 64) or 64 (D = 128); the `_of` forms with BKV are
        // the plain ones.
        assert_eq!((A11_BQ, a11_bkv(64), a11_bkv(128)), (128, 128, 64));
        assert_eq!(flash_smem_of(BQ_WIDE, BKV, 128), flash_smem(BQ_WIDE, 128));
        assert_eq!(flash_tile_bytes_of(A11_BQ, 128, 64, TileOf::K, 1), 2 * 128 * 64 + 2 * 2 * 128 * 64);
        assert_eq!(flash_tile_bytes_of(A11_BQ, 128, 64, TileOf::V, 1) + 2 * 128 * 64 + A11_SUMS_BYTES, a11_smem(64));
        assert_eq!((kv_tiles_of(4096, A11_BQ, 128, 0, true), kv_tiles_of(4096, A11_BQ, 64, 0, true)), (1, 2));
        assert_eq!((kv_tiles_of(100, A11_BQ, 128, 0, false), kv_tiles_of(200, A11_BQ, 64, 1, true)), (1, 4));
        // D = 64: only the diagonal 128-key tile is masked; D = 128: the two 64-key tiles under the query tile.
        assert!(needs_mask_of(A11_BQ, 128, 2, 2) && !needs_mask_of(A11_BQ, 128, 2, 1));
        assert!(needs_mask_of(A11_BQ, 64, 2, 4) && needs_mask_of(A11_BQ, 64, 2, 5) && !needs_mask_of(A11_BQ, 64, 2, 3));
    }

    #[test]
    fn a17_walks_every_tile_once_longest_first_per_group() {
        // The doc's picture: blocks in launch order (x fastest, then y, then z).
        let want = [(0, 2), (1, 2), (0, 1), (1, 1), (0, 0), (1, 0), (2, 2), (3, 2), (2, 1), (3, 1), (2, 0), (3, 0)];
        let mut b = 0;
        for z in 0..2 {
            for y in 0..3 {
                for x in 0..2 {
                    assert_eq!(a17_item(x, y, z, 2, 3), want[b], "block ({x}, {y}, {z})");
                    b += 1;
                }
            }
        }
        // Every (head, tile) once, and within a group the tiles never get longer, for the grids a17 launches.
        for (l, d, heads) in [(4096, 64, 64), (16384, 128, 16), (4096, 128, 13), (300, 64, 7), (128, 64, 1), (65536, 128, 4)] {
            let (gx, gy, gz) = a17_grid(l, d, heads, A11_BQ);
            assert_eq!((gx * gz, gy), (heads, l.div_ceil(A11_BQ)), "{l}x{d}, {heads} heads");
            assert!(gx == 1 || gx as u64 * 4 * l as u64 * d as u64 <= A17_L2_BUDGET, "{l}x{d}, {heads} heads: a group's K and V fit");
            let mut seen = [false; 2048];
            for z in 0..gz {
                let mut prev = u32::MAX;
                for y in 0..gy {
                    for x in 0..gx {
                        let (h, qt) = a17_item(x, y, z, gx, gy);
                        assert!(h < heads && qt < gy && qt <= prev, "{l}x{d}, {heads} heads: block ({x}, {y}, {z})");
                        assert!(!seen[(h * gy + qt) as usize], "{l}x{d}: ({h}, {qt}) twice");
                        seen[(h * gy + qt) as usize] = true;
                        prev = qt;
                    }
                }
            }
        }
        // 4096×64: 1 MiB of K and V a head, 24 fit: 16 (the largest divisor of 64); 16384×128: 8 MiB, 3 fit: 2;
        // 13 heads (prime) at 4096×128: 1 — a16's walk.
        assert_eq!((a17_group(4096, 64, 64), a17_group(16384, 128, 16), a17_group(4096, 128, 13), a17_group(1 << 22, 128, 8)), (16, 2, 1, 1));
    }

    #[test]
    fn decode_tiles_fit_and_the_merge_fits_in_the_stages() {
        for d in [64, 96, 128, 256] {
            let w = decode_width(d);
            assert!(w >= d && w.is_power_of_two());
            // The merge area (maxima, sums, four 16 × d f32 outputs) fits in the K/V stages it reuses.
            let merge = 512 + DECODE_WARPS * 16 * d * 4;
            assert!(merge <= decode_smem(d) - decode_merge_offset(d), "d = {d}");
            assert!(decode_smem(d) <= 227 * 1024, "d = {d}: {} bytes", decode_smem(d));
            assert_eq!(decode_kv_offset(d, 0, 0, true) - decode_kv_offset(d, 0, 0, false), decode_tile_bytes(d));
        }
        // The generalized swizzle keeps the D = 64 / 128 tiles and gives D = 256 its S = 5.
        assert_eq!((tile(64, 64).swizzle.s, tile(64, 128).swizzle.s, tile(16, 256).swizzle.s), (3, 4, 5));
        assert_eq!((decode_smem(128), decode_smem(256)), (4096 + 4 * 3 * 2 * 4096, 8192 + 4 * 2 * 2 * 8192));
    }

    #[test]
    fn backward_tiles_fit_and_the_causal_walk_starts_at_the_first_seeing_query() {
        for d in [64, 128] {
            assert!(bwd_smem(d) <= 227 * 1024);
            assert_eq!(bwd_offset(d, BwdTile::DS, 0) + 2 * BWD_BKV * BWD_BQ, bwd_offset(d, BwdTile::Lse, 0));
            assert!(bwd_offset(d, BwdTile::Lse, 0) % 16 == 0 && bwd_offset(d, BwdTile::Q, 1) % 128 == 0);
        }
        // Brute force: a query tile before the first is never seen by the block's keys, the first is; the
        // mask is needed exactly where some (key, query) pair of the tiles is hidden.
        for (k_len, q_len, causal) in [(1000, 1000, true), (1000, 300, true), (1000, 1000, false), (129, 1, true)] {
            let off = k_len - q_len;
            for kb in 0..(k_len as u32).div_ceil(BWD_BKV) {
                let k0 = kb * BWD_BKV;
                let first = bwd_first_q_tile(k0, off, causal);
                let sees = |qt: u32| (qt * BWD_BQ..((qt + 1) * BWD_BQ).min(q_len)).any(|q| !causal || (k0..(k0 + BWD_BKV).min(k_len)).any(|k| k <= q + off));
                assert!(first == 0 || !sees(first - 1), "{k_len}/{q_len} block {kb}");
                for qt in first..q_len.div_ceil(BWD_BQ) {
                    let hidden = (qt * BWD_BQ..(qt + 1) * BWD_BQ).any(|q| (k0..k0 + BWD_BKV).any(|k| k > q + off));
                    assert!(!causal || !hidden || bwd_needs_mask(k0, qt, off), "{k_len}/{q_len} block {kb} tile {qt}");
                }
            }
        }
    }

}

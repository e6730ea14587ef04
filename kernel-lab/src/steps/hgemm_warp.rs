//! Seed 001's single-warp 16×16×16 ladder (`kernels-gpu/src/hgemm/warp_*`): one warp, f16 in, out and
//! accumulation, one launch of one block.
// Each step constant is documented by its descriptor (`about`, the ladder README), not a doc comment.
#![allow(missing_docs)]
use super::{Family, KernelInfo, PtxCheck, Target};

/// The layout of a 16×16 shared tile (`layout::hgemm::warp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tile {
    /// Row-major, 16 halves per row.
    RowMajor,
    /// Rows padded to 24 halves.
    Padded,
    /// `Swizzle<3,1,3>` on the row-major tile.
    Swizzled,
}

/// How C goes from the accumulator fragments to shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CStore {
    /// `wmma.store` or the `shfl.sync` emulation of `stmatrix`: 32-bit stores in the mma C-fragment layout.
    Fragments,
    /// The native `stmatrix.x4` (sm_90).
    Stmatrix,
}

/// What the bank model traces for the one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trace {
    /// No shared memory (v1).
    None,
    /// A and B copied into `ab` tiles and read as `ldmatrix.x4`; C stored into a `c` tile and copied out.
    Shared {
        /// Layout of the A and B tiles.
        ab: Tile,
        /// Layout of the C tile.
        c: Tile,
        /// How C is stored.
        c_store: CStore,
    },
}

/// One warp-ladder step.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// Name, label, target.
    pub kernel: KernelInfo,
    /// What the bank model traces.
    pub trace: Trace,
}

const fn step(name: &'static str, label: &'static str, target: Target, trace: Trace, ptx: PtxCheck, about: &'static str) -> Step {
    Step {
        kernel: KernelInfo { name, family: Family::HgemmWarp, step: label, target, block_threads: 32, launch_bounds: None, dyn_smem_bytes: 0, about, ptx },
        trace,
    }
}

const WMMA_SHARED: &[&str] = &["wmma.load.b.sync.aligned.row.m16n16k16.shared.f16", "wmma.mma.sync.aligned.row.row.m16n16k16.f16.f16", "st.shared.v4.u32"];
const MMA_SHFL: &[&str] = &["ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", "shfl.sync.idx.b32"];
const fn shared(ab: Tile, c: Tile, c_store: CStore) -> Trace {
    Trace::Shared { ab, c, c_store }
}

pub const V1: Step = step("hgemm_warp_v1", "v1", Target::Sm80, Trace::None,
    PtxCheck { has: &["wmma.load.a.sync.aligned.row.m16n16k16.global.f16"], lacks: &[".shared"], count: &[], at_least: &[] },
    "wmma.load/mma/store straight from global memory");
pub const V2: Step = step("hgemm_warp_v2", "v2", Target::Sm80, shared(Tile::RowMajor, Tile::RowMajor, CStore::Fragments), PtxCheck::has(WMMA_SHARED),
    "staged through shared memory, 128-bit stores: wmma.load conflicts");
pub const V3: Step = step("hgemm_warp_v3", "v3", Target::Sm80, shared(Tile::Padded, Tile::RowMajor, CStore::Fragments), PtxCheck::has(WMMA_SHARED),
    "rows padded by 8 halves: loads conflict-free, stores conflict");
pub const V4: Step = step("hgemm_warp_v4", "v4", Target::Sm80, shared(Tile::RowMajor, Tile::RowMajor, CStore::Fragments), PtxCheck::has(MMA_SHFL),
    "ldmatrix.x4(.trans) + 2 mma.sync.m16n8k16, C via shfl.sync stmatrix");
pub const V4S: Step = step("hgemm_warp_v4_stmatrix", "v4s", Target::Sm90a, shared(Tile::RowMajor, Tile::RowMajor, CStore::Stmatrix),
    PtxCheck::has(&["stmatrix.sync.aligned.m8n8.x4.shared.b16"]), "v4 with the native stmatrix.x4 (sm_90)");
pub const V5: Step = step("hgemm_warp_v5", "v5", Target::Sm80, shared(Tile::Swizzled, Tile::Swizzled, CStore::Fragments),
    PtxCheck { has: &["ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", "shfl.sync.idx.b32", "xor.b32"],
               lacks: &[], count: &[], at_least: &[] },
    "v4 with Swizzle<3,1,3> on every tile: no conflicts");

/// The ladder, in order.
pub const STEPS: &[Step] = &[V1, V2, V3, V4, V4S, V5];

//! What a GEMM step (`C = A · B`, row-major) declares beyond its kernel: grid rule, arguments, the
//! shapes it takes, and how it accumulates. Shared by the SGEMM and HGEMM ladders.
use super::KernelInfo;

/// The most splits of K a d2 launch may have (the kernel's `MAX_SPLITS`: its last block loads every
/// split's partial at once).
pub const DECODE_V2_MAX_SPLITS: u32 = 16;

/// How the grid covers C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grid {
    /// One block per `rows × cols` tile of C: grid `(⌈N / cols⌉, ⌈M / rows⌉)`.
    Tiles {
        /// Rows of C per block.
        rows: u32,
        /// Columns of C per block.
        cols: u32,
    },
    /// One block per `rows × cols` tile and split of K (`layout::hgemm::decode_split_with`): grid
    /// `(⌈N / cols⌉, ⌈M / rows⌉ · splits)`.
    SplitK {
        /// Rows of C per block.
        rows: u32,
        /// Columns of C per block.
        cols: u32,
    },
    /// One block per `rows × cols` tile and split of K, the splits adding into a zeroed C
    /// (`layout::sgemm::split_k_tiles` with `rule`): grid `(⌈N / cols⌉, ⌈M / rows⌉ · splits)`.
    TilesSplitK {
        /// Rows of C per block.
        rows: u32,
        /// Columns of C per block.
        cols: u32,
        /// How many splits of K, and how deep.
        rule: SplitRule,
    },
    /// One block per SM (at most one per unit) walking (tile, split of K) units of `rows × cols` tiles
    /// (`layout::hopper::tma_hgemm::persistent_splits`): a 1-D grid. With `cluster > 1` (d6, d8) the blocks
    /// form clusters of that many along x, and a unit is a *cluster tile* of `cluster` vertically
    /// adjacent tiles: grid `cluster · min(⌈tiles_m / cluster⌉ · tiles_n · splits, ⌊SMs / cluster⌋)`.
    PersistentSplitK {
        /// Rows of C per tile.
        rows: u32,
        /// Columns of C per tile.
        cols: u32,
        /// CTAs per cluster (the kernel's `.reqnctapercluster`; 1: no clusters).
        cluster: u32,
    },
    /// One block per `rows × cols` tile and split of K, the `cluster` splits of a tile forming one
    /// thread-block cluster (`layout::hopper::tma_hgemm::h8_splits`): a 1-D grid of `tiles · cluster`.
    ClusterSplitK {
        /// Rows of C per tile.
        rows: u32,
        /// Columns of C per tile.
        cols: u32,
        /// CTAs per cluster = splits of K (the kernel's `.reqnctapercluster`).
        cluster: u32,
    },
    /// One block per SM (at most one per tile) walking `rows × cols` tiles: a 1-D grid. With
    /// `cluster > 1` (h9) the blocks form clusters of that many along x, each walking groups of
    /// `cluster` vertically adjacent tiles: grid `cluster · min(⌈tiles_m / cluster⌉ · tiles_n, ⌊SMs / cluster⌋)`.
    /// (Not sized by `cuOccupancyMaxActiveClusters`: where the GPCs hold fewer clusters, the rest run as
    /// a later wave — slower, never stuck, since clusters do not wait on each other; h9 is a measured
    /// negative the entry point does not choose.)
    Persistent {
        /// Rows of C per tile.
        rows: u32,
        /// Columns of C per tile.
        cols: u32,
        /// CTAs per cluster (the kernel's `.reqnctapercluster`; 1: no clusters).
        cluster: u32,
    },
}

impl Grid {
    /// The C tile one block (or one persistent iteration) computes.
    pub const fn tile(self) -> (u32, u32) {
        match self {
            Grid::Tiles { rows, cols } | Grid::SplitK { rows, cols } | Grid::TilesSplitK { rows, cols, .. } | Grid::Persistent { rows, cols, .. }
            | Grid::PersistentSplitK { rows, cols, .. } | Grid::ClusterSplitK { rows, cols, .. } => (rows, cols),
        }
    }
}

/// The split rule of a [`Grid::TilesSplitK`] step: `(blocks per SM, shallowest split)` and the
/// multiple every split's depth is cut in (`layout::sgemm::split_k_tiles`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitRule {
    /// The pair from `KERNEL_LAB_SGEMM_SPLIT` (default `1,256`: `runtime::tuning::sgemm_split`), depth a
    /// multiple of `multiple` (v12).
    Tuned {
        /// The depth multiple (the loop's stage).
        multiple: u32,
    },
    /// A fixed rule (v13, v14).
    Fixed {
        /// Target blocks per SM.
        blocks_per_sm: u32,
        /// The shallowest split.
        min_depth: u32,
        /// The depth multiple.
        multiple: u32,
    },
    /// By waves (v33: `layout::sgemm::split_k_waves`): the split whose waves of blocks, each streaming
    /// `bytes_per_k` bytes a k of its range plus a fixed cost, are predicted shortest.
    Waves {
        /// Blocks per SM.
        blocks_per_sm: u32,
        /// The shallowest split.
        min_depth: u32,
        /// The depth multiple.
        multiple: u32,
        /// Bytes a block streams per k of its range.
        bytes_per_k: u64,
    },
    /// v24 (session 61: `layout::sgemm::split_k_rounds`): v14's `Fixed { 3, min_depth }` unless the rounds
    /// of three resident blocks per SM predict another split at least 5% faster.
    Rounds {
        /// The shallowest split.
        min_depth: u32,
        /// The depth multiple.
        multiple: u32,
    },
    /// `Fixed` with the shallowest split raised to `full_depth` once the tiles reach ¾ of the SMs
    /// (v19: `layout::sgemm::split_k_tiles_when_full`).
    FixedWhenFull {
        /// Target blocks per SM.
        blocks_per_sm: u32,
        /// The shallowest split while the tiles are under ¾ of the SMs.
        min_depth: u32,
        /// The shallowest split from ¾ on.
        full_depth: u32,
        /// The depth multiple.
        multiple: u32,
    },
}

/// The kernel's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Args {
    /// `(a, b, c, m, n, k)`: three device pointers.
    Pointers,
    /// `(tmap_a, tmap_b, c, m, n, k)`: A and B through TMA tensor maps in global memory.
    TmaAB,
    /// `(tmap_a, tmap_b, c, m, n, k)` with the two maps **by value** (128-byte `__grid_constant__`
    /// parameters, `TensorMapParam`), not by pointer (d12).
    TmaABParams,
    /// `(tmap_a, tmap_b, tmap_c, m, n, k)`: C written by TMA stores too.
    TmaABC,
    /// `(a, b, c, m, n, k, k_split)`: pointers and the K range of a split; C is zeroed before a launch
    /// with several splits (their sums are added into it).
    PointersSplitK,
    /// `(tmap_a, tmap_b, c, ws, count, m, n, k, splits)`: A and B through TMA, C by pointer, and h7's
    /// partials workspace and tile counters (as [`Args::SplitK`] with `partials: true`).
    TmaSplitK,
    /// `(tmap_a, tmap_b, tmap_c, c, ws, count, m, n, k, splits)`: as [`Args::TmaSplitK`], with C also
    /// through a tensor map (TMA stores where a tile allows, `c` elsewhere).
    TmaSplitKC,
    /// As [`Args::TmaSplitKC`], with C's map in boxes as high as the step's tile (`rows` × 64, not
    /// 64 × 64): d21 stores each warpgroup's part of a tile as one box.
    TmaSplitKCRows,
    /// `(tmap_a, tmap_b, tmap_c, c, ws, count, m, n, k, splits, a, b)`: as [`Args::TmaSplitKC`], plus A
    /// and B by pointer (d10 copies them into its ring with `cp.async`; their maps are only prefetched).
    TmaSplitKCPointers,
    /// `(tmap_a, tmap_b, tmap_c, ws, count, m, n, k, tail)`: as [`Args::TmaABC`], plus the stream-K
    /// tail's partials workspace (`grid + tail` slots of one 128×256 f32 tile) and one counter per tail
    /// tile (zero between launches); `tail` from `layout::hopper::tma_hgemm::stream_k_tail` (h10).
    TmaStreamK,
    /// `(a, b, c, ws, count, m, n, k, k_split)`: pointers, plus an f32 workspace and tile counters
    /// (zero between launches) for the sums across splits of K: one tile of sums (`partials: false`,
    /// added atomically) or one tile per split (`partials: true`, stored and summed by the last block).
    SplitK {
        /// Whether the workspace holds a tile per split.
        partials: bool,
    },
}

/// The shapes a step takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// Any `M × N × K`.
    Any,
    /// K and N multiples of `of` (16-byte rows), for the reason given.
    KnMultipleOf {
        /// The multiple.
        of: usize,
        /// Why, as a phrase after the kernel's name ("loads 16-byte rows of f16").
        why: &'static str,
        /// What to use instead.
        instead: &'static str,
    },
    /// K a multiple of `of` (A's 16-byte rows); any N, B and C at any 2-byte alignment (d24).
    KMultipleOf {
        /// The multiple.
        of: usize,
        /// Why, as a phrase after the kernel's name.
        why: &'static str,
    },
}

impl Needs {
    /// Whether the launch requires B and C 16-byte aligned, as A: every step but the ragged-weight one
    /// (d24), which reads B and writes C at any 2-byte alignment.
    pub fn aligned_b_c(&self) -> bool {
        !matches!(self, Needs::KMultipleOf { .. })
    }
}

/// The element type of A, B and C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Elem {
    /// f32 (the SGEMM ladder).
    F32,
    /// IEEE f16.
    F16,
    /// bfloat16.
    Bf16,
}

/// What the accumulators hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Accumulate {
    /// f32 accumulators.
    F32,
    /// f16 accumulators (`mma … .f16.f16.f16.f16`).
    F16,
}

/// One GEMM step: its kernel, and what the host needs to launch, check and predict it. `T` is the
/// family's bank-model trace description.
#[derive(Clone, Copy, Debug)]
pub struct GemmStep<T: 'static> {
    /// Name, label, block, shared memory, PTX checks.
    pub kernel: KernelInfo,
    /// How the grid covers C.
    pub grid: Grid,
    /// The kernel's parameters.
    pub args: Args,
    /// The shapes it takes.
    pub needs: Needs,
    /// What it accumulates in.
    pub acc: Accumulate,
    /// The element type of A, B and C.
    pub elem: Elem,
    /// What the bank model traces (`model::traces`).
    pub trace: T,
}

impl<T> PartialEq for GemmStep<T> {
    fn eq(&self, o: &Self) -> bool {
        self.kernel.name == o.kernel.name
    }
}

impl<T> GemmStep<T> {
    /// `(splits, k_split)` of a split-K step on `m × n × k` with `sms` SMs. HGEMM decode steps
    /// (`Grid::SplitK`): a target of `blocks_per_sm` blocks per SM (`layout::hgemm::decode_split_with`
    /// with the step's tile rows; d2's last block loads at most 16 partials, d1 adds into one tile: no
    /// cap). SGEMM split-K steps (`Grid::TilesSplitK`): the rule in their grid ([`SplitRule`]).
    /// `(1, k)` for other grids.
    pub fn split_k(&self, m: u32, n: u32, k: u32, sms: u32, blocks_per_sm: u32) -> (u32, u32) {
        match self.grid {
            Grid::SplitK { rows, .. } => {
                let max = if self.args == (Args::SplitK { partials: true }) { DECODE_V2_MAX_SPLITS } else { u32::MAX };
                layout::hgemm::decode_split_with(m, n, k, sms, rows, blocks_per_sm, max)
            }
            // SGEMM v12–v19: the descriptor's rule (`blocks_per_sm`, the hgemm decode knob, does
            // not apply).
            Grid::TilesSplitK { rows, cols, rule } => {
                use layout::sgemm::{split_k_rounds, split_k_tiles, split_k_tiles_when_full, split_k_waves};
                match (rule, crate::runtime::tuning::sgemm_fixed_split()) {
                    (SplitRule::Tuned { multiple }, _) => {
                        let (b, d) = crate::runtime::tuning::sgemm_split();
                        split_k_tiles(m, n, k, sms, rows, cols, b, d, multiple)
                    }
                    // The sweep's override replaces any other rule whole.
                    (SplitRule::Fixed { multiple, .. } | SplitRule::Waves { multiple, .. } | SplitRule::Rounds { multiple, .. }
                     | SplitRule::FixedWhenFull { multiple, .. }, Some((b, d))) => split_k_tiles(m, n, k, sms, rows, cols, b, d, multiple),
                    (SplitRule::Fixed { blocks_per_sm, min_depth, multiple }, None) => split_k_tiles(m, n, k, sms, rows, cols, blocks_per_sm, min_depth, multiple),
                    (SplitRule::Waves { blocks_per_sm, min_depth, multiple, bytes_per_k }, None) => {
                        split_k_waves(m, n, k, sms, rows, cols, blocks_per_sm, min_depth, multiple, bytes_per_k)
                    }
                    (SplitRule::Rounds { min_depth, multiple }, None) => split_k_rounds(m, n, k, sms, rows, cols, min_depth, multiple),
                    (SplitRule::FixedWhenFull { blocks_per_sm, min_depth, full_depth, multiple }, None) => {
                        split_k_tiles_when_full(m, n, k, sms, rows, cols, blocks_per_sm, min_depth, full_depth, multiple)
                    }
                }
            }
            _ => (1, k),
        }
    }

    /// `None` if the step takes `m × n × k`, else why not (the error text names the kernel and the rule).
    pub fn rejects(&self, m: usize, n: usize, k: usize) -> Option<String> {
        match self.needs {
            Needs::Any => None,
            Needs::KnMultipleOf { of, why, instead } if k % of != 0 || n % of != 0 => Some(format!(
                "{} {why}: K and N must be multiples of {of} (got {m}x{n}x{k}); {instead}", self.kernel.name)),
            Needs::KnMultipleOf { .. } => None,
            Needs::KMultipleOf { of, why } if k % of != 0 => Some(format!(
                "{} {why}: K must be a multiple of {of} (got {m}x{n}x{k}); any N is taken", self.kernel.name)),
            Needs::KMultipleOf { .. } => None,
        }
    }
}

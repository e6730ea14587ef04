//! The problem size of a GEMM, `C (M×N) = A (M×K) · B (K×N)`, and what it implies for a step: the
//! buffers it needs, the step's shape rule, its grid. [`GemmDesc`](super::GemmDesc) adds the strides.
use crate::{
    error::{Error, Result},
    steps::gemm::GemmStep,
};

/// The shape `M × N × K` of `C (M×N) = A (M×K) · B (K×N)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Shape {
    /// Rows of A and C.
    pub m: usize,
    /// Columns of B and C.
    pub n: usize,
    /// Columns of A, rows of B.
    pub k: usize,
}

impl Shape {
    /// Validates the shape: every dimension at least 1, and each at most 2^20 (the kernels index rows
    /// and columns in 32 bits; products are formed in 64 bits).
    pub fn new(m: usize, n: usize, k: usize) -> Result<Shape> {
        for (name, v) in [("M", m), ("N", n), ("K", k)] {
            if v == 0 {
                return Err(Error::InvalidInput(format!("GEMM {name} = 0: every dimension must be at least 1")));
            }
            if v > 1 << 20 {
                return Err(Error::InvalidInput(format!("GEMM {name} = {v} exceeds 2^20")));
            }
        }
        Ok(Shape { m, n, k })
    }
    /// `2·M·N·K`.
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }
    /// Checks that buffers of `a_len`, `b_len`, `c_len` elements (of `elem`, e.g. "f32") hold A (M×K),
    /// B (K×N) and C (M×N); the error names the buffer and both lengths.
    pub fn check_buffers(&self, elem: &str, a_len: usize, b_len: usize, c_len: usize) -> Result<()> {
        for (what, len, want) in [("A", a_len, self.m * self.k), ("B", b_len, self.k * self.n), ("C", c_len, self.m * self.n)] {
            if len != want {
                return Err(Error::InvalidInput(format!("length mismatch: {what} holds {len} {elem}, the shape needs {want}")));
            }
        }
        Ok(())
    }
    /// The grid of `step` on this shape (its descriptor's grid rule; persistent steps: one block per SM
    /// at most, on a GPU with `sms` SMs). Errors if the grid's y dimension exceeds 65535.
    pub fn grid<T>(&self, step: &GemmStep<T>, sms: u32) -> Result<(u32, u32)> {
        use crate::steps::gemm::Grid;
        let (rows, cols) = step.grid.tile();
        let (tiles_n, tiles_m) = ((self.n as u32).div_ceil(cols), (self.m as u32).div_ceil(rows));
        let grid = match step.grid {
            Grid::Tiles { .. } => (tiles_n, tiles_m),
            Grid::TilesSplitK { .. } => (tiles_n, tiles_m * step.split_k(self.m as u32, self.n as u32, self.k as u32, sms, 1).0),
            Grid::SplitK { .. } => (tiles_n, tiles_m * step.split_k(self.m as u32, self.n as u32, self.k as u32, sms, crate::runtime::tuning::decode_blocks_per_sm()).0),
            Grid::Persistent { cluster, .. } => {
                let cluster = cluster.max(1);
                (cluster * (tiles_n * tiles_m.div_ceil(cluster)).min((sms / cluster).max(1)), 1)
            }
            Grid::ClusterSplitK { cluster, .. } => {
                let ctas = tiles_n as u64 * tiles_m as u64 * cluster as u64;
                if ctas > i32::MAX as u64 {
                    return Err(Error::InvalidInput(format!("{}: {ctas} CTAs exceed the grid's x limit", step.kernel.name)));
                }
                (ctas as u32, 1)
            }
            Grid::PersistentSplitK { cluster, .. } => {
                let (_, units, at_once) = persistent_units(self.m as u32, self.n as u32, self.k as u32, sms, rows, cols, cluster);
                (cluster.max(1) * units.min(at_once) as u32, 1)
            }
        };
        if grid.1 > 65_535 {
            return Err(Error::InvalidInput(format!("{}: M = {} needs {} block rows, above the grid's y limit of 65535", step.kernel.name, self.m, grid.1)));
        }
        Ok(grid)
    }
    /// `Err` naming the rule if `step` does not take this shape.
    pub fn check_step<T>(&self, step: &GemmStep<T>) -> Result<()> {
        match step.rejects(self.m, self.n, self.k) {
            Some(why) => Err(Error::InvalidInput(why)),
            None => Ok(()),
        }
    }
}

/// The K splits of a persistent split-K step (`Grid::PersistentSplitK`, tiles `rows × cols`) on
/// `m × n × k` with `sms` SMs: what its grid, its launch and the cost model's schedule all use.
/// [`persistent_splits`](layout::hopper::tma_hgemm::persistent_splits), or the fixed count
/// `KERNEL_LAB_TMA_SPLITS` names (sweeping only: [`tuning::tma_fixed_splits`](crate::runtime::tuning::tma_fixed_splits)).
/// Always 1 ..= 16 with no split empty.
pub fn persistent_split_count(m: u32, n: u32, k: u32, sms: u32, rows: u32, cols: u32) -> u32 {
    use layout::hopper::tma_hgemm::{BK, H7_MAX_SPLITS, covering_splits, persistent_splits};
    match crate::runtime::tuning::tma_fixed_splits() {
        None => persistent_splits(m, n, k, sms, rows, cols),
        Some(s) => covering_splits(k.div_ceil(BK), s.min(H7_MAX_SPLITS)),
    }
}

/// A persistent split-K step's work on `m × n × k`: `(splits, units, at_once)` — its K splits
/// ([`persistent_split_count`]), its units (cluster tiles of `cluster` vertically adjacent tiles, times
/// the splits) and how many units run at once (⌊SMs / cluster⌋, at least 1). The grid
/// ([`Shape::grid`]: `cluster · min(units, at_once)` CTAs) and the cost model's rounds both read it.
pub fn persistent_units(m: u32, n: u32, k: u32, sms: u32, rows: u32, cols: u32, cluster: u32) -> (u32, u64, u64) {
    let splits = persistent_split_count(m, n, k, sms, rows, cols);
    let c = cluster.max(1);
    let units = m.div_ceil(rows).div_ceil(c) as u64 * n.div_ceil(cols) as u64 * splits as u64;
    (splits, units, (sms / c).max(1) as u64)
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}x{}", self.m, self.n, self.k)
    }
}


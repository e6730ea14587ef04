//! The reduction ladder of seed 003: `out = Σ in[i]` over `n` f32, one file per step in `steps/`
//! (declared by `kernels-gpu/build.rs`; each file's doc says what changes from the previous step).
//!
//! | step | file | idea |
//! |------|------|------|
//! | v0 | `steps/v0_interleaved_divergent.rs` | tree in shared memory, `tid % (2s) == 0` does the add: divergent warps |
//! | v1 | `steps/v1_interleaved.rs` | the first `BLOCK/2s` threads add at `2·s·tid`: no divergence, bank conflicts |
//! | v2 | `steps/v2_sequential.rs` | thread `tid` adds `tid + half` into `tid`: conflict-free |
//! | v3 | `steps/v3_first_add_on_load.rs` | each thread adds two elements while loading: half the blocks, no idle half |
//! | v4 | `steps/v4_last_warp_shuffle.rs` | the last 32 partial sums are reduced by one warp with `shfl.sync` |
//! | v5 | `steps/v5_vec4_grid_stride.rs` | 128-bit loads, a grid-stride loop sized to fill the GPU once, one final pass |
//! | v6 | `steps/v6_unrolled_single_pass.rs` | four 128-bit loads in flight per thread, and the last block finishes |
//! | v7 | `steps/v7_u64_index.rs` | v6 with 64-bit element indices |
//!
//! Shared machinery: `block_sum.rs` (the block-wide sum of v5 and v6).
//!
//! v0–v5 write one partial sum per block to `g_out[block]`; the host relaunches the same kernel on the
//! partial sums until one value is left (`kernel_lab::reduce`). v6 needs one launch.
//! Launch contract (checked by the host, which is the only caller): `block_dim_x() == BLOCK`,
//! dynamic shared memory as the registry says, `n <= MAX_N`, `g_in` 16-byte aligned for v5/v6.
pub use layout::reduce::{BLOCK, WARP};

mod block_sum;
// The steps: one module per file of `src/reduce/steps/`, declared by kernels-gpu/build.rs.
include!(concat!(env!("OUT_DIR"), "/reduce_steps.rs"));

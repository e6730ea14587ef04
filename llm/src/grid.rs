//! The launch shapes of the runner's kernels (`kernels/`), one place for the model and the tests: every
//! kernel runs `THREADS` = 256 threads a block; the per-token kernels put tokens on the grid's x and
//! spread a token's work over its y, so a decode step's one token still fills many SMs.
use kernel_lab::cudarc::driver::LaunchConfig;

/// Threads per block of every kernel of the crate (its `THREADS`; the launchers' `MAX_THREADS`).
pub const THREADS: u32 = 256;
/// Dynamic shared memory of an RMSNorm block: the warps' partial sums.
pub const RMSNORM_SMEM: u32 = 32;
/// Dynamic shared memory of an argmax block (the kernel crate's `ARGMAX_SMEM`, which the host cannot
/// import: keep the two equal): the warps' bests and a flag.
pub const ARGMAX_SMEM: u32 = 80;
/// Most blocks an argmax row is split over (its partials' workspace per row).
pub const ARGMAX_MAX_PARTS: usize = 128;

fn cfg(x: usize, y: usize, smem: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (x as u32, y.clamp(1, 65_535) as u32, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: smem }
}

/// One block per row (embedding gather, RMSNorm): `smem` bytes of dynamic shared memory.
pub fn rows(rows: usize, smem: u32) -> LaunchConfig {
    cfg(rows, 1, smem)
}

/// The rotary kernel over `tokens`: one thread per rotated pair of Q and K and per element of V.
pub fn rope(tokens: usize, heads: usize, kv_heads: usize, head_dim: usize) -> LaunchConfig {
    let items = (heads + kv_heads) * head_dim / 2 + kv_heads * head_dim;
    cfg(tokens, items.div_ceil(THREADS as usize), 0)
}

/// SiLU·mul over `tokens` rows of `inter` outputs: one thread per 8 of them.
pub fn silu_mul(tokens: usize, inter: usize) -> LaunchConfig {
    cfg(tokens, inter.div_ceil(8 * THREADS as usize), 0)
}

/// Blocks an argmax row of `vocab` is split over: one chunk of 8 per thread, at most [`ARGMAX_MAX_PARTS`].
pub fn argmax_parts(vocab: usize) -> usize {
    vocab.div_ceil(8 * THREADS as usize).clamp(1, ARGMAX_MAX_PARTS)
}

/// The argmax over `rows` rows of `vocab` (its workspace: `rows · argmax_parts(vocab)` partials).
pub fn argmax(rows: usize, vocab: usize) -> LaunchConfig {
    cfg(rows, argmax_parts(vocab), ARGMAX_SMEM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decode_token_spreads_over_blocks() {
        // Llama-3-8B: 32/8 heads of 128; 14336 intermediate; 128256 vocabulary.
        assert_eq!(rope(1, 32, 8, 128).grid_dim, (1, 14, 1));
        assert_eq!(silu_mul(1, 14336).grid_dim, (1, 7, 1));
        assert_eq!(argmax(1, 128256).grid_dim, (1, 63, 1));
        assert_eq!(argmax(3, 1000).grid_dim, (3, 1, 1));
        assert_eq!(argmax_parts(1 << 30), ARGMAX_MAX_PARTS);
        assert_eq!(rows(2048, RMSNORM_SMEM).grid_dim, (2048, 1, 1));
    }
}

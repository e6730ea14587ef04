#![cfg(lab_sm90)]
//! FP8 weight-only decode w5 — w1 on weights **packed in the order its lanes load them**
//! (`layout::fp8::weights::packed_index`), the only change.
//!
//! Why: w1 streams N×K weights as checkpoints store them, so each of a warp's four 16-byte loads a step
//! gives its eight rows 64 bytes each — half of eight 128-byte lines, the other halves loaded by the next
//! warp — and the 264 resident blocks walk 32 rows each, 4 KiB apart (at K = 4096). Its time fits launch
//! plus a per-block cost better than bandwidth: 36–69% of the copy rate below the LM head, DRAM at 62% of
//! peak in `ncu` where HGEMM d2 (whole 128-byte lines by `cp.async`) reads 84% (the FP8 ladder's README).
//! Four rungs that changed how much or in what order a warp loads (a per-lane ring, persistent blocks, a
//! weights-only ring, contiguous K per warp) left it where it was; none changed what one load touches.
//! The weights are the library's own format (quantized at load), so their bytes can lie in the order a
//! warp reads them: a warp step's 2 KiB contiguous, each load instruction 512 contiguous bytes — four
//! whole lines — and a block's eight warps one 16 KiB run. Rows and K are padded with zeros to the tile
//! and the step, so no lane tests its row or its K against the bounds: only a step past the split's end
//! reads nothing.
//!
//! Prediction (before running, H200): if the half-line requests or the scattered rows are what hold DRAM
//! at ~62%, w5 reads at d2's 84%: 1×28672×4096 ~40 → ~32 µs, 1×4096×14336 (2 splits) ~22.7 → ~18,
//! little change at 1×4096×4096 (a one-wave launch bound by its ramp), and the FP8 runner's batch-1
//! step ~2.9 → ~2.6 ms. If the time does not move, the access pattern is not the limit either.
//!
//! **Its SwiGLU epilogue** (`fp8_w5_silu_*`, session 107; not a new rung of the ladder: the same loads and
//! MMAs, another end). A Llama-family MLP runs `gu = x · [Wgate; Wup]ᵀ`, then `act = silu(gate)·up`
//! as its own launch, then `act · Wdownᵀ`. With the fused gate/up weights as they are (`[gate; up]`, any
//! layout), tile `t` of the gated kernel multiplies gate rows `16t ..` and up rows `n/2 + 16t ..`
//! (`weight_only::GateUp`, `layout::fp8::weights::gated_first_row`) — each half a 16-row half of a packed
//! tile, so every load is still four whole lines — and its block writes `silu(gate)·up` for its 16
//! columns of the activation, rounded as the runner's `silu_mul` rounds it (`half16::silu_times`): the
//! same bits as the two launches, one launch and one round trip of `gu` fewer. Each step reads two block
//! scales (the halves lie in different 128-row blocks). Predicted on the H100 (Llama-3-8B-shaped, batch
//! 1): the step loses its 32 `silu_mul` launches, ~1.5–3 µs each in the captured graph, so 3.32 → ~3.25
//! ms, bf16 / FP8 1.695 → ~1.73×.
//!
//! **Its residual-norm tail** (`fp8_w5_norm_t8_*`, session 107; built, not yet run): after w5's product
//! `y = x·Wᵀ` the grid's last tile (a ticket after each tile's final values) adds `y` into the residual
//! stream and writes the next RMSNorm's output (`nvptx_std::half16::add_rmsnorm_row`, the runner's
//! `add_rmsnorm` row by row: the same bits) — the O or down projection, the residual add and the next norm
//! in one launch, for up to 8 tokens (one block does the rows). Predicted (H100, batch 1): the 64
//! `add_rmsnorm` launches a step go for a tail of ~1 µs on 64 GEMMs, 0–100 µs of 3.3 ms; it pays only if a
//! kernel boundary costs more than the tail, which the profile of `scripts/gpu-s107.sh` tells.
use crate::fp8::weight_only::{GateUp, Whole, weight_only_entries, weight_only_norm_entries};
use crate::hgemm::elem::{Bf16, F16};

weight_only_entries! {
    true, GateUp, "fused gate/up weights `[gate; up]` (n rows, n/2 a multiple of 16) in the packed layout (`packed_len(n, k)` bytes), the padding zero; `y` holds `m · n/2` values";
    fp8_w5_silu_t8_bf16, 1, Bf16, 8;
    fp8_w5_silu_t16_bf16, 2, Bf16, 16;
    fp8_w5_silu_t32_bf16, 4, Bf16, 32;
    fp8_w5_silu_t8_f16, 1, F16, 8;
    fp8_w5_silu_t16_f16, 2, F16, 16;
    fp8_w5_silu_t32_f16, 4, F16, 32;
}

weight_only_entries! {
    true, Whole, "`layout::fp8::weights::packed_len(n, k)` bytes in the packed layout (`packed_index`), the padding zero";
    fp8_w5_t8_bf16, 1, Bf16, 8;
    fp8_w5_t16_bf16, 2, Bf16, 16;
    fp8_w5_t32_bf16, 4, Bf16, 32;
    fp8_w5_t8_f16, 1, F16, 8;
    fp8_w5_t16_f16, 2, F16, 16;
    fp8_w5_t32_f16, 4, F16, 32;
}

weight_only_norm_entries! {
    fp8_w5_norm_t8_bf16, Bf16;
    fp8_w5_norm_t8_f16, F16;
}

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
use crate::fp8::weight_only::weight_only_entries;
use crate::hgemm::elem::{Bf16, F16};

weight_only_entries! {
    true, "`layout::fp8::weights::packed_len(n, k)` bytes in the packed layout (`packed_index`), the padding zero";
    fp8_w5_t8_bf16, 1, Bf16, 8;
    fp8_w5_t16_bf16, 2, Bf16, 16;
    fp8_w5_t32_bf16, 4, Bf16, 32;
    fp8_w5_t8_f16, 1, F16, 8;
    fp8_w5_t16_f16, 2, F16, 16;
    fp8_w5_t32_f16, 4, F16, 32;
}

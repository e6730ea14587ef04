//! Attention step a33: a19's prefill — packed sequences of different lengths (`cu_seqlens`), grouped-query
//! heads, the causal mask aligned bottom-right, head dim 96 in the 128 kernel — on a11's FlashAttention-2
//! tiles (`mma.sync`, sm_80): the library's prefill on GPUs without `sm_90a` (A100, L4, RTX), where a19–a31
//! (TMA, `wgmma`) do not run, and so the model runner's too.
//!
//! Diff from a16 (a11's body with each head's longest query tiles first; `attention/fa2_mma_tiles.rs`,
//! `flash_fa2_varlen`):
//! * The grid is a19's, `(⌈max q_len/128⌉, heads, batch)`: block (x, y, z) reads sequence z's offsets
//!   (`cu_q`, `cu_k`), takes its query tile counted from the last, head y and K/V head `y / group`, and exits
//!   where the sequence has no such tile.
//! * Rows are read and written `heads · head_dim` (K/V: `kv_heads · head_dim`) elements apart in the packed
//!   tensors, offsets in 64 bits (`flash::load_rows`, `store_rows`); columns past `head_dim` zero-filled.
//! * Keys and queries have their own lengths; the mask is a16's shifted by `k_len − q_len` (`needs_mask_off`,
//!   `kv_tiles_off`) and a ragged last key tile is masked at `k_len`.
//! * The key tile's work is a11's own (`fa2_tile`, shared with a11, a16, a17 since this step: their PTX moved
//!   by instruction order alone, registers and spills unchanged).
//!
//! Prediction (before any run), H200 with `sm_90a` withheld (`KERNEL_LAB_WITHHOLD=sm_90a`), bf16, 32/8 heads,
//! D = 128: a16/a17's rate on the same work — a17 ran 1.06–1.10× torch's FA2 causal (H100, session 23) — so
//! ~0.55–0.65× a26 (Hopper's `wgmma` at 1.0–1.1× cuDNN), and ≥ 0.95× torch's FA2 backend on the same packed
//! problem; equal lengths within 2% of a16's time on the same tokens.
use super::fa2_mma_tiles::fa2_varlen_entry;
use crate::hgemm::elem::{Bf16, F16};

fa2_varlen_entry!(attn_a33_d64_f16, F16, 64);
fa2_varlen_entry!(attn_a33_d128_f16, F16, 128);
fa2_varlen_entry!(attn_a33_d64_bf16, Bf16, 64);
fa2_varlen_entry!(attn_a33_d128_bf16, Bf16, 128);
// Head dim 96 in the 128 kernel with S and O over its 96 dims (a29's idea on Hopper; session 103 measured the
// 128 entry over zero columns at 0.66× torch's FA2 there): six of eight k-steps and P·V column blocks.
// Written at the end of session 103 with no device time left. *Predicted* (before any run): ~0.78× the 128
// entry's time at D = 96 (S and P·V a quarter shorter, the softmax and loads as before), ~0.85× torch's FA2
// there. Measured (session 104, H200, 3 processes, `results/2026-12-05-h200-session104`): correct against f64
// (memcheck, racecheck clean); **0.84–0.88× the 128 entry's time** (2×16×8×4096 bf16 750 against 887 µs,
// causal 483 against 559; 8×32×32×512 0.87–0.89×; 1×32×8×8192 0.84–0.85×; f16 alike) — under the prediction
// (the softmax, the loads and the mask's share do not shrink with D), faster everywhere: the library's kernel
// at head dims up to 96 off Hopper since (`PrefillDesc::kernel_name`).
fa2_varlen_entry!(attn_a33_d96_f16, F16, 128, 96);
fa2_varlen_entry!(attn_a33_d96_bf16, Bf16, 128, 96);

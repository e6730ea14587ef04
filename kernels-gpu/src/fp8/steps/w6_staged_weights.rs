#![cfg(lab_sm90)]
//! FP8 weight-only decode w6 — w5 with each warp's **first steps copied into shared memory before the
//! PDL wait** (`cp.async`, 3 steps a warp at 8 tokens, 2 at 16, 1 at 32: `layout::fp8::weights::w6_stage`),
//! the only change.
//!
//! Why: in the runner's CUDA graph an FP8 projection costs ~5 µs a layer more than its bytes at the copy
//! rate, a bf16 one (HGEMM d2) ~2.6 (session 64: O left out of the step, 9.07 against 10.7 µs for twice
//! the bytes). Both read weights before their PDL wait (the host promises the previous grid does not
//! write them), while the small kernel before them (RMSNorm, SiLU·mul, rotary embedding, attention) runs
//! with the DRAM mostly idle. d2 has three 8 KiB stages a block in flight there, several blocks an SM;
//! w5 one 2 KiB step a warp in registers — 32 KiB an SM, ~1 µs of the copy rate. More steps in registers
//! cost registers (two took t8 from 106 to 128, session 64); in shared memory they cost none: w6 holds
//! 96 KiB an SM at 8 tokens. The slots reuse the block reduction's area (48 KiB a block, so an SM still
//! fits two blocks beside a decode-attention CTA's 100 KiB). After the wait a warp loads the staged
//! steps' activations and its first step after them, then computes the staged steps from shared memory
//! (each lane reads back the 64 bytes it copied: no barrier) and goes on as w5.
//!
//! Prediction (before running, H200): the same time alone (`kernel-lab w8`, ±2%: one launch at a time);
//! in the runner (batch 1, Llama-3-8B shape, FP8) ~1–2 µs less a projection where the previous kernel
//! leaves the DRAM idle: the step ~2.67 → ~2.50 ms GPU (bf16 / FP8 1.60 → ~1.7×).
use crate::fp8::weight_only::weight_only_entries;
use crate::hgemm::elem::{Bf16, F16};

weight_only_entries! {
    true, crate::fp8::weight_only::w6_stage, "`layout::fp8::weights::packed_len(n, k)` bytes in the packed layout (`packed_index`), the padding zero";
    fp8_w6_t8_bf16, 1, Bf16, 8;
    fp8_w6_t16_bf16, 2, Bf16, 16;
    fp8_w6_t32_bf16, 4, Bf16, 32;
    fp8_w6_t8_f16, 1, F16, 8;
    fp8_w6_t16_f16, 2, F16, 16;
    fp8_w6_t32_f16, 4, F16, 32;
}

//! Decode step ad3 (issues 49 and 51): ad2 with the cache read before the previous grid has finished.
//!
//! Inside a model's decode step, decode attention is launched with PDL behind the kernel that rotates Q
//! and K and appends the new token's K and V to the cache; its CTAs are resident while that kernel runs,
//! but ad2 waits (`griddepcontrol.wait`) before its first read, so each CTA's chain after the wait starts
//! with a cold read of its sequence's length, then of its first K/V tiles from DRAM. Those were written by
//! earlier steps: only the last `q_len` rows (the new tokens) and Q are the previous grid's. Where the host
//! promises that (`CacheReady::AtLaunch`), ad3 reads the length and copies its first `stages − 1` tiles'
//! older rows before the wait (a `cp.async` group each), and the new rows and Q after it (one more group),
//! every row of a tile by exactly one of the two. The key loop is ad2's (`decode_body.rs`, `EARLY`).
//!
//! Prediction (before any run, H200, Llama-3-8B shape, batch 1, 2048-token context in the runner's graph):
//! ~1–1.5 µs less per layer (one DRAM latency and the length's round trip off each CTA's chain): the
//! step 4.39 → ~4.35 ms. Measured (session 70, the step's GPU time with its graph replayed back to back,
//! 4 processes): 4.293 ms with ad2 (its combine already in one round trip) → 4.288 with ad3, 0.15 µs a
//! layer — the wait is short here (the rotary kernel before it takes ~1 µs), so little is left to hide.
use super::decode_body::{decode, fused_decode_entries};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::{DecodeCache as Cache, DecodeDims as Dims};

fused_decode_entries! { "ad3", "As ad2's entry (`attn_decode2_d*`), and the grid launched before on the stream (and any grid still \
      running when this one starts) writes neither `seq_lens`, nor the page table, nor any cache row of a \
      sequence but its last `q_len` (else the attention is of stale values; every access stays inside the \
      buffers).", true, false, false;
    attn_decode3_d64_f16, F16, 64;
    attn_decode3_d96_f16, F16, 96;
    attn_decode3_d128_f16, F16, 128;
    attn_decode3_d256_f16, F16, 256;
    attn_decode3_d64_bf16, Bf16, 64;
    attn_decode3_d96_bf16, Bf16, 96;
    attn_decode3_d128_bf16, Bf16, 128;
    attn_decode3_d256_bf16, Bf16, 256;
}

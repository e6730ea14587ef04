//! Decode step ad2 (issue 49): ad1 with the split-KV combine fused into the decode grid.
//!
//! At batch 1 ad1 launches a few hundred CTAs that each read 64–128 keys, then a second kernel that
//! merges the splits: 4 blocks for Llama-3-8B's 32 query rows, each warp walking one row's 32 splits
//! one load at a time. The bytes are ~8 MiB at a 2k context (2 µs at the copy rate) and ad1 took
//! 22.4 µs (H200, session 53). Here every CTA counts itself in a per-(sequence, K/V head) counter after
//! writing its partial (fence, then one `atom.acq_rel.gpu`), and the pair's last CTA merges the pair's
//! rows while the other pairs still stream: its lanes read the splits' log-sum-exps in parallel (max and
//! sum by shuffles) and 4 columns each, 8 splits' `v4` loads in flight at a time. One launch less, no
//! serial walk; it resets the counter for the next launch (or graph replay).
//!
//! Prediction (before any run, H200, bf16): batch 1, 32/8 heads, D = 128: 22.4 → ~8 µs at a 2k
//! context, 24.5 → ~10 µs at 4k; unchanged (± 3%) where one split is planned (big batches: no combine).
use super::decode_body::{decode, fused_decode_entries};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::{DecodeCache as Cache, DecodeDims as Dims};

fused_decode_entries! { "ad2", "As ad1's entry (`attn_decode_d*`), and with more than one split `counters` holds `batch · kv_heads` \
      u32, zero before the launch (each launch leaves them zero) and used by no other grid meanwhile, and \
      `o` starts on 8 bytes.", false, false, false;
    attn_decode2_d64_f16, F16, 64;
    attn_decode2_d96_f16, F16, 96;
    attn_decode2_d128_f16, F16, 128;
    attn_decode2_d256_f16, F16, 256;
    attn_decode2_d64_bf16, Bf16, 64;
    attn_decode2_d96_bf16, Bf16, 96;
    attn_decode2_d128_bf16, Bf16, 128;
    attn_decode2_d256_bf16, Bf16, 256;
}

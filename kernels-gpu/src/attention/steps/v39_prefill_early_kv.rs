#![cfg(lab_sm90)]
//! Attention step a30 (Hopper): a26 / a29 with each unit's **first K and V tiles loaded before the producer
//! waits for Q's release** — the body's `EARLY_KV` (`attention/hopper.rs`, the producer's first tile of a unit).
//!
//! Diff from a26 (and a29 at D = 96): the producer of a persistent CTA takes a unit's first ring stage as
//! soon as it is empty, posts its expected bytes (K, V and Q), issues K's and V's copies, and only then
//! waits for every consumer warp to release the last unit's Q (`q_empty`, after that unit's last S
//! retired) before issuing Q's. Before, the whole first stage — K, V and Q, 96 KiB at D = 128 — waited
//! for that release, so a unit's first S waited for all of it to land after the last unit's last S.
//!
//! Why (session 93, call 2): per unit, a29 spends ~4.6 µs beyond its key tiles at 8×32×32×512×96 (4 key
//! tiles a unit, 84 µs) against ~1.9 µs at 8×32×32×2048 (16 tiles), and runs 0.81–0.85× cuDNN on the
//! short prompts (0.77–0.85× across D = 64–128 in session 77's corpus rows of 8 × 512 tokens).
//!
//! Prediction (before any run), H200, bf16, against a29 (D = 96) and a26 (D = 128) in the same process:
//! the unit switch's critical path loses the first K/V stage's 64 KiB (the 32 KiB of Q remain): **1.02–1.05×
//! at 8 × 512 tokens**, 1.00–1.02× at 2k–8k tokens (a unit switch every 16–64 tiles).
use super::hopper::{HopperPolicy, hopper_entry};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::A7_STAGES;

/// a30's choices: a26's (early K/V and S's head dims are the entries' last arguments).
const A30: HopperPolicy = HopperPolicy { pipeline: true, stages: A7_STAGES, pingpong: false, lazy: true, heavy_first: false, persistent: true, cluster: 1, varlen: true };

hopper_entry!(attn_a30_d96_f16, F16, 128, A30, varlen_persistent, 96, true);
hopper_entry!(attn_a30_d96_bf16, Bf16, 128, A30, varlen_persistent, 96, true);
hopper_entry!(attn_a30_d128_f16, F16, 128, A30, varlen_persistent, 128, true);
hopper_entry!(attn_a30_d128_bf16, Bf16, 128, A30, varlen_persistent, 128, true);

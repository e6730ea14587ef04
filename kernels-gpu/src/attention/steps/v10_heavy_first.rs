#![cfg(lab_sm90)]
//! Attention step a10 (Hopper): a9 with **each head's query tiles launched longest first**.
//!
//! With the causal mask, query tile qt walks qt + 1 key tiles: the blocks of one head range from 1 to
//! L/128 tiles of work. The grid is `(⌈L/128⌉, B·H)` and blocks start in index order, x fastest — so
//! each head's blocks start shortest first, and the last wave of the launch is the longest blocks of
//! the last heads, running while the other SMs have nothing left. a10 maps block x to query tile
//! `⌈L/128⌉ − 1 − x`: the longest blocks of every head start first, and the last wave holds short
//! ones (the longest-processing-time-first rule; FA3's scheduler orders causal tiles the same way).
//! Without the causal mask every block does the same work and the order does not matter.
//!
//! Diff from a9: one line in `attention/hopper.rs` (`HEAVY_FIRST`).
//!
//! Prediction (before the run): causal shapes 1.03–1.08× a9 (the tail of 2048 blocks over 132 SMs
//! is a few percent of the run); non-causal 1.00×.
//!
//! Measured (H100, `results/2026-11-23-h100-session11/call8-a10`): causal **1.00–1.11× a9** (1.07× and
//! 1.11× at L = 16384 in f16, 1.00–1.04× at L = 4096), non-causal 0.97–1.02× (the same kernel there).
//! At 1×16×16384×128 causal, f16: 626 TFLOP/s, 1.01× cuDNN in the same call. The library's default on
//! Hopper until a12 (session 12).
use super::hopper::{HopperPolicy, hopper_entry};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::A7_STAGES;

/// a10's choices: a9's, with each head's query tiles launched longest first.
const A10: HopperPolicy = HopperPolicy { pipeline: true, stages: A7_STAGES, pingpong: false, lazy: true, heavy_first: true, persistent: false, cluster: 1, varlen: false };

hopper_entry!(attn_a10_d64_f16, F16, 64, A10);
hopper_entry!(attn_a10_d128_f16, F16, 128, A10);
hopper_entry!(attn_a10_d64_bf16, Bf16, 64, A10);
hopper_entry!(attn_a10_d128_bf16, Bf16, 128, A10);

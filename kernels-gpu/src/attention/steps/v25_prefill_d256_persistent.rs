#![cfg(lab_sm90)]
//! Attention step a25 (Hopper): a24 made **persistent** — one CTA per SM walks a list of (sequence,
//! query tile, head) units the host sorted by work, most first (`attention/hopper_wide.rs`, `Walk`).
//!
//! Diff from a24:
//! * The host lists every (query tile, head) of every sequence (`prefill::persistent_units`) sorted by
//!   the key tiles a unit walks, most first, equals by sequence, K/V head, tile and head (the units of
//!   one K/V head side by side, sharing its keys in L2), and uploads it with the offsets.
//!   `min(units, SMs)` CTAs take the units in rounds, in snake order (round `r`: unit `r·G + c`, or
//!   `r·G + G − 1 − c` on odd rounds), so the longest units go first and no CTA takes the longest of
//!   every round.
//! * The K/V ring runs on across units: the producer streams the next unit's K and V while the
//!   consumers finish this one (its last P·V, the epilogue's stores). Q has an empty barrier: every
//!   consumer warp releases Q once the unit's last S retired, and the producer loads the next unit's Q
//!   (with its first K) only after that.
//!
//! Prediction (before any run), H200, bf16, 16/8 heads, against a24 in the same process: a24's CTA
//! pays its start (Q's 64 KiB and the first K land before any `wgmma`; ~3 µs) and its epilogue with
//! nothing else on the SM, and its last wave is partly empty. Measured a24: ~6.5 µs a CTA above its
//! key tiles' time at 8×16×8×2048 (58 µs a CTA), ~3% at L = 8192. So **1.08–1.12× a24 at
//! 8×16×8×2048, 1.02–1.04× at L = 8192, 1.2–1.4× at 8×16×8×512**; 0.95–1.0× cuDNN at L ≥ 4096.
//!
//! Measured (H200, bf16, `results/2026-11-30-h200-session62` call 5, median of 3 processes, a24 in the
//! same process): **1.06× / 1.01× / 1.04× a24 without the mask, 0.98× / 1.05× / 1.02× causal** at
//! those three shapes, 1.08× at 2×16×8×4096 causal and **1.41× at 1×16×8×2048 causal** (a24's 256 CTAs
//! leave a second wave of long tiles). Below the prediction but for that balance: hiding a CTA's start
//! was worth less than the ~6.5 µs counted. Against cuDNN timed sustained (2 s a shape, the same power
//! regime): **0.93–0.94× without the mask at L ≥ 2048, 1.00–1.04× causal at L ≥ 4096**, 0.87× at
//! 8×16×8×2048 causal, 0.75–0.79× at 8×16×8×512. Unit orders tried: tile by tile with every head
//! (0.97–0.98× a24 at 1×16×8×8192 without the mask), sequence by sequence (0.79× at 8×16×8×2048 causal:
//! the static snake needs work that never rises along the list).
use super::hopper_wide::prefill_d256_entry;
use crate::hgemm::elem::{Bf16, F16};

prefill_d256_entry!(attn_a25_d256_f16, F16, true, 64);
prefill_d256_entry!(attn_a25_d256_bf16, Bf16, true, 64);

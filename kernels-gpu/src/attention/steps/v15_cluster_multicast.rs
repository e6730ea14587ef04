#![cfg(lab_sm90)]
//! Attention step a15 (Hopper): a12 in **clusters of 2 CTAs sharing every K/V stage by TMA
//! multicast** — each CTA loads half of a stage and the TMA writes it into both.
//!
//! Why: `ncu` of one launch at 4×16×4096×128 without the mask (session 18,
//! `results/2026-11-25-h100-session18/`) put a12 at 0.964× cuDNN's time with 3.85 GB through L2
//! against cuDNN's 3.0 GB: a12 reads each head's whole K and V once per 128-row query tile (32 times
//! per head at L = 4096, 2 MiB each time at D = 128), and those reads are 97% of its L2 bytes. Under
//! a sustained load a12 also hits the power limit where cuDNN does not (session 12: 0.89–0.90× cuDNN
//! sustained against 0.96–0.97× in short bursts) — and L2 traffic is power.
//!
//! a15 gives the two CTAs of a cluster two adjacent query tiles of one head (`2·t`, `2·t + 1`), so
//! they walk the same key tiles. Each stage is split by boxes: rank 0 loads the even boxes of the
//! stage (K's first 64 head dims and V's at D = 128; K at D = 64), rank 1 the odd ones, each into
//! both CTAs (`multicast::cluster`, mask 0b11). K/V bytes read from L2 halve: **~2.0 GB instead of
//! 3.85 at that shape**, fewer than cuDNN's.
//!
//! What it costs: the two CTAs advance in step — a stage is refilled only when the consumers of both
//! have released it (each release arrives on both CTAs' empty barriers, `Ring::release_cluster`), so
//! the slower CTA of a pair sets the pace, with the ring's 3 stages as slack. With the causal mask
//! the cluster walks the longer of its two tiles (`2·t + 2` key tiles against `2·t + 1`): the
//! shorter tile's consumers only wait for and release the last stage. The persistent walk is a12's
//! over 256-row tiles, one walk per cluster (`layout::attention::a12_grid_of`); the producer ends with
//! `Ring::drain` instead of a cluster barrier (d11's tail).
//!
//! Diff from a12 (in `attention/hopper.rs`, `CLUSTER = 2`): the `Walk` over clusters, the producer's
//! multicast loads of its half of the boxes and its tail, the consumers' releases into both CTAs and
//! the stages they skip; the host launches twice the clusters that fit at once
//! (`cuOccupancyMaxActiveClusters`: 66 on an H100).
//!
//! Prediction (before the run): non-causal, where the coupling costs least, **1.02–1.06× a12 at
//! L = 4096, D = 128** (the L2 bytes cuDNN saves, plus the power), 1.00–1.03× at D = 64 (a12 is issue-
//! bound there, not fed by L2); causal 0.98–1.02× (1/33 of the walked tiles is skipped work on one
//! CTA of the pair); at L = 16384 the same as L = 4096. Risk: the coupled ring (d8's lesson in the
//! GEMM ladder: a cluster body cost 5–20% at 1024³ — there for a 10 µs launch, here amortized over
//! ~850 µs).
//!
//! Measured (H100, `results/2026-11-26-h100-session22/`):
//! - **Correct on its first run.** The GPU tests pass: a15 is bit for bit equal to a9 and a12 on shapes
//!   with several units per cluster, odd tile counts (a CTA with no rows) and ragged lengths, and
//!   matches the f64 reference. compute-sanitizer memcheck and synccheck report 0 errors. ptxas: no
//!   spill, no C75xx.
//! - **`ncu`, one launch at 4×16×4096×128:**
//!   - L2 bytes 3.39 → 2.63 GB, not 2.0: Q, O and the L2's own traffic stay.
//!   - 858 → 836 µs, cuDNN's time (834 µs, session 18).
//! - **`ab` against a12** (interleaved, sustained):
//!   - D = 128: 1.018–1.025× at L = 4096, 0.993–1.009× causal; 1.035× at L = 16384, 1.036× causal.
//!   - D = 64: 1.00×, 0.997× causal.
//! - **Solo, sustained** (calls 4 and 5, 8 D = 128 rows each):
//!   - D = 128: 1.012–1.043× a12 in call 4; 0.986–1.039× in call 5 (0.986 at 4×16×4096×128 causal bf16).
//!   - D = 64: 0.978–1.015×.
//! - **Bursts from an idle card** (call 5): D = 128 1.00–1.05× except 1×16×16384×128 non-causal, where
//!   a15 ran 0.946–0.955× a12; D = 64 0.976–1.003×.
//! - **Against the prediction:**
//!   - Non-causal D = 128 landed in the predicted 1.02–1.06×, at its low end.
//!   - Causal landed at 0.99–1.04×, around the predicted 0.98–1.02×: the stage the shorter tile
//!     skips costs little.
//!   - At D = 64, a15 gains nothing, as predicted.
//! - **The library's default at D = 128 on Hopper** (`kernel_lab::attention::default_flash`); a12 stays at D = 64.
use super::hopper::{HopperPolicy, hopper_entry};
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::{A7_STAGES, A15_CLUSTER};

/// a15's choices: a12's, in clusters of `A15_CLUSTER` CTAs sharing every K/V stage.
const A15: HopperPolicy = HopperPolicy { pipeline: true, stages: A7_STAGES, pingpong: false, lazy: true, heavy_first: false, persistent: true, cluster: A15_CLUSTER, varlen: false };

hopper_entry!(attn_a15_d64_f16, F16, 64, A15, persistent_cluster);
hopper_entry!(attn_a15_d128_f16, F16, 128, A15, persistent_cluster);
hopper_entry!(attn_a15_d64_bf16, Bf16, 64, A15, persistent_cluster);
hopper_entry!(attn_a15_d128_bf16, Bf16, 128, A15, persistent_cluster);

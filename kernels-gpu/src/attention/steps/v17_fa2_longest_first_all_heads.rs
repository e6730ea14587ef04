//! Attention step a17: a11 with the **longest query tiles of a whole group of heads first**, not only of
//! each head (a16).
//!
//! Diff from a16: the grid is `(group, ⌈L/128⌉, heads / group)` (`layout::attention::a17_grid`) and
//! block (x, y, z) takes query tile `⌈L/128⌉ − 1 − y` of head `z · group + x` (`a17_item`; one `match`
//! arm in a11's body, `fa2_mma_tiles.rs`: `ORDER_A17`): blocks start x fastest, so within a group of heads whose K and V fit
//! in half the L2 (`a17_group`: 16 heads at L = 4096, D = 64; 2 at L = 16384, D = 128) every head's last
//! query tile starts first, then every head's next-to-last, and so on. Head and tile stay functions of
//! the special registers, as in a11, which ptxas re-reads instead of keeping them (a first form that
//! divided a 1-D block index spilled 16 bytes at 255 registers).
//!
//! Why: `ncu` of a16 at 4×16×4096×64 causal (session 23, call 6) has its busiest SM active 946 k cycles
//! against 853 k on average — 11% of the launch is a tail — where without the mask the two are 2% apart.
//! a16 launches head 0's tiles longest first, then head 1's, …, so the longest tiles of the last heads
//! start with most of the grid already done and run alone at the end. FA2 has the same tail (920–939 k
//! against 827 k) and still finished first, so a shorter tail is worth more than a16's whole gap to it.
//!
//! Prediction (before any run): causal **1.03–1.06× a16** at 4×16×4096×64 and 4×16×4096×128 (most of
//! the 11% tail, less a little L2 reuse: a head's K and V are now read by query tiles spread over the
//! group's waves), ~1.02× at L = 16384 (a16's tail is smaller there: 1.020× a11); without the mask
//! 0.99–1.00× (the same work; only the order and the L2 reuse change).
//!
//! Measured (H100, session 23, `git show 10af122:results/2026-11-26-h100-session23/call8-a17`, `call9-a17-vs-fa2`):
//! - `ab a16 a17` (8 rounds, f16): causal **1.096× at 4×16×4096×64, 1.098× at 1×16×16384×64, 1.038×
//!   at 4×16×4096×128, 1.024× at 1×16×16384×128** (8/8, 8/8, 8/8, 7/8 rounds) — above the prediction
//!   at D = 64, where the tail was the larger share; without the mask 0.999× and 0.995× at D = 64, but
//!   **0.979× and 0.983× at D = 128** (0/8, 2/8), under the prediction: there each head's K and V are 2
//!   or 8 MiB and the groups spread a head's query tiles over more time.
//! - Against torch's FA2, both sustained at the power cap, f16 and bf16: a17 1.057–1.107× at the eight
//!   causal rows; in bursts from an idle card 1.034–1.109×.
//! - Correct: the attention GPU tests 5/5, with `the_grouped_walk_matches_a11` — a17 bit for bit equal
//!   to a11 on shapes of 1–4 head groups — and every fused step against the f64 reference. ptxas: 255
//!   registers, no spill (head and tile re-read from the special registers at each use,
//!   `a17_item_here`).
//! - The library's step off Hopper with the causal mask (`kernel_lab::attention::default_flash`); a16
//!   stays the step without it.
use super::fa2_mma_tiles::fa2_tiles_entry;
use crate::hgemm::elem::{Bf16, F16};

fa2_tiles_entry!(attn_a17_d64_f16, F16, 64, ORDER_A17);
fa2_tiles_entry!(attn_a17_d128_f16, F16, 128, ORDER_A17);
fa2_tiles_entry!(attn_a17_d64_bf16, Bf16, 64, ORDER_A17);
fa2_tiles_entry!(attn_a17_d128_bf16, Bf16, 128, ORDER_A17);

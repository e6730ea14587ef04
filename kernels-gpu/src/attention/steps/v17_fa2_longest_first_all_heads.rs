//! Attention step a17: a11 with the **longest query tiles of a whole group of heads first**, not only of
//! each head (a16).
//!
//! Diff from a16: the grid is `(group, ⌈L/128⌉, heads / group)` (`layout::attention::a17_grid`) and
//! block (x, y, z) takes query tile `⌈L/128⌉ − 1 − y` of head `z · group + x` (`a17_item`; one `match`
//! arm in v11's body, `ORDER_A17`): blocks start x fastest, so within a group of heads whose K and V fit
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
use super::v11_fa2_tiles::fa2_tiles_entry;
use crate::hgemm::elem::{Bf16, F16};

fa2_tiles_entry!(attn_a17_d64_f16, F16, 64, ORDER_A17);
fa2_tiles_entry!(attn_a17_d128_f16, F16, 128, ORDER_A17);
fa2_tiles_entry!(attn_a17_d64_bf16, Bf16, 64, ORDER_A17);
fa2_tiles_entry!(attn_a17_d128_bf16, Bf16, 128, ORDER_A17);

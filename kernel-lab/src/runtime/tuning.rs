//! Tuning knobs read from the environment, once per process: each has a measured default and a
//! variable for sweeping it on a GPU without rebuilding.

/// Blocks per SM the split-K decode steps size their grid for: by default
/// [`DECODE_BLOCKS_PER_SM_AUTO`](layout::hgemm::DECODE_BLOCKS_PER_SM_AUTO) — one (H100, d2, one run each:
/// 1 block per SM read 4096² weights at 70% of a same-size copy, 2 at 66–68%, 3 at 67%, 4 at 55–65%, 8
/// at 38–62%; at the 70B projections 1–3 all reach 96–97%: fewer splits, a shorter last-block tail), and
/// two where the tiles alone leave SMs idle and the splits stay deep (H200, session 79:
/// `layout::hgemm::decode_split_with`) — or a fixed `KERNEL_LAB_DECODE_BLOCKS_PER_SM` (1 to 32).
pub fn decode_blocks_per_sm() -> u32 {
    static B: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *B.get_or_init(|| parse_blocks_per_sm(std::env::var("KERNEL_LAB_DECODE_BLOCKS_PER_SM").ok().as_deref()))
}

/// The knob's value from the variable's text: a number in 1..=32, else the default (automatic).
fn parse_blocks_per_sm(v: Option<&str>) -> u32 {
    v.and_then(|v| v.trim().parse().ok()).filter(|b| (1..=32).contains(b)).unwrap_or(layout::hgemm::DECODE_BLOCKS_PER_SM_AUTO)
}

/// SGEMM v12's split rule `(blocks per SM, shallowest split)`: `(1, 256)` (H100, one block per SM:
/// 1000³ 84%, 127×8191×1024 79%, 1024³ 97% of cuBLAS; `(2, 256)` 65/68/86%, `(3, 256)` and `(2, 128)`
/// lower), or
/// `KERNEL_LAB_SGEMM_SPLIT=B,D` (B in 1..=16, D in 16..=4096).
pub fn sgemm_split() -> (u32, u32) {
    static S: std::sync::OnceLock<(u32, u32)> = std::sync::OnceLock::new();
    *S.get_or_init(|| parse_sgemm_split(std::env::var("KERNEL_LAB_SGEMM_SPLIT").ok().as_deref()))
}

fn parse_sgemm_split(v: Option<&str>) -> (u32, u32) {
    parse_split_pair(v).unwrap_or(layout::sgemm::V12_SPLIT)
}

/// A `B,D` pair with B in 1..=16 and D in 16..=4096, else `None`.
fn parse_split_pair(v: Option<&str>) -> Option<(u32, u32)> {
    let parsed = v.and_then(|v| {
        let (b, d) = v.split_once(',')?;
        Some((b.trim().parse::<u32>().ok()?, d.trim().parse::<u32>().ok()?))
    });
    parsed.filter(|&(b, d)| (1..=16).contains(&b) && (16..=4096).contains(&d))
}

/// For sweeping only: `KERNEL_LAB_SGEMM_FIXED_SPLIT=B,D` (ranges as `KERNEL_LAB_SGEMM_SPLIT`) replaces
/// the `(blocks per SM, shallowest split)` of **every** SGEMM step with a fixed split rule (v13–v19;
/// run one step at a time); unset, each step keeps its own measured rule.
pub fn sgemm_fixed_split() -> Option<(u32, u32)> {
    static S: std::sync::OnceLock<Option<(u32, u32)>> = std::sync::OnceLock::new();
    *S.get_or_init(|| parse_split_pair(std::env::var("KERNEL_LAB_SGEMM_FIXED_SPLIT").ok().as_deref()))
}

/// The most untimed calls before an interleaved block (`timing::time_pair`) by default: its 30 ms
/// (`timing::PAIR_SETTLE_MS`) hold for any work of at least 30 ms / 4096 = 7.3 µs a call. Until
/// session 29 the cap was 64 calls, so a 60 µs GEMM settled for only 3.8 ms: on a card at its power
/// cap (`nvidia-smi`: software power cap from the sweep's 2048-row shapes on,
/// `results/2026-11-26-h100-session29/call2`) a block then began in the clock state the other kernel
/// had left.
pub const SETTLE_MAX_CALLS: usize = 4096;

/// The cap under `--quick` (a smoke run): the cap before session 29, so the smoke run does not grow
/// by the settles.
pub const QUICK_SETTLE_MAX_CALLS: usize = 64;

/// The cap on the untimed calls before an interleaved block: `KERNEL_LAB_SETTLE_MAX_CALLS` (1 to
/// 65536) where set — for comparing measurements under another settle (64 reproduces the sessions
/// before 29) — else [`QUICK_SETTLE_MAX_CALLS`] in a `--quick` run ([`quick_settle`]), else
/// [`SETTLE_MAX_CALLS`].
pub fn settle_max_calls() -> usize {
    *SETTLE_CAP.get_or_init(|| settle_knob().unwrap_or(SETTLE_MAX_CALLS))
}

static SETTLE_CAP: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

fn settle_knob() -> Option<usize> {
    parse_settle_max_calls(std::env::var("KERNEL_LAB_SETTLE_MAX_CALLS").ok().as_deref())
}

/// The knob's value from the variable's text: a number in 1..=65536, else `None`.
fn parse_settle_max_calls(v: Option<&str>) -> Option<usize> {
    v.and_then(|v| v.trim().parse().ok()).filter(|c| (1..=65536).contains(c))
}

/// `--quick`: the settle cap becomes [`QUICK_SETTLE_MAX_CALLS`] unless the variable sets one. Takes
/// effect only before the first timed pair (the CLI calls it while parsing); later calls change
/// nothing.
pub fn quick_settle() {
    let _ = SETTLE_CAP.set(settle_knob().unwrap_or(QUICK_SETTLE_MAX_CALLS));
}

/// For comparing with the sessions before 30: `KERNEL_LAB_COPY_FIXED_DST=1` makes the `gemm` family's
/// device copy (the `% of copy` yardstick) write every repetition into one destination buffer, as it
/// did then. Unset (or anything but `1`): the destination rotates with the weights it copies, so that
/// neither side of the copy is left in the L2 by the repetition before.
pub fn copy_fixed_dst() -> bool {
    static F: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *F.get_or_init(|| std::env::var("KERNEL_LAB_COPY_FIXED_DST").is_ok_and(|v| v.trim() == "1"))
}

/// For probing launch overlap: `KERNEL_LAB_CHAIN=N` (1 to 64) makes each timed repetition N launches
/// back to back between the events (a chain, as a model's decode step queues kernels) instead of one —
/// in `kernel-lab ab`'s GEMM families (its times are then per chain) and in the `gemm` family, where
/// ours, cuBLAS and the device copy are each chained, on successive rotated weights, and the table
/// gives per-launch times. Unset: 1, the suite's single held launch. (`KERNEL_LAB_AB_CHAIN`, its name
/// in session 19, is read when `KERNEL_LAB_CHAIN` is unset.)
pub fn launch_chain() -> usize {
    static C: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *C.get_or_init(|| {
        let v = std::env::var("KERNEL_LAB_CHAIN").or_else(|_| std::env::var("KERNEL_LAB_AB_CHAIN")).ok();
        v.and_then(|v| v.trim().parse().ok()).filter(|c| (1..=64).contains(c)).unwrap_or(1)
    })
}

/// Clusters a cluster FP8 step's persistent grid may use at most: `cuOccupancyMaxActiveClusters` (the
/// default), or fewer with `KERNEL_LAB_FP8_CLUSTERS` (1 to 1024) for sweeping.
pub fn fp8_clusters(max_active: u32) -> u32 {
    static C: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    let cap = *C.get_or_init(|| std::env::var("KERNEL_LAB_FP8_CLUSTERS").ok().and_then(|v| v.trim().parse().ok()).filter(|c| (1..=1024).contains(c)));
    cap.map_or(max_active, |c| c.min(max_active))
}

/// For sweeping only: `KERNEL_LAB_TMA_SPLITS=N` (1 to 16) gives every persistent split-K step
/// (`Grid::PersistentSplitK`: d3, d7, d8, d10, d19, d21, d22, h7) N splits of K (fewer where K has too
/// few tiles to give each one); unset (or unreadable), `None`: the library's rule,
/// [`layout::hopper::tma_hgemm::persistent_splits`]. Session 69 swept it (the hgemm README).
pub fn tma_fixed_splits() -> Option<u32> {
    static S: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *S.get_or_init(|| parse_tma_splits(std::env::var("KERNEL_LAB_TMA_SPLITS").ok().as_deref()))
}

fn parse_tma_splits(v: Option<&str>) -> Option<u32> {
    v?.trim().parse().ok().filter(|s| (1..=16).contains(s))
}

/// For sweeping only: `KERNEL_LAB_W1_SPLITS=N` (1 to 16) gives the weight-only kernels (fw2, fwb, fw1's w1,
/// and `W8Plan`'s w1/w5) N splits of K (fewer where K has too few 64-deep steps:
/// [`crate::steps::fp8::w1_splits_forced`]); unset (or unreadable), `None`: the library's rule,
/// [`crate::steps::fp8::w1_splits`]. For timing the split rule at few-row shapes (session 107's plan).
pub fn w1_fixed_splits() -> Option<u32> {
    static S: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *S.get_or_init(|| parse_tma_splits(std::env::var("KERNEL_LAB_W1_SPLITS").ok().as_deref()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_settle_knob_takes_1_to_65536() {
        assert_eq!(super::parse_settle_max_calls(Some("64")), Some(64));
        assert_eq!(super::parse_settle_max_calls(Some(" 65536 ")), Some(65536));
        assert_eq!(super::parse_settle_max_calls(Some("0")), None);
        assert_eq!(super::parse_settle_max_calls(Some("70000")), None);
        assert_eq!(super::parse_settle_max_calls(Some("x")), None);
        assert_eq!(super::parse_settle_max_calls(None), None);
    }

    use super::*;

    #[test]
    fn blocks_per_sm_takes_1_to_32_else_the_default() {
        assert_eq!(parse_blocks_per_sm(None), layout::hgemm::DECODE_BLOCKS_PER_SM_AUTO);
        assert_eq!(parse_blocks_per_sm(Some("4")), 4);
        assert_eq!(parse_blocks_per_sm(Some("0")), layout::hgemm::DECODE_BLOCKS_PER_SM_AUTO);
        assert_eq!(parse_blocks_per_sm(Some("33")), layout::hgemm::DECODE_BLOCKS_PER_SM_AUTO);
        assert_eq!(parse_blocks_per_sm(Some("x")), layout::hgemm::DECODE_BLOCKS_PER_SM_AUTO);
    }

    #[test]
    fn sgemm_split_takes_a_pair_in_range_else_the_default() {
        assert_eq!(parse_sgemm_split(None), (1, 256));
        assert_eq!(parse_sgemm_split(Some("4, 128")), (4, 128));
        assert_eq!(parse_sgemm_split(Some("0,128")), (1, 256));
        assert_eq!(parse_sgemm_split(Some("4")), (1, 256));
        assert_eq!(parse_split_pair(Some("2,512")), Some((2, 512)));
        assert_eq!(parse_split_pair(Some("2,8")), None);
        assert_eq!(parse_split_pair(None), None);
    }

    #[test]
    fn the_tma_splits_knob_takes_1_to_16() {
        assert_eq!(parse_tma_splits(Some(" 3")), Some(3));
        assert_eq!(parse_tma_splits(Some("16")), Some(16));
        assert_eq!(parse_tma_splits(Some("17")), None);
        assert_eq!(parse_tma_splits(Some("0")), None);
        assert_eq!(parse_tma_splits(Some("balanced")), None);
        assert_eq!(parse_tma_splits(None), None);
    }
}

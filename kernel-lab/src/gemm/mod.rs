//! `C = A · B`, the library's GEMM entry point: row-major f16 or bf16 in and out, f32 accumulation, any
//! `M × N × K` (each dimension 1 … 2^20). bf16 runs the same kernels on bf16 (`h6s4-bf16`, `d2-bf16`,
//! `d2m64-bf16`: one source, `hgemm::elem::Elem16`).
//!
//! ```ignore
//! let s = Shape::new(4000, 4095, 1)?;
//! let used = kernel_lab::gemm::gemm_f16(&gpu, s, &d_a, &d_b, &mut d_c)?;   // the config it chose
//! ```
//!
//! **The choice** ([`choose`], documented at [`default_step`]) is a function of the shape and the GPU,
//! tested on the CPU: on Hopper `d4` (whole-K 64×64 `wgmma` tiles) wherever its tiles fill 40–100% of
//! the SMs; otherwise the decode ladder, `d2` at M ≤ 16 and `d2m64` up to `M =` [`DECODE_MAX_M`] (the
//! bound there is the weights' bandwidth); then on Hopper `d7` (d3's 64×128 `wgmma` tiles, C by TMA stores) where h6's 128×256 tiles
//! would leave most SMs idle, `h8` (K split in a cluster) where that is estimated faster, `h10` where
//! the last wave of tiles is mostly empty (stream-K), else `h6s4` (TMA + `wgmma`, 128×256 tiles,
//! persistent, 4 stages); without `sm_90a` the best `mma.sync` step (`v10`).
//! [`GemmPlan::new`] takes an override (the suite's `--config`), refused with the reason when this
//! GPU or this shape cannot run it. A calibrated cost model ([`cost`], [`choose_by`]) overrules these
//! rules where it predicts its own pick at least [`MODEL_OVERRIDE_MARGIN`] faster ([`entry_choice`], the
//! default [`Choice`]): alone it ranks worse than the rules (72–78% of sampled shapes within 5% of the
//! fastest candidate against 89–92%), the two together 92–98% (sessions 48 and 58).
//!
//! **Any K and N.** The steps read rows of A and B 16 bytes at a time (TMA needs row strides that are
//! multiples of 16 bytes), so K and N must be multiples of 8 — except `d24`, which reads B's rows where
//! they lie and takes any N up to M = [`RAGGED_MAX_M`] ([`ragged_step`]). For other shapes the plan *pads*: A is
//! copied into an `M × K₈` buffer and B into `K₈ × N₈` (K₈, N₈: rounded up to 8; the extra columns and
//! rows are zeros, written once when the plan is made, so they add nothing to the products), the
//! kernel computes the `M × N₈` product, and its first N columns are copied into C — three strided
//! device copies (`cuMemcpy2DAsync`). M needs nothing: the kernels mask ragged rows. Cost: the copies
//! move `2·(MK + KN + MN)` bytes more than the GEMM reads; for a decode-sized or skinny shape that is
//! comparable to the GEMM itself, for a large one it is noise.
use cudarc::driver::CudaSlice;

use crate::{
    error::{DriverContext, Error, Result},
    runtime::gpu::{Gpu, Kernel},
    steps::hgemm::{self as steps, Step},
    steps::gemm::{Accumulate, Elem},
};

mod api;
pub mod calibrate;
pub mod cost;
pub mod launch;
mod shape;

pub use api::{Element, GemmConfig, GemmDesc, GemmPlan, gemm};
pub use launch::BReady;
pub use shape::Shape;

use launch::{Operand, Workspace};

/// What [`GemmPlan`] runs: a step's kernel, directly or through padded copies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// The ladder step whose kernel computes the product.
    pub step: &'static Step,
    /// K and N are padded to multiples of 8 through staging buffers (see the module doc).
    pub padded: bool,
}

impl Config {
    /// `h6s4`, or `h6s4+pad` when padded.
    pub fn label(&self) -> String {
        format!("{}{}", self.step.kernel.step, if self.padded { "+pad" } else { "" })
    }
}

impl std::fmt::Display for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.label(), self.step.kernel.name)
    }
}

/// The largest M the decode step `d1` is chosen for.
pub const DECODE_MAX_M: usize = 64;

/// Rounds `x` up to a multiple of 8.
const fn up8(x: usize) -> usize {
    x.div_ceil(8) * 8
}

/// The default step for `s` and element type `elem` on a GPU that runs `sm_90a` code (`hopper`) or not.
/// bf16 without sm_90a has no large-tile step: `d2m64-bf16` takes every M there (correct, not fast).
///
/// First, on any GPU: N off a multiple of 8 (a vocabulary of 30 522 or 50 257 tokens), K a multiple
/// of 8 and M ≤ [`RAGGED_MAX_M`]: the ragged-weight step `d24` ([`ragged_step`]), which reads B and
/// writes C where they lie instead of through padded copies (those moved three times the product's
/// bytes at decode sizes: 0.29–0.44× cuBLAS, `results/2026-11-28-h200-session48`).
///
/// On Hopper (every rule from one held-timing run per candidate, `results/2026-11-23-h100-session9/`
/// `call4-configs`, `call6-d4`):
/// * `d4` (whole-K 64×64 tiles, any M) where its tiles fill between 40% and 100% of the SMs
///   ([`d4_fits`]; `call12-maps`): 1 / 16 × 4096² 96% / 105% (d2 92% / 94%), 1–16 × 4096×14336 102–103%
///   (d2 97%), 16×4096×11008 104% (d2 98%), 64×4096² 99–100% (d2m64 61–64%), 128×4096² 102–104%,
///   128×4096×14336 121%, 128×4096×11008 108% (h8x6 86%, 97%, 87%; `call8-m-range`). With 32 tiles
///   (16×2048×8192) it had 70% against d2's 92%; with more tiles than SMs it runs a second wave.
/// * `d9` in d4's place where its tiles leave an eighth of the SMs free ([`pdl_overlaps`]): d4 with
///   programmatic dependent launch, the same time alone and 1.03–1.06× d4 in a chain of launches
///   (session 19).
/// * `d15` in d4's and d9's place for M ≤ 16 ([`d15_fits`]): d9 with 16-row activation tiles
///   (`m64n16k16`, 8 accumulators), one consumer warpgroup, and its first stages issued before the
///   block barrier, whose fixed cost per launch is ~1.3 µs lower (`results/2026-11-26-h100-session24/`
///   `call7`, `call8`): 1 / 8 / 16 × 4096² at 85.0 / 84.2 / 84.1–84.6% of a copy of the weights where
///   d9 read at 78% (cuBLAS 74–83%), 1 / 16 × 4096×14336 96–97% (d9 94%).
/// * `d16` in d9's place for 16 < M ≤ 64: d15's CTA (one consumer warpgroup, the first loads before the
///   block barrier) on d9's 64-row activation tiles, 1.00–1.02× d9 at eight shapes
///   (`results/2026-11-26-h100-session24/call11`).
/// * M ≤ 16 otherwise: `d2` (97–114% at the 7B/70B shapes, whose tiles exceed the SMs).
/// * 16 < M ≤ 64 otherwise: `d2m64` (64×14336×4096: 224 tiles, d2m64 92% of copy, d4 88%) — which on Hopper
///   [`refine_decode`] hands to the cost model.
/// * M > 64 with few 128×256 tiles ([`d7_fits`]: fewer than half the SMs, and the 64×128 tiles need
///   no split of K): `d7` (d3 with its C staged by `stmatrix.trans` and written by TMA stores;
///   `results/2026-11-23-h100-session14/call2-d7`, d3 / d7 % cuBLAS in one run): 1024³ 79 / 97%,
///   256×4096² 77 / 116%, 512×4096² 63 / 82%, 256×4096×14336 87 / 111%, 128×14336×4096 94 / 99%,
///   128×8192² 95 / 100%, 192×4096² 78 / 99% (d3 was chosen here from session 9 to 13: 256×4096² 93%,
///   512×4096² 74% against h6's 58%, 1024³ 86% against h8x3's 57%). Where the tiles would split K
///   (128×4096²: 79%) `h8` stays (86%).
/// * `d19` in d7's place where its 128×128 tiles fill one wave to more than half the SMs ([`d19_fits`]:
///   67–132 tiles on 132 SMs, e.g. M = 384–512 at N = 4096) and the weights' rows are a multiple of
///   128 bytes: d7's tiles on 128 activation rows (`wgmma.m64n128k16`), so d7's one-and-a-half or two
///   rounds of 64-row tiles become one. `ab d7 d19` (`results/2026-11-26-h100-session27/call4`, f16 /
///   bf16): 384×4096² 1.17–1.18×, 512×4096² 1.15–1.16×, 512×4096×14336 1.20×, 384×4096×11008
///   1.26–1.36×; where d19's tiles would split K it loses (256×4096² 0.77–0.79×, 1024³ 0.61–0.62×,
///   256×4096×14336 0.95–0.97×), so d7 keeps those.
/// * `d19` also in `h10`'s and `h8`'s place for M ≤ 512 ([`d19_prefill`]: 384×14336×4096 1.09× h10,
///   512×11008×4096 1.13×, 512×28672×8192 1.06× h8x2; `h6s4` stays where the rule takes it) — at its
///   transposed height, or `h11` where h11's rounds cost at most 95% of that ([`prefill_step`]: h11
///   1.06–1.09× d19 at 384×14336×4096 and 480–512 × 11008 × 4096; at 448 rows two rounds of 160-row
///   tiles cost less still).
/// * `d11` in d7's place where the weights' rows (B: `2N` bytes) are off a multiple of 128 bytes
///   ([`weight_rows_off_128`]: 1000³): d8's clusters of 2 sharing the weight boxes by multicast, ending
///   in the producer's tail instead of a last cluster barrier, their first cluster barrier relaxed.
///   There each 128-byte row of d7's weight boxes straddles two L2 lines (~4× the read requests of
///   aligned rows), and multicast halves the weight boxes a CTA issues. `ab d7 d11` at 13 shapes
///   (`results/2026-11-25-h100-session21/call15-final`): 1.01–1.23× at all ten with B's rows off 128
///   bytes (1000³ 1.146×, 1024×1000×1024 1.139×, 1000×1000×2000 1.228×, 992³ 1.030×, 256×4000×4096
///   1.012×), 0.91× at the three with them aligned (1024³, 1024×1024×1000, 1000×1024×1024); one shape
///   with B aligned and A's rows off won (256×4096×4040 1.056×) and stays d7's.
/// * `d21` (d19 with the tile height a parameter: 80, 96, 144 or 160 rows) wherever the rule takes d19,
///   at the height of [`transposed_rows`] — rounds of the SMs times (rows + 64), fitted to one round of
///   each height — and in h11's place where that cost is below h11's rounds ([`d21_over_h11`]). cuBLAS
///   does the same (`nvjet_sm90_hsh_128x96` at 384×4096², `128x160` at 640, `64x144` at 288:
///   `results/2026-11-26-h100-session28/call1`). `ab` (`call2`, `call3`, 6 rounds): 1.14–1.27× d19 at
///   257–384 rows of 4096-column weights, 1.02–1.23× at 144–176 × 8192², 600–1400 rows of N = 1024 and
///   2048; 1.04–1.49× h11 at all 20 shapes tried (576, 600, 640, 1152, 1280 × 4096², 288 / 320 × 8192²,
///   144–464 × 11008 × 4096, …). Where M fits one tile of either height (80×11008×4096: 0.98×) d19 stays.
///   At 96–160 rows with an even number of tile rows, `d22` (d21 in clusters of 2 sharing the weights by
///   multicast: 1.03–1.05× d21, [`d21_or_d22`]); at 128 rows `d22r128` in d19's place (1.00–1.05× d19).
/// * `h11` (h6s4 on 128×192 tiles) in h6s4's, h10's and h8's place where its tiles' rounds of the SMs
///   take at most 5/6 of the time ([`h11_fills`]): 1.20–1.33× h6s4 at 640–1536 × 4096 × K, where
///   128×256 tiles leave a wave partly empty; 1.10–1.11× h10, 1.09–1.26× h8x2 at 1280 / 1536 rows.
/// * `h12` (h11's CTA on 128×320 tiles) in h11's, h10's, h8's and h6s4's place — after the transposed
///   steps had their turn — where its rounds take at most 5/6 of both h6s4's and h11's ([`h12_fills`]),
///   and at ≤ 512 rows ([`prefill_step`]) where they also cost at most 95% of the best transposed
///   height's ([`h12_over_transposed`]): 1024 and 2048 rows of 5120-wide weights (one round of 128×320
///   tiles where 128×256 and 128×192 ones take two), 4096–8192 rows of 1152–2560, 384–768 rows of
///   9216–13824.
/// * Above M = 512, the transposed step ([`transposed_step`]: d19, d21 or d22 at the best height) in
///   h6s4's, h10's and h8's place where its rounds cost at most 92% of h6s4's ([`transposed_over_h6`]):
///   `ab` (`results/2026-11-26-h100-session29/call6`): d22r128 1.13× h6s4 at 1024×14336×4096 (bf16
///   1.12×), d22r128 1.09× h8x2 at 1280×8192×8192, d19 1.02× h10 at 896×11008×4096.
/// * Not `d10` (d7 with its stages copied by `cp.async`) where a row pitch is off 128 bytes, although
///   d7's TMA boxes read an extra L2 line per row there: d10 measured
///   0.85× d7 at 1000³ and 0.78× at 1024³ (`results/2026-11-25-h100-session21/call1-d10`).
/// * Otherwise `h8` (K split over a cluster of 2 … 8 CTAs) where `layout::hopper::tma_hgemm::h8_splits`
///   estimates it faster than h6 given how many clusters of each size the GPU holds at once
///   (`h8_resident`, from [`h8_resident`]); `h10` where the partial last wave of 128×256 tiles fills at
///   most a third of the SMs ([`h10_streams`]): h6s4 with that wave spread over every CTA by K
///   (`results/2026-11-23-h100-session15/call4-h10`, `call5`: 1.05–1.06× h6s4 at 2048×11008×4096);
///   else `h6s4` (h6 with a fourth stage: 101–102% of cuBLAS at 4096³, 8192³, 2048×8192², 4096²×11008
///   where h6 had 90–96%, `call1-h9`; h9s4, which adds B's multicast, 95–101%). `h7` (split-K through global memory) is not
///   chosen: h7's last-CTA sum made it 0.77× h6 at 128×4096×4096 (`results/…/call7-h7`).
pub fn default_step(s: Shape, hopper: bool, sms: u32, elem: Elem, h8_resident: [u32; 7]) -> &'static Step {
    let h8 = steps::h8_for(layout::hopper::tma_hgemm::h8_splits(s.m as u32, s.n as u32, s.k as u32, sms, h8_resident), elem);
    let bf = elem == Elem::Bf16;
    let h12 = if bf { &steps::H12_BF16 } else { &steps::H12 };
    match s.m {
        m if ragged(s) => ragged_step(m, elem),
        _ if hopper && d15_fits(s, sms) => if bf { &steps::D15_BF16 } else { &steps::D15 },
        _ if hopper && d4_fits(s, sms) && pdl_overlaps(s, sms) && s.m <= DECODE_MAX_M => if bf { &steps::D16_BF16 } else { &steps::D16 },
        _ if hopper && d4_fits(s, sms) && pdl_overlaps(s, sms) => if bf { &steps::D9_BF16 } else { &steps::D9 },
        _ if hopper && d4_fits(s, sms) => if bf { &steps::D4_BF16 } else { &steps::D4 },
        m if m <= 16 => if bf { &steps::D2_BF16 } else { &steps::D2 },
        m if m <= DECODE_MAX_M || (bf && !hopper) => if bf { &steps::D2M64_BF16 } else { &steps::D2M64 },
        _ if !hopper => &steps::V10,
        _ if d19_fits(s, sms) && !weight_rows_off_128(s) => transposed_step(s, sms, elem),
        _ if d7_fits(s, sms) && weight_rows_off_128(s) => if bf { &steps::D11_BF16 } else { &steps::D11 },
        _ if d7_fits(s, sms) => if bf { &steps::D7_BF16 } else { &steps::D7 },
        _ if (h10_streams(s, sms) || h8.is_some()) && d19_prefill(s, sms) => prefill_step(s, sms, elem),
        _ if h11_fills(s, sms) => d21_over_h11(s, sms, elem).or_else(|| h12_fills(s, sms).then(|| d21_over_h12(s, sms, elem).unwrap_or(h12)))
            .unwrap_or(if bf { &steps::H11_BF16 } else { &steps::H11 }),
        _ => transposed_over_h6(s, sms, elem).unwrap_or_else(|| match h8 {
            _ if h12_fills(s, sms) => d21_over_h12(s, sms, elem).unwrap_or(h12),
            _ if h10_streams(s, sms) => if bf { &steps::H10_BF16 } else { &steps::H10 },
            Some(h8) => h8,
            None => if bf { &steps::H6S4_BF16 } else { &steps::H6S4 },
        }),
    }
}

/// The largest M the ragged-weight steps (d24, [`ragged_step`]) take N off a multiple of 8 for; above it
/// the plan pads (the copies' bytes are then small beside the product's).
pub const RAGGED_MAX_M: usize = 256;

/// Whether `s` is the ragged-weight steps' (N off a multiple of 8, K on it, M ≤ [`RAGGED_MAX_M`]): both
/// choices ([`default_step`], [`choose_by`]) take [`ragged_step`] there.
pub fn ragged(s: Shape) -> bool {
    s.n % 8 != 0 && s.k % 8 == 0 && s.m <= RAGGED_MAX_M
}

/// The ragged-weight step (d24: B read at any alignment, no padded copies) for `m` rows: 16-row tiles up
/// to 16, 64-row up to [`DECODE_MAX_M`], else 128-row (the weights read once per tile row, as d2).
pub fn ragged_step(m: usize, elem: Elem) -> &'static Step {
    let bf = elem == Elem::Bf16;
    match m {
        m if m <= 16 => if bf { &steps::D24_BF16 } else { &steps::D24 },
        m if m <= DECODE_MAX_M => if bf { &steps::D24M64_BF16 } else { &steps::D24M64 },
        _ => if bf { &steps::D24M128_BF16 } else { &steps::D24M128 },
    }
}

/// A step [`default_step`] can return, with its bf16 twin and the largest M the autotuner times it at.
#[derive(Clone, Copy, Debug)]
pub struct RuleStep {
    /// The f16 step.
    pub f16: &'static Step,
    /// Its bf16 twin (`None`: the rule has no bf16 form of it).
    pub bf16: Option<&'static Step>,
    /// Decode steps: 4× the largest M their rule takes them for (past that they re-read the weights per
    /// tile row, and one probe run would cost more than timing the rest); `None`: any M.
    pub tune_max_m: Option<usize>,
    /// The rule takes it only on a GPU without sm_90a (v10): not a candidate where the Hopper steps run.
    pub only_without_sm90a: bool,
    /// The rules never return it; only the cost model picks it (d25), like h8's cluster sizes.
    pub model_only: bool,
}

impl RuleStep {
    /// Its step for `elem` (`None` for f32, or a bf16 the rule has no form of).
    pub fn for_elem(&self, elem: Elem) -> Option<&'static Step> {
        match elem {
            Elem::F16 => Some(self.f16),
            Elem::Bf16 => self.bf16,
            Elem::F32 => None,
        }
    }
}

const fn rule_step(f16: &'static Step, bf16: &'static Step, tune_max_m: Option<usize>) -> RuleStep {
    RuleStep { f16, bf16: Some(bf16), tune_max_m, only_without_sm90a: false, model_only: false }
}

/// [`rule_step`] for a step only the cost model picks.
const fn model_step(f16: &'static Step, bf16: &'static Step, tune_max_m: Option<usize>) -> RuleStep {
    RuleStep { model_only: true, ..rule_step(f16, bf16, tune_max_m) }
}

/// Every step [`default_step`] can return, and the cost model's own (`model_only`; the CPU test
/// `the_rule_returns_only_rule_steps` holds it to
/// that): what the autotuner times (`crate::tune::candidates16`). A rule that takes a new step adds it
/// here, beside the rule.
pub const RULE_STEPS: [RuleStep; 43] = [
    rule_step(&steps::D24, &steps::D24_BF16, Some(4 * 16)),
    rule_step(&steps::D24M64, &steps::D24M64_BF16, Some(4 * DECODE_MAX_M)),
    rule_step(&steps::D24M128, &steps::D24M128_BF16, Some(4 * RAGGED_MAX_M)),
    rule_step(&steps::D15, &steps::D15_BF16, Some(4 * 16)),
    rule_step(&steps::D16, &steps::D16_BF16, Some(4 * DECODE_MAX_M)),
    // The cost model's alone (d16 with K split where its tiles leave SMs idle; session 69).
    model_step(&steps::D25, &steps::D25_BF16, Some(4 * DECODE_MAX_M)),
    // The cost model's alone (d16 on 32-row tiles where its 64-row tiles leave SMs idle; session 76).
    model_step(&steps::D27, &steps::D27_BF16, Some(4 * RAGGED_MAX_M)),
    // The cost model's alone (d15's and d16's CTAs with K split over a cluster, the partials summed
    // through distributed shared memory; session 80): only up to the rows they were measured at (16 and
    // 2 · DECODE_MAX_M), where their one tile row (two for d28m64) reads the weights once (twice).
    model_step(&steps::D28[0], &steps::D28_BF16[0], Some(16)),
    model_step(&steps::D28[1], &steps::D28_BF16[1], Some(16)),
    model_step(&steps::D28[2], &steps::D28_BF16[2], Some(16)),
    model_step(&steps::D28M64[0], &steps::D28M64_BF16[0], Some(2 * DECODE_MAX_M)),
    model_step(&steps::D28M64[1], &steps::D28M64_BF16[1], Some(2 * DECODE_MAX_M)),
    model_step(&steps::D28M64[2], &steps::D28M64_BF16[2], Some(2 * DECODE_MAX_M)),
    // d28 on 128-row tiles (session 81): one tile row up to 128, two up to CLUSTER_SPLIT_MAX_M.
    model_step(&steps::D28M128[0], &steps::D28M128_BF16[0], Some(CLUSTER_SPLIT_MAX_M)),
    model_step(&steps::D28M128[1], &steps::D28M128_BF16[1], Some(CLUSTER_SPLIT_MAX_M)),
    model_step(&steps::D28M128[2], &steps::D28M128_BF16[2], Some(CLUSTER_SPLIT_MAX_M)),
    rule_step(&steps::D9, &steps::D9_BF16, Some(4 * DECODE_MAX_M)),
    rule_step(&steps::D4, &steps::D4_BF16, Some(4 * DECODE_MAX_M)),
    rule_step(&steps::D2, &steps::D2_BF16, Some(4 * 16)),
    rule_step(&steps::D2M64, &steps::D2M64_BF16, Some(4 * DECODE_MAX_M)),
    rule_step(&steps::D7, &steps::D7_BF16, None),
    rule_step(&steps::D11, &steps::D11_BF16, None),
    rule_step(&steps::H10, &steps::H10_BF16, None),
    rule_step(&steps::H6S4, &steps::H6S4_BF16, None),
    rule_step(&steps::D19, &steps::D19_BF16, None),
    rule_step(&steps::H11, &steps::H11_BF16, None),
    rule_step(&steps::H12, &steps::H12_BF16, None),
    rule_step(&steps::D21[0], &steps::D21_BF16[0], None),
    rule_step(&steps::D21[1], &steps::D21_BF16[1], None),
    rule_step(&steps::D21[2], &steps::D21_BF16[2], None),
    rule_step(&steps::D21[3], &steps::D21_BF16[3], None),
    rule_step(&steps::D22_R128, &steps::D22_R128_BF16, None),
    rule_step(&steps::D22[1], &steps::D22_BF16[1], None),
    rule_step(&steps::D22[2], &steps::D22_BF16[2], None),
    rule_step(&steps::D22[3], &steps::D22_BF16[3], None),
    rule_step(&steps::H8[0], &steps::H8_BF16[0], None),
    rule_step(&steps::H8[1], &steps::H8_BF16[1], None),
    rule_step(&steps::H8[2], &steps::H8_BF16[2], None),
    rule_step(&steps::H8[3], &steps::H8_BF16[3], None),
    rule_step(&steps::H8[4], &steps::H8_BF16[4], None),
    rule_step(&steps::H8[5], &steps::H8_BF16[5], None),
    rule_step(&steps::H8[6], &steps::H8_BF16[6], None),
    RuleStep { f16: &steps::V10, bf16: None, tune_max_m: None, only_without_sm90a: true, model_only: false },
];

/// Whether h10 is the step: its 128×256 tiles leave a partial last wave that h10 streams over every
/// CTA by K (`layout::hopper::tma_hgemm::stream_k_tail` > 0 on the persistent grid of `min(tiles, SMs)`
/// CTAs: at least one full wave, the tail at most a third of one).
pub fn h10_streams(s: Shape, sms: u32) -> bool {
    use layout::hopper::tma_hgemm::{BK, BN_WIDE, stream_k_tail};
    let tiles = tiles_128(s, BN_WIDE);
    let tiles = tiles.min(u32::MAX as u64) as u32;
    stream_k_tail(tiles, tiles.min(sms), (s.k as u32).div_ceil(BK)) > 0
}

/// Whether d4 is the step: its whole-K 64×64 tiles fill one wave to between 40% and 100% of the SMs,
/// `0.4·SMs ≤ ⌈M/64⌉·⌈N/64⌉ ≤ SMs` (more leaves a second wave's SMs streaming alone; far fewer leaves
/// too few SMs reading the weights: 32 tiles ran at 70% of cuBLAS where d2 had 92%).
pub fn d4_fits(s: Shape, sms: u32) -> bool {
    use layout::hopper::tma_hgemm::{D3_ROWS, D4_COLS};
    let tiles = (s.m as u64).div_ceil(D3_ROWS as u64) * (s.n as u64).div_ceil(D4_COLS as u64);
    5 * tiles >= 2 * sms as u64 && tiles <= sms as u64
}

/// Whether d15 is the step: M ≤ 16 (its 16-row activation tile holds every row, so the weights are read
/// once) where d4's tiles fit one wave ([`d4_fits`]: the same ⌈N/64⌉ column tiles).
pub fn d15_fits(s: Shape, sms: u32) -> bool {
    s.m <= layout::hopper::tma_hgemm::D13_ROWS as usize && d4_fits(s, sms)
}

/// Whether d9 (d4 with programmatic dependent launch) takes d4's place: its 64×64 tiles leave at least
/// an eighth of the SMs free, where the next PDL grid's CTAs start while this one streams
/// (`results/2026-11-25-h100-session19/call14-pdl-chain`, chains of 8 launches: 64 tiles 1.03–1.06× d4,
/// 128 tiles 0.994×; a single launch 0.99–1.00× everywhere, as `call13`). The eighth is between those
/// two measurements, not measured itself.
pub fn pdl_overlaps(s: Shape, sms: u32) -> bool {
    use layout::hopper::tma_hgemm::{D3_ROWS, D4_COLS};
    let tiles = (s.m as u64).div_ceil(D3_ROWS as u64) * (s.n as u64).div_ceil(D4_COLS as u64);
    8 * tiles <= 7 * sms as u64
}

/// Whether d7 is the step above the decode range: h6's 128×256 tiles would fill fewer than half the
/// SMs, and d7's (d3's) 64×128 tiles are enough on their own (`persistent_splits` = 1: no partial tiles
/// through global memory).
pub fn d7_fits(s: Shape, sms: u32) -> bool {
    use layout::hopper::tma_hgemm::{BN_WIDE, D3_COLS, D3_ROWS, persistent_splits};
    let h6_tiles = tiles_128(s, BN_WIDE);
    2 * h6_tiles < sms as u64 && persistent_splits(s.m as u32, s.n as u32, s.k as u32, sms, D3_ROWS, D3_COLS) == 1
}

/// Whether d19 is the step: M above the decode range, and its 128×128 tiles fill one wave to more than
/// half the SMs with no split of K, `SMs < 2·⌈M/128⌉·⌈N/128⌉ ≤ 2·SMs` (`persistent_splits` = 1: a
/// split tile's partial sums cost d19 ~5 µs at 256×4096², 0.77× d7; `results/2026-11-26-h100-session27/`
/// `call4`).
pub fn d19_fits(s: Shape, sms: u32) -> bool {
    use layout::hopper::tma_hgemm::{D19_ROWS, D3_COLS};
    // More than half the SMs' tiles is exactly where `persistent_splits` gives 1 (⌊SMs / tiles⌋ = 1).
    let tiles = (s.m as u64).div_ceil(D19_ROWS as u64) * (s.n as u64).div_ceil(D3_COLS as u64);
    s.m > DECODE_MAX_M && 2 * tiles > sms as u64 && tiles <= sms as u64
}

/// Whether d19 takes h10's or h8's place: M ≤ 512 (at most four 128-row tiles), the weights' rows a
/// multiple of 128 bytes, and its tiles need no split of K. `ab` of the rule's step against d19 at 24
/// prefill shapes (`results/2026-11-26-h100-session27/call9`, f16): d19 1.09× h10 at 384×14336×4096,
/// 1.13× h10 at 512×11008×4096 (1.12–1.15× in `call4`), 1.06× h8x2 at 512×28672×8192; h6s4 stays
/// ahead of it at every shape it is chosen for (0.87–0.95×, one noisy 1.06×), and h10 at 768×28672×8192
/// (0.89×).
pub fn d19_prefill(s: Shape, sms: u32) -> bool {
    use layout::hopper::tma_hgemm::{D19_ROWS, D3_COLS, persistent_splits};
    s.m > DECODE_MAX_M && s.m <= 4 * D19_ROWS as usize && !weight_rows_off_128(s)
        && persistent_splits(s.m as u32, s.n as u32, s.k as u32, sms, D19_ROWS, D3_COLS) == 1
}

/// The tile heights of the transposed prefill steps the rule weighs against each other: d21's
/// (`layout::hopper::tma_hgemm::D21_ROWS`) and d19's 128.
pub const TRANSPOSED_ROWS: [u32; 5] = [80, 96, 128, 144, 160];
/// A transposed tile's cost beyond its rows, in rows: its 128 weight columns' bytes and the fixed
/// cost of a tile. Fitted to one round of each of d21's heights at N = K = 4096 (`ab`,
/// `results/2026-11-26-h100-session28/call2`: 80 rows 21.2 µs, 96 23.3, 144 31.7, 160 33.5 — ~0.154 µs a
/// row over ~64 rows more, within 1 µs; d19's 128 rows, 26.6 µs, lie 11% below that line:
/// [`transposed_rows`] weighs it so).
pub const TRANSPOSED_TILE_ROWS: u64 = 64;
/// One round of h11's 128×192 tiles in the same unit: 35.6 µs at 576 and 640 × 4096² (`call2`), the
/// time of a transposed round of 168 rows (+ [`TRANSPOSED_TILE_ROWS`]).
pub const H11_ROUND_ROWS: u64 = 232;

/// The cost of transposed tiles of `rows` activation rows on `s`: rounds of the SMs times the rows a
/// tile loads (`min(rows, M)`: below its height a tile's box holds the M rows) plus
/// [`TRANSPOSED_TILE_ROWS`], `⌈⌈M/rows⌉·⌈N/128⌉ / SMs⌉ · (min(rows, M) + 64)`; `None` where the tiles would
/// split K (`2·tiles ≤ SMs`: `persistent_splits` > 1, whose partial sums cost d19 ~5 µs).
pub fn transposed_cost(s: Shape, sms: u32, rows: u32) -> Option<u64> {
    let tiles = (s.m as u64).div_ceil(rows as u64) * (s.n as u64).div_ceil(layout::hopper::tma_hgemm::D3_COLS as u64);
    (2 * tiles > sms as u64).then(|| tiles.div_ceil(sms.max(1) as u64) * ((rows as u64).min(s.m as u64) + TRANSPOSED_TILE_ROWS))
}

/// The transposed tile height for `s` ([`TRANSPOSED_ROWS`]): the lowest [`transposed_cost`], d19's counted
/// at 9/10 of it (its round, 26.6 µs, lies that far below the line through d21's heights: 28.6); on a
/// tie d19's 128, else the shortest (M below the heights: the same tiles with fewer wasted MMA rows —
/// 80×11008×4096 measured 0.98× d19 with 80 rows, 96×14336×4096 1.01× with 96: no gain where M fits
/// either); `None` where every height would split K.
pub fn transposed_rows(s: Shape, sms: u32) -> Option<u32> {
    transposed_best(s, sms).map(|(_, r)| r)
}

/// [`transposed_rows`] with its weighed cost, in tenths of a row (d19's `9·cost`, d21's `10·cost`).
fn transposed_best(s: Shape, sms: u32) -> Option<(u64, u32)> {
    let weighed = |r: u32, c: u64| if r == 128 { 9 * c } else { 10 * c };
    TRANSPOSED_ROWS.iter().filter_map(|&r| transposed_cost(s, sms, r).map(|c| ((weighed(r, c), r != 128, r), r))).min_by_key(|&(k, _)| k).map(|((c, _, _), r)| (c, r))
}

/// The rule where h10 or h8 would take a shape of at most 512 rows ([`d19_prefill`]): h11 where it fills
/// the SMs ([`h11_fills`]) and its rounds ([`H11_ROUND_ROWS`]) cost at most 95% of the best transposed
/// height's, else that height's step ([`transposed_step`]). `ab d19 h11` (`results/2026-11-26-h100-session28/`
/// `call4`, `call6`): h11 1.08–1.09× d19 at 480–512 × 11008 × 4096 and 1.06× at 384×14336×4096 (two rounds
/// of 128×192 against three of d19's 128 rows: 89.5% of the cost) — at 448 rows too (1.08×), where two
/// rounds of 160-row tiles cost less still (the rule's d21r160; 1.13× h11 at 464 and 480 rows); and, where
/// one round of d19 beats one of h11 (`d19_fits`, before this branch), 0.76–0.80× at 512×4096 × 4096 /
/// 11008. The margin keeps 512×28672×8192 (96%; d19 1.06× h8x2 there, session 27) on d19.
pub fn prefill_step(s: Shape, sms: u32, elem: Elem) -> &'static Step {
    use layout::hopper::tma_hgemm::H11_BN;
    let h11_tiles = tiles_128(s, H11_BN);
    let h11 = 10 * h11_tiles.div_ceil(sms.max(1) as u64) * H11_ROUND_ROWS;
    match transposed_best(s, sms) {
        _ if h12_fills(s, sms) && h12_over_transposed(s, sms) => if elem == Elem::Bf16 { &steps::H12_BF16 } else { &steps::H12 },
        Some((best, _)) if h11_fills(s, sms) && 20 * h11 <= 19 * best => if elem == Elem::Bf16 { &steps::H11_BF16 } else { &steps::H11 },
        _ => transposed_step(s, sms, elem),
    }
}

/// One round of h6s4's 128×256 tiles in [`transposed_cost`]'s unit: 51.9 µs a round at K = 4096, the
/// median over 63 shapes (M = 640–2048, N and K 4096–28672) of the autotuner's times divided by the
/// rounds, where d19's 128-row round took 27.3 µs (its weighed cost, 172.8 rows: 0.158 µs a row;
/// d21's 144 / 160 rows 0.157 / 0.156) — `results/2026-11-26-h100-session29/call5` (`grid*.txt`). The
/// same fit gives h11's round 39.4 µs: 251 rows (the one-round [`H11_ROUND_ROWS`] is 232).
pub const H6_ROUND_ROWS: u64 = 330;

/// The transposed step ([`transposed_step`]) where the rule would take h6s4, h10 or h8 above M = 512
/// (four 128-row tiles: [`d19_prefill`] covers the rows below): where its weighed cost
/// (`transposed_best`) is at most 92% of h6s4's rounds, `⌈⌈M/128⌉·⌈N/256⌉ / SMs⌉ ·`
/// [`H6_ROUND_ROWS`], with the weights' rows a multiple of 128 bytes (as [`d19_fits`] asks) and N, K ≥
/// 1024 (the range [`transposed_step`] takes d21 and d22 in, the one measured). By waves: 1024×14336×4096 has 448 h6s4 tiles, 3.4 rounds taken as 4, and 896 d19
/// tiles, 6.8 rounds taken as 7 of half the work — 0.875 of the time.
///
/// The margin is what the measurements need: over the 63 shapes of `call5` each step was timed once,
/// and h10 (h6s4's schedule wherever its tail exceeds a third: the same kernel) came out 0.97–1.07×
/// h6s4. `ab` (`call6`, 6 rounds): 1.127× h6s4 at 1024×14336×4096 (d22r128; bf16 1.119×), 1.092×
/// h8x2 at 1280×8192×8192 (d22r128; d19 1.108×); level at the other shapes it moves (896×11008×4096:
/// d19 1.017× h10, where d22r160 measured 1.083× but the model prices 160-row tiles above d19's;
/// 1280×11008×4096 d22r128 1.000× h10; 1280×8192×28672 1.005× h8x2); and 0.906× at 1024×8192×28672,
/// which the model prices at 1.05× h6s4's rounds and so leaves alone. Since session 96 N, K ≥ 512, as
/// [`d21_over_h11`] (call 8: with both at 512, 18 of the 20 corpus and off-corpus shapes whose pick changed
/// 1.02–1.43× faster, one level, one 0.92× — 3733×2560×640, where the model had taken d22r144 and the
/// rule's K < 2048 keeps d21).
pub fn transposed_over_h6(s: Shape, sms: u32, elem: Elem) -> Option<&'static Step> {
    use layout::hopper::tma_hgemm::{BN_WIDE, D19_ROWS};
    if s.m <= 4 * D19_ROWS as usize || weight_rows_off_128(s) || s.n < 512 || s.k < 512 {
        return None;
    }
    let h6_tiles = tiles_128(s, BN_WIDE);
    let h6 = 10 * h6_tiles.div_ceil(sms.max(1) as u64) * H6_ROUND_ROWS;
    let (best, _) = transposed_best(s, sms)?;
    (25 * best <= 23 * h6).then(|| transposed_step(s, sms, elem))
}

/// d21's step of tile height `rows` for `elem` (`None`: a height d21 is not built for, or f32).
pub fn d21_for(rows: u32, elem: Elem) -> Option<&'static Step> {
    let i = layout::hopper::tma_hgemm::D21_ROWS.iter().position(|&r| r == rows)?;
    match elem {
        Elem::F16 => Some(&steps::D21[i]),
        Elem::Bf16 => Some(&steps::D21_BF16[i]),
        Elem::F32 => None,
    }
}

/// d21 or d22 at tile height `rows` on `s`: d22 (d21 in clusters of 2 sharing the weight boxes by
/// multicast) where `rows` ≥ 96 and the tile rows pair up (`⌈M/rows⌉` even: an odd count leaves a
/// cluster's second CTA a tile row past M, a round more at 448×11008×4096, 0.67×); d21 otherwise. `ab d21
/// d22` (`results/2026-11-26-h100-session28/call7`, 6 rounds): 96 rows 1.03–1.04× at 352 / 384 × 4096² and
/// 384×4096×14336 (bf16 1.04×), 144 rows 1.05× at 576 / 1152 × 4096² and 288×8192², 160 rows 1.03–1.04×
/// at 640 / 1280 × 4096²; 80 rows 0.96–1.02× (600×2048²: 0.96×), so d21 keeps them.
///
/// d22 also needs K ≥ 512: until session 96 K ≥ 2048 (measured at K = 4096–14336; a cluster launch alone
/// cost d7's body 6% at 1024³, session 21) — session 96 (call 9) measured every shape of the corpus and
/// off it that K ≥ 512 moves from d19/d21 to d22: 54 of 56 faster, 1.01–1.12× (K 512–1023 1.019×, K
/// 1024–2047 1.033× geometric mean), two 0.99×.
///
/// At d19's own 128 rows: d22r128 where they pair up (1.00–1.05× d19 at 416–512 × 4096 × K,
/// 256×8192², 512×28672×8192; bf16 1.03–1.05×, `call9`), else `None` (d19).
///
/// An odd count pairs up too where its clusters (`⌈rows_M / 2⌉ · cols`, ⌊SMs / 2⌋ at a time) take no more
/// rounds than d21's tiles over the SMs: the odd count's cost was the extra round, not the idle
/// second CTA (session 96, call 3: d22r144 1.07–1.08× d21r144 at 4934×896×5120 and 7039×576×3584, 35 and
/// 49 tile rows, two rounds either way).
pub fn d21_or_d22(rows: u32, s: Shape, elem: Elem, sms: u32) -> Option<&'static Step> {
    let tile_rows = (s.m as u64).div_ceil(rows as u64);
    let cols = (s.n as u64).div_ceil(layout::hopper::tma_hgemm::D3_COLS as u64);
    let (sms, pairs) = (sms.max(2) as u64, tile_rows.div_ceil(2) * cols);
    let rounds_fit = pairs.div_ceil(sms / 2) <= (tile_rows * cols).div_ceil(sms);
    let paired = rows >= 96 && (tile_rows % 2 == 0 || rounds_fit) && s.k >= 512;
    if rows == 128 {
        return match (elem, paired) {
            (Elem::F16, true) => Some(&steps::D22_R128),
            (Elem::Bf16, true) => Some(&steps::D22_R128_BF16),
            _ => None,
        };
    }
    let i = layout::hopper::tma_hgemm::D21_ROWS.iter().position(|&r| r == rows)?;
    match (elem, paired) {
        (Elem::F16, false) => Some(&steps::D21[i]),
        (Elem::Bf16, false) => Some(&steps::D21_BF16[i]),
        (Elem::F16, true) => Some(&steps::D22[i]),
        (Elem::Bf16, true) => Some(&steps::D22_BF16[i]),
        (Elem::F32, _) => None,
    }
}

/// The transposed step where the rule takes d19's tiles (`d19_fits`, `d19_prefill`, and above 512 rows
/// [`transposed_over_h6`]): d21 or d22
/// ([`d21_or_d22`]: d22r128 at d19's own height where its tile rows pair up) at the height of
/// [`transposed_rows`] where N, K ≥ 512 (the regime measured: N 512–28672, K 512–28672; the model
/// knows nothing of K; until session 96 N, K ≥ 1024 — then 36 shapes of the corpus and off it with N or K
/// in 512–1023 ran d19 at 0.75–0.98× cuBLAS, and the heights' choice 1.01–1.25× faster, every one: 0.839 →
/// 0.925× cuBLAS), else d19. `ab d19 d21` (`results/2026-11-26-h100-session28/`
/// `call2`, 6 rounds): 80 rows 1.24–1.26× d19 at 257, 288, 320 × 4096², 96 rows 1.14–1.16× at 300, 352,
/// 384 × 4096² (bf16 1.16×); 144 rows 0.89× at 512 and 0.97× at 288, where the model keeps d19 and 80.
pub fn transposed_step(s: Shape, sms: u32, elem: Elem) -> &'static Step {
    let measured = s.n >= 512 && s.k >= 512;
    match transposed_rows(s, sms).filter(|_| measured).and_then(|r| d21_or_d22(r, s, elem, sms)) {
        Some(step) => step,
        None => if elem == Elem::Bf16 { &steps::D19_BF16 } else { &steps::D19 },
    }
}

/// d21 (or d22: [`d21_or_d22`]) in h11's place: where the cheapest of d21's heights costs less than h11's rounds
/// (`⌈⌈M/128⌉·⌈N/192⌉ / SMs⌉ ·` [`H11_ROUND_ROWS`]), M above the decode range and the weights' rows a
/// multiple of 128 bytes (d19's conditions), and N, K ≥ 512 — the regime measured (N 2048–28672, K
/// 2048–28672 in session 28; N, K 512–1023 in session 96, call 8: h11 → d21r144/r160 1.03–1.06× at 1024 ×
/// 2304 × 768, 768×3072×768, 393×5120×640, 878–937 × 2560 × 640), where a tile's time is its K loop; the
/// model knows nothing of K. `ab h11 d21` (`call2`): 144 rows 1.12× at 576×4096², 1.30×
/// at 1152×4096²; 160 rows 1.06–1.08× at 600 and 640 × 4096² (bf16 1.08×), 1.12–1.14× at 1280×4096²
/// (bf16 1.14×); a 192-row form was level with h11 at 768 and 1536 × 4096² (0.99×) and is not built.
pub fn d21_over_h11(s: Shape, sms: u32, elem: Elem) -> Option<&'static Step> {
    use layout::hopper::tma_hgemm::{D21_ROWS, H11_BN};
    if s.m <= DECODE_MAX_M || weight_rows_off_128(s) || s.n < 512 || s.k < 512 {
        return None;
    }
    let h11_tiles = tiles_128(s, H11_BN);
    let h11 = h11_tiles.div_ceil(sms.max(1) as u64) * H11_ROUND_ROWS;
    let (cost, rows) = D21_ROWS.iter().filter_map(|&r| transposed_cost(s, sms, r).map(|c| (c, r))).min_by_key(|&(c, r)| (c, r))?;
    if cost < h11 { d21_or_d22(rows, s, elem, sms) } else { None }
}

/// Whether h11 takes h6s4's place: by the waves of a persistent grid — rounds of tiles times a tile's
/// work — its 128×192 tiles finish at most 5/6 of the time of the 128×256 ones,
/// `6 · 3 · ⌈tiles₁₉₂ / SMs⌉ ≤ 5 · 4 · ⌈tiles₂₅₆ / SMs⌉`. `ab h6s4 h11`
/// (`results/2026-11-26-h100-session27/call11`, 6 rounds): 768×4096 × 4096 / 11008 / 14336 1.20 / 1.21 /
/// 1.25×, 640×4096² 1.26×, 1280×4096² 1.32×, 1536×4096² 1.33× (bf16 1.22–1.32×) — the model's 4 : 3 —
/// and, where the model says no, 0.67× at 896×4096² (2 rounds against 1), 0.87–0.89× at 4096³,
/// 2048×4096×11008, 768×11008×4096, 1024×8192×4096, 0.95× at 3072×4096² (the model's tie). The
/// margin keeps 8192³ (63 : 64) on h6s4. Its tiles must also fill more than half the SMs: with a
/// few tiles and a deep K, h8 splits K over a cluster, and h11 (like h6s4) would leave the SMs idle —
/// without this, 128×1024×16384 took h11 at 0.114 ms where h8x8 takes 0.028 (the review's device run,
/// H200). It also takes h10's and h8's place where it fills
/// (`call12`): 1.10–1.11× h10 at 1280×4096 × 4096 / 14336, 1.09–1.26× h8x2 at 1536×4096 × 14336 /
/// 4096; 256×11008×4096, 256×8192×4096, 512×6144×4096 1.12–1.21× h6s4.
pub fn h11_fills(s: Shape, sms: u32) -> bool {
    use layout::hopper::tma_hgemm::{BN_WIDE, H11_BN};
    let rounds = |cols: u32| tiles_128(s, cols).div_ceil(sms.max(1) as u64);
    2 * tiles_128(s, H11_BN) > sms as u64 && 6 * 3 * rounds(H11_BN) <= 5 * 4 * rounds(BN_WIDE)
}

/// One round of h12's 128×320 tiles in [`transposed_cost`]'s unit: 69 µs at 1024×5120×4096 (128 tiles,
/// H200, session 96, 3 processes) at [`H11_ROUND_ROWS`]' 0.153 µs a row. (Predicted before its first
/// run: h11's round times 320 / 192, 387 — the calibrated K block is 1.79× h11's for 1.67× the columns.)
pub const H12_ROUND_ROWS: u64 = 450;

/// Whether h12 takes h6s4's, h10's, h11's and h8's place: by the waves of a persistent grid — rounds of
/// tiles times a tile's work — its 128×320 tiles finish at most 5/6 of the time of both the 128×256 and
/// the 128×192 ones, `6 · 5 · ⌈tiles₃₂₀ / SMs⌉ ≤ 5 · min(4 · ⌈tiles₂₅₆ / SMs⌉, 3 · ⌈tiles₁₉₂ / SMs⌉)`
/// (h11's margin, [`h11_fills`]), and they fill more than half the SMs (a few tiles over a deep K are
/// h8's). 1024×5120: 128 tiles of 320 against 160 of 256 and 216 of 192 — one round against two, 0.625
/// and 0.83 of their time; 2048×5120: 256 against 320 and 432 (two rounds against three and four).
pub fn h12_fills(s: Shape, sms: u32) -> bool {
    use layout::hopper::tma_hgemm::{BN_WIDE, H11_BN, H12_BN};
    let rounds = |cols: u32| tiles_128(s, cols).div_ceil(sms.max(1) as u64);
    2 * tiles_128(s, H12_BN) > sms as u64 && 6 * 5 * rounds(H12_BN) <= 5 * (4 * rounds(BN_WIDE)).min(3 * rounds(H11_BN))
}

/// h12's rounds in [`transposed_cost`]'s unit: `⌈⌈M/128⌉·⌈N/320⌉ / SMs⌉ ·` [`H12_ROUND_ROWS`].
pub fn h12_cost(s: Shape, sms: u32) -> u64 {
    use layout::hopper::tma_hgemm::H12_BN;
    tiles_128(s, H12_BN).div_ceil(sms.max(1) as u64) * H12_ROUND_ROWS
}

/// Whether h12's rounds ([`h12_cost`]) cost at most 90% of the best transposed height's weighed cost
/// (`transposed_best`) at ≤ 512 rows ([`prefill_step`]), or no transposed height runs `s` unsplit. The
/// margin: the transposed tiles run faster than their cost says where their rows fit M better than
/// h12's 128 (session 96, call 2: d22r96 at 162–191 × 18176–19008 × 3584–5120, predicted 1.07× slower than
/// h12 by these costs, measured 0.92–0.945× its time; h12 1.05–1.18× the steps it replaced where its
/// rounds cost 0.75–0.87 of the transposed ones').
pub fn h12_over_transposed(s: Shape, sms: u32) -> bool {
    let h12 = 10 * h12_cost(s, sms);
    let measured = s.n >= 1024 && s.k >= 1024 && s.m > DECODE_MAX_M && !weight_rows_off_128(s);
    match transposed_best(s, sms) {
        Some((best, _)) if measured => 10 * h12 <= 9 * best,
        _ => true,
    }
}

/// d21 or d22 ([`d21_or_d22`]) in h12's place: as [`d21_over_h11`] weighs them against h11, where the
/// cheapest of d21's heights costs less than h12's rounds ([`h12_cost`]), M above the decode range, the
/// weights' rows a multiple of 128 bytes, K ≥ 1024 — and N ≥ 512, not 1024: session 96 (call 2) measured
/// d22r144 1.13× h12 at 4934×896×5120 and 1.12× at 7039×576×3584 (two rounds of 144 rows, 416, against
/// one of h12, 450), where only the cost model had taken it before.
pub fn d21_over_h12(s: Shape, sms: u32, elem: Elem) -> Option<&'static Step> {
    use layout::hopper::tma_hgemm::D21_ROWS;
    if s.m <= DECODE_MAX_M || weight_rows_off_128(s) || s.n < 512 || s.k < 1024 {
        return None;
    }
    let h12 = h12_cost(s, sms);
    let (cost, rows) = D21_ROWS.iter().filter_map(|&r| transposed_cost(s, sms, r).map(|c| (c, r))).min_by_key(|&(c, r)| (c, r))?;
    if cost < h12 { d21_or_d22(rows, s, elem, sms) } else { None }
}

/// Tiles of 128 rows (`BM`) × `cols` columns over `s`: `⌈M/128⌉·⌈N/cols⌉` (h6s4's 256, h11's 192, h12's 320).
fn tiles_128(s: Shape, cols: u32) -> u64 {
    (s.m as u64).div_ceil(layout::hopper::tma_hgemm::BM as u64) * (s.n as u64).div_ceil(cols as u64)
}

/// Whether the rows of B, the weights (`2N` bytes), are off a multiple of 128 bytes, so each 128-byte
/// row of a TMA weight box straddles two L2 lines (d11's region inside d7's).
pub fn weight_rows_off_128(s: Shape) -> bool {
    (2 * s.n) % 128 != 0
}

/// How many clusters of each h8 size (2 … 8 CTAs) this GPU holds at once (`cuOccupancyMaxActiveClusters`
/// on the f16 kernels; the bf16 twins use the same resources); zeros where it cannot run sm_90a code.
pub fn h8_resident(gpu: &Gpu) -> Result<[u32; 7]> {
    if gpu.cannot_run(&steps::H8[0].kernel).is_some() {
        return Ok([0; 7]);
    }
    let mut r = [0u32; 7];
    for (slot, (step, size)) in r.iter_mut().zip(steps::H8.iter().zip(layout::hopper::tma_hgemm::H8_CLUSTERS)) {
        *slot = gpu.kernel(step.kernel.name)?.max_active_clusters(gpu, size)?;
    }
    Ok(r)
}

/// For a cluster split-K grid (h8) on `s`: how many clusters it launches, how many of its size this
/// GPU holds at once, and the residency of every size, for the tables; `None` for other grids.
pub fn cluster_note(gpu: &Gpu, grid: crate::steps::gemm::Grid, s: Shape) -> Option<String> {
    let crate::steps::gemm::Grid::ClusterSplitK { rows, cols, cluster } = grid else { return None };
    let clusters = (s.m as u32).div_ceil(rows) * (s.n as u32).div_ceil(cols);
    let resident = h8_resident(gpu).ok()?;
    let fit = layout::hopper::tma_hgemm::H8_CLUSTERS.iter().position(|&c| c == cluster).map(|i| resident[i]).unwrap_or(0);
    Some(format!("{clusters} clusters of {cluster} CTAs (K split {cluster} ways), {fit} resident at once ({} wave{}); clusters resident by size 2..8: {resident:?}",
                 clusters.div_ceil(fit.max(1)), if clusters.div_ceil(fit.max(1)) == 1 { "" } else { "s" }))
}

/// The configuration for `s` with element type `elem` on a GPU that runs `sm_90a` code (`hopper`) or
/// not, with `step` forced (`None`: [`default_step`]). Pure: the CPU tests cover it. Errors name why a
/// forced step cannot take the shape even padded, or takes another element type.
pub fn choose(s: Shape, hopper: bool, sms: u32, h8_resident: [u32; 7], step: Option<&'static Step>, elem: Elem) -> Result<Config> {
    let step = step.unwrap_or(default_step(s, hopper, sms, elem, h8_resident));
    if step.elem != elem {
        return Err(Error::InvalidInput(format!("step {}: {} takes {:?} matrices, this GEMM is {elem:?}", step.kernel.step, step.kernel.name, step.elem)));
    }
    if step.acc != Accumulate::F32 {
        return Err(Error::InvalidInput(format!("step {}: the gemm entry point accumulates in f32; {} accumulates in f16", step.kernel.step, step.kernel.name)));
    }
    if step.rejects(s.m, s.n, s.k).is_none() {
        return Ok(Config { step, padded: false });
    }
    match step.rejects(s.m, up8(s.n), up8(s.k)) {
        None => Ok(Config { step, padded: true }),
        Some(why) => Err(Error::InvalidInput(format!("step {} cannot run {s}, even with K and N padded to multiples of 8: {why}", step.kernel.step))),
    }
}

/// How a plan without a forced step chooses its configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// [`default_step`]'s rules with [`refine_decode`]: within 5% of the fastest candidate at 71 of 80
    /// sampled shapes on an H200 (`results/2026-11-28-h200-session48/`).
    Rule,
    /// The calibrated cost model alone ([`choose_by`], [`cost`]): 60 of the same 80 (75%).
    CostModel,
    /// The default ([`entry_choice`]): the rules, overruled by the cost model where it predicts its own
    /// pick at least [`MODEL_OVERRIDE_MARGIN`] faster than the rules' pick.
    RuleUnlessModel,
}

impl Choice {
    /// `KERNEL_LAB_GEMM_CHOICE`: `model` → [`Choice::CostModel`]; `rule` → [`Choice::Rule`]; unset or
    /// `both` → [`Choice::RuleUnlessModel`]; any other value is said once on stderr and read as `both`.
    /// Read once per process.
    pub fn from_env() -> Choice {
        static C: std::sync::OnceLock<Choice> = std::sync::OnceLock::new();
        *C.get_or_init(|| match std::env::var("KERNEL_LAB_GEMM_CHOICE").as_deref() {
            Ok("model") => Choice::CostModel,
            Ok("rule") => Choice::Rule,
            Ok("both") | Ok("") | Err(_) => Choice::RuleUnlessModel,
            Ok(other) => {
                eprintln!("note: KERNEL_LAB_GEMM_CHOICE={other} is none of `both`, `rule`, `model`; using `both`");
                Choice::RuleUnlessModel
            }
        })
    }
}

/// How much faster (a fraction of the rules' predicted time) the cost model must predict its pick
/// before [`entry_choice`] takes it over the rules' pick: 15%. The model's constants fit their
/// calibration timings to a median error of 3–4%, but its ranking of two configurations within ~10%
/// of each other is a coin toss (the L2's reuse across a wave, which it does not model, moves
/// many-wave shapes by 10–26%). Where it predicts a larger gain it is usually right: on session 48's
/// 80-shape design sample the rules alone were within 5% of the fastest candidate at 71, the model
/// alone at 60, and the rules overruled at margins of 0 / 5 / 10 / 15 / 20 / 30 / 40% at 60 / 69 / 73 /
/// **77** / 75 / 75 / 71 (`kernel-lab rank`).
pub const MODEL_OVERRIDE_MARGIN: f64 = 0.15;

/// The entry point's choice ([`Choice::RuleUnlessModel`], pure: the CPU tests cover it): the rules'
/// configuration ([`choose`] then [`refine_decode`]), unless the cost model's pick ([`choose_by`]) is
/// predicted at least [`MODEL_OVERRIDE_MARGIN`] faster. Off Hopper, on ragged shapes, or where the model
/// has no constants for the rules' pick, the rules stand.
pub fn entry_choice(model: &cost::CostModel, s: Shape, hopper: bool, sms: u32, h8_resident: [u32; 7], elem: Elem) -> Result<Config> {
    // The override is weighed against the rules' pick before its tile-height refinement (d27): refined,
    // a d16 that the model's d25 beat by the margin could beat d25's margin itself (session 76:
    // 32×4096×11008 then ran d27 at 0.94× d25).
    let base = refine_rule_step(choose(s, hopper, sms, h8_resident, None, elem)?, model, s, hopper, sms, h8_resident, elem);
    let rule = refine_tile_height(base, model, s, hopper, sms, h8_resident, elem);
    if !hopper || ragged(s) {
        return Ok(rule);
    }
    let bpsm = crate::runtime::tuning::decode_blocks_per_sm();
    // The model's pick without d28's cluster splits, which are weighed last against what they replace.
    let picked = choose_by_among(model, s, hopper, sms, h8_resident, elem, false)?;
    let predict = |c: &Config| model.predict(c.step, s, c.padded, sms, bpsm, h8_resident);
    let chosen = match (predict(&base), predict(&picked)) {
        (Some(tb), Some(tm)) if tm < (1.0 - MODEL_OVERRIDE_MARGIN) * tb => picked,
        _ => rule,
    };
    Ok(refine_cluster_split(chosen, model, s, hopper, sms, h8_resident, elem))
}

/// The configuration the cost model picks for `s` (pure: the CPU tests cover it): on a GPU that runs
/// sm_90a code, the candidate ([`cost::candidates`]) that takes `s` (padded where its K or N is off 8)
/// with the lowest predicted time ([`cost::CostModel::predict`]; ties to the earlier candidate); without
/// sm_90a, `d2` up to 16 rows, `d2m64` up to [`DECODE_MAX_M`] (bf16: every M), else `v10` — there is no
/// calibration for those GPUs.
pub fn choose_by(model: &cost::CostModel, s: Shape, hopper: bool, sms: u32, h8_resident: [u32; 7], elem: Elem) -> Result<Config> {
    choose_by_among(model, s, hopper, sms, h8_resident, elem, true)
}

/// [`choose_by`] with d28's cluster splits among the candidates or not (`clusters`): the entry point
/// weighs them after the rest ([`refine_cluster_split`]), against the pick they would replace.
fn choose_by_among(model: &cost::CostModel, s: Shape, hopper: bool, sms: u32, h8_resident: [u32; 7], elem: Elem, clusters: bool) -> Result<Config> {
    if ragged(s) {
        // The one configuration that runs such a shape without copies (not weighed: not calibrated).
        return choose(s, hopper, sms, h8_resident, Some(ragged_step(s.m, elem)), elem);
    }
    if !hopper {
        let bf = elem == Elem::Bf16;
        let st = match s.m {
            m if m <= 16 => if bf { &steps::D2_BF16 } else { &steps::D2 },
            m if m <= DECODE_MAX_M || bf => if bf { &steps::D2M64_BF16 } else { &steps::D2M64 },
            _ => &steps::V10,
        };
        return choose(s, hopper, sms, h8_resident, Some(st), elem);
    }
    let bpsm = crate::runtime::tuning::decode_blocks_per_sm();
    let mut best: Option<(f64, Config)> = None;
    for st in cost::candidates_for(elem, Some(s.m)) {
        if !clusters && is_cluster_split(st) {
            continue;
        }
        let Ok(c) = choose(s, hopper, sms, h8_resident, Some(st), elem) else { continue };
        if !model.calibrated_for(st, s, c.padded, sms, bpsm, h8_resident) {
            continue;
        }
        let Some(t) = model.predict(st, s, c.padded, sms, bpsm, h8_resident) else { continue };
        if best.as_ref().is_none_or(|(bt, _)| t < *bt) {
            best = Some((t, c));
        }
    }
    match best {
        Some((_, c)) => Ok(c),
        // A model without constants for any candidate (a calibration file cut short): h6s4 takes any shape.
        None => choose(s, hopper, sms, h8_resident, Some(if elem == Elem::Bf16 { &steps::H6S4_BF16 } else { &steps::H6S4 }), elem),
    }
}

/// The rules' d15 (M ≤ 16 where d4's 64×64 tiles fill 40–100% of the SMs) turned into d2 where the cost
/// model of this GPU predicts d2 faster. d15 streams each tile's whole K through one CTA, so with fewer
/// tiles than SMs its rate is the tiles times one SM's streaming rate (the model's `kblock_us`: about
/// 56 GB/s an SM on an H200), under the DRAM's below ~80 tiles there; d2 splits K over every SM at a
/// larger fixed cost. Measured on an H200 (`results/2026-11-29-h200-session53`): 1×4096×14336 d2 34.3 µs,
/// d15 38.7 (the model: 33.7, 37.7); 1×6144×4096 d15 15.6, d2 18.8 (15.6, 18.0). Any other
/// configuration is returned as it is (pure: the CPU tests cover it).
///
/// Also: where the rules fall to `d2m64` on Hopper (16 < M ≤ 64 where d4's tiles do not fit one wave),
/// the cost model's pick over every candidate ([`choose_by`]). d2m64 was never within 5% of the fastest
/// candidate at the six such shapes the autotuner timed on an H200 (1.42–1.98× the fastest,
/// `results/2026-11-28-h200-session48/call1-rank`), and reached 0.56–0.77× cuBLAS on the corpus sample;
/// the model's picks there were 1.00–1.27× the fastest.
///
/// And: the rules' d9 or d16 (64-row tiles, whole K) turned into d27 — the same one-consumer CTA on
/// 32-row tiles — where the model, within the rounds it was calibrated on, predicts d27 faster. Both are
/// one body at two tile heights, so the choice is the model's rounds and constants alone (no override
/// margin): d27 doubles the tiles and cuts a CTA's bytes a K tile from 16 to 12 KiB, which wins where
/// d16's tiles leave SMs idle and d27's still fit one wave. Measured on an H200 (session 76, 3 processes):
/// 128×2048×2048 1.12×, 128×1536×2048 1.13× the best of d9/d16/d25; 128×3072×4096 (192 tiles, two rounds)
/// 0.64× — the model: 1.135× and a second round.
pub fn refine_decode(c: Config, model: &cost::CostModel, s: Shape, hopper: bool, sms: u32, h8_resident: [u32; 7], elem: Elem) -> Config {
    let c = refine_tile_height(refine_rule_step(c, model, s, hopper, sms, h8_resident, elem), model, s, hopper, sms, h8_resident, elem);
    refine_cluster_split(c, model, s, hopper, sms, h8_resident, elem)
}

/// [`refine_decode`]'s d15 → d2 and d2m64 → model steps, without the tile-height refinement: the pick
/// the cost model's override is weighed against ([`entry_choice`]).
fn refine_rule_step(c: Config, model: &cost::CostModel, s: Shape, hopper: bool, sms: u32, h8_resident: [u32; 7], elem: Elem) -> Config {
    let d15 = if elem == Elem::Bf16 { &steps::D15_BF16 } else { &steps::D15 };
    let d2 = if elem == Elem::Bf16 { &steps::D2_BF16 } else { &steps::D2 };
    let d2m64 = if elem == Elem::Bf16 { &steps::D2M64_BF16 } else { &steps::D2M64 };
    if hopper && !c.padded && c.step.kernel.name == d2m64.kernel.name {
        return choose_by_among(model, s, true, sms, h8_resident, elem, false).unwrap_or(c);
    }
    if c.padded || c.step.kernel.name != d15.kernel.name {
        return c;
    }
    let bpsm = crate::runtime::tuning::decode_blocks_per_sm();
    match (model.predict(d15, s, false, sms, bpsm, model.h8_resident), model.predict(d2, s, false, sms, bpsm, model.h8_resident)) {
        (Some(t15), Some(t2)) if t2 < t15 => Config { step: d2, padded: false },
        _ => c,
    }
}

/// [`refine_decode`]'s tile-height step: the rules' d9 or d16 turned into d27 where the model predicts it
/// faster (see there); any other configuration as it is.
fn refine_tile_height(c: Config, model: &cost::CostModel, s: Shape, hopper: bool, sms: u32, h8_resident: [u32; 7], elem: Elem) -> Config {
    let (d9, d16, d27) = if elem == Elem::Bf16 { (&steps::D9_BF16, &steps::D16_BF16, &steps::D27_BF16) } else { (&steps::D9, &steps::D16, &steps::D27) };
    if !hopper || c.padded || (c.step.kernel.name != d9.kernel.name && c.step.kernel.name != d16.kernel.name) {
        return c;
    }
    let bpsm = crate::runtime::tuning::decode_blocks_per_sm();
    if !model.calibrated_for(d27, s, false, sms, bpsm, h8_resident) || d27.rejects(s.m, s.n, s.k).is_some() {
        return c;
    }
    match (model.predict(c.step, s, false, sms, bpsm, h8_resident), model.predict(d27, s, false, sms, bpsm, h8_resident)) {
        (Some(t), Some(t27)) if t27 < t => Config { step: d27, padded: false },
        _ => c,
    }
}

/// Whether `st` is one of d28's cluster splits (f16 or bf16, any tile height or cluster size).
fn is_cluster_split(st: &Step) -> bool {
    steps::D28.iter().chain(&steps::D28_BF16).chain(&steps::D28M64).chain(&steps::D28M64_BF16).chain(&steps::D28M128).chain(&steps::D28M128_BF16)
        .any(|d| d.kernel.name == st.kernel.name)
}

/// How much faster (a fraction of the pick's predicted time) `refine_cluster_split` (the last step of
/// [`entry_choice`] and [`refine_decode`]) must predict d28m128 before it replaces a 64-row whole-K
/// tile (d16, d9, d4), a transposed one (d19, d21, d22), d7, d11 (unsplit) or h8, and d28m64 before it
/// replaces d27 (since session 98): 5%. Otherwise d28 and d28m64, and any d28 in place of d15 or d27, need
/// [`CLUSTER_SPLIT_WHOLE_K_MARGIN`] (10% since session 82; 15% before). Session 81
/// (`results/2026-12-02-h200-session81`, 36 changed corpus shapes, 3 processes against the build
/// before): with 5% for every height, d28m128 in place of d9/d4 measured 1.05–1.22× at all 20
/// (predicted 1.06–1.16×), while d28m64 in place of d27 or d15 measured 0.88–1.05× (predicted
/// 1.06–1.16×) and d28m128x8 in place of d27 0.93× (1.07×): the model holds for the 128-row tile,
/// whose bytes per product it models, not for the light tiles' fixed costs. On session 81's autotune
/// cache (23 corpus shapes, every candidate timed) the entry's pick was within 5% of the fastest at 16
/// with 15% for every height, 19 with 5%.
pub const CLUSTER_SPLIT_MARGIN: f64 = 0.05;

/// How much faster `refine_cluster_split` must predict d28 (or d28m64) before it replaces a whole-K
/// tile, and any d28 before it replaces d15 or d27 (the 16- and 32-row tiles, the smallest fixed
/// costs): 10%. The model's d28 gains are least sure there (session 80: d28 in d15's place 0.89–1.15× at
/// K ≤ 2048, predicted 1.06–1.16×; session 81: d28m64x2 in d27's place at 24–48 rows 0.88–0.94×,
/// predicted 1.06–1.08×). Since session 82 a one-unit CTA's end is serial to its round in the model
/// (`cost`'s module doc) and d28's constants were refitted so: on session 81's autotune cache (100
/// sampled corpus shapes, every candidate timed) the model now gives d28x2 against d15 1.04–1.09× where
/// it measured 0.92–1.00× (8×3072×1024, 16×4096×2048), 1.12–1.29× where it measured 1.07–1.27×
/// (4×3072×2048, 8×4096×7168, 4×3072×3072, 1×3072×4096), and at 4×3584×4096, measured 1.15× in
/// session 80, 1.17×: 10% keeps the losses out and the gains in, where 15% dropped 4×3584×4096-like
/// shapes (16×3584×4096: predicted 1.175×) back to d15.
pub const CLUSTER_SPLIT_WHOLE_K_MARGIN: f64 = 0.10;

/// The most rows `refine_cluster_split` weighs d28 at: two of d28m128's tile rows (each reads the
/// weights once).
pub const CLUSTER_SPLIT_MAX_M: usize = 256;

/// The cluster step of [`refine_decode`] and [`entry_choice`] (their last): a pick at M ≤
/// [`CLUSTER_SPLIT_MAX_M`] turned into d28 — d15's CTA (M ≤ 16), d16's (M ≤ 128) or d28m128's 128-row
/// one (M > 64) with K split over a cluster of 2, 4 or 8, the partials summed through distributed shared
/// memory — at the tile height and cluster size the model predicts fastest. In place of d2 or d25, which
/// split K through a workspace and a ticket (and of d7 or d11 where they split K so), where the model predicts d28 faster at all; in place of a
/// whole-K tile (d15, d16, d9, d4, d27), a transposed one (d19, d21, d22), d7, d11 or h8 only where it predicts it
/// faster by a margin: [`CLUSTER_SPLIT_MARGIN`] (5%) for d28m128 in place of d16, d9, d4, the transposed
/// tiles, d7, d11 or h8, [`CLUSTER_SPLIT_WHOLE_K_MARGIN`] (10%) otherwise; any other configuration as it is. Measured on an H200 (session 80,
/// `results/2026-12-02-h200-session80`): every candidate timed on 20 decode shapes, d28 the fastest at 17
/// (1.05–1.23× the rules' pick); on 58 shapes whose pick a first form of this step changed, d28 in place
/// of d2 and d25 1.05–1.41× at every one, in place of d15 and d27 0.89–1.15× (constants then fitted on K
/// 512 and 4096 alone). Session 81 (`results/2026-12-02-h200-session81`): d28m128 the fastest candidate
/// at 4 of 23 corpus shapes at 80–256 rows (1.05–1.16× the rules' pick: 128×3072×4096 13.3 µs against d9's 15.2).
fn refine_cluster_split(c: Config, model: &cost::CostModel, s: Shape, hopper: bool, sms: u32, h8_resident: [u32; 7], elem: Elem) -> Config {
    let bf = elem == Elem::Bf16;
    let split: [&Step; 2] = if bf { [&steps::D2_BF16, &steps::D25_BF16] } else { [&steps::D2, &steps::D25] };
    // The whole-K tiles, d15 first and d27 last.
    let whole: [&Step; 5] = if bf {
        [&steps::D15_BF16, &steps::D16_BF16, &steps::D9_BF16, &steps::D4_BF16, &steps::D27_BF16]
    } else {
        [&steps::D15, &steps::D16, &steps::D9, &steps::D4, &steps::D27]
    };
    // The transposed tiles of 80–160 rows (d19, d21, d22): K split through a workspace where their
    // tiles leave SMs idle, calibrated on many-wave shapes; weighed with the margin, as the whole-K tiles.
    let transposed: Vec<&Step> = if bf {
        std::iter::once(&steps::D19_BF16).chain(&steps::D21_BF16).chain(&steps::D22_BF16).chain(std::iter::once(&steps::D22_R128_BF16)).collect()
    } else {
        std::iter::once(&steps::D19).chain(&steps::D21).chain(&steps::D22).chain(std::iter::once(&steps::D22_R128)).collect()
    };
    // h8 (h4's 128×256 tiles with K split over a cluster): ~9 µs of fixed cost (session 76).
    let h8: Vec<&Step> = if bf { steps::H8_BF16.iter().collect() } else { steps::H8.iter().collect() };
    // d7 and d11 (64×128 tiles, C by TMA stores; K split through a workspace where the tiles leave SMs
    // idle): weighed since session 98, as the transposed tiles where they run K whole and as d2 and d25
    // where they split it — a split through global memory, whose first extra split costs d7 a ~9 µs step
    // that the model's linear term does not price (session 84). Session 98 (call 2) measured d28m128x2
    // 1.43× d11 at 128×3072×8192 and 1.18× d7 at 128×3584×14336, both split, where the model gives d28m128x2
    // 1.01–1.02×.
    let tma_store: [&Step; 2] = if bf { [&steps::D7_BF16, &steps::D11_BF16] } else { [&steps::D7, &steps::D11] };
    let is = |set: &[&Step]| set.iter().any(|f| f.kernel.name == c.step.kernel.name);
    let bpsm = crate::runtime::tuning::decode_blocks_per_sm();
    let splits_through_memory = is(&split)
        || (is(&tma_store) && cost::schedule(c.step, s, sms, bpsm, h8_resident).is_some_and(|sch| sch.splits > 1));
    if !hopper || c.padded || s.m > CLUSTER_SPLIT_MAX_M || !(is(&split) || is(&whole) || is(&transposed) || is(&h8) || is(&tma_store)) {
        return c;
    }
    // The tile heights that read the weights at most twice: 16 rows up to 16, 64 rows up to 128, 128
    // rows above 64.
    let (m16, m64, m128): (&'static [Step; 3], &'static [Step; 3], &'static [Step; 3]) =
        if bf { (&steps::D28_BF16, &steps::D28M64_BF16, &steps::D28M128_BF16) } else { (&steps::D28, &steps::D28M64, &steps::D28M128) };
    let sizes: Vec<&'static Step> = match s.m {
        m if m <= 16 => m16.iter().collect(),
        m if m <= DECODE_MAX_M => m64.iter().collect(),
        m if m <= 2 * DECODE_MAX_M => m64.iter().chain(m128.iter()).collect(),
        _ => m128.iter().collect(),
    };
    // Against a split through global memory (d2, d25; d7 and d11 where they split), the model's comparison alone. Against d15 and
    // d27 (16- and 32-row tiles, the smallest fixed costs), and for d28/d28m64 against any whole-K tile,
    // CLUSTER_SPLIT_WHOLE_K_MARGIN: there the model's d28 gains held least (session 80 at K ≤ 2048; session 81:
    // d28m64x2 in d27's place at 24–48 rows predicted 1.06–1.08×, measured 0.88–0.94×). d28m128 against
    // d16, d9, d4, a transposed tile or h8, and d28m64 against d27: CLUSTER_SPLIT_MARGIN. (Session 98: with
    // both d28m64's epilogue of session 97 and d27's of session 98 in the model, d28m64x2 measured 0.99–1.15×
    // d27 at 14 shapes of 21–128 rows where the model predicted it 1.04–1.10× faster: 10% sent 13 of them to
    // d27.)
    let light: [&Step; 2] = [whole[0], whole[4]];
    let margin_for = |st: &Step| {
        if splits_through_memory {
            0.0
        } else if (!is(&light) && m128.iter().any(|d| d.kernel.name == st.kernel.name))
            || (c.step.kernel.name == whole[4].kernel.name && m64.iter().any(|d| d.kernel.name == st.kernel.name))
        {
            CLUSTER_SPLIT_MARGIN
        } else {
            CLUSTER_SPLIT_WHOLE_K_MARGIN
        }
    };
    let Some(now) = model.predict(c.step, s, false, sms, bpsm, h8_resident) else { return c };
    // The fastest d28 predicted, among those that beat the pick by their margin.
    let mut best: Option<(f64, Config)> = None;
    for st in sizes {
        if st.rejects(s.m, s.n, s.k).is_some() || !model.calibrated_for(st, s, false, sms, bpsm, h8_resident) {
            continue;
        }
        if let Some(t) = model.predict(st, s, false, sms, bpsm, h8_resident)
            && t < (1.0 - margin_for(st)) * now
            && best.as_ref().is_none_or(|(bt, _)| t < *bt)
        {
            best = Some((t, Config { step: st, padded: false }));
        }
    }
    best.map_or(c, |(_, pick)| pick)
}

/// A step by its label (`h6`, `v10`, `v1`, `d2-bf16`, …: the f32-accumulating HGEMM steps).
pub fn step_by_label(label: &str) -> Result<&'static Step> {
    let f32_steps = || steps::STEPS.iter().filter(|s| s.acc == Accumulate::F32);
    f32_steps().find(|s| s.kernel.step == label).ok_or_else(|| Error::InvalidInput(format!(
        "step `{label}`: not an f32-accumulating hgemm step (choose one of {})", f32_steps().map(|s| s.kernel.step).collect::<Vec<_>>().join(", "))))
}

/// The staging buffers of a padded plan: A (`M × K₈`), B (`K₈ × N₈`), C (`M × N₈`).
struct Pad {
    shape: Shape,
    a: CudaSlice<u16>,
    b: CudaSlice<u16>,
    c: CudaSlice<u16>,
}

/// One shape's f16 or bf16 GEMM on buffers of 16-bit elements (`u16` bits), ready to run many times:
/// the configuration, its kernel, its [`Workspace`], and (padded) its staging buffers, allocated once.
/// [`GemmPlan`] is the typed form users hold; this one serves harnesses that keep 16-bit data as bits.
pub struct HalfPlan {
    gpu: Gpu,
    shape: Shape,
    config: Config,
    kernel: Kernel,
    pad: Option<Pad>,
    ws: Workspace,
    b_ready: launch::BReady,
}

impl HalfPlan {
    /// Chooses (or takes `step`, refused with the reason if this GPU or shape cannot run it) the
    /// configuration for `s`, loads its kernel, and allocates the staging buffers a padded plan needs
    /// (checked against free memory first).
    pub fn new(gpu: &Gpu, s: Shape, step: Option<&'static Step>, elem: Elem) -> Result<Self> {
        let hopper = gpu.cannot_run(&steps::H6.kernel).is_none();
        if elem == Elem::F32 {
            return Err(Error::InvalidInput("this plan takes f16 or bf16 matrices (f32: `sgemm::SgemmPlan`, or `GemmPlan::<f32>`)".into()));
        }
        if let Some(st) = step
            && let Some(why) = gpu.cannot_run(&st.kernel)
        {
            return Err(Error::Unsupported { kernel: st.kernel.name.into(), needs: format!("step {}", st.kernel.step), have: why });
        }
        let resident = if hopper && step.is_none() { h8_resident(gpu)? } else { [0; 7] };
        let config = match step {
            Some(_) => choose(s, hopper, gpu.info.sms, resident, step, elem)?,
            None => match Choice::from_env() {
                Choice::Rule => refine_decode(choose(s, hopper, gpu.info.sms, resident, None, elem)?, &calibrate::model_for(gpu), s, hopper, gpu.info.sms, resident, elem),
                Choice::CostModel => choose_by(&calibrate::model_for(gpu), s, hopper, gpu.info.sms, resident, elem)?,
                Choice::RuleUnlessModel => entry_choice(&calibrate::model_for(gpu), s, hopper, gpu.info.sms, resident, elem)?,
            },
        };
        let kernel = gpu.kernel(config.step.kernel.name)?;
        let pad = if config.padded {
            let p = Shape::new(s.m, up8(s.n), up8(s.k))?;
            crate::runtime::budget::check(gpu, &format!("gemm {s} padded to {p}"), 2 * (p.m * p.k + p.k * p.n + p.m * p.n) as u64, 0)?;
            // Zeroed once: the pad columns of A and rows of B stay zero, as the copies never touch them.
            Some(Pad { shape: p, a: gpu.zeros(p.m * p.k)?, b: gpu.zeros(p.k * p.n)?, c: gpu.zeros(p.m * p.n)? })
        } else {
            None
        };
        Ok(HalfPlan { gpu: gpu.clone(), shape: s, config, kernel, pad, ws: Workspace::new(), b_ready: launch::BReady::default() })
    }

    /// The configuration this plan runs.
    pub fn config(&self) -> Config {
        self.config
    }

    /// The shape this plan computes.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Enqueues `c = a · b` (row-major, dense; lengths checked against the plan's shape).
    pub fn run(&mut self, a: &CudaSlice<u16>, b: &CudaSlice<u16>, c: &mut CudaSlice<u16>) -> Result<()> {
        let (a, b, c) = (Operand::of(&self.gpu, a), Operand::of(&self.gpu, b), Operand::of(&self.gpu, c));
        self.run_at(a, b, c)
    }

    /// When the kernel may start reading B ([`launch::BReady`]; default: after the previous kernel).
    pub fn set_b_ready(&mut self, b_ready: launch::BReady) {
        self.b_ready = b_ready;
    }

    /// What [`HalfPlan::set_b_ready`] set.
    pub fn b_ready(&self) -> launch::BReady {
        self.b_ready
    }

    /// [`HalfPlan::run`] on operands given by address (dense row-major, 16-byte aligned: checked).
    pub fn run_at(&mut self, a: Operand, b: Operand, c: Operand) -> Result<()> {
        self.run_at_ready(a, b, c, self.b_ready)
    }

    /// [`HalfPlan::run_at`] with B ready as `b_ready` says for this launch (a caller that copied B just
    /// before passes `AfterPrevious`). A padded plan copies B into its own buffer first, so it never
    /// reads B early.
    pub fn run_at_ready(&mut self, a: Operand, b: Operand, c: Operand, b_ready: launch::BReady) -> Result<()> {
        let s = self.shape;
        s.check_buffers("16-bit elements", a.len, b.len, c.len)?;
        let gpu = &self.gpu;
        match &mut self.pad {
            None => self.ws.launch_ready(gpu, &self.kernel, self.config.step, s, a, b, c, b_ready),
            Some(p) => {
                let (pa, pb, pc) = (Operand::of(gpu, &p.a), Operand::of(gpu, &p.b), Operand::of(gpu, &p.c));
                copy_rows(gpu, a, s.k, pa, p.shape.k, s.m, s.k, 2)?;
                copy_rows(gpu, b, s.n, pb, p.shape.n, s.k, s.n, 2)?;
                self.ws.launch(gpu, &self.kernel, self.config.step, p.shape, pa, pb, pc)?;
                copy_rows(gpu, pc, p.shape.n, c, s.n, s.m, s.n, 2)
            }
        }
    }
}

/// Copies the top-left `rows × cols` block of `src` (rows of `src_pitch` elements of `elem_bytes`)
/// into `dst` (rows of `dst_pitch`) with one `cuMemcpy2DAsync` on `gpu`'s stream. Bounds are checked.
#[allow(clippy::too_many_arguments)]
pub(crate) fn copy_rows(gpu: &Gpu, src: Operand, src_pitch: usize, dst: Operand, dst_pitch: usize, rows: usize, cols: usize, elem_bytes: usize) -> Result<()> {
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    if cols > src_pitch || cols > dst_pitch || (rows - 1) * src_pitch + cols > src.len || (rows - 1) * dst_pitch + cols > dst.len {
        return Err(Error::InvalidInput(format!("strided copy of {rows}x{cols} out of bounds ({} / {} elements, rows of {src_pitch} / {dst_pitch})", src.len, dst.len)));
    }
    let e = elem_bytes;
    let copy = cudarc::driver::sys::CUDA_MEMCPY2D {
        srcXInBytes: 0, srcY: 0, srcMemoryType: cudarc::driver::sys::CUmemorytype::CU_MEMORYTYPE_DEVICE, srcHost: std::ptr::null(), srcDevice: src.ptr,
        srcArray: std::ptr::null_mut(), srcPitch: src_pitch * e,
        dstXInBytes: 0, dstY: 0, dstMemoryType: cudarc::driver::sys::CUmemorytype::CU_MEMORYTYPE_DEVICE, dstHost: std::ptr::null_mut(), dstDevice: dst.ptr,
        dstArray: std::ptr::null_mut(), dstPitch: dst_pitch * e,
        WidthInBytes: cols * e, Height: rows,
    };
    // SAFETY: both operands address live device memory of at least `len` elements (their owners'
    // contract, kept alive by the caller across the call); the copy reads (rows-1)·src_pitch + cols
    // and writes (rows-1)·dst_pitch + cols elements at most, within their lengths (checked above);
    // pitches are at least the width; enqueued on the plan's stream like every other operation.
    unsafe { cudarc::driver::sys::cuMemcpy2DAsync_v2(&copy, gpu.stream.cu_stream()) }.result()
        .during(|| format!("strided device copy of {rows}x{cols} elements of {e} bytes (rows of {src_pitch} -> {dst_pitch})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_chooses_where_the_rules_fall_to_d2m64_on_hopper() {
        const R: [u32; 7] = [66, 39, 30, 22, 17, 15, 15];
        let h200 = cost::CostModel::shipped("NVIDIA H200", 132);
        for (m, n, k) in [(32, 3072, 1536), (64, 11008, 4096), (57, 2304, 3584), (64, 2048, 1024), (64, 3072, 8192), (32, 128256, 4096)] {
            let s = shape(m, n, k);
            for elem in [Elem::F16, Elem::Bf16] {
                let c = choose(s, true, 132, R, None, elem).unwrap();
                assert!(c.step.kernel.step.starts_with("d2m64"), "{s}: the rule's region");
                let r = refine_decode(c, &h200, s, true, 132, R, elem);
                // The model's pick among the non-cluster candidates, or a d28 the model predicts faster
                // still (by `refine_cluster_split`'s margins where the pick is a whole-K tile).
                let picked = choose_by_among(&h200, s, true, 132, R, elem, false).unwrap();
                let t = |c: Config| h200.predict(c.step, s, false, 132, crate::runtime::tuning::decode_blocks_per_sm(), R).unwrap();
                assert!(r == picked || (is_cluster_split(r.step) && t(r) < t(picked)), "{s}: {} against the model's {}", r.label(), picked.label());
                assert_eq!(r.step.elem, elem);
                // Off Hopper the rule stands.
                let off = choose(s, false, 132, R, None, elem).unwrap();
                assert_eq!(refine_decode(off, &h200, s, false, 132, R, elem), off, "{s}");
            }
        }
        // Where d4's tiles fit (d16) or M ≤ 16, not this refinement: the rules' d16 (at most the tile-height
        // refinement's d27, below).
        let s = shape(32, 4608, 3072);
        assert_eq!(choose(s, true, 132, R, None, Elem::F16).unwrap().label(), "d16");
        assert!(["d16", "d27"].contains(&refine_decode(choose(s, true, 132, R, None, Elem::F16).unwrap(), &h200, s, true, 132, R, Elem::F16).label().as_str()));
    }

    /// The rules' d9/d16 become d27 (32-row tiles) only where the model predicts d27 faster: where the
    /// 64-row tiles leave SMs idle and the 32-row ones fit one wave. Session 76 (H200, 3 processes):
    /// 128×2048×2048 d27 1.12× the best of d9/d16/d25, 128×3072×4096 (192 tiles of 32 rows, two rounds)
    /// 0.64×, 256×1536×2048 0.71×.
    #[test]
    fn d9_and_d16_give_way_to_32_row_tiles_where_the_model_predicts_it() {
        const R: [u32; 7] = [66, 39, 30, 22, 17, 15, 15];
        let h200 = cost::CostModel::shipped("NVIDIA H200", 132);
        // The tile-height refinement alone (the cluster split after it is tested on its own).
        let refined = |m, n, k, elem| {
            let s = shape(m, n, k);
            refine_tile_height(refine_rule_step(choose(s, true, 132, R, None, elem).unwrap(), &h200, s, true, 132, R, elem), &h200, s, true, 132, R, elem).label()
        };
        assert_eq!(choose(shape(128, 2048, 2048), true, 132, R, None, Elem::F16).unwrap().label(), "d9");
        assert_eq!(refined(128, 2048, 2048, Elem::F16), "d27");
        assert_eq!(refined(128, 2048, 2048, Elem::Bf16), "d27-bf16");
        for (m, n, k) in [(128, 3072, 4096), (256, 1536, 2048)] {
            assert_eq!(refined(m, n, k, Elem::F16), "d9", "{m}x{n}x{k}");
        }
        // Off Hopper, and for any other pick, nothing changes.
        let off = choose(shape(128, 2048, 2048), false, 132, R, None, Elem::F16).unwrap();
        assert_eq!(refine_decode(off, &h200, shape(128, 2048, 2048), false, 132, R, Elem::F16), off);
        // Every refinement to d27 is the model's own comparison of the two heights.
        let bpsm = crate::runtime::tuning::decode_blocks_per_sm();
        for (m, n, k) in [(32, 4096, 4096), (64, 3072, 1024), (64, 4096, 4096), (128, 1536, 1024), (48, 11008, 4096)] {
            let s = shape(m, n, k);
            let rule = choose(s, true, 132, R, None, Elem::F16).unwrap();
            let got = refine_tile_height(rule, &h200, s, true, 132, R, Elem::F16);
            if got.label() == "d27" {
                assert!(h200.predict(&steps::D27, s, false, 132, bpsm, R).unwrap() < h200.predict(rule.step, s, false, 132, bpsm, R).unwrap(), "{s}");
            }
        }
    }

    #[test]
    fn the_entry_point_takes_the_models_pick_only_where_it_predicts_a_large_gain() {
        const R: [u32; 7] = [66, 39, 30, 22, 17, 15, 15];
        let bpsm = crate::runtime::tuning::decode_blocks_per_sm();
        let mut overruled = 0;
        for model in [cost::CostModel::shipped("NVIDIA H200", 132), cost::CostModel::shipped("NVIDIA H100 80GB HBM3", 132)] {
            for m in [1, 3, 8, 16, 17, 32, 57, 64, 100, 128, 256, 333, 512, 1000, 2048, 8192] {
                for (n, k) in [(1536, 1024), (4096, 4096), (4096, 14336), (22016, 4096), (3072, 4096), (768, 384), (30522, 1024), (1000, 999)] {
                    let s = shape(m, n, k);
                    for elem in [Elem::F16, Elem::Bf16] {
                        let base = refine_rule_step(choose(s, true, 132, R, None, elem).unwrap(), &model, s, true, 132, R, elem);
                        let rule = refine_tile_height(base, &model, s, true, 132, R, elem);
                        let by = choose_by_among(&model, s, true, 132, R, elem, false).unwrap();
                        let e = entry_choice(&model, s, true, 132, R, elem).unwrap();
                        assert_eq!(e.step.elem, elem);
                        assert_eq!(choose(s, true, 132, R, Some(e.step), elem).unwrap(), e, "{s}");
                        let p = |c: Config| model.predict(c.step, s, c.padded, 132, bpsm, R).unwrap();
                        // Before the cluster step: the rules' pick or the model's (without d28), this one
                        // only where predicted the margin faster than the rules' unrefined pick.
                        let pre = if ragged(s) || e == rule || (!is_cluster_split(e.step) && e != by) { rule } else if e == by { by } else {
                            // A cluster split: of the rules' pick or of the model's.
                            if refine_cluster_split(rule, &model, s, true, 132, R, elem) == e { rule } else { by }
                        };
                        assert!(pre == rule || pre == by, "{s}: {} is neither {} nor {}", pre.label(), rule.label(), by.label());
                        assert_eq!(refine_cluster_split(pre, &model, s, true, 132, R, elem), e, "{s}");
                        if pre != rule {
                            overruled += 1;
                            assert!(p(pre) < (1.0 - MODEL_OVERRIDE_MARGIN) * p(base), "{s}: {} overruled {} by less than the margin", pre.label(), base.label());
                            assert!(p(pre) <= p(rule), "{s}: {} predicted slower than the refined rule {}", pre.label(), rule.label());
                        }
                        if e != pre {
                            assert!(is_cluster_split(e.step) && p(e) < p(pre), "{s}: {} replaced {} without a predicted gain", e.label(), pre.label());
                        }
                        // Off Hopper, the rules as they are.
                        assert_eq!(entry_choice(&model, s, false, 132, R, elem).unwrap(), choose(s, false, 132, R, None, elem).unwrap(), "{s}");
                    }
                }
            }
        }
        // The model does overrule somewhere (a margin that never fires would leave this test empty).
        assert!(overruled > 0);
        // A few launches of a cluster-split Hopper step at 128×1536×1024 cost more than whole-K tiles: d16's,
        // at 32 rows (d27, session 76: 1.08–1.19× the previous pick at 128×1024×1024 and 128×1536×2048).
        let h200 = cost::CostModel::shipped("NVIDIA H200", 132);
        // (Since session 80 the cluster refinement may take d27's place there with d16's CTA split over a
        // cluster, d28m64, where the model predicts it faster: still no h8.)
        let e = entry_choice(&h200, shape(128, 1536, 1024), true, 132, R, Elem::F16).unwrap().label();
        assert!(e == "d27" || e.starts_with("d28m64"), "{e}");
        // d25 (the model's alone): where few 64×64 tiles and deep K leave d16's SMs idle (session 69:
        // 64×2048×8192 25.9 → 13.0 µs), not at shallow K, where the partials' round trip costs more
        // (32×1536×1024: d25 0.88× d16), nor where the tiles fill the SMs (one split: d16's own work).
        // (Since session 80 the split may be d16's CTA in a cluster instead, d28m64, where the model
        // predicts it faster than d25: session 80 measured d28m64x2 1.07–1.14× d25 at 64 × 2560–4096 ×
        // 3072–14336.)
        let k_split = |l: String| l == "d25-bf16" || l.starts_with("d28m64");
        for (m, n, k) in [(64, 2048, 8192), (57, 2304, 3584)] {
            let l = entry_choice(&h200, shape(m, n, k), true, 132, R, Elem::Bf16).unwrap().label();
            assert!(k_split(l.clone()), "{m}x{n}x{k}: {l}");
        }
        // At 32 rows too, though the rules' d16 refines to d27 there: the override is weighed against d16
        // (session 76: d27 0.94× d25 at 32×4096×11008, 0.95× at 32×3584×7168, measured).
        let l = entry_choice(&h200, shape(32, 4096, 14336), true, 132, R, Elem::Bf16).unwrap().label();
        assert!(k_split(l.clone()), "{l}");
        for (m, n, k) in [(32, 1536, 1024), (64, 3072, 1024), (64, 64 * 132, 4096)] {
            assert_ne!(entry_choice(&h200, shape(m, n, k), true, 132, R, Elem::F16).unwrap().label(), "d25", "{m}x{n}x{k}");
        }
    }

    #[test]
    fn d15_gives_way_to_d2_where_its_tiles_cannot_stream_the_weights() {
        const R: [u32; 7] = [66, 39, 30, 22, 17, 15, 15];
        let (h200, h100) = (cost::CostModel::shipped("NVIDIA H200", 132), cost::CostModel::shipped("NVIDIA H100 80GB HBM3", 132));
        let pick = |model: &cost::CostModel, m, n, k, elem| {
            let s = shape(m, n, k);
            // This refinement alone (the cluster split, `refine_cluster_split`, is tested on its own).
            refine_rule_step(choose(s, true, 132, R, None, elem).unwrap(), model, s, true, 132, R, elem).step.kernel.step
        };
        // 64 tiles of a deep K: the 64 SMs' rate is under the DRAM's, d2 splits K over all of them.
        assert_eq!(pick(&h200, 1, 4096, 14336, Elem::Bf16), "d2-bf16");
        assert_eq!(pick(&h200, 1, 4096, 14336, Elem::F16), "d2");
        // 96 tiles stream at the DRAM's rate: d15 keeps its lower fixed cost.
        assert_eq!(pick(&h200, 1, 6144, 4096, Elem::Bf16), "d15-bf16");
        // Not a d15 shape: untouched (more tiles than SMs; 17 rows).
        assert_eq!(pick(&h200, 1, 28672, 4096, Elem::Bf16), "d2-bf16");
        // (the rules' d16 there, refined by tile height to d27: not d15's refinement)
        assert_eq!(choose(shape(17, 6144, 4096), true, 132, R, None, Elem::Bf16).unwrap().step.kernel.step, "d16-bf16");
        assert_ne!(pick(&h200, 17, 6144, 4096, Elem::Bf16), "d2-bf16");
        // The choice follows the GPU's constants: every model's pick is the one it predicts faster.
        for model in [&h200, &h100] {
            for (n, k) in [(4096, 4096), (4096, 14336), (5120, 13824), (8192, 8192)] {
                let s = shape(1, n, k);
                let t = |st: &'static Step| model.predict(st, s, false, 132, 1, model.h8_resident).unwrap();
                let want = if t(&steps::D2) < t(&steps::D15) { "d2" } else { "d15" };
                assert_eq!(pick(model, 1, n, k, Elem::F16), want, "{s} on {}", model.source);
            }
        }
    }

    /// The rules' decode picks become d28 (d15's or d16's CTA with K split over a cluster, the partials
    /// summed through DSMEM) only where the H200 model predicts it faster. Session 80 (every candidate
    /// timed on 20 decode shapes): d28x2 8.3 µs at 1×3072×2048 against d2's 9.6, d28m64x2 11.0 at
    /// 64×3072×3072 against d25's 12.2; at 1×6144×4096 (96 tiles: a split's clusters do not all fit at
    /// once) d15 15.7 against d28x2's 19.7.
    #[test]
    fn decode_picks_give_way_to_cluster_splits_where_the_model_predicts_it() {
        const R: [u32; 7] = [66, 39, 30, 22, 17, 15, 15];
        let (h200, h100) = (cost::CostModel::shipped("NVIDIA H200", 132), cost::CostModel::shipped("NVIDIA H100 80GB HBM3", 132));
        let entry = |model: &cost::CostModel, m, n, k, elem| entry_choice(model, shape(m, n, k), true, 132, R, elem).unwrap().label();
        assert_eq!(entry(&h200, 1, 3072, 2048, Elem::Bf16), "d28x2-bf16");
        assert_eq!(entry(&h200, 8, 3072, 2048, Elem::F16), "d28x2");
        assert_eq!(entry(&h200, 64, 3072, 3072, Elem::Bf16), "d28m64x2-bf16");
        assert_eq!(entry(&h200, 1, 6144, 4096, Elem::Bf16), "d15-bf16");
        // Never past CLUSTER_SPLIT_MAX_M rows, never padded, never off Hopper.
        for (m, n, k) in [(257, 1024, 4096), (300, 1536, 1024), (8, 3072, 2050)] {
            assert!(!entry(&h200, m, n, k, Elem::F16).starts_with("d28"), "{m}x{n}x{k}");
        }
        let off = choose(shape(1, 3072, 2048), false, 132, R, None, Elem::F16).unwrap();
        assert_eq!(refine_cluster_split(off, &h200, shape(1, 3072, 2048), false, 132, R, Elem::F16), off);
        // Every refinement to d28 is the model's own comparison: its prediction below the pick's, on
        // either GPU's model, with the 16-row tiles up to 16 rows, the 64-row ones up to 64, and the 64- or
        // 128-row ones above (128 rows alone above 128).
        let bpsm = crate::runtime::tuning::decode_blocks_per_sm();
        let mut refined = 0;
        for model in [&h200, &h100] {
            for m in [1, 4, 16, 17, 32, 64, 100, 128, 192, 256] {
                for (n, k) in [(1024, 1024), (2048, 8192), (3072, 3072), (4096, 4096), (4096, 14336), (14336, 4096)] {
                    let s = shape(m, n, k);
                    let before = refine_tile_height(refine_rule_step(choose(s, true, 132, R, None, Elem::F16).unwrap(), model, s, true, 132, R, Elem::F16), model, s, true,
                                                    132, R, Elem::F16);
                    let after = refine_cluster_split(before, model, s, true, 132, R, Elem::F16);
                    if after != before {
                        refined += 1;
                        let heights: &[&str] = match m {
                            m if m <= 16 => &["d28x"],
                            m if m <= DECODE_MAX_M => &["d28m64x"],
                            m if m <= 2 * DECODE_MAX_M => &["d28m64x", "d28m128x"],
                            _ => &["d28m128x"],
                        };
                        assert!(heights.iter().any(|h| after.step.kernel.step.starts_with(h)), "{s}: {}", after.label());
                        let t = |c: Config| model.predict(c.step, s, false, 132, bpsm, R).unwrap();
                        assert!(t(after) < t(before), "{s}: {} not predicted faster than {}", after.label(), before.label());
                        // d2 and d25 (and d7, d11 where they split K) give way by any gain; a 64-row
                        // whole-K tile, a transposed one, d7, d11 or h8 to d28m128, and d27 to d28m64, by
                        // CLUSTER_SPLIT_MARGIN; anything else by CLUSTER_SPLIT_WHOLE_K_MARGIN.
                        let (b, a) = (before.step.kernel.step, after.step.kernel.step);
                        let splits = cost::schedule(before.step, s, 132, bpsm, R).map_or(1, |x| x.splits);
                        if !(["d2", "d25"].contains(&b) || (["d7", "d11"].contains(&b) && splits > 1)) {
                            let light = ["d15", "d27"].contains(&b);
                            let margin = if (!light && a.starts_with("d28m128")) || (b == "d27" && a.starts_with("d28m64")) {
                                CLUSTER_SPLIT_MARGIN
                            } else {
                                CLUSTER_SPLIT_WHOLE_K_MARGIN
                            };
                            assert!(t(after) < (1.0 - margin) * t(before), "{s}: {} replaced {} by less than the margin", after.label(), before.label());
                        }
                    }
                }
            }
        }
        assert!(refined > 0);
    }

    #[test]
    fn the_rule_returns_only_rule_steps() {
        let dims = [1usize, 7, 16, 17, 64, 65, 128, 256, 384, 512, 576, 1000, 1024, 2048, 4095, 4096, 8192, 14336, 28672];
        let mut seen = std::collections::BTreeSet::new();
        for &m in &dims {
            for &n in &dims {
                for &k in &[64usize, 1000, 4096, 14336] {
                    let s = Shape::new(m, n, k).unwrap();
                    for hopper in [true, false] {
                        for sms in [114, 132] {
                            for elem in [Elem::F16, Elem::Bf16] {
                                for resident in [[0; 7], [66, 33, 22, 16, 13, 11, 9]] {
                                    let st = default_step(s, hopper, sms, elem, resident);
                                    assert!(RULE_STEPS.iter().any(|r| r.for_elem(elem).is_some_and(|x| x.kernel.name == st.kernel.name)),
                                            "{s} hopper {hopper} {elem:?}: {} is not in RULE_STEPS", st.kernel.step);
                                    seen.insert(st.kernel.name);
                                }
                            }
                        }
                    }
                }
            }
        }
        // And the list holds nothing the rule never returns (h8's cluster sizes 2..8 all count as one).
        for r in RULE_STEPS {
            let h8 = matches!(r.f16.grid, crate::steps::gemm::Grid::ClusterSplitK { .. });
            assert!(h8 || r.model_only || seen.contains(r.f16.kernel.name), "{} is in RULE_STEPS but the rule never returns it", r.f16.kernel.step);
            assert!(!(r.model_only && seen.contains(r.f16.kernel.name)), "{} is marked model_only but the rule returns it", r.f16.kernel.step);
        }
    }

    /// The CPU tests' GPU: an H100's resident clusters.
    const R: [u32; 7] = layout::hopper::tma_hgemm::H100_H8_RESIDENT;

    fn shape(m: usize, n: usize, k: usize) -> Shape {
        Shape::new(m, n, k).unwrap()
    }

    #[test]
    fn the_choice_follows_the_gpu_and_pads_only_unaligned_k_or_n() {
        let c = choose(shape(4096, 4096, 4096), true, 132, R, None, Elem::F16).unwrap();
        assert_eq!((c.step.kernel.step, c.padded), ("h6s4", false));
        assert_eq!(choose(shape(4096, 4096, 4096), false, 132, R, None, Elem::F16).unwrap().label(), "v10");
        // Small M: the decode steps; on Hopper d4 where its 64x64 tiles fill 40-100% of the SMs.
        // (d9, d4 with PDL, where the 64 tiles leave an eighth of the SMs free; d15 there for M <= 16.)
        for (m, want, hopper_want) in [(1, "d2", "d15"), (16, "d2", "d15"), (17, "d2m64", "d16"), (DECODE_MAX_M, "d2m64", "d16")] {
            assert_eq!(choose(shape(m, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), hopper_want);
            assert_eq!(choose(shape(m, 4096, 4096), false, 132, R, None, Elem::F16).unwrap().label(), want);
        }
        assert_eq!(choose(shape(64, 4096, 14336), true, 132, R, None, Elem::F16).unwrap().label(), "d16", "64 tiles");
        assert_eq!(choose(shape(64, 14336, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d2m64", "224 tiles: two waves");
        assert_eq!(choose(shape(64, 4096, 4096), true, 132, R, None, Elem::Bf16).unwrap().label(), "d16-bf16");
        assert_eq!(choose(shape(16, 2048, 8192), true, 132, R, None, Elem::F16).unwrap().label(), "d2", "32 d4 tiles: too few");
        assert_eq!(choose(shape(16, 14336, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d2", "224 d4 tiles: two waves");
        assert_eq!(choose(shape(1, 4096, 14336), true, 132, R, None, Elem::Bf16).unwrap().label(), "d15-bf16");
        // d15 wherever d4's tiles fit at M <= 16, with or without room for PDL's overlap (120 tiles).
        assert_eq!(choose(shape(16, 64 * 120, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d15", "120 tiles");
        assert_eq!(choose(shape(17, 64 * 120, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d4", "120 tiles, M > 16");
        // Above it: d7 where h6 fills under half the SMs and d7 needs no split; h8 where d7 would split.
        assert_eq!(choose(shape(DECODE_MAX_M + 1, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d4", "128 d4 tiles");
        assert_eq!(choose(shape(128, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d4", "128 d4 tiles");
        assert_eq!(choose(shape(128, 8192, 8192), true, 132, R, None, Elem::F16).unwrap().label(), "d7", "256 d4 tiles, 128 d7 tiles");
        assert_eq!(choose(shape(192, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d7", "192 d4 tiles");
        assert_eq!(choose(shape(130, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d7", "3 d7 tile rows: 96 tiles");
        assert_eq!(choose(shape(128, 2048, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d9", "64 d4 tiles");
        // The PDL boundary: 115 tiles (8 · 115 ≤ 7 · 132) take d16 (d9 above M = 64), 116 d4.
        assert_eq!(choose(shape(64, 64 * 115, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d16");
        assert_eq!(choose(shape(64, 64 * 116, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d4");
        assert_eq!(choose(shape(256, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d7", "128 d7 tiles");
        assert_eq!(choose(shape(256, 4096, 14336), true, 132, R, None, Elem::F16).unwrap().label(), "d7");
        assert_eq!(choose(shape(512, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d22r128", "256 d7 tiles, 128 d19 tiles: 4 tile rows, paired in clusters");
        assert_eq!(choose(shape(384, 4096, 4096), true, 132, R, None, Elem::Bf16).unwrap().label(), "d22r96-bf16", "96 d19 tiles, 128 of 96 rows: 4 tile rows, paired in clusters");
        assert_eq!(choose(shape(384, 4096, 11008), true, 132, R, None, Elem::F16).unwrap().label(), "d22r96");
        assert_eq!(choose(shape(288, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d21r80", "80 rows: no clusters");
        assert_eq!(choose(shape(257, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d21r80", "3 d19 tile rows, 4 of 80 rows, the last ragged");
        assert_eq!(choose(shape(448, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d22r128", "128 d19 tiles: one round, 4 tile rows paired");
        assert_eq!(choose(shape(512, 4000, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d11", "B's rows off 128 bytes");
        assert!(!d19_fits(shape(256, 4096, 4096), 132) && !d19_fits(shape(64, 8192, 4096), 132) && !d19_fits(shape(128, 4096, 128), 132));
        for (m, n, k) in [(384, 4096, 4096), (512, 4096, 64), (257, 4096, 11008), (128, 14336, 4096)] {
            assert!(d19_fits(shape(m, n, k), 132));
            assert_eq!(layout::hopper::tma_hgemm::persistent_splits(m as u32, n as u32, k as u32, 132, 128, 128), 1, "{m}x{n}x{k}: d19 never splits where it fits");
        }
        // d19 in h10's and h8's place up to M = 512; h6s4 keeps its shapes, h10 its shapes above 512 rows.
        assert_eq!(choose(shape(512, 11008, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "h11", "h10's shape: 3 rounds of d19 tiles, 2 of h11's");
        assert_eq!(choose(shape(384, 14336, 4096), true, 132, R, None, Elem::Bf16).unwrap().label(), "h11-bf16", "336 tiles of 128 rows (3 rounds) against 225 of 128x192 (2)");
        assert_eq!(transposed_rows(shape(384, 14336, 4096), 132), Some(128), "3 rounds of 128 rows (576 at 9/10) against 3 of 160 (672) or 144 (624)");
        assert_eq!(choose(shape(512, 28672, 8192), true, 132, R, None, Elem::F16).unwrap().label(), "d22r128", "h11 at 96% of d19's cost: inside the margin; 4 tile rows of 128, paired");
        assert_eq!(choose(shape(512, 4096, 11008), true, 132, R, None, Elem::F16).unwrap().label(), "d22r128", "one round of d19's tiles (paired)");
        assert_eq!(choose(shape(512, 14336, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "h6s4");
        assert_eq!(choose(shape(768, 28672, 8192), true, 132, R, None, Elem::F16).unwrap().label(), "h10", "768 rows");
        // Above 512 rows the transposed tiles in h6s4's, h10's and h8's place where their rounds cost ≤ 92%.
        assert_eq!(choose(shape(1024, 14336, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d22r128", "7 rounds of 128 rows (1210) against h6s4's 4 (1320)");
        assert_eq!(choose(shape(1024, 14336, 4096), true, 132, R, None, Elem::Bf16).unwrap().label(), "d22r128-bf16");
        assert_eq!(choose(shape(896, 11008, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d19", "h10's shape: 5 rounds of 128 rows (864) against 4 of 160 (896) and h6s4's 3 (990); h12 only after the transposed tiles");
        assert_eq!(choose(shape(896, 11000, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "h12", "B's rows off 128 bytes: no transposed tile; 2 rounds of 128x320 against h6s4's 3");
        assert_eq!(choose(shape(1024, 5120, 5120), true, 132, R, None, Elem::Bf16).unwrap().label(), "h12-bf16", "one round of 128x320 against two of 128x256 and 128x192");
        assert!(!h12_fills(shape(4096, 4096, 4096), 132) && !h12_fills(shape(768, 4096, 4096), 132) && !h12_fills(shape(128, 5120, 16384), 132), "full waves; h11's shape; too few tiles");
        assert_eq!(transposed_over_h6(shape(1280, 8192, 8192), 132, Elem::F16).map(|st| st.kernel.step), Some("d22r128"), "h8x2's shape");
        assert_eq!(transposed_over_h6(shape(1024, 8192, 28672), 132, Elem::F16), None, "4 rounds of 128 rows (691) against 2 of h6s4 (660): 0.91× measured");
        assert_eq!(transposed_over_h6(shape(512, 14336, 4096), 132, Elem::F16), None, "512 rows: d19_prefill's region");
        assert_eq!(transposed_over_h6(shape(1024, 14000, 4096), 132, Elem::F16), None, "B's rows off 128 bytes");
        for s in [shape(4096, 4096, 4096), shape(8192, 8192, 8192), shape(2048, 14336, 4096), shape(2048, 8192, 8192), shape(4096, 4096, 11008)] {
            assert_eq!(transposed_over_h6(s, 132, Elem::F16), None, "{s}: h6s4's full waves");
        }
        // h11 where 128×192 tiles fill the waves 128×256 ones leave partly empty.
        assert_eq!(choose(shape(768, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "h11", "96 tiles of 128x256, 132 of 128x192");
        assert_eq!(choose(shape(640, 4096, 4096), true, 132, R, None, Elem::Bf16).unwrap().label(), "d22r160-bf16", "110 tiles of 128x192, 128 of 160 rows");
        assert_eq!(choose(shape(1536, 4096, 14336), true, 132, R, None, Elem::F16).unwrap().label(), "h11", "before h8");
        assert_eq!(choose(shape(1280, 4096, 4096), true, 132, R, None, Elem::Bf16).unwrap().label(), "d22r160-bf16", "before h11 and h10: two rounds of 160 rows");
        assert_eq!(choose(shape(1152, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d22r144", "two rounds of 144 rows against h11's two of 192");
        assert_eq!(choose(shape(1536, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "h11", "two rounds of 128x192; 160 rows take three");
        assert_eq!(choose(shape(448, 11008, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d21r160", "two rounds of 160 rows (448) against h11's two (464) and d19's three; 3 tile rows: no clusters");
        assert_eq!(choose(shape(896, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "h6s4", "154 tiles of 128x192: two rounds");
        assert_eq!(choose(shape(3072, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "h6s4", "the model's tie");
        assert!(h11_fills(shape(640, 4096, 4096), 132) && !h11_fills(shape(8192, 8192, 8192), 132) && !h11_fills(shape(4096, 4096, 4096), 132));
        // Few tiles, deep K: h8, not h11 (6 tiles of 128x192 would leave 126 SMs idle).
        assert!(!h11_fills(shape(128, 1024, 16384), 132) && !h11_fills(shape(128, 512, 8192), 132));
        assert_eq!(choose(shape(128, 1024, 16384), true, 132, R, None, Elem::F16).unwrap().label(), "h8x8");
        assert_eq!(choose(shape(512, 11000, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "h11", "B's rows off 128 bytes: not d19; h11 fills");
        assert_eq!(choose(shape(128, 14336, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d19", "56 h6 tiles, 112 d19 tiles (1.01–1.02× d7, session 27 call 3)");
        assert_eq!(choose(shape(256, 11008, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "h11", "86 h6 tiles, 116 h11 tiles: one round each");
        assert_eq!(choose(shape(1000, 1000, 1000), true, 132, R, None, Elem::F16).unwrap().label(), "d11", "d7's tiles; B's rows off 128 bytes");
        assert_eq!(choose(shape(992, 992, 992), true, 132, R, None, Elem::F16).unwrap().label(), "d11", "1984-byte rows: off 128");
        assert_eq!(choose(shape(384, 3000, 1000), true, 132, R, None, Elem::F16).unwrap().label(), "d11");
        assert_eq!(choose(shape(1000, 1000, 1000), true, 132, R, None, Elem::Bf16).unwrap().label(), "d11-bf16");
        assert_eq!(choose(shape(1024, 1000, 1024), true, 132, R, None, Elem::F16).unwrap().label(), "d11", "B's rows off, A's aligned");
        assert_eq!(choose(shape(1024, 1024, 1000), true, 132, R, None, Elem::F16).unwrap().label(), "d7", "only A's rows off");
        assert_eq!(choose(shape(1000, 1024, 1024), true, 132, R, None, Elem::F16).unwrap().label(), "d7", "M ragged, rows aligned");
        assert_eq!(choose(shape(1024, 1024, 1024), true, 132, R, None, Elem::F16).unwrap().label(), "d7");
        assert!(weight_rows_off_128(shape(8, 1000, 1024)) && weight_rows_off_128(shape(8, 992, 64)) && !weight_rows_off_128(shape(8, 960, 1000)) && !weight_rows_off_128(shape(8, 1024, 1000)));
        assert_eq!(choose(shape(1024, 1024, 1024), true, 132, R, None, Elem::Bf16).unwrap().label(), "d7-bf16");
        assert_eq!(choose(shape(2048, 2048, 2048), true, 132, R, None, Elem::F16).unwrap().label(), "h6s4", "128 tiles");
        assert_eq!(choose(shape(2048, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "h6s4", "256 tiles: no split");
        // h10 where the last wave is at most a third full: 688 tiles = 5 waves + 28; not 8192³ (+68) or 4096³ (+116).
        assert_eq!(choose(shape(2048, 11008, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "h10", "5 waves + 28 tiles");
        assert_eq!(choose(shape(2048, 11008, 4096), true, 132, R, None, Elem::Bf16).unwrap().label(), "h10-bf16");
        assert_eq!(choose(shape(8192, 8192, 8192), true, 132, R, None, Elem::F16).unwrap().label(), "h6s4", "15 waves + 68 tiles");
        assert_eq!(choose(shape(4096, 4096, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "h6s4", "3 waves + 116 tiles");
        assert_eq!(choose(shape(256, 4096, 4096), false, 132, R, None, Elem::F16).unwrap().label(), "v10");
        // M is free; K or N off a multiple of 8 pads.
        assert!(!choose(shape(4097, 4096, 64), true, 132, R, None, Elem::F16).unwrap().padded);
        for (m, n, k) in [(100, 1, 1), (4000, 4095, 4096), (80, 8, 4095), (130, 17, 1), (65, 4096, 11), (1024, 14336, 1020), (1024, 14336, 2044), (896, 11008, 4095)] {
            let c = choose(shape(m, n, k), true, 132, R, None, Elem::F16).unwrap();
            assert!(c.padded, "{m}x{n}x{k}");
            // d7 where it fits; else few tiles and enough K: h8 splits K over a cluster; h10 otherwise.
            // The rule sees the shape as given (`choose` pads only what it runs).
            let orig = shape(m, n, k);
            let sp = layout::hopper::tma_hgemm::h8_splits(m as u32, n as u32, k as u32, 132, R);
            let want = if d15_fits(orig, 132) { "d15+pad".into() } else if d4_fits(orig, 132) { if pdl_overlaps(orig, 132) { if m <= DECODE_MAX_M { "d16+pad".into() } else { "d9+pad".into() } } else { "d4+pad".into() } } else if m <= 16 { "d2+pad".into() } else if d19_fits(orig, 132) && !weight_rows_off_128(orig) { format!("{}+pad", transposed_step(orig, 132, Elem::F16).kernel.step) } else if d7_fits(orig, 132) { if weight_rows_off_128(orig) { "d11+pad".into() } else { "d7+pad".into() } } else if (h10_streams(orig, 132) || sp > 1) && d19_prefill(orig, 132) { format!("{}+pad", prefill_step(orig, 132, Elem::F16).kernel.step) } else if h11_fills(orig, 132) { format!("{}+pad", d21_over_h11(orig, 132, Elem::F16).map_or("h11", |st| st.kernel.step)) } else if let Some(st) = transposed_over_h6(orig, 132, Elem::F16) { format!("{}+pad", st.kernel.step) } else if h10_streams(orig, 132) { "h10+pad".into() } else if sp > 1 { format!("h8x{sp}+pad") } else { "h6s4+pad".into() };
            assert_eq!(c.label(), want, "{m}x{n}x{k}");
        }
        assert_eq!(choose(shape(1, 1, 1), true, 132, R, None, Elem::F16).unwrap().label(), "d2+pad");
        // v1 takes every shape as it is: never padded.
        assert!(!choose(shape(13, 17, 1), true, 132, R, Some(&steps::V1), Elem::F16).unwrap().padded);
        assert_eq!(up8(1), 8);
        assert_eq!(up8(8), 8);
        assert_eq!(up8(4095), 4096);
    }

    /// The transposed heights' model: the cost is rounds × (rows loaded + 64), no height that would
    /// split K, ties to d19's 128 and then the shortest; d21's heights are the layout crate's and each
    /// has its step; d21 displaces h11 only where its cost is lower.
    #[test]
    fn transposed_heights_follow_the_rounds() {
        assert_eq!(layout::hopper::tma_hgemm::D21_ROWS.len(), steps::D21.len());
        for (i, &rows) in layout::hopper::tma_hgemm::D21_ROWS.iter().enumerate() {
            assert!(TRANSPOSED_ROWS.contains(&rows));
            assert_eq!((steps::D21[i].grid.tile().0, steps::D21_BF16[i].grid.tile().0), (rows, rows));
            assert_eq!(d21_for(rows, Elem::F16).unwrap().kernel.name, steps::D21[i].kernel.name);
            assert_eq!(d21_for(rows, Elem::Bf16).unwrap().kernel.step, format!("d21r{rows}-bf16"));
            assert_eq!(steps::D21[i].kernel.dyn_smem_bytes, layout::hopper::tma_hgemm::d21_dyn_smem(rows));
        }
        assert!(d21_for(128, Elem::F16).is_none() && d21_for(96, Elem::F32).is_none());
        // 384×4096²: 4 tiles of 96 rows × 32 = 128 tiles, one round: 160 against d19's 192.
        assert_eq!(transposed_cost(shape(384, 4096, 4096), 132, 96), Some(160));
        assert_eq!(transposed_cost(shape(384, 4096, 4096), 132, 128), Some(192));
        assert_eq!(transposed_cost(shape(384, 4096, 4096), 132, 80), Some(2 * 144), "160 tiles: two rounds");
        assert_eq!(transposed_cost(shape(256, 4096, 4096), 132, 128), None, "64 tiles would split K");
        assert_eq!(transposed_rows(shape(288, 4096, 4096), 132), Some(80));
        assert_eq!(transposed_rows(shape(512, 4096, 4096), 132), Some(128), "d21r144 measured 0.89x d19 here");
        assert_eq!(transposed_rows(shape(80, 11008, 4096), 132), Some(128), "M below every height: a tie, d19 (r80 measured 0.98x)");
        assert_eq!(transposed_rows(shape(96, 14336, 4096), 132), Some(128), "M = 96: a tie with 96 rows, d19");
        assert_eq!(transposed_rows(shape(176, 8192, 8192), 132), Some(96));
        assert_eq!(transposed_rows(shape(64, 1024, 1024), 132), None);
        assert_eq!(transposed_step(shape(512, 4096, 4096), 132, Elem::Bf16).kernel.step, "d22r128-bf16", "4 tile rows of 128");
        assert_eq!(transposed_step(shape(384, 4096, 4096), 132, Elem::F16).kernel.step, "d22r96");
        assert_eq!(d21_or_d22(128, shape(300, 14336, 4096), Elem::F16, 132), None, "3 tile rows of 128: no pairs, d19");
        // h11: one round of 110 tiles (232) against 128 tiles of 160 rows (224); at 576 rows 128 tiles of 144 (208).
        assert_eq!(d21_over_h11(shape(640, 4096, 4096), 132, Elem::F16).map(|s| s.kernel.step), Some("d22r160"));
        assert_eq!(d21_over_h11(shape(576, 4096, 4096), 132, Elem::F16).map(|s| s.kernel.step), Some("d22r144"));
        assert_eq!(d21_or_d22(160, shape(480, 11008, 4096), Elem::F16, 132).map(|s| s.kernel.step), Some("d21r160"), "3 tile rows");
        assert_eq!(d21_or_d22(96, shape(289, 4096, 4096), Elem::Bf16, 132).map(|s| s.kernel.step), Some("d22r96-bf16"), "4 tile rows");
        assert_eq!(d21_or_d22(80, shape(320, 4096, 4096), Elem::F16, 132).map(|s| s.kernel.step), Some("d21r80"));
        assert_eq!(d21_or_d22(128, shape(512, 4096, 4096), Elem::F16, 132).map(|s| s.kernel.step), Some("d22r128"));
        assert_eq!(d21_or_d22(128, shape(512, 4096, 1024), Elem::F16, 132).map(|s| s.kernel.step), Some("d22r128"), "K 1024: clusters since session 96");
        assert_eq!(d21_or_d22(96, shape(384, 4096, 384), Elem::F16, 132).map(|s| s.kernel.step), Some("d21r96"), "K below 512: no clusters");
        assert_eq!(d21_or_d22(128, shape(512, 4096, 256), Elem::F16, 132), None, "K below 512: d19");
        // Outside the measured regime (N or K below 1024) d19 keeps its shapes.
        assert_eq!(choose(shape(384, 4096, 64), true, 132, R, None, Elem::F16).unwrap().label(), "d19", "one K tile");
        assert_eq!(choose(shape(4096, 384, 4096), true, 132, R, None, Elem::F16).unwrap().label(), "d19", "3 weight column tiles: N below 1024");
        assert_eq!(choose(shape(1152, 1024, 1024), true, 132, R, None, Elem::F16).unwrap().label(), "d21r80", "the edge of the regime");
        for (i, &rows) in layout::hopper::tma_hgemm::D21_ROWS.iter().enumerate() {
            assert_eq!((steps::D22[i].grid.tile().0, steps::D22_BF16[i].grid.tile().0), (rows, rows));
        }
        assert_eq!(d21_over_h11(shape(768, 4096, 4096), 132, Elem::F16), None, "132 tiles of 128x192: one round");
        assert_eq!(d21_over_h11(shape(256, 11008, 4096), 132, Elem::F16), None, "116 tiles of 128x192: one round");
        assert_eq!(d21_over_h11(shape(640, 4000, 4096), 132, Elem::F16), None, "B's rows off 128 bytes");
        assert_eq!(d21_over_h11(shape(64, 4096, 4096), 132, Elem::F16), None, "the decode range");
        assert_eq!(d21_over_h11(shape(65536, 1024, 512), 132, Elem::F16), None, "K below the measured regime");
        assert!(h11_fills(shape(1000, 2048, 64), 132) && d21_over_h11(shape(1000, 2048, 64), 132, Elem::F16).is_none(), "one K tile: h11 stays");
        // d19 weighed at 9/10: 385 × 24576 takes d19 (6 rounds of 192 at 9/10: 1036.8, against 5 of 144: 1040).
        assert_eq!(transposed_cost(shape(385, 24576, 4096), 132, 144), Some(5 * 208));
        assert_eq!(transposed_cost(shape(385, 24576, 4096), 132, 128), Some(6 * 192));
        assert_eq!(transposed_rows(shape(385, 24576, 4096), 132), Some(128));
        // Every height the model weighs has a step: d19's 128 or one of d21's.
        for rows in TRANSPOSED_ROWS {
            assert!(rows == 128 || d21_for(rows, Elem::F16).is_some(), "{rows}");
        }
    }

    #[test]
    fn every_shape_gets_a_config_that_takes_it() {
        // Property: for any shape and either GPU, the default choice runs the shape as given or padded,
        // pads exactly when K or N is off 8, and the padded shape passes the step's own rule.
        let mut x = 12345u64;
        for _ in 0..5000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let dims = [(x >> 10) as usize % 5000 + 1, (x >> 24) as usize % 5000 + 1, (x >> 40) as usize % 5000 + 1];
            let s = shape(dims[0], dims[1], dims[2]);
            for hopper in [true, false] {
                let c = choose(s, hopper, 132, R, None, Elem::F16).unwrap();
                // N off 8 with K on it, up to RAGGED_MAX_M rows: d24 reads B where it lies.
                let ragged = s.n % 8 != 0 && s.k % 8 == 0 && s.m <= RAGGED_MAX_M;
                assert_eq!(ragged, super::ragged(s), "{s}");
                assert_eq!(c.padded, (s.k % 8 != 0 || s.n % 8 != 0) && !ragged, "{s}");
                assert_eq!(c.step.kernel.step.starts_with("d24"), ragged, "{s} {}", c.label());
                let (n, k) = if c.padded { (up8(s.n), up8(s.k)) } else { (s.n, s.k) };
                assert!(c.step.rejects(s.m, n, k).is_none(), "{s} {}", c.label());
            }
        }
    }

    #[test]
    fn n_off_eight_takes_the_ragged_weight_step_up_to_its_rows_then_pads() {
        for (m, n, k, hopper, elem, want) in [
            (4, 30522, 1024, true, Elem::F16, "d24"), (16, 50257, 768, false, Elem::F16, "d24"), (17, 15261, 1024, true, Elem::Bf16, "d24m64-bf16"),
            (64, 30522, 1024, true, Elem::F16, "d24m64"), (65, 30522, 1024, true, Elem::F16, "d24m128"), (256, 50257, 768, true, Elem::Bf16, "d24m128-bf16"),
            (1, 9, 8, true, Elem::F16, "d24"),
        ] {
            let c = choose(shape(m, n, k), hopper, 132, R, None, elem).unwrap();
            assert_eq!((c.label().as_str(), c.padded), (want, false), "{m}x{n}x{k}");
            // The cost model's choice takes the same step (nothing else runs the shape unpadded).
            let model = cost::CostModel::shipped("NVIDIA H200", 132);
            assert_eq!(choose_by(&model, shape(m, n, k), hopper, 132, R, elem).unwrap(), c, "{m}x{n}x{k}");
        }
        // Above RAGGED_MAX_M rows, or K off 8 (A's rows), the plan pads as before.
        assert!(choose(shape(257, 30522, 1024), true, 132, R, None, Elem::F16).unwrap().padded);
        assert!(choose(shape(4, 30522, 1001), true, 132, R, None, Elem::F16).unwrap().padded);
        // Forced d24 where K is off 8: padded K, refused nothing.
        let c = choose(shape(4, 30522, 1001), true, 132, R, Some(&steps::D24), Elem::F16).unwrap();
        assert!(c.padded && c.step.kernel.step == "d24");
        assert!(steps::D24.rejects(4, 30522, 1001).unwrap().contains("K must be a multiple of 8"));
        assert!(steps::D24.rejects(4, 30523, 1000).is_none());
    }

    #[test]
    fn bf16_gets_its_twins_and_mixing_types_is_refused() {
        for (m, hopper, want) in [(1, true, "d15-bf16"), (1, false, "d2-bf16"), (16, false, "d2-bf16"), (64, true, "d16-bf16"), (64, false, "d2m64-bf16"), (65, true, "d4-bf16"), (4096, true, "h6s4-bf16"), (4096, false, "d2m64-bf16")] {
            assert_eq!(choose(shape(m, 4096, 4096), hopper, 132, R, None, Elem::Bf16).unwrap().label(), want, "M = {m}, hopper {hopper}");
        }
        assert_eq!(choose(shape(4096, 4095, 4096), true, 132, R, None, Elem::Bf16).unwrap().label(), "h6s4-bf16+pad");
        let e = choose(shape(64, 64, 64), true, 132, R, Some(&steps::H6), Elem::Bf16).unwrap_err().to_string();
        assert!(e.contains("takes F16 matrices, this GEMM is Bf16"), "{e}");
        assert!(choose(shape(64, 64, 64), true, 132, R, Some(step_by_label("h6-bf16").unwrap()), Elem::F16).is_err());
    }

    #[test]
    fn configs_are_named_and_wrong_ones_refused() {
        assert_eq!(step_by_label("h6").unwrap().kernel.name, "hgemm_tma_v6");
        assert_eq!(step_by_label("v1").unwrap().kernel.name, "hgemm_block_v1");
        let e = step_by_label("v9h").unwrap_err().to_string();
        assert!(e.contains("not an f32-accumulating hgemm step") && e.contains("h6"), "{e}");
        assert!(step_by_label("nope").is_err());
        let e = choose(shape(64, 64, 64), true, 132, R, Some(&steps::V9H), Elem::F16).unwrap_err().to_string();
        assert!(e.contains("accumulates in f16"), "{e}");
    }
}

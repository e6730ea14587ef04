//! `wgmma.mma_async` (sm_90a): warpgroup (4 warps, 128 threads) matrix multiply-accumulate with both
//! operands read from shared memory through 64-bit matrix descriptors ([`layout::hopper::WgmmaDesc`]).
//!
//! Accumulator fragment of `m64nNk16` with f32 D: [`layout::fragment::WgmmaAcc`] (`rc`,
//! `warp_lane_rc`, `owner`) — the `mma.m16n8` C fragment repeated along N (`d[4j ..]`: columns `8j ..`),
//! each warp of the warpgroup owning 16 rows; N / 2 registers per thread.
//!
//! Ordering rules (PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"): [`wgmma_fence`]
//! before the first `wgmma` that touches registers written since; [`wgmma_commit_group`] after issuing;
//! [`wgmma_wait_group`] before reading the accumulators or overwriting the shared operands.
//! This PTX only assembles for `sm_90a`; kernels that call it are built under `cfg(lab_sm90)`.
use core::arch::asm;

/// `wgmma.fence.sync.aligned;` — orders earlier register and shared-memory writes before the next `wgmma`.
///
/// # Safety
/// sm_90a; executed by all 128 threads of the warpgroup together.
#[inline(always)]
pub unsafe fn wgmma_fence() {
    // SAFETY: forwarded to the caller. Not `pure`: collective, orders memory.
    unsafe { asm!("wgmma.fence.sync.aligned;", options(nostack)) }
}

/// `wgmma.commit_group.sync.aligned;` — closes the group of `wgmma`s issued since the last commit.
///
/// # Safety
/// sm_90a; executed by all 128 threads of the warpgroup together.
#[inline(always)]
pub unsafe fn wgmma_commit_group() {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("wgmma.commit_group.sync.aligned;", options(nostack)) }
}

/// `wgmma.wait_group.sync.aligned N;` — waits until at most `N` committed groups are still pending.
///
/// # Safety
/// sm_90a; executed by all 128 threads of the warpgroup together.
#[inline(always)]
pub unsafe fn wgmma_wait_group<const N: u32>() {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("wgmma.wait_group.sync.aligned {n};", n = const N, options(nostack)) }
}

/// `wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {d0..d31}, desc_a, desc_b, p, 1, 1, TA, TB;`
/// — `D(64×64, f32) = A(64×16) · B(16×64) + (scale_d ? D : 0)`, A and B f16 in shared memory, scales +1.
/// `TA = 0` / `TB = 0`: the operand is K-major ([`layout::hopper::WgmmaDesc::k_major`]); `1`: MN-major
/// (transposed; e.g. B of a row-major K×N matrix, [`layout::hopper::WgmmaDesc::mn_major_sw128`]).
/// `acc` is the fragment in the module docs.
///
/// # Safety
/// sm_90a; all 128 threads of a warpgroup (warps `4k .. 4k+3`) execute it together with the same
/// descriptors; the descriptors describe initialized shared memory of this CTA that nobody writes until a
/// [`wgmma_wait_group`] has retired this `wgmma`; a [`wgmma_fence`] separates it from earlier writes of
/// `acc`. The accumulators must not be read before that wait either (the compiler sees them as written
/// here; the hardware writes them later — the wait is what makes that sound).
#[inline(always)]
pub unsafe fn wgmma_m64n64k16_f32_f16<const TA: u32, const TB: u32>(acc: &mut [f32; 32], desc_a: u64, desc_b: u64, scale_d: bool) {
    // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
    unsafe {
        asm!(
            "{{ .reg .pred p; setp.ne.b32 p, {sd}, 0;",
            "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16",
            "{{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15},",
            " {16}, {17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31}}},",
            "{da}, {db}, p, 1, 1, {ta}, {tb}; }}",
            inout(reg32) acc[0], inout(reg32) acc[1], inout(reg32) acc[2], inout(reg32) acc[3],
            inout(reg32) acc[4], inout(reg32) acc[5], inout(reg32) acc[6], inout(reg32) acc[7],
            inout(reg32) acc[8], inout(reg32) acc[9], inout(reg32) acc[10], inout(reg32) acc[11],
            inout(reg32) acc[12], inout(reg32) acc[13], inout(reg32) acc[14], inout(reg32) acc[15],
            inout(reg32) acc[16], inout(reg32) acc[17], inout(reg32) acc[18], inout(reg32) acc[19],
            inout(reg32) acc[20], inout(reg32) acc[21], inout(reg32) acc[22], inout(reg32) acc[23],
            inout(reg32) acc[24], inout(reg32) acc[25], inout(reg32) acc[26], inout(reg32) acc[27],
            inout(reg32) acc[28], inout(reg32) acc[29], inout(reg32) acc[30], inout(reg32) acc[31],
            da = in(reg64) desc_a, db = in(reg64) desc_b, sd = in(reg32) scale_d as u32, ta = const TA, tb = const TB,
            options(nostack)
        )
    }
}

/// The `asm!` of a `wgmma` whose accumulators are `BLOCKS` 64-column blocks of 32 f32 (`N = 64·BLOCKS`):
/// the instruction text, its accumulator list, and the operands after it (`$tail`: the descriptors,
/// the scale-d predicate `p` and the immediates, e.g. `"{da}, {db}, p, 1, 1, {ta}, {tb}; }}"`), written
/// once for every input type and N.
macro_rules! wgmma_asm_n256 {
    ($acc0:ident, $acc1:ident, $acc2:ident, $acc3:ident, $instr:expr, $tail:literal, $($operands:tt)*) => {
        asm!(
            "{{ .reg .pred p; setp.ne.b32 p, {sd}, 0;",
            $instr,
            "{{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15},",
            " {16}, {17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31},",
            " {32}, {33}, {34}, {35}, {36}, {37}, {38}, {39}, {40}, {41}, {42}, {43}, {44}, {45}, {46}, {47},",
            " {48}, {49}, {50}, {51}, {52}, {53}, {54}, {55}, {56}, {57}, {58}, {59}, {60}, {61}, {62}, {63},",
            " {64}, {65}, {66}, {67}, {68}, {69}, {70}, {71}, {72}, {73}, {74}, {75}, {76}, {77}, {78}, {79},",
            " {80}, {81}, {82}, {83}, {84}, {85}, {86}, {87}, {88}, {89}, {90}, {91}, {92}, {93}, {94}, {95},",
            " {96}, {97}, {98}, {99}, {100}, {101}, {102}, {103}, {104}, {105}, {106}, {107}, {108}, {109}, {110}, {111},",
            " {112}, {113}, {114}, {115}, {116}, {117}, {118}, {119}, {120}, {121}, {122}, {123}, {124}, {125}, {126}, {127}}},",
            $tail,
            inout(reg32) $acc0[0], inout(reg32) $acc0[1], inout(reg32) $acc0[2], inout(reg32) $acc0[3],
            inout(reg32) $acc0[4], inout(reg32) $acc0[5], inout(reg32) $acc0[6], inout(reg32) $acc0[7],
            inout(reg32) $acc0[8], inout(reg32) $acc0[9], inout(reg32) $acc0[10], inout(reg32) $acc0[11],
            inout(reg32) $acc0[12], inout(reg32) $acc0[13], inout(reg32) $acc0[14], inout(reg32) $acc0[15],
            inout(reg32) $acc0[16], inout(reg32) $acc0[17], inout(reg32) $acc0[18], inout(reg32) $acc0[19],
            inout(reg32) $acc0[20], inout(reg32) $acc0[21], inout(reg32) $acc0[22], inout(reg32) $acc0[23],
            inout(reg32) $acc0[24], inout(reg32) $acc0[25], inout(reg32) $acc0[26], inout(reg32) $acc0[27],
            inout(reg32) $acc0[28], inout(reg32) $acc0[29], inout(reg32) $acc0[30], inout(reg32) $acc0[31],
            inout(reg32) $acc1[0], inout(reg32) $acc1[1], inout(reg32) $acc1[2], inout(reg32) $acc1[3],
            inout(reg32) $acc1[4], inout(reg32) $acc1[5], inout(reg32) $acc1[6], inout(reg32) $acc1[7],
            inout(reg32) $acc1[8], inout(reg32) $acc1[9], inout(reg32) $acc1[10], inout(reg32) $acc1[11],
            inout(reg32) $acc1[12], inout(reg32) $acc1[13], inout(reg32) $acc1[14], inout(reg32) $acc1[15],
            inout(reg32) $acc1[16], inout(reg32) $acc1[17], inout(reg32) $acc1[18], inout(reg32) $acc1[19],
            inout(reg32) $acc1[20], inout(reg32) $acc1[21], inout(reg32) $acc1[22], inout(reg32) $acc1[23],
            inout(reg32) $acc1[24], inout(reg32) $acc1[25], inout(reg32) $acc1[26], inout(reg32) $acc1[27],
            inout(reg32) $acc1[28], inout(reg32) $acc1[29], inout(reg32) $acc1[30], inout(reg32) $acc1[31],
            inout(reg32) $acc2[0], inout(reg32) $acc2[1], inout(reg32) $acc2[2], inout(reg32) $acc2[3],
            inout(reg32) $acc2[4], inout(reg32) $acc2[5], inout(reg32) $acc2[6], inout(reg32) $acc2[7],
            inout(reg32) $acc2[8], inout(reg32) $acc2[9], inout(reg32) $acc2[10], inout(reg32) $acc2[11],
            inout(reg32) $acc2[12], inout(reg32) $acc2[13], inout(reg32) $acc2[14], inout(reg32) $acc2[15],
            inout(reg32) $acc2[16], inout(reg32) $acc2[17], inout(reg32) $acc2[18], inout(reg32) $acc2[19],
            inout(reg32) $acc2[20], inout(reg32) $acc2[21], inout(reg32) $acc2[22], inout(reg32) $acc2[23],
            inout(reg32) $acc2[24], inout(reg32) $acc2[25], inout(reg32) $acc2[26], inout(reg32) $acc2[27],
            inout(reg32) $acc2[28], inout(reg32) $acc2[29], inout(reg32) $acc2[30], inout(reg32) $acc2[31],
            inout(reg32) $acc3[0], inout(reg32) $acc3[1], inout(reg32) $acc3[2], inout(reg32) $acc3[3],
            inout(reg32) $acc3[4], inout(reg32) $acc3[5], inout(reg32) $acc3[6], inout(reg32) $acc3[7],
            inout(reg32) $acc3[8], inout(reg32) $acc3[9], inout(reg32) $acc3[10], inout(reg32) $acc3[11],
            inout(reg32) $acc3[12], inout(reg32) $acc3[13], inout(reg32) $acc3[14], inout(reg32) $acc3[15],
            inout(reg32) $acc3[16], inout(reg32) $acc3[17], inout(reg32) $acc3[18], inout(reg32) $acc3[19],
            inout(reg32) $acc3[20], inout(reg32) $acc3[21], inout(reg32) $acc3[22], inout(reg32) $acc3[23],
            inout(reg32) $acc3[24], inout(reg32) $acc3[25], inout(reg32) $acc3[26], inout(reg32) $acc3[27],
            inout(reg32) $acc3[28], inout(reg32) $acc3[29], inout(reg32) $acc3[30], inout(reg32) $acc3[31],
            $($operands)*
            options(nostack)
        )
    };
}

/// As [`wgmma_asm_n256`] with three blocks (`N = 192`, 96 registers).
macro_rules! wgmma_asm_n192 {
    ($acc0:ident, $acc1:ident, $acc2:ident, $instr:expr, $tail:literal, $($operands:tt)*) => {
        asm!(
            "{{ .reg .pred p; setp.ne.b32 p, {sd}, 0;",
            $instr,
            "{{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15},",
            " {16}, {17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31},",
            " {32}, {33}, {34}, {35}, {36}, {37}, {38}, {39}, {40}, {41}, {42}, {43}, {44}, {45}, {46}, {47},",
            " {48}, {49}, {50}, {51}, {52}, {53}, {54}, {55}, {56}, {57}, {58}, {59}, {60}, {61}, {62}, {63},",
            " {64}, {65}, {66}, {67}, {68}, {69}, {70}, {71}, {72}, {73}, {74}, {75}, {76}, {77}, {78}, {79},",
            " {80}, {81}, {82}, {83}, {84}, {85}, {86}, {87}, {88}, {89}, {90}, {91}, {92}, {93}, {94}, {95}}},",
            $tail,
            inout(reg32) $acc0[0], inout(reg32) $acc0[1], inout(reg32) $acc0[2], inout(reg32) $acc0[3],
            inout(reg32) $acc0[4], inout(reg32) $acc0[5], inout(reg32) $acc0[6], inout(reg32) $acc0[7],
            inout(reg32) $acc0[8], inout(reg32) $acc0[9], inout(reg32) $acc0[10], inout(reg32) $acc0[11],
            inout(reg32) $acc0[12], inout(reg32) $acc0[13], inout(reg32) $acc0[14], inout(reg32) $acc0[15],
            inout(reg32) $acc0[16], inout(reg32) $acc0[17], inout(reg32) $acc0[18], inout(reg32) $acc0[19],
            inout(reg32) $acc0[20], inout(reg32) $acc0[21], inout(reg32) $acc0[22], inout(reg32) $acc0[23],
            inout(reg32) $acc0[24], inout(reg32) $acc0[25], inout(reg32) $acc0[26], inout(reg32) $acc0[27],
            inout(reg32) $acc0[28], inout(reg32) $acc0[29], inout(reg32) $acc0[30], inout(reg32) $acc0[31],
            inout(reg32) $acc1[0], inout(reg32) $acc1[1], inout(reg32) $acc1[2], inout(reg32) $acc1[3],
            inout(reg32) $acc1[4], inout(reg32) $acc1[5], inout(reg32) $acc1[6], inout(reg32) $acc1[7],
            inout(reg32) $acc1[8], inout(reg32) $acc1[9], inout(reg32) $acc1[10], inout(reg32) $acc1[11],
            inout(reg32) $acc1[12], inout(reg32) $acc1[13], inout(reg32) $acc1[14], inout(reg32) $acc1[15],
            inout(reg32) $acc1[16], inout(reg32) $acc1[17], inout(reg32) $acc1[18], inout(reg32) $acc1[19],
            inout(reg32) $acc1[20], inout(reg32) $acc1[21], inout(reg32) $acc1[22], inout(reg32) $acc1[23],
            inout(reg32) $acc1[24], inout(reg32) $acc1[25], inout(reg32) $acc1[26], inout(reg32) $acc1[27],
            inout(reg32) $acc1[28], inout(reg32) $acc1[29], inout(reg32) $acc1[30], inout(reg32) $acc1[31],
            inout(reg32) $acc2[0], inout(reg32) $acc2[1], inout(reg32) $acc2[2], inout(reg32) $acc2[3],
            inout(reg32) $acc2[4], inout(reg32) $acc2[5], inout(reg32) $acc2[6], inout(reg32) $acc2[7],
            inout(reg32) $acc2[8], inout(reg32) $acc2[9], inout(reg32) $acc2[10], inout(reg32) $acc2[11],
            inout(reg32) $acc2[12], inout(reg32) $acc2[13], inout(reg32) $acc2[14], inout(reg32) $acc2[15],
            inout(reg32) $acc2[16], inout(reg32) $acc2[17], inout(reg32) $acc2[18], inout(reg32) $acc2[19],
            inout(reg32) $acc2[20], inout(reg32) $acc2[21], inout(reg32) $acc2[22], inout(reg32) $acc2[23],
            inout(reg32) $acc2[24], inout(reg32) $acc2[25], inout(reg32) $acc2[26], inout(reg32) $acc2[27],
            inout(reg32) $acc2[28], inout(reg32) $acc2[29], inout(reg32) $acc2[30], inout(reg32) $acc2[31],
            $($operands)*
            options(nostack)
        )
    };
}

/// As [`wgmma_asm_n256`] with two blocks (`N = 128`, 64 registers); `out; …` declares the accumulators
/// written only (for `scale-d` = 0: nothing has to be in them before).
macro_rules! wgmma_asm_n128 {
    ($acc0:ident, $acc1:ident, $instr:expr, $tail:literal, $($operands:tt)*) => {
        wgmma_asm_n128!(inout; $acc0, $acc1, $instr, $tail, $($operands)*)
    };
    ($dir:ident; $acc0:ident, $acc1:ident, $instr:expr, $tail:literal, $($operands:tt)*) => {
        asm!(
            "{{ .reg .pred p; setp.ne.b32 p, {sd}, 0;",
            $instr,
            "{{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15},",
            " {16}, {17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31},",
            " {32}, {33}, {34}, {35}, {36}, {37}, {38}, {39}, {40}, {41}, {42}, {43}, {44}, {45}, {46}, {47},",
            " {48}, {49}, {50}, {51}, {52}, {53}, {54}, {55}, {56}, {57}, {58}, {59}, {60}, {61}, {62}, {63}}},",
            $tail,
            $dir(reg32) $acc0[0], $dir(reg32) $acc0[1], $dir(reg32) $acc0[2], $dir(reg32) $acc0[3],
            $dir(reg32) $acc0[4], $dir(reg32) $acc0[5], $dir(reg32) $acc0[6], $dir(reg32) $acc0[7],
            $dir(reg32) $acc0[8], $dir(reg32) $acc0[9], $dir(reg32) $acc0[10], $dir(reg32) $acc0[11],
            $dir(reg32) $acc0[12], $dir(reg32) $acc0[13], $dir(reg32) $acc0[14], $dir(reg32) $acc0[15],
            $dir(reg32) $acc0[16], $dir(reg32) $acc0[17], $dir(reg32) $acc0[18], $dir(reg32) $acc0[19],
            $dir(reg32) $acc0[20], $dir(reg32) $acc0[21], $dir(reg32) $acc0[22], $dir(reg32) $acc0[23],
            $dir(reg32) $acc0[24], $dir(reg32) $acc0[25], $dir(reg32) $acc0[26], $dir(reg32) $acc0[27],
            $dir(reg32) $acc0[28], $dir(reg32) $acc0[29], $dir(reg32) $acc0[30], $dir(reg32) $acc0[31],
            $dir(reg32) $acc1[0], $dir(reg32) $acc1[1], $dir(reg32) $acc1[2], $dir(reg32) $acc1[3],
            $dir(reg32) $acc1[4], $dir(reg32) $acc1[5], $dir(reg32) $acc1[6], $dir(reg32) $acc1[7],
            $dir(reg32) $acc1[8], $dir(reg32) $acc1[9], $dir(reg32) $acc1[10], $dir(reg32) $acc1[11],
            $dir(reg32) $acc1[12], $dir(reg32) $acc1[13], $dir(reg32) $acc1[14], $dir(reg32) $acc1[15],
            $dir(reg32) $acc1[16], $dir(reg32) $acc1[17], $dir(reg32) $acc1[18], $dir(reg32) $acc1[19],
            $dir(reg32) $acc1[20], $dir(reg32) $acc1[21], $dir(reg32) $acc1[22], $dir(reg32) $acc1[23],
            $dir(reg32) $acc1[24], $dir(reg32) $acc1[25], $dir(reg32) $acc1[26], $dir(reg32) $acc1[27],
            $dir(reg32) $acc1[28], $dir(reg32) $acc1[29], $dir(reg32) $acc1[30], $dir(reg32) $acc1[31],
            $($operands)*
            options(nostack)
        )
    };
}

/// Generates the `wgmma.m64n256k16` wrapper for one input type (f16 and bf16 share everything but the
/// instruction's type suffix).
macro_rules! wgmma_m64n256k16 {
    ($(#[$doc:meta])* $name:ident, $instr:literal) => {
        $(#[$doc])*
        #[inline(always)]
        pub unsafe fn $name<const TA: u32, const TB: u32>(acc: &mut [[f32; 32]; 4], desc_a: u64, desc_b: u64, scale_d: bool) {
            let [acc0, acc1, acc2, acc3] = acc;
            // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
            unsafe {
                wgmma_asm_n256!(acc0, acc1, acc2, acc3, $instr, "{da}, {db}, p, 1, 1, {ta}, {tb}; }}",
                    da = in(reg64) desc_a, db = in(reg64) desc_b, sd = in(reg32) scale_d as u32, ta = const TA, tb = const TB,)
            }
        }
    };
}

wgmma_m64n256k16! {
    /// `wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {d0..d127}, desc_a, desc_b, p, 1, 1, TA, TB;`
    /// — `D(64×256, f32) = A(64×16) · B(16×256) + (scale_d ? D : 0)`: the widest f16 shape, one instruction
    /// where four `m64n64k16` would read the same A rows from shared memory four times.
    /// The fragment is the module docs' with `N = 256` (128 registers), passed as four 64-column blocks:
    /// `acc[b][i]` is `d[32b + i]`, i.e. columns `64b ..` of D in the `N = 64` fragment of
    /// [`wgmma_m64n64k16_f32_f16`]. For an MN-major B the descriptor's leading byte offset is the distance
    /// between its 64-column (128-byte) swizzle atoms ([`layout::hopper::WgmmaDesc::mn_major_sw128`]).
    ///
    /// # Safety
    /// As [`wgmma_m64n64k16_f32_f16`], with B 16×256.
    wgmma_m64n256k16_f32_f16, "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16"
}

wgmma_m64n256k16! {
    /// `wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 …` — [`wgmma_m64n256k16_f32_f16`] with bf16
    /// A and B (same fragments, descriptors and layouts: bf16 is 16 bits too).
    ///
    /// # Safety
    /// As [`wgmma_m64n256k16_f32_f16`].
    wgmma_m64n256k16_f32_bf16, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"
}

/// Generates the `wgmma.m64n192k16` wrapper for one input type (f16 and bf16 share everything but the
/// instruction's type suffix).
macro_rules! wgmma_m64n192k16 {
    ($(#[$doc:meta])* $name:ident, $instr:literal) => {
        $(#[$doc])*
        #[inline(always)]
        pub unsafe fn $name<const TA: u32, const TB: u32>(acc: &mut [[f32; 32]; 3], desc_a: u64, desc_b: u64, scale_d: bool) {
            let [acc0, acc1, acc2] = acc;
            // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
            unsafe {
                wgmma_asm_n192!(acc0, acc1, acc2, $instr, "{da}, {db}, p, 1, 1, {ta}, {tb}; }}",
                    da = in(reg64) desc_a, db = in(reg64) desc_b, sd = in(reg32) scale_d as u32, ta = const TA, tb = const TB,)
            }
        }
    };
}

wgmma_m64n192k16! {
    /// `wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 {d0..d95}, desc_a, desc_b, p, 1, 1, TA, TB;`
    /// — [`wgmma_m64n256k16_f32_f16`] with N = 192: 96 accumulator registers as three 64-column blocks
    /// (`acc[b][i]` is `d[32b + i]`: columns `64b ..`), for tiles 192 columns wide (HGEMM h11: where
    /// 128×256 tiles leave a wave partly empty, 128×192 ones may fill it).
    ///
    /// # Safety
    /// As [`wgmma_m64n64k16_f32_f16`], with B 16×192.
    wgmma_m64n192k16_f32_f16, "wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16"
}

wgmma_m64n192k16! {
    /// `wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 …` — [`wgmma_m64n192k16_f32_f16`] with bf16
    /// A and B.
    ///
    /// # Safety
    /// As [`wgmma_m64n192k16_f32_f16`].
    wgmma_m64n192k16_f32_bf16, "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16"
}

/// `wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {d0..d127}, desc_a, desc_b, p, 1, 1;` —
/// `D(64×256, f32) = A(64×32) · B(32×256) + (scale_d ? D : 0)` on FP8 e4m3 inputs (sm_90a), the
/// accumulator fragment as [`wgmma_m64n256k16_f32_f16`]'s (`acc[b]`: columns `64b ..`).
///
/// One `wgmma` covers K = 32: 32 bytes of each K-major row, the same bytes as a K = 16 step of f16, so
/// a 128-byte swizzled row (one `SWIZZLE_128B` span) holds 128 K and a stage takes 4 steps of 32 bytes.
/// **Both operands must be K-major**: 8-bit `wgmma` has no transpose immediates, so B is stored N×K
/// (row n holds column n of B; [`layout::hopper::WgmmaDesc::k_major`] with 256 rows), and the
/// instruction takes no `TA`/`TB`.
///
/// # Safety
/// As [`wgmma_m64n64k16_f32_f16`], with both descriptors K-major and B 256 rows (N) × 32 bytes.
#[inline(always)]
pub unsafe fn wgmma_m64n256k32_f32_e4m3(acc: &mut [[f32; 32]; 4], desc_a: u64, desc_b: u64, scale_d: bool) {
    let [acc0, acc1, acc2, acc3] = acc;
    // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
    unsafe {
        wgmma_asm_n256!(acc0, acc1, acc2, acc3, "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", "{da}, {db}, p, 1, 1; }}",
            da = in(reg64) desc_a, db = in(reg64) desc_b, sd = in(reg32) scale_d as u32,)
    }
}

/// `wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {d0..d63}, desc_a, desc_b, p, 1, 1;` —
/// [`wgmma_m64n256k32_f32_e4m3`] with N = 128: 64 accumulator registers as two 64-column blocks
/// (`acc[b]`: columns `64b ..`). Half the accumulators leave room for a second set (the block-scaled
/// kernel's promotion).
///
/// # Safety
/// As [`wgmma_m64n256k32_f32_e4m3`], with B 128 rows (N) × 32 bytes.
#[inline(always)]
pub unsafe fn wgmma_m64n128k32_f32_e4m3(acc: &mut [[f32; 32]; 2], desc_a: u64, desc_b: u64, scale_d: bool) {
    let [acc0, acc1] = acc;
    // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
    unsafe {
        wgmma_asm_n128!(acc0, acc1, "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3", "{da}, {db}, p, 1, 1; }}",
            da = in(reg64) desc_a, db = in(reg64) desc_b, sd = in(reg32) scale_d as u32,)
    }
}

/// `wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3 {d0..d95}, desc_a, desc_b, p, 1, 1;` —
/// [`wgmma_m64n256k32_f32_e4m3`] with N = 192: 96 accumulator registers as three 64-column blocks
/// (`acc[b]`: columns `64b ..`). With a second set for the promotion that is 192 registers, where two
/// sets of N = 256 would not fit (FP8 step f9).
///
/// # Safety
/// As [`wgmma_m64n256k32_f32_e4m3`], with B 192 rows (N) × 32 bytes.
#[inline(always)]
pub unsafe fn wgmma_m64n192k32_f32_e4m3(acc: &mut [[f32; 32]; 3], desc_a: u64, desc_b: u64, scale_d: bool) {
    let [acc0, acc1, acc2] = acc;
    // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
    unsafe {
        wgmma_asm_n192!(acc0, acc1, acc2, "wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3", "{da}, {db}, p, 1, 1; }}",
            da = in(reg64) desc_a, db = in(reg64) desc_b, sd = in(reg32) scale_d as u32,)
    }
}

/// As [`wgmma_asm_n256`] with one block (`N = 64`, 32 registers); `out; …` declares the accumulators
/// written only, as [`wgmma_asm_n128`]'s.
macro_rules! wgmma_asm_n64 {
    ($acc0:ident, $instr:expr, $tail:literal, $($operands:tt)*) => {
        wgmma_asm_n64!(inout; $acc0, $instr, $tail, $($operands)*)
    };
    ($dir:ident; $acc0:ident, $instr:expr, $tail:literal, $($operands:tt)*) => {
        asm!(
            "{{ .reg .pred p; setp.ne.b32 p, {sd}, 0;",
            $instr,
            "{{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15},",
            " {16}, {17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31}}},",
            $tail,
            $dir(reg32) $acc0[0], $dir(reg32) $acc0[1], $dir(reg32) $acc0[2], $dir(reg32) $acc0[3],
            $dir(reg32) $acc0[4], $dir(reg32) $acc0[5], $dir(reg32) $acc0[6], $dir(reg32) $acc0[7],
            $dir(reg32) $acc0[8], $dir(reg32) $acc0[9], $dir(reg32) $acc0[10], $dir(reg32) $acc0[11],
            $dir(reg32) $acc0[12], $dir(reg32) $acc0[13], $dir(reg32) $acc0[14], $dir(reg32) $acc0[15],
            $dir(reg32) $acc0[16], $dir(reg32) $acc0[17], $dir(reg32) $acc0[18], $dir(reg32) $acc0[19],
            $dir(reg32) $acc0[20], $dir(reg32) $acc0[21], $dir(reg32) $acc0[22], $dir(reg32) $acc0[23],
            $dir(reg32) $acc0[24], $dir(reg32) $acc0[25], $dir(reg32) $acc0[26], $dir(reg32) $acc0[27],
            $dir(reg32) $acc0[28], $dir(reg32) $acc0[29], $dir(reg32) $acc0[30], $dir(reg32) $acc0[31],
            $($operands)*
            options(nostack)
        )
    };
}

/// [`wgmma_m64n64k16_f32_f16`] on bf16 operands (`.bf16.bf16`; `TA`/`TB` as there).
///
/// # Safety
/// As [`wgmma_m64n64k16_f32_f16`].
#[inline(always)]
pub unsafe fn wgmma_m64n64k16_f32_bf16<const TA: u32, const TB: u32>(acc: &mut [f32; 32], desc_a: u64, desc_b: u64, scale_d: bool) {
    // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
    unsafe {
        wgmma_asm_n64!(acc, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "{da}, {db}, p, 1, 1, {ta}, {tb}; }}",
            da = in(reg64) desc_a, db = in(reg64) desc_b, sd = in(reg32) scale_d as u32, ta = const TA, tb = const TB,)
    }
}

/// `wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {d0..d31}, desc_a, desc_b, p, 1, 1;` —
/// [`wgmma_m64n256k32_f32_e4m3`] with N = 64: 32 accumulator registers (FP8 step f22's 64×64 tiles).
///
/// # Safety
/// As [`wgmma_m64n256k32_f32_e4m3`], with B 64 rows (N) × 32 bytes.
#[inline(always)]
pub unsafe fn wgmma_m64n64k32_f32_e4m3(acc: &mut [f32; 32], desc_a: u64, desc_b: u64, scale_d: bool) {
    // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
    unsafe {
        wgmma_asm_n64!(acc, "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3", "{da}, {db}, p, 1, 1; }}",
            da = in(reg64) desc_a, db = in(reg64) desc_b, sd = in(reg32) scale_d as u32,)
    }
}

/// `wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3 {d0..d15}, desc_a, desc_b, p, 1, 1;` —
/// [`wgmma_m64n256k32_f32_e4m3`] with N = 32: 16 accumulator registers (FP8 step f25's 32 activation rows).
///
/// # Safety
/// As [`wgmma_m64n256k32_f32_e4m3`], with B 32 rows (N) × 32 bytes.
#[inline(always)]
pub unsafe fn wgmma_m64n32k32_f32_e4m3(acc: &mut [f32; 16], desc_a: u64, desc_b: u64, scale_d: bool) {
    // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
    unsafe {
        asm!(
            "{{ .reg .pred p; setp.ne.b32 p, {sd}, 0;",
            "wgmma.mma_async.sync.aligned.m64n32k32.f32.e4m3.e4m3",
            "{{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}}},",
            "{da}, {db}, p, 1, 1; }}",
            inout(reg32) acc[0], inout(reg32) acc[1], inout(reg32) acc[2], inout(reg32) acc[3],
            inout(reg32) acc[4], inout(reg32) acc[5], inout(reg32) acc[6], inout(reg32) acc[7],
            inout(reg32) acc[8], inout(reg32) acc[9], inout(reg32) acc[10], inout(reg32) acc[11],
            inout(reg32) acc[12], inout(reg32) acc[13], inout(reg32) acc[14], inout(reg32) acc[15],
            da = in(reg64) desc_a, db = in(reg64) desc_b, sd = in(reg32) scale_d as u32,
            options(nostack)
        )
    }
}

/// The `asm!` of a `wgmma.m64n16k16` (8 f32 accumulators per thread), as [`wgmma_asm_n64!`] for N = 16.
macro_rules! wgmma_asm_n16 {
    ($acc:ident, $instr:expr, $($operands:tt)*) => {
        asm!(
            "{{ .reg .pred p; setp.ne.b32 p, {sd}, 0;",
            $instr,
            "{{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}}},",
            "{da}, {db}, p, 1, 1, {ta}, {tb}; }}",
            inout(reg32) $acc[0], inout(reg32) $acc[1], inout(reg32) $acc[2], inout(reg32) $acc[3],
            inout(reg32) $acc[4], inout(reg32) $acc[5], inout(reg32) $acc[6], inout(reg32) $acc[7],
            $($operands)*
            options(nostack)
        )
    };
}

/// `wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {d0..d7}, desc_a, desc_b, p, 1, 1, TA, TB;` —
/// `D(64×16, f32) = A(64×16) · B(16×16) + (scale_d ? D : 0)`: [`wgmma_m64n64k16_f32_f16`] with N = 16
/// (the fragment of the module docs, 8 registers per thread). Decode d13: 16 activation rows as B.
///
/// # Safety
/// As [`wgmma_m64n64k16_f32_f16`], with B 16×16.
#[inline(always)]
pub unsafe fn wgmma_m64n16k16_f32_f16<const TA: u32, const TB: u32>(acc: &mut [f32; 8], desc_a: u64, desc_b: u64, scale_d: bool) {
    // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
    unsafe {
        wgmma_asm_n16!(acc, "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16",
            da = in(reg64) desc_a, db = in(reg64) desc_b, sd = in(reg32) scale_d as u32, ta = const TA, tb = const TB,)
    }
}

/// [`wgmma_m64n16k16_f32_f16`] on bf16 operands.
///
/// # Safety
/// As [`wgmma_m64n16k16_f32_f16`].
#[inline(always)]
pub unsafe fn wgmma_m64n16k16_f32_bf16<const TA: u32, const TB: u32>(acc: &mut [f32; 8], desc_a: u64, desc_b: u64, scale_d: bool) {
    // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
    unsafe {
        wgmma_asm_n16!(acc, "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16",
            da = in(reg64) desc_a, db = in(reg64) desc_b, sd = in(reg32) scale_d as u32, ta = const TA, tb = const TB,)
    }
}

/// Generates, for one 16-bit input type, the attention kernel's three `wgmma` shapes: `m64n128k16`
/// with both operands in shared memory (S = Q·Kᵀ over 128 keys), and `m64n64k16` / `m64n128k16` with
/// **A from registers** (O += P·V, P never leaving the registers).
macro_rules! wgmma_attention_shapes {
    ($ss128:ident, $ss128_zero:ident, $rs64:ident, $rs128:ident, $i128:literal, $i64:literal, $ty:literal) => {
        #[doc = concat!("`", $i128, " {d0..d63}, desc_a, desc_b, p, 1, 1, TA, TB;` — `D(64×128, f32) = A(64×16) · B(16×128) + (scale_d ? D : 0)` on ", $ty, ", both operands in shared memory; the fragment is the module docs' with `N = 128` as two 64-column blocks (`acc[b]`: columns `64b ..`).")]
        ///
        /// # Safety
        /// As [`wgmma_m64n64k16_f32_f16`], with B 16×128.
        #[inline(always)]
        pub unsafe fn $ss128<const TA: u32, const TB: u32>(acc: &mut [[f32; 32]; 2], desc_a: u64, desc_b: u64, scale_d: u32) {
            let [acc0, acc1] = acc;
            // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
            unsafe {
                wgmma_asm_n128!(acc0, acc1, $i128, "{da}, {db}, p, 1, 1, {ta}, {tb}; }}",
                    da = in(reg64) desc_a, db = in(reg64) desc_b, sd = in(reg32) scale_d, ta = const TA, tb = const TB,)
            }
        }

        #[doc = concat!("`", $i128, " {d0..d63}, desc_a, desc_b, 0, 1, 1, TA, TB;` — the shared-memory form with `scale-d` = 0 on ", $ty, ": `D = A · B`, the accumulators **written only**. Returns them: nothing has to be in the registers before (with the `scale_d` operand the accumulators are operands the compiler must fill first — 64 register zeroings per call in attention a7).")]
        ///
        /// # Safety
        /// As the form with `scale_d`.
        #[inline(always)]
        pub unsafe fn $ss128_zero<const TA: u32, const TB: u32>(desc_a: u64, desc_b: u64) -> [[f32; 32]; 2] {
            // Overwritten by the instruction's outputs (`out`): the optimizer drops these zeros.
            let [mut acc0, mut acc1] = [[0f32; 32]; 2];
            // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
            unsafe {
                wgmma_asm_n128!(out; acc0, acc1, $i128, "{da}, {db}, p, 1, 1, {ta}, {tb}; }}",
                    da = in(reg64) desc_a, db = in(reg64) desc_b, sd = in(reg32) 0u32, ta = const TA, tb = const TB,)
            }
            [acc0, acc1]
        }

        #[doc = concat!("`", $i64, " {d0..d31}, {a0, a1, a2, a3}, desc_b, p, 1, 1, TB;` — `D(64×64, f32) = A(64×16) · B(16×64) + (scale_d ? D : 0)` on ", $ty, " with **A in registers**: each warp of the warpgroup holds its 16 rows of A as `mma.sync.m16n8k16`'s A fragment (`a[0]`: row g, columns 2t, 2t+1; `a[1]`: row g + 8; `a[2]`, `a[3]`: columns + 8; g = lane / 4, t = lane % 4) — the accumulator fragment of two adjacent 8-column n-tiles, packed, is this fragment. No `TA`: a register A is K-major.")]
        ///
        /// # Safety
        /// As [`wgmma_m64n64k16_f32_f16`] for `acc` and B; `a` are this thread's values (registers, read
        /// when the instruction issues).
        #[inline(always)]
        pub unsafe fn $rs64<const TB: u32>(acc: &mut [f32; 32], a: [u32; 4], desc_b: u64, scale_d: u32) {
            // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
            unsafe {
                wgmma_asm_n64!(acc, $i64, "{{{a0}, {a1}, {a2}, {a3}}}, {db}, p, 1, 1, {tb}; }}",
                    a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3], db = in(reg64) desc_b,
                    sd = in(reg32) scale_d, tb = const TB,)
            }
        }

        #[doc = concat!("`", $i128, " {d0..d63}, {a0, a1, a2, a3}, desc_b, p, 1, 1, TB;` — the register-A form with `N = 128` on ", $ty, " (`acc[b]`: columns `64b ..`).")]
        ///
        /// # Safety
        /// As the `N = 64` register-A form, with B 16×128.
        #[inline(always)]
        pub unsafe fn $rs128<const TB: u32>(acc: &mut [[f32; 32]; 2], a: [u32; 4], desc_b: u64, scale_d: u32) {
            let [acc0, acc1] = acc;
            // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
            unsafe {
                wgmma_asm_n128!(acc0, acc1, $i128, "{{{a0}, {a1}, {a2}, {a3}}}, {db}, p, 1, 1, {tb}; }}",
                    a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3], db = in(reg64) desc_b,
                    sd = in(reg32) scale_d, tb = const TB,)
            }
        }
    };
}

wgmma_attention_shapes!(wgmma_m64n128k16_f32_f16, wgmma_m64n128k16_f32_f16_zero, wgmma_m64n64k16_f32_f16_rs, wgmma_m64n128k16_f32_f16_rs,
                        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16", "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", "f16");
wgmma_attention_shapes!(wgmma_m64n128k16_f32_bf16, wgmma_m64n128k16_f32_bf16_zero, wgmma_m64n64k16_f32_bf16_rs, wgmma_m64n128k16_f32_bf16_rs,
                        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "bf16");

/// `wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {d0..d31}, desc_a, desc_b, 0, 1, 1, TA, TB;` — `D = A · B`
/// (64×64, f32) with both operands in shared memory and the accumulators **written only** (`scale-d` = 0):
/// returns them, nothing has to be in the registers before (attention a24: the first K-step of S = Q·Kᵀ over a
/// 64-key tile).
///
/// # Safety
/// As [`wgmma_m64n64k16_f32_f16`].
#[inline(always)]
pub unsafe fn wgmma_m64n64k16_f32_f16_zero<const TA: u32, const TB: u32>(desc_a: u64, desc_b: u64) -> [f32; 32] {
    // Overwritten by the instruction's outputs (`out`): the optimizer drops these zeros.
    let mut acc = [0f32; 32];
    // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
    unsafe {
        wgmma_asm_n64!(out; acc, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", "{da}, {db}, p, 1, 1, {ta}, {tb}; }}",
            da = in(reg64) desc_a, db = in(reg64) desc_b, sd = in(reg32) 0u32, ta = const TA, tb = const TB,)
    }
    acc
}

/// [`wgmma_m64n64k16_f32_f16_zero`] on bf16 operands.
///
/// # Safety
/// As [`wgmma_m64n64k16_f32_f16`].
#[inline(always)]
pub unsafe fn wgmma_m64n64k16_f32_bf16_zero<const TA: u32, const TB: u32>(desc_a: u64, desc_b: u64) -> [f32; 32] {
    let mut acc = [0f32; 32];
    // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
    unsafe {
        wgmma_asm_n64!(out; acc, "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16", "{da}, {db}, p, 1, 1, {ta}, {tb}; }}",
            da = in(reg64) desc_a, db = in(reg64) desc_b, sd = in(reg32) 0u32, ta = const TA, tb = const TB,)
    }
    acc
}

/// `wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {d0..d127}, {a0, a1, a2, a3}, desc_b, p, 1, 1, TB;` —
/// `D(64×256, f32) = A(64×16) · B(16×256) + (scale_d ? D : 0)` with **A in registers** (each warp's 16 rows as
/// `mma.sync.m16n8k16`'s A fragment, as the `N = 64` register form) and the accumulators as four 64-column
/// blocks (`acc[b]`: columns `64b ..`). Attention a24: O += P·V over all 256 columns of O.
///
/// # Safety
/// As [`wgmma_m64n64k16_f32_f16`] for `acc` and B (16×256); `a` are this thread's values.
#[inline(always)]
pub unsafe fn wgmma_m64n256k16_f32_f16_rs<const TB: u32>(acc: &mut [[f32; 32]; 4], a: [u32; 4], desc_b: u64, scale_d: u32) {
    let [acc0, acc1, acc2, acc3] = acc;
    // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
    unsafe {
        wgmma_asm_n256!(acc0, acc1, acc2, acc3, "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", "{{{a0}, {a1}, {a2}, {a3}}}, {db}, p, 1, 1, {tb}; }}",
            a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3], db = in(reg64) desc_b, sd = in(reg32) scale_d, tb = const TB,)
    }
}

/// [`wgmma_m64n256k16_f32_f16_rs`] on bf16 operands.
///
/// # Safety
/// As [`wgmma_m64n256k16_f32_f16_rs`].
#[inline(always)]
pub unsafe fn wgmma_m64n256k16_f32_bf16_rs<const TB: u32>(acc: &mut [[f32; 32]; 4], a: [u32; 4], desc_b: u64, scale_d: u32) {
    let [acc0, acc1, acc2, acc3] = acc;
    // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
    unsafe {
        wgmma_asm_n256!(acc0, acc1, acc2, acc3, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", "{{{a0}, {a1}, {a2}, {a3}}}, {db}, p, 1, 1, {tb}; }}",
            a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3], db = in(reg64) desc_b, sd = in(reg32) scale_d, tb = const TB,)
    }
}

/// `setmaxnreg.inc.sync.aligned.u32 N;` — raises this warpgroup's register limit (consumers).
///
/// # Safety
/// sm_90a; all threads of the warpgroup together; the kernel has launch bounds (`.maxntid`), else ptxas
/// ignores it (TOOLCHAIN.md §4.4); `N` is a multiple of 8 in 24..=256.
#[inline(always)]
pub unsafe fn setmaxnreg_inc<const N: u32>() {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("setmaxnreg.inc.sync.aligned.u32 {n};", n = const N, options(nostack)) }
}

/// `setmaxnreg.dec.sync.aligned.u32 N;` — lowers this warpgroup's register limit (producers).
///
/// # Safety
/// As [`setmaxnreg_inc`].
#[inline(always)]
pub unsafe fn setmaxnreg_dec<const N: u32>() {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("setmaxnreg.dec.sync.aligned.u32 {n};", n = const N, options(nostack)) }
}

/// [`wgmma_fence_operand`] for the 8 accumulators of a `m64n16k16` ([`wgmma_m64n16k16_f32_f16`]).
#[inline(always)]
pub fn wgmma_fence_operand8(acc: &mut [f32; 8]) {
    // SAFETY: emits no instruction; only declares the registers read and written (as
    // `wgmma_fence_operand`).
    unsafe {
        asm!(
            "// wgmma_fence_operand8 {0} {1} {2} {3} {4} {5} {6} {7}",
            inout(reg32) acc[0], inout(reg32) acc[1], inout(reg32) acc[2], inout(reg32) acc[3],
            inout(reg32) acc[4], inout(reg32) acc[5], inout(reg32) acc[6], inout(reg32) acc[7],
            options(nomem, nostack)
        )
    }
}

/// An empty `asm!` that takes and returns every accumulator register: pins `acc` in place so that the
/// compiler cannot move a read or copy of an accumulator across [`wgmma_wait_group`] (or a write across
/// [`wgmma_fence`]). The asm blocks are ordered among themselves, and every later use of `acc` depends
/// on this one's outputs. (`wgmma` writes its registers asynchronously; rustc only sees the asm outputs.)
#[inline(always)]
pub fn wgmma_fence_operand(acc: &mut [f32; 32]) {
    // SAFETY: emits no instruction; only declares the registers read and written. Not `pure`, so it is
    // neither removed nor reordered with the other (non-pure) asm blocks.
    unsafe {
        asm!(
            "// wgmma_fence_operand {0} {1} {2} {3} {4} {5} {6} {7} {8} {9} {10} {11} {12} {13} {14} {15} {16} {17} {18} {19} {20} {21} {22} {23} {24} {25} {26} {27} {28} {29} {30} {31}",
            inout(reg32) acc[0], inout(reg32) acc[1], inout(reg32) acc[2], inout(reg32) acc[3],
            inout(reg32) acc[4], inout(reg32) acc[5], inout(reg32) acc[6], inout(reg32) acc[7],
            inout(reg32) acc[8], inout(reg32) acc[9], inout(reg32) acc[10], inout(reg32) acc[11],
            inout(reg32) acc[12], inout(reg32) acc[13], inout(reg32) acc[14], inout(reg32) acc[15],
            inout(reg32) acc[16], inout(reg32) acc[17], inout(reg32) acc[18], inout(reg32) acc[19],
            inout(reg32) acc[20], inout(reg32) acc[21], inout(reg32) acc[22], inout(reg32) acc[23],
            inout(reg32) acc[24], inout(reg32) acc[25], inout(reg32) acc[26], inout(reg32) acc[27],
            inout(reg32) acc[28], inout(reg32) acc[29], inout(reg32) acc[30], inout(reg32) acc[31],
            options(nomem, nostack)
        )
    }
}

/// A `wgmma.m64nNk16` accumulator (f32 D) held as **one flat array** of `N / 2` registers — the
/// module docs' fragment with `d[i]` = `self[i]` (columns `8·(i / 4) ..`) — for the N between the
/// blocked wrappers (`N = 64·b`): tiles whose height follows the shape (decode step d21: 80, 96, 144 or
/// 160 activation rows; 192, measured level with h11 in session 28, is built no more; d22 also 128; attention backward b4's
/// dQ half at D = 64: 32). One implementation per N, generated by `flat_wgmma!`.
///
/// # Safety
/// Implementations issue exactly the named instruction with `self` as its accumulator list, in order.
pub unsafe trait FlatWgmma {
    /// N of the instruction (twice the registers).
    const N: u32;
    /// `wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16 {self}, desc_a, desc_b, p, 1, 1, TA, TB;`.
    ///
    /// # Safety
    /// As [`wgmma_m64n64k16_f32_f16`], with B 16×N.
    unsafe fn mma_f16<const TA: u32, const TB: u32>(&mut self, desc_a: u64, desc_b: u64, scale_d: bool);
    /// The same on bf16 A and B.
    ///
    /// # Safety
    /// As [`FlatWgmma::mma_f16`].
    unsafe fn mma_bf16<const TA: u32, const TB: u32>(&mut self, desc_a: u64, desc_b: u64, scale_d: bool);
    /// [`wgmma_fence_operand`] on every register of `self`.
    fn fence_operand(&mut self);
}

/// Implements [`FlatWgmma`] for `[f32; NH]` (N = 2·NH): the accumulator list written out from the index
/// tokens (`[0 1 2 …]`, NH of them), the template assembled by `concat!`; `@mma` is one method, for the
/// instruction's type suffix (`f16`, `bf16`).
macro_rules! flat_wgmma {
    (@mma $method:ident, $ty:literal, $n:literal, [$first:literal $($i:literal)*]) => {
        #[inline(always)]
        unsafe fn $method<const TA: u32, const TB: u32>(&mut self, desc_a: u64, desc_b: u64, scale_d: bool) {
            // SAFETY: forwarded to the caller. Not `pure`: collective and reads shared memory.
            unsafe {
                asm!(
                    "{{ .reg .pred p; setp.ne.b32 p, {sd}, 0;",
                    concat!("wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.", $ty, ".", $ty),
                    concat!("{{{", $first, "}" $(, ", {", $i, "}")*, "}},"),
                    "{da}, {db}, p, 1, 1, {ta}, {tb}; }}",
                    inout(reg32) self[$first], $(inout(reg32) self[$i],)*
                    da = in(reg64) desc_a, db = in(reg64) desc_b, sd = in(reg32) scale_d as u32, ta = const TA, tb = const TB,
                    options(nostack)
                )
            }
        }
    };
    ($nh:literal, $n:literal, [$first:literal $($i:literal)*]) => {
        // SAFETY: each method issues the instruction its name says, on all of `self` in order.
        unsafe impl FlatWgmma for [f32; $nh] {
            const N: u32 = $n;
            flat_wgmma!(@mma mma_f16, "f16", $n, [$first $($i)*]);
            flat_wgmma!(@mma mma_bf16, "bf16", $n, [$first $($i)*]);
            #[inline(always)]
            fn fence_operand(&mut self) {
                // SAFETY: emits no instruction; only declares the registers read and written (as
                // `wgmma_fence_operand`).
                unsafe {
                    asm!(
                        concat!("// wgmma_fence_operand", $n, " {", $first, "}" $(, " {", $i, "}")*),
                        inout(reg32) self[$first], $(inout(reg32) self[$i],)*
                        options(nomem, nostack)
                    )
                }
            }
        }
    };
}

flat_wgmma!(16, 32, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]);
flat_wgmma!(40, 80, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39]);
flat_wgmma!(48, 96, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47]);
flat_wgmma!(64, 128, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63]);
flat_wgmma!(72, 144, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71]);
flat_wgmma!(80, 160, [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79]);

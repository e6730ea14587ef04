//! Assembles the embedded PTX with `ptxas -v` when it is on PATH (CI installs it from PyPI's
//! `nvidia-cuda-nvcc`) and checks the resource report: no spills or stack in any kernel. Without
//! ptxas the test says it was skipped.
use std::{io::Write, process::Command};

use kernel_lab_bench::{runtime::ptx, steps::Target};

struct Report {
    kernel: String,
    stack: u32,
    spill_stores: u32,
    spill_loads: u32,
    registers: u32,
}

fn ptxas_available() -> bool {
    Command::new("ptxas").arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

/// The resource report of every kernel (each family's module assembled on its own), and ptxas's lines
/// saying it serialized a kernel's `wgmma`s.
fn assemble(target: Target, arch: &str) -> (Vec<Report>, Vec<String>) {
    let dir = std::env::temp_dir().join(format!("kernel-lab-ptxas-{}-{}", std::process::id(), arch));
    std::fs::create_dir_all(&dir).unwrap();
    let mut log = String::new();
    for m in ptx::Module::ALL {
        if ptx::entries(m.ptx(target)).is_empty() {
            continue;
        }
        let src = dir.join(format!("{}_{}.ptx", target.name(), m.name()));
        std::fs::write(&src, m.ptx(target)).unwrap();
        let out = Command::new("ptxas").args(["-v", &format!("-arch={arch}"), "-o"]).arg(dir.join("k.cubin")).arg(&src)
            .output().expect("ptxas runs");
        let text = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "ptxas -arch={arch} rejected the {} {} PTX:\n{text}", m.name(), target.name());
        log += &text;
    }
    let mut reports: Vec<Report> = vec![];
    for line in log.lines() {
        if let Some(rest) = line.split("Function properties for ").nth(1) {
            reports.push(Report { kernel: rest.trim().to_string(), stack: 0, spill_stores: 0, spill_loads: 0, registers: 0 });
        } else if let Some(r) = reports.last_mut() {
            let num_before = |s: &str| -> u32 {
                line.split(s).next().and_then(|p| p.split_whitespace().last()).and_then(|n| n.parse().ok()).unwrap_or(0)
            };
            if line.contains("stack frame") {
                r.stack = num_before(" bytes stack frame");
                r.spill_stores = num_before(" bytes spill stores");
                r.spill_loads = num_before(" bytes spill loads");
            } else if line.contains("Used ") && line.contains(" registers") {
                r.registers = line.split("Used ").nth(1).and_then(|p| p.split_whitespace().next()).and_then(|n| n.parse().ok()).unwrap_or(0);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    // "(C7513/C7515/C7518) Potential Performance Loss: wgmma.mma_async instructions are serialized …":
    // printed as *info*, not as a warning, and it cost a7 its overlap (attention README).
    let serialized = log.lines().filter(|l| l.contains("are serialized")).map(str::to_string).collect();
    (reports, serialized)
}

/// The spills accepted, each with its measured size, the kernels it covers (a name prefix) and why:
/// (kernel prefix, ptxas arch prefix, most bytes of stack / spill stores / spill loads, reason).
const ACCEPTED_SPILLS: &[(&str, &str, u32, &str)] = &[
    // Prefill a26 (issue 49, session 63): a19 persistent over the host's unit list. 4 bytes of spill (an
    // 8-byte frame) at D = 64; 8 at D = 128. The SASS (session 78) puts them in the consumers, not the producer:
    // a row offset set up from the thread index before the unit loop, stored once and loaded once a unit (at
    // D = 128 also one value reloaded in the epilogue), outside the key loop.
    // Moving the unit's sequence out of the consumers' key loop (read again from the list in the epilogue)
    // took D = 128 from 24 to 8.
    ("attn_a26_d128_", "sm_90a", 8, "a26 D = 128 (kernels-gpu/src/attention/steps/v26_prefill_persistent.rs)"),
    ("attn_a31_d256_", "sm_90a", 28, "a31: the next unit's S beside this unit's O (kernels-gpu/src/attention/steps/v39_prefill_d256_cross_unit.rs)"),
    ("attn_a26_d64_", "sm_90a", 8, "a26 D = 64"),
    // Prefill a33 (issue 49, session 103: a19's problem on a11's mma.sync tiles, the library's prefill off Hopper):
    // at D = 64 (128-key tiles, S and O at 192 f32 a thread) ptxas for sm_80 keeps 8 bytes out; sm_90 and D = 128
    // none. The sequence's offsets, its query tile and the mask's shift are already re-read each tile (L1 hits,
    // `ctaid_xz_here`) instead of held: that took 16–24 bytes to these 8.
    ("attn_a33_d64_", "sm_80", 8, "a33 D = 64 on sm_80 (kernels-gpu/src/attention/steps/v40_prefill_fa2_varlen.rs)"),
    // Backward b1 (issue 50, session 51; the non-default atomic-dQ mode): 64–128 f32 of dK and dV per thread
    // next to Sᵀ, dPᵀ, the fragments and the tail-and-diagonal mask, at 255 registers. Six restructurings
    // (S and dP by halves of the tile, P packed to 16 bits before dP, dQ in two passes, shared-window
    // addressing of the row statistics, K/V and Q/dO from one base register, the epilogue's offsets
    // reloaded) each left 16–36 bytes; the default mode (b2: dK/dV and dQ apart) assembles spill-free.
    // Session 68 moved dK's products after dQ with the reductions among them (0.88–0.92× b1's time, with
    // these spills): D = 128 sm_80 8 → 0, sm_90 16 → 24; D = 64 sm_80 0 → 8, sm_90 24 → 16.
    // Backward b9 (issue 50, session 112: b4 with a producer warpgroup, the computing warpgroups at 240 registers by
    // `setmaxnreg`): at D = 128 12 bytes of spill (16-byte frame), causal 16 / 24; D = 64 none. ptxas allocates the
    // computing region to 240 (with the producer at 40 and them at 232: 8 / 20 bytes; at 224: 48 / 64); b4's body
    // with `.maxnreg 240` assembled without one, so the few values are b9's own (its stage releases, the pass walk).
    ("attn_bwd_b9_d128_", "sm_90a", 16, "b9 D = 128 (kernels-gpu/src/attention/steps/v41_backward_producer.rs)"),
    ("attn_bwd_b9c_d128_", "sm_90a", 24, "b9 causal D = 128"),
    ("attn_bwd_b1_d128_", "sm_80", 8, "b1 D = 128 on sm_80 (kernels-gpu/src/attention/README.md, backward)"),
    ("attn_bwd_b1_d64_", "sm_80", 8, "b1 D = 64 on sm_80"),
    ("attn_bwd_b1_d128_", "sm_90", 24, "b1 D = 128 on sm_90 and sm_90a"),
    ("attn_bwd_b1_d64_", "sm_90", 24, "b1 D = 64 on sm_90 and sm_90a"),
    // Backward b8 (issue 50, session 92; the atomic dQ on mma.sync at D = 64): Sᵀ and dPᵀ of 32 keys × 64 queries
    // (128 f32 a thread) beside dK and dV (64) — FlashAttention-2's own tiles there. 255 registers and no spill
    // for sm_80; for sm_90 8 bytes stored, 4 loaded, with which it measured 1.01–1.02× FA2 without the mask and
    // 1.14–1.19× causal on an H200 (results/2026-12-04-h200-session92).
    ("attn_bwd_b8_d64_", "sm_90", 8, "b8 D = 64 on sm_90 and sm_90a"),
    // FP8 weight-only w1 at 32 tokens (issue 51, session 54): two steps' operands (2 × 49 registers) and 32
    // accumulators at 128 registers a thread (two blocks a SM). Spill-free when the block's end was inline in
    // the kernel (`c68cf8e`); 72 / 84 / 144 bytes since it moved to `fp8/weight_only.rs`. Measured with the
    // spill: 1.25× the 16-bit GEMM at 32×28672×4096 (session 54: git show 72953c1:results/2026-11-29-h200-session54/README.md).
    ("fp8_w1_t32_", "sm_90", 144, "w1 t32 (kernels-gpu/src/fp8/README.md, weight-only decode)"),
    // w5 (w1 on packed weights, session 74): the same body with simpler addresses.
    ("fp8_w5_t32_", "sm_90", 144, "w5 t32 (kernels-gpu/src/fp8/README.md, weight-only decode)"),
    // Backward b3's causal dK/dV kernel at D = 128 (issue 50, session 60): 128 f32 of dK and dV per thread,
    // Sᵀ and dPᵀ (64), the last tile's dS fragments (16) held while its dK product runs into the next tile,
    // and the pass over a block and its mirror, at 255 registers: 32 bytes (a 40-byte frame); 56 since the
    // mask's compares moved into a branch of their own (session 65). The non-causal entry, one block per CTA,
    // assembles spill-free; the pairs measured 1.04–1.29× its speed on causal problems
    // (git show a873563:results/2026-11-30-h200-session60/README.md, call 9).
    ("attn_bwd_b3kvc_d128_", "sm_90", 56, "b3 causal dK/dV D = 128 (kernels-gpu/src/attention/README.md, backward)"),
    // Backward b4 at D = 128 (issue 50) has no entry since session 66: it spilled 24 bytes (causal 60) with
    // dQ's register atomics and the copies' addresses; dQ through shared memory, the dSᵀ stores' first row
    // `opaque` and Q and dO by the TMA took both to none.
];

#[test]
fn ptx_assembles_without_spills() {
    if !ptxas_available() {
        kernel_lab_bench::runtime::gpu::report_skip("ptx_assembles_without_spills", &"ptxas not on PATH (CI installs it; see .ci/run)");
        return;
    }
    for (target, arch) in [(Target::Sm80, "sm_80"), (Target::Sm80, "sm_90"), (Target::Sm90a, "sm_90a")] {
        let (reports, serialized) = assemble(target, arch);
        assert!(serialized.is_empty(), "ptxas -arch={arch} serialized wgmma:\n{}", serialized.join("\n"));
        assert_eq!(reports.len(), ptx::entries(target.ptx()).len(), "one ptxas report per kernel ({arch})");
        for r in &reports {
            assert!(r.registers > 0, "{}: no register count parsed ({arch})", r.kernel);
            // A kernel that calls vprintf (`printf!`) keeps its argument buffer in a stack frame (its address
            // is vprintf's second argument, as in CUDA C++); no spills even then.
            let prints = ptx::entry_body(target.ptx(), &r.kernel).is_some_and(|b| b.contains("vprintf"));
            let stack = if prints { 0 } else { r.stack };
            let allowed = ACCEPTED_SPILLS.iter().find(|a| r.kernel.starts_with(a.0) && arch.starts_with(a.1)).map_or(0, |a| a.2);
            assert!(stack <= allowed && r.spill_stores <= allowed && r.spill_loads <= allowed,
                    "{} on {arch}: stack frame / spills {:?} must be 0{}", r.kernel, (stack, r.spill_stores, r.spill_loads),
                    if allowed > 0 { format!(" (at most {allowed} bytes accepted, see ACCEPTED_SPILLS)") } else { String::new() });
        }
        // HGEMM v10's lesson is registers on Hopper: the same loop as v9 with its 32 `ldmatrix` offsets
        // reduced to 8 bases (+ immediates). (ptxas for sm_80 allocates differently: 253 vs 249.)
        let regs = |k: &str| reports.iter().find(|r| r.kernel == k).map(|r| r.registers).unwrap_or(0);
        if arch != "sm_80" {
            assert!(regs("hgemm_block_v10") + 8 <= regs("hgemm_block_v9"), "{arch}: v10 {} registers, v9 {}", regs("hgemm_block_v10"), regs("hgemm_block_v9"));
        }
        let _ = writeln!(std::io::stderr(), "ptxas -arch={arch}: {}", reports.iter().map(|r| format!("{} {} regs", r.kernel, r.registers)).collect::<Vec<_>>().join(", "));
    }
}

//! `--ncu` and `--sanitize`: the suite re-runs itself under Nsight Compute (shared-memory wavefront and
//! bank-conflict counters, shown beside the bank model's predictions) or under compute-sanitizer
//! (memcheck, racecheck, synccheck), on small `--check` workloads, and summarises. The same commands
//! `scripts/gpu-run.sh` runs, driven from the binary so a user needs only `cargo run --release -- --ncu`.
use std::{
    fmt::Write as _,
    path::{Path, PathBuf},
    process::Command,
};

use kernel_lab_bench::{
    Error, Result,
    families::{bankcheck, gemm::Shape},
    steps::{self, Family},
};

use crate::cli::{layout as layoutcli, options::Options};

/// GEMM shapes under compute-sanitizer: ragged edges (1000³), and more tiles than SMs with few K tiles
/// (4096×4096×128: 512 Hopper tiles of 2 K tiles each), so the persistent steps' stage ring wraps
/// across tiles while every step stays cheap enough for the instrumented run; 300×520×192 mixes
/// interior and edge blocks in one launch (HGEMM v9 runs a different loop for each).
pub const SANITIZE_GEMM_SHAPES: &str = "1000,4096x4096x128,300x520x192";

/// The shared-memory metrics every profile collects (and the `cp.async` sectors).
pub const METRICS: &str = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,\
sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum";


fn on_path(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

fn this_exe() -> Result<PathBuf> {
    std::env::current_exe().map_err(|e| Error::InvalidInput(format!("cannot locate the kernel-lab binary to re-run it: {e}")))
}

/// The child runs per family: (family, kernel regex, arguments of the child `kernel-lab`).
fn workloads(o: &Options) -> Vec<(Family, &'static str, Vec<&'static str>)> {
    let mut w = vec![];
    for f in &o.families {
        let (regex, args): (&str, Vec<&str>) = match f {
            Family::Reduce => ("regex:reduce_v", vec!["--family", "reduce", "--check", "--sizes", "2^20"]),
            Family::Sgemm => ("regex:sgemm_v", vec!["--family", "sgemm", "--check", "--gemm-sizes", "1024"]),
            Family::Hgemm => ("regex:hgemm_(block|tma_v6)", vec!["--family", "hgemm", "--check", "--gemm-sizes", "1024"]),
            Family::HgemmWarp => ("regex:hgemm_warp", vec!["--family", "hgemm-warp", "--check"]),
            Family::Bankcheck => ("regex:bank_replay", vec!["layout", "bankcheck", "--run"]),
            // FP8: TMA and wgmma move every tile; the only shared accesses are h6's conflict-free C staging.
            Family::Selftest | Family::Gemm | Family::Fp8 | Family::Attention | Family::Check | Family::External => continue,
        };
        w.push((*f, regex, args));
    }
    w
}

/// Runs each family's workload under `ncu`, writes `ncu-<family>.csv` into `out`, and returns the
/// model-vs-`ncu` tables (markdown), with disagreements counted where the comparison is exact.
pub fn ncu(o: &Options, out: &Path) -> Result<String> {
    if !on_path("ncu") {
        return Err(Error::InvalidInput("--ncu needs Nsight Compute's `ncu` on PATH".into()));
    }
    std::fs::create_dir_all(out).map_err(|e| Error::InvalidInput(format!("cannot create {}: {e}", out.display())))?;
    let exe = this_exe()?;
    let mut md = String::from("# Bank model vs Nsight Compute\n\n");
    for (family, regex, args) in workloads(o) {
        let csv_path = out.join(format!("ncu-{}.csv", family.name()));
        let mut cmd = Command::new("ncu");
        cmd.args(["--clock-control", "none", "--metrics", METRICS, "-k", regex, "--csv"]).arg(&exe).args(&args);
        if family != Family::Bankcheck {
            cmd.arg("--out").arg(out.join("child-report")); // keep the child's own report out of ours
        }
        let output = cmd.output().map_err(|e| Error::InvalidInput(format!("cannot run ncu: {e}")))?;
        std::fs::write(&csv_path, &output.stdout).map_err(|e| Error::InvalidInput(format!("cannot write {}: {e}", csv_path.display())))?;
        let csv = csv_path.to_string_lossy().into_owned();
        let _ = writeln!(md, "## {} (`ncu … {}`)\n", family.name(), args.join(" "));
        let table = match family {
            Family::Reduce => layoutcli::trace_table(1 << 20, Some(&csv)),
            Family::Sgemm => layoutcli::sgemm_trace_table(Shape::new(1024, 1024, 1024)?, Some(&csv)),
            Family::Hgemm => layoutcli::hgemm_trace_table(Shape::new(1024, 1024, 1024)?, Some(&csv)),
            Family::HgemmWarp => layoutcli::hgemm_warp_trace_table(Some(&csv)),
            Family::Bankcheck => {
                let text = String::from_utf8_lossy(&output.stdout).into_owned();
                let ps = bankcheck::patterns();
                let has_sm90 = text.contains("bank_replay_stmatrix");
                let ran: Vec<bool> = ps.iter().map(|p| has_sm90 || !p.form.kernel().contains("stmatrix")).collect();
                bankcheck::compare(&ps, &ran, &text).map(|rows| {
                    let bad = rows.iter().filter(|r| r.measured.is_some_and(|m| m != r.predicted)).count();
                    format!("{}\n**{bad} disagreement(s)** of {} patterns (known ones: results/2026-11-22-h200-bankcheck).\n", bankcheck::comparison_table(&rows), rows.len())
                })
            }
            Family::Selftest | Family::Gemm | Family::Fp8 | Family::Attention | Family::Check | Family::External => continue,
        };
        match table {
            Ok(t) => {
                let _ = writeln!(md, "{t}");
                if family != Family::Bankcheck {
                    let _ = writeln!(md, "{}\n", disagreements(&t));
                }
            }
            Err(e) => {
                let _ = writeln!(md, "FAILED: {e}\n\n```\n{}\n```\n", String::from_utf8_lossy(&output.stderr).lines().rev().take(20).collect::<Vec<_>>().join("\n"));
            }
        }
    }
    let path = out.join("ncu.md");
    std::fs::write(&path, &md).map_err(|e| Error::InvalidInput(format!("cannot write {}: {e}", path.display())))?;
    Ok(md)
}

/// Counts `pred / ncu` cells of a trace table that differ, flagging them.
pub fn disagreements(table: &str) -> String {
    let (mut cells, mut differ) = (0, 0);
    // Every body row (`| `k` | …` or `| v1 | `k` | …`); header cells hold text, not `number / number`.
    for line in table.lines().filter(|l| l.starts_with('|') && !l.starts_with("|-")) {
        for cell in line.split('|') {
            let parts: Vec<&str> = cell.split(" / ").map(str::trim).collect();
            if parts.len() == 2 && parts[1] != "-" && parts[0].parse::<u64>().is_ok() {
                cells += 1;
                differ += (parts[0] != parts[1]) as usize;
            }
        }
    }
    format!("**{differ} of {cells} predicted counts differ from ncu** (loads of multi-block launches and stores carry a few % of contention that `ncu` counts as conflicts; see layout/src/bank.rs).")
}

/// Runs every family's `--check` under compute-sanitizer's memcheck, racecheck and synccheck; returns
/// a summary that separates hazards in our kernels from hazards inside library (cuBLAS) kernels.
pub fn sanitize(o: &Options, out: &Path) -> Result<(String, bool)> {
    if !on_path("compute-sanitizer") {
        return Err(Error::InvalidInput("--sanitize needs `compute-sanitizer` on PATH".into()));
    }
    std::fs::create_dir_all(out).map_err(|e| Error::InvalidInput(format!("cannot create {}: {e}", out.display())))?;
    let exe = this_exe()?;
    let families: Vec<&str> = o.families.iter().filter(|f| **f != Family::Bankcheck).map(|f| f.name()).collect();
    let families = families.join(",");
    let mut md = String::from("# compute-sanitizer\n\n| tool | summary | errors in our kernels | errors in library kernels |\n|---|---|---:|---:|\n");
    let mut clean = true;
    for tool in ["memcheck", "racecheck", "synccheck"] {
        let output = Command::new("compute-sanitizer").args(["--tool", tool]).arg(&exe)
            .args(["--family", &families, "--check", "--sizes", "1000,4097,65543", "--gemm-sizes", SANITIZE_GEMM_SHAPES])
            .arg("--out").arg(out.join("child-report"))
            .output().map_err(|e| Error::InvalidInput(format!("cannot run compute-sanitizer: {e}")))?;
        let text = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
        let log = out.join(format!("sanitize-{tool}.txt"));
        std::fs::write(&log, &text).map_err(|e| Error::InvalidInput(format!("cannot write {}: {e}", log.display())))?;
        let (ours, library) = classify(&text);
        clean &= ours == 0;
        let summary = text.lines().filter(|l| l.contains("SUMMARY")).map(|l| l.trim_start_matches("= ").trim_matches('=').trim()).collect::<Vec<_>>().join("; ");
        let _ = writeln!(md, "| {tool} | {summary} | {ours} | {library} |");
    }
    let path = out.join("sanitize.md");
    std::fs::write(&path, &md).map_err(|e| Error::InvalidInput(format!("cannot write {}: {e}", path.display())))?;
    Ok((md, clean))
}

/// Error reports (`Error: ... at <kernel>+0x…` or `in <kernel>`) counted by whether the kernel is ours
/// (in the registry) or a library's.
pub fn classify(text: &str) -> (usize, usize) {
    let (mut ours, mut library) = (0, 0);
    for line in text.lines().filter(|l| l.contains("Error:") || l.contains("Race reported")) {
        let mine = steps::all().any(|k| line.contains(&format!("{}+", k.name)) || line.contains(&format!(" {}(", k.name)) || line.contains(&format!("in {}", k.name)));
        if mine { ours += 1 } else { library += 1 }
    }
    (ours, library)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hazards_are_attributed_to_our_kernels_or_the_library() {
        let text = "========= Error: Race reported between Read access at nvjet_sm90_hsh_128x72_64x8_4x2_h_bz_NNT+0xa60\n\
                    ========= Error: Race reported between Write access at hgemm_block_v5+0x140\n\
                    ========= ERROR SUMMARY: 2 errors\n";
        assert_eq!(classify(text), (1, 1));
        assert_eq!(classify("========= ERROR SUMMARY: 0 errors"), (0, 0));
    }

    #[test]
    fn disagreements_are_counted_per_cell() {
        let t = "| kernel | a | b |\n|---|---|---|\n| `k1` | 10 / 10 | 0 / 3 |\n| `k2` | 5 / - | 7 / 7 |\n";
        assert!(disagreements(t).contains("**1 of 3"), "{}", disagreements(t));
        // Tables that lead with a step column (hgemm-warp) count too.
        let t = "| step | kernel | ld (pred / ncu) |\n|---|---|---:|\n| v2 | `w2` | 20 / 20 |\n| v3 | `w3` | 12 / 11 |\n";
        assert!(disagreements(t).contains("**1 of 2"), "{}", disagreements(t));
    }

    #[test]
    fn workloads_cover_the_profiled_families() {
        let o = Options::parse(["--family", "reduce,sgemm,hgemm,hgemm-warp,bankcheck,selftest"].map(String::from)).unwrap().unwrap();
        let w = workloads(&o);
        assert_eq!(w.len(), 5, "selftest is not profiled");
        assert!(w.iter().all(|(_, re, _)| re.starts_with("regex:")));
    }
}

//! `--ncu` and `--sanitize`: the suite re-runs itself under Nsight Compute (shared-memory wavefront and
//! bank-conflict counters, shown beside the bank model's predictions) or under compute-sanitizer
//! (memcheck, racecheck, synccheck), on small `--check` workloads, and summarises. The same commands
//! `scripts/gpu-run.sh` runs, driven from the binary so a user needs only `cargo run --release -- --ncu`.
use std::{
    fmt::Write as _,
    io::{BufRead, BufReader, Read},
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    time::{Duration, Instant},
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

/// The compute-sanitizer tools `--sanitize` runs, in order.
pub const SANITIZE_TOOLS: [&str; 3] = ["memcheck", "racecheck", "synccheck"];

/// How often a child that is still running says so on stderr.
const HEARTBEAT: Duration = Duration::from_secs(60);

/// `[sanitize 3/9] memcheck fp8`: the prefix of every progress line of one child (stderr).
fn progress_label(kind: &str, index: usize, total: usize, what: &str) -> String {
    format!("[{kind} {index}/{total}] {what}")
}

/// Runs `cmd` as [`Command::output`] does (stdin closed, stdout and stderr captured), but prints
/// `label: still running (N s)` to stderr every [`HEARTBEAT`] and echoes, prefixed with `label`, the
/// lines of either stream that `echo` picks; returns the output and the seconds it took.
fn run_child(mut cmd: Command, label: &str, echo: fn(&str) -> bool) -> std::io::Result<(Output, f64)> {
    let start = Instant::now();
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    let pump = |stream: Option<Box<dyn Read + Send>>| {
        let mut all = vec![];
        if let Some(stream) = stream {
            let mut reader = BufReader::new(stream);
            let mut line = vec![];
            while reader.read_until(b'\n', &mut line).map(|n| n > 0).unwrap_or(false) {
                let text = String::from_utf8_lossy(&line);
                if echo(text.trim_end()) {
                    eprintln!("{label}: {}", text.trim_end());
                }
                all.append(&mut line);
            }
        }
        all
    };
    let (out, err) = (child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>), child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>));
    std::thread::scope(|scope| {
        let (out, err) = (scope.spawn(|| pump(out)), scope.spawn(|| pump(err)));
        let mut next = HEARTBEAT;
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) => {}
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(e);
                }
            }
            if start.elapsed() >= next {
                eprintln!("{label}: still running ({} s)", next.as_secs());
                next += HEARTBEAT;
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        let (stdout, stderr) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
        Ok((Output { status, stdout, stderr }, start.elapsed().as_secs_f64()))
    })
}

/// How a child ended, for a progress line: `exit 1`, or `killed by a signal`.
fn exit_text(status: &std::process::ExitStatus) -> String {
    status.code().map(|c| format!("exit {c}")).unwrap_or_else(|| "killed by a signal".into())
}

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
            Family::Selftest | Family::Gemm | Family::Fp8 | Family::Attention | Family::Comm | Family::Check | Family::External => continue,
        };
        w.push((*f, regex, args));
    }
    w
}

/// The lines of an `ncu` child worth echoing as progress: one per kernel profiled, and ncu's own
/// warnings and errors.
fn ncu_progress_line(line: &str) -> bool {
    line.starts_with("==PROF== Profiling") || line.starts_with("==WARNING==") || line.starts_with("==ERROR==")
}

/// Runs each family's workload under `ncu`, writes `ncu-<family>.csv` into `out`, and returns the
/// model-vs-`ncu` tables (markdown), with disagreements counted where the comparison is exact. One child
/// per family (the bank model's tables compare one report per family); progress on stderr: a line as
/// each child starts, one per kernel `ncu` profiles, one a minute while it runs, one as it ends.
pub fn ncu(o: &Options, out: &Path) -> Result<String> {
    if !on_path("ncu") {
        return Err(Error::InvalidInput("--ncu needs Nsight Compute's `ncu` on PATH".into()));
    }
    std::fs::create_dir_all(out).map_err(|e| Error::InvalidInput(format!("cannot create {}: {e}", out.display())))?;
    let exe = this_exe()?;
    let mut md = String::from("# Bank model vs Nsight Compute\n\n");
    let work = workloads(o);
    let total = work.len();
    for (i, (family, regex, args)) in work.into_iter().enumerate() {
        let label = progress_label("ncu", i + 1, total, family.name());
        eprintln!("{label}: ncu -k {regex} kernel-lab {} ...", args.join(" "));
        let csv_path = out.join(format!("ncu-{}.csv", family.name()));
        let mut cmd = Command::new("ncu");
        cmd.args(["--clock-control", "none", "--metrics", METRICS, "-k", regex, "--csv"]).arg(&exe).args(&args);
        if family != Family::Bankcheck {
            cmd.arg("--out").arg(out.join("child-report")); // keep the child's own report out of ours
        }
        let (output, secs) = run_child(cmd, &label, ncu_progress_line).map_err(|e| {
            eprintln!("{label}: failed to run: {e}");
            Error::InvalidInput(format!("cannot run ncu: {e}"))
        })?;
        std::fs::write(&csv_path, &output.stdout).map_err(|e| Error::InvalidInput(format!("cannot write {}: {e}", csv_path.display())))?;
        let csv = csv_path.to_string_lossy().into_owned();
        let _ = writeln!(md, "## {} (`ncu … {}`)\n", family.name(), args.join(" "));
        let mut verdict = String::new();
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
                    verdict = format!("{bad} disagreement(s) of {} patterns", rows.len());
                    format!("{}\n**{bad} disagreement(s)** of {} patterns (known ones: results/2026-11-22-h200-bankcheck).\n", bankcheck::comparison_table(&rows), rows.len())
                })
            }
            Family::Selftest | Family::Gemm | Family::Fp8 | Family::Attention | Family::Comm | Family::Check | Family::External => continue,
        };
        match table {
            Ok(t) => {
                let _ = writeln!(md, "{t}");
                if family != Family::Bankcheck {
                    let _ = writeln!(md, "{}\n", disagreements(&t));
                    let (differ, cells) = disagreement_counts(&t);
                    verdict = if cells == 0 { "no ncu counts in the table (no kernel profiled?)".into() } else { format!("{differ} of {cells} predicted counts differ") };
                }
            }
            Err(e) => {
                let _ = writeln!(md, "FAILED: {e}\n\n```\n{}\n```\n", String::from_utf8_lossy(&output.stderr).lines().rev().take(20).collect::<Vec<_>>().join("\n"));
                verdict = format!("no table: {e}");
            }
        }
        if !output.status.success() {
            verdict = format!("{verdict}; ncu {}", exit_text(&output.status));
        }
        eprintln!("{label}: {verdict} ({secs:.1} s)");
    }
    let path = out.join("ncu.md");
    std::fs::write(&path, &md).map_err(|e| Error::InvalidInput(format!("cannot write {}: {e}", path.display())))?;
    Ok(md)
}

/// `(differing, compared)`: the `pred / ncu` cells of a trace table, and how many of them differ.
fn disagreement_counts(table: &str) -> (usize, usize) {
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
    (differ, cells)
}

/// Counts `pred / ncu` cells of a trace table that differ, flagging them.
pub fn disagreements(table: &str) -> String {
    let (differ, cells) = disagreement_counts(table);
    format!("**{differ} of {cells} predicted counts differ from ncu** (loads of multi-block launches and stores carry a few % of contention that `ncu` counts as conflicts; see layout/src/bank.rs).")
}

/// The compute-sanitizer children of `--sanitize`, in the order they run: each tool over each family
/// of the run (bankcheck aside: its replay kernels are for `--ncu`). One child per family, not per step:
/// a family's baseline (cuBLAS, cuBLASLt, the unfused attention path) runs in every child, so children
/// per step would re-run it (and recount its hazards) once per step.
fn sanitize_children(o: &Options) -> Vec<(&'static str, Family)> {
    let mut families: Vec<Family> = vec![];
    for &f in &o.families {
        if f != Family::Bankcheck && !families.contains(&f) {
            families.push(f);
        }
    }
    SANITIZE_TOOLS.iter().flat_map(|&tool| families.iter().map(move |&f| (tool, f))).collect()
}

/// The arguments of the `kernel-lab` a compute-sanitizer child runs for `family` (`--out` aside).
fn sanitize_args(family: Family) -> [&'static str; 7] {
    ["--family", family.name(), "--check", "--sizes", "1000,4097,65543", "--gemm-sizes", SANITIZE_GEMM_SHAPES]
}

/// A compute-sanitizer child's `SUMMARY` lines, `; `-joined (empty if it printed none).
fn summary_of(text: &str) -> String {
    text.lines().filter(|l| l.contains("SUMMARY")).map(|l| l.trim_start_matches("= ").trim_matches('=').trim()).collect::<Vec<_>>().join("; ")
}

/// One tool's summary cell from its children's `(family, summary)`: the summary alone when every family
/// gave the same (as one child over every family did), else each distinct summary with its families.
fn summary_cell(per_family: &[(&str, String)]) -> String {
    let mut groups: Vec<(&str, Vec<&str>)> = vec![];
    for (family, summary) in per_family {
        match groups.iter_mut().find(|g| g.0 == summary) {
            Some(g) => g.1.push(family),
            None => groups.push((summary, vec![family])),
        }
    }
    if groups.len() <= 1 {
        return groups.first().map(|g| g.0.to_string()).unwrap_or_default();
    }
    groups.iter().map(|(s, f)| format!("{} ({})", if s.is_empty() { "no SUMMARY line" } else { s }, f.join(", "))).collect::<Vec<_>>().join("; ")
}

/// How one compute-sanitizer child ended, for its progress line: `clean`, `N error(s) …`, or `failed
/// to run` when compute-sanitizer printed no summary; `status` is the child's exit code (None: a signal).
fn sanitize_verdict(text: &str, status: Option<i32>, log: &str) -> String {
    let how = status.map(|c| format!("exit {c}")).unwrap_or_else(|| "killed by a signal".into());
    if !text.lines().any(|l| l.contains("SUMMARY")) {
        return format!("failed to run ({how}; see {log})");
    }
    let verdict = match classify(text) {
        (0, 0) => "clean".to_string(),
        (ours, 0) => format!("{ours} error(s) in our kernels"),
        (0, library) => format!("clean; {library} error(s) in library kernels"),
        (ours, library) => format!("{ours} error(s) in our kernels, {library} in library kernels"),
    };
    if status == Some(0) { verdict } else { format!("{verdict}; the run ended with {how} (see {log})") }
}

/// Runs every family's `--check` under compute-sanitizer's memcheck, racecheck and synccheck (one child
/// per tool and family, progress on stderr); returns a summary that separates hazards in our kernels
/// from hazards inside library (cuBLAS) kernels.
pub fn sanitize(o: &Options, out: &Path) -> Result<(String, bool)> {
    if !on_path("compute-sanitizer") {
        return Err(Error::InvalidInput("--sanitize needs `compute-sanitizer` on PATH".into()));
    }
    let children = sanitize_children(o);
    if children.is_empty() {
        return Err(Error::InvalidInput("--sanitize: --family names no family to check (bankcheck's replay kernels are for --ncu)".into()));
    }
    std::fs::create_dir_all(out).map_err(|e| Error::InvalidInput(format!("cannot create {}: {e}", out.display())))?;
    let exe = this_exe()?;
    let total = children.len();
    eprintln!("sanitize: {total} runs of `kernel-lab --family F {}` under compute-sanitizer ({} × {}); logs in {}",
              sanitize_args(Family::Reduce)[2..].join(" "), SANITIZE_TOOLS.join(", "),
              children.iter().filter(|c| c.0 == SANITIZE_TOOLS[0]).map(|c| c.1.name()).collect::<Vec<_>>().join(", "), out.display());
    let mut md = String::from("# compute-sanitizer\n\n| tool | summary | errors in our kernels | errors in library kernels |\n|---|---|---:|---:|\n");
    let mut clean = true;
    for tool in SANITIZE_TOOLS {
        let log = out.join(format!("sanitize-{tool}.txt"));
        let (mut text_all, mut summaries, mut ours_all, mut library_all) = (String::new(), vec![], 0, 0);
        for (i, &(_, family)) in children.iter().enumerate().filter(|(_, c)| c.0 == tool) {
            let label = progress_label("sanitize", i + 1, total, &format!("{tool} {}", family.name()));
            eprintln!("{label} ...");
            let mut cmd = Command::new("compute-sanitizer");
            cmd.args(["--tool", tool]).arg(&exe).args(sanitize_args(family)).arg("--out").arg(out.join("child-report"));
            let (output, secs) = run_child(cmd, &label, |_| false).map_err(|e| {
                eprintln!("{label}: failed to run: {e}");
                Error::InvalidInput(format!("cannot run compute-sanitizer: {e}"))
            })?;
            let text = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
            let (ours, library) = classify(&text);
            clean &= ours == 0;
            (ours_all, library_all) = (ours_all + ours, library_all + library);
            summaries.push((family.name(), summary_of(&text)));
            // The tool's log holds its children's output one after another, rewritten as each ends.
            let _ = writeln!(text_all, "### kernel-lab {} under compute-sanitizer --tool {tool}: {}, {secs:.1} s", sanitize_args(family).join(" "), exit_text(&output.status));
            text_all += &text;
            std::fs::write(&log, &text_all).map_err(|e| Error::InvalidInput(format!("cannot write {}: {e}", log.display())))?;
            let log_name = log.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            eprintln!("{label}: {} ({secs:.1} s)", sanitize_verdict(&text, output.status.code(), &log_name));
        }
        let _ = writeln!(md, "| {tool} | {} | {ours_all} | {library_all} |", summary_cell(&summaries));
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
        assert_eq!(disagreement_counts(t), (1, 2));
    }

    #[test]
    fn workloads_cover_the_profiled_families() {
        let o = Options::parse(["--family", "reduce,sgemm,hgemm,hgemm-warp,bankcheck,selftest"].map(String::from)).unwrap().unwrap();
        let w = workloads(&o);
        assert_eq!(w.len(), 5, "selftest is not profiled");
        assert!(w.iter().all(|(_, re, _)| re.starts_with("regex:")));
    }

    #[test]
    fn sanitize_runs_each_tool_over_each_family_with_progress_labels() {
        let parse = |a: &[&str]| Options::parse(a.iter().map(|s| s.to_string())).unwrap().unwrap();
        let c = sanitize_children(&parse(&["--sanitize", "--family", "attention,gemm,fp8,bankcheck,gemm"]));
        assert_eq!(c.len(), 9, "bankcheck is for --ncu; a family named twice runs once");
        let labels: Vec<String> = c.iter().enumerate().map(|(i, (t, f))| progress_label("sanitize", i + 1, c.len(), &format!("{t} {}", f.name()))).collect();
        assert_eq!(labels[0], "[sanitize 1/9] memcheck attention");
        assert_eq!(labels[2], "[sanitize 3/9] memcheck fp8");
        assert_eq!(labels[3], "[sanitize 4/9] racecheck attention");
        assert_eq!(labels[8], "[sanitize 9/9] synccheck fp8");
        assert_eq!(sanitize_args(Family::Fp8)[..3], ["--family", "fp8", "--check"]);
        // Every family by default: three tools over the eight checked families.
        assert_eq!(sanitize_children(&parse(&["--sanitize"])).len(), 3 * (Family::ALL.len() - 1));
        assert!(sanitize_children(&parse(&["--sanitize", "--family", "bankcheck"])).is_empty());
    }

    #[test]
    fn sanitize_summaries_and_verdicts() {
        let s = |x: &str| x.to_string();
        // Every family alike: the cell one child over every family gave.
        assert_eq!(summary_cell(&[("reduce", s("ERROR SUMMARY: 0 errors")), ("fp8", s("ERROR SUMMARY: 0 errors"))]), "ERROR SUMMARY: 0 errors");
        assert_eq!(summary_cell(&[("reduce", s("ERROR SUMMARY: 0 errors")), ("fp8", s("ERROR SUMMARY: 2 errors")), ("gemm", s(""))]),
                   "ERROR SUMMARY: 0 errors (reduce); ERROR SUMMARY: 2 errors (fp8); no SUMMARY line (gemm)");
        assert_eq!(summary_cell(&[]), "");
        assert_eq!(summary_of("x\n========= ERROR SUMMARY: 0 errors\n"), "ERROR SUMMARY: 0 errors");
        let log = "sanitize-memcheck.txt";
        assert_eq!(sanitize_verdict("========= ERROR SUMMARY: 0 errors", Some(0), log), "clean");
        let hazards = "========= Error: Race reported between Write access at hgemm_block_v5+0x140\n========= ERROR SUMMARY: 1 error";
        assert_eq!(sanitize_verdict(hazards, Some(0), log), "1 error(s) in our kernels");
        assert_eq!(sanitize_verdict("error: no GPU", Some(2), log), "failed to run (exit 2; see sanitize-memcheck.txt)");
        assert_eq!(sanitize_verdict("========= ERROR SUMMARY: 0 errors", Some(1), log), "clean; the run ended with exit 1 (see sanitize-memcheck.txt)");
        assert!(ncu_progress_line("==PROF== Profiling \"reduce_v3\" - 0: 0%....50%....100% - 9 passes") && !ncu_progress_line("\"ID\",\"Kernel Name\""));
    }

    #[test]
    fn children_are_captured_like_command_output() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "echo '==PROF== Profiling \"k\"'; echo table; echo oops >&2; exit 3"]);
        let (o, secs) = run_child(cmd, "[ncu 1/1] test", ncu_progress_line).unwrap();
        assert_eq!((o.status.code(), o.stdout.as_slice(), o.stderr.as_slice()), (Some(3), &b"==PROF== Profiling \"k\"\ntable\n"[..], &b"oops\n"[..]));
        assert!(secs < 30.0);
        assert!(run_child(Command::new("/nonexistent/ncu"), "x", |_| false).is_err());
    }
}

//! The `kernel-lab` command line, on top of the `kernel_lab` library (which never imports it):
//! [`options`] (flags, `--help`), [`headline`] (what `cargo run --release` runs), [`suite`] (the
//! tables of `--full` and of any selecting option), [`list`] (`--list`),
//! [`ab`] (two steps head to head), [`layout`] (bank maps, solver, traces: no GPU needed),
//! [`report`] (tables and SVG plots from a run's JSON), [`profile`] (`--ncu`, `--sanitize`: the suite
//! re-run under Nsight Compute or compute-sanitizer), [`tables`] (text tables), [`stamp`] (commit, date),
//! [`tuned`] (what the autotune cache holds), [`calibrate`] (the GEMM cost model's constants; `rank`: how
//! well it ranks), [`decode`] (decode attention on serving shapes), [`prefill`] (prefill attention on model shapes,
//! packed variable lengths).
pub mod ab;
pub mod calibrate;
pub mod decode;
pub mod headline;
pub mod layout;
pub mod list;
pub mod options;
pub mod prefill;
pub mod profile;
pub mod report;
pub mod stamp;
pub mod suite;
pub mod tables;
pub mod tuned;

/// Dispatches on the first argument (`layout`, `report`, `ab`, `tuned`, or the suite's options); returns the
/// process exit code (0 all good, 1 a check failed, 2 no GPU or bad usage).
pub fn main_with_args(args: impl IntoIterator<Item = String>) -> i32 {
    let args: Vec<String> = args.into_iter().collect();
    match args.first().map(|a| a.as_str()) {
        Some("layout") => return layout::main(args[1..].to_vec()),
        Some("report") => return report::main(&args[1..]),
        Some("ab") => return ab::main(&args[1..]),
        Some("tuned") => return tuned::main(&args[1..]),
        Some("calibrate") => return calibrate::main(&args[1..]),
        Some("rank") => return calibrate::rank_main(&args[1..]),
        Some("decode") => return decode::main(&args[1..]),
        Some("prefill") => return prefill::main(&args[1..]),
        _ => {}
    }
    match options::Options::parse(args) {
        Ok(Some(o)) => match suite::open(&o) {
            Err(code) => code,
            Ok(gpu) if o.headline => headline::run(&gpu, &o),
            Ok(gpu) => suite::run(gpu, o),
        },
        Ok(None) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

//! `kernel-lab tuned [--tune-cache PATH]`: what the autotune cache holds — per GPU, type and shape the
//! step it chose, the rule's choice and how much faster the tuned one ran (no GPU needed).
use kernel_lab_bench::tune::{self, TuneCache};

/// The `tuned` subcommand; returns the exit code (0, or 2 for bad usage or an unreadable cache).
pub fn main(args: &[String]) -> i32 {
    let mut path = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--tune-cache" => match it.next() {
                Some(p) => path = Some(std::path::PathBuf::from(p)),
                None => {
                    eprintln!("error: --tune-cache needs a value");
                    return 2;
                }
            },
            "-h" | "--help" => {
                println!("kernel-lab tuned [--tune-cache PATH]: the autotune cache's entries (default: $KERNEL_LAB_TUNE_CACHE, else\n$XDG_CACHE_HOME or ~/.cache, kernel-lab/gemm-tune.json); no GPU needed");
                return 0;
            }
            other => {
                eprintln!("error: tuned: unknown option `{other}` (see `tuned --help`)");
                return 2;
            }
        }
    }
    let path = match path.map(Ok).unwrap_or_else(tune::default_path) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    match TuneCache::open(&path) {
        Ok(c) if c.is_empty() => {
            println!("{}: no tunings (run the gemm or fp8 family with --autotune)", path.display());
            0
        }
        Ok(c) => {
            println!("{}: {} tuning{}\n{}", path.display(), c.len(), if c.len() == 1 { "" } else { "s" }, table(&c));
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

/// One line per tuning: GPU, type, shape, the tuned step, the rule's, the rule's median over the tuned
/// one's, how many candidates were timed and when.
pub fn table(c: &TuneCache) -> String {
    let mut s = format!("{:<24} {:<12} {:>18} {:<10} {:<10} {:>10} {:>6}  {}\n", "GPU", "type", "M x N x K", "tuned", "rule", "rule/tuned", "timed", "when (UTC)");
    for (key, e) in c.entries() {
        // The key's first field is the GPU; its last two the type and the shape (`Key::as_string`).
        let fields: Vec<&str> = key.split('|').collect();
        let (gpu, kind, shape) = (fields[0], fields[fields.len().saturating_sub(2)], fields[fields.len() - 1]);
        let gain = e.gain_over_rule().map(|g| format!("{g:.3}x")).unwrap_or_else(|| "-".into());
        s += &format!("{:<24} {:<12} {:>18} {:<10} {:<10} {:>10} {:>6}  {}\n", gpu.trim_start_matches("NVIDIA "), kind, shape, e.step, e.rule, gain,
                      e.timed.len(), crate::cli::stamp::utc(e.unix_ms));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_lab_bench::tune::{Entry, Key, Timed};

    #[test]
    fn the_table_names_gpu_type_shape_choice_and_gain() {
        let dir = std::env::temp_dir().join(format!("kernel-lab-tuned-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut c = TuneCache::open(dir.join("t.json")).unwrap();
        let key = Key { gpu: "NVIDIA H100 80GB HBM3".into(), sms: 132, cc: (9, 0), driver: 13000, kernels: 1, host: "0.1.0+e2".into(), knobs: String::new(),
                        kind: "f16".into(), shape: kernel_lab_bench::families::gemm::Shape::new(2048, 14336, 4096).unwrap() };
        let t = |l: &str, us: f64| Timed { label: l.into(), median_us: us, rel_err: 1e-5, samples: 60 };
        c.insert(&key, Entry { step: "h10".into(), rule: "h6s4".into(), timed: vec![t("h10", 368.2), t("h6s4", 372.9)], pruned: vec![], unix_ms: 1_795_674_516_551 }).unwrap();
        let s = table(&c);
        let line = s.lines().nth(1).unwrap();
        for want in ["H100 80GB HBM3", "f16", "2048x14336x4096", "h10", "h6s4", "1.013x", "2026-11-26T06:28:36Z"] {
            assert!(line.contains(want), "{want} missing: {line}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! `kernel-lab ab --family sgemm|hgemm|fp8|reduce|attention A B`: two steps head to head, both verified,
//! then timed interleaved in rounds of blocks (`families::gemm::ab`, `families::fp8::ab`,
//! `families::reduce::ab`, `families::attention::ab`).
use kernel_lab_bench::{
    Error, Result,
    families::{
        attention, fp8,
        gemm::{self, AbRow},
        hgemm::{Hgemm, HgemmBf16},
        reduce,
        sgemm::Sgemm,
    },
    runtime::gpu::{DeviceInfo, Gpu},
    steps::{self, Family, KernelInfo, fp8 as fp8_steps, hgemm, sgemm},
};

use crate::cli::{options::Options, stamp::{commit, utc_now}};

/// What `kernel-lab ab` parses: the family, the two step labels, the rounds, and the suite's options.
#[derive(Debug)]
pub struct AbArgs {
    /// `sgemm` or `hgemm`.
    pub family: Family,
    /// Steps A and B.
    pub steps: (&'static KernelInfo, &'static KernelInfo),
    /// Rounds of blocks.
    pub rounds: usize,
    /// Sizes, reps, warm-up, seed, JSON path.
    pub options: Options,
}

/// `ab`'s usage line.
pub const AB_USAGE: &str = "usage: kernel-lab ab --family sgemm|hgemm|fp8|reduce|attention A B [--rounds R] [--gemm-sizes L | --sizes L (reduce; default 2^28,2^31) | --attn-sizes L (attention; default its sweep's shapes of the steps' head dim, causal and not)] [--reps N] [--warmup N] [--seed S] [--json PATH]";

/// Parses `ab`'s arguments (after `ab`).
pub fn parse_ab(args: &[String]) -> Result<AbArgs> {
    const USAGE: &str = AB_USAGE;
    let (mut labels, mut rest, mut rounds) = (vec![], vec![], 8usize);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--rounds" {
            let v = it.next().ok_or_else(|| Error::InvalidInput(format!("--rounds needs a value; {USAGE}")))?;
            rounds = v.parse().ok().filter(|&r| r >= 1).ok_or_else(|| Error::InvalidInput(format!("--rounds `{v}`: expected a number ≥ 1")))?;
        } else if ["--check", "--quick", "--list", "--ncu", "--sanitize", "--steps"].contains(&a.as_str()) {
            return Err(Error::InvalidInput(format!("ab does not take {a} (it times the two steps it is given); {USAGE}")));
        } else if a.starts_with("--") {
            rest.push(a.clone());
            rest.extend(it.next().cloned());
        } else {
            labels.push(a.clone());
        }
    }
    let [x, y] = labels.as_slice() else {
        return Err(Error::InvalidInput(format!("ab needs exactly two step labels (got {}); {USAGE}", labels.len())));
    };
    let reps_given = rest.iter().any(|a| a == "--reps");
    let sizes_given = rest.iter().any(|a| a == "--gemm-sizes");
    let mut o = Options::parse(rest.iter().cloned())?.ok_or_else(|| Error::InvalidInput(USAGE.into()))?;
    let family = match o.families.as_slice() {
        [f @ (Family::Sgemm | Family::Hgemm | Family::Fp8 | Family::Reduce | Family::Attention)] => *f,
        _ => return Err(Error::InvalidInput(format!("ab needs --family sgemm, hgemm, fp8, reduce or attention; {USAGE}"))),
    };
    let resolve = |l: &str| steps::resolve_label(l, &[family]).map_err(|e| Error::InvalidInput(format!("ab: {e}")));
    let (a, b) = (resolve(x)?, resolve(y)?);
    if a.family != family || b.family != family {
        return Err(Error::InvalidInput(format!("ab: both steps must be {} steps (got {} and {})", family.name(), a.qualified(), b.qualified())));
    }
    o.steps = Some(vec![a, b]);
    if !reps_given {
        o.reps = 400;
    }
    if !sizes_given {
        o.gemm_sizes = vec![(4096, 4096, 4096), (8192, 8192, 8192)];
    }
    if family == Family::Reduce && !rest.iter().any(|a| a == "--sizes") {
        o.sizes = vec![1 << 28, 1 << 31];
    }
    Ok(AbArgs { family, steps: (a, b), rounds, options: o })
}

/// `kernel-lab ab …`: returns the exit code.
pub fn main(args: &[String]) -> i32 {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{AB_USAGE}\nBoth steps are verified on random inputs, then timed interleaved in R rounds of blocks (default 8; sizes default 4096,8192; --reps caps the total, default 400).");
        return 0;
    }
    let ab = match parse_ab(args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let gpu = match Gpu::new(0) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}\nab times kernels on a GPU; without one, `cargo test` and `kernel-lab layout` still work.");
            return 2;
        }
    };
    let o = &ab.options;
    let i = &gpu.info;
    println!("GPU: {} (sm_{}{}, {} SMs), commit {}, {}, seed {}", i.name, i.compute_capability.0, i.compute_capability.1, i.sms, commit(), utc_now(), o.seed);
    println!("A/B ({}): A = {}, B = {}, {} rounds", ab.family.name(), ab.steps.0.step, ab.steps.1.step, ab.rounds);
    let (na, nb) = (ab.steps.0.name, ab.steps.1.name);
    if ab.family == Family::Attention {
        let find = |n: &str| steps::attention::STEPS.iter().find(|s| s.kernel.name == n).ok_or_else(|| Error::InvalidInput(format!("{n} is not an attention step")));
        let rows = o.attention_run().and_then(|run| find(na).and_then(|a| find(nb).and_then(|b| attention::ab(&gpu, &run, a, b, ab.rounds))));
        return report(&ab, i, rows, attention::ab_table);
    }
    if ab.family == Family::Reduce {
        let find = |n: &str| steps::reduce::STEPS.iter().find(|s| s.kernel.name == n).ok_or_else(|| Error::InvalidInput(format!("{n} is not a reduce step")));
        let rows = find(na).and_then(|a| find(nb).and_then(|b| reduce::ab(&gpu, &o.reduce_run(), a, b, ab.rounds)));
        return report(&ab, i, rows, reduce::ab_table);
    }
    let rows = (|| -> Result<Vec<AbRow>> {
        match ab.family {
            Family::Fp8 => {
                let find = |n: &str| fp8_steps::STEPS.iter().find(|s| s.kernel.name == n).ok_or_else(|| Error::InvalidInput(format!("{n} is not an fp8 step")));
                fp8::ab(&gpu, &o.gemm_run::<Hgemm>()?, find(na)?, find(nb)?, ab.rounds)
            }
            Family::Hgemm => {
                let find = |n: &str| hgemm::STEPS.iter().find(|s| s.kernel.name == n).ok_or_else(|| Error::InvalidInput(format!("{n} is not an hgemm step")));
                let (sa, sb) = (find(na)?, find(nb)?);
                match (sa.elem, sb.elem) {
                    (steps::gemm::Elem::Bf16, steps::gemm::Elem::Bf16) => gemm::ab::<HgemmBf16>(&gpu, &o.gemm_run::<HgemmBf16>()?, sa, sb, ab.rounds),
                    (ea, eb) if ea == eb => gemm::ab::<Hgemm>(&gpu, &o.gemm_run::<Hgemm>()?, sa, sb, ab.rounds),
                    (ea, eb) => Err(Error::InvalidInput(format!("ab: {} takes {ea:?} and {} {eb:?} matrices: compare steps of one element type", sa.kernel.step, sb.kernel.step))),
                }
            }
            _ => {
                let find = |n: &str| sgemm::STEPS.iter().find(|s| s.kernel.name == n).ok_or_else(|| Error::InvalidInput(format!("{n} is not an sgemm step")));
                gemm::ab::<Sgemm>(&gpu, &o.gemm_run::<Sgemm>()?, find(na)?, find(nb)?, ab.rounds)
            }
        }
    })();
    report(&ab, i, rows, gemm::ab_table)
}

/// Prints `rows` as `table` lays them out and, with `--json`, writes them with the GPU, commit, date,
/// seed, family and rounds; returns the exit code (0; 1 if the A/B failed; 2 if the JSON cannot be written).
fn report<R: serde::Serialize>(ab: &AbArgs, gpu: &DeviceInfo, rows: Result<Vec<R>>, table: fn(&[R]) -> String) -> i32 {
    let o = &ab.options;
    match rows {
        Ok(rows) => {
            print!("{}", table(&rows));
            if let Some(path) = &o.json {
                let v = serde_json::json!({"gpu": gpu, "commit": commit(), "date": utc_now(), "seed": o.seed, "family": ab.family.name(),
                                           "rounds": ab.rounds, "ab": rows});
                if let Err(e) = std::fs::write(path, serde_json::to_string_pretty(&v).unwrap_or_default()) {
                    eprintln!("error: cannot write {path}: {e}");
                    return 2;
                }
            }
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ab_takes_two_steps_of_one_gemm_family() {
        let ab = |a: &[&str]| parse_ab(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        let x = ab(&["--family", "hgemm", "v3", "v4", "--rounds", "6"]).unwrap();
        assert_eq!((x.steps.0.name, x.steps.1.name, x.rounds, x.options.reps, x.options.gemm_sizes.len()),
                   ("hgemm_block_v3", "hgemm_block_v4", 6, 400, 2));
        assert!(ab(&["--family", "hgemm", "v3"]).unwrap_err().to_string().contains("exactly two step labels"));
        assert!(ab(&["v3", "v4"]).unwrap_err().to_string().contains("--family sgemm, hgemm, fp8, reduce or attention"));
        let a = ab(&["--family", "attention", "a9-d128", "a12-d128", "--attn-sizes", "4x16x4096x128"]).unwrap();
        assert_eq!((a.steps.0.name, a.steps.1.name, a.options.attention_run().unwrap().shapes.len()), ("attn_a9_d128_f16", "attn_a12_d128_f16", 2));
        let f = ab(&["--family", "fp8", "f15", "f16", "--gemm-sizes", "4096"]).unwrap();
        assert_eq!((f.steps.0.name, f.steps.1.name, f.options.gemm_sizes.clone()), ("fp8_gemm_v15", "fp8_gemm_v16", vec![(4096, 4096, 4096)]));
        let r = ab(&["--family", "reduce", "v6", "v7"]).unwrap();
        assert_eq!((r.steps.0.name, r.steps.1.name, r.options.sizes.clone()), ("reduce_v6", "reduce_v7", vec![1 << 28, 1 << 31]));
        assert_eq!(ab(&["--family", "reduce", "v6", "v7", "--sizes", "2^20"]).unwrap().options.sizes, vec![1 << 20]);
        let e = ab(&["--family", "sgemm", "v9", "h1"]).unwrap_err().to_string();
        assert!(e.contains("unknown step `h1`") && e.contains("sgemm:v11"), "{e}");
        assert!(ab(&["--family", "sgemm", "v9", "hgemm:v9"]).unwrap_err().to_string().contains("both steps must be sgemm steps"));
        assert!(ab(&["--family", "hgemm", "v3", "v4", "--rounds", "0"]).unwrap_err().to_string().contains("--rounds"));
        assert!(ab(&["--family", "hgemm", "--check", "v3", "v4"]).unwrap_err().to_string().contains("does not take --check"));
    }
}

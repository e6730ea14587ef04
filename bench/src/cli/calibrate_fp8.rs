//! The FP8 part of `kernel-lab calibrate` (`--dtype fp8`) and `kernel-lab rank --fp8-times`: the FP8 choice's
//! costs measured on this GPU (`kernel_lab::fp8::calibrate`), refitted to saved timings, and how well the
//! choice with some costs picks among the steps a file of timings measured.
use std::{collections::BTreeMap, fmt::Write as _, path::PathBuf};

use super::timings::{Tally, parse_timings, read, write};

use kernel_lab_bench::{
    Error, Gpu, Result,
    fp8::calibrate::{self, Fp8Sample},
    steps::fp8::{self as steps, Fp8Costs, Scaling},
};

fn median_error(costs: &Fp8Costs, samples: &[Fp8Sample]) -> f64 {
    let mut errs: Vec<f64> = samples.iter().filter_map(|x| calibrate::predict(costs, x, costs.sms).map(|p| (p / x.us - 1.0).abs())).collect();
    errs.sort_by(f64::total_cmp);
    errs.get(errs.len() / 2).copied().unwrap_or(f64::NAN)
}

/// `calibrate --dtype fp8`: times, fits, writes the costs (to `out` or where plans look) and, with
/// `samples_out`, every timing beside its prediction.
pub fn run(gpu: &Gpu, out: Option<PathBuf>, samples_out: Option<String>) -> Result<()> {
    let t0 = std::time::Instant::now();
    let cal = calibrate::calibrate(gpu, &mut |l| eprintln!("  {l}"))?;
    let path = out.or_else(|| calibrate::path(gpu))
        .ok_or_else(|| Error::InvalidInput("calibrate: nowhere to write the FP8 costs (set KERNEL_LAB_FP8_COST_FILE, XDG_CACHE_HOME or HOME, or pass --out)".into()))?;
    write(&path, &cal.costs.to_text())?;
    if let Some(p) = samples_out {
        let mut t = String::from("step\tshape\tus\tpredicted_us\n");
        for x in &cal.samples {
            let pred = calibrate::predict(&cal.costs, x, cal.costs.sms);
            let _ = writeln!(t, "{}\t{}x{}x{}\t{:.2}\t{}", x.step, x.shape.0, x.shape.1, x.shape.2, x.us, pred.map_or("-".into(), |p| format!("{p:.2}")));
        }
        write(std::path::Path::new(&p), &t)?;
    }
    println!("calibrated the FP8 choice's {} costs on {} in {:.1} s ({} timings; the fit's median error on them {:.1}%): {}",
             steps::FP8_COSTED.len(), gpu.info.name, t0.elapsed().as_secs_f64(), cal.samples.len(), 100.0 * median_error(&cal.costs, &cal.samples), path.display());
    for s in &cal.skipped {
        println!("  skipped: {s}");
    }
    Ok(())
}

/// Reads FP8 timings ([`super::timings::parse_timings`]'s forms; cuBLAS rows skipped).
pub fn parse_times(text: &str, what: &str) -> Result<Vec<Fp8Sample>> {
    Ok(parse_timings(text, what, |_| true)?.into_iter().map(|(step, shape, us)| Fp8Sample { step, shape, us }).collect())
}

/// `calibrate --dtype fp8 --refit TIMES [--from COST]`: the costs fitted again to saved timings of the costed
/// steps, from COST's (default: the shipped H200 costs).
pub fn refit(samples: &str, from: Option<&str>, out: Option<PathBuf>) -> Result<()> {
    let base = match from {
        Some(p) => Fp8Costs::parse(&read(p)?, p).map_err(Error::InvalidInput)?,
        None => {
            // The header (SMs, L2, f21's residency) is the choice's too: an H100's timings refitted without their
            // calibration's file would be weighed with the H200's 60 MiB L2.
            eprintln!("no --from: the SM count, L2 and f21 residency written are the shipped H200's; give the calibration file the timings came with to keep its GPU's");
            Fp8Costs::shipped("H200")
        }
    };
    let samples: Vec<Fp8Sample> = parse_times(&read(samples)?, samples)?.into_iter().filter(|x| calibrate::config_of(&x.step).is_some() || calibrate::is_speed_timing(&x.step)).collect();
    let (costs, kept) = calibrate::fit(&samples, format!("{} (refitted to {} timings)", base.source, samples.len()), base.sms, base.f21_resident, &base);
    match out {
        Some(p) => write(&p, &costs.to_text())?,
        None => print!("{}", costs.to_text()),
    }
    eprintln!("the fit's median error on its {} timings: {:.1}%", samples.len(), 100.0 * median_error(&costs, &samples));
    for s in kept {
        eprintln!("  kept: {s}");
    }
    Ok(())
}

/// The FP8 step labelled `label`, the weight-only routes included.
fn step_of(label: &str) -> Option<&'static steps::Step> {
    steps::STEPS.iter().chain([&steps::FW1, &steps::FW2, &steps::FWB]).find(|s| s.kernel.step == label)
}

/// `rank --fp8-times FILE [--cost FP8COST] [--l2-mib N]`: per shape and scaling, the library's choice with these costs
/// (and their f21 residency) against the fastest step timed; shapes whose pick was not timed are counted apart.
pub fn rank(times: &str, cost_file: Option<&str>, gpu_name: &str, l2_bytes: Option<u64>) -> Result<String> {
    let costs = match (cost_file, l2_bytes) {
        (Some(p), _) => Fp8Costs::parse(&read(p)?, p).map_err(Error::InvalidInput)?,
        (None, Some(l2)) => Fp8Costs::shipped_on(gpu_name, l2),
        (None, None) => Fp8Costs::shipped(gpu_name),
    };
    Ok(rank_samples(&costs, &parse_times(&read(times)?, times)?).0)
}

/// [`rank`]'s table and each scaling's tally (`per-tensor`, `block`) for `costs` on timings `samples`.
pub fn rank_samples(costs: &Fp8Costs, samples: &[Fp8Sample]) -> (String, BTreeMap<&'static str, Tally>) {
    let mut groups: BTreeMap<(&'static str, (usize, usize, usize)), Vec<(&Fp8Sample, &'static steps::Step)>> = BTreeMap::new();
    for x in samples {
        let Some(st) = step_of(&x.step) else { continue };
        let sc = if st.scaling == Scaling::PerTensor { "per-tensor" } else { "block" };
        groups.entry((sc, x.shape)).or_default().push((x, st));
    }
    let mut t = format!("costs: {}\n{:<11} {:<18} {:<14} {:<14} {:>8}\n", costs.source, "scaling", "shape", "fastest µs", "pick µs", "pick/best");
    let mut tally: BTreeMap<&'static str, Tally> = BTreeMap::new();
    for ((sc, (m, n, k)), xs) in &groups {
        let best = xs.iter().min_by(|a, b| a.0.us.total_cmp(&b.0.us)).expect("a timing");
        let pick = if *sc == "per-tensor" { steps::per_tensor_step_by(costs, *m, *n, *k, costs.sms, costs.f21_resident) } else { steps::block_step_by(costs, *m, *n, *k, costs.sms) };
        let e = tally.entry(sc).or_default();
        let Some(p) = xs.iter().find(|x| x.1.kernel.name == pick.kernel.name) else {
            e.untimed += 1;
            let _ = writeln!(t, "{sc:<11} {:<18} {:<14} {:<14} {:>8}", format!("{m}x{n}x{k}"), format!("{} {:.1}", best.0.step, best.0.us), format!("{} -", pick.kernel.step), "-");
            continue;
        };
        e.add(p.0.us, best.0.us);
        let _ = writeln!(t, "{sc:<11} {:<18} {:<14} {:<14} {:>8.3}", format!("{m}x{n}x{k}"), format!("{} {:.1}", best.0.step, best.0.us), format!("{} {:.1}", p.0.step, p.0.us), p.0.us / best.0.us);
    }
    for (sc, e) in &tally {
        let _ = writeln!(t, "{sc}: {}", e.line("step"));
    }
    (t, tally)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timings_read_in_both_forms() {
        let x = parse_times("# shape\tstep\tprocess\tmedian_us\n128x4096x4096\tcuBLAS\tp1\t9.0\n128x4096x4096\tf22\tp1\t10.0\n128x4096x4096\tf22\tp2\t12.0\n128x4096x4096\tf22\tp3\t11.0\n", "t").unwrap();
        assert_eq!(x, vec![Fp8Sample { step: "f22".into(), shape: (128, 4096, 4096), us: 11.0 }]);
        let x = parse_times("step\tshape\tus\tpredicted_us\nfw2\t1x1024x1024\t4.5\t4.4\n", "c").unwrap();
        assert_eq!(x[0].shape, (1, 1024, 1024));
        assert!(parse_times("step\tshape\tus\nfw2\t1x1024x1024\tNaN\n", "c").is_err());
        assert!(step_of("fw2").is_some() && step_of("f21x4").is_some() && step_of("h6").is_none());
    }
}

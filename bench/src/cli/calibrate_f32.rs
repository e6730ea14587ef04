//! The f32 half of `kernel-lab calibrate` (`--dtype f32`) and `kernel-lab rank --f32-times`: the f32 cost
//! model's constants measured on this GPU (`kernel_lab::sgemm::calibrate`), refitted to saved timings, and
//! how well a model ranks the families a file of timings measured.
use std::{collections::BTreeMap, fmt::Write as _, path::PathBuf};

use super::timings::{Tally, parse_timings, read, write};

use kernel_lab_bench::{
    Error, Gpu, Result,
    gemm::Shape,
    sgemm::{
        self,
        cost::{self, F32Model, F32Sample},
    },
};

/// Each sample's prediction by `model`'s constants (`None` for a step outside the model's families).
fn predicted(model: &F32Model, samples: &[F32Sample]) -> Vec<Option<f64>> {
    samples.iter().map(|x| {
        let fam = cost::family_of(&x.step)?;
        let st = sgemm::step_by_label(&x.step).ok()?;
        let sch = cost::schedule(st, x.shape, model.sms).ok()?;
        Some(model.costs[fam].predict(&sch, x.shape, model.sms))
    }).collect()
}

/// The fit's median relative error on its own samples (a fit check, not a ranking figure).
fn median_error(model: &F32Model, samples: &[F32Sample]) -> f64 {
    let mut errs: Vec<f64> = samples.iter().zip(predicted(model, samples)).filter_map(|(x, p)| p.map(|p| (p / x.us - 1.0).abs())).collect();
    errs.sort_by(f64::total_cmp);
    errs.get(errs.len() / 2).copied().unwrap_or(f64::NAN)
}

/// `calibrate --dtype f32`: times, fits, writes the model (to `out` or where plans look) and, with
/// `samples_out`, every timing beside its prediction.
pub fn run(gpu: &Gpu, out: Option<PathBuf>, samples_out: Option<String>) -> Result<()> {
    let t0 = std::time::Instant::now();
    let cal = sgemm::calibrate::calibrate(gpu, &mut |l| eprintln!("  {l}"))?;
    let path = out.or_else(|| sgemm::calibrate::path(gpu))
        .ok_or_else(|| Error::InvalidInput("calibrate: nowhere to write the f32 model (set KERNEL_LAB_F32_COST_FILE, XDG_CACHE_HOME or HOME, or pass --out)".into()))?;
    write(&path, &cal.model.to_text())?;
    if let Some(p) = samples_out {
        let mut t = String::from("step\tshape\tus\tpredicted_us\n");
        for (x, pred) in cal.samples.iter().zip(predicted(&cal.model, &cal.samples)) {
            let _ = writeln!(t, "{}\t{}\t{:.2}\t{}", x.step, x.shape, x.us, pred.map_or("-".into(), |p| format!("{p:.2}")));
        }
        write(std::path::Path::new(&p), &t)?;
    }
    println!("calibrated the f32 model's {} families on {} in {:.1} s ({} timings; the fit's median error on them {:.1}%): {}",
             cost::FAMILIES.len(), gpu.info.name, t0.elapsed().as_secs_f64(), cal.samples.len(), 100.0 * median_error(&cal.model, &cal.samples), path.display());
    for s in &cal.skipped {
        println!("  skipped: {s}");
    }
    Ok(())
}

/// Reads f32 timings ([`super::timings::parse_timings`]'s forms), the model's families only.
pub fn parse_times(text: &str, what: &str) -> Result<Vec<F32Sample>> {
    parse_timings(text, what, |step| cost::family_of(step).is_some())?.into_iter()
        .map(|(step, (m, n, k), us)| Ok(F32Sample { step, shape: Shape::new(m, n, k)?, us })).collect()
}

/// `calibrate --dtype f32 --refit SAMPLES [--from COST]`: the constants fitted again to saved timings,
/// starting from COST's (default: the shipped H200 model), with this build's schedules.
pub fn refit(samples: &str, from: Option<&str>, out: Option<PathBuf>) -> Result<()> {
    let base = match from {
        Some(p) => F32Model::parse(&read(p)?, p)?,
        None => F32Model::shipped("H200"),
    };
    let samples = parse_times(&read(samples)?, samples)?;
    let (model, skipped) = cost::fit_model(&samples, format!("{} (refitted to {} timings)", base.source, samples.len()), base.sms, &base);
    match out {
        Some(p) => write(&p, &model.to_text())?,
        None => print!("{}", model.to_text()),
    }
    eprintln!("the fit's median error on its {} timings: {:.1}%", samples.len(), 100.0 * median_error(&model, &samples));
    for s in skipped {
        eprintln!("  skipped: {s}");
    }
    Ok(())
}

/// `rank --f32-times FILE [--cost F32COST]`: at every shape of FILE whose timed families include the
/// model's pick's, the pick's family against the fastest timed family (no GPU).
pub fn rank(times: &str, cost_file: Option<&str>, gpu_name: &str) -> Result<String> {
    let model = match cost_file {
        Some(p) => F32Model::parse(&read(p)?, p)?,
        None => F32Model::shipped(gpu_name),
    };
    Ok(rank_samples(&model, &parse_times(&read(times)?, times)?)?.0)
}

/// [`rank`]'s table and tally for `model` on timings `samples`.
pub fn rank_samples(model: &F32Model, samples: &[F32Sample]) -> Result<(String, Tally)> {
    let mut shapes: BTreeMap<(usize, usize, usize), Vec<&F32Sample>> = BTreeMap::new();
    for x in samples {
        shapes.entry((x.shape.m, x.shape.n, x.shape.k)).or_default().push(x);
    }
    let mut t = format!("model: {}\n{:<20} {:<14} {:<14} {:>8}\n", model.source, "shape", "fastest µs", "pick µs", "pick/best");
    let mut tally = Tally::default();
    for ((m, nn, k), xs) in &shapes {
        let s = Shape::new(*m, *nn, *k)?;
        let best = xs.iter().min_by(|a, b| a.us.total_cmp(&b.us)).expect("a shape has a timing");
        let pick = model.pick(s, model.sms);
        // The family's timed form stands for the form the model picks (v11 for v20, v24 for v31: one family's
        // forms share its constants and differ only at the edges).
        let Some(p) = xs.iter().find(|x| x.step == pick.kernel.step).or_else(|| xs.iter().find(|x| cost::family_of(&x.step) == cost::family_of(pick.kernel.step))) else {
            tally.untimed += 1;
            let _ = writeln!(t, "{:<20} {:<14} {:<14} {:>8}", s.to_string(), format!("{} {:.1}", best.step, best.us), format!("{} -", pick.kernel.step), "-");
            continue;
        };
        tally.add(p.us, best.us);
        let _ = writeln!(t, "{:<20} {:<14} {:<14} {:>8.3}", s.to_string(), format!("{} {:.1}", best.step, best.us), format!("{} {:.1}", p.step, p.us), p.us / best.us);
    }
    let _ = writeln!(t, "{}", tally.line("family"));
    Ok((t, tally))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_timing_forms_read_and_processes_give_their_median() {
        let bench = "# shape\tstep\tprocess_file\tmedian_us\n256x4096x512\tcuBLAS\tp1\t10.0\n256x4096x512\tv24\tp1\t12.0\n256x4096x512\tv24\tp2\t11.0\n256x4096x512\tv24\tp3\t30.0\n";
        let x = parse_times(bench, "b").unwrap();
        assert_eq!(x.len(), 1);
        assert_eq!((x[0].step.as_str(), x[0].us), ("v24", 12.0));
        let cal = "step\tshape\tus\tpredicted_us\nv33\t1x1024x512\t5.10\t5.2\nv11\t768x768x512\t60.00\t-\n";
        let x = parse_times(cal, "c").unwrap();
        assert_eq!(x.iter().map(|s| s.step.as_str()).collect::<Vec<_>>(), ["v11", "v33"]);
        let e = parse_times("step\tshape\tus\nv33\t1x1024\t5\n", "c").unwrap_err().to_string();
        assert!(e.contains("c:2"), "{e}");
        assert!(parse_times("step\tshape\tus\nv33\t1x1024x512\t-5\n", "c").is_err());
    }
}

//! Reading and writing the files `kernel-lab calibrate` and `kernel-lab rank` share: whole files, and timings of
//! steps at shapes (a calibration's `--samples`, or a bench table).
use kernel_lab_bench::{Error, Result};

/// Reads the file `p` (its name in the error).
pub fn read(p: &str) -> Result<String> {
    std::fs::read_to_string(p).map_err(|e| Error::InvalidInput(format!("{p}: {e}")))
}

/// Writes `text` to `p`, its directory made first.
pub fn write(p: &std::path::Path, text: &str) -> Result<()> {
    if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::InvalidInput(format!("{}: {e}", dir.display())))?;
    }
    std::fs::write(p, text).map_err(|e| Error::InvalidInput(format!("{}: {e}", p.display())))
}

/// Reads timings of the f32 and FP8 calibrations: `calibrate --samples`' form (`step, MxNxK, µs, …` after a header)
/// or a bench table's (`MxNxK, step, process, median µs, …`); `#` lines, cuBLAS rows and steps `keep` refuses are
/// skipped. Several rows of one (step, shape) — one a process — give their median. `(step, (M, N, K), µs)` sorted.
pub fn parse_timings(text: &str, what: &str, keep: impl Fn(&str) -> bool) -> Result<Vec<(String, (usize, usize, usize), f64)>> {
    let mut by: std::collections::BTreeMap<(String, (usize, usize, usize)), Vec<f64>> = Default::default();
    let dims = |f: &str| -> Option<(usize, usize, usize)> {
        let d: Vec<usize> = f.split('x').map(|x| x.parse().ok()).collect::<Option<_>>()?;
        match d[..] {
            [m, n, k] => Some((m, n, k)),
            _ => None,
        }
    };
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let (step, shape, us) = match (f.first().and_then(|x| dims(x)), f.get(1).and_then(|x| dims(x))) {
            (Some(d), _) if f.len() >= 4 => (f[1], d, f[3]),
            (None, Some(d)) if f.len() >= 3 => (f[0], d, f[2]),
            _ if i == 0 => continue, // a header line
            _ => return Err(Error::InvalidInput(format!("{what}:{}: `{line}`: expected step, MxNxK, µs or MxNxK, step, process, µs", i + 1))),
        };
        if step == "cuBLAS" || !keep(step) {
            continue;
        }
        let us: f64 = us.parse().ok().filter(|u: &f64| u.is_finite() && *u > 0.0)
            .ok_or_else(|| Error::InvalidInput(format!("{what}:{}: `{us}` is not a time in µs", i + 1)))?;
        by.entry((step.to_string(), shape)).or_default().push(us);
    }
    Ok(by.into_iter().map(|((step, shape), mut v)| {
        v.sort_by(f64::total_cmp);
        (step, shape, v[v.len() / 2])
    }).collect())
}

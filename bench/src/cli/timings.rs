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

/// How a choice ranked at the shapes of a timing file: shapes whose pick was timed (`n`), picks within 5% of
/// the fastest timed (`within`), shapes whose pick was not timed (`untimed`), and the fastest / pick ratios.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    pub n: usize,
    pub within: usize,
    pub untimed: usize,
    logs: f64,
    lowest: Option<f64>,
}

impl Tally {
    /// A shape whose pick took `pick_us` where the fastest took `best_us`.
    pub fn add(&mut self, pick_us: f64, best_us: f64) {
        self.n += 1;
        self.within += (pick_us <= 1.05 * best_us) as usize;
        self.logs += (best_us / pick_us).ln();
        self.lowest = Some(self.lowest.map_or(best_us / pick_us, |l| l.min(best_us / pick_us)));
    }

    /// Geometric mean of fastest / pick over the timed picks (1 with none).
    pub fn geo(&self) -> f64 {
        (self.logs / self.n.max(1) as f64).exp()
    }

    /// The lowest fastest / pick (1 with none).
    pub fn lowest(&self) -> f64 {
        self.lowest.unwrap_or(1.0)
    }

    /// `the pick within 5% of the fastest timed … at a/n shapes (x%); fastest/pick geometric mean g, lowest l; u shapes whose pick was not timed`.
    pub fn line(&self, what: &str) -> String {
        format!("the pick within 5% of the fastest timed {what} at {}/{} shapes ({:.0}%); fastest/pick geometric mean {:.3}, lowest {:.3}; {} shapes whose pick was not timed",
                self.within, self.n, 100.0 * self.within as f64 / self.n.max(1) as f64, self.geo(), self.lowest(), self.untimed)
    }
}

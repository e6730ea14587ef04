//! Checking the bank model against the hardware: patterns of per-lane shared-memory addresses (the
//! seeds' cases, strides, broadcasts, partial masks, random ones, every access width and every
//! `ldmatrix`/`stmatrix` form), the model's prediction for each, a launch of the matching replay kernel
//! per pattern (profiled by `ncu`), and the comparison of the two.
use layout::{
    Layout, Padded, RowMajor, SwizzleFn, Swizzled,
    bank::{self, Cost},
    fragment::MmaM16N8K16,
};
use rand::Rng;

use crate::{
    error::{Error, Result},
    launch,
    runtime::{gpu::Gpu, verify},
    steps::bankcheck::REPLAY_SMEM,
};

/// Load or store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Dir {
    /// `ld.shared` / `ldmatrix`.
    Load,
    /// `st.shared` / `stmatrix`.
    Store,
}

/// The instruction a pattern replays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Form {
    /// `ld/st.shared` of `width` bytes per lane.
    Lsu { dir: Dir, width: u32 },
    /// `ldmatrix`/`stmatrix` `.x{matrices}` (`.trans` if `trans`).
    Matrix { dir: Dir, matrices: u32, trans: bool },
}

impl Form {
    /// The replay kernel that issues this instruction.
    pub fn kernel(self) -> String {
        match self {
            Form::Lsu { dir, width } => format!("bank_replay_{}_b{}", if dir == Dir::Load { "ld" } else { "st" }, 8 * width),
            Form::Matrix { dir, matrices, trans } => format!("bank_replay_{}_x{matrices}{}",
                if dir == Dir::Load { "ldmatrix" } else { "stmatrix" }, if trans { "_trans" } else { "" }),
        }
    }
    /// Load or store.
    pub fn dir(self) -> Dir {
        match self {
            Form::Lsu { dir, .. } | Form::Matrix { dir, .. } => dir,
        }
    }
}

/// One warp-level access to replay.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Pattern {
    /// What it shows.
    pub name: String,
    /// The instruction.
    pub form: Form,
    /// Byte offset per lane (for matrix forms: row address per lane).
    pub addrs: Vec<u32>,
    /// Active lanes (LSU forms).
    pub mask: u32,
}

/// The model's prediction for a pattern.
pub fn predict(p: &Pattern) -> Result<Cost> {
    let r = match p.form {
        Form::Lsu { dir, width } => bank::lsu(&p.addrs, p.mask, width, if dir == Dir::Load { bank::Op::Load } else { bank::Op::Store }),
        Form::Matrix { matrices, .. } => bank::matrix(&p.addrs[..8 * matrices as usize], matrices),
    };
    r.map_err(|e| Error::InvalidInput(format!("pattern `{}`: {e:?}", p.name)))
}

fn lanes(f: impl Fn(u32) -> u32) -> Vec<u32> {
    (0..32).map(f).collect()
}

fn lsu(name: &str, dir: Dir, width: u32, mask: u32, f: impl Fn(u32) -> u32) -> Pattern {
    Pattern { name: name.into(), form: Form::Lsu { dir, width }, addrs: lanes(f), mask }
}

fn mat(name: &str, dir: Dir, matrices: u32, trans: bool, f: impl Fn(u32) -> u32) -> Pattern {
    Pattern { name: name.into(), form: Form::Matrix { dir, matrices, trans }, addrs: lanes(f), mask: u32::MAX }
}

/// `ldmatrix.x4` row addresses of a 16×16 f16 tile in `l` (lane → row l % 16, column 8 (l / 16)).
fn x4_rows(l: &impl Layout) -> impl Fn(u32) -> u32 + '_ {
    move |lane| { let (r, c) = layout::fragment::Ldmatrix::X4.tile_addr_rc(lane); 2 * l.offset(r, c) }
}

/// The patterns, in launch order. Random ones use a fixed seed so the committed table is reproducible.
pub fn patterns() -> Vec<Pattern> {
    use Dir::*;
    let all = u32::MAX;
    let rm = RowMajor { rows: 16, cols: 16 };
    let pd = Padded { rows: 16, cols: 16, stride: 24 };
    let sw = Swizzled { inner: rm, swizzle: SwizzleFn { s: 3, b: 1, m: 3 } };
    let a_tile = Padded { rows: 128, cols: 32, stride: 40 };
    let a_unpadded = RowMajor { rows: 128, cols: 32 };
    let mut v = vec![
        mat("seed001 ldmatrix.x4 A 16x16 f16 row-major (unpadded)", Load, 4, false, x4_rows(&rm)),
        mat("seed001 ldmatrix.x4.trans B 16x16 f16 row-major (unpadded)", Load, 4, true, x4_rows(&rm)),
        mat("seed001 ldmatrix.x4 A padded +8 halves", Load, 4, false, x4_rows(&pd)),
        mat("seed001 ldmatrix.x4 A Swizzle<3,1,3>", Load, 4, false, x4_rows(&sw)),
        mat("seed001 ldmatrix.x4.trans B Swizzle<3,1,3>", Load, 4, true, x4_rows(&sw)),
        lsu("seed001 st.shared.v4 16x16 f16 row-major (lane t: elements 8t..8t+7)", Store, 16, all, |t| 2 * rm.offset(t / 2, 8 * (t % 2))),
        lsu("seed001 st.shared.v4 16x16 f16 padded +8", Store, 16, all, |t| 2 * pd.offset(t / 2, 8 * (t % 2))),
        lsu("seed001 st.shared.v4 16x16 f16 Swizzle<3,1,3>", Store, 16, all, |t| 2 * sw.offset(t / 2, 8 * (t % 2))),
        lsu("seed000 A fragment 32-bit loads, 128x32 tile padded to 40 (storage_align 32,8)", Load, 4, all, |t| { let (r, c) = MmaM16N8K16::a_rc(t, 0); 2 * a_tile.offset(r, c) }),
        lsu("seed000 A fragment 32-bit loads, 128x32 tile unpadded", Load, 4, all, |t| { let (r, c) = MmaM16N8K16::a_rc(t, 0); 2 * a_unpadded.offset(r, c) }),
    ];
    for s in [1u32, 2, 4, 8, 16] {
        let mask = (0..32).filter(|&l| layout::reduce::interleaved_index(l, s) < 256).fold(0u32, |m, l| m | 1 << l);
        v.push(lsu(&format!("seed003 reduce v1 warp 0 load, stride {s}"), Load, 4, mask, |l| 4 * layout::reduce::interleaved_index(l, s)));
        v.push(lsu(&format!("seed003 reduce v1 warp 0 store, stride {s}"), Store, 4, mask, |l| 4 * layout::reduce::interleaved_index(l, s)));
    }
    v.push(lsu("seed003 reduce v2 warp 0 load, half 64", Load, 4, all, |l| 4 * (layout::reduce::sequential_index(l) + 64)));
    // The SGEMM fragment loads of v7 (16×16 thread grid) and v9 (bank-aware warp tile), warp 0, k = 0.
    {
        use layout::sgemm::{a_tile_t_wide, b_tile_wide, thread_rc, vec4_row, warp_tile_col, warp_tile_row};
        let (la, lb) = (a_tile_t_wide(), b_tile_wide());
        v.push(lsu("sgemm v7 A fragment load (ld.shared.v4, warp 0)", Load, 16, all, |l| 4 * la.offset(0, vec4_row(thread_rc(l).0, 0, 0))));
        v.push(lsu("sgemm v7 B fragment load (ld.shared.v4, warp 0)", Load, 16, all, |l| 4 * lb.offset(0, vec4_row(thread_rc(l).1, 0, 0))));
        v.push(lsu("sgemm v9 A fragment load (ld.shared.v4, warp 0)", Load, 16, all, |l| 4 * la.offset(0, warp_tile_row(l, 0))));
        v.push(lsu("sgemm v9 B fragment load (ld.shared.v4, warp 0)", Load, 16, all, |l| 4 * lb.offset(0, warp_tile_col(l, 0))));
        // Variants that separate hypotheses for why v9 did not merge: duplicates adjacent vs 4 apart.
        v.push(lsu("ld.b128 quarters bank-disjoint, lanes r and r+4 share", Load, 16, all, |l| 64 * (l / 8 % 2) + 16 * (l % 4)));
        v.push(lsu("ld.b128 quarters bank-disjoint, lanes 2r and 2r+1 share", Load, 16, all, |l| 64 * (l / 8 % 2) + 16 * (l % 8 / 2)));
        v.push(lsu("ld.b128 quarters bank-disjoint, 2 addresses each (4 lanes per address)", Load, 16, all, |l| 32 * (l / 8 % 2) + 16 * (l % 8 / 4)));
    }
    for (dir, d) in [(Load, "ld"), (Store, "st")] {
        for width in [4u32, 8, 16] {
            let b = 8 * width;
            v.push(lsu(&format!("{d}.b{b} consecutive"), dir, width, all, |l| width * l));
            v.push(lsu(&format!("{d}.b{b} all lanes one address"), dir, width, all, |_| 256));
            v.push(lsu(&format!("{d}.b{b} stride 128 B (one bank)"), dir, width, all, |l| 128 * l));
            v.push(lsu(&format!("{d}.b{b} stride 2 elements"), dir, width, all, |l| 2 * width * l));
            v.push(lsu(&format!("{d}.b{b} lanes l and l+16 same address"), dir, width, all, |l| width * (l % 16)));
            v.push(lsu(&format!("{d}.b{b} lanes l and l+8 same address"), dir, width, all, |l| width * (l % 8)));
            v.push(lsu(&format!("{d}.b{b} even lanes only, stride 128 B"), dir, width, 0x5555_5555, |l| 128 * l));
            v.push(lsu(&format!("{d}.b{b} lanes 0-7 only, consecutive"), dir, width, 0xFF, |l| width * l));
            v.push(lsu(&format!("{d}.b{b} two 64 B halves of one 128 B line per phase"), dir, width, all, |l| (width * l) % 64 + 128 * (l * width / 64)));
            // Round 2 (after round 1 showed that uniform wide loads merge): which lanes merge?
            v.push(lsu(&format!("{d}.b{b} half-warps uniform, two addresses"), dir, width, all, |l| 64 * (l / 16)));
            v.push(lsu(&format!("{d}.b{b} quarter-warps uniform, four addresses"), dir, width, all, |l| 32 * (l / 8)));
            v.push(lsu(&format!("{d}.b{b} all one address but lane 31 (+128 B)"), dir, width, all, |l| 256 + 128 * (l == 31) as u32));
            v.push(lsu(&format!("{d}.b{b} half-warp 0 uniform, half-warp 1 consecutive"), dir, width, all, |l| if l < 16 { 512 } else { width * (l - 16) }));
            v.push(lsu(&format!("{d}.b{b} lanes 0-7 and 16-23 only, consecutive"), dir, width, 0x00FF_00FF, |l| width * l));
            v.push(lsu(&format!("{d}.b{b} lanes 0-15 only, consecutive"), dir, width, 0xFFFF, |l| width * l));
            v.push(lsu(&format!("{d}.b{b} lane pairs share an address"), dir, width, all, |l| width * (l / 2)));
            v.push(lsu(&format!("{d}.b{b} lanes 8-15 only, one bank"), dir, width, 0xFF00, |l| 128 * l));
            // Round 3 (out-of-sample check of rule 3b): lanes draw from a small pool of addresses, so
            // uniform passes, bank-disjoint phases and repeated addresses occur at random.
            for (seed, pool) in [(0u64, 2u32), (1, 3), (2, 4), (3, 6)] {
                let mut rng = verify::rng(0x900 + seed * 17 + width as u64);
                let choices: Vec<u32> = (0..pool).map(|_| width * rng.random_range(0..1024 / width)).collect();
                let addrs: Vec<u32> = (0..32).map(|_| choices[rng.random_range(0..pool as usize)]).collect();
                v.push(Pattern { name: format!("{d}.b{b} random from a pool of {pool} addresses #{seed}"), form: Form::Lsu { dir, width }, addrs, mask: all });
            }
            for seed in 0..3u64 {
                let mut rng = verify::rng(0xBA4C + seed * 31 + width as u64);
                let addrs: Vec<u32> = (0..32).map(|_| width * rng.random_range(0..1024 / width)).collect();
                v.push(Pattern { name: format!("{d}.b{b} random in 1 KiB #{seed}"), form: Form::Lsu { dir, width }, addrs, mask: all });
            }
        }
    }
    for (dir, d) in [(Load, "ldmatrix"), (Store, "stmatrix")] {
        for trans in [false, true] {
            let t = if trans { ".trans" } else { "" };
            v.push(mat(&format!("{d}.x1{t} unpadded 16x16 (rows 0-7)"), dir, 1, trans, x4_rows(&rm)));
            v.push(mat(&format!("{d}.x2{t} unpadded 16x16 (rows 0-15)"), dir, 2, trans, x4_rows(&rm)));
            v.push(mat(&format!("{d}.x4{t} unpadded 16x16"), dir, 4, trans, x4_rows(&rm)));
            v.push(mat(&format!("{d}.x4{t} Swizzle<3,1,3>"), dir, 4, trans, x4_rows(&sw)));
            v.push(mat(&format!("{d}.x4{t} all rows one address"), dir, 4, trans, |_| 512));
            v.push(mat(&format!("{d}.x4{t} rows 128 B apart (8-way)"), dir, 4, trans, |l| 128 * l));
        }
        let mut rng = verify::rng(0x51DE);
        let addrs: Vec<u32> = (0..32).map(|_| 16 * rng.random_range(0..64)).collect();
        v.push(Pattern { name: format!("{d}.x4 random rows in 1 KiB"), form: Form::Matrix { dir, matrices: 4, trans: false }, addrs, mask: all });
    }
    v
}

/// Launches the replay kernel of every pattern once, in order (run this under `ncu`). Patterns whose
/// kernel needs another GPU (stmatrix below sm_90) are skipped and returned as such.
pub fn run(gpu: &Gpu, patterns: &[Pattern]) -> Result<Vec<bool>> {
    let mut ran = vec![];
    for p in patterns {
        let k = match gpu.kernel(&p.form.kernel()) {
            Ok(k) => k,
            Err(Error::Unsupported { .. }) => {
                ran.push(false);
                continue;
            }
            Err(e) => return Err(e),
        };
        let width = match p.form { Form::Lsu { width, .. } => width, Form::Matrix { .. } => 16 };
        let addrs: Vec<u32> = p.addrs.iter().enumerate().map(|(l, &a)| {
            let active = matches!(p.form, Form::Matrix { .. }) || p.mask >> l & 1 == 1;
            if active { a } else { u32::MAX }
        }).collect();
        if let Some(a) = addrs.iter().find(|&&a| a != u32::MAX && (a % width != 0 || a + width > REPLAY_SMEM)) {
            return Err(Error::InvalidInput(format!("pattern `{}`: offset {a} is unaligned or outside the {REPLAY_SMEM}-byte buffer", p.name)));
        }
        let g_addr = gpu.upload(&addrs)?;
        let mut g_out = gpu.zeros::<u32>(128)?;
        // SAFETY: replay kernels take (g_addr: 32 u32 offsets, aligned and inside REPLAY_SMEM or
        // INACTIVE — checked above; g_out: 128 u32), one block of 32 threads, REPLAY_SMEM dynamic bytes.
        unsafe { launch!(gpu, &k, grid = 1, &g_addr, &mut g_out)? };
        gpu.sync_after(k.name())?;
        ran.push(true);
    }
    Ok(ran)
}

/// One line of the predicted-vs-measured table.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Comparison {
    /// Pattern name.
    pub pattern: String,
    /// Replay kernel.
    pub kernel: String,
    /// Model.
    pub predicted: (u64, u64),
    /// `ncu` (wavefronts, conflicts), if the launch was profiled.
    pub measured: Option<(u64, u64)>,
}

/// Reads `ncu --csv` output (one row per launch and metric) and returns, per launch of a kernel whose
/// name contains `filter`, in launch order: (kernel, grid, metric → value).
pub fn read_ncu_csv(text: &str, filter: &str) -> Vec<(String, String, std::collections::BTreeMap<String, f64>)> {
    let mut rows: Vec<(String, String, String, std::collections::BTreeMap<String, f64>)> = vec![];
    let mut header: Option<Vec<String>> = None;
    for line in text.lines() {
        let fields = split_csv(line);
        if fields.first().map(|s| s.as_str()) == Some("ID") {
            header = Some(fields);
            continue;
        }
        let Some(h) = &header else { continue };
        if fields.len() != h.len() {
            continue;
        }
        let get = |name: &str| h.iter().position(|x| x == name).map(|i| fields[i].clone()).unwrap_or_default();
        let (id, kernel) = (get("ID"), get("Kernel Name"));
        if !kernel.contains(filter) {
            continue;
        }
        let value: f64 = get("Metric Value").replace(',', "").parse().unwrap_or(f64::NAN);
        match rows.last_mut() {
            Some(r) if r.0 == id => {
                r.3.insert(get("Metric Name"), value);
            }
            _ => {
                let mut m = std::collections::BTreeMap::new();
                m.insert(get("Metric Name"), value);
                rows.push((id, kernel, get("Grid Size"), m));
            }
        }
    }
    rows.into_iter().map(|(_, k, g, m)| (k, g, m)).collect()
}

fn split_csv(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (vec![], String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// `ncu`'s count of `cp.async.cg` (LDGSTS) sectors, beside `model::traces::hgemm::ldgsts_sectors`.
pub const LDGSTS_SECTORS: &str = "sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum";

/// The `ncu` metric names for a direction: (wavefronts, conflicts).
pub fn metric_names(dir: Dir) -> (&'static str, &'static str) {
    match dir {
        Dir::Load => ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
        Dir::Store => ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
    }
}

/// Pairs each pattern that ran with its `ncu` launch (in order) and the model's prediction.
pub fn compare(patterns: &[Pattern], ran: &[bool], ncu_csv: &str) -> Result<Vec<Comparison>> {
    let launches = read_ncu_csv(ncu_csv, "bank_replay");
    let expected = ran.iter().filter(|&&r| r).count();
    if launches.len() != expected {
        return Err(Error::InvalidInput(format!("ncu CSV has {} bank_replay launches, {expected} patterns ran", launches.len())));
    }
    let mut it = launches.into_iter();
    let mut out = vec![];
    for (p, &r) in patterns.iter().zip(ran) {
        let c = predict(p)?;
        let measured = if r {
            let (kernel, _, m) = it.next().expect("counted above");
            if kernel != p.form.kernel() {
                return Err(Error::InvalidInput(format!("launch order mismatch: pattern `{}` expects {}, ncu shows {kernel}", p.name, p.form.kernel())));
            }
            let (wf, cf) = metric_names(p.form.dir());
            let get = |k: &str| m.get(k).copied().map(|v| v as u64);
            get(wf).zip(get(cf))
        } else {
            None
        };
        out.push(Comparison { pattern: p.name.clone(), kernel: p.form.kernel(), predicted: (c.wavefronts, c.conflicts()), measured });
    }
    Ok(out)
}

/// The comparison as a markdown table, disagreements flagged.
pub fn comparison_table(rows: &[Comparison]) -> String {
    let mut s = String::from("| pattern | kernel | predicted wavefronts | measured | predicted conflicts | measured | agree |\n|---|---|---:|---:|---:|---:|:-:|\n");
    for r in rows {
        let (mw, mc, ok) = match r.measured {
            Some((w, c)) => (w.to_string(), c.to_string(), if (w, c) == r.predicted { "yes" } else { "**NO**" }),
            None => ("-".into(), "-".into(), "not run"),
        };
        s += &format!("| {} | `{}` | {} | {mw} | {} | {mc} | {ok} |\n", r.pattern, r.kernel, r.predicted.0, r.predicted.1);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_is_valid_and_has_a_registered_kernel() {
        for p in patterns() {
            assert!(predict(&p).is_ok(), "{}", p.name);
            assert!(crate::steps::find(&p.form.kernel()).is_some(), "{} → {}", p.name, p.form.kernel());
            assert_eq!(p.addrs.len(), 32);
            assert!(p.addrs.iter().all(|&a| a + 16 <= REPLAY_SMEM));
        }
    }

    #[test]
    fn seed_cases_predict_what_the_seeds_say() {
        let ps = patterns();
        let c = |name: &str| predict(ps.iter().find(|p| p.name.starts_with(name)).unwrap()).unwrap();
        assert_eq!(c("seed001 ldmatrix.x4 A 16x16").conflicts(), 4);
        assert_eq!(c("seed001 ldmatrix.x4 A padded").conflicts(), 0);
        assert_eq!(c("seed001 ldmatrix.x4 A Swizzle").conflicts(), 0);
        assert_eq!(c("seed001 st.shared.v4 16x16 f16 row-major").conflicts(), 0);
        assert!(c("seed001 st.shared.v4 16x16 f16 padded").conflicts() > 0);
        assert_eq!(c("seed000 A fragment 32-bit loads, 128x32 tile padded").conflicts(), 0);
        assert!(c("seed000 A fragment 32-bit loads, 128x32 tile unpadded").conflicts() > 0);
    }

    #[test]
    fn ncu_csv_is_parsed_and_paired_in_order() {
        let ps = &patterns()[..2];
        let (wf, cf) = metric_names(Dir::Load);
        let mut csv = String::from("\"ID\",\"Kernel Name\",\"Grid Size\",\"Metric Name\",\"Metric Value\"\n");
        for (i, p) in ps.iter().enumerate() {
            csv += &format!("\"{i}\",\"{}\",\"(1, 1, 1)\",\"{wf}\",\"8\"\n\"{i}\",\"{}\",\"(1, 1, 1)\",\"{cf}\",\"4\"\n", p.form.kernel(), p.form.kernel());
        }
        let rows = compare(ps, &[true, true], &csv).unwrap();
        assert_eq!(rows[0].measured, Some((8, 4)));
        assert!(comparison_table(&rows).contains("| yes |"));
        assert!(compare(ps, &[true, true, true], &csv).is_err());
    }
}

//! `kernel-lab layout …`: bank maps (terminal and SVG), the swizzle solver, the bank-model check
//! against `ncu`, and the reduce kernels' predicted conflicts. Everything but `bankcheck --run` works
//! without a GPU.
use std::fmt::Write as _;

use layout::{Layout, Padded, SwizzleFn, pad::storage_align};

use kernel_lab_bench::{
    Error, Result,
    families::{bankcheck, gemm::Shape, reduce},
    model::{
        access::{self, Pattern},
        bankmap::{BankMap, TileLayout, solve},
        traces,
    },
    steps,
};

/// The help text of `layout`.
pub const HELP: &str = "\
kernel-lab layout: shared-memory layouts, bank maps and bank conflicts (no GPU needed)

USAGE:
  kernel-lab layout map   --tile RxC [--elem BYTES] [LAYOUT] [--access NAME] [--instr I] [--svg FILE] [--no-color]
  kernel-lab layout solve --tile RxC [--elem BYTES] --store NAME --load NAME [--top N]
  kernel-lab layout trace [--n N] [--ncu FILE]        reduce kernels: predicted (and measured) conflicts
  kernel-lab layout trace --gemm MxNxK [--ncu FILE]   sgemm kernels: the same per launch
  kernel-lab layout trace --hgemm-warp [--ncu FILE]   seed 001's warp ladder: the same
  kernel-lab layout trace --hgemm MxNxK [--ncu FILE]  block HGEMM kernels: the same per launch
  kernel-lab layout bankcheck [--run | --compare NCU_CSV]   model vs hardware (run under ncu on a GPU)

LAYOUT (default: row-major):
  --pad P           P extra elements per row
  --stride S        row stride of S elements
  --align F,O       stride = storage_align(cols, F, O) (TVM, seed 002)
  --swizzle S,B,M   Swizzle<S,B,M> on element offsets (seeds' order; CuTe Swizzle<B,M,S>)
  --tma 32B|64B|128B  the tile is one TMA box written with that swizzle mode (Swizzle<3,B,4> on
                    bytes, as Swizzle<3,B,4-log2(elem)> on elements); rows must fit the mode's span

ACCESS NAMES: store-v4-rowmajor, ldmatrix-x4, ldmatrix-x4-trans, ld32-column, ld32-row, mma-a-frag32

EXAMPLES:
  kernel-lab layout map --tile 16x16 --access ldmatrix-x4                 # seed 001: 4 conflicts
  kernel-lab layout map --tile 16x16 --swizzle 3,1,3 --access ldmatrix-x4 --svg swizzled.svg
  kernel-lab layout solve --tile 16x16 --store store-v4-rowmajor --load ldmatrix-x4
  kernel-lab layout map --tile 64x64 --tma 128B --access ldmatrix-x4     # a Hopper TMA tile: 0 conflicts
";

struct Args(Vec<String>);

impl Args {
    fn take(&mut self, flag: &str) -> Result<Option<String>> {
        match self.0.iter().position(|a| a == flag) {
            None => Ok(None),
            Some(i) if i + 1 < self.0.len() => {
                let v = self.0.remove(i + 1);
                self.0.remove(i);
                Ok(Some(v))
            }
            Some(_) => Err(Error::InvalidInput(format!("{flag} needs a value"))),
        }
    }
    fn flag(&mut self, flag: &str) -> bool {
        let found = self.0.iter().position(|a| a == flag);
        if let Some(i) = found { self.0.remove(i); }
        found.is_some()
    }
    fn finish(self) -> Result<()> {
        match self.0.first() {
            None => Ok(()),
            Some(a) => Err(Error::InvalidInput(format!("unexpected argument `{a}` (see `kernel-lab layout --help`)"))),
        }
    }
}

fn nums(s: &str, n: usize, what: &str) -> Result<Vec<u32>> {
    let v: Vec<u32> = s.split([',', 'x']).map(|p| p.trim().parse::<u32>()).collect::<std::result::Result<_, _>>()
        .map_err(|_| Error::InvalidInput(format!("{what} `{s}`: expected {n} numbers")))?;
    if v.len() != n {
        return Err(Error::InvalidInput(format!("{what} `{s}`: expected {n} numbers")));
    }
    Ok(v)
}

fn parse_tile(a: &mut Args) -> Result<(TileLayout, u32)> {
    let tile = a.take("--tile")?.ok_or_else(|| Error::InvalidInput("--tile RxC is required".into()))?;
    let rc = nums(&tile, 2, "--tile")?;
    let (rows, cols) = (rc[0], rc[1]);
    if rows == 0 || cols == 0 || rows > 512 || cols > 512 {
        return Err(Error::InvalidInput(format!("--tile {tile}: rows and columns must be 1..=512")));
    }
    let elem = a.take("--elem")?.map(|e| nums(&e, 1, "--elem").map(|v| v[0])).transpose()?.unwrap_or(2);
    let mut stride = cols;
    if let Some(p) = a.take("--pad")? { stride = cols + nums(&p, 1, "--pad")?[0]; }
    if let Some(s) = a.take("--stride")? { stride = nums(&s, 1, "--stride")?[0]; }
    if let Some(fo) = a.take("--align")? {
        let v = nums(&fo, 2, "--align")?;
        stride = storage_align(cols, v[0], v[1]).ok_or_else(|| Error::InvalidInput(format!("--align {fo}: needs factor > 0 and offset < factor")))?;
    }
    let padded = Padded::new(rows, cols, stride).map_err(|e| Error::InvalidInput(format!("{e:?}")))?;
    let swizzle = a.take("--swizzle")?.map(|s| -> Result<SwizzleFn> {
        let v = nums(&s, 3, "--swizzle")?;
        SwizzleFn::new(v[0], v[1], v[2]).map_err(|e| Error::InvalidInput(format!("--swizzle {s}: {e:?} (S must be >= B > 0)")))
    }).transpose()?;
    let tma = a.take("--tma")?.map(|m| -> Result<SwizzleFn> {
        use layout::hopper::TmaSwizzle;
        let mode = match m.as_str() {
            "32B" => TmaSwizzle::B32,
            "64B" => TmaSwizzle::B64,
            "128B" => TmaSwizzle::B128,
            _ => return Err(Error::InvalidInput(format!("--tma {m}: expected 32B, 64B or 128B"))),
        };
        let span = mode.span_bytes().unwrap_or(0);
        if stride != cols || cols * elem != span {
            return Err(Error::InvalidInput(format!(
                "--tma {m}: a TMA box row is {span} bytes in this mode (unpadded); --tile has {} bytes per row (stride {stride})", cols * elem)));
        }
        mode.element_swizzle(elem.trailing_zeros()).filter(|_| elem.is_power_of_two())
            .ok_or_else(|| Error::InvalidInput(format!("--tma {m}: element size {elem} must be 1, 2, 4, 8 or 16 bytes")))
    }).transpose()?;
    if tma.is_some() && swizzle.is_some() {
        return Err(Error::InvalidInput("--tma and --swizzle both set a swizzle; give one".into()));
    }
    let l = TileLayout { padded, swizzle: swizzle.or(tma) };
    l.validate()?;
    Ok((l, elem))
}

/// Runs `kernel-lab layout <args>`; returns the exit code.
pub fn main(args: Vec<String>) -> i32 {
    match run(args) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

fn run(args: Vec<String>) -> Result<()> {
    let mut a = Args(args);
    let sub = if a.0.is_empty() { "--help".to_string() } else { a.0.remove(0) };
    match sub.as_str() {
        "-h" | "--help" | "help" => {
            print!("{HELP}");
            Ok(())
        }
        "map" => {
            let (l, elem) = parse_tile(&mut a)?;
            let default = if elem == 2 && l.rows() % 16 == 0 && l.cols() % 16 == 0 { "ldmatrix-x4" } else { "ld32-row" };
            let pattern = Pattern::parse(&a.take("--access")?.unwrap_or(default.into()))?;
            let index = a.take("--instr")?.map(|i| nums(&i, 1, "--instr").map(|v| v[0] as usize)).transpose()?.unwrap_or(0);
            let svg = a.take("--svg")?;
            let color = !a.flag("--no-color");
            a.finish()?;
            let instrs = access::instructions(pattern, &l, elem)?;
            access::check_contiguous(&instrs, &l, elem)?;
            let ins = instrs.get(index).ok_or_else(|| Error::InvalidInput(format!("--instr {index}: the pattern has {} instructions", instrs.len())))?;
            let map = BankMap::new(&l, elem, ins);
            print!("{}", map.terminal(color));
            let total = access::total(&instrs)?;
            println!("{} over {}: {} instructions, {} wavefronts, {} bank conflicts in all (instruction {index} shown)",
                     pattern.name(), l.describe(), total.instructions, total.wavefronts, total.conflicts());
            if let Some(path) = svg {
                std::fs::write(&path, map.svg(&format!("{} — {} (instruction {index})", l.describe(), pattern.name())))
                    .map_err(|e| Error::InvalidInput(format!("cannot write {path}: {e}")))?;
                println!("wrote {path}");
            }
            Ok(())
        }
        "solve" => {
            let (l, elem) = parse_tile(&mut a)?;
            let store = Pattern::parse(&a.take("--store")?.ok_or_else(|| Error::InvalidInput("--store NAME is required".into()))?)?;
            let load = Pattern::parse(&a.take("--load")?.ok_or_else(|| Error::InvalidInput("--load NAME is required".into()))?)?;
            let top = a.take("--top")?.map(|t| nums(&t, 1, "--top").map(|v| v[0] as usize)).transpose()?.unwrap_or(10);
            a.finish()?;
            let ranked = solve(l.rows(), l.cols(), elem, store, load)?;
            println!("tile {}x{} of {elem}-byte elements, store {}, load {}: {} candidate layouts",
                     l.rows(), l.cols(), store.name(), load.name(), ranked.len());
            println!("{:<4} {:<34} {:>9} {:>9} {:>9} {:>9} {:>11}", "rank", "layout", "st wavef", "st confl", "ld wavef", "ld confl", "extra bytes");
            for (i, c) in ranked.iter().take(top).enumerate() {
                println!("{:<4} {:<34} {:>9} {:>9} {:>9} {:>9} {:>11}", i + 1, c.layout.describe(), c.store.wavefronts, c.store.conflicts(),
                         c.load.wavefronts, c.load.conflicts(), c.extra_bytes);
            }
            Ok(())
        }
        "trace" => {
            let n = a.take("--n")?.map(|v| crate::cli::options::parse_size(&v)).transpose()?.unwrap_or(1 << 20);
            let gemm = a.take("--gemm")?.map(|v| nums(&v, 3, "--gemm")).transpose()?;
            let hgemm_warp = a.flag("--hgemm-warp");
            let hgemm = a.take("--hgemm")?.map(|v| nums(&v, 3, "--hgemm")).transpose()?;
            let ncu = a.take("--ncu")?;
            a.finish()?;
            match gemm {
                _ if hgemm_warp => print!("{}", hgemm_warp_trace_table(ncu.as_deref())?),
                _ if hgemm.is_some() => {
                    let g = hgemm.expect("checked");
                    print!("{}", hgemm_trace_table(Shape::new(g[0] as usize, g[1] as usize, g[2] as usize)?, ncu.as_deref())?)
                }
                Some(g) => print!("{}", sgemm_trace_table(Shape::new(g[0] as usize, g[1] as usize, g[2] as usize)?, ncu.as_deref())?),
                None => print!("{}", trace_table(n, ncu.as_deref())?),
            }
            Ok(())
        }
        "bankcheck" => {
            let run_gpu = a.flag("--run");
            if a.flag("--dump") {
                a.finish()?;
                println!("{}", serde_json::to_string(&bankcheck::patterns()).unwrap_or_default());
                return Ok(());
            }
            let compare = a.take("--compare")?;
            a.finish()?;
            let ps = bankcheck::patterns();
            if run_gpu {
                let gpu = kernel_lab_bench::runtime::gpu::Gpu::new(0)?;
                let ran = bankcheck::run(&gpu, &ps)?;
                println!("launched {} of {} replay patterns on {} ({} skipped: need sm_90)", ran.iter().filter(|&&r| r).count(), ps.len(),
                         gpu.info.name, ran.iter().filter(|&&r| !r).count());
            } else if let Some(path) = compare {
                let csv = std::fs::read_to_string(&path).map_err(|e| Error::InvalidInput(format!("cannot read {path}: {e}")))?;
                let has_sm90 = csv.contains("bank_replay_stmatrix");
                let ran: Vec<bool> = ps.iter().map(|p| has_sm90 || !p.form.kernel().contains("stmatrix")).collect();
                let rows = bankcheck::compare(&ps, &ran, &csv)?;
                print!("{}", bankcheck::comparison_table(&rows));
                let bad = rows.iter().filter(|r| r.measured.is_some_and(|m| m != r.predicted)).count();
                println!("\n{} patterns, {} measured, {bad} disagreements", rows.len(), rows.iter().filter(|r| r.measured.is_some()).count());
            } else {
                println!("{:<72} {:<32} {:>10} {:>10}", "pattern", "kernel", "wavefronts", "conflicts");
                for p in &ps {
                    let c = bankcheck::predict(p)?;
                    println!("{:<72} {:<32} {:>10} {:>10}", p.name, p.form.kernel(), c.wavefronts, c.conflicts());
                }
            }
            Ok(())
        }
        other => Err(Error::InvalidInput(format!("unknown layout subcommand `{other}` (map, solve, trace, bankcheck)"))),
    }
}

/// Predicted shared-memory traffic of each reduce step for `n` elements (launch by launch), and, given
/// an `ncu --csv` file of a `--check --sizes n` run, the measured counts beside it.
pub fn trace_table(n: usize, ncu_csv: Option<&str>) -> Result<String> {
    let measured = match ncu_csv {
        Some(path) => Some(bankcheck::read_ncu_csv(&std::fs::read_to_string(path)
            .map_err(|e| Error::InvalidInput(format!("cannot read {path}: {e}")))?, "reduce_v")),
        None => None,
    };
    let mut s = String::new();
    let _ = writeln!(s, "| kernel | grid | ld instr | ld wavefronts (pred / ncu) | ld conflicts (pred / ncu) | st wavefronts (pred / ncu) | st conflicts (pred / ncu) |");
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|");
    let launches: Vec<(String, u64, Option<std::collections::BTreeMap<String, f64>>)> = match &measured {
        Some(m) => m.iter().map(|(k, g, v)| {
            let grid = g.trim_matches(|c| c == '(' || c == ')').split(',').next().and_then(|x| x.trim().parse().ok()).unwrap_or(0);
            (k.clone(), grid, Some(v.clone()))
        }).collect(),
        None => steps::reduce::STEPS.iter().flat_map(|st| reduce::launch_grids(st, n, 132 * 8).into_iter().map(move |g| (st.kernel.name.to_string(), g, None))).collect(),
    };
    for (kernel, grid, m) in launches {
        let Some(step) = steps::reduce::STEPS.iter().find(|s| s.kernel.name == kernel) else { continue };
        let p = traces::reduce_launch(step, grid);
        let get = |name: &str| m.as_ref().and_then(|m| m.get(name)).map(|v| format!("{v:.0}")).unwrap_or_else(|| "-".into());
        let (lw, lc) = bankcheck::metric_names(bankcheck::Dir::Load);
        let (sw, sc) = bankcheck::metric_names(bankcheck::Dir::Store);
        let _ = writeln!(s, "| `{kernel}` | {grid} | {} | {} / {} | {} / {} | {} / {} | {} / {} |", p.ld.instructions,
            p.ld.wavefronts, get(lw), p.ld.conflicts, get(lc), p.st.wavefronts, get(sw), p.st.conflicts, get(sc));
    }
    Ok(s)
}

/// Predicted shared-memory traffic of each SGEMM step for one launch on `shape`, beside `ncu`'s counts
/// from a `--family sgemm --check --gemm-sizes …` profile when given (launches matched by kernel name).
pub fn sgemm_trace_table(shape: Shape, ncu_csv: Option<&str>) -> Result<String> {
    let measured = match ncu_csv {
        Some(path) => bankcheck::read_ncu_csv(&std::fs::read_to_string(path)
            .map_err(|e| Error::InvalidInput(format!("cannot read {path}: {e}")))?, "sgemm_v"),
        None => vec![],
    };
    let mut s = String::new();
    let _ = writeln!(s, "| kernel | ld instr (pred / ncu) | ld wavefronts (pred / ncu) | ld conflicts (pred / ncu) | st wavefronts (pred / ncu) | st conflicts (pred / ncu) |");
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|");
    let (lw, lc) = bankcheck::metric_names(bankcheck::Dir::Load);
    let (sw, sc) = bankcheck::metric_names(bankcheck::Dir::Store);
    for step in steps::sgemm::STEPS {
        let Some(p) = traces::sgemm::launch(step, shape) else { continue };
        let m = measured.iter().find(|(k, _, _)| k == step.kernel.name).map(|(_, _, m)| m);
        let get = |name: &str| m.and_then(|m| m.get(name)).map(|v| format!("{v:.0}")).unwrap_or_else(|| "-".into());
        let _ = writeln!(s, "| `{}` | {} / {} | {} / {} | {} / {} | {} / {} | {} / {} |", step.kernel.name,
            p.ld.instructions, get("smsp__sass_inst_executed_op_shared_ld.sum"), p.ld.wavefronts, get(lw), p.ld.conflicts, get(lc),
            p.st.wavefronts, get(sw), p.st.conflicts, get(sc));
    }
    Ok(s)
}

/// Block HGEMM: predicted shared-memory traffic per launch on `shape`, beside `ncu`'s counts.
pub fn hgemm_trace_table(shape: Shape, ncu_csv: Option<&str>) -> Result<String> {
    let measured = match ncu_csv {
        Some(path) => bankcheck::read_ncu_csv(&std::fs::read_to_string(path)
            .map_err(|e| Error::InvalidInput(format!("cannot read {path}: {e}")))?, "hgemm_"),
        None => vec![],
    };
    let (lw, lc) = bankcheck::metric_names(bankcheck::Dir::Load);
    let (sw, sc) = bankcheck::metric_names(bankcheck::Dir::Store);
    let mut s = String::from("| kernel | ld wavefronts (pred / ncu) | ld conflicts (pred / ncu) | st wavefronts (pred / ncu) | st conflicts (pred / ncu) | cp.async sectors (pred / ncu) |\n|---|---:|---:|---:|---:|---:|\n");
    for step in steps::hgemm::STEPS {
        let Some(p) = traces::hgemm::launch(step, shape) else { continue };
        let m = measured.iter().find(|(k, _, _)| k == step.kernel.name).map(|(_, _, m)| m);
        let get = |name: &str| m.and_then(|m| m.get(name)).map(|v| format!("{v:.0}")).unwrap_or_else(|| "-".into());
        let ldgsts = traces::hgemm::ldgsts_sectors(step, shape).map(|v| format!("{v} / {}", get(bankcheck::LDGSTS_SECTORS))).unwrap_or_else(|| "-".into());
        let _ = writeln!(s, "| `{}` | {} / {} | {} / {} | {} / {} | {} / {} | {ldgsts} |", step.kernel.name, p.ld.wavefronts, get(lw), p.ld.conflicts, get(lc),
                         p.st.wavefronts, get(sw), p.st.conflicts, get(sc));
    }
    Ok(s)
}

/// Seed 001's warp ladder: predicted shared-memory wavefronts and conflicts per kernel, beside `ncu`'s.
pub fn hgemm_warp_trace_table(ncu_csv: Option<&str>) -> Result<String> {
    let measured = match ncu_csv {
        Some(path) => bankcheck::read_ncu_csv(&std::fs::read_to_string(path)
            .map_err(|e| Error::InvalidInput(format!("cannot read {path}: {e}")))?, "hgemm_warp"),
        None => vec![],
    };
    let (lw, lc) = bankcheck::metric_names(bankcheck::Dir::Load);
    let (sw, sc) = bankcheck::metric_names(bankcheck::Dir::Store);
    let mut s = String::from("| step | kernel | ld wavefronts (pred / ncu) | ld conflicts (pred / ncu) | st wavefronts (pred / ncu) | st conflicts (pred / ncu) |\n|---|---|---:|---:|---:|---:|\n");
    for w in steps::hgemm_warp::STEPS {
        let (step, kernel) = (w.kernel.step, w.kernel.name);
        let Some((ld, st)) = traces::hgemm_warp::predict(w) else { continue };
        let m = measured.iter().find(|(k, _, _)| k == kernel).map(|(_, _, m)| m);
        let get = |name: &str| m.and_then(|m| m.get(name)).map(|v| format!("{v:.0}")).unwrap_or_else(|| "-".into());
        let _ = writeln!(s, "| {step} | `{kernel}` | {} / {} | {} / {} | {} / {} | {} / {} |", ld.wavefronts, get(lw), ld.conflicts(), get(lc),
                         st.wavefronts, get(sw), st.conflicts(), get(sc));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn tma_tiles_map_through_the_modes_swizzle() {
        // A 64×64 f16 box under SWIZZLE_128B: ldmatrix.x4 conflict-free; the same tile unswizzled: 8-way.
        let (l, elem) = parse_tile(&mut Args(args("--tile 64x64 --tma 128B"))).unwrap();
        assert_eq!(l.swizzle.map(|f| (f.s, f.b, f.m)), Some((3, 3, 3)));
        let tma = layout::hopper::TmaTile2d { elem_bytes: 2, rows: 64, cols: 64, stride_bytes: 128, box_rows: 64, box_cols: 64,
                                              swizzle: layout::hopper::TmaSwizzle::B128 };
        for (r, c) in [(0, 0), (1, 8), (7, 56), (13, 24), (63, 63)] {
            assert_eq!(elem * l.offset(r, c), tma.smem_byte(r, c), "({r},{c})");
        }
        assert!(run(args("map --tile 64x64 --tma 128B --access ldmatrix-x4")).is_ok());
        let err = run(args("map --tile 64x128 --tma 128B")).unwrap_err().to_string();
        assert!(err.contains("128 bytes") && err.contains("256 bytes"), "{err}");
        assert!(run(args("map --tile 64x32 --tma 16B")).unwrap_err().to_string().contains("expected 32B"));
    }

    #[test]
    fn cli_errors_are_clear() {
        let e = run(args("map --tile 16x16 --swizzle 1,2,3")).unwrap_err().to_string();
        assert!(e.contains("S must be >= B"), "{e}");
        let e = run(args("map --tile 5x8 --swizzle 2,1,3 --elem 4")).unwrap_err().to_string();
        assert!(e.contains("OutsideTile"), "{e}");
        assert!(run(args("map --tile 16x16 --bogus")).unwrap_err().to_string().contains("--bogus"));
        assert!(run(args("solve --tile 16x16 --store store-v4-rowmajor")).unwrap_err().to_string().contains("--load"));
        assert!(run(args("map --tile 16x16 --access ldmatrix-x4 --elem 4")).unwrap_err().to_string().contains("2-byte"));
        assert!(run(args("nope")).is_err());
    }

    #[test]
    fn trace_table_lists_every_reduce_launch() {
        let t = trace_table(1 << 20, None).unwrap();
        for s in steps::reduce::STEPS {
            assert!(t.contains(s.kernel.name));
        }
    }
}

//! The report a run leaves behind: `report.json` (every measurement), `report.md` (the tables and the
//! plots) and SVG plots — bandwidth or TFLOP/s against size per step with the baseline, and each ladder
//! as bars of its percentage of the baseline — plus bank maps of the shared-memory layouts the kernels
//! use (computed on the CPU from the same layout constants the kernels use). `kernel-lab report --json FILE --out DIR` rebuilds it from
//! a saved `report.json`/`suite.json`, so committed results can be re-rendered without a GPU.
use std::{
    fmt::Write as _,
    path::{Path, PathBuf},
};

use plotters::prelude::*;
use serde_json::Value;

use kernel_lab_bench::{Error, Result};

/// One plotted series: label and (x, y) points.
type Series = (String, Vec<(f64, f64)>);

fn io_err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::InvalidInput(format!("cannot write {}: {e}", path.display()))
}

fn plot_err(what: &str, e: impl std::fmt::Display) -> Error {
    Error::InvalidInput(format!("plotting {what}: {e}"))
}

/// Line plot, x on a log2 axis.
fn line_plot(path: &Path, title: &str, x_label: &str, y_label: &str, series: &[Series]) -> Result<()> {
    let pts = series.iter().flat_map(|(_, p)| p.iter()).copied().collect::<Vec<_>>();
    if pts.is_empty() {
        return Ok(());
    }
    let (xmin, xmax) = pts.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0.log2()), b.max(p.0.log2())));
    let ymax = pts.iter().fold(0.0f64, |a, p| a.max(p.1)) * 1.08;
    let root = SVGBackend::new(path, (900, 540)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(title, e))?;
    let mut chart = ChartBuilder::on(&root).caption(title, ("sans-serif", 20)).margin(12).x_label_area_size(40).y_label_area_size(64)
        .build_cartesian_2d((xmin - 0.3)..(xmax + 0.3), 0.0..ymax.max(1e-9)).map_err(|e| plot_err(title, e))?;
    // Ticks at every power of two in range, labelled only there (a label at 2^11.5 printed as "2^12"
    // made the axis read 2^10, 2^10, 2^11, 2^12, 2^12, 2^13).
    let ticks = ((xmax - xmin).round() as usize + 1).clamp(2, 40);
    chart.configure_mesh().x_desc(x_label).y_desc(y_label).x_labels(ticks)
        .x_label_formatter(&|v| if (v - v.round()).abs() < 1e-6 { format!("2^{}", v.round()) } else { String::new() })
        .draw().map_err(|e| plot_err(title, e))?;
    for (i, (label, p)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let style = ShapeStyle { color, filled: true, stroke_width: if label.starts_with("cuBLAS") || label == "copy" { 3 } else { 2 } };
        chart.draw_series(LineSeries::new(p.iter().map(|&(x, y)| (x.log2(), y)), style)).map_err(|e| plot_err(title, e))?
            .label(label.clone()).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style));
        chart.draw_series(p.iter().map(|&(x, y)| Circle::new((x.log2(), y), 3, style))).map_err(|e| plot_err(title, e))?;
    }
    chart.configure_series_labels().position(SeriesLabelPosition::UpperLeft).background_style(WHITE.mix(0.85)).border_style(BLACK)
        .draw().map_err(|e| plot_err(title, e))?;
    root.present().map_err(|e| plot_err(title, e))
}

/// Horizontal-axis bars: one bar per (label, percent).
fn bar_plot(path: &Path, title: &str, y_label: &str, bars: &[(String, f64)]) -> Result<()> {
    if bars.is_empty() {
        return Ok(());
    }
    let ymax = bars.iter().fold(100.0f64, |a, b| a.max(b.1)) * 1.1;
    let root = SVGBackend::new(path, (900, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(title, e))?;
    let n = bars.len();
    let mut chart = ChartBuilder::on(&root).caption(title, ("sans-serif", 20)).margin(12).x_label_area_size(40).y_label_area_size(64)
        .build_cartesian_2d(0.0..n as f64, 0.0..ymax).map_err(|e| plot_err(title, e))?;
    chart.configure_mesh().disable_x_mesh().y_desc(y_label).x_labels(0).draw().map_err(|e| plot_err(title, e))?;
    chart.draw_series(bars.iter().enumerate().map(|(i, (_, v))| {
        Rectangle::new([(i as f64 + 0.15, 0.0), (i as f64 + 0.85, *v)], Palette99::pick(i).filled())
    })).map_err(|e| plot_err(title, e))?;
    // Each bar is labelled with its step above its value (the x axis has no numeric meaning).
    chart.draw_series(bars.iter().enumerate().map(|(i, (_, v))| {
        Text::new(format!("{v:.1}%"), (i as f64 + 0.2, *v + ymax * 0.012), ("sans-serif", 13))
    })).map_err(|e| plot_err(title, e))?;
    chart.draw_series(bars.iter().enumerate().map(|(i, (label, v))| {
        Text::new(label.clone(), (i as f64 + 0.2, *v + ymax * 0.05), ("sans-serif", 15).into_font().style(FontStyle::Bold))
    })).map_err(|e| plot_err(title, e))?;
    chart.draw_series(std::iter::once(PathElement::new(vec![(0.0, 100.0), (n as f64, 100.0)], BLACK.stroke_width(1))))
        .map_err(|e| plot_err(title, e))?;
    root.present().map_err(|e| plot_err(title, e))
}

fn num(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

/// A JSON value as a table cell: `-` where it is absent or null (never `null`), strings unquoted.
fn cell(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "-".into(),
        Some(Value::String(t)) => t.clone(),
        Some(x) => x.to_string(),
    }
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

/// Groups rows by `step` into series of (x, y).
fn by_step(rows: &[Value], x: impl Fn(&Value) -> Option<f64>, y: impl Fn(&Value) -> Option<f64>) -> Vec<Series> {
    let mut out: Vec<Series> = vec![];
    for r in rows {
        let (Some(xv), Some(yv)) = (x(r), y(r)) else { continue };
        let step = text(r, "step");
        match out.iter_mut().find(|s| s.0 == step) {
            Some(s) => s.1.push((xv, yv)),
            None => out.push((step, vec![(xv, yv)])),
        }
    }
    out
}

/// Bars of `pct_key` (a fraction) per step at the largest x.
fn ladder(rows: &[Value], x: impl Fn(&Value) -> Option<f64>, pct_key: &str) -> (f64, Vec<(String, f64)>) {
    let xmax = rows.iter().filter_map(&x).fold(0.0, f64::max);
    let bars = rows.iter().filter(|r| x(r) == Some(xmax)).filter_map(|r| num(r, pct_key).map(|p| (text(r, "step"), 100.0 * p))).collect();
    (xmax, bars)
}

fn gemm_n(r: &Value) -> Option<f64> {
    let s = r.get("shape")?;
    let (m, n, k) = (num(s, "m")?, num(s, "n")?, num(s, "k")?);
    (m == n && n == k).then_some(n)
}

/// Writes `report.json`, `report.md` and the SVG plots for a run's JSON into `out`; returns the files.
pub fn write(json: &Value, out: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out).map_err(|e| io_err(out, e))?;
    let mut files = vec![];
    let mut md = String::new();
    let gpu = json.get("gpu").cloned().unwrap_or(Value::Null);
    let cc = gpu.get("compute_capability").and_then(Value::as_array)
        .map(|a| a.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(".")).unwrap_or_else(|| "?".into());
    let _ = writeln!(md, "# kernel-lab report\n\n- GPU: {} (compute capability {cc}, {} SMs)\n- date: {}\n- commit: `{}`\n- seed: {}\n",
        text(&gpu, "name"), cell(gpu.get("sms")),
        text(json, "date"), text(json, "commit"), cell(json.get("seed")));
    let mut plot = |name: &str, md: &mut String, draw: &dyn Fn(&Path) -> Result<()>| -> Result<()> {
        let p = out.join(name);
        draw(&p)?;
        if p.exists() {
            let _ = writeln!(md, "![{name}]({name})\n");
            files.push(p);
        }
        Ok(())
    };
    if let Some(rows) = json.get("reduce").and_then(Value::as_array) {
        let _ = writeln!(md, "## reduce (seed 003): sum of N f32\n\nGB/s counts 4N bytes (copy: 8N); % copy is against the copy of the same run.\n");
        let _ = writeln!(md, "| step | N | median µs | GB/s | % copy | rel err | kernel |\n|---|---:|---:|---:|---:|---:|---|");
        for r in rows {
            let t = r.get("time").and_then(|t| num(t, "median_ms")).map(|v| format!("{:.1}", v * 1e3)).unwrap_or("-".into());
            let _ = writeln!(md, "| {} | {} | {t} | {} | {} | {} | `{}` |", text(r, "step"), cell(r.get("n")),
                num(r, "gbps").map(|v| format!("{v:.0}")).unwrap_or("-".into()), num(r, "pct_of_copy").map(|v| format!("{:.1}%", 100.0 * v)).unwrap_or("-".into()),
                num(r, "rel_err").map(|v| format!("{v:.1e}")).unwrap_or("-".into()), text(r, "kernel"));
        }
        md.push('\n');
        let series = by_step(rows, |r| num(r, "n"), |r| num(r, "gbps"));
        plot("reduce_bandwidth.svg", &mut md, &|p| line_plot(p, "reduce: bandwidth against N", "N (f32 elements)", "GB/s (4N bytes; copy 8N)", &series))?;
        let (n, bars) = ladder(rows, |r| num(r, "n"), "pct_of_copy");
        plot("reduce_ladder.svg", &mut md, &|p| bar_plot(p, &format!("reduce ladder at N = {n:.0}: % of copy bandwidth"), "% of copy", &bars))?;
    }
    for (family, baseline) in [("sgemm", "cublasSgemm (no TF32)"), ("hgemm", "cublasGemmEx f16/32F"), ("hgemm_f16acc", "cublasGemmEx f16/16F")] {
        let Some(rows) = json.get(family).and_then(Value::as_array) else { continue };
        let _ = writeln!(md, "## {family}: TFLOP/s against {baseline}\n\n| step | M×N×K | median ms | TFLOP/s | % cuBLAS | rel err | regs | kernel |\n|---|---|---:|---:|---:|---:|---:|---|");
        for r in rows {
            let s = r.get("shape").cloned().unwrap_or(Value::Null);
            let shape = format!("{}×{}×{}", cell(s.get("m")), cell(s.get("n")), cell(s.get("k")));
            let t = r.get("time").and_then(|t| num(t, "median_ms")).map(|v| format!("{v:.3}")).unwrap_or("-".into());
            let _ = writeln!(md, "| {} | {shape} | {t} | {} | {} | {} | {} | `{}` |", text(r, "step"),
                num(r, "tflops").map(|v| format!("{v:.2}")).unwrap_or("-".into()), num(r, "pct_of_cublas").map(|v| format!("{:.1}%", 100.0 * v)).unwrap_or("-".into()),
                num(r, "rel_err").map(|v| format!("{v:.1e}")).unwrap_or("-".into()), cell(r.get("registers")), text(r, "kernel"));
        }
        md.push('\n');
        if rows.iter().any(|r| r.get("baseline_paired").is_some_and(|v| !v.is_null())) {
            let _ = writeln!(md, "% cuBLAS: each step was timed interleaved with cuBLAS (4 rounds of blocks, ABBA, 30 ms untimed at each \
                switch) and is the ratio of the two medians; the cuBLAS row and line are cuBLAS timed alone at the start of its shape, \
                so a step's TFLOP/s over that line can differ from its % when the card's clocks drift during the run.\n");
        }
        let series = by_step(rows, gemm_n, |r| num(r, "tflops"));
        plot(&format!("{family}_tflops.svg"), &mut md, &|p| line_plot(p, &format!("{family}: TFLOP/s against square size"), "M = N = K", "TFLOP/s", &series))?;
        let (n, bars) = ladder(rows, gemm_n, "pct_of_cublas");
        plot(&format!("{family}_ladder.svg"), &mut md, &|p| bar_plot(p, &format!("{family} ladder at {n:.0}³: % of cuBLAS"), "% of cuBLAS", &bars))?;
    }
    bank_maps(out, &mut md, &mut files)?;
    let md_path = out.join("report.md");
    std::fs::write(&md_path, md).map_err(|e| io_err(&md_path, e))?;
    let json_path = out.join("report.json");
    std::fs::write(&json_path, serde_json::to_string_pretty(json).unwrap_or_default()).map_err(|e| io_err(&json_path, e))?;
    files.push(md_path);
    files.push(json_path);
    Ok(files)
}

/// The layouts the kernels use, each with the bank map of its first `ldmatrix.x4` (what the lanes of
/// one instruction touch, conflicted banks marked) and the model's total for the whole tile. The layouts
/// come from the constants the kernels compile against (`layout::hgemm`, `layout::hopper`).
fn bank_maps(out: &Path, md: &mut String, files: &mut Vec<PathBuf>) -> Result<()> {
    use layout::{Padded, SwizzleFn, hgemm, hopper::TmaSwizzle};

    use kernel_lab_bench::model::{access::{self, Pattern}, bankmap::{BankMap, TileLayout}};
    let tile = |rows: u32, cols: u32, stride: u32, swizzle: Option<SwizzleFn>| TileLayout { padded: Padded { rows, cols, stride }, swizzle };
    let maps: [(&str, &str, TileLayout); 7] = [
        ("bank_seed001_rowmajor.svg", "seed 001's 16×16 f16 tile, unpadded", tile(16, 16, 16, None)),
        ("bank_seed001_padded.svg", "seed 001's tile padded to 24 (seed 000's fix)", tile(16, 16, 24, None)),
        ("bank_seed001_swizzled.svg", "seed 001's tile with Swizzle<3,1,3>", tile(16, 16, 16, Some(SwizzleFn { s: 3, b: 1, m: 3 }))),
        ("bank_hgemm_a_rowmajor.svg", "HGEMM block v2: A tile 128×32 unpadded", tile(hgemm::A_ROW_MAJOR.rows, hgemm::A_ROW_MAJOR.cols, hgemm::A_ROW_MAJOR.cols, None)),
        ("bank_hgemm_a_padded.svg", "HGEMM block v3: A tile padded (storage_align)", tile(hgemm::A_PADDED.rows, hgemm::A_PADDED.cols, hgemm::A_PADDED.stride, None)),
        ("bank_hgemm_a_swizzled.svg", "HGEMM block v4+: A tile with the solver's swizzle",
         tile(hgemm::A_SWIZZLED.inner.rows, hgemm::A_SWIZZLED.inner.cols, hgemm::A_SWIZZLED.inner.cols, Some(hgemm::A_SWIZZLED.swizzle))),
        ("bank_tma_128b.svg", "Hopper: a 64×64 f16 TMA box, SWIZZLE_128B", tile(64, 64, 64, TmaSwizzle::B128.element_swizzle(1))),
    ];
    let _ = writeln!(md, "## Bank maps of the kernels' shared-memory layouts (CPU model)

| layout | ldmatrix.x4 over the tile: wavefronts | conflicts | map |
|---|---:|---:|---|");
    let mut pictures = String::new();
    for (name, what, l) in maps {
        let instrs = access::instructions(Pattern::parse("ldmatrix-x4")?, &l, 2)?;
        let total = access::total(&instrs)?;
        // The picture shows the first 16 rows (what the first ldmatrix.x4 touches; a whole 128-row tile
        // would be a 700 KB SVG); the totals above are over the whole tile.
        let view = TileLayout { padded: Padded { rows: l.padded.rows.min(16), ..l.padded }, swizzle: l.swizzle };
        let view_instrs = access::instructions(Pattern::parse("ldmatrix-x4")?, &view, 2)?;
        let Some(first) = view_instrs.first() else { continue };
        let path = out.join(name);
        std::fs::write(&path, BankMap::new(&view, 2, first).svg(&format!("{what} — {}, rows 0–15 (first ldmatrix.x4)", l.describe())))
            .map_err(|e| io_err(&path, e))?;
        let _ = writeln!(md, "| {what} (`{}`) | {} | {} | [{name}]({name}) |", l.describe(), total.wavefronts, total.conflicts());
        let _ = writeln!(pictures, "![{name}]({name})\n");
        files.push(path);
    }
    let _ = writeln!(md, "\n{pictures}");
    Ok(())
}

/// `kernel-lab report --json FILE [--out DIR]`: the report of a saved run, without a GPU.
pub fn main(args: &[String]) -> i32 {
    let (mut json, mut out) = (None, "target/kernel-lab-report".to_string());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.next()) {
            ("--json", Some(v)) => json = Some(v.clone()),
            ("--out", Some(v)) => out = v.clone(),
            _ => {
                eprintln!("usage: kernel-lab report --json FILE [--out DIR]");
                return 2;
            }
        }
    }
    let Some(path) = json else {
        eprintln!("usage: kernel-lab report --json FILE [--out DIR]");
        return 2;
    };
    let value = match std::fs::read_to_string(&path).map_err(|e| e.to_string()).and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string())) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: cannot read {path} as JSON: {e}");
            return 2;
        }
    };
    match write(&value, std::path::Path::new(&out)) {
        Ok(files) => {
            for f in files {
                println!("wrote {}", f.display());
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
    fn absent_and_null_values_print_as_a_dash() {
        let v = serde_json::json!({"registers": null, "n": 5, "kernel": "k"});
        assert_eq!((cell(v.get("registers")), cell(v.get("n")), cell(v.get("kernel")), cell(v.get("nope"))), ("-".into(), "5".into(), "k".into(), "-".into()));
    }

    #[test]
    fn a_report_is_written_from_a_run_json() {
        let json = serde_json::json!({
            "gpu": {"name": "Test GPU", "compute_capability": [9, 0], "sms": 132}, "date": "2026-11-22T00:00:00Z", "commit": "abc", "seed": 1,
            "reduce": [
                {"step": "copy", "kernel": "cuMemcpyDtoD", "n": 1024, "gbps": 900.0, "pct_of_copy": 1.0, "time": {"median_ms": 0.01}},
                {"step": "v0", "kernel": "reduce_v0", "n": 1024, "gbps": 300.0, "pct_of_copy": 0.33, "rel_err": 1e-8, "time": {"median_ms": 0.02}},
                {"step": "v0", "kernel": "reduce_v0", "n": 1048576, "gbps": 800.0, "pct_of_copy": 0.25},
                {"step": "copy", "kernel": "cuMemcpyDtoD", "n": 1048576, "gbps": 3200.0, "pct_of_copy": 1.0}
            ],
            "sgemm": [
                {"step": "cuBLAS", "kernel": "cublasSgemm", "shape": {"m": 1024, "n": 1024, "k": 1024}, "tflops": 30.0, "pct_of_cublas": 1.0},
                {"step": "v0", "kernel": "sgemm_v0", "shape": {"m": 1024, "n": 1024, "k": 1024}, "tflops": 5.0, "pct_of_cublas": 0.16, "registers": 32},
                {"step": "v0", "kernel": "sgemm_v0", "shape": {"m": 4097, "n": 129, "k": 33}, "rel_err": 1e-7}
            ]
        });
        let dir = std::env::temp_dir().join(format!("kernel-lab-report-test-{}", std::process::id()));
        let files = write(&json, &dir).unwrap();
        for f in ["reduce_bandwidth.svg", "reduce_ladder.svg", "sgemm_tflops.svg", "sgemm_ladder.svg", "report.md", "report.json"] {
            assert!(files.iter().any(|p| p.ends_with(f)), "{f} missing from {files:?}");
        }
        let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
        assert!(md.contains("## Bank maps") && md.contains("| seed 001's 16×16 f16 tile, unpadded (`16x16 row-major`) | 8 | 4 |"), "{md}");
        assert!(md.contains("(`64x64 Swizzle<3,3,3>`) | 64 | 0 |"), "the TMA box row: {md}");
        assert!(dir.join("bank_tma_128b.svg").exists());
        assert!(md.contains("Test GPU") && md.contains("![sgemm_ladder.svg](sgemm_ladder.svg)") && md.contains("`sgemm_v0`"));
        let svg = std::fs::read_to_string(dir.join("sgemm_ladder.svg")).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("16.0%"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}

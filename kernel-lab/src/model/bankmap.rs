//! Bank maps and the swizzle solver: a tile layout (padded, optionally swizzled; what `layout map`
//! takes on the command line), the bank map of one warp instruction over it (terminal and SVG), and
//! the search over paddings and swizzles that ranks layouts by the conflicts of a store and a load
//! pattern (seed 001's `Swizzle<3,1,3>` is its answer for the 16×16 tile).
use std::fmt::Write as _;

use layout::{Layout, Padded, SwizzleFn, bank};

use crate::{
    error::{Error, Result},
    model::access::{self, Instr, Pattern},
};

/// A tile layout from the command line: padded row-major, optionally swizzled on element offsets.
#[derive(Clone, Copy, Debug)]
pub struct TileLayout {
    /// Rows, columns, stride.
    pub padded: Padded,
    /// Swizzle on element offsets, if any.
    pub swizzle: Option<SwizzleFn>,
}

impl Layout for TileLayout {
    fn rows(&self) -> u32 { self.padded.rows }
    fn cols(&self) -> u32 { self.padded.cols }
    fn offset(&self, row: u32, col: u32) -> u32 {
        let o = self.padded.offset(row, col);
        self.swizzle.map(|s| s.apply(o)).unwrap_or(o)
    }
    fn size(&self) -> u32 { self.padded.size() }
}

impl TileLayout {
    /// e.g. `16x16 stride 24`, `16x16 Swizzle<3,1,3>`.
    pub fn describe(&self) -> String {
        let mut s = format!("{}x{}", self.padded.rows, self.padded.cols);
        if self.padded.stride != self.padded.cols {
            s += &format!(" stride {} (+{})", self.padded.stride, self.padded.stride - self.padded.cols);
        }
        if let Some(w) = self.swizzle {
            s += &format!(" Swizzle<{},{},{}>", w.s, w.b, w.m);
        }
        if self.padded.stride == self.padded.cols && self.swizzle.is_none() {
            s += " row-major";
        }
        s
    }

    /// Validates the layout: in-tile bijection (a swizzle's period must tile the storage).
    pub fn validate(&self) -> Result<()> {
        let mut seen = vec![0u64; (self.size() as usize).div_ceil(64) + 1];
        self.check(&mut seen).map_err(|e| Error::InvalidInput(format!("layout {}: {e:?}", self.describe())))
    }
}

/// One candidate of the solver.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The layout.
    pub layout: TileLayout,
    /// Cost of the store pattern.
    pub store: bank::Cost,
    /// Cost of the load pattern.
    pub load: bank::Cost,
    /// Shared memory beyond `rows · cols · elem` bytes.
    pub extra_bytes: u32,
}

/// Searches paddings (0, 1, 2, 4, 8, 16, 32 elements per row) and swizzles `Swizzle<S,B,M>` on element
/// offsets (1 <= B <= 3, B <= S <= 7, M <= 6) of a `rows × cols` tile, keeps those that are valid for
/// both patterns (bijective inside the tile, vector accesses kept contiguous and aligned), and ranks
/// them by (store conflicts, load conflicts, extra shared memory, padding before swizzle, fewer bits).
pub fn solve(rows: u32, cols: u32, elem: u32, store: Pattern, load: Pattern) -> Result<Vec<Candidate>> {
    let mut layouts = vec![];
    for p in [0u32, 1, 2, 4, 8, 16, 32] {
        layouts.push(TileLayout { padded: Padded { rows, cols, stride: cols + p }, swizzle: None });
    }
    for b in 1..=3 {
        for s in b..=7 {
            for m in 0..=6 {
                layouts.push(TileLayout { padded: Padded { rows, cols, stride: cols }, swizzle: Some(SwizzleFn { s, b, m }) });
            }
        }
    }
    let mut out = vec![];
    for l in layouts {
        if l.validate().is_err() {
            continue;
        }
        let (Ok(st), Ok(ld)) = (access::instructions(store, &l, elem), access::instructions(load, &l, elem)) else { continue };
        if access::check_contiguous(&st, &l, elem).is_err() || access::check_contiguous(&ld, &l, elem).is_err() {
            continue;
        }
        let (Ok(sc), Ok(lc)) = (access::total(&st), access::total(&ld)) else { continue }; // misaligned: invalid
        out.push(Candidate { layout: l, store: sc, load: lc, extra_bytes: (l.size() - rows * cols) * elem });
    }
    if out.is_empty() {
        // Surface why: the unpadded layout's own error.
        let l = TileLayout { padded: Padded { rows, cols, stride: cols }, swizzle: None };
        access::instructions(store, &l, elem)?;
        access::instructions(load, &l, elem)?;
        return Err(Error::InvalidInput("no valid layout found for these patterns".into()));
    }
    out.sort_by_key(|c| (c.store.conflicts(), c.load.conflicts(), c.extra_bytes, c.layout.swizzle.is_some() as u32,
                         c.layout.swizzle.map(|s| (s.b, s.s, s.m)).unwrap_or((0, 0, 0))));
    Ok(out)
}

/// The bank map of one instruction over a tile: every element's bank, and which lane (and phase)
/// touches it; elements in a bank that needs more than one wavefront in that phase are conflicts.
pub struct BankMap {
    rows: u32,
    cols: u32,
    /// Per element: (bank of its first byte, Some((lane, phase, conflicted)) if the instruction touches it).
    cells: Vec<(u32, Option<(u32, u32, bool)>)>,
    summary: String,
}

impl BankMap {
    /// Builds the map of `ins` over `l`.
    pub fn new(l: &TileLayout, elem: u32, ins: &Instr) -> BankMap {
        let (rows, cols) = (l.rows(), l.cols());
        let mut cells: Vec<(u32, Option<(u32, u32, bool)>)> = (0..rows * cols)
            .map(|i| (bank::bank_of(elem * l.offset(i / cols, i % cols)), None)).collect();
        let per_phase = if ins.matrices.is_some() { 8 } else { bank::lanes_per_phase(ins.width) };
        // Words per (phase, bank), to find conflicted banks.
        let mut words: std::collections::BTreeMap<(u32, u32), std::collections::BTreeSet<u32>> = Default::default();
        for (lane, c) in ins.coords.iter().enumerate() {
            if c.is_some() {
                for k in 0..ins.width / 4 {
                    let w = ins.addrs[lane] / 4 + k;
                    words.entry((lane as u32 / per_phase, w % 32)).or_default().insert(w);
                }
            }
        }
        for (lane, c) in ins.coords.iter().enumerate() {
            if let Some((r, c0)) = c {
                let phase = lane as u32 / per_phase;
                for k in 0..ins.elems(elem).max(1) {
                    let col = c0 + k;
                    if col < cols {
                        let bank = cells[(r * cols + col) as usize].0;
                        let conflicted = words.get(&(phase, bank)).is_some_and(|s| s.len() > 1);
                        cells[(r * cols + col) as usize].1 = Some((lane as u32, phase, conflicted));
                    }
                }
            }
        }
        let cost = ins.cost();
        let mut summary = String::new();
        let phases = if ins.matrices.is_some() { ins.matrices.unwrap_or(1) } else { 32 / per_phase };
        for ph in 0..phases {
            let worst = words.iter().filter(|((p, _), _)| *p == ph).map(|(_, s)| s.len()).max().unwrap_or(0);
            let _ = write!(summary, "phase {ph} (lanes {}-{}): {worst} wavefront(s); ", ph * per_phase, ph * per_phase + per_phase - 1);
        }
        if let Ok(c) = cost {
            let _ = write!(summary, "total {} wavefronts, {} conflicts", c.wavefronts, c.conflicts());
        }
        BankMap { rows, cols, cells, summary }
    }

    /// Coloured terminal rendering: each element shows its bank; elements the instruction touches are
    /// marked with their lane (`T5`), conflicted ones in red.
    pub fn terminal(&self, color: bool) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "lane/bank of each element the instruction touches (bank alone: untouched; a leading mark = conflicted bank in its phase)");
        for r in 0..self.rows {
            for c in 0..self.cols {
                let (bank, touch) = self.cells[(r * self.cols + c) as usize];
                let text = match touch {
                    Some((lane, _, true)) => format!("!{lane:>2}/{bank:<2}"),
                    Some((lane, _, false)) => format!(" {lane:>2}/{bank:<2}"),
                    None => format!("   {bank:<3}"),
                };
                if color {
                    let bg = 17 + (bank * 7) % 214;
                    let fg = match touch { Some((_, _, true)) => "1;91", Some(_) => "1;97", None => "37" };
                    let _ = write!(s, "\x1b[48;5;{bg}m\x1b[{fg}m{text}\x1b[0m");
                } else {
                    let _ = write!(s, "{text}");
                }
            }
            s.push('\n');
        }
        let _ = writeln!(s, "{}", self.summary);
        s
    }

    /// SVG rendering: one square per element, filled by bank (32 hues), labelled with its bank; the
    /// elements the instruction touches carry their lane and an outline in their phase's colour;
    /// conflicted ones a thick red border.
    pub fn svg(&self, title: &str) -> String {
        let cell = 34;
        let lines: Vec<&str> = self.summary.split("; ").collect();
        let (w, h) = ((self.cols * cell + 40).max(820), self.rows * cell + 80 + 18 * (lines.len() as u32 + 1));
        let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"monospace\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        let _ = writeln!(s, "<text x=\"20\" y=\"22\" font-size=\"14\">{}</text>", xml(title));
        let phase_colors = ["#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"];
        for r in 0..self.rows {
            for c in 0..self.cols {
                let (bank, touch) = self.cells[(r * self.cols + c) as usize];
                let (x, y) = (20 + c * cell, 40 + r * cell);
                let hue = bank * 360 / 32;
                let _ = writeln!(s, "<rect x=\"{x}\" y=\"{y}\" width=\"{cell}\" height=\"{cell}\" fill=\"hsl({hue},70%,{}%)\" stroke=\"#999\" stroke-width=\"0.5\"/>",
                                 if touch.is_some() { 62 } else { 88 });
                let _ = writeln!(s, "<text x=\"{}\" y=\"{}\" font-size=\"9\" fill=\"#333\">b{bank}</text>", x + 3, y + 11);
                if let Some((lane, phase, conflicted)) = touch {
                    let color = if conflicted { "#d62728" } else { phase_colors[(phase % 4) as usize] };
                    let width = if conflicted { 3.5 } else { 2.0 };
                    let _ = writeln!(s, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"{width}\"/>",
                                     x + 2, y + 2, cell - 4, cell - 4);
                    let _ = writeln!(s, "<text x=\"{}\" y=\"{}\" font-size=\"11\" font-weight=\"bold\" fill=\"#000\">T{lane}</text>", x + 4, y + 27);
                }
            }
        }
        let ly = 40 + self.rows * cell + 22;
        let _ = writeln!(s, "<text x=\"20\" y=\"{ly}\" font-size=\"11\">fill: bank (b0..b31); Tn: lane n; outline: phase (blue 0, green 1, purple 2, orange 3); thick red: conflicted bank</text>");
        for (i, line) in lines.iter().enumerate() {
            let _ = writeln!(s, "<text x=\"20\" y=\"{}\" font-size=\"11\">{}</text>", ly + 18 * (i as u32 + 1), xml(line));
        }
        s += "</svg>\n";
        s
    }
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solver_finds_seed_001s_answer() {
        let r = solve(16, 16, 2, Pattern::StoreV4RowMajor, Pattern::LdmatrixX4).unwrap();
        let best = &r[0];
        assert_eq!((best.store.conflicts(), best.load.conflicts(), best.extra_bytes), (0, 0, 0), "{}", best.layout.describe());
        assert!(best.layout.swizzle.is_some());
        // The seed's Swizzle<3,1,3> is among the perfect ones; padding by 8 fixes loads but not stores.
        assert!(r.iter().any(|c| c.layout.swizzle == Some(SwizzleFn { s: 3, b: 1, m: 3 }) && c.load.conflicts() == 0 && c.store.conflicts() == 0));
        let pad8 = r.iter().find(|c| c.layout.swizzle.is_none() && c.layout.padded.stride == 24).unwrap();
        assert_eq!(pad8.load.conflicts(), 0);
        assert!(pad8.store.conflicts() > 0);
    }

    #[test]
    fn map_and_svg_show_conflicts() {
        let l = TileLayout { padded: Padded { rows: 16, cols: 16, stride: 16 }, swizzle: None };
        let ins = &access::instructions(Pattern::LdmatrixX4, &l, 2).unwrap()[0];
        let m = BankMap::new(&l, 2, ins);
        let t = m.terminal(false);
        assert!(t.contains("! 0/0 ") && t.contains("8 wavefronts, 4 conflicts"), "{t}");
        let svg = m.svg("x");
        assert!(svg.starts_with("<svg") && svg.contains("#d62728") && svg.trim_end().ends_with("</svg>"));
        let sw = TileLayout { swizzle: Some(SwizzleFn { s: 3, b: 1, m: 3 }), ..l };
        let ins = &access::instructions(Pattern::LdmatrixX4, &sw, 2).unwrap()[0];
        assert!(!BankMap::new(&sw, 2, ins).terminal(false).contains('!'));
    }
}

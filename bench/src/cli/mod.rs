//! The `kernel-lab` command line, on top of the `kernel_lab` library (which never imports it):
//! [`options`] (flags, `--help`), [`headline`] (what `cargo run --release` runs), [`suite`] (the
//! tables of `--full` and of any selecting option), [`list`] (`--list`),
//! [`ab`] (two steps head to head), [`layout`] (bank maps, solver, traces: no GPU needed),
//! [`report`] (tables and SVG plots from a run's JSON), [`profile`] (`--ncu`, `--sanitize`: the suite
//! re-run under Nsight Compute or compute-sanitizer), [`tables`] (text tables), [`stamp`] (commit, date),
//! [`tuned`] (what the autotune cache holds), [`calibrate`] (the GEMM cost model's constants; `rank`: how
//! well it ranks), [`decode`] (decode attention on serving shapes), [`prefill`] (prefill attention on model shapes,
//! packed variable lengths), [`backward`] (attention backward on training shapes), [`allreduce`] (the
//! all-reduce ladder across GPUs, against NCCL).
pub mod ab;
pub mod allreduce;
pub mod backward;
pub mod calibrate;
pub mod calibrate_f32;
pub mod calibrate_fp8;
pub mod decode;
pub mod headline;
pub mod layout;
pub mod list;
pub mod options;
pub mod prefill;
pub mod profile;
pub mod report;
pub mod stamp;
pub mod suite;
pub mod tables;
pub mod timings;
pub mod tuned;
pub mod w8;

/// The frame the timing subcommands (`decode`, `prefill`, `backward`) share: their `--flag value` pairs, the GPU, the
/// element type and the exit code.
pub(crate) mod sub {
    use std::collections::HashMap;

    use kernel_lab_bench::{
        Gpu,
        cudarc::driver::CudaSlice,
        gemm::Element,
        runtime::device_check::{self, Dist, ElemKind},
        steps::gemm::Elem,
    };

    /// `args` as `--flag value` pairs among `known` (`Ok(None)`: `-h`/`--help`, `help` printed); an unknown
    /// flag or a missing value is an error naming it.
    pub(crate) fn flags(args: &[String], name: &str, help: &str, known: &[&str]) -> Result<Option<HashMap<String, String>>, String> {
        let mut out = HashMap::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if a == "-h" || a == "--help" {
                print!("{help}");
                return Ok(None);
            }
            if !known.contains(&a.as_str()) {
                return Err(format!("{name}: unknown option `{a}`\n{help}"));
            }
            out.insert(a.clone(), it.next().cloned().ok_or_else(|| format!("{a} needs a value"))?);
        }
        Ok(Some(out))
    }

    /// GPU 0, or the exit code 2 after saying why not and what works without one.
    pub(crate) fn gpu(name: &str, without: &str) -> Result<Gpu, i32> {
        Gpu::new(0).map_err(|e| {
            eprintln!("error: {e}\n`kernel-lab {name}` times kernels on a GPU; {without}");
            2
        })
    }

    /// `run` for the element type `dtype` names (f16 or bf16; else exit 2); 0 when it succeeds, 1 after
    /// printing its error.
    pub(crate) fn by_dtype(dtype: &str, f16: impl FnOnce() -> kernel_lab_bench::Result<()>, bf16: impl FnOnce() -> kernel_lab_bench::Result<()>) -> i32 {
        let r = match dtype {
            "f16" => f16(),
            "bf16" => bf16(),
            other => {
                eprintln!("error: --dtype {other}: f16 or bf16");
                return 2;
            }
        };
        match r {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        }
    }

    /// The exit code 2 after printing a usage error.
    pub(crate) fn usage(e: String) -> i32 {
        eprintln!("error: {e}");
        2
    }

    /// A `BxHxKxLxD` shape (batch, query heads, K/V heads, length, head dim; positive integers) of the
    /// subcommand `name`.
    pub(crate) fn parse_shape(name: &str, s: &str) -> Result<[usize; 5], String> {
        let bad = || format!("bad {name} shape `{s}`: expected BxHxKxLxD (positive integers)");
        let v: Vec<usize> = s.trim().split('x').map(|p| p.parse::<usize>()).collect::<Result<_, _>>().map_err(|_| bad())?;
        match v[..] {
            [b, h, k, l, d] if b > 0 && h > 0 && k > 0 && l > 0 && d > 0 => Ok([b, h, k, l, d]),
            _ => Err(bad()),
        }
    }

    /// The device fill's element kind of a 16-bit `T`.
    pub(crate) fn elem_kind<T: Element>() -> ElemKind {
        if T::ELEM == Elem::Bf16 { ElemKind::Bf16 } else { ElemKind::F16 }
    }

    /// A device buffer of `n` random elements (symmetric about 0), filled on the GPU from `seed`.
    pub(crate) fn random<T: Element>(gpu: &Gpu, n: usize, seed: u64) -> kernel_lab_bench::Result<CudaSlice<T>> {
        device_check::random(gpu, n, elem_kind::<T>(), Dist::Symmetric, seed)
    }

    /// Offsets (`cu_seqlens`) from lengths.
    pub(crate) fn cu(lens: &[u32]) -> Vec<u32> {
        std::iter::once(0).chain(lens.iter().scan(0, |s, &l| {
            *s += l;
            Some(*s)
        })).collect()
    }
}

/// Dispatches on the first argument (`layout`, `report`, `ab`, `tuned`, or the suite's options); returns the
/// process exit code (0 all good, 1 a check failed, 2 no GPU or bad usage).
pub fn main_with_args(args: impl IntoIterator<Item = String>) -> i32 {
    let args: Vec<String> = args.into_iter().collect();
    match args.first().map(|a| a.as_str()) {
        Some("layout") => return layout::main(args[1..].to_vec()),
        Some("report") => return report::main(&args[1..]),
        Some("ab") => return ab::main(&args[1..]),
        Some("tuned") => return tuned::main(&args[1..]),
        Some("calibrate") => return calibrate::main(&args[1..]),
        Some("rank") => return calibrate::rank_main(&args[1..]),
        Some("decode") => return decode::main(&args[1..]),
        Some("w8") => return w8::main(&args[1..]),
        Some("prefill") => return prefill::main(&args[1..]),
        Some("backward") => return backward::main(&args[1..]),
        Some("allreduce") => return allreduce::main(&args[1..]),
        _ => {}
    }
    match options::Options::parse(args) {
        Ok(Some(o)) => match suite::open(&o) {
            Err(code) => code,
            Ok(gpu) if o.headline => headline::run(&gpu, &o),
            Ok(gpu) => suite::run(gpu, o),
        },
        Ok(None) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

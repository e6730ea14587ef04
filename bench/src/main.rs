//! `cargo run --release`: the suite. See `--help`. The command line lives in `cli/`, on top of the
//! `kernel_lab` library.
mod cli;

fn main() {
    std::process::exit(cli::main_with_args(std::env::args().skip(1)));
}

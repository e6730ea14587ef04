//! `cargo run --release`: the suite. See `--help`.
fn main() {
    std::process::exit(kernel_lab::suite::main_with_args(std::env::args().skip(1)));
}

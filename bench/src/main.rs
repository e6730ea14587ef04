//! `cargo run --release`: the suite. See `--help`. The command line lives in `cli/`, on top of the
//! `kernel_lab` library.
mod cli;

fn main() {
    // NVLink multicast (NVLS) stays off: shared machines forbid it, and NCCL reads this when the
    // first communicator is made (`kernel-lab allreduce`).
    if std::env::var_os("NCCL_NVLS_ENABLE").is_none() {
        // SAFETY: the first statement of `main`, before this program starts any thread, so nothing
        // reads or writes the environment concurrently.
        unsafe { std::env::set_var("NCCL_NVLS_ENABLE", "0") };
    }
    std::process::exit(cli::main_with_args(std::env::args().skip(1)));
}

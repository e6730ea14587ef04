//! Builds the runner's kernel crate `kernels/` to PTX for sm_80 (Ampere and Hopper) into $OUT_DIR, with its
//! typed launchers.
fn main() {
    let built = ptx_builder::PtxBuilder::new("kernels").target(ptx_builder::Sm::Sm80).watch("../nvptx-std/src").build();
    if let Err(e) = built {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

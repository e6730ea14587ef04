//! Builds the runner's kernel crate `kernels/` to PTX into $OUT_DIR, with its typed launchers: for sm_80
//! (Ampere and later) and for sm_90a with `--cfg lab_sm90` (the same kernels with the programmatic
//! dependent launch prologue, loaded on Hopper).
fn main() {
    let built = ptx_builder::PtxBuilder::new("kernels").target(ptx_builder::Sm::Sm80).cfg(ptx_builder::Sm::Sm90a, "lab_sm90").watch("../nvptx-std/src").build();
    if let Err(e) = built {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

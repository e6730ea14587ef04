//! Builds `kernels/` (written against `cuda_std`'s names) to PTX for sm_80, with its typed launchers.
fn main() {
    let built = ptx_builder::PtxBuilder::new("kernels").target(ptx_builder::Sm::Sm80).watch("../../nvptx-std/src").watch("../../nvptx-macros/src").build();
    if let Err(e) = built {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

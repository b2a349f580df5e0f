// SPDX-License-Identifier: MIT
//! When confine-sys linked a library outside the linker's search (a build tree), the tests
//! and examples of this crate find it at run time there too (their run-time path).
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_CONFINE_LIB_DIR");
    if let Some(dir) = std::env::var_os("DEP_CONFINE_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.to_string_lossy());
    }
}

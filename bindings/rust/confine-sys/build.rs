// SPDX-License-Identifier: MIT
//! Finds libconfine to link against, without pkg-config, first match first:
//!  1. CONFINE_LIB_DIR: a directory holding libconfine.so;
//!  2. CONFINE_BUILD: a build tree of confine (BUILD/src/lib);
//!  3. the repository's own build tree (../../../build/src/lib from this crate), after `make`;
//!  4. the linker's default search (/usr/lib/..., where libconfine-dev puts libconfine.so).
//! For 1 to 3 the directory is passed on to the crates that use this one (DEP_CONFINE_LIB_DIR,
//! which the confine crate makes the run-time path of its tests and examples), and a build
//! tree's confine-init becomes BUILD_HELPER.
use std::env;
use std::path::{Path, PathBuf};

fn main() {
    for v in ["CONFINE_LIB_DIR", "CONFINE_BUILD"] {
        println!("cargo:rerun-if-env-changed={}", v);
    }
    println!("cargo:rerun-if-changed=build.rs");
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let repo_build = manifest.join("../../../build");
    let mut dir: Option<PathBuf> = env::var_os("CONFINE_LIB_DIR").map(PathBuf::from);
    let mut build: Option<PathBuf> = None;
    if dir.is_none() {
        let b = env::var_os("CONFINE_BUILD").map(PathBuf::from).or_else(|| {
            if repo_build.join("src/lib/libconfine.so").exists() {
                Some(repo_build.clone())
            } else {
                None
            }
        });
        if let Some(b) = b {
            dir = Some(b.join("src/lib"));
            build = Some(b);
        }
    }
    if let Some(d) = &dir {
        let d = d.canonicalize().unwrap_or_else(|_| d.clone());
        if !Path::new(&d).join("libconfine.so").exists() {
            println!(
                "cargo:warning=confine: no libconfine.so in '{}': build confine first (make)",
                d.display()
            );
        }
        println!("cargo:rustc-link-search=native={}", d.display());
        println!("cargo:lib_dir={}", d.display());
        // This crate's own tests find it at run time there too.
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", d.display());
        println!(
            "cargo:rerun-if-changed={}",
            d.join("libconfine.so").display()
        );
    }
    if let Some(b) = build {
        let helper = b.join("confine-init");
        let helper = helper.canonicalize().unwrap_or(helper);
        println!(
            "cargo:rustc-env=CONFINE_SYS_BUILD_HELPER={}",
            helper.display()
        );
    }
    println!("cargo:rustc-link-lib=dylib=confine");
}

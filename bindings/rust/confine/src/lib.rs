// SPDX-License-Identifier: MIT
//! Run a command in confine's OS sandbox: a safe interface to libconfine.so.1 (ABI v1), shaped
//! like std::process::Command.  No dependency outside the standard library.
//!
//! ```no_run
//! use confine::{Access, Command};
//! let out = Command::new("sh").arg("-c").arg("cat ~/.ssh/id_ed25519")
//!     .workspace("/srv/project").network(false).allow("/srv/cache", Access::Write)
//!     .output()?;
//! assert_eq!(out.finished.status, 1);   // refused: cat said Permission denied
//! println!("{}", out.finished.report);   // SPEC 7.3, JSON
//! # Ok::<(), confine::Error>(())
//! ```
//!
//! The library is linked as confine-sys finds it (CONFINE_LIB_DIR, CONFINE_BUILD, the
//! repository's build tree, else the system's libconfine.so).
mod child;
mod command;
mod error;

pub use child::{Child, Event, Finished, Output};
pub use command::{Access, Backend, Card, Command, Policy, Stdio, Tty};
pub use error::{Error, ErrorKind, Result};

use std::ffi::CString;
use std::ptr;

use confine_sys as sys;

use crate::command::take;
use crate::error::{check, field, text};

/// The running library's version: (major, minor, micro, abi, "MAJOR.MINOR.MICRO").
pub fn version() -> (u32, u32, u32, u32, String) {
    let v = unsafe { &*sys::confine_version() };
    (v.major, v.minor, v.micro, v.abi, text(v.text))
}

/// What a backend gives on this machine (SPEC 3.2).
#[derive(Clone, Debug)]
pub struct Probe {
    pub backend: String,
    pub available: bool,
    /// A stable code: "available", "binary_missing", ...
    pub code: String,
    pub reason: String,
    pub hint: String,
    /// Everything, as `confine probe --json` lists it.
    pub json: String,
}

/// Probes the bwrap or the landlock backend (Auto: bwrap).
pub fn probe(backend: Backend) -> Result<Probe> {
    let mut res: sys::confine_probe_result = unsafe { std::mem::zeroed() };
    res.size = std::mem::size_of::<sys::confine_probe_result>();
    let mut e = sys::confine_error::default();
    let r = match backend {
        Backend::Landlock => unsafe { sys::confine_probe_landlock(&mut res, &mut e) },
        _ => {
            let path = std::env::var("PATH")
                .ok()
                .and_then(|p| CString::new(p).ok());
            let pp = path.as_ref().map_or(ptr::null(), |p| p.as_ptr());
            unsafe { sys::confine_probe_bwrap(pp, ptr::null(), true, &mut res, &mut e) }
        }
    };
    check(r, &e)?;
    let mut out = ptr::null_mut();
    check(
        unsafe { sys::confine_probe_json(&res, &mut out, &mut e) },
        &e,
    )?;
    Ok(Probe {
        backend: field(&res.backend),
        available: res.available,
        code: field(&res.code),
        reason: field(&res.reason),
        hint: field(&res.hint),
        json: take(out),
    })
}

/// A string a command chose, as a person should see it (R38): every character that is not
/// visibly printable escaped.
pub fn escape(s: &str) -> Result<String> {
    let mut e = sys::confine_error::default();
    let mut out = ptr::null_mut();
    let r = unsafe {
        sys::confine_display_escape_n(s.as_ptr() as *const _, s.len(), 0, &mut out, &mut e)
    };
    check(r, &e).map(|_| take(out))
}

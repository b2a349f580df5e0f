// SPDX-License-Identifier: MIT
//! Error: a failure of libconfine with every field of its struct confine_error.
use std::ffi::CStr;
use std::fmt;
use std::os::raw::{c_char, c_int};

use confine_sys as sys;

/// What kind of failure (the CONFINE_E_* code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    NoMemory,
    Invalid,
    Rules,
    Workspace,
    Plan,
    Scan,
    Backend,
    Os,
    Spawn,
    NotFound,
    NotExecutable,
    Limit,
    Approval,
    Record,
    Other,
}

impl ErrorKind {
    fn from_code(code: c_int) -> ErrorKind {
        match code {
            sys::CONFINE_E_NOMEM => ErrorKind::NoMemory,
            sys::CONFINE_E_INVALID => ErrorKind::Invalid,
            sys::CONFINE_E_RULES => ErrorKind::Rules,
            sys::CONFINE_E_WORKSPACE => ErrorKind::Workspace,
            sys::CONFINE_E_PLAN => ErrorKind::Plan,
            sys::CONFINE_E_SCAN => ErrorKind::Scan,
            sys::CONFINE_E_BACKEND => ErrorKind::Backend,
            sys::CONFINE_E_OS => ErrorKind::Os,
            sys::CONFINE_E_SPAWN => ErrorKind::Spawn,
            sys::CONFINE_E_NOTFOUND => ErrorKind::NotFound,
            sys::CONFINE_E_NOEXEC => ErrorKind::NotExecutable,
            sys::CONFINE_E_LIMIT => ErrorKind::Limit,
            sys::CONFINE_E_APPROVAL => ErrorKind::Approval,
            sys::CONFINE_E_RECORD => ErrorKind::Record,
            _ => ErrorKind::Other,
        }
    }
}

/// A failure of libconfine: the fields of its struct confine_error, and the post-run report
/// (JSON) when one was made.
#[derive(Clone, Debug)]
pub struct Error {
    /// CONFINE_E_* (negative).
    pub code: i32,
    /// errno of the failing system call, 0 when none.
    pub os_errno: i32,
    /// The failing system call, "" when none.
    pub syscall: String,
    /// What failed.
    pub what: String,
    /// The path, name or value concerned, "" when none.
    pub subject: String,
    /// Position in a rule file, 0 when none.
    pub line: i32,
    pub column: i32,
    /// Why.
    pub reason: String,
    /// The remedy when the cause is known, "" otherwise.
    pub hint: String,
    /// The post-run report (SPEC 7.3) as JSON, when the failure came with one.
    pub report: Option<String>,
}

pub(crate) fn text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

pub(crate) fn field(a: &[c_char]) -> String {
    let bytes: Vec<u8> = a
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

impl Error {
    pub(crate) fn from_c(e: &sys::confine_error, code: c_int) -> Error {
        // The call's own return is its code (include/confine.h), never read back from e.
        let code = if code < 0 {
            code
        } else if e.code < 0 {
            e.code
        } else {
            sys::CONFINE_E_INVALID
        };
        Error {
            code,
            os_errno: e.os_errno,
            syscall: field(&e.syscall),
            what: field(&e.what),
            subject: field(&e.subject),
            line: e.line,
            column: e.column,
            reason: field(&e.reason),
            hint: field(&e.hint),
            report: None,
        }
    }

    pub(crate) fn invalid(subject: &str, reason: &str) -> Error {
        Error {
            code: sys::CONFINE_E_INVALID,
            os_errno: 0,
            syscall: String::new(),
            what: "invalid argument".into(),
            subject: subject.into(),
            line: 0,
            column: 0,
            reason: reason.into(),
            hint: String::new(),
            report: None,
        }
    }

    pub(crate) fn os(what: &str, syscall: &str, e: std::io::Error) -> Error {
        let mut err = Error::invalid("", &e.to_string());
        err.code = sys::CONFINE_E_OS;
        err.what = what.into();
        err.syscall = syscall.into();
        err.os_errno = e.raw_os_error().unwrap_or(0);
        err
    }

    pub fn kind(&self) -> ErrorKind {
        ErrorKind::from_code(self.code)
    }

    /// What `confine run` exits with for this failure: 127 (command not found), 126 (not
    /// executable), else 125.
    pub fn exit_status(&self) -> i32 {
        match self.code {
            sys::CONFINE_E_NOTFOUND => 127,
            sys::CONFINE_E_NOEXEC => 126,
            _ => 125,
        }
    }
}

impl fmt::Display for Error {
    /// confine's form: `confine: WHAT: 'SUBJECT': REASON`, then `hint: ...` when known.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.what.is_empty() {
            text(unsafe { sys::confine_strerror(self.code) })
        } else {
            self.what.clone()
        };
        write!(f, "confine: {}", what)?;
        if !self.subject.is_empty() {
            write!(f, ": '{}'", self.subject)?;
        }
        if self.line > 0 {
            write!(f, " (line {}, column {})", self.line, self.column)?;
        }
        if !self.reason.is_empty() {
            write!(f, ": {}", self.reason)?;
        }
        if !self.hint.is_empty() {
            write!(f, "\nhint: {}", self.hint)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// The result of this crate's calls.
pub type Result<T> = std::result::Result<T, Error>;

/// Turns a C return into a Result (e is the call's own error struct).
pub(crate) fn check(r: c_int, e: &sys::confine_error) -> Result<()> {
    if r < 0 {
        Err(Error::from_c(e, r))
    } else {
        Ok(())
    }
}

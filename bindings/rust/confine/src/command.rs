// SPDX-License-Identifier: MIT
//! Command: a builder of a confine_request, like std::process::Command.
use std::ffi::{CString, OsStr, OsString};
use std::fs::File;
use std::os::raw::{c_char, c_int};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::ptr;
use std::time::Duration;

use confine_sys as sys;

use crate::child::{Child, Output};
use crate::error::{check, field, text, Error, Result};
use crate::Finished;

/// Which accesses a rule is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    Both,
}

impl Access {
    fn c(self) -> sys::confine_access {
        match self {
            Access::Read => sys::CONFINE_ACCESS_READ,
            Access::Write => sys::CONFINE_ACCESS_WRITE,
            Access::Both => sys::CONFINE_ACCESS_BOTH,
        }
    }
}

/// The Linux backend (SPEC 3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// bubblewrap when its probe passes, else Landlock (said in Finished::notes).
    Auto,
    Bwrap,
    Landlock,
}

/// Required (no sandbox, no run: the default) or off (the command runs unconfined).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    Required,
    Off,
}

/// A terminal of the command's own (R41).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tty {
    Auto,
    On,
    Off,
}

/// Where a standard stream of the command goes.
#[derive(Debug)]
pub struct Stdio(pub(crate) StdioKind);

#[derive(Debug)]
pub(crate) enum StdioKind {
    Inherit,
    Piped,
    Null,
    Fd(OwnedFd),
}

impl Stdio {
    /// The caller's own descriptor (the default).
    pub fn inherit() -> Stdio {
        Stdio(StdioKind::Inherit)
    }
    /// A new pipe: Child::stdin, stdout or stderr.
    pub fn piped() -> Stdio {
        Stdio(StdioKind::Piped)
    }
    /// /dev/null.
    pub fn null() -> Stdio {
        Stdio(StdioKind::Null)
    }
}

impl From<File> for Stdio {
    fn from(f: File) -> Stdio {
        Stdio(StdioKind::Fd(OwnedFd::from(f)))
    }
}

impl From<OwnedFd> for Stdio {
    fn from(f: OwnedFd) -> Stdio {
        Stdio(StdioKind::Fd(f))
    }
}

#[derive(Clone, Debug)]
enum Op {
    Workspace(OsString),
    Rule(OsString, Access, sys::confine_action),
    RulesFile(OsString),
    Network(bool),
    NetAllow(String),
    NetDeny(String),
    Backend(Backend),
    Policy(Policy),
    Tty(Tty),
    Timeout(u64),
    KillGrace(u64),
    Limits(u64, u64),
    TmpSize(u64),
    Environment(Vec<(OsString, OsString)>),
    EnvSet(OsString, OsString),
    EnvPass(String),
    EnvUnset(String),
    EnvClear(bool),
    Inject(sys::confine_inject_placement, OsString, Vec<u8>),
    AuditFile(OsString),
    ReportFile(OsString),
    DenialScan(bool),
    Escalate(bool),
    Reusable(bool),
    WriteGrant(String),
    GrantReason(String),
    Receipt(String),
    Id(String),
    Helper(OsString),
    SshAgent(bool),
    SshKey(String),
    Secret(String),
    TlsInspect(String),
}

/// A confine_request, freed on drop.
pub(crate) struct Request(pub(crate) *mut sys::confine_request);

impl Drop for Request {
    fn drop(&mut self) {
        unsafe { sys::confine_request_free(self.0) }
    }
}

fn cstr<S: AsRef<OsStr>>(s: S) -> Result<CString> {
    let s = s.as_ref();
    CString::new(s.as_bytes())
        .map_err(|_| Error::invalid(&s.to_string_lossy(), "a string with a NUL byte"))
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Takes a string the library allocated for the caller (confine_free).
pub(crate) fn take(p: *mut c_char) -> String {
    let s = text(p);
    unsafe { sys::confine_free(p as *mut _) };
    s
}

/// A command and what it may do in the sandbox: rules, network, environment, limits,
/// records.  Setters only record; the request is built, and a refused value reported
/// (Error of kind Invalid), by spawn(), output(), status() and the questions.  The report
/// is always made; denial_scan is on by default (the report's denied paths).
#[derive(Debug)]
pub struct Command {
    argv: Vec<OsString>,
    ops: Vec<Op>,
    pub(crate) stdio: [Option<Stdio>; 3],
}

impl Command {
    /// The program (found in the PATH of the command's environment) and no arguments.
    pub fn new<S: AsRef<OsStr>>(program: S) -> Command {
        Command {
            argv: vec![program.as_ref().to_os_string()],
            ops: vec![Op::DenialScan(true)],
            stdio: [None, None, None],
        }
    }

    pub fn arg<S: AsRef<OsStr>>(&mut self, arg: S) -> &mut Command {
        self.argv.push(arg.as_ref().to_os_string());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(&mut self, args: I) -> &mut Command {
        for a in args {
            self.arg(a);
        }
        self
    }

    fn op(&mut self, op: Op) -> &mut Command {
        self.ops.push(op);
        self
    }

    /// The workspace root (default: the current directory), validated when the run is
    /// prepared (R1).
    pub fn workspace<P: AsRef<Path>>(&mut self, dir: P) -> &mut Command {
        self.op(Op::Workspace(dir.as_ref().into()))
    }
    /// A session rule that allows ACCESS of PATTERN.
    pub fn allow<P: AsRef<Path>>(&mut self, pattern: P, access: Access) -> &mut Command {
        self.op(Op::Rule(
            pattern.as_ref().into(),
            access,
            sys::CONFINE_ALLOW,
        ))
    }
    pub fn deny<P: AsRef<Path>>(&mut self, pattern: P, access: Access) -> &mut Command {
        self.op(Op::Rule(pattern.as_ref().into(), access, sys::CONFINE_DENY))
    }
    /// A session rule of action ask: enforced as deny until approved.
    pub fn ask<P: AsRef<Path>>(&mut self, pattern: P, access: Access) -> &mut Command {
        self.op(Op::Rule(pattern.as_ref().into(), access, sys::CONFINE_ASK))
    }
    pub fn session_rules_file<P: AsRef<Path>>(&mut self, file: P) -> &mut Command {
        self.op(Op::RulesFile(file.as_ref().into()))
    }
    /// The network: on (the default) or off.
    pub fn network(&mut self, enabled: bool) -> &mut Command {
        self.op(Op::Network(enabled))
    }
    pub fn net_allow(&mut self, pattern: &str) -> &mut Command {
        self.op(Op::NetAllow(pattern.into()))
    }
    pub fn net_deny(&mut self, pattern: &str) -> &mut Command {
        self.op(Op::NetDeny(pattern.into()))
    }
    /// The backend; unset, CONFINE_BACKEND as `confine run` reads it, else Auto.
    pub fn backend(&mut self, backend: Backend) -> &mut Command {
        self.op(Op::Backend(backend))
    }
    pub fn policy(&mut self, policy: Policy) -> &mut Command {
        self.op(Op::Policy(policy))
    }
    pub fn tty(&mut self, tty: Tty) -> &mut Command {
        self.op(Op::Tty(tty))
    }
    /// Wall-clock limit: the whole sandbox is killed when it expires (status 137).
    pub fn timeout(&mut self, d: Duration) -> &mut Command {
        self.op(Op::Timeout(ms(d)))
    }
    pub fn kill_grace(&mut self, d: Duration) -> &mut Command {
        self.op(Op::KillGrace(ms(d)))
    }
    /// At most PIDS processes and MEMORY bytes (0: no limit), through a cgroup.
    pub fn limits(&mut self, pids: u64, memory: u64) -> &mut Command {
        self.op(Op::Limits(pids, memory))
    }
    pub fn tmp_size(&mut self, bytes: u64) -> &mut Command {
        self.op(Op::TmpSize(bytes))
    }
    /// The base environment (default: this process's), filtered as SPEC 5 says.
    pub fn environment<I, K, V>(&mut self, vars: I) -> &mut Command
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        let v = vars
            .into_iter()
            .map(|(k, v)| (k.as_ref().into(), v.as_ref().into()))
            .collect();
        self.op(Op::Environment(v))
    }
    pub fn env<K: AsRef<OsStr>, V: AsRef<OsStr>>(&mut self, name: K, value: V) -> &mut Command {
        self.op(Op::EnvSet(name.as_ref().into(), value.as_ref().into()))
    }
    pub fn env_pass(&mut self, pattern: &str) -> &mut Command {
        self.op(Op::EnvPass(pattern.into()))
    }
    pub fn env_unset(&mut self, pattern: &str) -> &mut Command {
        self.op(Op::EnvUnset(pattern.into()))
    }
    pub fn env_clear(&mut self) -> &mut Command {
        self.op(Op::EnvClear(true))
    }
    /// The command finds DATA in a read-only file whose path is in variable NAME (SPEC 6).
    pub fn inject_env(&mut self, name: &str, data: &[u8]) -> &mut Command {
        self.op(Op::Inject(
            sys::CONFINE_INJECT_ENV,
            name.into(),
            data.to_vec(),
        ))
    }
    /// DATA appears read-only at the absolute path TARGET inside the sandbox.
    pub fn inject_file<P: AsRef<Path>>(&mut self, target: P, data: &[u8]) -> &mut Command {
        self.op(Op::Inject(
            sys::CONFINE_INJECT_PATH,
            target.as_ref().into(),
            data.to_vec(),
        ))
    }
    pub fn audit_file<P: AsRef<Path>>(&mut self, file: P) -> &mut Command {
        self.op(Op::AuditFile(file.as_ref().into()))
    }
    pub fn report_file<P: AsRef<Path>>(&mut self, file: P) -> &mut Command {
        self.op(Op::ReportFile(file.as_ref().into()))
    }
    pub fn denial_scan(&mut self, on: bool) -> &mut Command {
        self.op(Op::DenialScan(on))
    }
    /// Run once outside the sandbox (SPEC 7.1): needs an approved card's receipt.
    pub fn escalate(&mut self, on: bool) -> &mut Command {
        self.op(Op::Escalate(on))
    }
    pub fn reusable(&mut self, on: bool) -> &mut Command {
        self.op(Op::Reusable(on))
    }
    /// "PATH:file" or "PATH:subtree" (SPEC 7.2): needs an approved card's receipt.
    pub fn write_grant(&mut self, target: &str) -> &mut Command {
        self.op(Op::WriteGrant(target.into()))
    }
    pub fn grant_reason(&mut self, reason: &str) -> &mut Command {
        self.op(Op::GrantReason(reason.into()))
    }
    pub fn receipt(&mut self, digest: &str) -> &mut Command {
        self.op(Op::Receipt(digest.into()))
    }
    pub fn request_id(&mut self, id: &str) -> &mut Command {
        self.op(Op::Id(id.into()))
    }
    /// Where confine-init is; unset: CONFINE_HELPER, CONFINE_BUILD/confine-init, the build
    /// tree's that confine-sys linked against, else the library's own default.
    pub fn helper<P: AsRef<Path>>(&mut self, path: P) -> &mut Command {
        self.op(Op::Helper(path.as_ref().into()))
    }
    /// The ssh-agent filter (R44): the command signs only with the keys added by ssh_key().
    pub fn ssh_agent(&mut self, on: bool) -> &mut Command {
        self.op(Op::SshAgent(on))
    }
    pub fn ssh_key(&mut self, key: &str) -> &mut Command {
        self.op(Op::SshKey(key.into()))
    }
    /// A credential placeholder (R45): "NAME=SOURCE@HOST[,HOST...]".
    pub fn secret(&mut self, spec: &str) -> &mut Command {
        self.op(Op::Secret(spec.into()))
    }
    pub fn tls_inspect(&mut self, hosts: &str) -> &mut Command {
        self.op(Op::TlsInspect(hosts.into()))
    }
    pub fn stdin<T: Into<Stdio>>(&mut self, s: T) -> &mut Command {
        self.stdio[0] = Some(s.into());
        self
    }
    pub fn stdout<T: Into<Stdio>>(&mut self, s: T) -> &mut Command {
        self.stdio[1] = Some(s.into());
        self
    }
    pub fn stderr<T: Into<Stdio>>(&mut self, s: T) -> &mut Command {
        self.stdio[2] = Some(s.into());
        self
    }

    /// Builds the confine_request (every recorded setting, in order).
    pub(crate) fn request(&self) -> Result<Request> {
        let mut e = sys::confine_error::default();
        let mut p = ptr::null_mut();
        check(unsafe { sys::confine_request_new(&mut p, &mut e) }, &e)?;
        let req = Request(p);
        let args: Vec<CString> = self.argv.iter().map(cstr).collect::<Result<_>>()?;
        let argv: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
        check(
            unsafe { sys::confine_request_set_argv(p, argv.len(), argv.as_ptr(), &mut e) },
            &e,
        )?;
        if !self.ops.iter().any(|o| matches!(o, Op::Helper(_))) {
            if let Some(h) = default_helper() {
                apply(p, &Op::Helper(h))?;
            }
        }
        if !self.ops.iter().any(|o| matches!(o, Op::Backend(_))) {
            if let Some(b) = std::env::var_os("CONFINE_BACKEND") {
                let b = cstr(b)?;
                let mut v = sys::CONFINE_BACKEND_AUTO;
                check(
                    unsafe { sys::confine_backend_parse(b.as_ptr(), &mut v, &mut e) },
                    &e,
                )?;
                check(
                    unsafe { sys::confine_request_set_backend(p, v, &mut e) },
                    &e,
                )?;
            }
        }
        for op in &self.ops {
            apply(p, op)?;
        }
        Ok(req)
    }

    /// Starts the command; see Child.
    pub fn spawn(&mut self) -> Result<Child> {
        let req = self.request()?;
        let mut stdio: Vec<StdioKind> = Vec::new();
        for s in self.stdio.iter() {
            stdio.push(match s {
                None | Some(Stdio(StdioKind::Inherit)) => StdioKind::Inherit,
                Some(Stdio(StdioKind::Piped)) => StdioKind::Piped,
                Some(Stdio(StdioKind::Null)) => StdioKind::Null,
                Some(Stdio(StdioKind::Fd(f))) => StdioKind::Fd(dup_fd(f.as_raw_fd())?),
            });
        }
        Child::spawn(req, stdio)
    }

    /// Runs the command to its end with stdout and stderr captured (stdin: /dev/null unless
    /// set), like std's output().
    pub fn output(&mut self) -> Result<Output> {
        if self.stdio[0].is_none() {
            self.stdio[0] = Some(Stdio::null());
        }
        self.stdio[1] = Some(Stdio::piped());
        self.stdio[2] = Some(Stdio::piped());
        self.spawn()?.wait_with_output()
    }

    /// Runs the command to its end with the caller's streams: its exit status and report.
    pub fn status(&mut self) -> Result<Finished> {
        self.spawn()?.wait()
    }

    /// Which rule decides ACCESS (Read or Write) of PATH, as `confine explain --json`.
    pub fn explain<P: AsRef<Path>>(&self, path: P, access: Access) -> Result<String> {
        let path = cstr(path.as_ref())?;
        self.with_rules(|r, e| unsafe {
            let mut d: sys::confine_decision = std::mem::zeroed();
            d.size = std::mem::size_of::<sys::confine_decision>();
            check(
                sys::confine_rules_explain(r, path.as_ptr(), access.c(), &mut d, e),
                e,
            )?;
            let mut out = ptr::null_mut();
            check(sys::confine_decision_json(&d, &mut out, e), e)?;
            Ok(take(out))
        })
    }

    /// Which rule decides "HOST[:PORT]", as `confine explain --json --net`.
    pub fn explain_net(&self, host_port: &str) -> Result<String> {
        let host = cstr(host_port)?;
        self.with_rules(|r, e| unsafe {
            let mut d: sys::confine_net_decision = std::mem::zeroed();
            d.size = std::mem::size_of::<sys::confine_net_decision>();
            check(
                sys::confine_rules_explain_net(r, host.as_ptr(), &mut d, e),
                e,
            )?;
            let mut out = ptr::null_mut();
            let mode = sys::confine_rules_net_mode(r);
            check(sys::confine_net_decision_json(&d, mode, &mut out, e), e)?;
            Ok(take(out))
        })
    }

    fn with_rules<T>(
        &self,
        f: impl FnOnce(*const sys::confine_rules, &mut sys::confine_error) -> Result<T>,
    ) -> Result<T> {
        let req = self.request()?;
        let mut e = sys::confine_error::default();
        let mut r = ptr::null_mut();
        check(
            unsafe { sys::confine_rules_load(req.0, &mut r, &mut e) },
            &e,
        )?;
        let out = f(r, &mut e);
        unsafe { sys::confine_rules_free(r) };
        out
    }

    /// The approval card of an escalation or write grants.
    pub fn card(&self) -> Result<Card> {
        let req = self.request()?;
        let mut e = sys::confine_error::default();
        let mut c = ptr::null_mut();
        check(unsafe { sys::confine_card_new(req.0, &mut c, &mut e) }, &e)?;
        let mut out = ptr::null_mut();
        let r = unsafe { sys::confine_card_json(c, &mut out, &mut e) };
        let card = unsafe { &*c };
        let res = check(r, &e).map(|_| Card {
            kind: text(card.kind),
            title: text(card.title),
            request_id: field(&card.request_id),
            digest: field(&card.digest),
            json: take(out),
        });
        unsafe { sys::confine_card_free(c) };
        res
    }

    /// The compiled plan (`confine run --print-plan`): prepares, runs nothing.
    pub fn plan(&self, json: bool) -> Result<String> {
        let req = self.request()?;
        let mut e = sys::confine_error::default();
        let mut run = ptr::null_mut();
        check(
            unsafe { sys::confine_run_prepare(req.0, &mut run, &mut e) },
            &e,
        )?;
        let mut out = ptr::null_mut();
        let r = unsafe { sys::confine_run_plan_text(run, json, &mut out, &mut e) };
        unsafe { sys::confine_run_free(run) };
        check(r, &e).map(|_| take(out))
    }
}

/// An approval card (SPEC 7): show it; on approval, set its request_id and digest as the
/// command's request_id() and receipt().
#[derive(Clone, Debug)]
pub struct Card {
    pub kind: String,
    pub title: String,
    pub request_id: String,
    pub digest: String,
    /// The whole card as JSON (confine_card_json).
    pub json: String,
}

fn default_helper() -> Option<OsString> {
    if let Some(h) = std::env::var_os("CONFINE_HELPER") {
        return Some(h);
    }
    if let Some(b) = std::env::var_os("CONFINE_BUILD") {
        return Some(Path::new(&b).join("confine-init").into());
    }
    sys::BUILD_HELPER
        .filter(|h| Path::new(h).exists())
        .map(OsString::from)
}

fn dup_fd(fd: RawFd) -> Result<OwnedFd> {
    let r = unsafe { crate::child::fcntl(fd, crate::child::F_DUPFD_CLOEXEC, 3) };
    if r < 0 {
        return Err(Error::os(
            "cannot start the sandbox",
            "fcntl",
            std::io::Error::last_os_error(),
        ));
    }
    Ok(unsafe { OwnedFd::from_raw_fd(r) })
}

fn apply(p: *mut sys::confine_request, op: &Op) -> Result<()> {
    let mut e = sys::confine_error::default();
    let e_ = &mut e as *mut sys::confine_error;
    let r: c_int = unsafe {
        match op {
            Op::Workspace(d) => sys::confine_request_set_workspace(p, cstr(d)?.as_ptr(), e_),
            Op::Rule(pat, acc, act) => {
                sys::confine_request_add_rule(p, cstr(pat)?.as_ptr(), acc.c(), *act, e_)
            }
            Op::RulesFile(f) => {
                sys::confine_request_add_session_rules_file(p, cstr(f)?.as_ptr(), e_)
            }
            Op::Network(on) => sys::confine_request_set_network(p, *on, e_),
            Op::NetAllow(s) => sys::confine_request_net_allow(p, cstr(s)?.as_ptr(), e_),
            Op::NetDeny(s) => sys::confine_request_net_deny(p, cstr(s)?.as_ptr(), e_),
            Op::Backend(b) => sys::confine_request_set_backend(
                p,
                match b {
                    Backend::Auto => sys::CONFINE_BACKEND_AUTO,
                    Backend::Bwrap => sys::CONFINE_BACKEND_BWRAP,
                    Backend::Landlock => sys::CONFINE_BACKEND_LANDLOCK,
                },
                e_,
            ),
            Op::Policy(pol) => sys::confine_request_set_policy(
                p,
                match pol {
                    Policy::Required => sys::CONFINE_POLICY_REQUIRED,
                    Policy::Off => sys::CONFINE_POLICY_OFF,
                },
                e_,
            ),
            Op::Tty(t) => sys::confine_request_set_tty(
                p,
                match t {
                    Tty::Auto => sys::CONFINE_TTY_AUTO,
                    Tty::On => sys::CONFINE_TTY_ON,
                    Tty::Off => sys::CONFINE_TTY_OFF,
                },
                e_,
            ),
            Op::Timeout(t) => sys::confine_request_set_timeout(p, *t, e_),
            Op::KillGrace(t) => sys::confine_request_set_kill_grace(p, *t, e_),
            Op::Limits(a, b) => sys::confine_request_set_limits(p, *a, *b, e_),
            Op::TmpSize(n) => sys::confine_request_set_tmp_size(p, *n, e_),
            Op::Environment(vars) => {
                let mut items = Vec::new();
                for (k, v) in vars {
                    let mut kv = k.clone();
                    kv.push("=");
                    kv.push(v);
                    items.push(cstr(kv)?);
                }
                let mut ptrs: Vec<*const c_char> = items.iter().map(|s| s.as_ptr()).collect();
                ptrs.push(ptr::null());
                sys::confine_request_set_environment(p, ptrs.as_ptr(), e_)
            }
            Op::EnvSet(k, v) => {
                sys::confine_request_env_set(p, cstr(k)?.as_ptr(), cstr(v)?.as_ptr(), e_)
            }
            Op::EnvPass(s) => sys::confine_request_env_pass(p, cstr(s)?.as_ptr(), e_),
            Op::EnvUnset(s) => sys::confine_request_env_unset(p, cstr(s)?.as_ptr(), e_),
            Op::EnvClear(on) => sys::confine_request_env_clear(p, *on, e_),
            Op::Inject(place, w, data) => {
                let w = w.as_bytes();
                sys::confine_request_add_injection_n(
                    p,
                    *place,
                    w.as_ptr() as *const c_char,
                    w.len(),
                    data.as_ptr() as *const _,
                    data.len(),
                    e_,
                )
            }
            Op::AuditFile(f) => sys::confine_request_set_audit_file(p, cstr(f)?.as_ptr(), e_),
            Op::ReportFile(f) => sys::confine_request_set_report_file(p, cstr(f)?.as_ptr(), e_),
            Op::DenialScan(on) => sys::confine_request_set_denial_scan(p, *on, e_),
            Op::Escalate(on) => sys::confine_request_set_escalate(p, *on, e_),
            Op::Reusable(on) => sys::confine_request_set_reusable(p, *on, e_),
            Op::WriteGrant(s) => sys::confine_request_add_write_grant(p, cstr(s)?.as_ptr(), e_),
            Op::GrantReason(s) => sys::confine_request_set_grant_reason(p, cstr(s)?.as_ptr(), e_),
            Op::Receipt(s) => sys::confine_request_set_receipt(p, cstr(s)?.as_ptr(), e_),
            Op::Id(s) => sys::confine_request_set_id(p, cstr(s)?.as_ptr(), e_),
            Op::Helper(h) => sys::confine_request_set_helper(p, cstr(h)?.as_ptr(), e_),
            Op::SshAgent(on) => sys::confine_request_set_ssh_agent(p, *on, e_),
            Op::SshKey(k) => sys::confine_request_add_ssh_key(p, cstr(k)?.as_ptr(), e_),
            Op::Secret(spec) => sys::confine_request_add_secret(p, cstr(spec)?.as_ptr(), e_),
            Op::TlsInspect(h) => sys::confine_request_tls_inspect(p, cstr(h)?.as_ptr(), e_),
        }
    };
    check(r, &e)
}

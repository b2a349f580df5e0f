// SPDX-License-Identifier: MIT
//! Child: a started run with the command's pipes; Finished and Output: a run that ended.
use std::fs::File;
use std::io::{self, Read};
use std::os::raw::c_int;
use std::os::unix::io::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::ptr;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use confine_sys as sys;

use crate::command::{take, Request, StdioKind};
use crate::error::{check, field, text, Error, Result};

extern "C" {
    fn pipe2(fds: *mut c_int, flags: c_int) -> c_int;
    pub(crate) fn fcntl(fd: c_int, cmd: c_int, ...) -> c_int;
}
const O_CLOEXEC: c_int = 0o2000000;
pub(crate) const F_DUPFD_CLOEXEC: c_int = 1030;
const SIGTERM: c_int = 15;

struct RunPtr(*mut sys::confine_run);
// The run is used by one thread at a time: its own thread until confine_run_wait returns
// (confine_run_forward_signal excepted, which the header allows from any thread meanwhile),
// then the Child.
unsafe impl Send for RunPtr {}

struct Shared {
    run: Mutex<RunPtr>,
    // (return of start or wait, exit status, error), once the run's thread is done with it
    done: Mutex<Option<(c_int, c_int, sys::confine_error)>>,
    cv: Condvar,
}

impl Drop for Shared {
    fn drop(&mut self) {
        let run = self.run.get_mut().map(|r| r.0).unwrap_or(ptr::null_mut());
        if !run.is_null() {
            unsafe { sys::confine_run_free(run) };
        }
    }
}

/// A command started in the sandbox, like std::process::Child: stdin, stdout and stderr
/// where Stdio::piped() was asked, wait(), try_wait(), wait_timeout(), signal(), terminate().
/// The run lives on a thread of its own that starts it and waits for it (the sandbox ends with
/// the thread that started it), so a Child may be waited for and signalled from any thread.
pub struct Child {
    pub stdin: Option<File>,
    pub stdout: Option<File>,
    pub stderr: Option<File>,
    req: Request,
    shared: Arc<Shared>,
    thread: Option<thread::JoinHandle<()>>,
    finished: Option<Result<Finished>>,
    backend: String,
    notes: Vec<String>,
}

/// A run that ended.
#[derive(Clone, Debug)]
pub struct Finished {
    /// The exit status (R3): the command's, 128+N for signal N, 126/127 when it could not be
    /// executed.
    pub status: i32,
    /// The post-run report (SPEC 7.3) as JSON.
    pub report: String,
    /// Absolute paths the command's stderr named on denial lines (for display only).
    pub denied_paths: Vec<String>,
    /// The report's events (SPEC 7.3): kind, path, rule, detail.
    pub events: Vec<Event>,
    pub timed_out: bool,
    /// "bwrap", "landlock" or "none" (policy off).
    pub backend: String,
    /// What the backend could not give, said before the command started.
    pub notes: Vec<String>,
    /// A failure after the command ran, which never changes its status.
    pub error: Option<Error>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub kind: String,
    pub path: String,
    pub rule: String,
    pub detail: String,
}

/// Finished with the captured stdout and stderr.
#[derive(Clone, Debug)]
pub struct Output {
    pub finished: Finished,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

fn pipe() -> Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as c_int; 2];
    if unsafe { pipe2(fds.as_mut_ptr(), O_CLOEXEC) } < 0 {
        return Err(Error::os(
            "cannot start the sandbox",
            "pipe2",
            io::Error::last_os_error(),
        ));
    }
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// The command's 0, 1, 2 for the next run the request prepares (-1: this process's own, which
/// stay untouched: no other thread's output or fork meets the command's pipes).
fn set_stdio(req: &Request, fds: [RawFd; 3]) -> Result<()> {
    let mut e = sys::confine_error::default();
    let r = unsafe { sys::confine_request_set_stdio(req.0, fds[0], fds[1], fds[2], &mut e) };
    check(r, &e)
}

impl Child {
    pub(crate) fn spawn(req: Request, stdio: Vec<StdioKind>) -> Result<Child> {
        let mut child_fds: [Option<OwnedFd>; 3] = [None, None, None];
        let mut mine: [Option<File>; 3] = [None, None, None];
        for (i, s) in stdio.into_iter().enumerate() {
            match s {
                StdioKind::Inherit => {}
                StdioKind::Piped => {
                    let (r, w) = pipe()?;
                    let (c, m) = if i == 0 { (r, w) } else { (w, r) };
                    child_fds[i] = Some(c);
                    mine[i] = Some(File::from(m));
                }
                StdioKind::Null => {
                    let f = File::options()
                        .read(true)
                        .write(true)
                        .open("/dev/null")
                        .map_err(|e| Error::os("cannot start the sandbox", "open", e))?;
                    child_fds[i] = Some(OwnedFd::from(f));
                }
                StdioKind::Fd(f) => child_fds[i] = Some(f),
            }
        }
        let raw = |i: usize| child_fds[i].as_ref().map_or(-1, |f| f.as_raw_fd());
        set_stdio(&req, [raw(0), raw(1), raw(2)])?;
        let mut e = sys::confine_error::default();
        let mut run = ptr::null_mut();
        let r = unsafe { sys::confine_run_prepare(req.0, &mut run, &mut e) };
        // The numbers are the run's now; it duplicates the descriptors when it starts.
        set_stdio(&req, [-1, -1, -1])?;
        if r < 0 {
            let mut err = Error::from_c(&e, r);
            err.report = report(&req, ptr::null(), err.exit_status(), &e);
            return Err(err);
        }
        let notes = unsafe {
            [
                sys::confine_run_fallback_note(run),
                sys::confine_run_landlock_note(run),
            ]
        }
        .iter()
        .filter(|p| !p.is_null())
        .map(|&p| text(p))
        .collect();
        let backend = text(unsafe { sys::confine_run_backend(run) });
        let shared = Arc::new(Shared {
            run: Mutex::new(RunPtr(run)),
            done: Mutex::new(None),
            cv: Condvar::new(),
        });
        let (tx, rx) = mpsc::channel();
        let sh = Arc::clone(&shared);
        let th = thread::Builder::new()
            .name("confine-run".into())
            .spawn(move || run_thread(sh, child_fds, tx))
            .map_err(|e| Error::os("cannot start the sandbox", "pthread_create", e))?;
        let started: (c_int, sys::confine_error) = rx.recv().unwrap_or((sys::CONFINE_E_OS, e));
        let [stdin, stdout, stderr] = mine;
        let mut child = Child {
            stdin,
            stdout,
            stderr,
            req,
            shared,
            thread: Some(th),
            finished: None,
            backend,
            notes,
        };
        if started.0 < 0 {
            child.stdin = None;
            child.stdout = None;
            child.stderr = None;
            return match child.wait() {
                Err(err) => Err(err),
                Ok(_) => Err(Error::from_c(&started.1, started.0)),
            };
        }
        Ok(child)
    }

    fn done(&self) -> bool {
        self.shared.done.lock().map(|d| d.is_some()).unwrap_or(true)
    }

    /// Waits for the command to end: Finished, or the Error of a sandbox that failed (exit
    /// status 125, with the report).  stdin is closed first, as std does.
    pub fn wait(&mut self) -> Result<Finished> {
        drop(self.stdin.take());
        if let Some(f) = &self.finished {
            return f.clone();
        }
        {
            let mut d = self.shared.done.lock().unwrap_or_else(|p| p.into_inner());
            while d.is_none() {
                d = self.shared.cv.wait(d).unwrap_or_else(|p| p.into_inner());
            }
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let f = self.collect();
        self.finished = Some(f.clone());
        f
    }

    /// Finished when the command has ended, None when it runs.
    pub fn try_wait(&mut self) -> Result<Option<Finished>> {
        if self.finished.is_some() || self.done() {
            return self.wait().map(Some);
        }
        Ok(None)
    }

    /// Waits at most D: None when the command still runs then.
    pub fn wait_timeout(&mut self, d: Duration) -> Result<Option<Finished>> {
        let end = Instant::now() + d;
        {
            let mut g = self.shared.done.lock().unwrap_or_else(|p| p.into_inner());
            while g.is_none() {
                let now = Instant::now();
                if now >= end {
                    return Ok(None);
                }
                g = self
                    .shared
                    .cv
                    .wait_timeout(g, end - now)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
        }
        self.wait().map(Some)
    }

    /// Forwards SIGINT, SIGTERM, SIGHUP or SIGQUIT to the command; after the last three (or
    /// a second SIGINT) confine kills the whole sandbox when the command is still running
    /// after the kill grace (Command::kill_grace, default 5 s).  Nothing once it has ended.
    pub fn signal(&self, sig: i32) -> Result<()> {
        let run = self.shared.run.lock().unwrap_or_else(|p| p.into_inner());
        if run.0.is_null() || self.done() {
            return Ok(());
        }
        let r = unsafe { sys::confine_run_forward_signal(run.0, sig) };
        if r < 0 {
            return Err(Error::invalid(
                &sig.to_string(),
                "not a signal confine forwards",
            ));
        }
        Ok(())
    }

    /// SIGTERM (see signal()).
    pub fn terminate(&self) -> Result<()> {
        self.signal(SIGTERM)
    }

    /// Reads stdout and stderr to their end (stdin closed) and waits.
    pub fn wait_with_output(mut self) -> Result<Output> {
        drop(self.stdin.take());
        let err_reader = self.stderr.take().map(|mut f| {
            thread::spawn(move || {
                let mut v = Vec::new();
                let _ = f.read_to_end(&mut v);
                v
            })
        });
        let mut stdout = Vec::new();
        if let Some(mut f) = self.stdout.take() {
            let _ = f.read_to_end(&mut stdout);
        }
        let stderr = err_reader
            .map(|t| t.join().unwrap_or_default())
            .unwrap_or_default();
        let finished = self.wait()?;
        Ok(Output {
            finished,
            stdout,
            stderr,
        })
    }

    fn collect(&mut self) -> Result<Finished> {
        let (code, status, e) = self
            .shared
            .done
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .unwrap();
        let run = self.shared.run.lock().unwrap_or_else(|p| p.into_inner()).0;
        let report = report(&self.req, run, status, &e).unwrap_or_default();
        let from_command = unsafe { sys::confine_run_status_from_command(run) };
        let mut error = None;
        if code < 0 {
            let mut err = Error::from_c(&e, code);
            err.report = Some(report.clone());
            if !from_command {
                return Err(err);
            }
            error = Some(err);
        } else {
            let mut a = sys::confine_error::default();
            let r = unsafe { sys::confine_request_audit_error(self.req.0, &mut a) };
            if r < 0 {
                error = Some(Error::from_c(&a, r));
            }
        }
        let mut n = 0usize;
        let p = unsafe { sys::confine_run_denied_paths(run, &mut n) };
        let denied_paths = (0..n).map(|i| text(unsafe { *p.add(i) })).collect();
        let events = (0..unsafe { sys::confine_run_event_count(run) })
            .filter_map(|i| unsafe { sys::confine_run_event(run, i).as_ref() })
            .map(|ev| Event {
                kind: field(&ev.kind),
                path: field(&ev.path),
                rule: field(&ev.rule),
                detail: field(&ev.detail),
            })
            .collect();
        Ok(Finished {
            status,
            report,
            denied_paths,
            events,
            timed_out: unsafe { sys::confine_run_timed_out(run) },
            backend: self.backend.clone(),
            notes: self.notes.clone(),
            error,
        })
    }
}

/// The report as JSON (and written to the request's report file, when it has one).
fn report(
    req: &Request,
    run: *const sys::confine_run,
    status: c_int,
    why: &sys::confine_error,
) -> Option<String> {
    let mut e = sys::confine_error::default();
    let mut out = ptr::null_mut();
    let r = unsafe { sys::confine_report_json(req.0, run, status, why, &mut out, &mut e) };
    check(r, &e).ok()?;
    let mut w = sys::confine_error::default();
    unsafe { sys::confine_request_write_report(req.0, run, status, why, &mut w) };
    Some(take(out))
}

fn run_thread(
    sh: Arc<Shared>,
    fds: [Option<OwnedFd>; 3],
    tx: mpsc::Sender<(c_int, sys::confine_error)>,
) {
    let run = sh.run.lock().unwrap_or_else(|p| p.into_inner()).0;
    let mut e = sys::confine_error::default();
    let r = unsafe { sys::confine_run_start(run, &mut e) };
    drop(fds); // the run holds its own duplicates; ours close now
    let _ = tx.send((r, e));
    let mut status: c_int = 125;
    let r = if r == 0 {
        unsafe { sys::confine_run_wait(run, &mut status, &mut e) }
    } else {
        r
    };
    let mut d = sh.done.lock().unwrap_or_else(|p| p.into_inner());
    *d = Some((r, status, e));
    sh.cv.notify_all();
}

impl Drop for Child {
    /// Like std's Child, dropping does not wait: the run's thread waits on, and the run is
    /// freed when it ends.
    fn drop(&mut self) {}
}

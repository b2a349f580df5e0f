// SPDX-License-Identifier: MIT
//! Real commands in the sandbox through the crate: the allowed and the denied case with the
//! exact errno and exit status, each denial with its host control (the same operation without
//! confine succeeds).  The backend is CONFINE_TEST_BACKEND (bwrap, the default, or landlock).
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use confine::{Access, Backend, Command, ErrorKind, Stdio};

const PY: &str = "/usr/bin/python3";
// Tries one file operation and prints OK or the errno's name (exit status 3 then).
const TRY: &str = "import errno, sys
op, path = sys.argv[1], sys.argv[2]
try:
    if op == 'read':
        print('OK', open(path).read().strip())
    else:
        open(path, 'w').write('written\\n'); print('OK')
except OSError as e:
    print(errno.errorcode[e.errno]); sys.exit(3)
";

fn backend() -> (Backend, &'static str) {
    match std::env::var("CONFINE_TEST_BACKEND").as_deref() {
        Ok("landlock") => (Backend::Landlock, "landlock"),
        _ => (Backend::Bwrap, "bwrap"),
    }
}

/// A scratch tree outside /tmp (the sandbox's /tmp is its own), removed on drop: home (with
/// .ssh/id_ed25519), home/proj (the workspace, with notes.txt), other (with secret.txt).
struct Fix {
    root: PathBuf,
    home: PathBuf,
    ws: PathBuf,
    other: PathBuf,
    key: PathBuf,
    tryop: PathBuf,
}

impl Drop for Fix {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

static N: AtomicUsize = AtomicUsize::new(0);

fn fix() -> Fix {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    let root = PathBuf::from(format!(
        "/var/tmp/confine-rs.{}.{}.{}",
        process::id(),
        N.fetch_add(1, Ordering::SeqCst),
        nanos.subsec_nanos()
    ));
    fs::create_dir(&root).expect("a new scratch directory");
    fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).unwrap();
    let home = root.join("home");
    let f = Fix {
        ws: home.join("proj"),
        key: home.join(".ssh/id_ed25519"),
        other: root.join("other"),
        tryop: root.join("tryop.py"),
        home,
        root,
    };
    fs::create_dir_all(&f.ws).unwrap();
    fs::create_dir_all(f.key.parent().unwrap()).unwrap();
    fs::create_dir_all(&f.other).unwrap();
    fs::write(&f.key, "ssh-secret\n").unwrap();
    fs::write(f.ws.join("notes.txt"), "hello\n").unwrap();
    fs::write(f.other.join("secret.txt"), "other-secret\n").unwrap();
    fs::write(&f.tryop, TRY).unwrap();
    f
}

impl Fix {
    fn env(&self) -> Vec<(String, String)> {
        vec![
            ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
            ("HOME".into(), self.home.to_string_lossy().into_owned()),
            ("LANG".into(), "C.UTF-8".into()),
        ]
    }

    fn cmd(&self, argv: &[&str]) -> Command {
        let mut c = Command::new(argv[0]);
        c.args(&argv[1..])
            .workspace(&self.ws)
            .backend(backend().0)
            .environment(self.env());
        c
    }

    fn try_cmd(&self, op: &str, path: &Path) -> Command {
        self.cmd(&[PY, self.tryop.to_str().unwrap(), op, path.to_str().unwrap()])
    }

    /// The control: the same operation without confine.
    fn host(&self, op: &str, path: &Path) -> String {
        let o = process::Command::new(PY)
            .arg(&self.tryop)
            .arg(op)
            .arg(path)
            .env_clear()
            .envs(self.env())
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    }
}

fn write_denied() -> &'static str {
    if backend().1 == "bwrap" {
        "EROFS\n" // a read-only bind
    } else {
        "EACCES\n" // Landlock's refusal
    }
}

#[test]
fn sandbox_is_available() {
    let p = confine::probe(backend().0).unwrap();
    assert_eq!(
        (p.backend.as_str(), p.available, p.code.as_str()),
        (backend().1, true, "available"),
        "{}",
        p.json
    );
}

#[test]
fn write_in_workspace_works() {
    let f = fix();
    let path = f.ws.join("out.txt");
    let o = f.try_cmd("write", &path).output().unwrap();
    assert_eq!((o.finished.status, o.stdout.as_slice()), (0, &b"OK\n"[..]));
    assert_eq!(fs::read_to_string(&path).unwrap(), "written\n");
    assert_eq!(o.finished.backend, backend().1);
    assert!(
        o.finished.report.contains("\"exit_status\":0"),
        "{}",
        o.finished.report
    );
}

#[test]
fn write_outside_workspace_refused() {
    let f = fix();
    let path = f.other.join("new.txt");
    assert_eq!(f.host("write", &path), "OK");
    fs::remove_file(&path).unwrap();
    let o = f.try_cmd("write", &path).output().unwrap();
    assert_eq!(
        (
            o.finished.status,
            String::from_utf8_lossy(&o.stdout).as_ref()
        ),
        (3, write_denied())
    );
    assert!(!path.exists());
}

#[test]
fn ssh_key_refused() {
    let f = fix();
    assert_eq!(f.host("read", &f.key), "OK ssh-secret");
    let o = f.try_cmd("read", &f.key).output().unwrap();
    assert_eq!(
        (o.finished.status, o.stdout.as_slice()),
        (3, &b"EACCES\n"[..])
    );
}

#[test]
fn deny_rule_refuses_and_allow_write_writes() {
    let f = fix();
    let secret = f.other.join("secret.txt");
    assert_eq!(f.host("read", &secret), "OK other-secret");
    let o = f
        .try_cmd("read", &secret)
        .deny(&f.other, Access::Both)
        .output()
        .unwrap();
    assert_eq!(
        (o.finished.status, o.stdout.as_slice()),
        (3, &b"EACCES\n"[..])
    );
    let o = f.try_cmd("read", &secret).output().unwrap();
    assert_eq!(
        (o.finished.status, o.stdout.as_slice()),
        (0, &b"OK other-secret\n"[..])
    );
    let path = f.other.join("granted.txt");
    let o = f
        .try_cmd("write", &path)
        .allow(&f.other, Access::Write)
        .output()
        .unwrap();
    assert_eq!((o.finished.status, o.stdout.as_slice()), (0, &b"OK\n"[..]));
    assert_eq!(fs::read_to_string(&path).unwrap(), "written\n");
}

#[test]
fn stderr_pipe_and_denied_paths() {
    // The denial scan copies the command's stderr: to the pipe it was started with.
    let f = fix();
    let key = f.key.to_str().unwrap();
    let o = f
        .cmd(&["sh", "-c", &format!("cat {}; echo done >&2", key)])
        .output()
        .unwrap();
    assert_eq!(o.finished.status, 0);
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!("cat: {}: Permission denied\ndone\n", key)
    );
    assert_eq!(o.finished.denied_paths, vec![key.to_string()]);
}

#[test]
fn exit_status_and_signal() {
    let f = fix();
    assert_eq!(f.cmd(&["sh", "-c", "exit 7"]).status().unwrap().status, 7);
    assert_eq!(
        f.cmd(&["sh", "-c", "kill -TERM $$"])
            .status()
            .unwrap()
            .status,
        128 + 15
    );
}

#[test]
fn pipes_in_and_out() {
    let f = fix();
    let mut c = f.cmd(&["tr", "a-z", "A-Z"]);
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.as_mut().unwrap().write_all(b"hello\n").unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        (o.finished.status, o.stdout.as_slice()),
        (0, &b"HELLO\n"[..])
    );
}

#[test]
fn timeout_kills_the_sandbox() {
    let f = fix();
    let done = f
        .cmd(&["sleep", "60"])
        .timeout(Duration::from_millis(300))
        .status()
        .unwrap();
    assert_eq!((done.status, done.timed_out), (128 + 9, true));
}

#[test]
fn terminate() {
    // Ready when the command says so on its stdout; then SIGTERM ends it.
    let f = fix();
    let script = "trap 'exit 42' TERM; echo ready; while :; do sleep 0.05; done";
    let mut child = f
        .cmd(&["sh", "-c", script])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    use std::io::BufRead;
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line, "ready\n");
    assert!(child.try_wait().unwrap().is_none());
    child.terminate().unwrap();
    let done = child
        .wait_timeout(Duration::from_secs(30))
        .unwrap()
        .expect("ended");
    assert_eq!(done.status, 42);
}

#[test]
fn two_runs_at_once() {
    // A host's runs at the same time: the end of one leaves the other running.
    use std::io::{BufRead, Write};
    let f = fix();
    let mut first = f
        .cmd(&["sh", "-c", "read x; echo \"got $x\""])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    assert_eq!(f.cmd(&["sh", "-c", "exit 4"]).status().unwrap().status, 4);
    first.stdin.as_mut().unwrap().write_all(b"on\n").unwrap();
    let mut line = String::new();
    std::io::BufReader::new(first.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line, "got on\n");
    assert_eq!(first.wait().unwrap().status, 0);
}

#[test]
fn command_not_found() {
    let f = fix();
    let e = f.cmd(&["no-such-command-here"]).status().unwrap_err();
    assert_eq!(
        (e.kind(), e.code, e.exit_status()),
        (ErrorKind::NotFound, -10, 127)
    );
    assert_eq!(e.subject, "no-such-command-here");
    assert!(e.to_string().starts_with("confine: "), "{}", e);
    assert!(e.report.unwrap().contains("\"exit_status\":127"));
}

#[test]
fn refused_values() {
    let f = fix();
    let e = f
        .cmd(&["true"])
        .request_id("not an id!")
        .status()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Invalid);
    assert!(e.subject.contains("not an id!"), "{}", e);
    let e = f
        .cmd(&["true"])
        .inject_env("LD_PRELOAD", b"x")
        .status()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Invalid);
    let e = f
        .cmd(&["true"])
        .secret("no host here")
        .status()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Invalid);
    assert!(e.to_string().contains("no host here"), "{}", e);
    let rules = f.root.join("rules.json");
    fs::write(&rules, "{\"version\": 1,\n \"rules\": [ {\"path\": 3} ]}\n").unwrap();
    let e = f
        .cmd(&["true"])
        .session_rules_file(&rules)
        .status()
        .unwrap_err();
    assert_eq!(
        (e.kind(), e.line, e.subject.as_str()),
        (ErrorKind::Rules, 2, rules.to_str().unwrap())
    );
    let e = Command::new("true").workspace("/").status().unwrap_err();
    assert_eq!((e.kind(), e.exit_status()), (ErrorKind::Workspace, 125));
}

#[test]
fn explain_and_card() {
    let f = fix();
    let d = f.cmd(&["true"]).explain(&f.key, Access::Read).unwrap();
    assert!(
        d.contains("\"decision\": \"deny\"") && d.contains("\"layer\": \"guard\""),
        "{}",
        d
    );
    let d = f
        .cmd(&["true"])
        .explain(f.ws.join("notes.txt"), Access::Write)
        .unwrap();
    assert!(d.contains("\"decision\": \"allow\""), "{}", d);
    let mut c = f.cmd(&["true"]);
    c.escalate(true);
    let card = c.card().unwrap();
    assert_eq!(card.kind, "escalate");
    assert_eq!(card.digest.len(), 64);
    // Without the card's receipt the escalation is refused; with it, it runs once.
    assert_eq!(c.status().unwrap_err().kind(), ErrorKind::Approval);
    c.request_id(&card.request_id).receipt(&card.digest);
    assert_eq!(c.status().unwrap().status, 0);
    assert_eq!(c.status().unwrap_err().kind(), ErrorKind::Approval);
}

#[test]
fn version_is_abi_1() {
    let (major, minor, micro, abi, text) = confine::version();
    assert_eq!((abi, text), (1, format!("{}.{}.{}", major, minor, micro)));
}

// SPDX-License-Identifier: MIT
//! The README's example is examples/mcp_host.rs, and it runs as written: an MCP server (the
//! repository's tests/enforce/mcp.py, or CONFINE_TEST_MCP) confined to its workspace reads a
//! workspace file and is refused the home's SSH key; the report comes back.
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn readme_shows_the_example() {
    let readme = fs::read_to_string(manifest().join("../README.md")).unwrap();
    let start = readme.find("```rust\n").expect("a rust block") + "```rust\n".len();
    let end = start + readme[start..].find("```\n").unwrap();
    let example = fs::read_to_string(manifest().join("examples/mcp_host.rs")).unwrap();
    // The file's SPDX line is the file's; the rest is the README's block.
    assert_eq!(&readme[start..end], example.splitn(2, '\n').nth(1).unwrap());
}

#[test]
fn example_runs() {
    let mcp = std::env::var_os("CONFINE_TEST_MCP")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("../../../tests/enforce/mcp.py"));
    assert!(
        mcp.exists(),
        "no MCP server at {} (set CONFINE_TEST_MCP)",
        mcp.display()
    );
    // cargo test builds the examples beside the tests: target/debug/examples.
    let exe = std::env::current_exe().unwrap();
    let example = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples/mcp_host");
    let root = PathBuf::from(format!("/var/tmp/confine-rs-readme.{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let ws = root.join("home/proj");
    let key = root.join("home/.ssh/id_ed25519");
    fs::create_dir_all(&ws).unwrap();
    fs::create_dir_all(key.parent().unwrap()).unwrap();
    fs::set_permissions(&root, fs::Permissions::from_mode(0o755)).unwrap();
    fs::write(&key, "ssh-secret\n").unwrap();
    fs::write(ws.join("notes.txt"), "hello\n").unwrap();
    fs::copy(&mcp, ws.join("mcp.py")).unwrap();
    let backend = std::env::var("CONFINE_TEST_BACKEND").unwrap_or_else(|_| "bwrap".into());
    let mut c = Command::new(&example);
    c.current_dir(&ws)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin");
    c.env("HOME", root.join("home"))
        .env("LANG", "C.UTF-8")
        .env("CONFINE_BACKEND", &backend);
    // The sanitizer runtimes a sanitizer build of the library needs first (tests/lib.sh).
    for k in ["CONFINE_BUILD", "CONFINE_HELPER", "LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS"] {
        if let Some(v) = std::env::var_os(k) {
            c.env(k, v);
        }
    }
    let out = c.output().unwrap();
    let _ = fs::remove_dir_all(&root);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}{}",
        text,
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{}", text);
    assert_eq!(lines[0], "notes.txt read");
    assert_eq!(lines[1], format!("{} refused", Path::new(&key).display()));
    assert_eq!(lines[2], format!("exit status 0 backend {}", backend));
    assert!(lines[3].starts_with("report: ") && lines[3].ends_with(" bytes of JSON (SPEC 7.3)"));
}

// SPDX-License-Identifier: MIT
// An agent host runs an MCP server (stdio) confined to its project, then reads the report.
use std::io::{BufRead, BufReader, Write};

use confine::{Command, Stdio};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut child = Command::new("python3") // the server's command, as the host configures it
        .args(["mcp.py", "server"])
        .workspace(".")
        .network(false)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut to = child.stdin.take().unwrap();
    let mut from = BufReader::new(child.stdout.take().unwrap());
    let mut call = |msg: String| -> std::io::Result<String> {
        writeln!(to, "{}", msg)?;
        let mut line = String::new();
        if msg.contains("\"id\"") {
            from.read_line(&mut line)?;
        }
        Ok(line)
    };
    call(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"my-host","version":"1"}}}"#.into())?;
    call(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into())?;
    let key = format!("{}/.ssh/id_ed25519", std::env::var("HOME")?);
    for (id, path) in [(2, "notes.txt"), (3, key.as_str())] {
        let answer = call(format!(
            r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"read_file","arguments":{{"path":"{}"}}}}}}"#,
            id, path
        ))?;
        let refused = answer.contains(r#""isError": true"#);
        println!("{} {}", path, if refused { "refused" } else { "read" });
    }
    drop(to); // the server ends at the end of its input
    let done = child.wait()?;
    println!("exit status {} backend {}", done.status, done.backend);
    println!("report: {} bytes of JSON (SPEC 7.3)", done.report.len());
    Ok(())
}

//! A private X server for the window tests (shared by tests/ui_window.rs and tests/discs.rs).

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};

/// Starts Xvfb on a free display and returns it (`:N`); None, loudly, without Xvfb.
pub fn xvfb() -> Option<String> {
    let child = Command::new("Xvfb")
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "2600x1500x24",
            "-nolisten",
            "tcp",
        ])
        // Exits when the last client (the viewer) disconnects.
        .arg("-terminate")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            eprintln!("SKIPPED: the window tests need Xvfb ({e})");
            return None;
        }
    };
    let stdout = child.stdout.take().expect("piped stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("Xvfb prints its display");
    let n = line.trim();
    assert!(!n.is_empty(), "Xvfb printed no display number");
    Some(format!(":{n}"))
}

//! Helpers shared by the integration tests.

use std::path::PathBuf;
use std::process::Command;

/// A fresh, empty scratch folder for one test (unique per test name and process).
pub fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bansha-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create scratch dir");
    d
}

/// Run the real `bansha` binary; returns (exit code, stdout, stderr).
pub fn bansha(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(args)
        .output()
        .expect("run bansha");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

//! Loading TOML files into typed structs with errors users can act on:
//! `file:line:key: message` (lychee-style), unknown keys rejected by the structs.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

/// A problem in a user-written file, located as precisely as we can.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.render())]
pub struct FileError {
    pub file: PathBuf,
    pub line: Option<usize>,
    /// Dotted key path (`player[2].seat`), empty when the problem is the whole file.
    pub key: String,
    pub message: String,
}

impl FileError {
    pub fn new(file: &Path, key: impl Into<String>, message: impl Into<String>) -> Self {
        FileError {
            file: file.to_path_buf(),
            line: None,
            key: key.into(),
            message: message.into(),
        }
    }

    fn render(&self) -> String {
        let mut s = self.file.display().to_string();
        if let Some(l) = self.line {
            s.push_str(&format!(":{l}"));
        }
        if !self.key.is_empty() {
            s.push(':');
            s.push_str(&self.key);
        }
        s.push_str(": ");
        s.push_str(&self.message);
        s
    }
}

/// Several problems found in one pass (validators report all of them, not the first).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))]
pub struct FileErrors(pub Vec<FileError>);

/// Parse `text` (the contents of `file`) into `T`.
pub fn parse_toml<T: DeserializeOwned>(file: &Path, text: &str) -> Result<T, FileError> {
    let line_of = |span: Option<std::ops::Range<usize>>| {
        span.map(|r| text[..r.start.min(text.len())].matches('\n').count() + 1)
    };
    let de = match toml::Deserializer::parse(text) {
        Ok(de) => de,
        Err(e) => {
            return Err(FileError {
                file: file.to_path_buf(),
                line: line_of(e.span()),
                key: String::new(),
                message: e.message().trim().to_string(),
            });
        }
    };
    serde_path_to_error::deserialize(de).map_err(|e| {
        let key = e.path().to_string();
        let inner = e.into_inner();
        FileError {
            file: file.to_path_buf(),
            line: line_of(inner.span()),
            key: if key == "." { String::new() } else { key },
            message: inner.message().trim().to_string(),
        }
    })
}

/// Read and parse a TOML file.
pub fn load_toml<T: DeserializeOwned>(file: &Path) -> Result<T, FileError> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| FileError::new(file, "", format!("cannot read: {e}")))?;
    parse_toml(file, &text)
}

//! Scripts built in Rust: one builder and one quoting function per shell, so that every value a
//! script interpolates is quoted the same way in every family (routes, Windows nodes).

use super::RenderError;

/// A script under construction: LF line endings and a final newline.
#[derive(Default)]
pub(crate) struct Script {
    text: String,
}

impl Script {
    pub(crate) fn bash() -> Self {
        let mut script = Script::default();
        script.line("#!/usr/bin/env bash");
        script
    }

    pub(crate) fn line(&mut self, line: &str) {
        self.text.push_str(line);
        self.text.push('\n');
    }

    pub(crate) fn blank(&mut self) {
        self.text.push('\n');
    }

    /// A comment line: only fixed text and values `script_value` accepted (no line breaks).
    pub(crate) fn comment(&mut self, text: &str) {
        self.line(&format!("# {text}"));
    }

    /// Comment lines, as [`Script::comment`] writes each.
    pub(crate) fn comments(&mut self, lines: &[&str]) {
        for line in lines {
            self.comment(line);
        }
    }

    pub(crate) fn echo(&mut self, message: &str) {
        self.line(&format!("echo {}", shell_quote(message)));
    }

    pub(crate) fn finish(self) -> String {
        self.text
    }
}

/// A POSIX shell word holding exactly `value`: single quotes, each `'` written as `'\''`.
pub(crate) fn shell_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

/// `value` as a POSIX shell word: as it is when it holds nothing the shell reads specially, else
/// single-quoted. For commands people read and paste.
pub(crate) fn shell_word(value: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "._/-:=@+,".contains(c);
    if !value.is_empty() && value.chars().all(plain) {
        value.to_string()
    } else {
        shell_quote(value)
    }
}

/// A PowerShell verbatim string holding exactly `value`: single quotes, each `'` doubled.
pub(crate) fn powershell_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

/// A value that may appear in a script: printable ASCII only, so that no value can end a comment
/// line, and Windows PowerShell 5.1 (which reads a file without BOM in the ANSI code page) reads
/// it as written.
pub(crate) fn script_value<'a>(value: &'a str, what: &str) -> Result<&'a str, RenderError> {
    if value.is_empty() {
        return Err(RenderError(format!("`{what}` is empty")));
    }
    if let Some(bad) = value.chars().find(|c| !(' '..='~').contains(c)) {
        return Err(RenderError(format!(
            "`{what}` holds {bad:?}; scripts take printable ASCII only"
        )));
    }
    Ok(value)
}

/// A node name used as a file name: never a path.
pub(crate) fn path_segment(name: &str) -> Result<&str, RenderError> {
    if name.is_empty()
        || name.contains('/')
        || name.contains('\\')
        || name.contains("..")
        || name.starts_with('.')
    {
        return Err(RenderError(format!(
            "node name {name:?} cannot be used as a file name"
        )));
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::shell_word;
    use std::process::Command;

    #[test]
    fn shell_words_read_back_as_what_they_hold() {
        assert_eq!(shell_word("examples/a-1.33.yaml"), "examples/a-1.33.yaml");
        for value in ["my spec.yaml", "it's", "$(reboot)", "a;b", "", "*"] {
            let quoted = shell_word(value);
            assert_ne!(quoted, value);
            let echoed = Command::new("sh")
                .arg("-c")
                .arg(format!("printf %s {quoted}"))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(echoed.stdout).unwrap(), value);
        }
    }
}

//! The one finding type shared by the loader, the schema check, the rules and every report format,
//! and the rule metadata each finding names. The checks that produce findings live in `rules/`.

use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A rule of the catalogue: its permanent code, the kebab-case name of what is wrong, its default
/// severity and its explain text. Declared once, with its check, by `rules::declare_rules!`.
#[derive(Debug)]
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    /// Markdown: What it checks / Why it matters / Fix / References.
    pub explain: &'static str,
}

impl Rule {
    /// The explain text as Markdown, with the rule's heading.
    pub fn explain_markdown(&self) -> String {
        let body: Vec<&str> = self
            .explain
            .lines()
            .map(|line| line.strip_prefix(' ').unwrap_or(line))
            .collect();
        format!(
            "## {} {}\n\nDefault severity: {}.\n\n{}\n",
            self.code,
            self.name,
            self.severity.as_str(),
            body.join("\n").trim()
        )
    }
}

/// Where a finding is. Rules speak in JSON Pointers; only the loader knows raw byte spans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// The value at a JSON Pointer (`/nodes/3/podCidr`).
    Value(String),
    /// The key of the member at a JSON Pointer: used for unknown keys and misplaced blocks.
    Key(String),
    /// A byte range in the file, for problems that have no pointer (YAML syntax).
    Bytes(Range<usize>),
}

impl Location {
    /// The JSON Pointer, or the empty pointer (the whole document) for raw byte locations.
    pub fn pointer(&self) -> &str {
        match self {
            Location::Value(pointer) | Location::Key(pointer) => pointer,
            Location::Bytes(_) => "",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub location: Location,
    pub text: String,
}

#[derive(Debug, Clone)]
pub struct Diagnostic {
    pub rule: &'static Rule,
    pub severity: Severity,
    pub message: String,
    pub primary: Label,
    pub secondary: Vec<Label>,
    pub help: Option<String>,
    /// Set when a comment in the file suppresses the finding: reports mark it, and it counts
    /// for nothing.
    pub suppression: Option<Suppression>,
}

/// Why a finding is suppressed: SARIF 2.1.0's `suppression` object (§3.35), kind `inSource`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppression {
    pub justification: String,
}

impl Diagnostic {
    pub fn new(rule: &'static Rule, location: Location, message: impl Into<String>) -> Self {
        Self {
            rule,
            severity: rule.severity,
            message: message.into(),
            primary: Label {
                location,
                text: String::new(),
            },
            secondary: Vec::new(),
            help: None,
            suppression: None,
        }
    }

    pub fn label(mut self, text: impl Into<String>) -> Self {
        self.primary.text = text.into();
        self
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Points at the other side of a conflict ("overlaps `clusterCidr` declared here").
    pub fn related(mut self, location: Location, text: impl Into<String>) -> Self {
        self.secondary.push(Label {
            location,
            text: text.into(),
        });
        self
    }

    /// Marks the warning variant of a rule whose default severity is error.
    pub fn warning(mut self) -> Self {
        self.severity = Severity::Warning;
        self
    }

    pub fn code(&self) -> &'static str {
        self.rule.code
    }

    /// An error no comment suppresses: what stops `render` and fails a check.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error && self.suppression.is_none()
    }
}

/// A JSON Pointer to the value at `pointer`.
pub fn value(pointer: impl Into<String>) -> Location {
    Location::Value(pointer.into())
}

/// A JSON Pointer to the key of the member at `pointer`.
pub fn key(pointer: impl Into<String>) -> Location {
    Location::Key(pointer.into())
}

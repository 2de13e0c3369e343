//! How findings are chosen and shown, shared by `plan`, `render` and `verify`: the severity
//! overrides, the output formats and colour, and the exit code the findings give.

use super::settings::{self, Level, Settings};
use super::{Outcome, complain};
use crate::diagnostic::{Diagnostic, Severity};
use crate::report::{self, FileReport, Totals, human};
use crate::rules;
use clap::builder::{PossibleValue, TypedValueParser};
use clap::{Args, ValueEnum};
use std::io::{self, IsTerminal};
use std::path::Path;

// How findings are reported, shared by `plan` and `verify`. (Not a doc comment: clap would take
// it for the `about` of the command these are flattened into.)
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    #[command(flatten)]
    pub severities: SeverityArgs,
    /// When to colour the human output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

// Severity overrides, shared by `plan`, `render` and `verify`. (Not a doc comment, as above.)
#[derive(Debug, Args)]
pub struct SeverityArgs {
    /// Treat findings of this rule as errors (repeatable).
    #[arg(long, value_name = "CODE", value_parser = RuleCode, hide_possible_values = true)]
    deny: Vec<String>,
    /// Treat findings of this rule as warnings (repeatable).
    #[arg(long, value_name = "CODE", value_parser = RuleCode, hide_possible_values = true)]
    warn: Vec<String>,
    /// Do not report this rule (repeatable).
    #[arg(long, value_name = "CODE", value_parser = RuleCode, hide_possible_values = true)]
    allow: Vec<String>,
    /// Treat every warning as an error.
    #[arg(long)]
    deny_warnings: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
    Sarif,
    Github,
    /// Markdown, for a pull-request comment (with `plan --from`, the change plan).
    Markdown,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

/// Severity changes requested on the command line, applied in this order: allow, warn, deny,
/// deny-warnings; with [`Overrides::for_spec`], the settings file's under them.
#[derive(Clone)]
pub(crate) struct Overrides {
    allow: Vec<&'static str>,
    warn: Vec<&'static str>,
    deny: Vec<&'static str>,
    deny_warnings: bool,
}

impl Overrides {
    /// The overrides asked for, or `None` once an unknown rule code has been reported.
    pub(crate) fn requested(args: &SeverityArgs) -> Option<Self> {
        let codes = |given: &[String]| -> Option<Vec<&'static str>> {
            given
                .iter()
                .map(|code| {
                    let rule = rules::find(code);
                    if rule.is_none() {
                        complain(&format!(
                            "unknown rule `{code}`; `hybridgen explain --list` lists the rules"
                        ));
                    }
                    rule.map(|rule| rule.code)
                })
                .collect()
        };
        Some(Self {
            allow: codes(&args.allow)?,
            warn: codes(&args.warn)?,
            deny: codes(&args.deny)?,
            deny_warnings: args.deny_warnings,
        })
    }

    /// These overrides over the settings file that applies to `spec` ([`settings`]): a rule named
    /// on the command line keeps the command line's level. `None` once a settings file that does
    /// not read has been reported.
    pub(crate) fn for_spec(&self, spec: &Path) -> Option<Self> {
        match settings::for_spec(spec) {
            Ok(found) => Some(self.over(found.as_ref())),
            Err(message) => {
                complain(&message);
                None
            }
        }
    }

    fn over(&self, settings: Option<&Settings>) -> Self {
        let mut combined = self.clone();
        let named = |code: &str| {
            [&self.allow, &self.warn, &self.deny]
                .iter()
                .any(|codes| codes.contains(&code))
        };
        for (code, (level, _)) in settings.into_iter().flat_map(|found| &found.levels) {
            if named(code) {
                continue;
            }
            match level {
                Level::Allow => combined.allow.push(code),
                Level::Warn => combined.warn.push(code),
                Level::Deny => combined.deny.push(code),
            }
        }
        combined
    }

    /// Whether a finding is an error by its rule or `--warn`, not allowed: what `--deny` and
    /// `--deny-warnings` raise to an error is not (they decide the exit code, not what runs).
    pub(crate) fn keeps_an_error(&self, diagnostics: &[Diagnostic]) -> bool {
        diagnostics.iter().any(|diagnostic| {
            let code = diagnostic.code();
            diagnostic.is_error() && !self.allow.contains(&code) && !self.warn.contains(&code)
        })
    }

    pub(crate) fn apply(&self, diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
        diagnostics
            .into_iter()
            .filter(|diagnostic| !self.allow.contains(&diagnostic.code()))
            .map(|mut diagnostic| {
                if self.warn.contains(&diagnostic.code()) {
                    diagnostic.severity = Severity::Warning;
                }
                if self.deny.contains(&diagnostic.code())
                    || (self.deny_warnings && diagnostic.severity == Severity::Warning)
                {
                    diagnostic.severity = Severity::Error;
                }
                diagnostic
            })
            .collect()
    }
}

/// The reports in the chosen format.
pub(crate) fn formatted(reports: &[FileReport], format: Format, style: human::Style) -> String {
    match format {
        Format::Human => human::render(reports, style),
        Format::Json => report::json::render(reports),
        Format::Sarif => report::sarif::render(reports),
        Format::Github => report::github::render(reports),
        Format::Markdown => report::markdown::render(reports),
    }
}

/// Exit 2 when a file could not be read, else 1 with any error finding, else 0.
pub(crate) fn outcome_of(reports: &[FileReport], unreadable: bool) -> Outcome {
    if unreadable {
        Outcome::Unusable
    } else if Totals::of(reports).errors > 0 {
        Outcome::Errors
    } else {
        Outcome::Clean
    }
}

/// Colour only on a terminal, and never when `NO_COLOR` is set or `TERM=dumb`, unless asked.
pub(crate) fn human_style(choice: ColorChoice, quiet: bool) -> human::Style {
    let terminal = io::stdout().is_terminal();
    let env_says_no = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty())
        || std::env::var_os("TERM").is_some_and(|term| term == "dumb");
    let color = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && !env_says_no,
    };
    let width = if terminal {
        terminal_size::terminal_size().map_or(100, |(width, _)| usize::from(width.0))
    } else {
        100
    };
    human::Style {
        color,
        width,
        show_plan: !quiet,
    }
}

/// A rule's code or name: accepts any text (an unknown rule gets the command's own message), while offering the rule
/// codes to the shell completion scripts `hybridgen completions` writes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RuleCode;

impl TypedValueParser for RuleCode {
    type Value = String;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(command, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            rules::all()
                .iter()
                .map(|rule| PossibleValue::new(rule.code).help(rule.name)),
        ))
    }
}

//! `hybridgen man`: the manual pages, in roff: `hybridgen(1)` and one page per subcommand
//! (`hybridgen-plan(1)`, ...), which the top page names. clap_mangen writes the title, synopsis,
//! description, options and subcommands; the sections of man-pages(7) it has no source for are
//! written here: EXAMPLES (the commands of each `--help`, kept line for line with `.nf`), EXIT
//! STATUS, ENVIRONMENT, FILES and SEE ALSO.

use super::{Outcome, complain, emit};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print (`plan`, `render`, ...); the top page without one.
    #[arg(value_name = "SUBCOMMAND")]
    subcommand: Option<String>,
    /// Write every page (hybridgen.1, hybridgen-plan.1, ...) into this directory, created if
    /// absent, instead of printing one.
    #[arg(long, value_name = "DIR", conflicts_with = "subcommand")]
    dir: Option<PathBuf>,
}

pub fn run(args: ManArgs, command: clap::Command) -> Outcome {
    // `help` is clap's own subcommand: it has no page, so the top page must not name one.
    let mut command = command.disable_help_subcommand(true);
    command.build();
    if let Some(dir) = &args.dir {
        return write_all(&command, dir);
    }
    let see_also = pages(&command);
    let page = match &args.subcommand {
        None => command,
        Some(name) => match command.find_subcommand(name) {
            Some(subcommand) => subcommand.clone(),
            None => {
                let pages: Vec<String> = see_also.iter().map(page_name).collect();
                complain(&format!(
                    "no subcommand `{name}`; the pages are {}",
                    pages.join(", ")
                ));
                return Outcome::Unusable;
            }
        },
    };
    match render(&page, &see_also) {
        Ok(roff) => emit(&String::from_utf8_lossy(&roff), Outcome::Clean),
        Err(error) => {
            complain(&format!("cannot render the manual page: {error}"));
            Outcome::Unusable
        }
    }
}

/// The command and each subcommand: one page each.
fn pages(command: &clap::Command) -> Vec<clap::Command> {
    std::iter::once(command.clone())
        .chain(command.get_subcommands().cloned())
        .collect()
}

/// `hybridgen-plan`, as the top page names it and `man` looks it up.
fn page_name(command: &clap::Command) -> String {
    command
        .get_display_name()
        .unwrap_or_else(|| command.get_name())
        .to_string()
}

/// Every page into `dir`, each in the file `man` looks it up by (`hybridgen-plan.1`).
fn write_all(command: &clap::Command, dir: &std::path::Path) -> Outcome {
    let pages = pages(command);
    let files: Vec<String> = pages
        .iter()
        .map(|page| format!("{}.1", page_name(page)))
        .collect();
    let written = std::fs::create_dir_all(dir).and_then(|()| {
        pages
            .iter()
            .zip(&files)
            .try_for_each(|(page, file)| std::fs::write(dir.join(file), render(page, &pages)?))
    });
    match written {
        Ok(()) => emit(
            &format!(
                "wrote {} pages to {}: {}\n",
                files.len(),
                dir.display(),
                files.join(", ")
            ),
            Outcome::Clean,
        ),
        Err(error) => {
            complain(&format!(
                "cannot write the manual pages to `{}`: {error}",
                dir.display()
            ));
            Outcome::Unusable
        }
    }
}

/// A whole page: clap_mangen's sections, then the ones written here, then the version.
/// `see_also` is every page, the top one first.
fn render(page: &clap::Command, see_also: &[clap::Command]) -> std::io::Result<Vec<u8>> {
    // The footer names hybridgen and its version (clap_mangen names the subcommand).
    let man = clap_mangen::Man::new(page.clone())
        .source(format!("hybridgen {}", env!("CARGO_PKG_VERSION")));
    let mut roff = Vec::new();
    man.render_title(&mut roff)?;
    man.render_name_section(&mut roff)?;
    man.render_synopsis_section(&mut roff)?;
    man.render_description_section(&mut roff)?;
    if page.get_arguments().any(|argument| !argument.is_hide_set()) {
        man.render_options_section(&mut roff)?;
    }
    if page.get_subcommands().any(|command| !command.is_hide_set()) {
        man.render_subcommands_section(&mut roff)?;
    }
    roff.extend_from_slice(sections(page, see_also).as_bytes());
    man.render_version_section(&mut roff)?;
    Ok(roff)
}

/// EXAMPLES, EXIT STATUS, ENVIRONMENT, FILES and SEE ALSO of a page.
fn sections(page: &clap::Command, see_also: &[clap::Command]) -> String {
    // The subcommand the page is for (`None`: the top page).
    let name = Some(page.get_name()).filter(|name| *name != "hybridgen");
    // Names and options are not hyphenated, and text is not stretched to the right margin.
    let mut out = String::from(".nh\n.ad l\n");
    let (note, lines) = examples(page, name);
    if !lines.is_empty() {
        out.push_str(".SH EXAMPLES\n");
        if let Some(note) = note {
            out.push_str(&format!(".PP\n{}\n", text(&note)));
        }
        // No fill, no adjustment: each command stays on its own line, as typed.
        out.push_str(".PP\n.RS 4\n.nf\n");
        for line in &lines {
            out.push_str(&text(line));
            out.push('\n');
        }
        out.push_str(".fi\n.RE\n");
    }
    let codes: Vec<(String, &str)> = exit_status(name)
        .into_iter()
        .map(|(code, meaning)| (code.to_string(), meaning))
        .collect();
    tagged(&mut out, "\"EXIT STATUS\"", 'B', &codes);
    tagged(&mut out, "ENVIRONMENT", 'B', &environment(name));
    tagged(&mut out, "FILES", 'I', &files(name));
    out.push_str(".SH \"SEE ALSO\"\n");
    let mut references: Vec<String> = see_also
        .iter()
        .filter(|other| page_name(other) != page_name(page))
        .map(|other| format!("\\fB{}\\fR(1)", text(&page_name(other))))
        .collect();
    if matches!(name, Some("verify" | "render")) {
        references.push("\\fBkubectl\\fR(1)".into());
    }
    out.push_str(&references.join(",\n"));
    out.push('\n');
    out
}

/// A section of tagged paragraphs, each tag in `font` (`B` bold, `I` italic); none when empty.
fn tagged(out: &mut String, section: &str, font: char, items: &[(impl AsRef<str>, &str)]) {
    if items.is_empty() {
        return;
    }
    out.push_str(&format!(".SH {section}\n"));
    for (tag, meaning) in items {
        let (tag, meaning) = (text(tag.as_ref()), text(meaning));
        out.push_str(&format!(".TP\n\\f{font}{tag}\\fR\n{meaning}\n"));
    }
}

/// Text for roff: a backslash as `\e`, every `-` as `\-` (a minus, so that a pasted option is
/// one), and a line that would start with a control character (`.` or `'`) guarded by `\&`.
fn text(value: &str) -> String {
    value
        .lines()
        .map(|line| {
            let escaped = line.replace('\\', "\\e").replace('-', "\\-");
            if escaped.starts_with('.') || escaped.starts_with('\'') {
                format!("\\&{escaped}")
            } else {
                escaped
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The examples of a page: those of its `--help` (the lines after `Examples:`), or for the top
/// page the README's quick start. The words of a header such as `Examples (for your user; ...):`
/// become a note before them.
fn examples(page: &clap::Command, name: Option<&str>) -> (Option<String>, Vec<String>) {
    if name.is_none() {
        return (
            None,
            [
                "hybridgen init cluster.yaml                  # a commented starter spec",
                "hybridgen plan cluster.yaml                  # check it and print its plan",
                "hybridgen render cluster.yaml --out deploy   # the artifacts, and deploy/README.md",
                "hybridgen verify cluster.yaml --kubectl      # compare the running cluster with the plan",
            ]
            .map(String::from)
            .to_vec(),
        );
    }
    let Some(help) = page.get_after_help().map(|help| help.to_string()) else {
        return (None, Vec::new());
    };
    let mut lines = help.lines();
    let header = lines.next().unwrap_or_default();
    let note = header
        .split_once('(')
        .and_then(|(_, rest)| rest.rsplit_once(')'))
        .map(|(inside, _)| {
            let mut note = inside.to_string();
            if let Some(first) = note.get(..1) {
                note.replace_range(..1, &first.to_uppercase());
            }
            format!("{note}:")
        });
    let commands = lines
        .map(|line| line.strip_prefix("  ").unwrap_or(line).to_string())
        .collect();
    (note, commands)
}

/// What each exit code means for a command (src/main.rs maps `Outcome` to 0, 1 and 2).
fn exit_status(name: Option<&str>) -> Vec<(u8, &'static str)> {
    match name {
        Some("plan") => vec![
            (
                0,
                "No error finding: warnings are allowed, unless --deny-warnings is given.",
            ),
            (
                1,
                "At least one error finding; YAML syntax and schema violations are findings too.",
            ),
            (
                2,
                "A usage error (an unknown option or rule code, a settings file that does not read) or a spec that cannot be read; the other specs are still checked.",
            ),
        ],
        Some("render") => vec![
            (
                0,
                "The artifacts were written; with --check, the directory is up to date.",
            ),
            (
                1,
                "The spec has errors and nothing was rendered; with --check, files are stale or missing.",
            ),
            (
                2,
                "A usage error, an input that cannot be read, the cluster's captures cannot be read, or the directory cannot be written.",
            ),
        ],
        Some("verify") => vec![
            (
                0,
                "The cluster matches the plan (warnings allowed, unless --deny-warnings).",
            ),
            (
                1,
                "At least one error finding, or the spec has errors (then nothing is compared).",
            ),
            (
                2,
                "A usage error, or the captures or kubectl cannot be read: nothing was verified.",
            ),
        ],
        Some("init") => vec![
            (0, "The starter spec and its schema were written."),
            (
                2,
                "A usage error, or a file exists already or cannot be written: nothing is overwritten.",
            ),
        ],
        Some("explain") => vec![
            (0, "The rule's text was printed."),
            (2, "No rule has that code or name, or a usage error."),
        ],
        Some(_) => vec![
            (0, "Success."),
            (2, "A usage error, or the output cannot be written."),
        ],
        None => vec![
            (
                0,
                "Success: no error finding (plan, verify), the artifacts written or up to date (render).",
            ),
            (
                1,
                "At least one error finding; for render, a spec with errors or stale files under --check.",
            ),
            (
                2,
                "A usage error, or an input or output that cannot be read or written.",
            ),
        ],
    }
}

/// The environment variables a command reads, and for `render` those its scripts read on the
/// nodes (hybridgen itself never reads those).
fn environment(name: Option<&str>) -> Vec<(&'static str, &'static str)> {
    let color = (
        "NO_COLOR",
        "When set and not empty, no colour in findings (with --color auto, the default).",
    );
    let dumb = ("TERM", "dumb: no colour (with --color auto).");
    let kubeconfig = (
        "KUBECONFIG",
        "Read by kubectl, not by hybridgen: with --kubectl, the kubeconfig and so the cluster kubectl talks to.",
    );
    match name {
        Some("plan") => vec![color, dumb],
        Some("verify") => vec![color, dumb, kubeconfig],
        Some("render") => vec![
            (
                "NO_COLOR",
                "When set and not empty, no colour in the findings printed on standard error.",
            ),
            kubeconfig,
            (
                "KUBEADM_TOKEN, KUBEADM_CA_HASH",
                "Not read by hybridgen: the rendered join.ps1 and join.sh read the kubeadm bootstrap token and CA hash from these (or the variables the spec names with fromEnv) when they run on a node.",
            ),
            (
                "RKE2_TOKEN",
                "Not read by hybridgen: the rendered RKE2 install.sh and install.ps1 read the join token from it (or the variable rke2.token names) when they run.",
            ),
            (
                "CATTLE_TOKEN, CATTLE_CA_CHECKSUM",
                "Not read by hybridgen: the rendered Rancher register.sh and register.ps1 read the registration token (and Rancher's CA checksum) from them.",
            ),
        ],
        None => vec![color, dumb, kubeconfig],
        Some(_) => Vec::new(),
    }
}

/// The files a command reads or writes besides its arguments.
fn files(name: Option<&str>) -> Vec<(&'static str, &'static str)> {
    let settings = (
        ".hybridgen.yaml",
        "Severities per rule and per path, found from each spec's directory upward; the nearest wins, and the search stops at the repository's root (the first directory holding .git).",
    );
    let manifest = (
        "DIR/.hybridgen-manifest",
        "Each file render wrote under --out DIR, with its SHA-256 and mode: render never overwrites a file it did not write (without --force) and removes only files it can prove it wrote.",
    );
    let steps = (
        "DIR/README.md",
        "What to run on which machine, in order, for the spec: written with the other artifacts.",
    );
    match name {
        Some("plan") | Some("verify") => vec![settings],
        Some("render") => vec![settings, manifest, steps],
        Some("init") => vec![(
            "hybridgen.schema.json",
            "The spec's JSON Schema, written beside the new spec for editors.",
        )],
        Some(_) => Vec::new(),
        None => vec![settings, manifest, steps],
    }
}

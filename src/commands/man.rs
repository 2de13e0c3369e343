//! `hybridgen man`: the manual pages, in roff: `hybridgen(1)` and one page per subcommand
//! (`hybridgen-plan(1)`, ...), which the top page names.

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
    let page = match &args.subcommand {
        None => command,
        Some(name) => match command.find_subcommand(name) {
            Some(subcommand) => subcommand.clone(),
            None => {
                let pages: Vec<String> = pages(&command).iter().map(page_name).collect();
                complain(&format!(
                    "no subcommand `{name}`; the pages are {}",
                    pages.join(", ")
                ));
                return Outcome::Unusable;
            }
        },
    };
    let mut roff = Vec::new();
    match man(page).render(&mut roff) {
        Ok(()) => emit(&String::from_utf8_lossy(&roff), Outcome::Clean),
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

/// A page whose footer names hybridgen and its version (clap_mangen names the subcommand).
fn man(command: clap::Command) -> clap_mangen::Man {
    clap_mangen::Man::new(command).source(format!("hybridgen {}", env!("CARGO_PKG_VERSION")))
}

/// Every page into `dir`, each in the file `man` looks it up by (`hybridgen-plan.1`).
fn write_all(command: &clap::Command, dir: &std::path::Path) -> Outcome {
    let pages = pages(command);
    let written = std::fs::create_dir_all(dir).and_then(|()| {
        pages
            .iter()
            .try_for_each(|page| man(page.clone()).generate_to(dir).map(|_| ()))
    });
    match written {
        Ok(()) => {
            let files: Vec<String> = pages
                .iter()
                .map(|page| format!("{}.1", page_name(page)))
                .collect();
            emit(
                &format!(
                    "wrote {} pages to {}: {}\n",
                    files.len(),
                    dir.display(),
                    files.join(", ")
                ),
                Outcome::Clean,
            )
        }
        Err(error) => {
            complain(&format!(
                "cannot write the manual pages to `{}`: {error}",
                dir.display()
            ));
            Outcome::Unusable
        }
    }
}

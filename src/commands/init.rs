//! `hybridgen init`: a commented starter spec, and the JSON Schema beside it for editors.

use super::{Outcome, complain, emit};
use crate::render::script::shell_word;
use crate::schema;
use clap::Args;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Where to write the spec; an existing file is never overwritten.
    #[arg(default_value = DEFAULT_PATH)]
    path: PathBuf,
    /// Write the Kubernetes 1.16 starter (dockerd, KubeCluster.ps1) instead.
    #[arg(long)]
    kubecluster: bool,
}

/// The starter spec `init` writes: a Linux control plane and worker and a Windows worker on
/// current Kubernetes (the HostProcess path).
const STARTER_SPEC: &str = include_str!("../../templates/starter.yaml");
/// The starter of `init --kubecluster`: the three-node topology of the Rancher guide on Kubernetes
/// 1.16, Windows set up by KubeCluster.ps1.
const KUBECLUSTER_STARTER_SPEC: &str = include_str!("../../templates/starter-kubecluster.yaml");
const SCHEMA_FILE: &str = "hybridgen.schema.json";
/// The path `init` writes when given none, which the starters' comments name.
const DEFAULT_PATH: &str = "hybridgen.yaml";

pub fn run(args: InitArgs) -> Outcome {
    let path = &args.path;
    let starter = if args.kubecluster {
        KUBECLUSTER_STARTER_SPEC
    } else {
        STARTER_SPEC
    };
    let starter = starter.replace(
        &format!("hybridgen plan {DEFAULT_PATH}"),
        &format!("hybridgen plan {}", plan_argument(path)),
    );
    match write_new(path, &starter) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            complain(&format!(
                "`{}` exists, and init never overwrites a file: name another path, e.g. `hybridgen init clusters/new.yaml`",
                path.display()
            ));
            return Outcome::Unusable;
        }
        Err(error) => {
            complain(&format!("cannot write `{}`: {error}", path.display()));
            return Outcome::Unusable;
        }
    }
    let schema_path = path.with_file_name(SCHEMA_FILE);
    let schema_note = match write_new(&schema_path, &schema::generate_text()) {
        Ok(()) => format!("wrote {}\n", schema_path.display()),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            format!("kept the existing {}\n", schema_path.display())
        }
        Err(error) => {
            complain(&format!(
                "cannot write `{}`: {error}",
                schema_path.display()
            ));
            return Outcome::Unusable;
        }
    };
    emit(
        &format!(
            "wrote {}\n{schema_note}next: edit it, then run `hybridgen plan {}`\n",
            path.display(),
            plan_argument(path)
        ),
        Outcome::Clean,
    )
}

/// The path as a shell word for `hybridgen plan PATH`; `FILE` when it holds a control character,
/// which would end the comment line it is written into.
fn plan_argument(path: &Path) -> String {
    let text = path.to_string_lossy();
    if text.chars().any(char::is_control) {
        "FILE".to_string()
    } else {
        shell_word(&text)
    }
}

/// Creates a file that must not exist yet, so that no user file is ever overwritten.
fn write_new(path: &Path, contents: &str) -> io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(contents.as_bytes())?;
    file.sync_all()
}

//! `hybridgen init`: a commented starter spec, and the JSON Schema beside it for editors.

use super::{Outcome, complain, emit};
use crate::render::script::shell_word;
use crate::schema;
use clap::{Args, ValueEnum};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Where to write the spec; an existing file is never overwritten.
    #[arg(default_value = DEFAULT_PATH)]
    path: PathBuf,
    /// Write the Kubernetes 1.16 starter (dockerd, KubeCluster.ps1) instead.
    #[arg(long, conflicts_with_all = ["distribution", "rancher"])]
    kubecluster: bool,
    /// Who installs Kubernetes: kubeadm (the default), or RKE2 (its own flannel, Windows agents it
    /// runs itself; the default with `--rancher`).
    #[arg(long, value_enum)]
    distribution: Option<StarterDistribution>,
    /// A Rancher v2 custom cluster on RKE2, whose nodes register with the Rancher server at this
    /// `https://` URL (e.g. https://rancher.example.com).
    #[arg(long, value_name = "URL")]
    rancher: Option<String>,
}

/// The distributions with a starter; RKE1 reached its end of life and has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum StarterDistribution {
    Kubeadm,
    Rke2,
}

/// The starter spec `init` writes: a Linux control plane and worker and a Windows worker on
/// current Kubernetes (the HostProcess path).
const STARTER_SPEC: &str = include_str!("../../templates/starter.yaml");
/// The starter of `init --kubecluster`: the three-node topology of the Rancher guide on Kubernetes
/// 1.16, Windows set up by KubeCluster.ps1.
const KUBECLUSTER_STARTER_SPEC: &str = include_str!("../../templates/starter-kubecluster.yaml");
/// The starter of `init --distribution rke2`: the same three nodes on standalone RKE2.
const RKE2_STARTER_SPEC: &str = include_str!("../../templates/starter-rke2.yaml");
/// The starter of `init --distribution rke2 --rancher URL`: the three nodes as a Rancher custom
/// cluster; `RANCHER_URL` stands for the URL given.
const RANCHER_STARTER_SPEC: &str = include_str!("../../templates/starter-rancher.yaml");
const SCHEMA_FILE: &str = "hybridgen.schema.json";
/// The path `init` writes when given none, which the starters' comments name.
const DEFAULT_PATH: &str = "hybridgen.yaml";

/// The starter for the arguments, or what is wrong with them.
fn starter(args: &InitArgs) -> Result<String, String> {
    // Rancher provisions RKE2, so `--rancher` alone means RKE2.
    let distribution = args.distribution.unwrap_or(if args.rancher.is_some() {
        StarterDistribution::Rke2
    } else {
        StarterDistribution::Kubeadm
    });
    match (distribution, &args.rancher) {
        _ if args.kubecluster => Ok(KUBECLUSTER_STARTER_SPEC.to_string()),
        (StarterDistribution::Kubeadm, None) => Ok(STARTER_SPEC.to_string()),
        (StarterDistribution::Kubeadm, Some(_)) => Err(
            "`--rancher` provisions RKE2, not kubeadm: drop `--distribution kubeadm`, e.g. `hybridgen init --rancher https://rancher.example.com`".into(),
        ),
        (StarterDistribution::Rke2, None) => Ok(RKE2_STARTER_SPEC.to_string()),
        (StarterDistribution::Rke2, Some(url)) => {
            // The nodes pipe Rancher's installer to a root shell: `https://` only (HG610).
            if !url.starts_with("https://") || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err(format!(
                    "`--rancher {}` is not a Rancher server URL: give its `https://` address, e.g. `--rancher https://rancher.example.com`",
                    url.escape_debug()
                ));
            }
            // A JSON string is a YAML double-quoted scalar: nothing in the URL can change the
            // spec's structure.
            let quoted = serde_json::Value::String(url.clone()).to_string();
            Ok(RANCHER_STARTER_SPEC.replacen("RANCHER_URL", &quoted, 1))
        }
    }
}

pub fn run(args: InitArgs) -> Outcome {
    let path = &args.path;
    let starter = match starter(&args) {
        Ok(starter) => starter,
        Err(problem) => {
            complain(&problem);
            return Outcome::Unusable;
        }
    };
    let starter = starter.replace(
        &format!("hybridgen plan {DEFAULT_PATH}"),
        &format!("hybridgen plan {}", plan_argument(path)),
    );
    let mut created = String::new();
    if let Some(parent) = path
        .parent()
        .filter(|parent| !parent.as_os_str().is_empty() && !parent.exists())
    {
        if let Err(error) = std::fs::create_dir_all(parent) {
            complain(&format!("cannot create `{}`: {error}", parent.display()));
            return Outcome::Unusable;
        }
        created = format!("created {}\n", parent.display());
    }
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
            "{created}wrote {}\n{schema_note}next: edit it, then run `hybridgen plan {}`\n",
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

#[cfg(test)]
mod tests {
    use super::*;

    fn args(distribution: Option<StarterDistribution>, rancher: Option<&str>) -> InitArgs {
        InitArgs {
            path: PathBuf::from("hybridgen.yaml"),
            kubecluster: false,
            distribution,
            rancher: rancher.map(String::from),
        }
    }

    #[test]
    fn the_rancher_url_stays_one_string_whatever_it_holds() {
        let url = "https://rancher.example.com/#\"x:1'{y}";
        let text = starter(&args(Some(StarterDistribution::Rke2), Some(url))).unwrap();
        let spec: crate::spec::Spec = serde_yaml::from_str(&text).unwrap();
        assert_eq!(spec.rancher.unwrap().url, url);
        assert!(spec.rke2.is_none(), "Rancher joins the nodes itself");
    }

    #[test]
    fn rancher_needs_rke2_and_a_url() {
        let kubeadm = starter(&args(
            Some(StarterDistribution::Kubeadm),
            Some("https://r.example"),
        ));
        assert!(
            kubeadm
                .unwrap_err()
                .contains("drop `--distribution kubeadm`")
        );
        // `--rancher` alone means RKE2.
        let implied = starter(&args(None, Some("https://r.example"))).unwrap();
        assert!(implied.contains("distribution: rke2") && implied.contains("https://r.example"));
        for bad in [
            "rancher.example.com",
            "https://rancher example.com",
            "http://rancher.example.com",
        ] {
            let refused = starter(&args(None, Some(bad))).unwrap_err();
            assert!(
                refused.contains("not a Rancher server URL"),
                "{bad}: {refused}"
            );
        }
        let standalone = starter(&args(Some(StarterDistribution::Rke2), None)).unwrap();
        let kubeadm = starter(&args(None, None)).unwrap();
        assert!(!kubeadm.contains("distribution: rke2"));
        assert!(standalone.contains("distribution: rke2") && standalone.contains("RKE2_TOKEN"));
    }
}

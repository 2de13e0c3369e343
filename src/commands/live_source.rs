//! The flags that name where the cluster is read from, shared by `verify` (which compares it with
//! the plan) and `render` (which takes the joined nodes' pod subnets from it).

use crate::verify::{Source, kubectl};
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Args)]
pub struct LiveArgs {
    /// Files or directories captured with kubectl (JSON or YAML; `hybridgen verify SPEC
    /// --print-capture` prints the commands).
    /// Repeat it for several paths; before or after the spec.
    #[arg(long, value_name = "PATH", action = clap::ArgAction::Append, conflicts_with = "kubectl")]
    pub cluster: Vec<PathBuf>,
    /// Read the cluster with kubectl here, through its current context: the kubectl found on
    /// PATH, or `--kubectl=PATH`.
    #[arg(long, value_name = "KUBECTL", num_args = 0..=1, require_equals = true, default_missing_value = "kubectl")]
    pub kubectl: Option<PathBuf>,
    /// With `--kubectl`: the seconds each kubectl command may run before it is stopped, with
    /// every process it started.
    #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub kubectl_timeout: u64,
    /// The prefix of flannel's node annotations when flanneld runs with
    /// `--kube-annotation-prefix` (default: found on the nodes).
    #[arg(long, value_name = "PREFIX")]
    pub flannel_annotation_prefix: Option<String>,
}

impl LiveArgs {
    /// Where to read the cluster, when a flag names it.
    pub fn source(&self) -> Option<Source<'_>> {
        match &self.kubectl {
            Some(kubectl) => Some(Source::Kubectl(
                kubectl,
                kubectl::Limits::new(Duration::from_secs(self.kubectl_timeout)),
            )),
            None if !self.cluster.is_empty() => Some(Source::Files(&self.cluster)),
            None => None,
        }
    }
}

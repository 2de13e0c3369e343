//! The live cluster as kubectl captured it, below both the checks that compare it (`rules::live`)
//! and the command that captures it (`verify`): the objects read from the captures, the model
//! the checks compare (`cluster`), and which live node each planned node is (`matching`).

pub mod cluster;
pub mod matching;

pub use cluster::{Embedded, Live, LiveCluster, LiveDaemonSet, LiveNode, LivePod, Unreadable};
pub use matching::{Matching, match_nodes};
use serde_json::Value;

/// One Kubernetes object read from a capture.
#[derive(Debug, Clone)]
pub struct Object {
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
    pub value: Value,
    /// The capture it came from.
    pub file: String,
    /// Whether it was an item of a list (`kubectl get nodes`) rather than one object
    /// (`kubectl get node NAME`): only a list shows everything there is.
    pub listed: bool,
    /// Where it stands in its capture: `/items/3`, or `` for the file's one object.
    pub pointer: String,
}

impl Object {
    /// `Node win-0`, `ConfigMap kube-system/kubeadm-config`: how messages name the object.
    pub fn label(&self) -> String {
        match &self.namespace {
            Some(namespace) => format!("{} {namespace}/{}", self.kind, self.name),
            None => format!("{} {}", self.kind, self.name),
        }
    }

    /// Where a field of this object was read: `nodes.json, Node win-0, status.podCIDR`.
    pub fn source(&self, field: &str) -> String {
        format!("{}, {}, `{field}`", self.file, self.label())
    }
}

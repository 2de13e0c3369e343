//! Rendering: the plan turned into the files people deploy. Every module returns `Artifact`s in
//! memory; only `write` touches the disk. Templates live in `templates/`, embedded in the binary,
//! and only format values the plan computed.
//!
//! Each distribution has its room ([`Room`]): [`kubeadm`] (its configuration and the Windows
//! node files it joins with), [`rke`] (RKE1's network options) and [`rke2`] (standalone RKE2, and
//! [`rke2::rancher`] when Rancher provisions it). What every distribution shares is here: the
//! plan (`plan.json`), the routes, the pod subnets from the plan, and the Linux flannel manifest
//! for a distribution that does not ship flannel itself, and `README.md` ([`steps`]): what to run
//! where, in order, written from all of these.

pub mod flannel;
pub mod kubeadm;
pub mod live_record;
pub(crate) mod node_secret;
pub mod plan_file;
pub mod pod_cidrs;
pub mod rke;
pub mod rke2;
pub mod routes;
pub(crate) mod script;
pub mod steps;
pub(crate) mod terraform;
pub mod write;
pub(crate) mod yaml;

use crate::plan::Plan;
use crate::plan::distribution::Distribution;
use crate::spec::Spec;

/// One rendered file: its path under `--out` (`/`-separated, relative) and its contents. No
/// rendered file holds a secret ([`node_secret`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    pub path: String,
    pub contents: String,
}

impl Artifact {
    pub fn new(path: impl Into<String>, contents: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            contents: contents.into(),
        }
    }
}

/// What the renderers read: the spec and its plan, never a secret.
pub struct Input<'a> {
    pub spec: &'a Spec,
    pub plan: &'a Plan,
}

/// The cluster-wide values every renderer needs, known valid: rendering only runs on specs
/// without errors, and this is the one place that says so.
pub struct Network {
    pub kubernetes: crate::plan::version::Release,
    pub cluster_cidr: ipnet::Ipv4Net,
    pub service_cidr: ipnet::Ipv4Net,
    pub dns_service_ip: std::net::Ipv4Addr,
}

impl Input<'_> {
    pub fn network(&self) -> Result<Network, RenderError> {
        let plan = self.plan;
        let invalid = |what: &str| RenderError(format!("the plan has no valid {what}"));
        Ok(Network {
            kubernetes: plan
                .kubernetes_version
                .clone()
                .map_err(|_| invalid("Kubernetes version"))?,
            cluster_cidr: plan
                .cluster_cidr
                .clone()
                .map_err(|_| invalid("clusterCidr"))?,
            service_cidr: plan
                .service_cidr
                .clone()
                .map_err(|_| invalid("serviceCidr"))?,
            dns_service_ip: match &plan.dns_service_ip {
                Some(Ok(ip)) => *ip,
                _ => return Err(invalid("dnsServiceIp")),
            },
        })
    }
}

/// A template that failed; its text names the template, never the context values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderError(pub String);

impl From<minijinja::Error> for RenderError {
    fn from(error: minijinja::Error) -> Self {
        RenderError(format!(
            "template `{}` failed at line {}: {}",
            error.name().unwrap_or("?"),
            error.line().unwrap_or(0),
            error.kind()
        ))
    }
}

/// Every template, embedded in the binary so that it works outside a checkout.
macro_rules! templates {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!("../../templates/", $name)))),*]
    };
}
const TEMPLATES: &[(&str, &str)] = templates![
    "flannel/kube-flannel.yml.j2",
    "flannel/node-selector.yml.j2",
    "flannel/apply.sh.j2",
    "kubeadm/kubeadm-config.yaml.j2",
    "rke/cluster-network.yml.j2",
    "windows/kube-flannel-windows.yml.j2",
    "windows/kube-proxy-windows.yml.j2",
    "windows/flannel.Dockerfile.j2",
    "windows/download-stage.j2",
    "windows/kube-proxy.Dockerfile.j2",
    "windows/kubeadm-join.yaml.j2",
    "windows/wins-flannel.yml.j2",
    "windows/wins-kube-proxy.yml.j2",
];

/// The template environment, built once per process: strict undefined values, no auto-escaping
/// (each template quotes explicitly, with `tojson`), trailing newlines kept, no debug dump of the
/// context (it could show values). A template is parsed when first used: a spec without Windows
/// nodes never parses the Windows ones.
static ENVIRONMENT: std::sync::LazyLock<Result<minijinja::Environment<'static>, RenderError>> =
    std::sync::LazyLock::new(|| {
        // No built-in filter, test or function: the templates use `tojson` and `inline` alone,
        // and registering the rest of minijinja's would cost every render for nothing.
        let mut env = minijinja::Environment::empty();
        env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        let syntax = minijinja::syntax::SyntaxConfig::builder()
            .keep_trailing_newline(true)
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()?;
        env.set_syntax(syntax);
        env.set_debug(false);
        env.add_filter("tojson", json_text);
        // A spec value inside a YAML comment: a line break in it would end the comment.
        env.add_filter("inline", |text: &str| crate::escape::inline(text));
        env.set_loader(|name| {
            Ok(TEMPLATES
                .iter()
                .find(|(known, _)| *known == name)
                .map(|(_, source)| source.to_string()))
        });
        Ok(env)
    });

/// `tojson` without minijinja's HTML escapes, for the YAML templates' double-quoted values: its
/// own writes `<`, `>`, `&` and `'` as `\u003c` ..., so `<unset: KUBEADM_TOKEN>` would read
/// `\u003cunset: KUBEADM_TOKEN\u003e` in the files people open. Spaced as minijinja spaces it
/// (`["NET_ADMIN", "NET_RAW"]`), as the flannel manifests write their lists.
fn json_text(value: minijinja::Value) -> Result<String, minijinja::Error> {
    let failed = |error: &dyn std::fmt::Display| {
        minijinja::Error::new(minijinja::ErrorKind::BadSerialization, error.to_string())
    };
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, Spaced);
    serde::Serialize::serialize(&value, &mut serializer).map_err(|error| failed(&error))?;
    // U+0085, U+2028, U+2029 and the bidi controls as `\uXXXX`, as every JSON writer does.
    String::from_utf8(out)
        .map(crate::escape::json_text)
        .map_err(|error| failed(&error))
}

/// JSON on one line with `, ` between items and `: ` after keys.
struct Spaced;

fn spaced_separator<W: ?Sized + std::io::Write>(
    writer: &mut W,
    first: bool,
) -> std::io::Result<()> {
    if first {
        Ok(())
    } else {
        writer.write_all(b", ")
    }
}

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        spaced_separator(writer, first)
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        spaced_separator(writer, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }
}

/// A template of `templates/`, by its path there.
pub(crate) fn template(name: &str) -> Result<minijinja::Template<'static, 'static>, RenderError> {
    let env = ENVIRONMENT.as_ref().map_err(Clone::clone)?;
    Ok(env.get_template(name)?)
}

/// What one distribution renders besides the shared files.
pub(crate) trait Room: Sync {
    /// The files it writes, without rendering them.
    fn paths(&self, input: &Input) -> Result<Vec<String>, RenderError>;
    fn render(&self, input: &Input) -> Result<Vec<Artifact>, RenderError>;
    /// Where its files set kube-controller-manager's flags, and what starts the control plane:
    /// what `pod-cidrs/assign.sh` tells its reader.
    fn controller_manager(&self) -> ControllerManager;
}

/// Where a distribution's files set kube-controller-manager's flags.
pub(crate) struct ControllerManager {
    /// The file or setting, e.g. `kubeadm/kubeadm-config.yaml`.
    pub flags_in: &'static str,
    /// What starts the control plane, e.g. `` `kubeadm init` ``.
    pub started_by: &'static str,
}

/// The room of the spec's distribution.
pub(crate) fn room(spec: &Spec, plan: &Plan) -> &'static dyn Room {
    match plan.distribution.distribution {
        Distribution::Kubeadm => &kubeadm::Kubeadm,
        Distribution::Rke => &rke::Rke,
        Distribution::Rke2 if spec.rancher.is_some() => &rke2::rancher::Rancher,
        Distribution::Rke2 => &rke2::Standalone,
    }
}

/// The paths [`render_all`] writes, sorted, without rendering anything: what `plan` lists. Each
/// family names its own paths next to its renderer; a test holds the two in step.
pub fn artifact_paths(input: &Input) -> Result<Vec<String>, RenderError> {
    let mut paths = vec![plan_file::PATH.to_string()];
    if !input.plan.distribution.ships_flannel {
        paths.extend(flannel::PATHS.map(String::from));
    }
    paths.extend(pod_cidrs::paths(input));
    paths.extend(routes::paths(input)?);
    paths.extend(room(input.spec, input.plan).paths(input)?);
    paths.push(steps::PATH.to_string());
    paths.sort();
    Ok(paths)
}

/// Every artifact of the spec, sorted by path.
pub fn render_all(input: &Input) -> Result<Vec<Artifact>, RenderError> {
    let mut artifacts = plan_file::render(input)?;
    if !input.plan.distribution.ships_flannel {
        artifacts.extend(flannel::render(input)?);
    }
    artifacts.extend(pod_cidrs::render(input)?);
    artifacts.extend(routes::render(input)?);
    artifacts.extend(room(input.spec, input.plan).render(input)?);
    // Last: the steps name the files the others rendered.
    artifacts.push(steps::render(input, &artifacts)?);
    artifacts.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(artifacts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Templates are parsed when first used, so each is loaded here: none fails only in a render
    /// that happens to need it.
    #[test]
    fn every_template_parses() {
        for (name, _) in TEMPLATES {
            assert!(template(name).is_ok(), "{name}");
        }
        assert!(template("no/such.j2").is_err());
    }
}

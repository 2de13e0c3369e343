//! HG65x: an RKE2 cluster against the plan (`hybridgen verify`): the ranges it started with, the
//! CNI it runs, and the `rke2-flannel` chart's values. What RKE2 cannot change on a running
//! cluster is reported as the rebuild it takes.

use super::declare_rules;
use super::live::{LiveCheck, LiveContext, flag};
use crate::diagnostic::{Diagnostic, value};
use crate::live::Live;
use crate::plan::releases::rke2;
use crate::plan::version::Release;
use crate::spec::Backend;
use ipnet::Ipv4Net;

declare_rules! {
    checks: LiveCheck;

    /// ### What it checks
    /// On RKE2: the cluster and Service CIDRs the server started with (its `rke2.io/node-args`
    /// annotation, which records its config file's keys too; unset: RKE2's defaults 10.42.0.0/16
    /// and 10.43.0.0/16) against the plan.
    ///
    /// ### Why it matters
    /// RKE2 cannot change the cluster or Service CIDR of a running cluster: existing pods keep
    /// their addresses, new ones get the new range, and the cluster breaks. A spec that differs
    /// from what the cluster started with is a new cluster, not an update.
    ///
    /// ### Fix
    /// Correct the spec to the ranges the cluster runs, or build a new cluster with the planned
    /// ranges and move the workloads.
    ///
    /// ### References
    /// docs.rke2.io "Basic Network Options" ("RKE2 does not support changing … cluster/service
    /// CIDRs on a running cluster"); rancher/rke2#2326; k3s-io/k3s#3967; k3s-io/k3s
    /// `pkg/nodeconfig/nodeconfig.go`.
    LIVE_RANGE_CHANGE = ("HG651", "live-range-change-needs-rebuild", Error, Some(check_ranges));

    /// ### What it checks
    /// On RKE2: that the cluster runs flannel, from the CNI HelmCharts it deploys
    /// (`rke2-flannel`, `rke2-canal`, `rke2-calico`, `rke2-cilium`) or else its server's `--cni`
    /// (unset: RKE2's default, canal).
    ///
    /// ### Why it matters
    /// The plan is flannel's: its VNI, port and Windows agents. A Windows agent looks for the CNI
    /// HelmChart and refuses canal and cilium; the CNI is chosen on the server when the cluster
    /// is first started and cannot be changed afterwards.
    ///
    /// ### Fix
    /// Rebuild the cluster with `cni: flannel` on every server (the rendered `config.yaml` has
    /// it), or plan for the CNI the cluster runs.
    ///
    /// ### References
    /// rancher/rke2 `pkg/executor/pebinary/pebinary.go` (`getCNIPluginName`); rancher/rke2#6819,
    /// #3316; docs.rke2.io "Basic Network Options".
    LIVE_CNI_NOT_FLANNEL = ("HG652", "live-cni-not-flannel", Error, Some(check_cni));

    /// ### What it checks
    /// On RKE2: the `rke2-flannel` HelmChartConfig's values (the backend, `vni`, and the VXLAN
    /// port under the key the running release's chart reads), or without one the chart's
    /// defaults for that release, against the plan's backend, VNI and port.
    ///
    /// ### Why it matters
    /// The chart recreates flannel's ConfigMap from these values on every upgrade. The April and
    /// May 2024 charts default the VNI to 1 while Windows agents use 4096; a port under the other
    /// key (`backendPort` on the v0.24.201 chart, `vxlanBackendPort` later) is ignored.
    ///
    /// ### Fix
    /// Place the rendered `rke2/manifests/rke2-flannel-config.yaml` in
    /// `/var/lib/rancher/rke2/server/manifests/` on the servers (with Rancher: apply the rendered
    /// `rancher/cluster.yaml`, whose `chartValues` carry them).
    ///
    /// ### References
    /// rancher/rke2-charts `charts/rke2-flannel` (`values.yaml`, `templates/config.yaml`), PR
    /// #424, PR #462; rancher/rke2#5952; docs.rke2.io "Helm Integration".
    LIVE_RKE2_FLANNEL_VALUES = ("HG653", "live-rke2-flannel-values-mismatch", Error, Some(check_flannel_values));
}

fn rke2_server_args<'a>(context: &'a LiveContext) -> Option<&'a Live<Vec<String>>> {
    context
        .cluster
        .server_args
        .as_ref()
        .filter(|_| context.cluster.server_args_rke2)
}

fn check_ranges(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    let Some(args) = rke2_server_args(context) else {
        return;
    };
    let plan = context.plan;
    // RKE2's defaults (docs.rke2.io "Server Configuration Reference").
    for (name, pointer, default, planned) in [
        (
            "--cluster-cidr",
            "/network/clusterCidr",
            "10.42.0.0/16",
            &plan.cluster_cidr,
        ),
        (
            "--service-cidr",
            "/network/serviceCidr",
            "10.43.0.0/16",
            &plan.service_cidr,
        ),
    ] {
        let Ok(planned) = planned else { continue };
        let (live, how) = match flag(&args.value, name) {
            Some(live) => (live, format!("`{name} {{}}` ({})", args.source)),
            None => (
                default.to_string(),
                format!("RKE2's default `{{}}` (no `{name}` in {})", args.source),
            ),
        };
        let first = live.split(',').next().unwrap_or_default().trim();
        if first.parse::<Ipv4Net>().ok().as_ref() == Some(planned) {
            continue;
        }
        found.push(
            Diagnostic::new(
                &LIVE_RANGE_CHANGE,
                value(pointer),
                format!(
                    "the cluster started with {}, but the plan says `{planned}`: RKE2 cannot change it on a running cluster, so the plan is a rebuild",
                    how.replace("{}", &live)
                ),
            )
            .label("a new range means a new cluster")
            .help(format!(
                "set `{}` to `{first}` to match the cluster, or build a new cluster with `{planned}`",
                pointer.trim_start_matches('/').replace('/', ".")
            )),
        );
    }
}

/// RKE2's CNI charts (rancher/rke2 `pkg/cli` `CNIItems`).
const CNI_CHARTS: [&str; 4] = ["rke2-flannel", "rke2-canal", "rke2-calico", "rke2-cilium"];

fn check_cni(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    if context.plan.rke2.is_none() {
        return;
    }
    let charts: Vec<&Live<String>> = context
        .cluster
        .helm_charts
        .iter()
        .filter(|chart| CNI_CHARTS.contains(&chart.value.as_str()))
        .collect();
    let running = if !charts.is_empty() {
        if charts.iter().any(|chart| chart.value == "rke2-flannel") {
            return;
        }
        charts
            .iter()
            .map(|chart| format!("`{}` ({})", chart.value, chart.source))
            .collect::<Vec<_>>()
            .join(", ")
    } else if let Some(args) = rke2_server_args(context) {
        match flag(&args.value, "--cni") {
            Some(cni) if cni.split(',').any(|item| item.trim() == "flannel") => return,
            Some(cni) => format!("`--cni {cni}` ({})", args.source),
            None => format!("RKE2's default `canal` (no `--cni` in {})", args.source),
        }
    } else {
        return;
    };
    found.push(
        Diagnostic::new(
            &LIVE_CNI_NOT_FLANNEL,
            value("/flannel/backend"),
            format!("the cluster runs {running}, not flannel, and RKE2 cannot change the CNI of a running cluster"),
        )
        .label("the plan is flannel's")
        .help("build the cluster with `cni: flannel` on every server, as the rendered config.yaml does"),
    );
}

/// The RKE2 release the cluster runs, from a node's kubelet (`v1.31.4+rke2r1`).
fn live_release<'a>(context: &'a LiveContext) -> Option<(rke2::Resolved, &'a Live<String>)> {
    context.cluster.nodes.iter().find_map(|node| {
        let version = node.kubelet_version.as_ref()?;
        let (_, suffix) = version.value.split_once("+rke2r")?;
        let revision = suffix.parse::<u32>().ok()?;
        let release = Release::parse(&version.value)?;
        Some((rke2::resolve(release, revision), version))
    })
}

fn check_flannel_values(context: &LiveContext, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if plan.rke2.is_none() || plan.flannel.backend != Backend::Vxlan {
        return;
    }
    let has_chart = context
        .cluster
        .helm_charts
        .iter()
        .any(|chart| chart.value == "rke2-flannel");
    let Some((release, version)) = live_release(context) else {
        return;
    };
    let Some(line) = release.flannel().map(|bundled| bundled.chart_line()) else {
        return;
    };
    let mut mismatch = |pointer: &str, what: &str, live: String, planned: String| {
        found.push(
            Diagnostic::new(
                &LIVE_RKE2_FLANNEL_VALUES,
                value(pointer),
                format!("flannel's {what} is {live}, but the plan says `{planned}`"),
            )
            .label("planned value")
            .help("place the rendered rke2/manifests/rke2-flannel-config.yaml in /var/lib/rancher/rke2/server/manifests/ on every server"),
        );
    };
    let (values, absent) = match &context.cluster.rke2_flannel_values {
        Some(Ok(values)) => (Some(values), String::new()),
        Some(Err(problem)) => {
            mismatch(
                "/flannel",
                "chart configuration",
                format!("unreadable: {} ({})", problem.value, problem.source),
                "backend, VNI and port".into(),
            );
            return;
        }
        // No HelmChartConfig: the chart's defaults for the running release.
        None if has_chart => (
            None,
            format!(
                "no HelmChartConfig `rke2-flannel`: the default of the chart of {} ({})",
                release.tag, version.source
            ),
        ),
        None => return,
    };
    let field = |key: &str| values.and_then(|values| values.field(&format!("/flannel/{key}")));
    let number = |key: &str| {
        field(key).and_then(|live| live.value.as_u64().map(|number| (number, live.source)))
    };
    // Where a default comes from: the values that leave it unset, or no values at all.
    let default = |why: &str| {
        values.map_or_else(
            || absent.clone(),
            |values| format!("{why} ({})", values.object),
        )
    };
    if let Some(live) = field("backend")
        && live.value.as_str() != Some(plan.flannel.backend.as_str())
    {
        mismatch(
            "/flannel/backend",
            "backend",
            format!("{} ({})", live.value, live.source),
            plan.flannel.backend.as_str().into(),
        );
    }
    let vni = number("vni").unwrap_or_else(|| {
        (
            u64::from(line.default_vni),
            default("unset: the chart's default"),
        )
    });
    let port = number(line.port_key).unwrap_or_else(|| {
        // A port under the key the release's chart does not read is ignored.
        let ignored = ["backendPort", "vxlanBackendPort"]
            .into_iter()
            .filter(|key| *key != line.port_key)
            .find(|key| field(key).is_some());
        let why = match ignored {
            Some(key) => format!(
                "`{key}` is set, but the chart of {} reads `{}`",
                release.tag, line.port_key
            ),
            None => "unset: the chart's default".to_string(),
        };
        (u64::from(line.default_port), default(&why))
    });
    for (pointer, what, (live, source), planned) in [
        ("/flannel/vni", "VNI", vni, u64::from(plan.flannel.vni)),
        (
            "/flannel/port",
            "VXLAN port",
            port,
            u64::from(plan.flannel.port),
        ),
    ] {
        if live != planned {
            mismatch(
                pointer,
                what,
                format!("`{live}` ({source})"),
                planned.to_string(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_read_in_both_forms() {
        let args: Vec<String> = ["server", "--cni", "flannel", "--cluster-cidr=10.50.0.0/16"]
            .map(String::from)
            .to_vec();
        assert_eq!(flag(&args, "--cni").as_deref(), Some("flannel"));
        assert_eq!(
            flag(&args, "--cluster-cidr").as_deref(),
            Some("10.50.0.0/16")
        );
        assert_eq!(flag(&args, "--service-cidr"), None);
    }
}

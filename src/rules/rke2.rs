//! HG6xx: distributions — the RKE2 release and its flannel, what RKE2's Windows agents hard-code,
//! RKE2 configuration keys RKE2 or Rancher would drop, the Rancher settings, settings a
//! distribution does not read, and RKE1's end of life.

use super::{Context, declare_rules, node_pointer, windows_written};
use crate::diagnostic::{Diagnostic, key, value};
use crate::escape;
use crate::load::escape_pointer_token;
use crate::plan::address;
use crate::plan::distribution::Distribution;
use crate::plan::releases::kubernetes::Known;
use crate::plan::releases::rke2::{self as rke2_releases, WindowsFlannel};
use crate::plan::rke2::DEFAULT_RANCHER_VERSION;
use crate::plan::rke2_keys::{self, RancherPasses, Scope};
use crate::plan::version::Release;
use crate::plan::{WINDOWS_VXLAN_PORT, WINDOWS_VXLAN_VNI};
use crate::spec::{Backend, ConfigKeys, Role, Spec};
use serde_json::Value;

declare_rules! {
    /// ### What it checks
    /// With `distribution: rke2`: that `kubernetes.version` names an RKE2 release with the flannel
    /// CNI — `MAJOR.MINOR.PATCH`, or with RKE2's suffix `+rke2r<N>` — from the February 2024
    /// releases on: v1.26.14, v1.27.11, v1.28.7, v1.29.2 and every later minor. An error for a
    /// release between those the table holds, which RKE2 never published (`v1.34.0`); a warning
    /// for one newer than the table, where what the nearest release bundles is assumed.
    ///
    /// ### Why it matters
    /// hybridgen writes `cni: flannel` for every server; a release before flannel was added has no
    /// such CNI, and RKE2 refuses to start ("Invalid value flannel for --cni flag"). A suffix other
    /// than `+rke2r<N>` names no RKE2 release (`+k3s1` is k3s), so the installer finds nothing.
    ///
    /// ### Fix
    /// Use a published RKE2 release: for a patch typo, the nearest release of the same minor the
    /// help names (`"v1.31.14+rke2r1"` for `v1.31.99+rke2r1`); else a current one, e.g.
    /// `"v1.33.5+rke2r1"`. A minor that cannot exist yet is HG319's alone.
    ///
    /// ### References
    /// docs.rke2.io "Basic Network Options" (flannel "as of February 2024 releases"); rancher/rke2
    /// PR #5322 and issue #5215; rancher/rke2 `pkg/cli/cmds/server.go` (`validateCNI`).
    RKE2_RELEASE_UNSUPPORTED = ("HG601", "rke2-release-unsupported", Error, Some(check_release));

    /// ### What it checks
    /// RKE2 with Windows nodes: that the release's Windows flannel works. An error for the April
    /// and May 2024 releases (v1.27.13–14, v1.28.9–10, v1.29.4–5, v1.30.0–1), a warning for the
    /// February and March 2024 ones (v1.26.14–15, v1.27.11–12, v1.28.7–8, v1.29.2–3).
    ///
    /// ### Why it matters
    /// The April and May 2024 releases bundle a flannel chart whose Linux VNI defaults to 1 while
    /// Windows agents use 4096, so Linux and Windows pods cannot reach each other
    /// (rancher/rke2#5952); the rendered chart values set VNI 4096, but any values that replace
    /// them (Rancher's, a hand edit) bring 1 back. The February and March releases predate the
    /// Windows fixes of April 2024. (rancher/rke2#6171, Windows pods without a network, was flannel
    /// v0.25.3's inverted readiness check in June 2024 development builds, fixed by v0.25.4 before
    /// a release shipped it: the April and May releases bundle v0.25.1, whose check is right;
    /// HG320 covers v0.25.3 where `flannel.version` pins it.)
    ///
    /// ### Fix
    /// Use the June 2024 release of the minor or later: v1.27.15, v1.28.11, v1.29.6, v1.30.2, or
    /// any newer minor.
    ///
    /// ### References
    /// rancher/rke2#5952 (backports #5994, #5995, #5997) and rancher/rke2-charts PR #462;
    /// rancher/rke2#6171 and PR #6172; flannel-io/flannel 727fc083 (v0.25.3) and 42601e98 (v0.25.4);
    /// rancher/rke2 PRs #5661, #5666, #5667.
    RKE2_WINDOWS_FLANNEL_BROKEN = ("HG602", "rke2-windows-flannel-broken", Error, Some(check_windows_release));

    /// ### What it checks
    /// RKE2: `backend: vxlan`, the only flannel backend RKE2 supports; with Windows nodes, the
    /// settings RKE2's Windows agents hard-code: `vni: 4096`, `port: 4789`, no `directRouting`.
    ///
    /// ### Why it matters
    /// The Windows agent runs flanneld with `{"Type": "vxlan", "VNI": 4096, "Port": 4789}` and
    /// reads none of the `rke2-flannel` chart's values, so a VNI or port set for the chart is
    /// used by the Linux nodes only, and traffic between Linux and Windows pods is dropped without
    /// an error.
    ///
    /// ### Fix
    /// Write `backend: vxlan` and leave `vni`, `port` and `directRouting` out (RKE2's defaults are
    /// 4096 and 4789).
    ///
    /// ### References
    /// rancher/rke2 `pkg/windows/flannel.go`; docs.rke2.io "Basic Network Options" ("Only the
    /// vxlan backend is supported"); rancher/rke2#5952.
    RKE2_FLANNEL_MISMATCH = ("HG603", "rke2-flannel-mismatch", Error, Some(check_flannel));

    /// ### What it checks
    /// Settings the distribution does not read: the `rke2` and `rancher` sections without
    /// `distribution: rke2`, an RKE2 release suffix (`+rke2r1`) on another distribution,
    /// `rke2.token` and `rke2.server` with Rancher (it joins the nodes itself); on RKE2,
    /// `flannel.version`, `networkName` and `macPrefix` (the release decides flannel, Windows
    /// agents name the network `flannel.4096`), the Windows runtime, containerd, HostProcess,
    /// join and image settings (the RKE2 agent embeds containerd and runs flanneld and kube-proxy
    /// itself), and adapter names (RKE2 binds the Windows flanneld to `node-ip`; the rendered
    /// chart values, standalone and in Rancher's `chartValues`, bind the Linux one with
    /// `--iface-regex` on the planned addresses); on RKE1, the kubeadm join and HostProcess settings (Rancher's agent joins the
    /// Windows nodes).
    ///
    /// ### Why it matters
    /// A setting that nothing reads looks like it configures the cluster when it does not: a VNI
    /// set in `networkName`, an adapter picked by name, a token nobody uses.
    ///
    /// ### Fix
    /// Remove the setting, or choose the distribution that reads it.
    ///
    /// ### References
    /// rancher/rke2 `pkg/windows/flannel.go` (`--iface=<node-ip>`, `flannel.4096`),
    /// `pkg/executor/pebinary/pebinary.go`; rancher/rke2#3533 (the adapter follows `node-ip`).
    SETTING_IGNORED_BY_DISTRIBUTION = ("HG604", "setting-ignored-by-distribution", Warning, Some(check_ignored));

    /// ### What it checks
    /// RKE2 with Windows nodes: that each node's Windows build is one RKE2 validates — Windows
    /// Server 2019 (17763) from revision 2061 or 2022 (20348) from revision 169.
    ///
    /// ### Why it matters
    /// RKE2 builds and tests its Windows agent for those two; Windows Server 2025 (26100) has no
    /// release images or documented support yet, and Rancher's investigation of it is open.
    ///
    /// ### Fix
    /// Run the Windows nodes on Windows Server 2022 (`"10.0.20348.2762"` or later) or 2019.
    ///
    /// ### References
    /// docs.rke2.io "Requirements" (Windows Server 2019 LTSC "17763.2061", 2022 LTSC "20348.169
    /// and subsequent"); rancher/rancher#50915.
    RKE2_WINDOWS_BUILD_UNVALIDATED = ("HG605", "rke2-windows-build-unvalidated", Warning, Some(check_windows_builds));

    /// ### What it checks
    /// The keys of `rke2.config` (every node) and `rke2.serverConfig` (servers): each a flag of
    /// the RKE2 command that reads the file (`rke2.config` reaches agents, so no server-only key),
    /// not a k3s flag RKE2 removed (`flannel-*`, ports), not one hybridgen writes from the spec,
    /// and a string, number, boolean or list.
    ///
    /// ### Why it matters
    /// RKE2 skips a key that is not a flag of the running command with only a log line ("Unknown
    /// flag --<key> found in config.yaml, skipping"), so a misspelt key, a server key on an agent
    /// or a flannel key never takes effect.
    ///
    /// ### Fix
    /// Correct the key (the help names the nearest one), move a server-only key to
    /// `rke2.serverConfig`, or set the spec field the message names.
    ///
    /// ### References
    /// k3s-io/k3s `pkg/configfilearg/parser.go`; rancher/rke2 `pkg/cli/cmds/server.go`,
    /// `agent.go`; docs.rke2.io "Configuration Options"; rancher/rke2#635 (no flannel keys).
    RKE2_CONFIG_KEY_SKIPPED = ("HG606", "rke2-config-key-skipped", Error, Some(check_config_keys));

    /// ### What it checks
    /// With `rancher:`: that Rancher passes on every key of `rke2.config` and `rke2.serverConfig`.
    /// Rancher keeps a key only when its version data lists it as an RKE2 agent argument (for
    /// every machine) or server argument (for etcd and control-plane machines only); it deletes
    /// the rest, and a key such as `pause-image` or `snapshotter` in `rke2.config` reaches no
    /// worker-only machine, Windows included.
    ///
    /// ### Why it matters
    /// The key is dropped without a message: the nodes run without it. Some have a Rancher field
    /// of their own (`etcd-snapshot-retention` is `spec.rkeConfig.etcd.snapshotRetention`), and
    /// per-node keys travel in the registration command (`--internal-address`, `--node-name`,
    /// `--label`, `--taint`), where hybridgen writes the node name and address. Rancher also drops
    /// numeric values (it keeps strings, booleans and lists), so hybridgen writes numbers in
    /// Rancher's configuration as strings, which RKE2 reads the same.
    ///
    /// ### Fix
    /// Remove the key, or set it where the help says.
    ///
    /// ### References
    /// rancher/rancher `pkg/capr/planner/filter.go` (`filterConfigData`, `filterField`),
    /// `pkg/capr/planner/config.go`; rancher/kontainer-driver-metadata `channels-rke2.yaml`
    /// (`serverArgs`, `agentArgs`), https://github.com/rancher/kontainer-driver-metadata;
    /// the `provisioning.cattle.io/v1` `Cluster` CRD,
    /// https://github.com/rancher/rancher/blob/v2.14.4/pkg/crds/yaml/generated/provisioning.cattle.io_clusters.yaml.
    RANCHER_DROPS_CONFIG_KEY = ("HG607", "rancher-drops-config-key", Warning, Some(check_rancher_keys));

    /// ### What it checks
    /// The `rancher` section: `url` is an `https://` or `http://` address (HG610 refuses
    /// `http://`); `version` is
    /// `MAJOR.MINOR.PATCH` and 2.6 or later. A warning with Windows nodes on Rancher before 2.9.
    ///
    /// ### Why it matters
    /// Rancher provisions RKE2 custom clusters (`provisioning.cattle.io/v1`,
    /// `rancher2_cluster_v2`) from 2.6. Rancher's documentation covers flannel with Windows
    /// nodes from 2.9 (before, Calico): Rancher 2.8's version data does offer RKE2 releases with
    /// `flannel` and its June 2024 Windows fix (v1.27.15–16, v1.28.11–14), but nothing Rancher
    /// documents or tests sets up Windows nodes with it there. The registration scripts download
    /// Rancher's installers from `url`.
    ///
    /// ### Fix
    /// Write Rancher's server URL, e.g. `https://rancher.example.com`, and its version, e.g.
    /// `"2.14.4"`.
    ///
    /// ### References
    /// terraform-provider-rancher2 `docs/resources/cluster_v2.md` ("Rancher v2.6.0 and above");
    /// rancher/rancher-docs#1773 and PR #1821 (flannel with Windows); rancher/kontainer-driver-metadata
    /// branch `release-v2.8` (the RKE2 releases and CNIs Rancher 2.8 offers).
    RANCHER_SETTINGS_INVALID = ("HG608", "rancher-settings-invalid", Error, Some(check_rancher));

    /// ### What it checks
    /// `distribution: rke` (RKE1).
    ///
    /// ### Why it matters
    /// RKE1 reached its end of life on 31 July 2025: no fixes, security fixes included, and
    /// Rancher 2.12 and later cannot provision or manage RKE1 clusters. There is no in-place
    /// conversion: new RKE2 clusters are built and workloads moved.
    ///
    /// ### Fix
    /// Plan the cluster on RKE2: `distribution: rke2` (docs/rke2.md walks through it).
    ///
    /// ### References
    /// rancher/rancher#46376; Rancher Manager documentation, RKE1 end of life notice;
    /// rancher/rke2#562 (no in-place conversion).
    DISTRIBUTION_END_OF_LIFE = ("HG609", "distribution-end-of-life", Warning, Some(check_end_of_life));

    /// ### What it checks
    /// `rancher.url` is an `https://` URL without user information (`user@` before the host).
    ///
    /// ### Why it matters
    /// Each Linux node's `register.sh` runs `curl -fL URL/system-agent-install.sh | sudo sh`, and
    /// each Windows node's `register.ps1` downloads and runs `URL/wins-agent-install.ps1` as
    /// Administrator, and sends the cluster's registration token to `URL`. Over `http://`, anyone
    /// on the network path can replace the installer and take every node. In
    /// `https://rancher.corp.example@attacker.example`, everything before `@` is a user name: the
    /// URL reads like the corporate host in review, but curl connects to `attacker.example`
    /// (RFC 3986 section 3.2.1, which also deprecates `user:password` in URLs).
    ///
    /// ### Fix
    /// Write Rancher's `https://` server URL with only the host (and port), e.g.
    /// `https://rancher.example.com`. A lab Rancher without TLS can be allowed deliberately with
    /// `--allow HG610`.
    ///
    /// ### References
    /// https://www.rfc-editor.org/rfc/rfc3986#section-3.2.1 (user information); rancher/system-agent
    /// `install.sh` and rancher/wins `install.ps1` (what the registration scripts download and run).
    RANCHER_URL_INSECURE = ("HG610", "rancher-url-insecure", Error, Some(check_rancher_url));

    /// ### What it checks
    /// On standalone RKE2: each `node-taint` in `rke2.config` or `rke2.serverConfig` against the
    /// tolerations of the Linux flannel DaemonSet of the release's `rke2-flannel` chart. With
    /// Rancher: the taint Rancher gives etcd-only machines (`node-role.kubernetes.io/etcd=true:NoExecute`).
    ///
    /// ### Why it matters
    /// A node with a taint flannel's DaemonSet does not tolerate gets no flannel pod: no CNI
    /// configuration, so it stays NotReady, and no routes to the other nodes' pods. No
    /// `rke2-flannel` chart tolerates `CriticalAddonsOnly=true:NoExecute`, the taint RKE2's
    /// documentation suggests for dedicated servers (written for canal, which tolerates it); the
    /// charts of February and March 2024 tolerate no `NoExecute` taint at all.
    ///
    /// ### Fix
    /// Remove the taint, or use `node-role.kubernetes.io/control-plane:NoSchedule`, which every
    /// chart tolerates and which hybridgen gives servers without the `worker` role.
    ///
    /// ### References
    /// rancher/rke2-charts `charts/rke2-flannel/rke2-flannel/*/templates/daemonset.yaml` and
    /// `values.yaml` (`flannel.tolerations`); rancher/rke2#5629 (etcd servers NotReady with
    /// flannel); docs.rke2.io "High Availability" (server node taints).
    RKE2_FLANNEL_TAINT_UNTOLERATED = ("HG612", "rke2-flannel-taint-untolerated", Error, Some(check_taints));

    /// ### What it checks
    /// On standalone RKE2: that `rke2.server` is an IPv4 address.
    ///
    /// ### Why it matters
    /// hybridgen writes the join URL `https://<rke2.server>:9345` into every other node's
    /// `config.yaml`, and the server certificate's `tls-san` from it, as an address; a DNS name
    /// (which RKE2's HA guide uses for the fixed registration address) is not written, so
    /// `render` would have no address to join.
    ///
    /// ### Fix
    /// Write the IPv4 address of the load balancer or first server, e.g. `192.168.10.10`, and add
    /// the DNS name to `rke2.serverConfig.tls-san` so the certificate holds it too.
    ///
    /// ### References
    /// docs.rke2.io "High Availability" (fixed registration address, `tls-san`); docs.rke2.io
    /// "Server Configuration Reference" (`server`, `tls-san`).
    RKE2_SERVER_NOT_AN_ADDRESS = ("HG611", "rke2-server-not-an-address", Error, Some(check_server_address));
}

fn check_server_address(context: &Context, found: &mut Vec<Diagnostic>) {
    // With Rancher the field is ignored (HG604): Rancher's registration command joins.
    if context.spec.distribution() != Distribution::Rke2 || context.spec.rancher.is_some() {
        return;
    }
    let Some(written) = context
        .spec
        .rke2
        .as_ref()
        .and_then(|rke2| rke2.server.as_deref())
    else {
        return;
    };
    if address::parse_ip(written).is_ok() {
        return;
    }
    found.push(
        Diagnostic::new(
            &RKE2_SERVER_NOT_AN_ADDRESS,
            value("/rke2/server"),
            format!("`rke2.server` `{written}` is not an IPv4 address: hybridgen writes the join URL and `tls-san` from an address"),
        )
        .label("not an IPv4 address")
        .help("write the load balancer's or first server's IPv4 address, e.g. `192.168.10.10`, and add the name to `rke2.serverConfig.tls-san`"),
    );
}

/// The taint Rancher gives a machine with the `etcd` role alone (rancher/rancher
/// `pkg/capr/planner/planner.go` `getTaints`).
const RANCHER_ETCD_TAINT: &str = "node-role.kubernetes.io/etcd=true:NoExecute";

fn check_taints(context: &Context, found: &mut Vec<Diagnostic>) {
    let Some(bundled) = context
        .plan
        .rke2
        .as_ref()
        .and_then(|rke2| rke2.release.as_ref().ok())
        .and_then(|release| release.flannel())
    else {
        return;
    };
    let line = bundled.chart_line();
    if context.spec.rancher.is_some() {
        check_rancher_etcd_taint(context, &bundled.chart_tag(), line.tolerations, found);
        return;
    }
    for (field, _, map) in config_maps(context.spec) {
        let Some(Value::Array(taints)) = map.get("node-taint").map(|setting| &setting.0) else {
            continue;
        };
        for (index, taint) in taints.iter().enumerate() {
            let Some(text) = taint.as_str() else {
                continue;
            };
            if rke2_releases::taint_tolerated(line.tolerations, text) != Some(false) {
                continue;
            }
            found.push(
                Diagnostic::new(
                    &RKE2_FLANNEL_TAINT_UNTOLERATED,
                    value(format!("/rke2/{field}/node-taint/{index}")),
                    format!(
                        "the `rke2-flannel` chart {} does not tolerate the taint `{text}`: the nodes that carry it get no flannel and stay NotReady",
                        bundled.chart_tag()
                    ),
                )
                .label("flannel's DaemonSet does not tolerate this")
                .help("remove the taint, or use `node-role.kubernetes.io/control-plane:NoSchedule`"),
            );
        }
    }
}

/// With Rancher, hybridgen writes no taint: Rancher taints etcd-only machines itself, and the
/// February and March 2024 charts tolerate no `NoExecute` taint (rancher/rke2#5629).
fn check_rancher_etcd_taint(
    context: &Context,
    chart: &str,
    tolerations: &[rke2_releases::Toleration],
    found: &mut Vec<Diagnostic>,
) {
    if rke2_releases::taint_tolerated(tolerations, RANCHER_ETCD_TAINT) != Some(false) {
        return;
    }
    let etcd_only = context
        .spec
        .nodes
        .iter()
        .position(|node| node.roles.as_slice() == [Role::Etcd]);
    let Some(index) = etcd_only else {
        return;
    };
    found.push(
        Diagnostic::new(
            &RKE2_FLANNEL_TAINT_UNTOLERATED,
            value(node_pointer(index, "roles")),
            format!(
                "Rancher taints etcd-only machines `{RANCHER_ETCD_TAINT}`, which the `rke2-flannel` chart {chart} does not tolerate: they get no flannel and stay NotReady"
            ),
        )
        .label("etcd only")
        .help("use an RKE2 release of June 2024 or later, e.g. `v1.28.11+rke2r1`, or give the node the `worker` role too"),
    );
}

fn kubernetes_minor(context: &Context) -> u32 {
    context
        .plan
        .kubernetes_version
        .as_ref()
        .map_or(0, |release| release.minor)
}

/// The `rancher` section, when the distribution is RKE2 (elsewhere HG604 reports it ignored).
fn rancher_on_rke2<'a>(context: &'a Context) -> Option<&'a crate::spec::Rancher> {
    let rke2 = context.spec.distribution() == Distribution::Rke2;
    context.spec.rancher.as_ref().filter(|_| rke2)
}

fn check_release(context: &Context, found: &mut Vec<Diagnostic>) {
    let Some(rke2) = context.plan.rke2.as_ref() else {
        return;
    };
    let written = &context.spec.kubernetes.version;
    match &rke2.release {
        // Not a version at all: HG009 names that mistake once.
        Err(_) if context.plan.kubernetes_version.is_err() => {}
        Err(error) => found.push(
            Diagnostic::new(
                &RKE2_RELEASE_UNSUPPORTED,
                value("/kubernetes/version"),
                error.problem.clone(),
            )
            .label("not an RKE2 release")
            .help(error.help.clone()),
        ),
        Ok(release) if release.flannel().is_none() => {
            let minor = kubernetes_minor(context);
            // With Windows nodes, the first release whose Windows flannel works (HG602).
            let first = if context.plan.has_windows() {
                rke2_releases::first_supported_on_windows(minor)
            } else {
                rke2_releases::first_with_flannel(minor)
            };
            found.push(
                Diagnostic::new(
                    &RKE2_RELEASE_UNSUPPORTED,
                    value("/kubernetes/version"),
                    format!(
                        "RKE2 {} has no `cni: flannel`: flannel came with the February 2024 releases",
                        release.tag
                    ),
                )
                .label(format!("`{written}` is before flannel"))
                .help(match first {
                    Some(first) => format!("set `version: \"{first}\"` or later"),
                    None => format!("set `version: \"{}\"`", rke2_releases::newest()),
                }),
            );
        }
        // A Kubernetes version that cannot exist is HG319's, which names the release to use.
        Ok(release)
            if !release.known
                && context
                    .plan
                    .kubernetes_release
                    .is_some_and(|resolved| resolved.known == Known::Impossible) => {}
        Ok(release) if !release.known && !release.after_table => found.push(
            Diagnostic::new(
                &RKE2_RELEASE_UNSUPPORTED,
                value("/kubernetes/version"),
                format!(
                    "RKE2 {} was never published: it falls between the releases hybridgen knows, so its installer and images do not exist",
                    release.tag
                ),
            )
            .label("no such release")
            .help(format!(
                "write a published release (github.com/rancher/rke2/releases), e.g. the nearest, `\"{}\"`",
                nearest(context).unwrap_or_else(rke2_releases::newest)
            )),
        ),
        // A patch past the newest of a minor the table holds: most likely a typo in the patch.
        Ok(release) if !release.known && nearest(context).is_some() => {
            let nearest = nearest(context).unwrap_or_default();
            found.push(
                Diagnostic::new(
                    &RKE2_RELEASE_UNSUPPORTED,
                    value("/kubernetes/version"),
                    format!(
                        "RKE2 {} is newer than the newest release of its minor hybridgen knows ({nearest}): if it was not published, its installer and images do not exist",
                        release.tag
                    ),
                )
                .label("release not in the table")
                .help(format!(
                    "check that RKE2 published it (github.com/rancher/rke2/releases), or write the newest release hybridgen knows of the same minor, `\"{nearest}\"`"
                ))
                .warning(),
            );
        }
        Ok(release) if !release.known => found.push(
            Diagnostic::new(
                &RKE2_RELEASE_UNSUPPORTED,
                value("/kubernetes/version"),
                format!(
                    "RKE2 {} is not a release hybridgen knows (the newest it knows is {}): the flannel of the nearest one is assumed",
                    release.tag,
                    rke2_releases::newest()
                ),
            )
            .label("release not in the table")
            .help(format!(
                "check that RKE2 published the release (github.com/rancher/rke2/releases), or set `version: \"{}\"`",
                rke2_releases::newest()
            ))
            .warning(),
        ),
        Ok(_) => {}
    }
}

/// The published release of the written one's minor nearest to it.
fn nearest(context: &Context) -> Option<String> {
    let release = context.plan.rke2.as_ref()?.release.as_ref().ok()?;
    let version = context.plan.kubernetes_version.as_ref().ok()?;
    let revision = release.tag.rsplit_once("+rke2r")?.1.parse().ok()?;
    rke2_releases::nearest_of_minor(*version, revision)
}

fn check_windows_release(context: &Context, found: &mut Vec<Diagnostic>) {
    let Some(rke2) = context.plan.rke2.as_ref() else {
        return;
    };
    let Some(bundled) = rke2
        .release
        .as_ref()
        .ok()
        .and_then(|release| release.flannel())
    else {
        return;
    };
    if !context.plan.has_windows() {
        return;
    }
    let tag = rke2.tag().unwrap_or_default();
    let fixed = rke2_releases::first_supported_on_windows(kubernetes_minor(context))
        .unwrap_or_else(rke2_releases::newest);
    let diagnostic = match bundled.windows() {
        WindowsFlannel::Supported => return,
        WindowsFlannel::Broken => Diagnostic::new(
            &RKE2_WINDOWS_FLANNEL_BROKEN,
            value("/kubernetes/version"),
            format!(
                "RKE2 {tag} runs flanneld v{} on Windows, with which Windows pods get no network, and its flannel chart defaults the Linux VNI to {}",
                bundled.windows_flanneld,
                bundled.chart_line().default_vni
            ),
        )
        .label("Windows flannel broken in this release"),
        WindowsFlannel::Early => Diagnostic::new(
            &RKE2_WINDOWS_FLANNEL_BROKEN,
            value("/kubernetes/version"),
            format!(
                "RKE2 {tag} is among the first releases with flannel on Windows (flanneld v{}), before the Windows fixes of April 2024",
                bundled.windows_flanneld
            ),
        )
        .label("early Windows flannel")
        .warning(),
    };
    found.push(diagnostic.help(format!("set `version: \"{fixed}\"` or a later release")));
}

fn check_flannel(context: &Context, found: &mut Vec<Diagnostic>) {
    let plan = context.plan;
    if !plan.distribution.windows_flannel_fixed {
        return;
    }
    let flannel = &plan.flannel;
    if flannel.backend != Backend::Vxlan {
        found.push(
            Diagnostic::new(
                &RKE2_FLANNEL_MISMATCH,
                value("/flannel/backend"),
                format!(
                    "`backend: {}`: RKE2 runs flannel with vxlan only",
                    flannel.backend.as_str()
                ),
            )
            .label("not supported by RKE2")
            .help("set `backend: vxlan`"),
        );
        return;
    }
    let mut mismatch = |pointer: &str, problem: String, help: &str| {
        found.push(
            Diagnostic::new(&RKE2_FLANNEL_MISMATCH, value(pointer), problem)
                .label(format!(
                    "RKE2's Windows agents use VNI {WINDOWS_VXLAN_VNI}, UDP {WINDOWS_VXLAN_PORT}"
                ))
                .help(help.to_string()),
        );
    };
    if !plan.has_windows() {
        return;
    }
    if flannel.vni != WINDOWS_VXLAN_VNI {
        mismatch(
            "/flannel/vni",
            format!(
                "`vni` {} is not {WINDOWS_VXLAN_VNI}, the VNI RKE2's Windows agents hard-code; Linux and Windows pods would not reach each other",
                flannel.vni
            ),
            &format!("remove `vni` (RKE2's default is {WINDOWS_VXLAN_VNI})"),
        );
    }
    if flannel.port != WINDOWS_VXLAN_PORT {
        mismatch(
            "/flannel/port",
            format!(
                "`port` {} is not {WINDOWS_VXLAN_PORT}, the VXLAN port RKE2's Windows agents hard-code",
                flannel.port
            ),
            &format!("remove `port` (RKE2's default is {WINDOWS_VXLAN_PORT})"),
        );
    }
    if flannel.direct_routing {
        mismatch(
            "/flannel/directRouting",
            "`directRouting` would route Linux traffic to Windows pods without VXLAN, which Windows flanneld does not do".into(),
            "remove `directRouting`",
        );
    }
}

/// A setting a distribution does not read: where it is, whether the spec writes it, and why.
struct Ignored {
    pointer: &'static str,
    written: fn(&Spec) -> bool,
    distributions: &'static [Distribution],
    why: &'static str,
}

const NOT_RKE2: &[Distribution] = &[Distribution::Kubeadm, Distribution::Rke];
const RKE2: &[Distribution] = &[Distribution::Rke2];
const NOT_KUBEADM: &[Distribution] = &[Distribution::Rke2, Distribution::Rke];

static IGNORED: &[Ignored] = &[
    Ignored {
        pointer: "/rke2",
        written: |spec| spec.rke2.is_some(),
        distributions: NOT_RKE2,
        why: "only `distribution: rke2` reads it",
    },
    Ignored {
        pointer: "/rancher",
        written: |spec| spec.rancher.is_some(),
        distributions: NOT_RKE2,
        why: "Rancher v2 custom clusters run RKE2 (`distribution: rke2`); Rancher 2.12 and later cannot provision RKE1",
    },
    Ignored {
        pointer: "/rke2/token",
        written: |spec| {
            spec.rancher.is_some() && spec.rke2.as_ref().is_some_and(|rke2| rke2.token.is_some())
        },
        distributions: RKE2,
        why: "with `rancher`, Rancher's agent joins the nodes with Rancher's own token",
    },
    Ignored {
        pointer: "/rke2/server",
        written: |spec| {
            spec.rancher.is_some() && spec.rke2.as_ref().is_some_and(|rke2| rke2.server.is_some())
        },
        distributions: RKE2,
        why: "with `rancher`, Rancher tells each node which server to join",
    },
    Ignored {
        pointer: "/flannel/version",
        written: |spec| spec.flannel.version.is_some(),
        distributions: RKE2,
        why: "the RKE2 release decides the flannel it bundles",
    },
    Ignored {
        pointer: "/flannel/networkName",
        written: |spec| spec.flannel.network_name.is_some(),
        distributions: RKE2,
        why: "RKE2's Windows agents always name the network `flannel.4096`",
    },
    Ignored {
        pointer: "/flannel/macPrefix",
        written: |spec| spec.flannel.mac_prefix.is_some(),
        distributions: RKE2,
        why: "RKE2's Windows agents set no MAC prefix",
    },
    Ignored {
        pointer: "/windows/runtime",
        written: |spec| windows_written(spec, |windows| windows.runtime.is_some()),
        distributions: RKE2,
        why: "the RKE2 agent embeds containerd",
    },
    Ignored {
        pointer: "/windows/containerd",
        written: |spec| windows_written(spec, |windows| windows.containerd.is_some()),
        distributions: NOT_KUBEADM,
        why: "hybridgen installs containerd only on kubeadm's Windows nodes",
    },
    Ignored {
        pointer: "/windows/setup",
        written: |spec| windows_written(spec, |windows| windows.setup.is_some()),
        distributions: NOT_KUBEADM,
        why: "the distribution sets up its Windows nodes its own way",
    },
    Ignored {
        pointer: "/windows/hostProcess",
        written: |spec| windows_written(spec, |windows| windows.host_process.is_some()),
        distributions: NOT_KUBEADM,
        why: "the distribution runs flanneld and kube-proxy on Windows itself",
    },
    Ignored {
        pointer: "/windows/controlPlane",
        written: |spec| windows_written(spec, |windows| windows.control_plane.is_some()),
        distributions: NOT_KUBEADM,
        why: "Windows nodes join with the distribution's agent, not `kubeadm join`",
    },
    Ignored {
        pointer: "/windows/images",
        written: |spec| windows_written(spec, |windows| windows.images.is_some()),
        distributions: RKE2,
        why: "RKE2 brings its own Windows images",
    },
    Ignored {
        pointer: "/windows/installDir",
        written: |spec| windows_written(spec, |windows| windows.install_dir.is_some()),
        distributions: NOT_KUBEADM,
        why: "the distribution installs Kubernetes where it chooses",
    },
    Ignored {
        pointer: "/windows/interfaceName",
        written: |spec| windows_written(spec, |windows| windows.interface_name.is_some()),
        distributions: RKE2,
        why: "RKE2 binds Windows flanneld to the node's `address` (its `node-ip`), not to an adapter name",
    },
];

fn check_ignored(context: &Context, found: &mut Vec<Diagnostic>) {
    let spec = context.spec;
    let distribution = spec.distribution();
    let name = distribution.as_str();
    for ignored in IGNORED {
        if ignored.distributions.contains(&distribution) && (ignored.written)(spec) {
            let field = ignored.pointer.trim_start_matches('/').replace('/', ".");
            found.push(ignored_setting(
                key(ignored.pointer),
                &field,
                name,
                ignored.why,
            ));
        }
    }
    if distribution == Distribution::Rke2 {
        for (index, node) in spec.nodes.iter().enumerate() {
            if node.interface_name.is_some() {
                found.push(ignored_setting(
                    key(node_pointer(index, "interfaceName")),
                    &format!("nodes[{index}].interfaceName"),
                    name,
                    "RKE2 binds Windows flanneld to the node's `address` (its `node-ip`), not to an adapter name: `address` must be on the adapter pod traffic takes",
                ));
            }
        }
    } else if let Some(at) = spec.kubernetes.version.find("+rke2r") {
        let written = &spec.kubernetes.version;
        let (release, suffix) = written.split_at(at);
        found.push(
            Diagnostic::new(
                &SETTING_IGNORED_BY_DISTRIBUTION,
                value("/kubernetes/version"),
                format!("the suffix `{suffix}` of `{written}` names an RKE2 release, which `distribution: {name}` does not install"),
            )
            .label("RKE2 release suffix")
            .help(format!(
                "write `version: \"{}\"`, or set `distribution: rke2`",
                release.trim_start_matches('v')
            )),
        );
    }
}

fn ignored_setting(
    location: crate::diagnostic::Location,
    field: &str,
    distribution: &str,
    why: &str,
) -> Diagnostic {
    Diagnostic::new(
        &SETTING_IGNORED_BY_DISTRIBUTION,
        location,
        format!("`{field}` is not read here (`distribution: {distribution}`): {why}"),
    )
    .label("ignored")
    .help(format!(
        "remove `{field}`, or choose the distribution that reads it"
    ))
}

fn check_windows_builds(context: &Context, found: &mut Vec<Diagnostic>) {
    if context.plan.rke2.as_ref().is_none() {
        return;
    }
    // docs.rke2.io "Requirements" (rancher/rke2-docs `docs/install/requirements.md`): Windows
    // Server 2019 LTSC from 17763.2061 and 2022 LTSC from 20348.169.
    const VALIDATED: [(u32, u32); 2] = [(17763, 2061), (20348, 169)];
    let mut reported = std::collections::BTreeSet::new();
    for node in &context.plan.nodes {
        let Some(windows) = &node.windows else {
            continue;
        };
        let Some(Ok(build)) = &windows.build else {
            continue;
        };
        let floor = VALIDATED
            .iter()
            .find(|(validated, _)| *validated == build.build);
        if let Some((_, first)) = floor {
            // A build written without its revision says nothing below the floor (HG302 asks).
            if build.revision.is_some_and(|revision| revision < *first)
                && reported.insert(windows.build_pointer.clone())
            {
                found.push(
                    Diagnostic::new(
                        &RKE2_WINDOWS_BUILD_UNVALIDATED,
                        value(windows.build_pointer.clone()),
                        format!(
                            "Windows build {build} is older than 10.0.{}.{first}, the first revision of {} RKE2 validates",
                            build.build,
                            crate::plan::releases::windows::name(build.build)
                        ),
                    )
                    .label("below RKE2's validated revision")
                    .help(format!(
                        "update the nodes and write `\"10.0.{}.{first}\"` or later",
                        build.build
                    )),
                );
            }
            continue;
        }
        if !reported.insert(windows.build_pointer.clone()) {
            continue;
        }
        found.push(
            Diagnostic::new(
                &RKE2_WINDOWS_BUILD_UNVALIDATED,
                value(windows.build_pointer.clone()),
                format!(
                    "Windows build {build} ({}) is not one RKE2 validates (Windows Server 2019 and 2022)",
                    crate::plan::releases::windows::name(build.build)
                ),
            )
            .label("not validated by RKE2")
            .help("run the Windows nodes on Windows Server 2022, e.g. `\"10.0.20348.2762\"`"),
        );
    }
}

/// The spec fields that hold what a key hybridgen writes would set.
fn owned_by(key: &str) -> Option<&'static str> {
    Some(match key {
        "cni" => "hybridgen always writes `cni: flannel`",
        "cluster-cidr" => "`network.clusterCidr` sets it",
        "service-cidr" => "`network.serviceCidr` sets it",
        "cluster-dns" => "`network.dnsServiceIp` sets it",
        "cluster-domain" => "`kubernetes.dnsDomain` sets it",
        "token" | "token-file" | "agent-token" | "agent-token-file" => {
            "`rke2.token` sets the join token"
        }
        "server" => "`rke2.server` sets it",
        "node-ip" => "each node's `address` sets it",
        "node-name" => "each node's `name` sets it",
        "disable-etcd"
        | "disable-apiserver"
        | "disable-controller-manager"
        | "disable-scheduler" => "each server's `roles` set it",
        _ => return None,
    })
}

/// Flags hybridgen passes inside a list key, each owned by a spec field.
const OWNED_FLAGS: [(&str, &str, &str); 4] = [
    ("kubelet-arg", "max-pods=", "`network.maxPodsPerNode`"),
    (
        "kube-controller-manager-arg",
        "node-cidr-mask-size",
        "`network.nodeCidrMaskSize`",
    ),
    (
        "kube-controller-manager-arg",
        "allocate-node-cidrs=",
        "`network.podCidrs`",
    ),
    (
        "kube-controller-manager-arg",
        "cluster-cidr=",
        "`network.clusterCidr`",
    ),
];

/// Why a key of `rke2.config` (`servers: false`) or `rke2.serverConfig` would not work, with
/// the help to give.
fn key_problem(key: &str, value: &Value, servers: bool) -> Option<(String, String)> {
    if let Some(owner) = owned_by(key) {
        return Some((
            format!("`{key}` is written by hybridgen: {owner}"),
            format!("remove `{key}` and set it in the spec"),
        ));
    }
    match rke2_keys::scope(key) {
        Scope::Dropped if key.starts_with("flannel-") => {
            return Some((
                format!(
                    "RKE2 has no `{key}` key: it configures flannel through the `rke2-flannel` chart only"
                ),
                format!("remove `{key}`; the `flannel` section sets the chart's values"),
            ));
        }
        Scope::Dropped => {
            return Some((
                format!("RKE2 removed k3s's `{key}`: it would be skipped"),
                format!("remove `{key}`"),
            ));
        }
        Scope::Unknown => {
            let known: Vec<String> = rke2_keys::known().map(String::from).collect();
            let help = match crate::suggest::nearest(key, &known) {
                Some(nearest) => format!("did you mean `{nearest}`?"),
                None => {
                    format!("remove `{key}`; docs.rke2.io \"Configuration Options\" lists the keys")
                }
            };
            return Some((
                format!("`{key}` is no RKE2 flag: RKE2 would skip it with only a log line"),
                help,
            ));
        }
        Scope::ServerOnly if !servers => {
            return Some((
                format!("`{key}` is a server flag: agents would skip it"),
                format!("move `{key}` to `rke2.serverConfig`"),
            ));
        }
        Scope::ServerOnly | Scope::EveryNode => {}
    }
    let scalar =
        |value: &Value| matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_));
    let valid = scalar(value)
        || value
            .as_array()
            .is_some_and(|items| items.iter().all(scalar));
    if !valid {
        return Some((
            format!("`{key}` holds a map or null: RKE2 reads strings, numbers, booleans and lists"),
            format!("write `{key}` as a string or a list of strings"),
        ));
    }
    let items: Vec<&str> = match value {
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
        Value::String(text) => vec![text.as_str()],
        _ => Vec::new(),
    };
    OWNED_FLAGS
        .iter()
        .find(|(list, flag, _)| *list == key && items.iter().any(|item| item.starts_with(flag)))
        .map(|(_, flag, field)| {
            (
                format!(
                    "`{key}` sets `{}`, which hybridgen writes from {field}",
                    flag.trim_end_matches('=')
                ),
                format!("remove it from `{key}` and set {field}"),
            )
        })
}

fn config_maps(spec: &Spec) -> Vec<(&'static str, bool, &ConfigKeys)> {
    let Some(rke2) = &spec.rke2 else {
        return Vec::new();
    };
    [
        ("config", false, &rke2.config),
        ("serverConfig", true, &rke2.server_config),
    ]
    .into_iter()
    .filter_map(|(field, servers, map)| Some((field, servers, map.as_ref()?)))
    .collect()
}

fn check_config_keys(context: &Context, found: &mut Vec<Diagnostic>) {
    if context.spec.distribution() != Distribution::Rke2 {
        return;
    }
    for (field, servers, map) in config_maps(context.spec) {
        for (name, setting) in map {
            let Some((problem, help)) = key_problem(name, &setting.0, servers) else {
                continue;
            };
            found.push(
                Diagnostic::new(
                    &RKE2_CONFIG_KEY_SKIPPED,
                    key(format!("/rke2/{field}/{}", escape_pointer_token(name))),
                    problem,
                )
                .label("RKE2 would not use this")
                .help(help),
            );
        }
    }
}

/// Keys Rancher's version data lists as no RKE2 argument, which it drops from a node's
/// configuration (rancher/kontainer-driver-metadata `channels-rke2.yaml`).
fn check_rancher_keys(context: &Context, found: &mut Vec<Diagnostic>) {
    if context.spec.rancher.is_none() || context.spec.distribution() != Distribution::Rke2 {
        return;
    }
    let workers: Vec<&str> = context
        .spec
        .nodes
        .iter()
        .filter(|node| {
            !node
                .roles
                .iter()
                .any(|role| matches!(role, Role::Controlplane | Role::Etcd))
        })
        .map(|node| node.name.as_str())
        .collect();
    for (field, servers, map) in config_maps(context.spec) {
        for (name, setting) in map {
            // HG606 reports a key RKE2 would not take, or one hybridgen writes.
            if key_problem(name, &setting.0, servers).is_some() || owned_by(name).is_some() {
                continue;
            }
            let shown = escape::bounded(name, 100);
            let (message, label, help) = match rke2_keys::rancher_passes(name) {
                RancherPasses::EveryMachine => continue,
                RancherPasses::ServersOnly if servers || workers.is_empty() => continue,
                RancherPasses::ServersOnly => (
                    format!(
                        "Rancher passes `{shown}` to etcd and control-plane machines only: worker-only nodes ({}) never get it",
                        escape::bounded(&workers.join(", "), 200)
                    ),
                    "servers only",
                    format!("move `{shown}` to `rke2.serverConfig`, or remove it"),
                ),
                RancherPasses::None => (
                    format!(
                        "Rancher drops `{shown}` from the nodes' configuration: its version data lists it as no RKE2 argument"
                    ),
                    "dropped by Rancher",
                    match rke2_keys::rancher_field(name) {
                        Some(instead) => format!("remove `{shown}` and {instead}"),
                        None => format!("remove `{shown}`: no node would get it"),
                    },
                ),
            };
            found.push(
                Diagnostic::new(
                    &RANCHER_DROPS_CONFIG_KEY,
                    key(format!("/rke2/{field}/{}", escape_pointer_token(name))),
                    message,
                )
                .label(label)
                .help(help),
            );
        }
    }
}

fn check_rancher_url(context: &Context, found: &mut Vec<Diagnostic>) {
    let Some(rancher) = rancher_on_rke2(context) else {
        return;
    };
    let url = rancher.url.as_str();
    let (rest, plain_http) = match (url.strip_prefix("https://"), url.strip_prefix("http://")) {
        (Some(rest), _) => (rest, false),
        (None, Some(rest)) => (rest, true),
        // Not a URL at all: HG608 says so.
        (None, None) => return,
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let (message, label) = if authority.contains('@') {
        (
            "holds user information before `@`: the host curl connects to is the part after it",
            "user information",
        )
    } else if plain_http {
        (
            "is plain `http://`: the installers the nodes run as root and the registration token travel unprotected",
            "not https",
        )
    } else {
        return;
    };
    found.push(
        Diagnostic::new(
            &RANCHER_URL_INSECURE,
            value("/rancher/url"),
            format!("`rancher.url` `{}` {message}", escape::bounded(url, 200)),
        )
        .label(label)
        .help("write Rancher's `https://` URL with only the host, e.g. `https://rancher.example.com`, or `--allow HG610` for a lab without TLS"),
    );
}

fn check_rancher(context: &Context, found: &mut Vec<Diagnostic>) {
    let Some(rancher) = rancher_on_rke2(context) else {
        return;
    };
    let url = rancher.url.as_str();
    let host = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .unwrap_or_default()
        .trim_end_matches('/');
    if host.is_empty()
        || host
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '\'' || c == '"')
    {
        found.push(
            Diagnostic::new(
                &RANCHER_SETTINGS_INVALID,
                value("/rancher/url"),
                format!("`url` `{url}` is not a Rancher server URL"),
            )
            .label("not an https:// URL")
            .help("write Rancher's server URL, e.g. `https://rancher.example.com`"),
        );
    }
    let Some(plan) = context
        .plan
        .rke2
        .as_ref()
        .and_then(|rke2| rke2.rancher.as_ref())
    else {
        return;
    };
    let version = match &plan.version {
        Ok(version) => *version,
        Err(error) => {
            found.push(
                Diagnostic::new(
                    &RANCHER_SETTINGS_INVALID,
                    value("/rancher/version"),
                    error.problem.clone(),
                )
                .label("not a version")
                .help(error.help.clone()),
            );
            return;
        }
    };
    let location = if rancher.version.is_some() {
        value("/rancher/version")
    } else {
        key("/rancher")
    };
    if version < Release::new(2, 6, 0) {
        found.push(
            Diagnostic::new(
                &RANCHER_SETTINGS_INVALID,
                location,
                format!("Rancher {version} provisions no RKE2 custom clusters: they came with 2.6"),
            )
            .label("before Rancher 2.6")
            .help(format!(
                "use a current Rancher, e.g. `version: \"{DEFAULT_RANCHER_VERSION}\"`"
            )),
        );
    } else if version < Release::new(2, 9, 0) && context.plan.has_windows() {
        found.push(
            Diagnostic::new(
                &RANCHER_SETTINGS_INVALID,
                location,
                format!("Rancher {version} documents Windows nodes with Calico only: flannel with Windows nodes is documented from Rancher 2.9"),
            )
            .label("Windows flannel undocumented in this Rancher")
            .help(format!(
                "use Rancher 2.9 or later, e.g. `version: \"{DEFAULT_RANCHER_VERSION}\"`"
            ))
            .warning(),
        );
    }
}

fn check_end_of_life(context: &Context, found: &mut Vec<Diagnostic>) {
    let traits = context.plan.distribution;
    if let Some(end) = &traits.end_of_life {
        found.push(
            Diagnostic::new(
                &DISTRIBUTION_END_OF_LIFE,
                value("/kubernetes/distribution"),
                format!(
                    "{} reached its end of life on {}, and Rancher 2.12 and later cannot provision it",
                    traits.title, end.date
                ),
            )
            .label("end of life")
            .help(format!(
                "plan a new cluster on {} with a current `kubernetes.version`, e.g. `\"1.33.5\"`",
                end.successor
            )),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_rke2_would_skip_are_named_with_the_reason() {
        let problem = |key: &str, servers: bool| {
            key_problem(key, &Value::String("x".into()), servers).map(|(problem, _)| problem)
        };
        assert!(
            problem("flannel-iface", true)
                .unwrap()
                .contains("rke2-flannel")
        );
        assert!(
            problem("cluster-cidr", true)
                .unwrap()
                .contains("network.clusterCidr")
        );
        assert!(problem("etcd-arg", false).unwrap().contains("server flag"));
        assert_eq!(problem("etcd-arg", true), None);
        assert_eq!(problem("protect-kernel-defaults", false), None);
        let (typo, help) = key_problem("kubelet-args", &Value::Null, false).unwrap();
        assert!(typo.contains("no RKE2 flag"));
        assert_eq!(help, "did you mean `kubelet-arg`?");
        let owned = key_problem("kubelet-arg", &serde_json::json!(["max-pods=50"]), false).unwrap();
        assert!(owned.0.contains("network.maxPodsPerNode"), "{owned:?}");
        assert!(key_problem("kubelet-arg", &serde_json::json!({"a": 1}), false).is_some());
    }
}

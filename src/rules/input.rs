//! HG0xx: the input itself — YAML, schema, format version, addresses, names, versions, secrets.

use super::{Context, declare_rules, node_pointer};
use crate::diagnostic::{Diagnostic, value};
use crate::escape;
use crate::plan::{Parsed, Problem};
use crate::spec::Secret;
use crate::spec::names;
use crate::spec::secret_fields::{
    SECRET_FIELDS, is_variable_name, prefixes_text, variable_problem,
};
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::Hash;

declare_rules! {
    /// ### What it checks
    /// That the file is YAML a spec can use: well-formed, UTF-8, one document, nesting at most 64
    /// levels, under the 32 MiB size limit, with no duplicate keys, anchors, aliases or tags.
    ///
    /// ### Why it matters
    /// Duplicate keys silently drop a value; anchors and aliases hide what a field really holds and
    /// can expand into gigabytes (the "billion laughs"); tags change how a value is read. A spec
    /// needs none of them, so hybridgen refuses them before anything else reads the file.
    ///
    /// ### Fix
    /// Correct the syntax at the reported line; write repeated values out in full.
    ///
    /// ### References
    /// YAML 1.2.2; the "billion laughs" alias expansion (CVE-2019-11253, kubernetes/kubernetes#83253).
    YAML_SYNTAX = ("HG001", "yaml-syntax", Error, None);

    /// ### What it checks
    /// The document against the spec's JSON Schema (`hybridgen schema`): required fields, types,
    /// allowed values, and unknown fields (with the nearest known name).
    ///
    /// ### Why it matters
    /// A misspelled field (`clusterCIDR`) is otherwise ignored and its default used instead; an
    /// unquoted `version: 1.20` is the number 1.2.
    ///
    /// ### Fix
    /// Follow the help: rename the field, add the missing one, or quote the value.
    ///
    /// ### References
    /// `schemas/hybridgen.schema.json`; the spec format in the README.
    SCHEMA_VIOLATION = ("HG002", "schema-violation", Error, None);

    /// ### What it checks
    /// That `apiVersion` is `hybridgen/v1` and `kind` is `Cluster`.
    ///
    /// ### Why it matters
    /// The format version decides how every other field is read; a spec for another version, or
    /// another kind of document, must not be checked against the wrong rules.
    ///
    /// ### Fix
    /// Set `apiVersion: hybridgen/v1` and `kind: Cluster`.
    ///
    /// ### References
    /// The spec format in the README.
    UNSUPPORTED_API_VERSION = ("HG003", "unsupported-api-version", Error, None);

    /// ### What it checks
    /// Every CIDR and IP address: it parses, has no host bits after the prefix (`10.244.1.0/16`),
    /// no leading zeros, and is IPv4.
    ///
    /// ### Why it matters
    /// Go's parser silently drops host bits, so `10.244.1.0/16` becomes `10.244.0.0/16` in
    /// kubeadm but not in your head; leading zeros are read as decimal by some tools and octal by
    /// others. flannel on Windows has no IPv6.
    ///
    /// ### Fix
    /// Write the canonical network the help gives.
    ///
    /// ### References
    /// kubernetes/apimachinery `pkg/util/validation/ip.go` (`IsValidCIDR`); kubernetes/kops
    /// `parseCIDR`; flannel-io/flannel Windows backends (IPv4 only).
    INVALID_ADDRESS = ("HG004", "invalid-address", Error, Some(check_addresses));

    /// ### What it checks
    /// That `windows.controlPlane.kubeadmToken`, `kubeadmCaHash` and `rke2.token` are references
    /// (`{fromEnv: NAME}`), not the secret itself.
    ///
    /// ### Why it matters
    /// A bootstrap token (or RKE2's join token) lets any machine join the cluster; a committed
    /// spec spreads it to every clone, fork and CI log.
    ///
    /// ### Fix
    /// Write `kubeadmToken: {fromEnv: KUBEADM_TOKEN}` (`token: {fromEnv: RKE2_TOKEN}`) and set the
    /// variable on the node when its script (`join.ps1`, `install.sh`, `install.ps1`) runs. An
    /// inline value is never written into a rendered file: the scripts read the default variable.
    ///
    /// ### References
    /// `kubeadm token create`; Kubernetes "Authenticating with Bootstrap Tokens" (token format);
    /// docs.rke2.io "Token Management".
    SECRET_INLINE = ("HG005", "secret-inline", Warning, Some(check_inline_secrets));

    /// ### What it checks
    /// That `metadata.name` is a DNS-1123 label (lower-case letters, digits and `-`, starting and
    /// ending with a letter or digit, at most 63); that every node name is a DNS-1123 subdomain
    /// (such labels joined by dots, as clouds register nodes: `ip-10-0-0-1.eu-west-1.compute.internal`)
    /// of at most 63 characters; and that `kubernetes.dnsDomain` is a DNS-1123 subdomain (at most
    /// 253).
    ///
    /// ### Why it matters
    /// Kubernetes rejects other names. A node name may be a subdomain, but the kubelet also writes
    /// it as the value of the node's `kubernetes.io/hostname` label, and label values hold at most
    /// 63 characters, so a longer name never registers. A Windows node's name is not bound to the
    /// 15 characters of its NetBIOS computer name: Kubernetes reads the DNS host name (up to 63
    /// characters), and hybridgen passes the node name to the kubelet itself (`join.ps1`'s
    /// `--hostname-override` on the HostProcess path, RKE2's `node-name`, Rancher's `--node-name`).
    /// The names also become file names and cloud route names, which hybridgen derives safely.
    ///
    /// ### Fix
    /// Use lower-case letters, digits, `-` and `.` (between labels), at most 63 characters.
    ///
    /// ### References
    /// https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#dns-subdomain-names;
    /// https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set;
    /// https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetesiohostname;
    /// https://learn.microsoft.com/en-us/troubleshoot/windows-server/active-directory/naming-conventions-for-computer-domain-site-ou;
    /// apimachinery `IsDNS1123Label`, `IsDNS1123Subdomain`; kubeadm `ValidateNetworking`.
    INVALID_NAME = ("HG007", "invalid-name", Error, Some(check_names));

    /// ### What it checks
    /// That no two nodes share a name or an address.
    ///
    /// ### Why it matters
    /// Two nodes with one address get one route; two nodes with one name are one Node object.
    ///
    /// ### Fix
    /// Give each node its own name and address.
    ///
    /// ### References
    /// rancher/rke `cluster/validation.go` (`validateDuplicateNodes`).
    DUPLICATE_NODE = ("HG008", "duplicate-node", Error, Some(check_duplicate_nodes));

    /// ### What it checks
    /// That `kubernetes.version`, `flannel.version` and `windows.containerd.version` are
    /// `MAJOR.MINOR.PATCH` (a leading `v` is allowed) and every Windows build is
    /// `10.0.BUILD.REVISION` or `BUILD.REVISION`.
    ///
    /// ### Why it matters
    /// The versions select which rules apply and which files are rendered.
    ///
    /// ### Fix
    /// Write the full version in quotes, e.g. `"1.16.2"` or `"10.0.17763.379"`.
    ///
    /// ### References
    /// The spec format in the README.
    INVALID_VERSION = ("HG009", "invalid-version", Error, Some(check_versions));

    /// ### What it checks
    /// That the kubeadm token is `[a-z0-9]{6}.[a-z0-9]{16}` and the CA hash is `sha256:` followed
    /// by 64 hexadecimal digits, with nothing around them, and that RKE2's token is one word of
    /// printable ASCII: written inline, checked with the spec. A value read from the environment
    /// is checked the same way by the node-side script before it uses it.
    ///
    /// ### Why it matters
    /// `kubeadm join` rejects anything else, on the node, after the files are deployed; an RKE2
    /// token with a line break in it does not match the server's.
    ///
    /// ### Fix
    /// Copy the values printed by `kubeadm token create --print-join-command` (without the line
    /// break a shell capture may add), and better, move them to environment variables (HG005).
    ///
    /// ### References
    /// k8s.io/cluster-bootstrap `BootstrapTokenPattern`; kubeadm `pubkeypin`.
    SECRET_FORMAT = ("HG010", "secret-format", Error, Some(check_secret_formats));

    /// ### What it checks
    /// That a secret reference `{fromEnv: NAME}` names an environment variable
    /// (`[A-Z][A-Z0-9_]*`, at most 64) that starts with `HYBRIDGEN_`, `KUBEADM_` or `RKE2_`.
    ///
    /// ### Why it matters
    /// The node-side scripts run as root and Administrator and turn the variable's value into the
    /// cluster's join token. A spec from a pull request that names `AWS_SECRET_ACCESS_KEY` or
    /// `GITHUB_TOKEN` would make a node hand another system's credentials to the cluster, where
    /// every node's administrator can read them.
    ///
    /// ### Fix
    /// Name a variable of the cluster's own: `KUBEADM_TOKEN`, `KUBEADM_CA_HASH`, `RKE2_TOKEN`, or
    /// another name with one of the prefixes (`RKE2_TOKEN_PROD`).
    ///
    /// ### References
    /// POSIX "Environment Variables" (names of upper-case letters, digits and `_`);
    /// docs.rke2.io "Token Management"; Kubernetes "Authenticating with Bootstrap Tokens".
    SECRET_VARIABLE = ("HG011", "secret-variable-not-allowed", Error, Some(check_secret_variables));

    /// ### What it checks
    /// That every inline suppression (`# hybridgen: allow HG117 -- why`) names rules by their
    /// code or name, gives its reason after `--`, and still suppresses a finding.
    ///
    /// ### Why it matters
    /// A suppression that suppresses nothing hides the next real finding of its rule on that line
    /// without anyone deciding it should; one without a reason tells the next reader nothing.
    ///
    /// ### Fix
    /// Correct the rule's code, add the reason, or remove the comment.
    ///
    /// ### References
    /// ruff's unused-`noqa` rule (RUF100); SARIF 2.1.0 §3.27.23 `suppressions`.
    INEFFECTIVE_SUPPRESSION = ("HG012", "ineffective-suppression", Warning, None);
}

/// HG003, checked on the raw document before the schema: another version's fields are not errors
/// of this one.
pub fn check_api_version(document: &serde_json::Value) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for (field, expected) in [("apiVersion", "hybridgen/v1"), ("kind", "Cluster")] {
        if let Some(written) = document.get(field).and_then(|v| v.as_str())
            && written != expected
        {
            found.push(
                Diagnostic::new(
                    &UNSUPPORTED_API_VERSION,
                    value(format!("/{field}")),
                    format!("`{field}: {written}` is not supported; this hybridgen reads `{field}: {expected}`"),
                )
                .label("unsupported")
                .help(format!("set `{field}: {expected}`")),
            );
        }
    }
    found
}

/// Reports an address that did not parse; `place` gives its pointer and what it is, formatted
/// only then (this runs for every node).
fn report_invalid<T>(
    parsed: &Parsed<T>,
    place: impl FnOnce() -> (String, String),
    found: &mut Vec<Diagnostic>,
) {
    if let Err(error) = parsed {
        let Problem { problem, help } = &**error;
        let (pointer, what) = place();
        found.push(
            Diagnostic::new(
                &INVALID_ADDRESS,
                value(pointer),
                format!("{what}: {problem}"),
            )
            .label("not a valid IPv4 address or network")
            .help(help.clone()),
        );
    }
}

fn check_addresses(context: &Context, found: &mut Vec<Diagnostic>) {
    let (spec, plan) = (context.spec, context.plan);
    let named = |pointer: &str, what: &str| (pointer.to_string(), what.to_string());
    report_invalid(
        &plan.cluster_cidr,
        || named("/network/clusterCidr", "`clusterCidr`"),
        found,
    );
    report_invalid(
        &plan.service_cidr,
        || named("/network/serviceCidr", "`serviceCidr`"),
        found,
    );
    if spec.network.dns_service_ip.is_some()
        && let Some(dns) = &plan.dns_service_ip
    {
        report_invalid(
            dns,
            || named("/network/dnsServiceIp", "`dnsServiceIp`"),
            found,
        );
    }
    for (index, subnet) in plan.host_subnets.iter().enumerate() {
        let pointer = || {
            (
                format!("/network/hostSubnets/{index}"),
                "host subnet".into(),
            )
        };
        report_invalid(subnet, pointer, found);
    }
    for (index, node) in plan.nodes.iter().enumerate() {
        let place = |field| move || (node_pointer(index, field), format!("node `{}`", node.name));
        report_invalid(&node.address, place("address"), found);
        if let Some(pinned) = &node.pinned {
            report_invalid(pinned, place("podCidr"), found);
        }
    }
    let written = spec
        .windows
        .as_ref()
        .and_then(|windows| windows.control_plane.as_ref())
        .is_some_and(|control_plane| control_plane.address.is_some());
    if let Some(address) = plan
        .windows
        .as_ref()
        .and_then(|w| w.control_plane_address.as_ref())
        && written
    {
        report_invalid(
            address,
            || named("/windows/controlPlane/address", "control-plane address"),
            found,
        );
    }
}

fn check_inline_secrets(context: &Context, found: &mut Vec<Diagnostic>) {
    for field in &SECRET_FIELDS {
        if field.inline(context.spec).is_none() {
            continue;
        }
        let (key, variable) = (field.key, field.default_variable);
        found.push(
            Diagnostic::new(
                &SECRET_INLINE,
                value(field.pointer),
                format!("`{key}` holds a secret written into the spec (its value is not shown, and no rendered file holds it)"),
            )
            .label("secret written inline")
            .help(format!(
                "write `{key}: {{fromEnv: {variable}}}` and set `{variable}` on the node when its script runs; rotate the exposed value"
            )),
        );
    }
}

fn check_secret_formats(context: &Context, found: &mut Vec<Diagnostic>) {
    for field in &SECRET_FIELDS {
        let Some(text) = field.inline(context.spec) else {
            continue;
        };
        let (valid, form) = field.form.check(text);
        if !valid {
            found.push(
                Diagnostic::new(
                    &SECRET_FORMAT,
                    value(field.pointer),
                    format!(
                        "`{}` is not in the form {} accepts, {form} (its value is not shown)",
                        field.key,
                        field.form.consumer()
                    ),
                )
                .label("malformed secret")
                .help(format!("copy {}", field.form.expected())),
            );
        }
    }
}

fn check_secret_variables(context: &Context, found: &mut Vec<Diagnostic>) {
    for field in &SECRET_FIELDS {
        let Some(Secret::FromEnv(reference)) = field.secret(context.spec) else {
            continue;
        };
        let Some(problem) = variable_problem(&reference.from_env) else {
            continue;
        };
        let pointer = format!("{}/fromEnv", field.pointer);
        // `$NAME` or `${NAME}`, as a shell writes it: the name is right, the `$` is not.
        let unexpanded = reference
            .from_env
            .strip_prefix('$')
            .map(|name| name.trim_start_matches('{').trim_end_matches('}'))
            .filter(|name| is_variable_name(name) && variable_problem(name).is_none());
        if let Some(name) = unexpanded {
            found.push(
                Diagnostic::new(
                    &SECRET_VARIABLE,
                    value(&pointer),
                    format!(
                        "`{}` names the variable `{name}` the way a shell expands it, with a `$`: `fromEnv` takes the name alone, so `{name}` is never read",
                        field.key
                    ),
                )
                .label("a `$` before the name")
                .help(format!("drop the `$`: write the name, `{name}`")),
            );
            continue;
        }
        found.push(
            Diagnostic::new(
                &SECRET_VARIABLE,
                value(&pointer),
                if is_variable_name(&reference.from_env) {
                    format!("`{}` names the variable `{}`, which {problem}", field.key, reference.from_env)
                } else {
                    format!("`{}` names a variable that {problem} (not shown: it may be the secret itself)", field.key)
                },
            )
            .label("not a join secret's variable")
            .help(format!(
                "write `{}: {{fromEnv: {}}}`, or another name starting with {}",
                field.key,
                field.default_variable,
                prefixes_text()
            )),
        );
    }
}

/// The most characters of a node name: the kubelet writes the name as the value of the node's
/// `kubernetes.io/hostname` label, and a label value holds at most 63 characters
/// (https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set).
pub(crate) const NODE_NAME_MAX: usize = 63;

/// A suggestion for a node name that is not a subdomain: each label lower-cased, other
/// characters turned into `-`, empty labels dropped, at most [`NODE_NAME_MAX`] characters.
fn subdomain_suggestion(text: &str) -> String {
    let labels: Vec<String> = text
        .split('.')
        .map(label_suggestion)
        .filter(|label| !label.is_empty())
        .collect();
    let joined = labels.join(".");
    joined
        .chars()
        .take(NODE_NAME_MAX)
        .collect::<String>()
        .trim_end_matches(['-', '.'])
        .to_string()
}

/// A suggestion for a name that is not a label: lower-cased, other characters turned into `-`.
fn label_suggestion(text: &str) -> String {
    let mapped: String = text
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let trimmed = mapped.trim_matches('-');
    trimmed
        .chars()
        .take(63)
        .collect::<String>()
        .trim_end_matches('-')
        .to_string()
}

fn check_names(context: &Context, found: &mut Vec<Diagnostic>) {
    let spec = context.spec;
    let name = &spec.metadata.name;
    if !names::is_dns_label(name) {
        let suggestion = label_suggestion(name);
        let help = if suggestion.is_empty() {
            "use lower-case letters, digits and `-`, at most 63 characters".to_string()
        } else {
            format!(
                "use lower-case letters, digits and `-`, at most 63 characters, e.g. `{suggestion}`"
            )
        };
        found.push(
            Diagnostic::new(
                &INVALID_NAME,
                value("/metadata/name"),
                format!("the cluster name `{name}` is not a DNS-1123 label"),
            )
            .label("not a DNS-1123 label")
            .help(help),
        );
    }
    for (index, node) in spec.nodes.iter().enumerate() {
        let name = node.name.as_str();
        if !names::is_dns_subdomain(name) {
            let suggestion = subdomain_suggestion(name);
            let mut help = format!(
                "use lower-case letters, digits, `-` and `.` between labels, at most {NODE_NAME_MAX} characters"
            );
            if !suggestion.is_empty() {
                help.push_str(&format!(", e.g. `{suggestion}`"));
            }
            found.push(
                Diagnostic::new(
                    &INVALID_NAME,
                    value(node_pointer(index, "name")),
                    format!(
                        "the node name `{}` is not a DNS-1123 subdomain",
                        escape::bounded(name, 100)
                    ),
                )
                .label("not a DNS-1123 subdomain")
                .help(help),
            );
        } else if name.len() > NODE_NAME_MAX {
            found.push(
                Diagnostic::new(
                    &INVALID_NAME,
                    value(node_pointer(index, "name")),
                    format!(
                        "the node name `{}` has {} characters: the kubelet writes it as the `kubernetes.io/hostname` label, whose value holds at most {NODE_NAME_MAX}",
                        escape::bounded(name, 100),
                        name.len()
                    ),
                )
                .label(format!("more than {NODE_NAME_MAX} characters"))
                .help(format!(
                    "shorten the name to at most {NODE_NAME_MAX} characters, e.g. its first label `{}`",
                    name.split('.').next().unwrap_or(name)
                )),
            );
        }
    }
    if let Some(domain) = &spec.kubernetes.dns_domain
        && !names::is_dns_subdomain(domain)
    {
        found.push(
            Diagnostic::new(
                &INVALID_NAME,
                value("/kubernetes/dnsDomain"),
                format!("`dnsDomain` `{domain}` is not a DNS-1123 subdomain"),
            )
            .label("not a DNS-1123 subdomain")
            .help(
                "use lower-case labels joined by dots with no trailing dot, e.g. `cluster.local`",
            ),
        );
    }
}

/// A node name no node uses, for a name used twice: the next free number of a numbered name
/// (`k8s-win-2` for a second `k8s-win-1`), else the name with the node's index. A few names are
/// tried, so that a spec of many duplicates costs little.
fn free_name(taken: &std::collections::HashSet<&str>, name: &str, index: usize) -> String {
    const TRIES: usize = 64;
    let numbered = name
        .rsplit_once('-')
        .and_then(|(stem, number)| Some((stem, number.parse::<u64>().ok()?)));
    let next_numbers = numbered.into_iter().flat_map(|(stem, number)| {
        (1..=TRIES as u64).map(move |step| format!("{stem}-{}", number.saturating_add(step)))
    });
    let with_index = (0..TRIES).map(|step| format!("{name}-{}", index + step));
    next_numbers
        .chain(with_index)
        .find(|candidate| !taken.contains(candidate.as_str()))
        .unwrap_or_else(|| format!("{name}-{index}"))
}

fn check_duplicate_nodes(context: &Context, found: &mut Vec<Diagnostic>) {
    let count = context.plan.nodes.len();
    let mut names: HashMap<&str, usize> = HashMap::with_capacity(count);
    let mut addresses: HashMap<u32, usize> = HashMap::with_capacity(count);
    // Every name, for the free one a duplicate's help offers: gathered only once one is found.
    let mut all_names: Option<std::collections::HashSet<&str>> = None;
    for (index, node) in context.plan.nodes.iter().enumerate() {
        if let Some(first) = first_use(&mut names, node.name.as_str(), index) {
            found.push(
                Diagnostic::new(
                    &DUPLICATE_NODE,
                    value(node_pointer(index, "name")),
                    format!("node name `{}` is used twice", node.name),
                )
                .label("second use")
                .related(value(node_pointer(first, "name")), "first used here")
                .help(format!(
                    "rename one of the nodes, e.g. `{}`",
                    free_name(
                        all_names.get_or_insert_with(|| {
                            context
                                .plan
                                .nodes
                                .iter()
                                .map(|node| node.name.as_str())
                                .collect()
                        }),
                        &node.name,
                        index
                    )
                )),
            );
        }
        let Ok(address) = node.address else {
            continue;
        };
        if let Some(first) = first_use(&mut addresses, u32::from(address), index) {
            found.push(
                Diagnostic::new(
                    &DUPLICATE_NODE,
                    value(node_pointer(index, "address")),
                    format!(
                        "nodes `{}` and `{}` share the address {address}",
                        context.plan.nodes[first].name, node.name
                    ),
                )
                .label("second use")
                .related(value(node_pointer(first, "address")), "first used here")
                .help("give each node its own address"),
            );
        }
    }
}

/// The node that used `key` first, or none, with `index` recorded as that node. One lookup:
/// `entry` hashes once where `get` and then `insert` hashed twice.
fn first_use<K: Eq + Hash>(seen: &mut HashMap<K, usize>, key: K, index: usize) -> Option<usize> {
    match seen.entry(key) {
        Entry::Occupied(first) => Some(*first.get()),
        Entry::Vacant(slot) => {
            slot.insert(index);
            None
        }
    }
}

fn report_version<T>(parsed: &Parsed<T>, pointer: String, found: &mut Vec<Diagnostic>) {
    if let Err(error) = parsed {
        let Problem { problem, help } = &**error;
        found.push(
            Diagnostic::new(&INVALID_VERSION, value(pointer), problem.clone())
                .label("not a version")
                .help(help.clone()),
        );
    }
}

fn check_versions(context: &Context, found: &mut Vec<Diagnostic>) {
    let (spec, plan) = (context.spec, context.plan);
    report_version(
        &plan.kubernetes_version,
        "/kubernetes/version".into(),
        found,
    );
    if spec.flannel.version.is_some() {
        report_version(&plan.flannel.version, "/flannel/version".into(), found);
    }
    if let Some(build) = plan
        .windows
        .as_ref()
        .and_then(|windows| windows.build.as_ref())
    {
        report_version(build, "/windows/build".into(), found);
    }
    if let (true, Some(windows)) = (spec.windows_containerd_written(), &plan.windows) {
        report_version(
            &windows.containerd_version,
            "/windows/containerd/version".into(),
            found,
        );
    }
    for node in &plan.nodes {
        if let Some(windows) = &node.windows
            && let Some(build) = &windows.build
            && windows.build_pointer.starts_with("/nodes/")
        {
            report_version(build, windows.build_pointer.clone(), found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_labels_follow_rfc_1123() {
        assert!(names::is_dns_label("win-0"));
        assert!(!names::is_dns_label("Win-0"));
        assert!(!names::is_dns_label("-win"));
        assert!(!names::is_dns_label(&"a".repeat(64)));
        assert!(names::is_dns_subdomain("cluster.local"));
        assert!(!names::is_dns_subdomain("cluster.local."));
    }
}

//! The rule catalogue: every rule declared once with its code, name, default severity and explain
//! text (its doc comment), in one file per family, and one registry that lists them all.

pub mod cidr;
pub mod flannel;
pub mod input;
pub mod topology;
pub mod windows;

use crate::diagnostic::{Diagnostic, Severity};
use crate::plan::Plan;
use crate::spec::Spec;

/// What a rule's check reads: the typed spec and the plan computed from it.
pub struct Context<'a> {
    pub spec: &'a Spec,
    pub plan: &'a Plan,
}

pub type Check = fn(&Context, &mut Vec<Diagnostic>);

#[derive(Debug)]
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    /// Markdown: What it checks / Why it matters / Fix / References.
    pub explain: &'static str,
    /// `None` for findings made outside the rule pass (YAML, schema, API version, render).
    pub check: Option<Check>,
}

impl Rule {
    /// The explain text as Markdown, with the rule's heading.
    pub fn explain_markdown(&self) -> String {
        let body: Vec<&str> = self
            .explain
            .lines()
            .map(|line| line.strip_prefix(' ').unwrap_or(line))
            .collect();
        format!(
            "## {} {}\n\nDefault severity: {}.\n\n{}\n",
            self.code,
            self.name,
            self.severity.as_str(),
            body.join("\n").trim()
        )
    }
}

/// Declares rules: `/// docs` then `NAME = ("HG101", "kebab-name", Error, Some(check));`.
macro_rules! declare_rules {
    ($( $(#[doc = $doc:literal])* $ident:ident = ($code:literal, $name:literal, $severity:ident, $check:expr); )*) => {
        $(
            pub static $ident: $crate::rules::Rule = $crate::rules::Rule {
                code: $code,
                name: $name,
                severity: $crate::diagnostic::Severity::$severity,
                explain: concat!($($doc, "\n"),*),
                check: $check,
            };
        )*
    };
}
pub(crate) use declare_rules;

/// Every rule, in code order.
pub static ALL: &[&Rule] = &[
    &input::YAML_SYNTAX,
    &input::SCHEMA_VIOLATION,
    &input::UNSUPPORTED_API_VERSION,
    &input::INVALID_ADDRESS,
    &input::SECRET_INLINE,
    &input::SECRET_UNSET,
    &input::INVALID_NAME,
    &input::DUPLICATE_NODE,
    &input::INVALID_VERSION,
    &input::SECRET_FORMAT,
    &cidr::SERVICE_CIDR_OVERLAPS_CLUSTER_CIDR,
    &cidr::SERVICE_CIDR_SIZE,
    &cidr::DNS_IP_OUTSIDE_SERVICE_CIDR,
    &cidr::DNS_IP_RESERVED,
    &cidr::DNS_IP_NOT_TENTH,
    &cidr::NODE_MASK_INVALID,
    &cidr::CLUSTER_CIDR_EXHAUSTED,
    &cidr::CLUSTER_CIDR_TOO_SMALL_FOR_PODS,
    &cidr::NODE_SUBNET_TOO_SMALL_FOR_MAX_PODS,
    &cidr::NODE_ADDRESS_IN_CLUSTER_NETWORK,
    &cidr::HOST_SUBNET_OVERLAPS_CLUSTER_NETWORK,
    &cidr::PINNED_POD_CIDR_INVALID,
    &cidr::POD_CIDR_CONFLICT,
    &cidr::RESERVED_RANGE_OVERLAP,
    &cidr::PUBLIC_RANGE,
    &cidr::NODE_ADDRESS_OUTSIDE_HOST_SUBNETS,
    &flannel::VXLAN_VNI_WINDOWS,
    &flannel::VXLAN_PORT_WINDOWS,
    &flannel::VXLAN_OPTION_WINDOWS,
    &flannel::MAC_PREFIX_INVALID,
    &flannel::HNS_NETWORK_NAME,
    &flannel::HOST_GW_NOT_ADJACENT,
    &flannel::HOST_GW_CLOUD_FORWARDING,
    &flannel::FLANNEL_WINDOWS_VERSION,
    &flannel::VXLAN_VNI_RANGE,
    &windows::WINDOWS_BUILD_UNSUPPORTED,
    &windows::WINDOWS_OVERLAY_HOTFIX,
    &windows::WINDOWS_IMAGE_BUILD_MISMATCH,
    &windows::WINDOWS_KUBERNETES_VERSION,
    &windows::WINDOWS_SETUP_INCOMPATIBLE,
    &windows::WINDOWS_ROLE,
    &windows::WINDOWS_SETTINGS_MISSING,
    &topology::NO_LINUX_CONTROL_PLANE,
    &topology::NO_LINUX_WORKER,
    &topology::CLOUD_NODE_IDENTITY_MISSING,
    &topology::CLOUD_SETTINGS_MISSING,
    &topology::ROUTE_TABLE_LIMIT,
];

/// The rule with this code, if any (case-insensitive).
pub fn find(code: &str) -> Option<&'static Rule> {
    ALL.iter()
        .copied()
        .find(|rule| rule.code.eq_ignore_ascii_case(code))
}

/// Runs every rule's check; findings come back in rule order.
pub fn run(spec: &Spec, plan: &Plan) -> Vec<Diagnostic> {
    let context = Context { spec, plan };
    let mut found = Vec::new();
    for rule in ALL {
        if let Some(check) = rule.check {
            check(&context, &mut found);
        }
    }
    found
}

/// `/nodes/3/podCidr`-style pointers.
pub(crate) fn node_pointer(index: usize, field: &str) -> String {
    if field.is_empty() {
        format!("/nodes/{index}")
    } else {
        format!("/nodes/{index}/{field}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_sorted() {
        let codes: Vec<&str> = ALL.iter().map(|rule| rule.code).collect();
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(codes, sorted);
    }

    #[test]
    fn every_rule_explains_itself_in_four_sections() {
        for rule in ALL {
            for section in [
                "### What it checks",
                "### Why it matters",
                "### Fix",
                "### References",
            ] {
                assert!(
                    rule.explain.contains(section),
                    "{} lacks {section}",
                    rule.code
                );
            }
        }
    }

    #[test]
    fn names_are_kebab_case() {
        for rule in ALL {
            assert!(
                rule.name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{}",
                rule.name
            );
        }
    }
}

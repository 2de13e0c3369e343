//! The rule catalogue: every rule declared once with its code, name, default severity and explain
//! text (its doc comment), in one file per family, and one registry that lists them all.

pub mod change;
pub mod cidr;
pub mod flannel;
pub mod hostprocess;
pub mod input;
pub mod live;
pub mod release;
pub mod rke2;
pub mod rke2_live;
pub mod topology;
pub mod windows;

use crate::diagnostic::{Diagnostic, Rule};
use crate::plan::Plan;
use crate::spec::Spec;
use std::sync::LazyLock;

/// What a rule's check reads: the typed spec and the plan computed from it.
pub struct Context<'a> {
    pub spec: &'a Spec,
    pub plan: &'a Plan,
}

pub type Check = fn(&Context, &mut Vec<Diagnostic>);

/// A rule with the check that finds it: `None` for findings made outside the rule pass (YAML,
/// schema, API version, render).
pub struct Registered<C: 'static> {
    pub rule: &'static Rule,
    pub check: Option<C>,
}

/// Declares a family's rules: `/// docs` then `NAME = ("HG101", "kebab-name", Error, Some(check));`.
/// Each becomes a `static NAME: Rule`, and the family's `RULES` lists them with their checks.
/// `checks: TYPE;` first names the check type when it is not [`Check`].
macro_rules! declare_rules {
    (checks: $check_type:ty; $( $(#[doc = $doc:literal])* $ident:ident = ($code:literal, $name:literal, $severity:ident, $check:expr); )*) => {
        $(
            $(#[doc = $doc])*
            pub static $ident: $crate::diagnostic::Rule = $crate::diagnostic::Rule {
                code: $code,
                name: $name,
                severity: $crate::diagnostic::Severity::$severity,
                explain: concat!($($doc, "\n"),*),
            };
        )*
        /// This family's rules, in code order, each with its check.
        pub(crate) static RULES: &[$crate::rules::Registered<$check_type>] = &[
            $( $crate::rules::Registered { rule: &$ident, check: $check } ),*
        ];
    };
    ($( $(#[doc = $doc:literal])* $ident:ident = ($code:literal, $name:literal, $severity:ident, $check:expr); )*) => {
        $crate::rules::declare_rules! {
            checks: $crate::rules::Check;
            $( $(#[doc = $doc])* $ident = ($code, $name, $severity, $check); )*
        }
    };
}
pub(crate) use declare_rules;

/// The families whose checks read the spec and its plan, in code order.
const PLAN_FAMILIES: [&[Registered<Check>]; 8] = [
    input::RULES,
    cidr::RULES,
    flannel::RULES,
    windows::RULES,
    hostprocess::RULES,
    release::RULES,
    topology::RULES,
    rke2::RULES,
];

/// Every rule, in code order: what `explain --all`, SARIF and the registry list.
pub fn all() -> &'static [&'static Rule] {
    static ALL: LazyLock<Vec<&'static Rule>> = LazyLock::new(|| {
        let mut rules: Vec<&'static Rule> = PLAN_FAMILIES
            .iter()
            .flat_map(|family| family.iter().map(|registered| registered.rule))
            .chain(live::RULES.iter().map(|registered| registered.rule))
            .chain(rke2_live::RULES.iter().map(|registered| registered.rule))
            .chain(change::RULES.iter().map(|registered| registered.rule))
            .collect();
        rules.sort_by_key(|rule| rule.code);
        rules
    });
    &ALL
}

/// The rule with this code (case-insensitive) or this name (`secret-inline`), if any.
pub fn find(code_or_name: &str) -> Option<&'static Rule> {
    all()
        .iter()
        .copied()
        .find(|rule| rule.code.eq_ignore_ascii_case(code_or_name) || rule.name == code_or_name)
}

/// Runs every rule's check; findings come back in rule order.
pub fn run(spec: &Spec, plan: &Plan) -> Vec<Diagnostic> {
    let context = Context { spec, plan };
    let mut found = Vec::new();
    for check in PLAN_FAMILIES
        .iter()
        .copied()
        .flatten()
        .filter_map(|registered| registered.check)
    {
        check(&context, &mut found);
    }
    found
}

pub fn run_live(context: &live::LiveContext) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for registered in live::RULES.iter().chain(rke2_live::RULES) {
        if let Some(check) = registered.check {
            check(context, &mut found);
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

/// Whether the spec's `windows` section writes the field `field` reads.
pub(crate) fn windows_written(spec: &Spec, field: fn(&crate::spec::Windows) -> bool) -> bool {
    spec.windows.as_ref().is_some_and(field)
}

/// `a, b, c` and how many more.
pub(crate) fn listing(names: impl Iterator<Item = String>, shown: usize) -> String {
    let names: Vec<String> = names.collect();
    let mut text = names[..names.len().min(shown)].join(", ");
    if names.len() > shown {
        text.push_str(&format!(" and {} more", names.len() - shown));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique() {
        let codes: Vec<&str> = all().iter().map(|rule| rule.code).collect();
        let mut unique = codes.clone();
        unique.dedup();
        assert_eq!(codes, unique);
        assert!(codes.contains(&"HG601") && codes.contains(&"HG501"));
    }

    #[test]
    fn every_rule_explains_itself_in_four_sections() {
        for rule in all() {
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
        for rule in all() {
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

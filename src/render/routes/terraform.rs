//! Terraform resource names shared by the clouds' `.tf.json` files (their strings are escaped by
//! `render::terraform`, the one Terraform JSON writer).

use super::RenderError;
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

/// A Terraform resource name for a node: `pods_` and the node name with every character other
/// than a letter, digit or `_` written as `_` (Terraform's convention; `-` would be allowed).
pub(super) fn terraform_name(node: &str) -> String {
    crate::render::terraform::identifier(&format!("pods_{}", node.replace('-', "_")))
}

/// Inserts a resource under a name no other node took.
pub(super) fn unique_insert<T>(
    map: &mut BTreeMap<String, T>,
    name: String,
    value: T,
) -> Result<(), RenderError> {
    match map.entry(name) {
        Entry::Occupied(entry) => Err(RenderError(format!(
            "routes: two nodes would share the Terraform resource name `{}`",
            entry.key()
        ))),
        Entry::Vacant(entry) => {
            entry.insert(value);
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::*;

    #[test]
    fn terraform_strings_escape_template_sequences() {
        let yaml = spec_yaml("host-gw", AZURE, AZURE_NODE, LINUX_AND_WINDOWS, "")
            .replace("demo-rg", "\"rg-${oops}\"");
        let files = rendered(&yaml);
        let terraform = json(&files["routes/azure.tf.json"]);
        assert_eq!(
            terraform["resource"]["azurerm_route"]["pods_win_0"]["resource_group_name"],
            "rg-$${oops}"
        );
    }
}

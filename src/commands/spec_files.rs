//! Which files `plan` checks: the files it is given, and under a directory given to it, every
//! YAML file that says it is a hybridgen spec (as ruff and yamllint search a directory).

use super::complain;
use std::path::{Path, PathBuf};

/// The given paths with each directory replaced by the specs under it, in path order, so that a
/// run's output is the same on every machine; other YAML there is skipped without a word. Hidden
/// directories (`.git`) and symbolic links are not searched: a link in a repository can point
/// anywhere on the machine. A directory that cannot be read, or holds no spec, is reported and
/// added to `unreadable`.
pub(crate) fn expand(paths: &[PathBuf], unreadable: &mut Vec<String>) -> Vec<PathBuf> {
    let mut inputs = Vec::new();
    for path in paths {
        if path != Path::new("-") && path.is_dir() {
            let before = inputs.len();
            if let Err(error) = search(path, &mut inputs) {
                complain(&format!("cannot search `{}`: {error}", shown(path)));
                unreadable.push(path.display().to_string());
            } else if inputs.len() == before {
                complain(&format!(
                    "no spec under `{}`: a spec is a .yaml or .yml file that declares \
                     `apiVersion: hybridgen/v1` or carries hybridgen's schema modeline",
                    shown(path)
                ));
                unreadable.push(path.display().to_string());
            }
        } else {
            inputs.push(path.clone());
        }
    }
    inputs
}

fn search(directory: &Path, inputs: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<std::fs::DirEntry> =
        std::fs::read_dir(directory)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let kind = entry.file_type()?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if kind.is_dir() && !name.starts_with('.') {
            search(&entry.path(), inputs)?;
        } else if kind.is_file() && (name.ends_with(".yaml") || name.ends_with(".yml")) {
            let path = entry.path();
            // A file that cannot be read is kept, so that the check reports it.
            if super::read_input(&path).is_ok_and(|bytes| !is_a_spec(&bytes)) {
                continue;
            }
            inputs.push(path);
        }
    }
    Ok(())
}

fn shown(path: &Path) -> String {
    crate::escape::inline(&path.display().to_string())
}

/// Whether a file says it is a hybridgen spec: a line `apiVersion: hybridgen/...` (any quoting,
/// or JSON's `"apiVersion": "hybridgen/..."`), or hybridgen's schema modeline, the line `hybridgen
/// init` writes for editors. Read as text, so that a spec whose YAML is broken, or whose
/// `apiVersion` key is misspelt beside the modeline, is still checked, and reported.
pub(crate) fn is_a_spec(bytes: &[u8]) -> bool {
    String::from_utf8_lossy(bytes)
        .lines()
        .any(|line| declares_the_api_version(line) || names_the_schema(line))
}

fn declares_the_api_version(line: &str) -> bool {
    let key = line.trim_start_matches([' ', '\t', '{', ',']);
    let Some(rest) = ["apiVersion", "\"apiVersion\"", "'apiVersion'"]
        .iter()
        .find_map(|name| key.strip_prefix(name))
    else {
        return false;
    };
    rest.trim_start().strip_prefix(':').is_some_and(|value| {
        value
            .trim_start()
            .trim_start_matches(['"', '\''])
            .starts_with("hybridgen/")
    })
}

/// yaml-language-server's modeline, `# yaml-language-server: $schema=<URL or path>`
/// (https://github.com/redhat-developer/yaml-language-server#using-inlined-schema), whose schema is
/// hybridgen's: `./hybridgen.schema.json`, or a URL naming hybridgen.
fn names_the_schema(line: &str) -> bool {
    line.trim_start()
        .strip_prefix('#')
        .and_then(|comment| comment.trim_start().strip_prefix("yaml-language-server:"))
        .and_then(|setting| setting.trim_start().strip_prefix("$schema="))
        .is_some_and(|schema| schema.to_ascii_lowercase().contains("hybridgen"))
}

#[cfg(test)]
mod tests {
    use super::is_a_spec;

    #[test]
    fn specs_declare_a_hybridgen_api_version_and_other_yaml_does_not() {
        for spec in [
            "apiVersion: hybridgen/v1\nkind: Cluster\n",
            "# a comment\napiVersion: \"hybridgen/v1\"\n",
            "kind: Cluster\napiVersion: 'hybridgen/v2'\n",
            "{\"apiVersion\": \"hybridgen/v1\", \"kind\": \"Cluster\"}",
            "apiVersion: hybridgen/v1\nnodes: [\n",
        ] {
            assert!(is_a_spec(spec.as_bytes()), "{spec}");
        }
        for other in [
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n",
            "apiVersion: v1\nkind: ConfigMap\ndata:\n  note: apiVersion hybridgen/v1\n",
            "",
            "apiVersionX: hybridgen/v1\n",
            "# yaml-language-server: $schema=https://json.schemastore.org/kustomization.json\n",
            "# see ./hybridgen.schema.json\napiVersion: v1\n",
        ] {
            assert!(!is_a_spec(other.as_bytes()), "{other}");
        }
    }

    #[test]
    fn a_file_with_the_schema_modeline_is_a_spec_whatever_its_api_version_key() {
        for spec in [
            "# yaml-language-server: $schema=./hybridgen.schema.json\napiVersoin: hybridgen/v1\n",
            "#yaml-language-server: $schema=https://example.org/hybridgen/v0.1.0/schemas/hybridgen.schema.json\n",
            "kind: Cluster\n  # yaml-language-server: $schema=../HybridGen.schema.json\nnodes: [\n",
        ] {
            assert!(is_a_spec(spec.as_bytes()), "{spec}");
        }
    }
}

//! The mistakes a newcomer makes in their first hour with a spec, each made in the current
//! example: every one gives exactly one finding, on the line of the mistake, and its help —
//! applied as written, by the rules below — gives a spec that plans clean. A help that leads to
//! the next error fails here.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const EXAMPLE: &str = "examples/kubeadm-1.33-vxlan-windows.yaml";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One mistake: the text replaced in the example, and the finding it must give.
struct Mistake {
    name: &'static str,
    from: &'static str,
    to: &'static str,
    code: &'static str,
}

const MISTAKES: &[Mistake] = &[
    Mistake {
        name: "a key dedented out of its block",
        from: "  backend: vxlan\n",
        to: "backend: vxlan\n",
        code: "HG001",
    },
    Mistake {
        name: "a key indented one space too far",
        from: "  vni: 4096 ",
        to: "   vni: 4096",
        code: "HG001",
    },
    Mistake {
        name: "a tab for indentation",
        from: "  port: 4789",
        to: "\tport: 4789",
        code: "HG001",
    },
    Mistake {
        name: "no space after a colon",
        from: "  backend: vxlan",
        to: "  backend:vxlan",
        code: "HG001",
    },
    Mistake {
        name: "an unclosed quote",
        from: "version: \"1.33.4\"",
        to: "version: \"1.33.4",
        code: "HG001",
    },
    Mistake {
        name: "a misspelt role",
        from: "roles: [worker]\n    address: 192.168.10.20",
        to: "roles: [wroker]\n    address: 192.168.10.20",
        code: "HG002",
    },
    Mistake {
        name: "an operating system in capitals",
        from: "os: windows\n    roles: [worker]\n    address: 192.168.10.30",
        to: "os: Windows\n    roles: [worker]\n    address: 192.168.10.30",
        code: "HG002",
    },
    Mistake {
        name: "a field name in another case",
        from: "clusterCidr:",
        to: "clusterCIDR:",
        code: "HG002",
    },
    Mistake {
        name: "a backend in capitals",
        from: "backend: vxlan",
        to: "backend: VXLAN",
        code: "HG002",
    },
    Mistake {
        name: "a quoted number",
        from: "vni: 4096 ",
        to: "vni: \"4096\"",
        code: "HG002",
    },
    Mistake {
        name: "one host subnet without a list",
        from: "  hostSubnets:\n    - 192.168.10.0/24",
        to: "  hostSubnets: 192.168.10.0/24",
        code: "HG002",
    },
    Mistake {
        name: "a misspelt pod subnet mode",
        from: "  serviceCidr:",
        to: "  podCidrs: controler\n  serviceCidr:",
        code: "HG002",
    },
    Mistake {
        name: "a node address with its prefix length",
        from: "address: 192.168.10.20",
        to: "address: 192.168.10.20/24",
        code: "HG004",
    },
    Mistake {
        name: "a network written from one of its addresses",
        from: "clusterCidr: 10.244.0.0/16",
        to: "clusterCidr: 10.244.1.0/16",
        code: "HG004",
    },
    Mistake {
        name: "an address with a leading zero",
        from: "address: 192.168.10.20",
        to: "address: 192.168.010.20",
        code: "HG004",
    },
    Mistake {
        name: "the kind in lower case",
        from: "kind: Cluster",
        to: "kind: cluster",
        code: "HG003",
    },
    Mistake {
        name: "Linux's VXLAN port",
        from: "port: 4789    ",
        to: "port: 8472    ",
        code: "HG202",
    },
    Mistake {
        name: "Linux's VNI",
        from: "vni: 4096 ",
        to: "vni: 1    ",
        code: "HG201",
    },
];

/// `hybridgen plan --format json` of a spec text: its findings.
fn findings(dir: &Path, text: &str) -> Vec<Value> {
    let path = dir.join("spec.yaml");
    std::fs::write(&path, text).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_hybridgen"))
        .args(["plan", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    report["diagnostics"].as_array().unwrap().clone()
}

/// The first backticked text of a help.
fn quoted(help: &str) -> Option<&str> {
    help.split('`').nth(1)
}

/// The spec with a finding's help applied as written. Each form of help the walk meets is one
/// rule here; a help in any other form fails the test.
fn applied(text: &str, finding: &Value) -> String {
    let help = finding["help"].as_str().unwrap();
    let line = finding["line"].as_u64().unwrap() as usize - 1;
    let (column, end) = (
        finding["column"].as_u64().unwrap() as usize - 1,
        finding["endColumn"].as_u64().unwrap() as usize - 1,
    );
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let indent_to = |lines: &mut Vec<String>, index: usize, spaces: usize| {
        let body = lines[index].trim_start_matches([' ', '\t']).to_string();
        lines[index] = format!("{}{body}", " ".repeat(spaces));
    };
    let number = |after: &str| -> usize {
        help.split(after)
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    if help.starts_with("indent `") && help.contains(" by ") {
        indent_to(&mut lines, line, number(" by "));
    } else if help.starts_with("start `") && help.contains("at the beginning of its line") {
        indent_to(&mut lines, line, 0);
    } else if help.starts_with("indent line ") {
        indent_to(&mut lines, number("indent line ") - 1, number(" with "));
    } else if [
        "did you mean `",
        "write `",
        "write the network address: `",
        "write it without leading zeros: `",
        "drop the prefix length: `",
    ]
    .iter()
    .any(|form| help.starts_with(form))
    {
        // The text the finding underlines becomes the quoted text.
        let replacement = quoted(help).unwrap();
        let current = &lines[line];
        lines[line] = format!("{}{replacement}{}", &current[..column], &current[end..]);
    } else if [
        "set `",
        "close the quote: `",
        "remove the quotes: `",
        "write it as a list: `",
    ]
    .iter()
    .any(|form| help.starts_with(form))
    {
        // `key: value` replaces the key and its value on the line that holds the key.
        let replacement = quoted(help).unwrap();
        let key = replacement.split(':').next().unwrap();
        let index = (0..lines.len())
            .find(|&i| {
                lines[i].trim_start().starts_with(&format!("{key}:"))
                    && (i == line || help.starts_with("set `"))
            })
            .unwrap_or_else(|| panic!("no line holds `{key}:` for {help:?}"));
        let current = lines[index].clone();
        let start = current.find(&format!("{key}:")).unwrap();
        let comment = current[start..]
            .find(" #")
            .map_or(current.len(), |at| start + at);
        lines[index] = format!("{}{replacement}{}", &current[..start], &current[comment..]);
    } else {
        panic!("a help in a form the walk cannot apply: {help:?}");
    }
    let mut fixed = lines.join("\n");
    fixed.push('\n');
    fixed
}

#[test]
fn every_first_hour_mistake_gives_one_finding_whose_help_plans_clean() {
    let dir = root().join("target/tmp/first-hour");
    std::fs::create_dir_all(&dir).unwrap();
    let example = std::fs::read_to_string(root().join(EXAMPLE)).unwrap();
    assert!(
        findings(&dir, &example).is_empty(),
        "the example plans clean"
    );
    for mistake in MISTAKES {
        assert!(
            example.contains(mistake.from),
            "{}: {:?}",
            mistake.name,
            mistake.from
        );
        let broken = example.replacen(mistake.from, mistake.to, 1);
        let found = findings(&dir, &broken);
        assert_eq!(found.len(), 1, "{}: {found:#?}", mistake.name);
        let finding = &found[0];
        assert_eq!(
            finding["code"], mistake.code,
            "{}: {finding:#?}",
            mistake.name
        );
        // On the line of the mistake (the first line it changed).
        let changed = broken
            .lines()
            .zip(example.lines())
            .position(|(now, before)| now != before)
            .unwrap()
            + 1;
        let line = finding["line"].as_u64().unwrap() as usize;
        assert_eq!(line, changed, "{}: {finding:#?}", mistake.name);
        let fixed = applied(&broken, finding);
        let after = findings(&dir, &fixed);
        assert!(
            after.is_empty(),
            "{}: the help {:?}, applied, leaves {after:#?}",
            mistake.name,
            finding["help"]
        );
    }
}

//! The clouds hybridgen writes pod routes for, one row each: the settings of the provider's
//! section, the node identity its routes name, each identifier's grammar, the default route-table
//! limit and how a node is made to forward. Rules and help texts read these rows, so adding a
//! cloud is a spec section, one row here and one renderer under `render/routes/`.

use crate::spec::{Cloud, NodeCloud, Provider, Spec};

/// What a cloud identifier must look like, with the page that defines it.
#[derive(Debug)]
pub struct Grammar {
    /// The rule in words, for messages: "`i-` and 8 or 17 lower-case hex digits".
    pub rule: &'static str,
    /// A value that fits, for help texts.
    pub example: &'static str,
    pub check: fn(&str) -> bool,
    pub source: &'static str,
}

/// A setting of the provider's section (`cloud.aws.region`).
#[derive(Debug)]
pub struct Setting {
    pub field: &'static str,
    /// Whether the host-gw route commands use it (HG404 requires those).
    pub routes_need: bool,
    pub grammar: &'static Grammar,
    pub read: fn(&Cloud) -> Option<&str>,
}

/// The node field a cloud's routes name the node by (`nodes[].cloud.instanceId`).
#[derive(Debug)]
pub struct NodeIdentity {
    pub field: &'static str,
    pub grammar: &'static Grammar,
    pub read: fn(&NodeCloud) -> Option<&str>,
}

/// One cloud's facts.
#[derive(Debug)]
pub struct CloudTraits {
    pub provider: Provider,
    /// Whether the spec has the provider's section (`cloud.aws`).
    pub has_section: fn(&Cloud) -> bool,
    pub settings: &'static [Setting],
    pub node_identity: NodeIdentity,
    /// Routes one route table holds by default.
    pub route_limit: usize,
    /// How each node is allowed to forward for its pod subnet, completing "apply the routes, and …".
    pub forwarding: &'static str,
    /// The link-local services a Windows node reaches through routes on its adapter, which
    /// creating the HNS network drops (kubernetes-sigs/sig-windows-tools#36): kube-proxy's start
    /// script on the HostProcess path restores them and keeps checking.
    pub link_local_routes: &'static [&'static str],
}

impl CloudTraits {
    /// The settings host-gw routes need, for help texts: "`region` and `routeTableId`".
    pub fn required_settings(&self) -> String {
        let fields: Vec<&str> = self
            .settings
            .iter()
            .filter(|setting| setting.routes_need)
            .map(|setting| setting.field)
            .collect();
        format!("`{}`", fields.join("` and `"))
    }
}

/// A cloud identifier as the spec writes it.
#[derive(Debug)]
pub struct Written<'a> {
    provider: &'static str,
    /// The field's name in its section: `region`, `instanceId`.
    name: &'static str,
    /// The node that gives it, for a node's field.
    node: Option<usize>,
    pub value: &'a str,
    pub grammar: &'static Grammar,
}

impl Written<'_> {
    pub fn is_well_formed(&self) -> bool {
        (self.grammar.check)(self.value)
    }

    /// The field as a user names it: `cloud.aws.region`, `cloud.instanceId`. Made only for a
    /// message, as is [`Self::pointer`]: most identifiers are well formed and never shown.
    pub fn field(&self) -> String {
        match self.node {
            Some(_) => format!("cloud.{}", self.name),
            None => format!("cloud.{}.{}", self.provider, self.name),
        }
    }

    /// Where it is: `/cloud/aws/region`, `/nodes/2/cloud/instanceId`.
    pub fn pointer(&self) -> String {
        match self.node {
            Some(index) => format!("/nodes/{index}/cloud/{}", self.name),
            None => format!("/cloud/{}/{}", self.provider, self.name),
        }
    }
}

/// Every identifier of this cloud the spec gives: the provider's section and each node's field,
/// whichever provider and backend are chosen.
pub fn written<'a>(row: &CloudTraits, spec: &'a Spec) -> Vec<Written<'a>> {
    let provider = row.provider.as_str();
    let mut found = Vec::new();
    if let Some(section) = spec.cloud.as_ref() {
        for setting in row.settings {
            if let Some(value) = (setting.read)(section) {
                found.push(Written {
                    provider,
                    name: setting.field,
                    node: None,
                    value,
                    grammar: setting.grammar,
                });
            }
        }
    }
    let identity = &row.node_identity;
    for (index, node) in spec.nodes.iter().enumerate() {
        if let Some(value) = node.cloud.as_ref().and_then(identity.read) {
            found.push(Written {
                provider,
                name: identity.field,
                node: Some(index),
                value,
                grammar: identity.grammar,
            });
        }
    }
    found
}

/// Whether a cloud CLI would read the value as something other than itself: the AWS CLI loads
/// `file://` and `fileb://` parameters from the file and version 1 fetches `http(s)://` ones
/// (https://docs.aws.amazon.com/cli/v1/userguide/cli-usage-parameters-file.html), the Azure CLI
/// loads `@<path>`, and every one of them reads a leading `-` as an option. No grammar above
/// accepts such a value.
pub fn cli_would_load(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    value.starts_with(['-', '@'])
        || ["file://", "fileb://", "http://", "https://"]
            .iter()
            .any(|scheme| lower.starts_with(scheme))
}

/// The row of a provider; none for `provider: none`, which routes nothing.
pub fn traits(provider: Provider) -> Option<&'static CloudTraits> {
    CLOUDS.iter().find(|row| row.provider == provider)
}

pub static CLOUDS: [CloudTraits; 3] = [
    CloudTraits {
        provider: Provider::Aws,
        has_section: |cloud| cloud.aws.is_some(),
        settings: &[
            Setting {
                field: "region",
                routes_need: true,
                grammar: &AWS_REGION,
                read: |cloud| cloud.aws.as_ref()?.region.as_deref(),
            },
            Setting {
                field: "routeTableId",
                routes_need: true,
                grammar: &AWS_ROUTE_TABLE_ID,
                read: |cloud| cloud.aws.as_ref()?.route_table_id.as_deref(),
            },
        ],
        node_identity: NodeIdentity {
            field: "instanceId",
            grammar: &AWS_INSTANCE_ID,
            read: |cloud| cloud.instance_id.as_deref(),
        },
        // Amazon VPC quotas, "Routes per route table": 500 (raised from 50 in 2025).
        route_limit: 500,
        forwarding: "turn off each instance's source/destination check",
        // The routes AWS Windows AMIs add (EC2Launch v2 `addRoutes`,
        // https://docs.aws.amazon.com/AWSEC2/latest/WindowsGuide/ec2launch-v2-settings.html), one
        // per managed service AWS lists in the AppStream 2.0 (WorkSpaces Applications)
        // administration guide, "Network Exclusions": instance metadata (.254), KMS activation
        // (.250, .251), the NVIDIA GRID license service (.249), Amazon Time Sync (.123) and DNS
        // (.253).
        link_local_routes: &[
            "169.254.169.254/32",
            "169.254.169.250/32",
            "169.254.169.251/32",
            "169.254.169.249/32",
            "169.254.169.123/32",
            "169.254.169.253/32",
        ],
    },
    CloudTraits {
        provider: Provider::Gce,
        has_section: |cloud| cloud.gce.is_some(),
        settings: &[
            Setting {
                field: "project",
                routes_need: true,
                grammar: &GCE_PROJECT,
                read: |cloud| cloud.gce.as_ref()?.project.as_deref(),
            },
            Setting {
                field: "network",
                routes_need: true,
                grammar: &GCE_NAME,
                read: |cloud| cloud.gce.as_ref()?.network.as_deref(),
            },
        ],
        node_identity: NodeIdentity {
            field: "zone",
            grammar: &GCE_ZONE,
            read: |cloud| cloud.zone.as_deref(),
        },
        // Google Cloud VPC quotas, "Routes": 250 static routes per project by default.
        route_limit: 250,
        forwarding: "create each instance with `canIpForward`",
        // The metadata server (Kubernetes' own Windows node script restores only this one:
        // kubernetes/kubernetes `cluster/gce/windows/k8s-node-setup.psm1`).
        link_local_routes: &["169.254.169.254/32"],
    },
    CloudTraits {
        provider: Provider::Azure,
        has_section: |cloud| cloud.azure.is_some(),
        settings: &[
            Setting {
                field: "resourceGroup",
                routes_need: true,
                grammar: &AZURE_RESOURCE_GROUP,
                read: |cloud| cloud.azure.as_ref()?.resource_group.as_deref(),
            },
            Setting {
                field: "routeTableName",
                routes_need: true,
                grammar: &AZURE_NETWORK_NAME,
                read: |cloud| cloud.azure.as_ref()?.route_table_name.as_deref(),
            },
            Setting {
                field: "location",
                routes_need: false,
                grammar: &AZURE_LOCATION,
                read: |cloud| cloud.azure.as_ref()?.location.as_deref(),
            },
        ],
        node_identity: NodeIdentity {
            field: "nic",
            grammar: &AZURE_NETWORK_NAME,
            read: |cloud| cloud.nic.as_deref(),
        },
        // Azure networking limits, "Routes per route table": 400.
        route_limit: 400,
        forwarding: "enable IP forwarding on each node's NIC",
        // Instance Metadata Service
        // (https://learn.microsoft.com/en-us/azure/virtual-machines/instance-metadata-service);
        // 168.63.129.16 is no link-local address and follows the default route.
        link_local_routes: &["169.254.169.254/32"],
    },
];

// The grammars. Each is ASCII only and none can start with `-`, `@`, `file://`, `fileb://` or
// `http(s)://`, so no cloud CLI reads a value as an option or loads it from a file or a URL.

const AWS_RESOURCE_IDS: &str =
    "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/resource-ids.html";

static AWS_INSTANCE_ID: Grammar = Grammar {
    rule: "`i-` and 8 or 17 lower-case hex digits",
    example: "i-0a1b2c3d4e5f60718",
    check: |value| aws_resource_id(value, "i-"),
    source: AWS_RESOURCE_IDS,
};

static AWS_ROUTE_TABLE_ID: Grammar = Grammar {
    rule: "`rtb-` and 8 or 17 lower-case hex digits",
    example: "rtb-0a1b2c3d4e5f60718",
    check: |value| aws_resource_id(value, "rtb-"),
    source: AWS_RESOURCE_IDS,
};

static AWS_REGION: Grammar = Grammar {
    rule: "lower-case words joined by `-`, ending in a number (`us-east-1`, `us-gov-west-1`)",
    example: "us-east-1",
    check: aws_region,
    source: "https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-regions.html",
};

static GCE_PROJECT: Grammar = Grammar {
    rule: "6 to 30 lower-case letters, digits or `-`, starting with a letter and not ending with `-`",
    example: "my-project",
    check: |value| (6..=30).contains(&value.len()) && gce_name(value),
    source: "https://cloud.google.com/resource-manager/docs/creating-managing-projects",
};

static GCE_NAME: Grammar = Grammar {
    rule: "1 to 63 lower-case letters, digits or `-`, starting with a letter and not ending with `-` (RFC 1035)",
    example: "default",
    check: |value| value.len() <= 63 && gce_name(value),
    source: "https://cloud.google.com/compute/docs/naming-resources",
};

static GCE_ZONE: Grammar = Grammar {
    rule: "a region (`us-central1`) and a zone letter: `us-central1-a`",
    example: "us-central1-a",
    check: gce_zone,
    source: "https://cloud.google.com/compute/docs/regions-zones",
};

const AZURE_NAMING_RULES: &str =
    "https://learn.microsoft.com/en-us/azure/azure-resource-manager/management/resource-name-rules";

static AZURE_RESOURCE_GROUP: Grammar = Grammar {
    rule: "1 to 90 ASCII letters, digits, `_`, `-`, `.` or parentheses, not starting with `-` nor ending with `.`",
    example: "hybrid-rg",
    check: azure_resource_group,
    source: AZURE_NAMING_RULES,
};

static AZURE_NETWORK_NAME: Grammar = Grammar {
    rule: "1 to 80 ASCII letters, digits, `_`, `-` or `.`, starting with a letter or digit and ending with a letter, digit or `_`",
    example: "hybrid-pods",
    check: azure_network_name,
    source: AZURE_NAMING_RULES,
};

static AZURE_LOCATION: Grammar = Grammar {
    rule: "lower-case letters and digits (`eastus2`, as `az account list-locations` prints them)",
    example: "eastus2",
    check: |value| only(value, |b| b.is_ascii_lowercase() || b.is_ascii_digit()),
    source: "https://learn.microsoft.com/en-us/cli/azure/account#az-account-list-locations",
};

/// Whether `text` is not empty and every byte of it is `allowed`.
fn only(text: &str, allowed: fn(&u8) -> bool) -> bool {
    !text.is_empty() && text.bytes().all(|b| allowed(&b))
}

fn lower_hex(text: &str) -> bool {
    text.bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// An EC2 resource ID: the prefix and 8 hex digits (older resources) or 17 (since 2016).
fn aws_resource_id(value: &str, prefix: &str) -> bool {
    value
        .strip_prefix(prefix)
        .is_some_and(|digits| matches!(digits.len(), 8 | 17) && lower_hex(digits))
}

/// `^[a-z]{2}(-[a-z]+)+-[0-9]+$`.
fn aws_region(value: &str) -> bool {
    let parts: Vec<&str> = value.split('-').collect();
    let Some((number, words)) = parts.split_last() else {
        return false;
    };
    words.len() >= 2
        && words[0].len() == 2
        && words.iter().all(|word| only(word, u8::is_ascii_lowercase))
        && only(number, u8::is_ascii_digit)
}

/// `^[a-z]([-a-z0-9]*[a-z0-9])?$`.
fn gce_name(value: &str) -> bool {
    value.starts_with(|c: char| c.is_ascii_lowercase())
        && !value.ends_with('-')
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// `^[a-z]+(-[a-z]+[0-9]+)-[a-z]$`: a region such as `northamerica-northeast1`, then the zone.
fn gce_zone(value: &str) -> bool {
    let Some((region, letter)) = value.rsplit_once('-') else {
        return false;
    };
    let Some((area, place)) = region.split_once('-') else {
        return false;
    };
    let digits = place.trim_start_matches(|c: char| c.is_ascii_lowercase());
    letter.len() == 1
        && only(letter, u8::is_ascii_lowercase)
        && only(area, u8::is_ascii_lowercase)
        && digits.len() < place.len()
        && only(digits, u8::is_ascii_digit)
}

fn azure_resource_group(value: &str) -> bool {
    (1..=90).contains(&value.len())
        && !value.starts_with('-')
        && !value.ends_with('.')
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'(' | b')'))
}

fn azure_network_name(value: &str) -> bool {
    (1..=80).contains(&value.len())
        && value.starts_with(|c: char| c.is_ascii_alphanumeric())
        && value.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values a cloud CLI would read as a file, a URL or an option.
    const LOADERS: [&str; 8] = [
        "FILE:///home/admin/.aws/credentials",
        "file:///home/admin/.aws/credentials",
        "fileb:///etc/shadow",
        "https://attacker.example/x",
        "http://attacker.example/x",
        "@/home/admin/.azure/accessTokens.json",
        "-h",
        "--debug",
    ];

    fn every_grammar() -> Vec<&'static Grammar> {
        CLOUDS
            .iter()
            .flat_map(|row| {
                row.settings
                    .iter()
                    .map(|setting| setting.grammar)
                    .chain([row.node_identity.grammar])
            })
            .collect()
    }

    #[test]
    fn no_grammar_accepts_a_value_a_cli_would_load() {
        for grammar in every_grammar() {
            for value in LOADERS {
                assert!(!(grammar.check)(value), "{} accepts {value}", grammar.rule);
                assert!(cli_would_load(value), "{value}");
            }
            assert!((grammar.check)(grammar.example), "{}", grammar.example);
        }
    }

    #[test]
    fn identifiers_of_each_cloud() {
        let aws_instance = AWS_INSTANCE_ID.check;
        assert!(aws_instance("i-0a1b2c3d") && aws_instance("i-0a1b2c3d4e5f60718"));
        assert!(
            !aws_instance("i-0abc") && !aws_instance("i-0A1B2C3D") && !aws_instance("i-0a1b2c3d4")
        );
        assert!((AWS_ROUTE_TABLE_ID.check)("rtb-0a1b2c3d"));
        assert!(!(AWS_ROUTE_TABLE_ID.check)("i-0a1b2c3d"));
        for region in [
            "us-east-1",
            "us-gov-west-1",
            "ap-southeast-3",
            "eu-central-2",
        ] {
            assert!(aws_region(region), "{region}");
        }
        for region in ["us-east", "useast1", "US-EAST-1", "us--1", "us-east-1 "] {
            assert!(!aws_region(region), "{region}");
        }
        for zone in [
            "us-central1-a",
            "northamerica-northeast1-b",
            "me-central2-c",
        ] {
            assert!(gce_zone(zone), "{zone}");
        }
        for zone in [
            "us-central1",
            "z-a",
            "us-central-a",
            "us-central1-ab",
            "-us-central1-a",
        ] {
            assert!(!gce_zone(zone), "{zone}");
        }
        assert!(!(GCE_PROJECT.check)("p") && !(GCE_PROJECT.check)("my-project-"));
        assert!((AZURE_RESOURCE_GROUP.check)("rg_(prod).1"));
        assert!(!(AZURE_RESOURCE_GROUP.check)("rg.") && !(AZURE_RESOURCE_GROUP.check)(""));
        assert!((AZURE_NETWORK_NAME.check)("win-0-nic") && (AZURE_NETWORK_NAME.check)("n_"));
        assert!(!(AZURE_NETWORK_NAME.check)("_n") && !(AZURE_NETWORK_NAME.check)("n-"));
    }

    #[test]
    fn every_provider_but_none_has_its_row() {
        for provider in [Provider::Aws, Provider::Gce, Provider::Azure] {
            assert_eq!(traits(provider).map(|row| row.provider), Some(provider));
        }
        assert!(traits(Provider::None).is_none());
    }
}

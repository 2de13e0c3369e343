//! Strict IPv4 address and CIDR parsing: no host bits, no leading zeros, no IPv6, no shorthand.

use ipnet::Ipv4Net;
use std::net::Ipv4Addr;

/// Why a written value is not acceptable, with the fix. Boxed: the plan holds a [`Parsed`] slot
/// for each node's address and pinned subnet, nearly always `Ok`, and a slot is 16 bytes with
/// the box where it was 48 without (4 MB at 65,536 nodes).
///
/// [`Parsed`]: super::Parsed
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError(Box<Problem>);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub problem: String,
    pub help: String,
}

impl InputError {
    pub(crate) fn new(problem: impl Into<String>, help: impl Into<String>) -> Self {
        Self(Box::new(Problem {
            problem: problem.into(),
            help: help.into(),
        }))
    }
}

impl std::ops::Deref for InputError {
    type Target = Problem;

    fn deref(&self) -> &Problem {
        &self.0
    }
}

/// Parses `a.b.c.d/len`, refusing anything Kubernetes' strict parser would refuse.
pub fn parse_cidr(text: &str) -> Result<Ipv4Net, InputError> {
    if text.contains(':') {
        return Err(ipv6(text));
    }
    let Some((address_text, prefix_text)) = text.split_once('/') else {
        let help = match parse_ip(text) {
            Ok(_) => format!("add the prefix length, e.g. `{text}/24`"),
            Err(_) => "write an IPv4 network as `a.b.c.d/len`, e.g. `10.244.0.0/16`".into(),
        };
        return Err(InputError::new(
            format!("`{text}` has no prefix length"),
            help,
        ));
    };
    let address = parse_ip(address_text)?;
    let prefix = parse_decimal(prefix_text)
        .filter(|prefix| *prefix <= 32)
        .ok_or_else(|| {
            InputError::new(
                format!("`{prefix_text}` is not a prefix length between 0 and 32"),
                "write the prefix length as a number from 0 to 32 without leading zeros",
            )
        })?;
    let network = Ipv4Net::new(address, prefix as u8).map_err(|_| {
        InputError::new(
            format!("`{text}` is not a valid network"),
            "check the prefix length",
        )
    })?;
    if network.network() != address {
        let canonical = network.trunc();
        return Err(InputError::new(
            format!("`{text}` has host bits set after the /{prefix} prefix"),
            format!("write the network address: `{canonical}`"),
        ));
    }
    Ok(network)
}

/// Parses a dotted-quad IPv4 address, refusing leading zeros (which some parsers read as octal).
pub fn parse_ip(text: &str) -> Result<Ipv4Addr, InputError> {
    // The standard library takes the same dotted quads (four decimal octets, no leading zeros) at
    // a tenth of the cost; what it refuses is explained the long way.
    text.parse().or_else(|_| parse_ip_explained(text))
}

/// [`parse_ip`], with the reason for each kind of text it refuses.
fn parse_ip_explained(text: &str) -> Result<Ipv4Addr, InputError> {
    if text.contains(':') {
        return Err(ipv6(text));
    }
    // An address written with its network's prefix length, as `ip addr` shows it.
    if let Some((address, _)) = text.split_once('/') {
        if let Ok(address) = parse_ip(address) {
            return Err(InputError::new(
                format!("`{text}` is a network, but an address is expected here"),
                format!("drop the prefix length: `{address}`"),
            ));
        }
    }
    let octets: Vec<&str> = text.split('.').collect();
    let invalid = || {
        InputError::new(
            format!("`{text}` is not an IPv4 address"),
            "write four numbers from 0 to 255 separated by dots, e.g. `192.168.10.10`",
        )
    };
    if octets.len() != 4 {
        return Err(invalid());
    }
    let mut parsed = [0u8; 4];
    for (slot, octet) in parsed.iter_mut().zip(&octets) {
        if octet.len() > 1 && octet.starts_with('0') && octet.bytes().all(|b| b.is_ascii_digit()) {
            let canonical = octets
                .iter()
                .map(|part| part.trim_start_matches('0'))
                .map(|part| if part.is_empty() { "0" } else { part })
                .collect::<Vec<_>>()
                .join(".");
            return Err(InputError::new(
                format!("`{text}` has an octet with a leading zero"),
                format!("write it without leading zeros: `{canonical}`"),
            ));
        }
        *slot = parse_decimal(octet)
            .and_then(|value| u8::try_from(value).ok())
            .ok_or_else(invalid)?;
    }
    Ok(Ipv4Addr::from(parsed))
}

/// A plain decimal number with no sign and no leading zeros.
fn parse_decimal(text: &str) -> Option<u32> {
    let canonical = !text.is_empty()
        && text.len() <= 10
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    if canonical { text.parse().ok() } else { None }
}

fn ipv6(text: &str) -> InputError {
    InputError::new(
        format!("`{text}` is IPv6, but hybridgen plans IPv4 only"),
        "use an IPv4 range: flannel on Windows has no IPv6 support",
    )
}

/// The number of addresses in a network, as u64 so that a /0 does not overflow.
pub fn size(network: &Ipv4Net) -> u64 {
    1u64 << (32 - u32::from(network.prefix_len()))
}

/// Writes `ip` as `10.244.0.1`, digit by digit: the report of a large cluster writes two
/// addresses a node, and `Display` takes each octet through the formatting machinery.
pub fn push_ip(out: &mut String, ip: Ipv4Addr) {
    for (index, octet) in ip.octets().into_iter().enumerate() {
        if index > 0 {
            out.push('.');
        }
        push_small_number(out, octet);
    }
}

/// Writes `network` as `10.244.0.0/24`.
pub fn push_net(out: &mut String, network: &Ipv4Net) {
    push_ip(out, network.network());
    out.push('/');
    push_small_number(out, network.prefix_len());
}

fn push_small_number(out: &mut String, number: u8) {
    if number >= 100 {
        out.push(char::from(b'0' + number / 100));
    }
    if number >= 10 {
        out.push(char::from(b'0' + number / 10 % 10));
    }
    out.push(char::from(b'0' + number % 10));
}

/// The address `index` places after the network address, if the network holds it.
pub fn nth(network: &Ipv4Net, index: u64) -> Option<Ipv4Addr> {
    (index < size(network)).then(|| Ipv4Addr::from(u32::from(network.network()) + index as u32))
}

/// Whether two networks share any address (CIDR blocks either nest or are disjoint).
pub fn overlaps(a: &Ipv4Net, b: &Ipv4Net) -> bool {
    a.contains(&b.network()) || b.contains(&a.network())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_networks_are_written_as_display_writes_them() {
        for octet in 0..=255u8 {
            for ip in [
                Ipv4Addr::new(octet, 0, 9, 255),
                Ipv4Addr::new(10, octet, 100, 1),
                Ipv4Addr::new(192, 168, octet, 99),
                Ipv4Addr::new(1, 10, 200, octet),
            ] {
                let mut written = String::from("at ");
                push_ip(&mut written, ip);
                assert_eq!(written, format!("at {ip}"));
                let network = Ipv4Net::new(ip, octet % 33).unwrap();
                let mut written = String::new();
                push_net(&mut written, &network);
                assert_eq!(
                    written,
                    format!("{}/{}", network.network(), network.prefix_len())
                );
            }
        }
    }

    fn problem(text: &str) -> String {
        parse_cidr(text).unwrap_err().problem.clone()
    }

    #[test]
    fn an_address_with_a_prefix_length_is_told_to_drop_it() {
        let error = parse_ip("10.40.8.11/24").unwrap_err();
        assert_eq!(
            error.problem,
            "`10.40.8.11/24` is a network, but an address is expected here"
        );
        assert_eq!(error.help, "drop the prefix length: `10.40.8.11`");
    }

    #[test]
    fn canonical_networks_parse() {
        assert_eq!(
            parse_cidr("10.244.0.0/16").unwrap().to_string(),
            "10.244.0.0/16"
        );
        assert_eq!(parse_cidr("0.0.0.0/0").unwrap().prefix_len(), 0);
        assert_eq!(parse_cidr("10.0.0.1/32").unwrap().prefix_len(), 32);
    }

    #[test]
    fn host_bits_suggest_the_network() {
        let error = parse_cidr("10.244.1.0/16").unwrap_err();
        assert!(error.help.contains("`10.244.0.0/16`"), "{}", error.help);
    }

    #[test]
    fn malformed_networks_are_refused_with_their_reason() {
        assert!(problem("10.96.0.0").contains("no prefix length"));
        assert!(problem("10.96.0.0/33").contains("prefix length"));
        assert!(problem("10.96.0.0/012").contains("prefix length"));
        assert!(problem("010.96.0.0/12").contains("leading zero"));
        assert!(problem("fd00::/108").contains("IPv6"));
        assert!(problem("10.96.0/12").contains("not an IPv4 address"));
        assert!(problem("10.96.0.256/24").contains("not an IPv4 address"));
        assert!(problem("+10.96.0.0/12").contains("not an IPv4 address"));
    }

    #[test]
    fn sizes_and_indices_do_not_overflow() {
        assert_eq!(size(&parse_cidr("0.0.0.0/0").unwrap()), 1 << 32);
        let service = parse_cidr("10.96.0.0/28").unwrap();
        assert_eq!(nth(&service, 10), Some(Ipv4Addr::new(10, 96, 0, 10)));
        assert_eq!(nth(&service, 16), None);
    }

    #[test]
    fn the_short_way_takes_exactly_what_the_long_way_takes() {
        let octets = [
            "0", "1", "00", "01", "09", "10", "099", "255", "256", "1000", "", "+1", "-1", " 1",
            "1 ", "0x1", "\u{661}",
        ];
        let mut texts = vec![
            "1.2.3.4.5".to_string(),
            "1.2.3".to_string(),
            "1.2.3.4/24".to_string(),
            "::1".to_string(),
        ];
        for a in octets {
            for b in ["0", "01", "256", "", "7"] {
                texts.push(format!("{a}.{b}.2.3"));
                texts.push(format!("10.1.{b}.{a}"));
            }
        }
        for text in &texts {
            assert_eq!(parse_ip(text), parse_ip_explained(text), "{text:?}");
        }
    }

    #[test]
    fn addresses_are_written_as_display_writes_them() {
        let octets = [0u8, 1, 9, 10, 11, 99, 100, 101, 199, 200, 249, 250, 255];
        let mut checked = 0;
        for a in octets {
            for b in octets {
                let ip = Ipv4Addr::new(a, b, 255 - a, b / 2);
                let mut written = String::from("x");
                push_ip(&mut written, ip);
                assert_eq!(written, format!("x{ip}"));
                for prefix in [0, 8, 24, 32] {
                    let network = Ipv4Net::new(ip, prefix).unwrap().trunc();
                    let mut written = String::new();
                    push_net(&mut written, &network);
                    assert_eq!(written, network.to_string());
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 13 * 13 * 4);
    }
}

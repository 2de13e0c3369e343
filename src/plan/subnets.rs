//! Per-node pod subnets: pinned subnets are kept, the others take the next free subnet of the
//! cluster network in node order; and an O(n log n) sweep that finds overlapping networks.

use super::address::size;
use ipnet::Ipv4Net;
use std::net::Ipv4Addr;

/// Assigns a subnet of `mask` bits from `cluster` to every `None` in `pinned`, in order, skipping
/// every block a pinned subnet touches. Nodes left over when the cluster network runs out get
/// `None`. Runs in O(n log n) for n nodes, whatever the size of the cluster network.
pub fn assign(cluster: &Ipv4Net, mask: u8, pinned: &[Option<Ipv4Net>]) -> Vec<Option<Ipv4Net>> {
    let prefix = cluster.prefix_len();
    if mask < prefix || mask > 32 {
        return pinned.to_vec();
    }
    let shift = 32 - u32::from(mask);
    let base = u64::from(u32::from(cluster.network()));
    let blocks = size(cluster) >> shift;
    let mut taken: Vec<(u64, u64)> = pinned
        .iter()
        .flatten()
        .filter_map(|subnet| block_range(cluster, shift, subnet))
        .collect();
    taken.sort_unstable();
    let mut taken = taken.into_iter().peekable();
    let mut next = 0u64;
    pinned
        .iter()
        .map(|pin| {
            if pin.is_some() {
                return *pin;
            }
            while let Some(&(first, last)) = taken.peek() {
                if last < next {
                    taken.next();
                } else if first <= next {
                    next = last + 1;
                    taken.next();
                } else {
                    break;
                }
            }
            if next >= blocks {
                return None;
            }
            let address = u32::try_from(base + (next << shift)).ok()?;
            next += 1;
            Ipv4Net::new(address.into(), mask).ok()
        })
        .collect()
}

/// The first and last block index (of size 2^shift) that `subnet` touches inside `cluster`.
fn block_range(cluster: &Ipv4Net, shift: u32, subnet: &Ipv4Net) -> Option<(u64, u64)> {
    let number = |address: Ipv4Addr| u64::from(u32::from(address));
    let base = number(cluster.network());
    let start = number(subnet.network()).max(base);
    let end = number(subnet.broadcast()).min(number(cluster.broadcast()));
    (start <= end).then(|| ((start - base) >> shift, (end - base) >> shift))
}

/// Pairs `(earlier, later)` of indices into `networks` that overlap, one pair for each network
/// that overlaps any network before it in address order: each overlapping network is named at
/// least once. Sort and sweep: O(n log n).
pub fn overlapping_pairs(networks: &[(Ipv4Net, usize)]) -> Vec<(usize, usize)> {
    let mut sorted: Vec<&(Ipv4Net, usize)> = networks.iter().collect();
    sorted.sort_unstable_by_key(|(net, index)| (net.network(), net.prefix_len(), *index));
    // The networks that contain the current position, outermost first.
    let mut open: Vec<&(Ipv4Net, usize)> = Vec::new();
    let mut pairs = Vec::new();
    for entry in sorted {
        while open
            .last()
            .is_some_and(|(outer, _)| outer.broadcast() < entry.0.network())
        {
            open.pop();
        }
        if let Some((_, outer)) = open.last() {
            pairs.push(((*outer).min(entry.1), (*outer).max(entry.1)));
        }
        open.push(entry);
    }
    pairs.sort_unstable();
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn net(text: &str) -> Ipv4Net {
        text.parse().unwrap()
    }

    fn shown(subnets: &[Option<Ipv4Net>]) -> Vec<String> {
        subnets
            .iter()
            .map(|subnet| subnet.map_or("-".into(), |subnet| subnet.to_string()))
            .collect()
    }

    #[test]
    fn unpinned_nodes_take_the_next_free_subnet_in_order() {
        let pinned = [None, Some(net("10.244.1.0/24")), None, None];
        assert_eq!(
            shown(&assign(&net("10.244.0.0/16"), 24, &pinned)),
            [
                "10.244.0.0/24",
                "10.244.1.0/24",
                "10.244.2.0/24",
                "10.244.3.0/24"
            ]
        );
    }

    #[test]
    fn a_pinned_subnet_later_in_the_list_is_still_skipped() {
        let pinned = [None, None, Some(net("10.244.0.0/24"))];
        assert_eq!(
            shown(&assign(&net("10.244.0.0/16"), 24, &pinned)),
            ["10.244.1.0/24", "10.244.2.0/24", "10.244.0.0/24"]
        );
    }

    #[test]
    fn nodes_past_the_last_subnet_get_none() {
        let pinned = [None; 5];
        assert_eq!(
            shown(&assign(&net("10.244.0.0/22"), 24, &pinned)),
            [
                "10.244.0.0/24",
                "10.244.1.0/24",
                "10.244.2.0/24",
                "10.244.3.0/24",
                "-"
            ]
        );
    }

    #[test]
    fn a_whole_ipv4_space_assigns_without_overflow() {
        let subnets = assign(&net("0.0.0.0/0"), 32, &[None, None]);
        assert_eq!(shown(&subnets), ["0.0.0.0/32", "0.0.0.1/32"]);
    }

    #[test]
    fn nested_and_equal_networks_overlap() {
        let networks = [
            (net("10.0.0.0/8"), 0),
            (net("10.1.0.0/16"), 1),
            (net("192.168.0.0/24"), 2),
            (net("192.168.0.0/24"), 3),
            (net("192.168.1.0/24"), 4),
        ];
        assert_eq!(overlapping_pairs(&networks), [(0, 1), (2, 3)]);
    }

    fn brute_force_overlapping(networks: &[(Ipv4Net, usize)]) -> Vec<usize> {
        let mut found: Vec<usize> = networks
            .iter()
            .filter(|(a, i)| {
                networks
                    .iter()
                    .any(|(b, j)| i != j && (a.contains(&b.network()) || b.contains(&a.network())))
            })
            .map(|(_, i)| *i)
            .collect();
        found.sort_unstable();
        found
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn sweep_agrees_with_brute_force(raw in prop::collection::vec((any::<u32>(), 0u8..=32), 0..40)) {
            // Keep addresses in a small space so that overlaps are common.
            let networks: Vec<(Ipv4Net, usize)> = raw
                .iter()
                .enumerate()
                .map(|(i, (address, prefix))| {
                    let address = 0x0a00_0000 | (address & 0x0000_ffff);
                    (Ipv4Net::new(address.into(), (*prefix).max(16)).unwrap().trunc(), i)
                })
                .collect();
            let pairs = overlapping_pairs(&networks);
            for (a, b) in &pairs {
                let (x, y) = (&networks[*a].0, &networks[*b].0);
                prop_assert!(x.contains(&y.network()) || y.contains(&x.network()));
            }
            let mut named: Vec<usize> = pairs.iter().flat_map(|(a, b)| [*a, *b]).collect();
            named.sort_unstable();
            named.dedup();
            prop_assert_eq!(named, brute_force_overlapping(&networks));
        }
    }
}

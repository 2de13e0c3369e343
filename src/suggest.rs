//! "Did you mean": the known name closest to one that is not known, for schema findings and the
//! RKE2 configuration keys alike.

/// The closest candidate by edit distance, when it is close enough to be a likely typo.
pub(crate) fn nearest(written: &str, candidates: &[String]) -> Option<String> {
    let written_lower = written.to_lowercase();
    candidates
        .iter()
        .map(|candidate| {
            (
                edit_distance(&written_lower, &candidate.to_lowercase()),
                candidate,
            )
        })
        .filter(|(distance, candidate)| *distance <= (candidate.len() / 3).max(2))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate.clone())
        .or_else(|| abbreviated(&written_lower, candidates))
}

/// The one candidate that abbreviates what was written, word for word (`host-gw` for
/// `host-gateway`): as many `-` separated words, each starting with the same letter and made of
/// letters of the written word in order.
fn abbreviated(written: &str, candidates: &[String]) -> Option<String> {
    let words: Vec<&str> = written.split('-').collect();
    let abbreviates = |candidate: &String| {
        let short: Vec<String> = candidate
            .to_lowercase()
            .split('-')
            .map(String::from)
            .collect();
        words.len() > 1
            && short.len() == words.len()
            && short.iter().zip(&words).all(|(short, long)| {
                let mut letters = long.chars();
                short.chars().next() == long.chars().next()
                    && short.chars().all(|c| letters.any(|l| l == c))
            })
    };
    let mut found = candidates.iter().filter(|candidate| abbreviates(candidate));
    match (found.next(), found.next()) {
        (Some(only), None) => Some(only.clone()),
        _ => None,
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, a_char) in a.chars().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, b_char) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(a_char != *b_char);
            current[j + 1] = substitution.min(previous[j + 1] + 1).min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_name_suggests_typos_but_not_strangers() {
        let known = vec!["clusterCidr".to_string(), "serviceCidr".to_string()];
        assert_eq!(
            nearest("clusterCIDR", &known).as_deref(),
            Some("clusterCidr")
        );
        assert_eq!(
            nearest("clustrCidr", &known).as_deref(),
            Some("clusterCidr")
        );
        assert_eq!(nearest("bananas", &known), None);
        let backends = vec!["vxlan".to_string(), "host-gw".to_string()];
        assert_eq!(
            nearest("host-gateway", &backends).as_deref(),
            Some("host-gw")
        );
        assert_eq!(nearest("host-routes", &backends), None);
    }
}

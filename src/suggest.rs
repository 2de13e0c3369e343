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
    }
}

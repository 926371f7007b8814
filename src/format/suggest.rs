//! "Did you mean ...?": the closest of the names a user could have meant, for a shape, a
//! type, an attribute, a node in a target or a run id that matches nothing. One measure for
//! every message, so that they agree on what counts as a typo.

/// The candidate closest to `word` by edit distance, when it is close enough to be a typo:
/// at most a third of the word's length (at least 1) apart. Ties go to the first candidate.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let distance = edit_distance(word, candidate);
        if distance > 0 && distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// ` (did you mean X?)` for the closest candidate, or nothing: ready to append to a message.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, candidates)
        .map(|name| format!(" (did you mean {name}?)"))
        .unwrap_or_default()
}

/// Levenshtein distance over characters, counting a swap of two neighbours as one edit
/// (the commonest typo, `lgo` for `log`).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows of the table: two rows back are needed for a swap.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut current = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            current[j] = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                current[j] = current[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut previous, current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("hexagn", "hexagon"), 1);
        assert_eq!(edit_distance("lgo", "log"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("café", "cafe"), 1);
    }

    #[test]
    fn the_closest_name_within_reach() {
        let shapes = ["box", "hexagon", "diamond", "Mdiamond"];
        assert_eq!(closest("hexagn", shapes), Some("hexagon"));
        assert_eq!(closest("dimond", shapes), Some("diamond"));
        assert_eq!(closest("bx", shapes), Some("box"));
        assert_eq!(closest("circle", shapes), None);
        assert_eq!(closest("box", shapes), None, "an exact name is no typo");
        assert_eq!(closest("plann", ["plan", "code"]), Some("plan"));
    }

    #[test]
    fn a_sentence_or_nothing() {
        assert_eq!(
            did_you_mean("plann", ["plan", "code"]),
            " (did you mean plan?)"
        );
        assert_eq!(did_you_mean("zzz", ["plan"]), "");
    }
}

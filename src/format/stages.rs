//! Where a stage's files live on the metadata branch (FORMAT.md, Metadata branch): format 2
//! writes `stages/<rank>-<node>@<visit>/` as Fabro does, the rank being the stage's position in
//! the run; format 1 wrote `stages/<node>@<visit>/`. Readers look for both.

pub const STAGES_DIR: &str = "stages";

/// `stages/<rank>-<node>@<visit>`, the rank zero-padded to three digits (more past 999).
pub fn dir(rank: usize, node: &str, visit: u64) -> String {
    format!("{STAGES_DIR}/{rank:03}-{node}@{visit}")
}

/// Format 1's `stages/<node>@<visit>`.
pub fn dir_without_rank(node: &str, visit: u64) -> String {
    format!("{STAGES_DIR}/{node}@{visit}")
}

/// Whether `name`, an entry of `stages/`, is the folder of `node@visit` in either layout.
pub fn names(name: &str, node: &str, visit: u64) -> bool {
    let stage = format!("{node}@{visit}");
    name == stage
        || name.split_once('-').is_some_and(|(rank, rest)| {
            rest == stage && !rank.is_empty() && rank.bytes().all(|b| b.is_ascii_digit())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_padded_to_three_digits_and_grow_past_999() {
        assert_eq!(dir(2, "plan", 1), "stages/002-plan@1");
        assert_eq!(dir(1000, "code", 7), "stages/1000-code@7");
        assert!(names("002-plan@1", "plan", 1));
        assert!(names("plan@1", "plan", 1));
        assert!(names("1000-code@7", "code", 7));
        assert!(!names("002-plan@12", "plan", 1));
        assert!(!names("x-plan@1", "plan", 1));
        assert!(!names("002-my-plan@1", "plan", 1));
    }
}

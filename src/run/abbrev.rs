//! Run ids as people see them: the shortest prefix that no other run of the repository shares,
//! never shorter than eight characters, as git abbreviates object names. Eight characters of a
//! ULID are only its timestamp, so forks, rewinds and runs started in the same millisecond
//! need more; a prefix shown here is always one that `resolve` accepts back.

use crate::error::Result;
use crate::git::Repo;

/// The fewest characters shown, even when fewer would be unique.
pub const MIN_SHOWN: usize = 8;

/// Every run id of a repository, sorted, to abbreviate against.
#[derive(Clone, Debug, Default)]
pub struct Abbreviations {
    ids: Vec<String>,
}

impl Abbreviations {
    /// The runs of `repo` whose ids share the first [`MIN_SHOWN`] characters of `id`. Only
    /// they can make its abbreviation longer, and they lie next to it in the sorted list of
    /// every run, so [`Abbreviations::short`] of `id` is the same against them as against
    /// every run: a command that shows one run reads only the refs of runs started in the same
    /// second or so.
    pub fn near(repo: &Repo, id: &str) -> Result<Abbreviations> {
        Ok(Abbreviations::new(
            super::list_starting(repo, near_prefix(id))?
                .into_iter()
                .map(|(id, _)| id.to_string()),
        ))
    }

    pub fn new(ids: impl IntoIterator<Item = String>) -> Abbreviations {
        let mut ids: Vec<String> = ids.into_iter().collect();
        ids.sort();
        ids.dedup();
        Abbreviations { ids }
    }

    /// The shortest prefix of `id` that no other run starts with, at least [`MIN_SHOWN`]
    /// characters (the whole id when it is shorter). In a sorted list, only the neighbours can
    /// share the longest prefix with it.
    pub fn short<'a>(&self, id: &'a str) -> &'a str {
        let at = self.ids.partition_point(|other| other.as_str() < id);
        let before = at.checked_sub(1).and_then(|i| self.ids.get(i));
        let after = self.ids[at..].iter().find(|other| other.as_str() != id);
        let shared = [before, after]
            .into_iter()
            .flatten()
            .map(|other| common_prefix(id, other))
            .max()
            .unwrap_or(0);
        let len = (shared + 1).max(MIN_SHOWN).min(id.len());
        id.get(..len).unwrap_or(id)
    }
}

/// The first characters of `id`, which the runs [`Abbreviations::near`] lists for it share.
pub fn near_prefix(id: &str) -> &str {
    id.get(..MIN_SHOWN).unwrap_or(id)
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::Abbreviations;

    #[test]
    fn eight_characters_unless_a_neighbour_shares_more() {
        let ids = Abbreviations::new([
            "01M7YA3SH8NSGVQ0ZQ3YA60PYE".to_owned(),
            "01M7YA3SK0000000000000000A".to_owned(),
            "01M7YB0Q4Z8S5TQ0B9W2J6XK3D".to_owned(),
        ]);
        assert_eq!(ids.short("01M7YA3SH8NSGVQ0ZQ3YA60PYE"), "01M7YA3SH");
        assert_eq!(ids.short("01M7YA3SK0000000000000000A"), "01M7YA3SK");
        assert_eq!(ids.short("01M7YB0Q4Z8S5TQ0B9W2J6XK3D"), "01M7YB0Q");
        // An id not in the list is still told apart from the ones that are.
        assert_eq!(
            ids.short("01M7YA3SH8NSGVQ0ZQ3YA60PYF"),
            "01M7YA3SH8NSGVQ0ZQ3YA60PYF"
        );
        assert_eq!(Abbreviations::default().short("01M7YB0Q4Z8S"), "01M7YB0Q");
    }
}

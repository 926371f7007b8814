//! A run's lease on a shared remote (FORMAT.md, "Leases"): `refs/fabro/lease/<RUN_ID>`, a chain
//! of commits of the empty tree, one per claim or renewal, whose trailers say who holds the run,
//! in which epoch, and for how long a silence means it is gone. One ref per run and none
//! shared, so that workers racing for different runs never touch the same ref.

use std::time::Duration;

use crate::format::run_id::RunId;

pub const OWNER: &str = "Fabro-Lease-Owner";
pub const EPOCH: &str = "Fabro-Lease-Epoch";
pub const TTL: &str = "Fabro-Lease-Ttl-Ms";
pub const CHILD: &str = "Fabro-Lease-Child";

/// What one lease commit says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    pub run: RunId,
    /// `host/pid/nonce` of the worker: the nonce tells two workers of one process apart.
    pub owner: String,
    /// Raised by every takeover; renewals keep it.
    pub epoch: u64,
    pub ttl: Duration,
    /// The manager loops' child runs the holder published with the run: a taker brings them
    /// too, so that a child goes on where it was rather than starting again.
    pub children: Vec<RunId>,
}

impl Lease {
    /// The commit message: a subject for `git log`, then the trailers.
    pub fn message(&self) -> String {
        let Lease {
            run,
            owner,
            epoch,
            ttl,
            children,
        } = self;
        let owner = owner.replace(['\n', '\r'], " ");
        let mut text = format!(
            "lease {run} epoch {epoch}\n\n{}: {run}\n{OWNER}: {owner}\n{EPOCH}: {epoch}\n{TTL}: {}\n",
            super::message::RUN,
            ttl.as_millis()
        );
        for child in children {
            text += &format!("{CHILD}: {child}\n");
        }
        text
    }

    /// Reads a lease commit's message; `None` when a trailer is missing or unreadable.
    pub fn parse(message: &[u8]) -> Option<Lease> {
        let (mut run, mut owner, mut epoch, mut ttl) = (None, None, None, None);
        let mut children = Vec::new();
        crate::git::for_each_trailer(message, |token, value| {
            let named = |name: &str| token.eq_ignore_ascii_case(name);
            if named(super::message::RUN) {
                run = RunId::parse(value).ok();
            } else if named(OWNER) {
                owner = Some(value.to_owned());
            } else if named(EPOCH) {
                epoch = value.parse().ok();
            } else if named(TTL) {
                ttl = value.parse().ok().map(Duration::from_millis);
            } else if named(CHILD) {
                children.extend(RunId::parse(value).ok());
            }
        });
        Some(Lease {
            run: run?,
            owner: owner?,
            epoch: epoch?,
            ttl: ttl?,
            children,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_reads_back_as_written_and_a_partial_one_not_at_all() {
        let lease = Lease {
            run: RunId::mint(),
            owner: "node1/4242/9f3a".into(),
            epoch: 3,
            ttl: Duration::from_secs(60),
            children: vec![RunId::mint()],
        };
        let message = lease.message();
        assert_eq!(Lease::parse(message.as_bytes()), Some(lease.clone()));
        let cut = message.replace(&format!("{EPOCH}: 3\n"), "");
        assert_eq!(Lease::parse(cut.as_bytes()), None);
    }

    #[test]
    fn an_owner_cannot_add_lines_to_the_trailer_block() {
        let lease = Lease {
            run: RunId::mint(),
            owner: "host\nFabro-Lease-Epoch: 99".into(),
            epoch: 1,
            ttl: Duration::from_secs(5),
            children: Vec::new(),
        };
        assert_eq!(Lease::parse(lease.message().as_bytes()).unwrap().epoch, 1);
    }
}

//! Signed commits, through the `git` binary: gix neither signs nor verifies. Only the pool's
//! submissions are signed (metadata commits never are); they are signed with the key git is
//! configured with (`user.signingKey`, `gpg.format`), and a worker accepts only SSH signatures
//! by a key of its allowed-signers file, as `git verify-commit` checks them with
//! `gpg.ssh.allowedSignersFile`.

use std::path::Path;
use std::process::Command;

use super::{ObjectId, Repo};
use crate::git::error::{Error, Result};

impl Repo {
    /// A commit of `tree` with no parent and `message`, signed as git's configuration says.
    pub(crate) fn write_signed_commit(&self, tree: ObjectId, message: &str) -> Result<ObjectId> {
        let out = self
            .git_here(&["commit-tree", "-S", "-m", message, &tree.to_string()])
            .output()
            .map_err(|err| Error::Failed(format!("cannot run git: {err}")))?;
        if !out.status.success() {
            return Err(Error::Failed(format!(
                "git could not sign the submission: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let hex = String::from_utf8_lossy(&out.stdout);
        ObjectId::from_hex(hex.trim().as_bytes())
            .map_err(|_| Error::Failed(format!("git commit-tree printed {:?}", hex.trim())))
    }

    /// The principal of `allowed_signers` whose SSH key signed `commit`; `None` when it is not
    /// signed, or not by one of them.
    pub(crate) fn ssh_signer(&self, commit: ObjectId, allowed_signers: &Path) -> Option<String> {
        let allowed = format!("gpg.ssh.allowedSignersFile={}", allowed_signers.display());
        let out = self
            .git_here(&[
                "-c",
                &allowed,
                "verify-commit",
                "--raw",
                &commit.to_string(),
            ])
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        // ssh-keygen says `Good "git" signature for PRINCIPAL with ED25519 key SHA256:...`; a
        // GPG signature says something else, and is not what the allowed signers list.
        let said = String::from_utf8_lossy(&out.stderr);
        let rest = said.split("Good \"git\" signature for ").nth(1)?;
        Some(rest.split(" with ").next()?.to_owned())
    }

    fn git_here(&self, args: &[&str]) -> Command {
        let dir = self
            .workdir()
            .map_or_else(|| self.common_dir(), ToOwned::to_owned);
        super::land::git_in(&dir, args)
    }
}

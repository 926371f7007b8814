//! Starting a run: the orphan metadata branch with its `init run` commit, the run branch at the
//! base commit, the run directory and a linked worktree on the run branch. Refs are created
//! only after every object exists, and a failure after that undoes what this call created.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::config::{Config, RUN_FILE, Settings};
use crate::error::{Error, Result};
use crate::git::{ObjectId, RefEdit, Repo};
use crate::message;
use crate::record::{FORMAT, RunRecord, Spec, Start, Status, StatusKind};
use crate::run::{self, GRAPH_FILE, RUN_JSON};
use crate::run_id::RunId;
use crate::store::{Manifest, RunDir};
use crate::time::Timestamp;

#[derive(Clone, Debug, Default)]
pub struct StartRequest {
    pub goal: Option<String>,
    pub workflow: Option<PathBuf>,
    pub labels: Vec<(String, String)>,
    pub base: Option<String>,
    pub run_dir: Option<PathBuf>,
    pub config: Option<PathBuf>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Started {
    pub run_id: String,
    pub run_branch: String,
    pub meta_branch: String,
    pub base_sha: String,
    pub run_dir: PathBuf,
    pub worktree: PathBuf,
}

/// Reads a workflow file: its bytes, its name (the file stem) and their SHA-256.
pub fn read_workflow(path: &Path) -> Result<(Vec<u8>, String, String)> {
    let source = std::fs::read(path).map_err(Error::io(format!(
        "cannot read workflow {}",
        path.display()
    )))?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let sha = sha256_hex(&source);
    Ok((source, name, sha))
}

pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub fn start(repo: &Repo, home: &Path, request: &StartRequest) -> Result<Started> {
    let workflow = request.workflow.as_deref().map(read_workflow).transpose()?;
    let run_toml = match &request.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(Error::io(format!("cannot read {}", path.display())))?;
            Settings::parse(&text, path)?;
            Some(text)
        }
        None => None,
    };
    let mut labels = BTreeMap::new();
    for (key, value) in &request.labels {
        labels.insert(key.clone(), value.clone());
    }
    let base = repo
        .resolve_commit(request.base.as_deref().unwrap_or("HEAD"))
        .map_err(|err| match request.base {
            None => Error::Usage(
                "HEAD does not name a commit yet; make a first commit or pass --base REV".into(),
            ),
            Some(_) => err,
        })?;

    let id = RunId::mint();
    let now = Timestamp::now();
    let settings = run_toml
        .as_deref()
        .map(|t| Settings::parse(t, Path::new(RUN_FILE)))
        .transpose()?;
    let config = Config::resolve(repo, home, settings.as_ref())?;
    let record = RunRecord {
        format: FORMAT,
        run_id: id.to_string(),
        spec: Spec {
            workflow_name: workflow.as_ref().map(|(_, name, _)| name.clone()),
            goal: request.goal.clone(),
            labels,
            graph_sha256: workflow.as_ref().map(|(_, _, sha)| sha.clone()),
            origin_url: repo
                .config_string("remote.origin.url")
                .map(|url| redact_url(&url)),
            ..Spec::default()
        },
        start: Start {
            start_time: now.rfc3339(),
            run_branch: short_branch(&run::run_branch(&id)),
            meta_branch: short_branch(&run::meta_branch(&id)),
            base_sha: base.to_string(),
            extra: BTreeMap::new(),
        },
        status: Status::new(StatusKind::Running, None),
        checkpoint: None,
        conclusion: None,
        superseded_by: None,
        extra: BTreeMap::new(),
    };

    let mut tree = repo.edit_tree(repo.empty_tree())?;
    tree.put_file(RUN_JSON, &record.to_json())?;
    if let Some((source, _, _)) = &workflow {
        tree.put_file(GRAPH_FILE, source)?;
    }
    if let Some(text) = &run_toml {
        tree.put_file(RUN_FILE, text.as_bytes())?;
    }
    let tree = tree.write()?;
    let init = repo.write_commit(
        tree,
        &[],
        &message::meta_commit("init run", &id, None),
        &config.identity,
    )?;

    let run_dir = RunDir::create(
        &request
            .run_dir
            .clone()
            .unwrap_or_else(|| RunDir::default_path(&config.runs_dir, &id, now)),
    )?;
    // The run branch first, as in a fork: a crash between the two never leaves a run
    // without its branch.
    let created = [
        RefEdit::Create {
            name: run::run_branch(&id),
            new: base,
        },
        RefEdit::Create {
            name: run::meta_branch(&id),
            new: init,
        },
    ];
    if let Err(err) = repo.update_refs(&created, "fabro: start run", &config.identity) {
        let _ = std::fs::remove_dir_all(&run_dir.path);
        return Err(err);
    }
    let finish_local = || -> Result<()> {
        run_dir.write_json(
            crate::store::MANIFEST,
            &Manifest::new(&record, &repo.main_path()),
        )?;
        if let Some((source, _, _)) = &workflow {
            run_dir.write(GRAPH_FILE, source)?;
        }
        if let Some(text) = &run_toml {
            run_dir.write(RUN_FILE, text.as_bytes())?;
        }
        run_dir.append_event(&serde_json::json!({
            "event": "run.started", "timestamp": now.rfc3339(), "run_id": id.as_str(), "base_sha": base.to_string(),
        }))?;
        run_dir.write_json("live.json", &crate::checkpoint::live(&record, None))?;
        repo.add_worktree(&run_dir.worktree(), &run::run_branch(&id), &config.identity)
    };
    if let Err(err) = finish_local() {
        undo(repo, &id, init, base, &config);
        let _ = std::fs::remove_dir_all(&run_dir.path);
        return Err(err);
    }
    Ok(Started {
        run_id: id.to_string(),
        run_branch: short_branch(&run::run_branch(&id)),
        meta_branch: short_branch(&run::meta_branch(&id)),
        base_sha: base.to_string(),
        worktree: run_dir.worktree(),
        run_dir: run_dir.path,
    })
}

/// Deletes the refs a failed start created, if nobody moved them since.
fn undo(repo: &Repo, id: &RunId, init: ObjectId, base: ObjectId, config: &Config) {
    let edits = [
        RefEdit::Delete {
            name: run::meta_branch(id),
            old: init,
        },
        RefEdit::Delete {
            name: run::run_branch(id),
            old: base,
        },
    ];
    let _ = repo.update_refs(&edits, "fabro: undo failed start", &config.identity);
}

/// `refs/heads/fabro/run/X` -> `fabro/run/X`, the form records and people use.
pub fn short_branch(full: &str) -> String {
    full.strip_prefix("refs/heads/").unwrap_or(full).to_owned()
}

/// Drops credentials embedded in a URL (`https://user:token@host/...` -> `https://host/...`).
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://{}", &rest[at + 1..]),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn credentials_never_reach_a_record() {
        assert_eq!(
            redact_url("https://x:secret@github.com/o/r.git"),
            "https://github.com/o/r.git"
        );
        assert_eq!(
            redact_url("git@github.com:o/r.git"),
            "git@github.com:o/r.git"
        );
        assert_eq!(redact_url("/srv/git/r.git"), "/srv/git/r.git");
    }
}

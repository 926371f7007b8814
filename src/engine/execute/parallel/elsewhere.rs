//! Parallel branches run by other machines (docs/many-machines.md, "Fan-out across
//! machines"), the holder's side: a pool run's holder offers each branch that may run
//! anywhere and that its own threads cannot start at once as a branch job on the shared remote
//! (`format::branch_job`), runs the others meanwhile, and takes into the run the work of each
//! job another worker finished (`job` is that worker's side). A job nobody claimed it takes
//! back as its threads free up, and one a worker claimed and then left unrenewed for its
//! lease's life whether they do or not. Side effects and human gates never leave the holder:
//! their intent and answers are fenced under the run's own lease.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::super::{Engine, JobBoard, Stop, interrupt, side_effect};
use super::branches::{Branch, BranchResult, Pass};
use super::slots::Slots;
use crate::engine::graph::Node;
use crate::engine::handler::Handler;
use crate::engine::outcome::Outcome;
use crate::error::{Error, Result};
use crate::format::branch_job::{CONTEXT_FILE, FILES_DIR, Job, OUTCOME_FILE, Step};
use crate::format::record::pretty;
use crate::git::{ObjectId, RefEdit, Repo};
use crate::ops::checkpoint::Attachment;

/// A branch on offer, as the pass waits for it.
pub(super) struct Offered<'b, 'g> {
    branch: &'b Branch<'g>,
    name: String,
    /// The job's tip when last looked at, and since when it stands there.
    seen: ObjectId,
    since: Instant,
}

impl<'a> Engine<'a> {
    /// Runs the pass's branches that are not done: those another machine may run offered to
    /// the pool when the run has one, the others here meanwhile, then here whatever the holder
    /// took back. Each branch whose worktree was made here joins `prepared`.
    pub(super) fn run_here_and_elsewhere<'b>(
        &self,
        pass: &Pass,
        node: &Node,
        to_run: Vec<&'b Branch<'a>>,
        max_parallel: usize,
        prepared: &mut Vec<&'b Branch<'a>>,
    ) -> Result<Vec<(usize, BranchResult)>> {
        let board = self.fence.and_then(|f| f.jobs());
        let (mut here, mut elsewhere) = (Vec::new(), Vec::new());
        for branch in to_run {
            match board.is_some() && self.may_run_elsewhere(branch, pass.visit)? {
                true => elsewhere.push(branch),
                false => here.push(branch),
            }
        }
        // The holder's threads start on what they can run at once, the last of the branches
        // that may go elsewhere among them; only the rest is offered.
        let kept = max_parallel.saturating_sub(here.len()).min(elsewhere.len());
        here.extend(elsewhere.split_off(elsewhere.len() - kept));
        let offered = match board {
            Some(board) if !elsewhere.is_empty() => {
                self.offer(board, pass, &node.id, &elsewhere)?
            }
            _ => Vec::new(),
        };
        self.prepare_all(&here, pass.base, prepared)?;
        let Some(board) = board.filter(|_| !offered.is_empty()) else {
            let threads = max_parallel.min(here.len());
            return self
                .run_branches(pass, &here, threads, None::<fn(&Slots<'_, 'a>)>)
                .0;
        };
        let threads = max_parallel.min(here.len() + offered.len());
        let mut taken_back = Vec::new();
        let (ran, awaited) = self.run_branches(
            pass,
            &here,
            threads,
            Some(|slots: &Slots<'b, 'a>| {
                self.await_offers(board, pass, &node.id, offered, slots, &mut taken_back)
            }),
        );
        prepared.extend(taken_back);
        let mut results = ran?;
        results.extend(awaited.unwrap_or_else(|| Ok(Vec::new()))?);
        Ok(results)
    }

    /// Whether another machine may run `branch`: a node that runs an agent or a script, with
    /// no side effect, no decision about it given to this run, and no worktree a killed
    /// attempt here left with its files.
    pub(super) fn may_run_elsewhere(&self, branch: &Branch, visit: u64) -> Result<bool> {
        let node = branch.node;
        let runs_anywhere = matches!(
            Handler::of(node),
            Handler::Agent | Handler::Prompt | Handler::Command
        );
        let stage = format!("{}@{visit}", node.id);
        let decided = (self.directions.rerun.iter())
            .chain(&self.directions.assume_done)
            .any(|n| *n == node.id || *n == stage);
        Ok(runs_anywhere
            && !side_effect::is_side_effect(node)
            && !decided
            && self.leftover(branch)?.is_none())
    }

    /// Offers `branches` on the remote with the run's next publish: a job an earlier attempt
    /// at this pass left from the same base is waited on as it stands (its worker may still
    /// be at it), any other is replaced.
    pub(super) fn offer<'b, 'g>(
        &self,
        board: &dyn JobBoard,
        pass: &Pass,
        node: &str,
        branches: &[&'b Branch<'g>],
    ) -> Result<Vec<Offered<'b, 'g>>> {
        let job = |branch: &Branch| Job {
            run: pass.id.clone(),
            node: node.to_owned(),
            visit: pass.visit,
            target: branch.node.id.clone(),
        };
        let standing = self.job_tips(board, &Job::pass_prefix(pass.id, node, pass.visit))?;
        self.bring_jobs(board, &standing.keys().cloned().collect::<Vec<_>>())?;
        let (mut offered, mut pushes) = (Vec::new(), Vec::new());
        for &branch in branches {
            let job = job(branch);
            let name = job.ref_name();
            let old = standing.get(&name).copied();
            let seen = match old.filter(|&tip| self.job_base(&job, tip) == Some(pass.base)) {
                Some(tip) => tip,
                None => {
                    let offer = self.write_offer(&job, pass)?;
                    pushes.push((name.clone(), offer, old));
                    offer
                }
            };
            let since = Instant::now();
            offered.push(Offered {
                branch,
                name,
                seen,
                since,
            });
        }
        if !pushes.is_empty() {
            board.offer(&pushes)?;
        }
        Ok(offered)
    }

    /// The job refs under `prefix` on the board's remote, and their tips.
    fn job_tips(&self, board: &dyn JobBoard, prefix: &str) -> Result<BTreeMap<String, ObjectId>> {
        Ok(self
            .repo
            .ls_remote(board.remote(), prefix)?
            .into_iter()
            .collect())
    }

    /// Brings the commits of the job refs `names` here; no ref of this clone moves.
    fn bring_jobs(&self, board: &dyn JobBoard, names: &[String]) -> Result<()> {
        if names.is_empty() {
            return Ok(());
        }
        let fetched = self.repo.fetch(board.remote(), names, false)?;
        match fetched.ok {
            true => Ok(()),
            false => Err(Error::Refused(format!(
                "cannot fetch the run's branch jobs from {}: {}",
                board.remote(),
                fetched.messages.trim()
            ))),
        }
    }

    /// The offer: the pass's context in its tree, the parallel base its parent.
    fn write_offer(&self, job: &Job, pass: &Pass) -> Result<ObjectId> {
        let mut tree = self.repo.edit_tree(self.repo.empty_tree())?;
        tree.put_file(CONTEXT_FILE, &pretty(&json!(pass.context)))?;
        let tree = tree.write()?;
        let who = crate::ops::pool::identity();
        Ok(self
            .repo
            .write_commit(tree, &[pass.base], &job.offer_message(), &who)?)
    }

    /// The commit the job at `tip` was offered from: the first parent of the chain's offer.
    fn job_base(&self, job: &Job, tip: ObjectId) -> Option<ObjectId> {
        for commit in self.repo.first_parents(tip) {
            let commit = commit.ok()?;
            match Step::parse(&commit.message, &job.run)? {
                Step::Offer => return commit.first_parent,
                Step::Claim(_) | Step::Done => continue,
            }
        }
        None
    }

    /// Waits until every offered branch is done elsewhere or taken back. A branch nobody
    /// claimed is taken back as soon as one of the pass's threads here is free, the last on
    /// offer first, since workers take the first; a claim left unchanged for its lease's life
    /// is taken back whether a thread is free or not. Each branch taken back joins
    /// `taken_back`, is prepared and goes to `slots`. An interrupt leaves the jobs as they
    /// stand, for the run's next attempt.
    pub(super) fn await_offers<'b, 'g>(
        &self,
        board: &dyn JobBoard,
        pass: &Pass,
        node: &str,
        mut pending: Vec<Offered<'b, 'g>>,
        slots: &Slots<'b, 'g>,
        taken_back: &mut Vec<&'b Branch<'g>>,
    ) -> Result<Vec<(usize, BranchResult)>> {
        // An idle worker looks every eighth of the lease's life (at most every second); the
        // holder, which waits on these jobs alone, four times as often.
        let ms = Duration::from_millis;
        let poll = (board.ttl() / 32).clamp(ms(50), ms(250));
        let prefix = Job::pass_prefix(pass.id, node, pass.visit);
        pending.sort_by(|a, b| b.name.cmp(&a.name));
        let mut results = Vec::new();
        while !pending.is_empty() {
            if interrupt::requested() {
                for offered in pending {
                    let stage = format!("{}@{}", offered.branch.node.id, pass.visit);
                    let mut result = BranchResult::failed(offered.branch.node, "");
                    result.stopped = Some(Stop::Interrupted { stage });
                    results.push((offered.branch.index, result));
                }
                break;
            }
            let tips = self.job_tips(board, &prefix)?;
            let moved: Vec<String> = pending
                .iter()
                .filter(|o| tips.get(&o.name).is_some_and(|t| *t != o.seen))
                .map(|o| o.name.clone())
                .collect();
            self.bring_jobs(board, &moved)?;
            let mut still = Vec::new();
            for mut offered in pending {
                let tip = tips.get(&offered.name).copied();
                if let Some(tip) = tip.filter(|tip| *tip != offered.seen) {
                    (offered.seen, offered.since) = (tip, Instant::now());
                }
                let step = tip.and_then(|tip| self.repo.commit_info(tip).ok());
                let step = step.and_then(|c| Step::parse(&c.message, pass.id));
                let waited = offered.since.elapsed();
                let take_back = match (&step, tip) {
                    (Some(Step::Done), Some(tip)) => {
                        match self.take_done(pass, offered.branch, tip)? {
                            Some(result) => {
                                results.push((offered.branch.index, result));
                                board.settle(&offered.name, tip);
                                continue;
                            }
                            None => true,
                        }
                    }
                    (Some(Step::Offer), _) => slots.free() > 0,
                    (Some(Step::Claim(lease)), _) => waited > lease.ttl,
                    _ => true,
                };
                if !take_back {
                    still.push(offered);
                    continue;
                }
                // Gone (deleted by someone else): the branch runs here, on no job.
                let taken = match tip {
                    Some(tip) => board.take(&offered.name, tip)?,
                    None => Some(offered.seen),
                };
                let Some(claim) = taken else {
                    still.push(offered);
                    continue;
                };
                if tip.is_some() {
                    board.settle(&offered.name, claim);
                }
                taken_back.push(offered.branch);
                self.prepare(offered.branch, pass.base)?;
                slots.push(offered.branch);
            }
            pending = still;
            if !pending.is_empty() {
                std::thread::sleep(poll);
            }
        }
        Ok(results)
    }

    /// The branch a worker finished at the job's done commit `done`: its work put on the
    /// branch's ref here, its outcome and stage files read from the commit's tree. `None`, with
    /// a warning, for a done commit whose work is not built on the pass's base or whose
    /// outcome cannot be read (written by someone else than a worker): the branch then runs
    /// here.
    fn take_done(
        &self,
        pass: &Pass,
        branch: &Branch,
        done: ObjectId,
    ) -> Result<Option<BranchResult>> {
        let parents = self.repo.commit_parents(done)?;
        let head = parents.get(1).copied();
        let node = branch.node;
        let tree = self.repo.commit_tree(done)?;
        let built_on_base = match head {
            Some(head) => self.repo.commit_info(head)?.first_parent == Some(pass.base),
            None => true,
        };
        let outcome = read_outcome(self.repo, tree);
        let Some(outcome) = outcome.filter(|_| built_on_base) else {
            self.warn(format!(
                "the branch job of parallel branch {} ended with work not built on the pass's base or an outcome that cannot be read, which no worker writes; the branch ran on this machine instead",
                node.id
            ));
            return Ok(None);
        };
        let files = match self.repo.entry_at(tree, FILES_DIR)? {
            Some(files) => read_files(self.repo, files, "")?,
            None => Vec::new(),
        };
        if let Some(head) = head {
            let old = self.repo.ref_target(&branch.branch)?;
            let name = branch.branch.clone();
            let edit = match old {
                Some(old) => RefEdit::Update {
                    name,
                    old,
                    new: head,
                },
                None => RefEdit::Create { name, new: head },
            };
            let who = &self.config.identity;
            self.repo
                .update_refs(&[edit], "fabro: parallel branch job", who)?;
        }
        let stage = format!("{}@{}", node.id, pass.visit);
        self.event(
            pass.id,
            "parallel.branch.completed",
            node,
            &stage,
            json!({
                "branch": node.id, "index": branch.index, "status": outcome.status.as_str(),
                "head_sha": head.map(|h| h.to_string()), "notes": outcome.notes,
                "elsewhere": true,
            }),
        );
        Ok(Some(BranchResult {
            id: node.id.clone(),
            outcome,
            head,
            files,
            stopped: None,
        }))
    }
}

/// A done commit's outcome: its status and notes (a branch's other fields are dropped at the
/// join); `None` when it cannot be read.
fn read_outcome(repo: &Repo, tree: ObjectId) -> Option<Outcome> {
    let text = repo.blob_at(tree, OUTCOME_FILE).ok()??;
    let json: Value = serde_json::from_slice(&text).ok()?;
    let status = super::super::record::status_of(json["status"].as_str()?)?;
    let notes = json["notes"].as_str().unwrap_or_default().to_owned();
    Some(Outcome {
        status,
        ..Outcome::succeeded(notes)
    })
}

/// The stage files under the tree `id`, named by their paths below it.
fn read_files(repo: &Repo, id: ObjectId, under: &str) -> Result<Vec<(String, Attachment)>> {
    let mut files = Vec::new();
    for entry in repo.list_tree(id)? {
        let name = format!("{under}{}", entry.name);
        if entry.is_tree {
            files.extend(read_files(repo, entry.id, &format!("{name}/"))?);
        } else {
            files.push((name, Attachment::Bytes(repo.read_blob(entry.id)?)));
        }
    }
    Ok(files)
}

//! A parallel node's branches: each made from the run's parallel base commit, checked out in a worktree of
//! its own, run in a thread of its own, its work committed on its branch, and its worktree
//! removed when its commit holds everything in it. A pass that a killed run left half done
//! keeps what its branches committed, and what they had not: a branch runs again in the
//! worktree the kill left.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::{Value, json};

use super::super::stage::{Stage, Staged};
use super::super::{Engine, Quiet, Stop, side_effect};
use super::slots::Slots;
use crate::engine::graph::{Graph, Node};
use crate::engine::outcome::{Outcome, Status};
use crate::error::{Error, Result};
use crate::format::message;
use crate::format::run_id::RunId;
use crate::git::{ObjectId, RefEdit, Repo, Worktree};
use crate::ops::checkpoint::Attachment;
use crate::ops::worktree_removal::{Kept, Removal, linked, remove_if_clean};
use crate::run::workspace::Workspace;
use crate::run::{self, RunState};

/// One branch to run: its target node, where it works and on which branch.
pub(super) struct Branch<'g> {
    pub index: usize,
    pub node: &'g Node,
    pub branch: String,
    pub path: PathBuf,
}

/// What every branch of one pass shares: the run, the commit they start from, the pass (the
/// parallel node's visit) and the context they start with.
pub(super) struct Pass<'p> {
    pub id: &'p RunId,
    pub base: ObjectId,
    pub visit: u64,
    pub context: &'p BTreeMap<String, Value>,
}

/// What one branch came to.
pub(super) struct BranchResult {
    pub id: String,
    pub outcome: Outcome,
    pub head: Option<ObjectId>,
    pub files: Vec<(String, Attachment)>,
    /// Set when the branch stopped before its end (a gate nobody answered, Ctrl-C): nothing
    /// of it is committed, and it runs again when the run resumes.
    pub stopped: Option<Stop>,
}

/// A branch's work committed by an earlier attempt at the same pass.
struct Committed {
    head: ObjectId,
    base: ObjectId,
    status: Status,
}

impl Committed {
    fn result(&self, id: &str) -> BranchResult {
        let notes = format!("Branch {id} taken as an earlier attempt committed it");
        BranchResult {
            id: id.to_string(),
            outcome: Outcome {
                status: self.status,
                ..Outcome::succeeded(notes)
            },
            head: Some(self.head),
            files: Vec::new(),
            stopped: None,
        }
    }
}

impl<'a> Engine<'a> {
    /// Runs one pass of the parallel node `node`: its branches, in edge order, up to
    /// `max_parallel` at once; each worktree is removed afterwards, each branch kept.
    pub(super) fn run_pass(
        &self,
        id: &RunId,
        node: &Node,
        visit: u64,
        targets: &[&str],
        context: &BTreeMap<String, Value>,
        max_parallel: usize,
    ) -> Result<Vec<BranchResult>> {
        let branches = self.branches(id, node, visit, targets);
        // A run killed during this pass left branches with their work committed (and maybe
        // joined the winner already): their work is taken as it is, not done twice.
        let tip = RunState::load(self.repo, id)?.run_tip;
        let committed: Vec<Option<Committed>> = branches
            .iter()
            .map(|b| self.committed(id, b))
            .collect::<Result<_>>()?;
        let earlier = committed
            .iter()
            .flatten()
            .find(|c| c.head == tip || c.base == tip)
            .map(|c| c.base);
        let base = match earlier {
            Some(base) => base,
            None => self.parallel_base(id, node, tip)?,
        };
        let mut results = Vec::new();
        let mut to_run = Vec::new();
        for (branch, committed) in branches.iter().zip(committed) {
            match committed.filter(|c| c.base == base) {
                Some(c) => {
                    if let Some(leftover) = self.leftover(branch)? {
                        self.retire(&leftover, c.head)?;
                    }
                    results.push((branch.index, c.result(&branch.node.id)));
                }
                None => to_run.push(branch),
            }
        }
        let pass = Pass {
            id,
            base,
            visit,
            context,
        };
        let mut prepared = Vec::new();
        let ran = self.run_here_and_elsewhere(&pass, node, to_run, max_parallel, &mut prepared);
        crate::failpoint::reach(&format!("engine:parallel-branches-ran:{}@{visit}", node.id));
        let removal = self.retire_all(&prepared, base);
        results.extend(ran?);
        removal?;
        results.sort_by_key(|(index, _)| *index);
        Ok(results.into_iter().map(|(_, r)| r).collect())
    }

    /// Prepares each branch in turn, each joining `prepared` first: a worktree an add cut
    /// short is removed with the others.
    pub(super) fn prepare_all<'b>(
        &self,
        branches: &[&'b Branch<'a>],
        base: ObjectId,
        prepared: &mut Vec<&'b Branch<'a>>,
    ) -> Result<()> {
        for &branch in branches {
            prepared.push(branch);
            self.prepare(branch, base)?;
        }
        Ok(())
    }

    /// The pass's branches: one per target, on its branch, in its worktree's place.
    pub(super) fn branches(
        &self,
        id: &RunId,
        node: &Node,
        visit: u64,
        targets: &[&str],
    ) -> Vec<Branch<'a>> {
        let graph: &'a Graph = self.graph;
        let place = self.run_dir.path.join("parallel");
        let place = place.join(format!("{}-pass{visit}", node.id));
        let prefix = run::parallel_branches_prefix(id);
        targets
            .iter()
            .enumerate()
            .filter_map(|(index, target)| {
                Some(Branch {
                    index,
                    node: graph.node(target)?,
                    branch: format!("{prefix}{}/pass{visit}/{target}", node.id),
                    path: place.join(target),
                })
            })
            .collect()
    }

    /// Removes the worktrees of the branches that ran, whatever happened, as a run's is
    /// removed: unless one holds what its branch's commit does not (a branch that could not
    /// commit, ignored files).
    pub(super) fn retire_all(&self, ran: &[&Branch], base: ObjectId) -> Result<()> {
        let mut removal = Ok(());
        for branch in ran {
            let retired = match self.leftover(branch) {
                Ok(Some(worktree)) => {
                    let tip = self.repo.ref_target(&branch.branch)?.unwrap_or(base);
                    self.retire(&worktree, tip).map(|_| ())
                }
                Ok(None) => Ok(()),
                Err(err) => Err(err),
            };
            removal = removal.and(retired);
        }
        removal
    }

    /// The work an earlier attempt at this pass committed on the branch: a commit of this run
    /// naming the branch's node, on top of the commit the pass started from.
    fn committed(&self, id: &RunId, branch: &Branch) -> Result<Option<Committed>> {
        let Some(head) = self.repo.ref_target(&branch.branch)? else {
            return Ok(None);
        };
        let info = self.repo.commit_info(head)?;
        let ours = message::Trailers::parse(&info.message).run.as_deref() == Some(id.as_str());
        let status = message::parse_subject(&info.message)
            .filter(|(node, _)| ours && *node == branch.node.id)
            .and_then(|(_, status)| super::super::record::status_of(&status));
        Ok(match (status, info.first_parent) {
            (Some(status), Some(base)) => Some(Committed { head, base, status }),
            _ => None,
        })
    }

    /// Makes the branch at `base` and checks it out in its worktree. A worktree a killed run
    /// left for the same pass, still on the branch at `base`, is used again as it is: the
    /// branch runs again there and its commit takes what the killed attempt left, as a run's
    /// worktree keeps its files across a resume. Any other leftover goes when it holds
    /// nothing its branch lacks, and the pass is refused when it does.
    pub(super) fn prepare(&self, branch: &Branch, base: ObjectId) -> Result<()> {
        let old = self.repo.ref_target(&branch.branch)?;
        if let Some(leftover) = self.leftover(branch)? {
            let reusable = leftover.exists
                && leftover.unfinished.is_none()
                && leftover.path == branch.path
                && leftover.branch.as_deref() == Some(branch.branch.as_str())
                && old == Some(base);
            if reusable {
                return Ok(());
            }
            let tip = match leftover.branch.as_deref() {
                Some(name) => self.repo.ref_target(name)?,
                None => None,
            };
            if let Some(kept) = self.retire(&leftover, tip.unwrap_or(base))? {
                return Err(Error::Failed(format!(
                    "the worktree {} of parallel branch {} holds work no commit has: {}; move what you need out of it, remove it with `git worktree remove --force`, then resume",
                    leftover.path.display(),
                    branch.node.id,
                    kept.describe()
                )));
            }
        }
        let who = &self.config.identity;
        if let Some(old) = old {
            let name = branch.branch.clone();
            self.repo
                .update_refs(&[RefEdit::Delete { name, old }], "fabro: parallel", who)?;
        }
        let name = branch.branch.clone();
        self.repo.update_refs(
            &[RefEdit::Create { name, new: base }],
            "fabro: parallel",
            who,
        )?;
        if let Some(parent) = branch.path.parent() {
            std::fs::create_dir_all(parent).map_err(|err| {
                Error::Failed(format!("cannot create {}: {err}", parent.display()))
            })?;
        }
        self.repo.add_worktree(&branch.path, &branch.branch, who)?;
        // Warm like the run's own worktree, from the same checkout; a branch's build output
        // goes with its worktree after the pass. Whether it was seeded is not worth a line per
        // branch.
        let _ = crate::ops::build_seed::seed(self.repo, &branch.path, self.config);
        Ok(())
    }

    /// The worktree registered for the branch, at its place or on its branch, if any.
    pub(super) fn leftover(&self, branch: &Branch) -> Result<Option<Worktree>> {
        Ok(self
            .repo
            .worktrees()?
            .into_iter()
            .find(|w| w.path == branch.path || w.branch.as_deref() == Some(branch.branch.as_str())))
    }

    /// Removes a branch's worktree when everything in it is in `tip`, as a run's worktree is
    /// removed; returns what it holds when it stays. One with no checkout (gone, or an add cut
    /// short) holds nothing and only its registration goes.
    fn retire(&self, worktree: &Worktree, tip: ObjectId) -> Result<Option<Kept>> {
        let checked_out = worktree.exists && worktree.unfinished.is_none();
        let Some(workspace) = checked_out.then(|| linked(&worktree.path)).flatten() else {
            self.repo.remove_worktree(&worktree.path)?;
            return Ok(None);
        };
        match remove_if_clean(self.repo, &workspace, tip, self.config)? {
            Removal::Removed => Ok(None),
            Removal::Kept(kept) => Ok(Some(kept)),
        }
    }

    /// Runs the branches in `threads` threads, each with an engine of its own: a repository
    /// handle cannot be shared between threads, so each opens its branch's worktree.
    /// `meanwhile` runs on this thread while they do, and may add branches to their queue;
    /// without it (`None`) they end with the last branch.
    pub(super) fn run_branches<'b, R>(
        &self,
        pass: &Pass,
        branches: &[&'b Branch<'a>],
        threads: usize,
        meanwhile: Option<impl FnOnce(&Slots<'b, 'a>) -> R>,
    ) -> (Result<Vec<(usize, BranchResult)>>, Option<R>) {
        let slots = Slots::new(branches, threads, meanwhile.is_none());
        let results: Mutex<Vec<(usize, BranchResult)>> = Mutex::new(Vec::new());
        let (config, run_dir, graph, env) = (self.config, self.run_dir, self.graph, &self.env);
        let (directions, warnings, fence) = (self.directions, self.warnings, self.fence);
        let waited = std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    while let Some(branch) = slots.next() {
                        let result = match Repo::open(&branch.path) {
                            Ok(repo) => {
                                let mut quiet = Quiet;
                                // A branch answers its gates as the run does, but never asks
                                // the terminal: several branches may run at once.
                                let engine = Engine {
                                    repo: &repo,
                                    config,
                                    run_dir,
                                    graph,
                                    env: env.clone(),
                                    observer: &mut quiet,
                                    seed: None,
                                    directions,
                                    interviewer: None,
                                    warnings,
                                    fence,
                                };
                                engine.run_branch(pass, branch)
                            }
                            Err(err) => BranchResult::failed(
                                branch.node,
                                &format!(
                                    "cannot open the worktree of branch {}: {err}",
                                    branch.node.id
                                ),
                            ),
                        };
                        if let Ok(mut results) = results.lock() {
                            results.push((branch.index, result));
                        }
                        slots.done();
                    }
                });
            }
            let waited = meanwhile.map(|work| work(&slots));
            slots.close();
            waited
        });
        let results = results
            .into_inner()
            .map_err(|_| Error::Failed("a parallel branch's thread panicked".into()));
        (results, waited)
    }

    /// One branch, on an engine whose repository is the branch's worktree: its node through
    /// the stage pipeline, then its work committed on its branch. A git failure fails the
    /// branch, not the run.
    fn run_branch(&self, pass: &Pass, branch: &Branch) -> BranchResult {
        let (id, node) = (pass.id, branch.node);
        let stage = format!("{}@{}", node.id, pass.visit);
        let clock = Instant::now();
        self.event(
            id,
            "parallel.branch.started",
            node,
            &stage,
            json!({
                "branch": node.id, "index": branch.index,
            }),
        );
        let mut result = self.commit_branch(pass, branch).unwrap_or_else(|err| {
            let reason = format!("parallel branch {} failed to run: {err}", node.id);
            BranchResult::of(node, Outcome::failed(&reason), None, Vec::new())
        });
        if let Some(head) = result.head {
            self.event(
                id,
                "git.commit",
                node,
                &stage,
                json!({
                    "node_id": node.id, "sha": head.to_string(),
                }),
            );
        }
        let outcome = &result.outcome;
        self.event(
            id,
            "parallel.branch.completed",
            node,
            &stage,
            json!({
                "branch": node.id, "index": branch.index,
                "duration_ms": u64::try_from(clock.elapsed().as_millis()).unwrap_or(u64::MAX),
                "status": outcome.status.as_str(), "head_sha": result.head.map(|h| h.to_string()),
                "notes": outcome.notes,
            }),
        );
        result.id = node.id.clone();
        result
    }

    /// The branch's stage, and its work committed on its branch with the stage's outcome:
    /// its status in the subject, its notes (a failure's reason) in the body.
    fn commit_branch(&self, pass: &Pass, branch: &Branch) -> Result<BranchResult> {
        let (repo, id, base) = (self.repo, pass.id, pass.base);
        let workspace = Workspace::linked(repo.clone(), branch.path.clone());
        let mut context = pass.context.clone();
        context.insert("current_node".into(), json!(branch.node.id));
        let stage = Stage {
            node: branch.node,
            visit: pass.visit,
            index: u64::try_from(branch.index).unwrap_or(u64::MAX),
            branch: Some(&branch.branch),
        };
        let staged = Staged {
            id,
            workspace: &workspace,
            stage: &stage,
            context: &context,
        };
        let attempted = match self.run_stage(&staged)? {
            Ok(attempted) => attempted,
            Err(stop) => {
                let mut result =
                    BranchResult::of(branch.node, Outcome::failed(""), None, Vec::new());
                result.stopped = Some(stop);
                return Ok(result);
            }
        };
        let (outcome, files) = (attempted.ran.outcome, attempted.ran.files);
        let snapshot = workspace.snapshot(Some(base), self.config, &[])?;
        let node = &branch.node.id;
        let mut text = format!("fabro({id}): {node} ({})\n\n", outcome.status.as_str());
        if !outcome.notes.trim().is_empty() {
            text.push_str(&format!("{}\n\n", outcome.notes.trim()));
        }
        text.push_str(&format!("{}: {id}\n", message::RUN));
        let head = repo.write_commit(snapshot.tree, &[base], &text, &self.config.identity)?;
        let edit = RefEdit::Update {
            name: branch.branch.clone(),
            old: base,
            new: head,
        };
        repo.update_refs(&[edit], "fabro: parallel branch", &self.config.identity)?;
        snapshot.write_index()?;
        if side_effect::is_side_effect(branch.node) {
            self.resolve_intent(id, node, pass.visit)?;
        }
        Ok(BranchResult::of(branch.node, outcome, Some(head), files))
    }
}

impl BranchResult {
    pub(super) fn failed(node: &Node, reason: &str) -> BranchResult {
        BranchResult::of(node, Outcome::failed(reason), None, Vec::new())
    }

    fn of(
        node: &Node,
        outcome: Outcome,
        head: Option<ObjectId>,
        files: Vec<(String, Attachment)>,
    ) -> BranchResult {
        BranchResult {
            id: node.id.clone(),
            outcome,
            head,
            files,
            stopped: None,
        }
    }
}

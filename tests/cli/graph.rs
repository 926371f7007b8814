//! `git fabro graph RUN|WORKFLOW`: the workflow with what a run did at each node, as DOT that
//! git-fabro's own parser reads back, as Mermaid, and as well-formed SVG laid out without
//! Graphviz; the path the run took highlighted in each.

use crate::common::{TestRepo, run_err, run_ok, write_file};
use crate::engine_run::{run, workflow};

const TAKEN: &str = "#0969da";

/// A run whose build fails once, goes through fix and succeeds on its second visit; `unused`
/// is never reached.
fn looped_run(repo: &TestRepo) -> String {
    let marker = repo.root.join("built-once");
    let text = format!(
        r#"digraph loop {{
  start [shape=Mdiamond]
  exit [shape=Msquare]
  build [shape=parallelogram, script="test -f '{m}' || {{ touch '{m}'; exit 1; }}"]
  fix [shape=parallelogram, label="fix <it> & \"retry\"", script="true"]
  unused [shape=parallelogram, script="true"]
  start -> build
  build -> fix [label="fails", condition="outcome=failed"]
  build -> exit
  fix -> build
  unused -> exit
}}
"#,
        m = marker.display()
    );
    let ran = run(repo, &workflow(repo, "loop", &text), &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    ran.id
}

#[test]
fn dot_shows_status_visits_and_the_path_taken_and_reads_back() {
    let repo = TestRepo::new();
    let id = looped_run(&repo);
    let dot = repo.ok(&["graph", &id]);
    let build = dot
        .lines()
        .find(|l| l.trim_start().starts_with("build ["))
        .unwrap();
    assert!(
        build.contains(r#"label="build\nsucceeded · 2 visits · "#),
        "{build}"
    );
    assert!(build.contains(r##"fillcolor="#d3f5d3""##), "{build}");
    let unused = dot
        .lines()
        .find(|l| l.trim_start().starts_with("unused ["))
        .unwrap();
    assert!(
        unused.contains(r#"label="unused""#),
        "not reached: {unused}"
    );
    for taken in [
        "start -> build",
        "build -> fix",
        "fix -> build",
        "build -> exit",
    ] {
        let line = dot.lines().find(|l| l.contains(taken)).unwrap();
        assert!(line.contains(TAKEN), "{line}");
    }
    let untaken = dot.lines().find(|l| l.contains("unused -> exit")).unwrap();
    assert!(!untaken.contains(TAKEN), "{untaken}");

    // The picture is itself a workflow git-fabro reads, with the same nodes and edges.
    let path = repo.write_beside("picture.dot", &dot);
    let report = run_ok(repo.fabro().arg("validate").arg(&path).arg("--json"));
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    assert_eq!(
        (report["nodes"].as_u64(), report["edges"].as_u64()),
        (Some(5), Some(5))
    );
    run_ok(repo.fabro().arg("graph").arg(&path));
}

#[test]
fn mermaid_has_a_class_per_status_and_the_path_as_thick_links() {
    let repo = TestRepo::new();
    let id = looped_run(&repo);
    let text = repo.ok(&["graph", &id, "--format", "mermaid"]);
    assert!(text.starts_with("flowchart TD\n"), "{text}");
    assert!(
        text.contains(r#"n2[/"build<br/>succeeded · 2 visits · "#),
        "{text}"
    );
    assert!(
        text.contains(r#"n3[/"fix #lt;it#gt; #amp; #quot;retry#quot;<br/>succeeded · 1 visit · "#),
        "labels are escaped: {text}"
    );
    assert!(text.contains("  n2 -->|\"fails\"| n3\n"), "{text}");
    assert!(text.contains("  class n0,n2,n3 succeeded\n"), "{text}");
    assert!(text.contains(&format!(
        "  linkStyle 0,1,2,3 stroke:{TAKEN},stroke-width:3px\n"
    )));
}

#[test]
fn svg_is_well_formed_and_names_every_node() {
    let repo = TestRepo::new();
    let id = looped_run(&repo);
    let svg = repo.ok(&["graph", &id, "--format", "svg"]);
    if let Err(err) = well_formed(&svg) {
        panic!("{err}\n{svg}");
    }
    for node in ["start", "exit", "build", "fix", "unused"] {
        assert!(
            svg.contains(&format!("<title>{node}</title>")),
            "{node}: {svg}"
        );
    }
    assert!(
        svg.contains("fix &lt;it&gt; &amp; &quot;retry&quot;"),
        "{svg}"
    );
    assert_eq!(
        svg.matches(&format!("stroke=\"{TAKEN}\"")).count(),
        4,
        "{svg}"
    );
}

#[test]
fn a_workflow_file_is_drawn_without_a_repository() {
    let repo = TestRepo::new();
    let outside = repo.root.join("outside");
    let path = outside.join("plain.fabro");
    write_file(
        &path,
        "digraph plain {\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n  start -> exit\n}\n",
    );
    let dot = run_ok(repo.fabro_in(&outside).args(["graph", "plain.fabro"]));
    assert!(
        dot.contains(r##"start [label="start", shape="Mdiamond", fillcolor="#ffffff""##),
        "{dot}"
    );
    assert!(!dot.contains(TAKEN), "{dot}");
}

#[test]
fn an_agent_run_has_no_workflow_to_draw() {
    let repo = TestRepo::new();
    let started = repo.start();
    let (code, err) = run_err(repo.fabro().args(["graph", &started.id]));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("records no workflow to draw"), "{err}");
}

/// Checks XML well-formedness as far as SVG needs: one root, every element closed in order,
/// quoted attributes, and `&` only as one of XML's five entities.
fn well_formed(xml: &str) -> Result<(), String> {
    let mut rest = xml.strip_prefix("<?xml").ok_or("no XML declaration")?;
    rest = &rest[rest.find("?>").ok_or("unclosed declaration")? + 2..];
    let mut open: Vec<&str> = Vec::new();
    let mut roots = 0;
    while let Some(at) = rest.find('<') {
        entities(&rest[..at])?;
        if open.is_empty() && !rest[..at].trim().is_empty() {
            return Err("text outside the root".into());
        }
        let end = rest[at..].find('>').ok_or("unclosed tag")? + at;
        let tag = &rest[at + 1..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            match open.pop() {
                Some(top) if top == name.trim() => {}
                top => return Err(format!("</{name}> closes {top:?}")),
            }
            continue;
        }
        let closed = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let name = tag.split_whitespace().next().ok_or("empty tag")?;
        attributes(&tag[name.len()..])?;
        if open.is_empty() {
            roots += 1;
        }
        if !closed {
            open.push(name);
        }
    }
    entities(rest)?;
    match (open.as_slice(), roots, rest.trim().is_empty()) {
        ([], 1, true) => Ok(()),
        (open, roots, _) => Err(format!("{roots} roots, left open: {open:?}")),
    }
}

fn attributes(mut text: &str) -> Result<(), String> {
    loop {
        text = text.trim_start();
        if text.is_empty() {
            return Ok(());
        }
        let eq = text
            .find("=\"")
            .ok_or(format!("unquoted attribute: {text}"))?;
        if text[..eq].contains(char::is_whitespace) {
            return Err(format!("attribute without a value: {text}"));
        }
        let value_end = text[eq + 2..].find('"').ok_or("unclosed value")? + eq + 2;
        entities(&text[eq + 2..value_end])?;
        text = &text[value_end + 1..];
    }
}

fn entities(text: &str) -> Result<(), String> {
    for (at, _) in text.match_indices('&') {
        let known = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"];
        if !known.iter().any(|e| text[at..].starts_with(e)) {
            return Err(format!("bare & in {text:?}"));
        }
    }
    Ok(())
}

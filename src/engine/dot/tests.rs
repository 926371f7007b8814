use std::time::Duration;

use super::parse;
use crate::engine::graph::{AttrValue, Graph};
use crate::engine::handler::Handler;

fn ok(source: &str) -> Graph {
    match parse(source, "w.fabro") {
        Ok(graph) => graph,
        Err(err) => panic!("{err}"),
    }
}

fn err(source: &str) -> String {
    match parse(source, "w.fabro") {
        Ok(_) => panic!("parsed: {source}"),
        Err(err) => err.to_string(),
    }
}

fn node_attr<'a>(graph: &'a Graph, node: &str, key: &str) -> Option<&'a AttrValue> {
    graph.node(node).and_then(|n| n.attrs.get(key))
}

/// `node`'s attribute `key` when it is a string.
fn node_text<'a>(graph: &'a Graph, node: &str, key: &str) -> Option<&'a str> {
    graph.node(node)?.str_attr(key)
}

fn text(s: &str) -> AttrValue {
    AttrValue::String(s.to_string())
}

#[test]
fn the_json_is_what_fabro_wrote_for_the_same_workflow() {
    let source = include_str!("../../../tests/fixtures/fabro-written/demo.fabro");
    let fabro: serde_json::Value = serde_json::from_str(include_str!(
        "../../../tests/fixtures/fabro-written/demo.graph.json"
    ))
    .expect("fixture JSON");
    let graph = ok(source);
    assert_eq!(graph.to_fabro_json(), fabro);
    assert_eq!((graph.node_count(), graph.edge_count()), (4, 4));
    assert_eq!(
        (graph.name(), graph.goal()),
        ("Demo", Some("add a greeting"))
    );
}

#[test]
fn values_are_typed_as_fabro_types_them() {
    let g = ok(r#"digraph T {
        a [n=3, q="3", f=0.5, nf=-.25, b=true, qb="true", t=900s, qt="15m", ms=250ms,
           i=900, model=gpt-5.2-codex, shape=box, neg=-4, d="2d", plus="+5s"]
    }"#);
    let expect = [
        ("n", AttrValue::Integer(3)),
        ("q", text("3")),
        ("f", AttrValue::Float(0.5)),
        ("nf", AttrValue::Float(-0.25)),
        ("b", AttrValue::Boolean(true)),
        ("qb", text("true")),
        ("t", AttrValue::Duration(Duration::from_secs(900))),
        ("qt", AttrValue::Duration(Duration::from_secs(900))),
        ("ms", AttrValue::Duration(Duration::from_millis(250))),
        ("i", AttrValue::Integer(900)),
        ("model", text("gpt-5.2-codex")),
        ("shape", text("box")),
        ("neg", AttrValue::Integer(-4)),
        ("d", AttrValue::Duration(Duration::from_secs(2 * 86_400))),
        ("plus", AttrValue::Duration(Duration::from_secs(5))),
    ];
    for (key, value) in expect {
        assert_eq!(node_attr(&g, "a", key), Some(&value), "{key}");
    }
    let json = g.to_fabro_json();
    assert_eq!(
        json["nodes"]["a"]["attrs"]["t"],
        serde_json::json!({"Duration": {"secs": 900, "nanos": 0}})
    );
    assert_eq!(
        json["nodes"]["a"]["attrs"]["ms"],
        serde_json::json!({"Duration": {"secs": 0, "nanos": 250_000_000}})
    );
}

#[test]
fn comments_are_removed_outside_strings_only() {
    let g = ok(
        "// leading\ndigraph C { /* a\nblock */ a [label=\"x // y /* z */\"] // tail\n a -> b }",
    );
    assert_eq!(node_text(&g, "a", "label"), Some("x // y /* z */"));
    assert_eq!(g.edge_count(), 1);
}

#[test]
fn quoted_strings_keep_unknown_escapes_and_raw_newlines() {
    let g = ok("digraph Q { a [p=\"say \\\"hi\\\"\\n\\tdone \\\\ \\d\\\nnext\n  line\"] }");
    assert_eq!(
        node_text(&g, "a", "p"),
        Some("say \"hi\"\n\tdone \\ \\d\\\nnext\n  line")
    );
}

#[test]
fn chains_make_one_edge_per_pair_with_the_statements_attributes() {
    let g = ok("digraph E { edge [weight=2] a -> b -> c [label=\"go\", weight=5]; c -> d }");
    let edges: Vec<_> = g
        .edges()
        .iter()
        .map(|e| (e.from.as_str(), e.to.as_str(), e.weight()))
        .collect();
    assert_eq!(edges, [("a", "b", 5), ("b", "c", 5), ("c", "d", 2)]);
    assert_eq!(g.edges()[1].label(), Some("go"));
    let ids: Vec<_> = g.nodes().iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d"]);
}

#[test]
fn defaults_reach_only_what_is_created_after_them() {
    let g = ok("digraph D { a; node [shape=tab] b; a [label=A]; a -> c }");
    assert_eq!(node_attr(&g, "a", "shape"), None);
    assert_eq!(node_text(&g, "b", "shape"), Some("tab"));
    assert_eq!(node_text(&g, "c", "shape"), Some("tab"));
    assert_eq!(node_text(&g, "a", "label"), Some("A"));
}

#[test]
fn subgraph_defaults_apply_from_its_start_and_end_with_it() {
    let g = ok(r#"digraph S {
        subgraph cluster_a {
            label = "Loop A"
            first
            node [thread_id="a"]
            second -> third
        }
        after
        graph [goal="g"]
    }"#);
    for id in ["first", "second", "third"] {
        assert_eq!(node_text(&g, id, "thread_id"), Some("a"), "{id}");
        assert_eq!(
            g.node(id).map(|n| n.classes.clone()),
            Some(vec!["loop-a".to_string()])
        );
    }
    assert_eq!(node_attr(&g, "after", "thread_id"), None);
    assert!(g.node("after").is_some_and(|n| n.classes.is_empty()));
    // Fabro's quirk: a subgraph's label is also written to the graph's attributes.
    assert_eq!(g.attrs().get("label"), Some(&text("Loop A")));
    assert_eq!(g.goal(), Some("g"));
}

#[test]
fn classes_and_legacy_modes() {
    let g = ok(
        r#"digraph L { a [class="fast, big", codergen_mode="one_shot"] b [codergen_mode="agent_loop", type="human"] }"#,
    );
    let a = g.node("a").expect("a");
    assert_eq!(a.classes, ["fast", "big"]);
    assert_eq!(Handler::of(a), Handler::Prompt);
    assert_eq!(g.node("b").map(Handler::of), Some(Handler::Human));
}

#[test]
fn keywords_only_introduce_statements_before_a_bracket() {
    let g = ok("digraph K { graph -> nodes; nodes [x=1]; subgraph_x -> edge; rankdir=LR }");
    assert_eq!(g.node_count(), 4);
    assert_eq!(g.attrs().get("rankdir"), Some(&text("LR")));
    assert_eq!(node_attr(&g, "nodes", "x"), Some(&AttrValue::Integer(1)));
}

#[test]
fn qualified_keys_and_empty_blocks() {
    let g = ok("digraph Q { m [stack.child_workflow=\"c.fabro\", manager.max_cycles=3]; e [] }");
    assert_eq!(node_text(&g, "m", "stack.child_workflow"), Some("c.fabro"));
    assert!(g.node("e").is_some_and(|n| n.attrs.is_empty()));
}

/// Each refusal whole: the position it points at and what it says.
#[test]
fn what_fabro_refuses_is_refused_with_a_position() {
    let sources = [
        "graph G { a }",
        "strict digraph G { a }",
        "digraph { a }",
        "digraph G {\n  \"a\" -> b\n}",
        "digraph G {\n  a -> 2b\n}",
        "digraph G { a [x=1 y=2] }",
        "digraph G { a [x=1;y=2] }",
        "digraph G { a [x=1,] }",
        "digraph G { a [t=10min] }",
        "digraph G { a [x=true-ish] }",
        "digraph G { a [label=<b>x</b>] }",
        "digraph G { a -- b }",
        "digraph G { a:n -> b }",
        "digraph G { a -> {b c} }",
        "digraph G { a [label=\"x\" + \"y\"] }",
        "digraph G { a }\nextra",
        "digraph G {\n  a [p=\"open\n}",
        "digraph G { /* open\n a }",
        "digraph G { a [x=99999999999999999999] }",
        "digraph G { a ",
        "digraph G { subgraph { a }; }",
        // `#` starts no comment in Fabro's dialect.
        "digraph C {\n# note\na }",
        // Columns count characters, and the comment removed still counts.
        "digraph G { /* é */ a [x=] }",
    ];
    let refused: String = sources
        .iter()
        .map(|source| format!("{source:?}\n  {}\n", err(source)))
        .collect();
    insta::assert_snapshot!(refused, @r#"
    "graph G { a }"
      w.fabro:1:1: expected `digraph` (Fabro workflows are directed graphs: digraph Name { ... }), found `g`
    "strict digraph G { a }"
      w.fabro:1:1: expected `digraph` (Fabro workflows are directed graphs: digraph Name { ... }), found `s`
    "digraph { a }"
      w.fabro:1:9: expected the workflow's name after `digraph` (an unquoted identifier), found `{`
    "digraph G {\n  \"a\" -> b\n}"
      w.fabro:2:3: expected a statement: a node id, an edge `a -> b`, `key = value`, `graph [..]`, `node [..]`, `edge [..]` or `subgraph { .. }` (node ids are unquoted identifiers), found a quoted string
    "digraph G {\n  a -> 2b\n}"
      w.fabro:2:8: expected a node id after `->` (an unquoted identifier), found `2`
    "digraph G { a [x=1 y=2] }"
      w.fabro:1:20: expected `,` or `]` (attributes are separated by commas), found `y`
    "digraph G { a [x=1;y=2] }"
      w.fabro:1:19: expected `,` or `]` (attributes are separated by commas), found `;`
    "digraph G { a [x=1,] }"
      w.fabro:1:20: a trailing comma is not allowed before `]`
    "digraph G { a [t=10min] }"
      w.fabro:1:20: expected `,` or `]` (attributes are separated by commas), found `m`
    "digraph G { a [x=true-ish] }"
      w.fabro:1:22: expected `,` or `]` (attributes are separated by commas), found `-`
    "digraph G { a [label=<b>x</b>] }"
      w.fabro:1:22: expected a value: a quoted string, a number, a duration such as 900s, true/false or a bare word, found `<` (Fabro's DOT has no HTML labels)
    "digraph G { a -- b }"
      w.fabro:1:15: expected a statement: a node id, an edge `a -> b`, `key = value`, `graph [..]`, `node [..]`, `edge [..]` or `subgraph { .. }` (node ids are unquoted identifiers), found `-`
    "digraph G { a:n -> b }"
      w.fabro:1:14: expected a statement: a node id, an edge `a -> b`, `key = value`, `graph [..]`, `node [..]`, `edge [..]` or `subgraph { .. }` (node ids are unquoted identifiers), found `:`
    "digraph G { a -> {b c} }"
      w.fabro:1:18: expected a node id after `->` (an unquoted identifier), found `{`
    "digraph G { a [label=\"x\" + \"y\"] }"
      w.fabro:1:26: expected `,` or `]` (attributes are separated by commas), found `+`
    "digraph G { a }\nextra"
      w.fabro:2:1: unexpected content after the graph's closing `}`
    "digraph G {\n  a [p=\"open\n}"
      w.fabro:2:8: unterminated string: this " has no closing quote
    "digraph G { /* open\n a }"
      w.fabro:1:13: unterminated comment: this /* has no */
    "digraph G { a [x=99999999999999999999] }"
      w.fabro:1:18: expected a value: a quoted string, a number, a duration such as 900s, true/false or a bare word, found `9`
    "digraph G { a "
      w.fabro:1:15: expected a statement or `}`, found the end of the file
    "digraph G { subgraph { a }; }"
      w.fabro:1:27: expected a statement: a node id, an edge `a -> b`, `key = value`, `graph [..]`, `node [..]`, `edge [..]` or `subgraph { .. }` (node ids are unquoted identifiers), found `;`
    "digraph C {\n# note\na }"
      w.fabro:2:1: expected a statement: a node id, an edge `a -> b`, `key = value`, `graph [..]`, `node [..]`, `edge [..]` or `subgraph { .. }` (node ids are unquoted identifiers), found `#` (Fabro's DOT has // and /* */ comments only)
    "digraph G { /* é */ a [x=] }"
      w.fabro:1:26: expected a value: a quoted string, a number, a duration such as 900s, true/false or a bare word, found `]`
    "#);
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let source = format!("digraph G {{ {} }}", "subgraph { ".repeat(10_000));
    assert!(err(&source).contains("nested deeper"));
}

/// Every workflow in Fabro's repository (tests/fixtures/fabro-workflows) parses.
#[test]
fn every_workflow_in_fabros_repository_parses() {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("fixtures").flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "fabro" || e == "dot") {
                out.push(path);
            }
        }
    }
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fabro-workflows");
    let mut files = Vec::new();
    walk(&root, &mut files);
    assert!(files.len() >= 88, "{} workflows", files.len());
    let failures: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let source = std::fs::read_to_string(path).expect("a workflow");
            parse(&source, &path.display().to_string())
                .err()
                .map(|e| e.to_string())
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

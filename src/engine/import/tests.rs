use crate::engine::graph::Graph;
use crate::engine::workflow::{self, Loaded};

/// Loads `host` from a temporary directory holding `files`.
fn load(files: &[(&str, &str)], host: &str) -> Loaded {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("dir");
        std::fs::write(path, text).expect("write");
    }
    std::fs::write(dir.path().join("host.fabro"), host).expect("write");
    workflow::load(&dir.path().join("host.fabro"), "WORKFLOW", None).expect("loads")
}

fn host(placeholder: &str, edges: &str) -> String {
    format!(
        "digraph Host {{ start [shape=Mdiamond]; exit [shape=Msquare]\n{placeholder}\n{edges} }}"
    )
}

const PART: &str = "digraph part { start [shape=Mdiamond]; exit [shape=Msquare]
    lint [prompt=\"Lint\", retry_target=\"test\", model=\"opus\", class=\"code\"]
    test [prompt=\"Test\"]
    start -> lint -> test -> exit }";

const EMPTY: &str = "digraph empty { start [shape=Mdiamond]; exit [shape=Msquare]; start -> exit }";

fn reason<'g>(graph: &'g Graph, id: &str) -> Option<&'g str> {
    graph.node(id)?.str_attr("import_error")
}

fn edges(graph: &Graph) -> Vec<(String, String)> {
    let pairs = graph.edges().iter().map(|e| (e.from.clone(), e.to.clone()));
    pairs.collect()
}

fn pair(from: &str, to: &str) -> (String, String) {
    (from.to_owned(), to.to_owned())
}

#[test]
fn the_placeholder_gives_defaults_and_classes_and_retry_targets_are_prefixed() {
    let loaded = load(
        &[("part.fabro", PART)],
        &host(
            "run_checks [import=\"part.fabro\", model=\"haiku\", class=\"fast, shared\"]",
            "start -> run_checks -> exit",
        ),
    );
    let g = &loaded.graph;
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let lint = g.node("run_checks.lint").expect("lint");
    let test = g.node("run_checks.test").expect("test");
    assert_eq!(lint.str_attr("model"), Some("opus"));
    assert_eq!(test.str_attr("model"), Some("haiku"));
    assert_eq!(lint.str_attr("retry_target"), Some("run_checks.test"));
    assert_eq!(lint.classes, ["code", "fast", "shared", "runchecks"]);
    assert_eq!(test.classes, ["fast", "shared", "runchecks"]);
    assert!(g.node("run_checks").is_none() && g.node("run_checks.start").is_none());
    assert_eq!(
        edges(g),
        [
            pair("run_checks.lint", "run_checks.test"),
            pair("start", "run_checks.lint"),
            pair("run_checks.test", "exit"),
        ]
    );
}

#[test]
fn the_host_edges_keep_their_attributes_when_rewired() {
    let loaded = load(
        &[("part.fabro", PART)],
        &host(
            "checks [import=\"./part.fabro\"]",
            "start -> checks [label=\"go\", condition=\"outcome=success\"]\nchecks -> exit [weight=3]",
        ),
    );
    let g = &loaded.graph;
    let into = g.outgoing("start").next().expect("edge");
    assert_eq!(
        (into.to.as_str(), into.label()),
        ("checks.lint", Some("go"))
    );
    assert_eq!(into.condition(), Some("outcome=success"));
    let out = g.incoming("exit").next().expect("edge");
    assert_eq!((out.from.as_str(), out.weight()), ("checks.test", 3));
}

#[test]
fn a_part_imported_twice_gets_two_prefixes() {
    let loaded = load(
        &[("part.fabro", PART)],
        &host(
            "left [import=\"part.fabro\"]; right [import=\"part.fabro\"]",
            "start -> left -> right -> exit",
        ),
    );
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    assert!(loaded.graph.node("left.lint").is_some());
    assert!(edges(&loaded.graph).contains(&pair("left.test", "right.lint")));
}

#[test]
fn an_empty_part_joins_plain_edges_and_refuses_routing_ones() {
    let plain = load(
        &[("empty.fabro", EMPTY)],
        &host(
            "a [prompt=\"A\"]; skip [import=\"empty.fabro\"]",
            "start -> a -> skip -> exit",
        ),
    );
    assert!(plain.graph.node("skip").is_none());
    assert_eq!(edges(&plain.graph), [pair("start", "a"), pair("a", "exit")]);

    let routed = load(
        &[("empty.fabro", EMPTY)],
        &host(
            "skip [import=\"empty.fabro\"]",
            "start -> skip [condition=\"outcome=success\"]\nskip -> exit",
        ),
    );
    assert!(
        reason(&routed.graph, "skip").is_some_and(|r| r.starts_with("empty import 'skip'")),
        "{:?}",
        routed.graph.node("skip")
    );
}

#[test]
fn a_part_without_one_plain_way_in_and_out_is_an_import_error() {
    let cases = [
        (
            "digraph p { start [shape=Mdiamond]; exit [shape=Msquare]; start -> a; start -> b; a -> exit; b -> exit }",
            "imported node 'start' must have exactly one successor",
        ),
        (
            "digraph p { start [shape=Mdiamond]; exit [shape=Msquare]; start -> a; a -> exit; b -> exit }",
            "imported node 'exit' must have exactly one predecessor",
        ),
        (
            "digraph p { start [shape=Mdiamond]; exit [shape=Msquare]; start -> a [label=\"x\"]; a -> exit }",
            "imported edge 'start -> a' must not carry routing attributes",
        ),
        (
            "digraph p { a [prompt=\"A\"] }",
            "the imported workflow must have exactly one start node, it has 0",
        ),
        (
            "digraph p { start [shape=Mdiamond]; exit [shape=Msquare]; orphan; start -> exit }",
            "imported start node 'start' leads straight to the exit, past its other nodes",
        ),
        ("digraph p {", "cannot parse "),
    ];
    for (part, expected) in cases {
        let loaded = load(
            &[("p.fabro", part)],
            &host("p [import=\"p.fabro\"]", "start -> p -> exit"),
        );
        let found = reason(&loaded.graph, "p");
        assert!(
            found.is_some_and(|r| r.starts_with(expected)),
            "{part}: {found:?}"
        );
        let rules: Vec<&str> = loaded.diagnostics.iter().map(|d| d.rule.as_str()).collect();
        assert!(rules.contains(&"import_error"), "{part}: {rules:?}");
    }
}

#[test]
fn the_placeholder_may_carry_only_defaults() {
    let extra = load(
        &[("part.fabro", PART)],
        &host(
            "checks [import=\"part.fabro\", selection=\"random\"]",
            "start -> checks -> exit",
        ),
    );
    assert_eq!(
        reason(&extra.graph, "checks"),
        Some(
            "import placeholder 'checks' has attribute 'selection', which an import cannot pass on"
        )
    );
}

#[test]
fn file_references_of_a_part_are_relative_to_it() {
    let part = "digraph p { start [shape=Mdiamond]; exit [shape=Msquare]
        lint [prompt=\"@lint.md\"]; start -> lint -> exit }";
    let found = load(
        &[("sub/p.fabro", part), ("sub/lint.md", "Lint it.")],
        &host("p [import=\"sub/p.fabro\"]", "start -> p -> exit"),
    );
    let prompt = found
        .graph
        .node("p.lint")
        .and_then(|n| n.str_attr("prompt"));
    assert_eq!(prompt, Some("Lint it."));

    let missing = load(
        &[("sub/p.fabro", part)],
        &host("p [import=\"sub/p.fabro\"]", "start -> p -> exit"),
    );
    assert_eq!(
        reason(&missing.graph, "p"),
        Some("node 'lint' of the imported workflow has an unresolved file reference: @lint.md")
    );
}

#[test]
fn a_workflow_given_as_text_cannot_import() {
    let source = host("p [import=\"p.fabro\"]", "start -> p -> exit");
    let loaded = workflow::load_source(&source, "child").expect("parses");
    let d = loaded.diagnostics.iter().find(|d| d.rule == "import_error");
    assert!(
        d.is_some_and(|d| d.message.contains("no directory to import from")),
        "{:?}",
        loaded.diagnostics
    );
}

#[test]
fn several_placeholders_splice_in_order_with_edges_in_fabros_order() {
    let two = "digraph two { start [shape=Mdiamond]; exit [shape=Msquare]\n  \
               a [prompt=\"A\"]; b [prompt=\"B\"]; start -> a -> b -> exit }";
    let loaded = load(
        &[("two.fabro", two), ("empty.fabro", EMPTY)],
        &host(
            "x [import=\"two.fabro\"]; y [import=\"two.fabro\"]; z [import=\"empty.fabro\"]\n\
             w [prompt=\"W\"]; bad [import=\"nowhere.fabro\"]",
            "start -> x -> y -> z -> w -> exit\nstart -> y\nx -> w\nz -> exit\nw -> bad -> exit",
        ),
    );
    let g = &loaded.graph;
    let ids: Vec<&str> = g.nodes().iter().map(|n| n.id.as_str()).collect();
    let got: Vec<String> = edges(g).iter().map(|(f, t)| format!("{f}>{t}")).collect();
    assert_eq!(
        ids,
        ["start", "exit", "x.a", "x.b", "y.a", "y.b", "w", "bad"]
    );
    // Each splice keeps the edges around it in order, then adds the part's edges and the
    // rewired ones: what splicing the placeholders one after the other gives.
    let want = [
        "w>exit",
        "w>bad",
        "bad>exit",
        "x.a>x.b",
        "start>x.a",
        "x.b>w",
        "y.a>y.b",
        "start>y.a",
        "x.b>y.a",
        "y.b>w",
        "y.b>exit",
    ];
    assert_eq!(got, want);
    assert!(reason(g, "bad").is_some_and(|r| r.starts_with("file not found")));
}

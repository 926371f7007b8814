use super::{Severity, validate};
use crate::engine::workflow::parse;

/// `rule: message` of each finding, in order.
fn findings(source: &str) -> Vec<String> {
    let graph = parse(source, "t.fabro").expect("parses");
    validate(&graph)
        .iter()
        .map(|d| format!("{}: {}", d.rule, d.message))
        .collect()
}

const FRAME: &str = "start [shape=Mdiamond]; exit [shape=Msquare];";

#[test]
fn a_clean_workflow_has_no_findings() {
    let f = findings(&format!(
        "digraph G {{ {FRAME} a [prompt=\"x\"]; start -> a -> exit }}"
    ));
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn structure_rules_run_in_fabros_order() {
    let f = findings(
        "digraph G { s1 [shape=Mdiamond]; start; exit -> a; end; lost [label=\"L\"]; a -> start }",
    );
    // s1 is the start node Fabro finds (the Mdiamond), so no start_no_incoming; nodes are
    // visited in the order the workflow first names them.
    assert_eq!(
        f,
        [
            "start_node: Pipeline has 2 start nodes but must have exactly one",
            "terminal_node: Pipeline must have exactly one terminal node, found 2",
            "reachability: Node 'a' is not reachable from the start node",
            "reachability: Node 'end' is not reachable from the start node",
            "reachability: Node 'exit' is not reachable from the start node",
            "reachability: Node 'lost' is not reachable from the start node",
            "reachability: Node 'start' is not reachable from the start node",
            "exit_no_outgoing: Exit node 'exit' has 1 outgoing edge(s) but must have none",
            "prompt_on_llm_nodes: LLM node 'start' has no prompt or label attribute",
            "prompt_on_llm_nodes: LLM node 'exit' has no prompt or label attribute",
            "prompt_on_llm_nodes: LLM node 'a' has no prompt or label attribute",
            "prompt_on_llm_nodes: LLM node 'end' has no prompt or label attribute",
            // git-fabro's own, after Fabro's.
            "edge_target_declared: Node 'exit' is named only by an edge, never declared: DOT creates it, and Fabro runs it as an agent",
            "edge_target_declared: Node 'a' is named only by an edge, never declared: DOT creates it, and Fabro runs it as an agent",
        ]
    );
}

#[test]
fn node_and_edge_rules() {
    let f = findings(&format!(
        r#"digraph G {{ {FRAME}
        h [shape=hexagon, label="H"]; a [label="A", selection="random"]; b [label="B", type="magic"]
        c [shape=parallelogram, script="cd   /tmp && ls"]; graph [label="G"]; node_ [label="N"]
        g [label="G", goal_gate=true, fidelity="high", thread_id="t", retry_target="nowhere"]
        start -> h
        h -> a [freeform=true]
        h -> b [freeform=true]
        a -> b [condition="outcome=succeeded"]
        a -> exit
        b -> c -> g -> exit
        g -> exit [thread_id="u"]
        }}"#
    ));
    let expected = [
        "type_known: Node 'b' has unrecognized type 'magic'",
        "fidelity_valid: Node 'g' has invalid fidelity mode 'high'",
        "retry_target_exists: Node 'g' has retry_target 'nowhere' that does not exist",
        "freeform_edge_count: wait.human node 'h' has 2 freeform edges but at most one is allowed",
        "script_absolute_cd: Script node 'c' contains `cd /…` with an absolute path",
        "thread_id_requires_fidelity_full: Node 'g' has thread_id but fidelity is not 'full'",
        "thread_id_requires_fidelity_full: Edge g -> exit has thread_id but fidelity is not 'full'",
        "random_selection_no_conditions: Node 'a' has selection=\"random\" but also has conditional edges; random selection and conditions cannot be combined",
    ];
    for line in expected {
        assert!(f.iter().any(|l| l == line), "missing {line:?} in {f:#?}");
    }
    // g has a retry_target, even one that does not exist: no goal_gate_has_retry.
    assert!(
        !f.iter().any(|l| l.starts_with("goal_gate_has_retry")),
        "{f:#?}"
    );
}

#[test]
fn conditional_routing_rules() {
    let f = findings(&format!(
        r#"digraph G {{ {FRAME} a [label="A"]; start -> a
        a -> exit [condition="outcome=succeeded"]
        a -> a [condition="outcome!=succeeded"] }}"#
    ));
    assert_eq!(
        f,
        [
            "all_conditional_edges: Node 'a' has all conditional outgoing edges with no unconditional fallback",
            "orphan_custom_outcome: Node 'a' uses outcome-based routing but has no unconditional fallback edge",
        ]
    );
}

#[test]
fn stylesheet_and_graph_attributes() {
    let source = format!(
        r#"digraph G {{ {FRAME} start -> exit
        graph [model_stylesheet="* {{ model gpt }}", default_thread="t", default_fidelity="wide"] }}"#
    );
    let graph = parse(&source, "t.fabro").expect("parses");
    let diagnostics = validate(&graph);
    let messages: Vec<_> = diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "Model stylesheet parse error: Stylesheet error: expected ':' after property name 'model'",
            "Graph has invalid default_fidelity 'wide'",
            "Graph has default_thread but default_fidelity is not 'full'",
        ]
    );
    assert_eq!(diagnostics[0].severity, Severity::Error);
    assert_eq!(diagnostics[1].severity, Severity::Warning);
}

#[test]
fn reserved_ids_and_file_references() {
    let f = findings(&format!(
        r#"digraph G {{ {FRAME} Node [prompt="@missing.md"]; start -> Node -> exit; goal="@goal.md" }}"#
    ));
    assert_eq!(
        f,
        [
            "reserved_keyword_node_id: Node ID 'Node' is a DOT reserved keyword and may cause parsing failures",
            "unresolved_file_ref: Node 'Node' has unresolved file reference: @missing.md",
            "unresolved_file_ref: Graph goal has unresolved file reference: @goal.md",
        ]
    );
}

#[test]
fn names_fabro_does_not_know_are_warnings_with_the_closest_known_one() {
    let graph = parse(
        &format!(
            "digraph G {{ {FRAME} ask [shape=hexagn, label=\"Go?\"]; \
             run [shape=parallelogram, script=\"true\", timout=\"5s\", color=red]; \
             draw [shape=circle, type=command, script=\"true\"]; plan [prompt=\"p\"]; \
             start -> ask -> run -> plann -> exit }}"
        ),
        "t.fabro",
    )
    .expect("parses");
    let found: Vec<(String, Severity, Option<String>)> = validate(&graph)
        .into_iter()
        .filter(|d| d.rule.ends_with("_known") || d.rule == "edge_target_declared")
        .map(|d| (d.rule, d.severity, d.fix))
        .collect();
    let fix = |s: &str| Some(s.to_owned());
    assert_eq!(
        found,
        [
            (
                "shape_known".into(),
                Severity::Warning,
                fix("Did you mean hexagon?")
            ),
            (
                "attribute_known".into(),
                Severity::Warning,
                fix("Did you mean timeout?")
            ),
            (
                "edge_target_declared".into(),
                Severity::Warning,
                fix("Did you mean plan?")
            ),
        ]
    );
}

//! The text of small Fabro workflows, for tests about what a run does rather than how its DOT
//! is spelled: Fabro's start and exit nodes and the edges of a chain are written here once.

/// A workflow `name` that runs `nodes` one after another, `start -> first -> ... -> exit`.
/// Each node is a DOT node statement, `id [attributes]`.
pub fn chain(name: &str, nodes: &[&str]) -> String {
    let ids: Vec<&str> = nodes.iter().map(|node| id_of(node)).collect();
    let edges = format!("start -> {} -> exit", ids.join(" -> "));
    between(name, &format!("{}\n{edges}", nodes.join("\n")))
}

/// A workflow `name` that runs the command nodes `(id, script)` one after another.
pub fn commands(name: &str, nodes: &[(&str, &str)]) -> String {
    let nodes: Vec<String> = nodes
        .iter()
        .map(|(id, script)| command(id, script))
        .collect();
    chain(name, &nodes.iter().map(String::as_str).collect::<Vec<_>>())
}

/// A workflow `name` of `body` (DOT node and edge statements, a line each) beside Fabro's
/// start and exit nodes, for graphs that branch or loop.
pub fn between(name: &str, body: &str) -> String {
    let mut text = format!("digraph {name} {{\n  start [shape=Mdiamond]\n  exit [shape=Msquare]\n");
    for statement in body.lines().map(str::trim).filter(|line| !line.is_empty()) {
        text.push_str(&format!("  {statement}\n"));
    }
    text + "}\n"
}

/// The statements of a fan-out: the parallel node `fork` (a node statement) runs the command
/// nodes `branches` (id, script) side by side, in this edge order, and the fan-in `join` (a
/// node statement) waits for them. The edges into `fork` and out of `join` are the caller's.
pub fn parallel(fork: &str, branches: &[(&str, &str)], join: &str) -> String {
    let (fork_id, join_id) = (id_of(fork), id_of(join));
    let mut statements = vec![fork.to_owned()];
    statements.extend(branches.iter().map(|(id, script)| command(id, script)));
    statements.push(join.to_owned());
    statements.extend(branches.iter().map(|(id, _)| format!("{fork_id} -> {id}")));
    statements.extend(branches.iter().map(|(id, _)| format!("{id} -> {join_id}")));
    statements.join("\n")
}

/// A workflow `name` that runs the command nodes `branches` (id, script) side by side, from
/// the parallel node `fork` to the fan-in `merge`, and then exits.
pub fn fan_out(name: &str, branches: &[(&str, &str)]) -> String {
    let body = parallel("fork [shape=component]", branches, MERGE);
    between(name, &format!("{body}\nstart -> fork\nmerge -> exit"))
}

/// The fan-in node of [`fan_out`]: it waits for every branch.
pub const MERGE: &str = "merge [shape=tripleoctagon]";

/// A workflow `name` that stops at the human gate `approve` ("Go on?") and, answered `Y`,
/// runs the node statement `node` and exits: for tests of what a resume goes on with.
pub fn gated(name: &str, node: &str) -> String {
    let id = id_of(node);
    let gate = r#"approve [shape=hexagon, label="Go on?"]"#;
    between(
        name,
        &format!(
            "{gate}\n{node}\nstart -> approve\napprove -> {id} [label=\"[Y] Yes\"]\n{id} -> exit"
        ),
    )
}

/// A command node statement: `id` runs `script` with the shell.
pub fn command(id: &str, script: &str) -> String {
    format!("{id} [shape=parallelogram, script={}]", quoted(script))
}

/// `text` as a DOT string.
pub fn quoted(text: &str) -> String {
    let escaped = text
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n");
    format!("\"{escaped}\"")
}

fn id_of(node: &str) -> &str {
    node.split([' ', '[']).next().unwrap_or(node)
}

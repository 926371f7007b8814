//! Templates in workflow attributes, as Fabro renders them before a run: every string
//! attribute of the graph, its nodes and its edges goes through MiniJinja with `{{ goal }}`
//! and `{{ inputs.<key> }}` in scope, nothing else. Undefined variables are errors (strict
//! mode), so a typo stops the run instead of sending an agent a prompt with a hole in it.
//! Text without `{{`, `{%` or `{#` is left exactly as written.

use std::collections::BTreeMap;

use minijinja::{AutoEscape, Environment, ErrorKind, UndefinedBehavior};

use super::graph::{AttrValue, Graph, Node};
use super::script_template;

pub use script_template::VALUE_PREFIX as SCRIPT_VALUE_PREFIX;

/// The attributes that hold a command node's script.
const SCRIPT_ATTRS: &[&str] = &["script", "tool_command"];

/// The attribute that holds a manager loop's inline child workflow. Rendered as text, a value
/// would become part of the child's DOT source: new nodes, new attributes, a script's code.
/// So it is only checked here and kept as written; the child is parsed from it as written and
/// rendered as a graph of its own when it runs ([`render_graph`] again).
pub const CHILD_SOURCE_ATTR: &str = "stack.child_dot_source";

/// What templates may refer to.
#[derive(Debug, Clone, Default)]
pub struct TemplateContext {
    pub goal: String,
    pub inputs: BTreeMap<String, String>,
}

const UNDEFINED: &str = "template referenced an undefined variable";

pub(super) fn is_plain(text: &str) -> bool {
    !text.contains("{{") && !text.contains("{%") && !text.contains("{#")
}

/// What one attribute's rendering may spend: MiniJinja's fuel (about one unit an instruction
/// and one per 64 bytes made) and nesting depth. Real templates use a few thousand; nested
/// loops over `range` or a macro calling itself stop here, with an error naming the node,
/// instead of hanging `run`.
const FUEL: u64 = 2_000_000;
const RECURSION_LIMIT: usize = 100;

pub(super) fn strict() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_fuel(Some(FUEL));
    env.set_recursion_limit(RECURSION_LIMIT);
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_auto_escape_callback(|_| AutoEscape::None);
    env
}

pub(super) fn describe(err: &minijinja::Error) -> String {
    let kind = match err.kind() {
        ErrorKind::SyntaxError => "template syntax error",
        ErrorKind::UndefinedError => UNDEFINED,
        ErrorKind::OutOfFuel => "template too costly to render",
        _ => "template render error",
    };
    format!("{kind}: {err}")
}

/// Renders `text`; the error says what went wrong in Fabro's words.
pub fn render(text: &str, ctx: &TemplateContext) -> Result<String, String> {
    if is_plain(text) {
        return Ok(text.to_owned());
    }
    let values = minijinja::context! { goal => &ctx.goal, inputs => &ctx.inputs };
    strict()
        .render_str(text, values)
        .map_err(|err| describe(&err))
}

/// What is wrong with `text` whatever the run's goal and inputs: a syntax error, or a
/// variable other than `goal` and `inputs` (which inputs exist is known only at the run).
pub fn problem(text: &str) -> Option<String> {
    if is_plain(text) {
        return None;
    }
    let env = strict();
    let template = match env.template_from_str(text) {
        Ok(template) => template,
        Err(err) => return Some(describe(&err)),
    };
    let mut unknown: Vec<String> = template
        .undeclared_variables(false)
        .into_iter()
        .filter(|v| v != "goal" && v != "inputs" && !env.globals().any(|(g, _)| g == v))
        .collect();
    unknown.sort();
    (!unknown.is_empty()).then(|| format!("{UNDEFINED}: {}", unknown.join(", ")))
}

/// The graph with every string attribute rendered. The run's goal is `given` (`--goal`, or
/// the one a run recorded) taken as written: it is the user's text, not a template. Without
/// one, the workflow's `goal` attribute is rendered first (it may use inputs; `{{ goal }}`
/// inside it stays as written). Everything else then sees the goal, and it becomes the
/// graph's `goal`. A command node's `script` reads its values from the environment
/// ([`script_template`]); an inline child workflow is checked and kept as written
/// ([`CHILD_SOURCE_ATTR`]).
pub fn render_graph(
    graph: &Graph,
    given: Option<&str>,
    inputs: &BTreeMap<String, String>,
) -> Result<Graph, String> {
    let own = TemplateContext {
        goal: "{{ goal }}".into(),
        inputs: inputs.clone(),
    };
    let goal = match given {
        Some(goal) => goal.to_owned(),
        None => {
            render(graph.goal().unwrap_or_default(), &own).map_err(|e| format!("the goal: {e}"))?
        }
    };
    let ctx = TemplateContext {
        goal,
        inputs: inputs.clone(),
    };
    let mut graph = graph.clone();
    graph.attrs.remove("goal");
    render_attrs(&mut graph.attrs, &ctx, "the graph", &[])?;
    graph
        .attrs
        .insert("goal".into(), AttrValue::String(ctx.goal.clone()));
    for node in &mut graph.nodes {
        let place = format!("node {}", node.id);
        render_script_attrs(node, &ctx, &place)?;
        if let Some(source) = node.str_attr(CHILD_SOURCE_ATTR) {
            render(source, &ctx)
                .map_err(|e| format!("{place}, attribute {CHILD_SOURCE_ATTR}: {e}"))?;
        }
        let kept = [SCRIPT_ATTRS, &[CHILD_SOURCE_ATTR]].concat();
        render_attrs(&mut node.attrs, &ctx, &place, &kept)?;
    }
    for edge in &mut graph.edges {
        let place = format!("edge {} -> {}", edge.from, edge.to);
        render_attrs(&mut edge.attrs, &ctx, &place, &[])?;
    }
    Ok(graph)
}

/// Renders the node's `script` (or Fabro's older `tool_command`) so that its values reach it
/// through the environment.
fn render_script_attrs(node: &mut Node, ctx: &TemplateContext, place: &str) -> Result<(), String> {
    let language = node.str_attr("language").unwrap_or("shell").to_owned();
    for key in SCRIPT_ATTRS {
        if let Some(AttrValue::String(text)) = node.attrs.get_mut(*key) {
            let (script, values) = script_template::render_script(text, ctx, &language)
                .map_err(|e| format!("{place}, attribute {key}: {e}"))?;
            *text = script;
            node.template_values.extend(values);
        }
    }
    Ok(())
}

/// Renders every string attribute but those in `skip`.
fn render_attrs(
    attrs: &mut BTreeMap<String, AttrValue>,
    ctx: &TemplateContext,
    place: &str,
    skip: &[&str],
) -> Result<(), String> {
    for (key, value) in attrs.iter_mut() {
        if skip.contains(&key.as_str()) {
            continue;
        }
        if let AttrValue::String(text) = value {
            *text = render(text, ctx).map_err(|e| format!("{place}, attribute {key}: {e}"))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> TemplateContext {
        TemplateContext {
            goal: "Fix bugs".into(),
            inputs: [("name".to_string(), "Ada".to_string())].into(),
        }
    }

    #[test]
    fn goal_and_inputs_render() {
        let text = render("Do {{ goal }} for {{ inputs.name | upper }}", &ctx()).unwrap();
        assert_eq!(text, "Do Fix bugs for ADA");
    }

    #[test]
    fn plain_text_is_untouched() {
        assert_eq!(render("$goal {x}", &ctx()).unwrap(), "$goal {x}");
    }

    #[test]
    fn undefined_variables_and_bad_syntax_are_errors() {
        let err = render("{{ goals }}", &ctx()).unwrap_err();
        assert!(
            err.starts_with("template referenced an undefined variable"),
            "{err}"
        );
        let err = render("{{ inputs.nope }}", &ctx()).unwrap_err();
        assert!(err.contains("undefined"), "{err}");
        let err = render("{{ goal ", &ctx()).unwrap_err();
        assert!(err.starts_with("template syntax error"), "{err}");
    }

    #[test]
    fn problems_known_before_the_run_are_found() {
        assert_eq!(problem("plain {x}"), None);
        assert_eq!(
            problem("{{ goal }} {{ inputs.any }} {{ range(3) | list }}"),
            None
        );
        let found = problem("{{ gaol }} {% for x in items %}{{ x }}{% endfor %}").unwrap();
        assert_eq!(found, format!("{UNDEFINED}: gaol, items"));
        assert!(
            problem("{% if %}")
                .unwrap()
                .starts_with("template syntax error")
        );
    }

    #[test]
    fn an_inline_child_is_checked_and_kept_as_written() {
        let child = |input: &str| {
            let child = format!("digraph c {{ s [label=\\\"{{{{ inputs.{input} }}}}\\\"] }}");
            let source =
                format!("digraph g {{ m [shape=house, stack.child_dot_source=\"{child}\"] }}");
            crate::engine::workflow::parse(&source, "g.fabro").unwrap()
        };
        let err = render_graph(&child("nope"), None, &ctx().inputs).unwrap_err();
        assert!(
            err.starts_with("node m, attribute stack.child_dot_source"),
            "{err}"
        );
        let rendered = render_graph(&child("name"), None, &ctx().inputs).unwrap();
        let kept = rendered.node("m").unwrap().str_attr(CHILD_SOURCE_ATTR);
        assert_eq!(kept, Some("digraph c { s [label=\"{{ inputs.name }}\"] }"));
    }

    #[test]
    fn the_goal_may_use_inputs_and_every_attribute_sees_it() {
        let source = r#"digraph g {
  graph [goal="Greet {{ inputs.name }}"]
  start [shape=Mdiamond]
  exit [shape=Msquare]
  work [prompt="Goal: {{ goal }}"]
  start -> work [label="{{ inputs.name }}"]
  work -> exit
}"#;
        let graph = crate::engine::workflow::parse(source, "g.fabro").unwrap();
        let inputs = ctx().inputs;
        let rendered = render_graph(&graph, None, &inputs).unwrap();
        assert_eq!(
            rendered.node("work").unwrap().str_attr("prompt"),
            Some("Goal: Greet Ada")
        );
        assert_eq!(rendered.goal(), Some("Greet Ada"));
        assert_eq!(rendered.edges()[0].label(), Some("Ada"));
        let err = render_graph(&graph, None, &BTreeMap::new()).unwrap_err();
        let given = render_graph(&graph, Some("{{ inputs.name }}"), &inputs).unwrap();
        assert_eq!(given.goal(), Some("{{ inputs.name }}"));
        assert!(err.starts_with("the goal: template referenced"), "{err}");
    }
}

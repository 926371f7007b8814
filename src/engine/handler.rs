//! What a node runs, resolved once and typed: validation, the dry run, the engine and the
//! progress line all ask [`Handler::of`], so none of them can classify a node differently.
//! Adding a handler is a variant here; every `match` on it then tells the compiler where the
//! new handler still needs its behaviour.

use super::graph::Node;

/// Fabro's handlers (`handler/mod.rs::default_registry`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handler {
    Start,
    Exit,
    /// A multi-turn agent with tools (`agent`, legacy `agent_loop`), the default.
    Agent,
    /// One call of the agent command (`prompt`, legacy `one_shot`).
    Prompt,
    Human,
    Conditional,
    Parallel,
    FanIn,
    /// A shell script (`command`, legacy `tool`).
    Command,
    ManagerLoop,
    Wait,
}

/// Every handler, in the order Fabro registers them.
const ALL: [Handler; 11] = [
    Handler::Start,
    Handler::Exit,
    Handler::Agent,
    Handler::Prompt,
    Handler::Human,
    Handler::Conditional,
    Handler::Parallel,
    Handler::FanIn,
    Handler::Command,
    Handler::ManagerLoop,
    Handler::Wait,
];

/// The older `type` values Fabro still takes for a handler, besides its name.
const LEGACY_TYPES: &[(&str, Handler)] = &[
    ("agent_loop", Handler::Agent),
    ("one_shot", Handler::Prompt),
    ("tool", Handler::Command),
];

/// Fabro's shapes and the handlers they stand for (`shape_to_handler_type`).
const SHAPES: &[(&str, Handler)] = &[
    ("Mdiamond", Handler::Start),
    ("Msquare", Handler::Exit),
    ("box", Handler::Agent),
    ("tab", Handler::Prompt),
    ("hexagon", Handler::Human),
    ("diamond", Handler::Conditional),
    ("component", Handler::Parallel),
    ("tripleoctagon", Handler::FanIn),
    ("parallelogram", Handler::Command),
    ("house", Handler::ManagerLoop),
    ("insulator", Handler::Wait),
];

impl Handler {
    /// As Fabro resolves it: the node's `type` when Fabro knows it, else its shape's (`box`
    /// when it has none), else an agent.
    pub fn of(node: &Node) -> Handler {
        node.str_attr("type")
            .and_then(Handler::named)
            .or_else(|| Handler::for_shape(node.shape()))
            .unwrap_or(Handler::Agent)
    }

    /// The handler a `type` value names, if Fabro knows it: its name or a legacy spelling.
    pub fn named(name: &str) -> Option<Handler> {
        let legacy = || {
            LEGACY_TYPES
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, h)| *h)
        };
        ALL.into_iter().find(|h| h.as_str() == name).or_else(legacy)
    }

    /// The handler a shape stands for (Fabro's `shape_to_handler_type`).
    pub fn for_shape(shape: &str) -> Option<Handler> {
        SHAPES.iter().find(|(s, _)| *s == shape).map(|(_, h)| *h)
    }

    /// Every shape Fabro gives a handler, for messages.
    pub fn shape_names() -> impl Iterator<Item = &'static str> {
        SHAPES.iter().map(|(shape, _)| *shape)
    }

    /// Every `type` value Fabro accepts, for messages: each handler's name, then its legacy
    /// spellings.
    pub fn type_names() -> impl Iterator<Item = &'static str> {
        ALL.into_iter().flat_map(|handler| {
            let legacy = LEGACY_TYPES.iter().filter(move |(_, h)| *h == handler);
            std::iter::once(handler.as_str()).chain(legacy.map(|(name, _)| *name))
        })
    }

    /// Fabro's name for it, as events and records carry it (`handler_type`).
    pub fn as_str(self) -> &'static str {
        match self {
            Handler::Start => "start",
            Handler::Exit => "exit",
            Handler::Agent => "agent",
            Handler::Prompt => "prompt",
            Handler::Human => "human",
            Handler::Conditional => "conditional",
            Handler::Parallel => "parallel",
            Handler::FanIn => "parallel.fan_in",
            Handler::Command => "command",
            Handler::ManagerLoop => "stack.manager_loop",
            Handler::Wait => "wait",
        }
    }

    /// Whether it runs through the agent command (and so needs one).
    pub fn runs_agent(self) -> bool {
        matches!(self, Handler::Agent | Handler::Prompt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::graph::AttrValue;

    fn node(attrs: &[(&str, &str)]) -> Node {
        let mut node = Node::new("n");
        for (k, v) in attrs {
            node.attrs
                .insert((*k).into(), AttrValue::String((*v).into()));
        }
        node
    }

    #[test]
    fn type_then_shape_then_agent() {
        assert_eq!(Handler::of(&node(&[])), Handler::Agent);
        assert_eq!(Handler::of(&node(&[("shape", "hexagon")])), Handler::Human);
        let typed = node(&[("shape", "hexagon"), ("type", "command")]);
        assert_eq!(Handler::of(&typed), Handler::Command);
        // A type Fabro does not know falls back to the shape, an unknown shape to an agent.
        let unknown = node(&[("shape", "hexagon"), ("type", "deploy")]);
        assert_eq!(Handler::of(&unknown), Handler::Human);
        assert_eq!(Handler::of(&node(&[("shape", "circle")])), Handler::Agent);
        assert_eq!(Handler::of(&node(&[("type", "tool")])), Handler::Command);
    }

    /// The list `validate` names for an unknown type.
    #[test]
    fn type_names_are_fabros_each_legacy_spelling_after_its_handlers_name() {
        let names: Vec<_> = Handler::type_names().collect();
        assert_eq!(
            names.join(", "),
            "start, exit, agent, agent_loop, prompt, one_shot, human, conditional, parallel, \
             parallel.fan_in, command, tool, stack.manager_loop, wait"
        );
    }

    #[test]
    fn every_type_name_round_trips_to_its_canonical_name() {
        for name in Handler::type_names() {
            let handler = Handler::named(name).expect(name);
            assert_eq!(Handler::named(handler.as_str()), Some(handler));
        }
    }
}

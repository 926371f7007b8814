//! What the other layers call to read a workflow: `parse` a `.fabro` source into a [`Graph`],
//! then count, name or serialise it (`Graph::to_fabro_json` is Fabro's `spec.graph`).

pub use super::dot::{ParseError, parse};
pub use super::graph::{AttrValue, Edge, Graph, Node};

//! A simple layered layout for the SVG picture, so that drawing a run needs no Graphviz: each
//! node's layer is its distance from the start along the workflow's edges (nodes nothing
//! reaches follow, in declaration order), each layer a centred row in declaration order. Edges
//! that go down one layer or more are straight; the others (loops back to an earlier node,
//! edges within a layer) curve around the right-hand side, as a retry loop reads best.

use std::collections::VecDeque;

use super::Picture;

pub const NODE_HEIGHT: f64 = 44.0;
pub const LAYER_GAP: f64 = 56.0;
pub const NODE_GAP: f64 = 32.0;
pub const MARGIN: f64 = 24.0;
/// An estimate of a character's width at the picture's font size, enough to size boxes.
const CHAR_WIDTH: f64 = 7.2;

pub struct Placed {
    /// Centre of the node.
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub layer: usize,
}

pub struct Layout {
    pub nodes: Vec<Placed>,
    pub width: f64,
    pub height: f64,
}

pub fn layout(picture: &Picture, widest_text: impl Fn(usize) -> usize) -> Layout {
    let layers = layers(picture);
    let count = layers.iter().max().map_or(0, |l| l + 1);
    let widths: Vec<f64> = (0..picture.nodes.len())
        .map(|i| (widest_text(i) as f64 * CHAR_WIDTH + 24.0).max(80.0))
        .collect();
    let rows: Vec<Vec<usize>> = (0..count)
        .map(|layer| (0..layers.len()).filter(|&i| layers[i] == layer).collect())
        .collect();
    let row_width =
        |row: &[usize]| row.iter().map(|&i| widths[i]).sum::<f64>() + NODE_GAP * row.len() as f64;
    let widest = rows.iter().map(|r| row_width(r)).fold(0.0, f64::max);
    let mut nodes: Vec<Placed> = widths
        .iter()
        .map(|&width| Placed {
            x: 0.0,
            y: 0.0,
            width,
            layer: 0,
        })
        .collect();
    for (layer, row) in rows.iter().enumerate() {
        let mut x = MARGIN + (widest - row_width(row)) / 2.0 + NODE_GAP / 2.0;
        for &i in row {
            nodes[i] = Placed {
                x: x + widths[i] / 2.0,
                y: MARGIN + layer as f64 * (NODE_HEIGHT + LAYER_GAP) + NODE_HEIGHT / 2.0,
                width: widths[i],
                layer,
            };
            x += widths[i] + NODE_GAP;
        }
    }
    Layout {
        nodes,
        // Room on the right for the edges that curve back up.
        width: widest + 2.0 * MARGIN + 80.0,
        height: count as f64 * (NODE_HEIGHT + LAYER_GAP) - LAYER_GAP + 2.0 * MARGIN,
    }
}

/// Each node's layer: breadth-first distance from the start node (or the first node), then
/// from each node not yet reached, in declaration order.
fn layers(picture: &Picture) -> Vec<usize> {
    let index = picture.positions();
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); picture.nodes.len()];
    for edge in &picture.edges {
        if let (Some(&from), Some(&to)) =
            (index.get(edge.from.as_str()), index.get(edge.to.as_str()))
        {
            next[from].push(to);
        }
    }
    let start = picture
        .nodes
        .iter()
        .position(|n| matches!(n.shape.as_str(), "Mdiamond") || n.id.eq_ignore_ascii_case("start"))
        .unwrap_or(0);
    let mut layer: Vec<Option<usize>> = vec![None; picture.nodes.len()];
    let mut below = 0;
    for root in std::iter::once(start).chain(0..picture.nodes.len()) {
        if root >= layer.len() || layer[root].is_some() {
            continue;
        }
        layer[root] = Some(below);
        let mut queue = VecDeque::from([root]);
        while let Some(at) = queue.pop_front() {
            let depth = layer[at].unwrap_or(below);
            below = below.max(depth + 1);
            for &to in &next[at] {
                if layer[to].is_none() {
                    layer[to] = Some(depth + 1);
                    queue.push_back(to);
                }
            }
        }
    }
    layer.into_iter().map(|l| l.unwrap_or(0)).collect()
}

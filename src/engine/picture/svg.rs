//! The picture as a standalone SVG document, laid out by `layout` (no Graphviz needed): each
//! node a shape in its status colour with its label and what the run did there, and a
//! `<title>` naming it for tooltips; the edges the run took thick and blue.

use std::fmt::Write;

use super::layout::{self, Layout, NODE_HEIGHT, Placed};
use super::{NOT_TAKEN, Picture, PictureEdge, PictureNode, TAKEN, colours};

pub fn svg(picture: &Picture) -> String {
    let lines: Vec<(String, Option<String>)> = picture
        .nodes
        .iter()
        .map(|n| (n.label.clone(), n.summary()))
        .collect();
    let placed = layout::layout(picture, |i| {
        let (label, summary) = &lines[i];
        let summary = summary.as_deref().map_or(0, |s| s.chars().count());
        label.chars().count().max(summary)
    });
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" \
         width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" \
         font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">",
        w = placed.width,
        h = placed.height
    );
    let _ = writeln!(out, "<title>{}</title>", escape(&picture.name));
    out.push_str("<defs>\n");
    for (name, colour) in [("taken", TAKEN), ("other", NOT_TAKEN)] {
        let _ = writeln!(
            out,
            "<marker id=\"arrow-{name}\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" \
             markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\">\
             <path d=\"M0,0 L10,5 L0,10 z\" fill=\"{colour}\"/></marker>"
        );
    }
    out.push_str("</defs>\n");
    let index = |id: &str| picture.nodes.iter().position(|n| n.id == id);
    for edge in &picture.edges {
        if let (Some(from), Some(to)) = (index(&edge.from), index(&edge.to)) {
            draw_edge(
                &mut out,
                edge,
                &placed.nodes[from],
                &placed.nodes[to],
                &placed,
            );
        }
    }
    for (node, at) in picture.nodes.iter().zip(&placed.nodes) {
        draw_node(&mut out, node, at);
    }
    out.push_str("</svg>\n");
    out
}

fn draw_edge(out: &mut String, edge: &PictureEdge, from: &Placed, to: &Placed, all: &Layout) {
    let (colour, width, marker) = if edge.taken {
        (TAKEN, 2.5, "taken")
    } else {
        (NOT_TAKEN, 1.2, "other")
    };
    let half = NODE_HEIGHT / 2.0;
    let (path, label_at) = if to.layer > from.layer {
        let (x1, y1, x2, y2) = (from.x, from.y + half, to.x, to.y - half);
        (
            format!("M{x1:.1},{y1:.1} L{x2:.1},{y2:.1}"),
            ((x1 + x2) / 2.0 + 4.0, (y1 + y2) / 2.0),
        )
    } else {
        // Back up (or across): out of the right side, around, into the right side.
        let (x1, y1) = (from.x + from.width / 2.0, from.y);
        let (x2, y2) = (to.x + to.width / 2.0, to.y);
        let bend = (all.width - 16.0).max(x1.max(x2) + 40.0);
        let bend_y = if (y1 - y2).abs() < 1.0 { 30.0 } else { 0.0 };
        (
            format!(
                "M{x1:.1},{y1:.1} C{bend:.1},{:.1} {bend:.1},{:.1} {x2:.1},{y2:.1}",
                y1 + bend_y,
                y2 - bend_y
            ),
            (bend - 30.0, (y1 + y2) / 2.0),
        )
    };
    let _ = writeln!(
        out,
        "<path d=\"{path}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"{width}\" \
         marker-end=\"url(#arrow-{marker})\"/>"
    );
    if let Some(label) = &edge.label {
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"#57606a\">{}</text>",
            label_at.0,
            label_at.1,
            escape(label)
        );
    }
}

fn draw_node(out: &mut String, node: &PictureNode, at: &Placed) {
    let (fill, line) = colours(node.visited.map(|v| v.status));
    let (w, h) = (at.width, NODE_HEIGHT);
    let (left, top) = (at.x - w / 2.0, at.y - h / 2.0);
    let style = format!("fill=\"{fill}\" stroke=\"{line}\" stroke-width=\"1.5\"");
    let _ = writeln!(out, "<g class=\"node\">");
    let _ = writeln!(out, "<title>{}</title>", escape(&node.id));
    let _ = match node.shape.as_str() {
        "diamond" | "hexagon" => {
            let inset = if node.shape == "diamond" {
                w / 2.0
            } else {
                14.0
            };
            let points = if node.shape == "diamond" {
                format!(
                    "{:.1},{top:.1} {:.1},{:.1} {:.1},{:.1} {left:.1},{:.1}",
                    at.x,
                    left + w,
                    at.y,
                    at.x,
                    top + h,
                    at.y
                )
            } else {
                let (l, r) = (left + inset, left + w - inset);
                format!(
                    "{l:.1},{top:.1} {r:.1},{top:.1} {:.1},{:.1} {r:.1},{:.1} {l:.1},{:.1} {left:.1},{:.1}",
                    left + w,
                    at.y,
                    top + h,
                    top + h,
                    at.y
                )
            };
            writeln!(out, "<polygon points=\"{points}\" {style}/>")
        }
        shape => {
            let radius = if matches!(shape, "Mdiamond" | "Msquare") {
                h / 2.0
            } else {
                4.0
            };
            writeln!(
                out,
                "<rect x=\"{left:.1}\" y=\"{top:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" \
                 rx=\"{radius:.1}\" {style}/>"
            )
        }
    };
    match node.summary() {
        Some(summary) => {
            text(out, at.x, at.y - 3.0, "bold", &node.label);
            text(out, at.x, at.y + 12.0, "normal", &summary);
        }
        None => text(out, at.x, at.y + 4.0, "bold", &node.label),
    }
    out.push_str("</g>\n");
}

fn text(out: &mut String, x: f64, y: f64, weight: &str, content: &str) {
    let _ = writeln!(
        out,
        "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"middle\" font-weight=\"{weight}\">{}</text>",
        escape(content)
    );
}

/// Text or an attribute value in XML; characters XML 1.0 forbids are dropped.
fn escape(text: &str) -> String {
    super::escaped(text, |c| match c {
        '&' => Some("&amp;"),
        '<' => Some("&lt;"),
        '>' => Some("&gt;"),
        '"' => Some("&quot;"),
        '\'' => Some("&apos;"),
        '\n' | '\t' => Some(" "),
        _ => None,
    })
}

//! Graphviz DOT output of a function's CFG (via petgraph), one node per block labelled with
//! the block header and its instructions; for `--dump-after` style debugging.
//!
//! Guarantees: the output is a complete `digraph` that `dot` accepts; labels escape quotes,
//! backslashes and braces.

use petgraph::dot::{Config, Dot};

use super::cfg::ControlFlowGraph;
use super::function::Function;
use super::write::{inst_to_string, write_block_header};

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' | '\\' | '{' | '}' | '<' | '>' | '|' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\l"),
            c => out.push(c),
        }
    }
    out
}

/// Renders the CFG of `func` as DOT text.
pub fn function_to_dot(func: &Function) -> String {
    let cfg = ControlFlowGraph::with_function(func);
    let g = cfg.to_petgraph(func);
    let labels = g.map(
        |_, &b| {
            let mut s = String::new();
            // Writing to a String cannot fail.
            let _ = write_block_header(&mut s, func, b);
            for i in func.layout.block_insts(b) {
                s.push_str(&inst_to_string(func, i));
                s.push('\n');
            }
            escape(&s)
        },
        |_, _| String::new(),
    );
    let body = format!(
        "{}",
        Dot::with_attr_getters(
            &labels,
            &[Config::EdgeNoLabel, Config::NodeNoLabel],
            &|_, _| String::new(),
            &|_, (_, l)| format!("shape=box, fontname=monospace, label=\"{l}\""),
        )
    );
    body.replacen(
        "digraph {",
        &format!("digraph \"{}\" {{", escape(&func.name)),
        1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::reader::parse_function_text;

    #[test]
    fn dot_has_nodes_and_edges() {
        let f = parse_function_text(
            "kernel %k {\nblock0:\n v0 = pconst true\n brif v0, block1, block2\nblock1:\n jump block2\nblock2:\n return\n}",
        )
        .unwrap();
        let d = function_to_dot(&f);
        assert!(d.starts_with("digraph \"k\" {"), "{d}");
        assert_eq!(d.matches("->").count(), 3, "{d}");
        assert!(d.contains("brif v0, block1, block2"), "{d}");
    }
}
